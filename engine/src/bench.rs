//! The seeds' benchmarks at their real size: a scenario with a `compare`
//! pair runs on both sides counters only, and its counters' B/A stand next to the B/A the
//! seed thread measured on a real kernel (`compare.measured`). The model counts work (lock
//! round trips, list operations, pages prepared), the thread timed it: the ratios are what
//! can be set side by side. `buddyscope bench-seeds engine/bench/*.json` prints the table.
//!
//! Also the engine benchmark's mixed sequence ([`mixed_sequence`]), shared by the criterion
//! bench, `buddyscope bench-engine` and the app's wasm hook.

use std::fmt::Write;

use crate::mm::Engine;
use crate::mm::MigrateType;
use crate::mm::Stats;
use crate::run::alloc_gfp;
use crate::run::Limits;
use crate::run::Runner;
use crate::scenario::Measured;
use crate::scenario::SplitMix64;
use crate::scenario::{parse_valid, ScenarioError, ValidScenario};
use crate::scenario::{ratio, Side};

/// One side's run.
#[derive(Clone, Debug, PartialEq)]
pub struct SideRun {
    /// The side's label (the scenario's `compare` label).
    pub label: String,
    /// The side's kernel profile.
    pub kernel: &'static str,
    /// Executed operations.
    pub ops: u64,
    pub(crate) totals: Stats,
    /// Pages and list steps per lock hold over the run ([`crate::mm::locks`]).
    pub lock_holds: crate::mm::LockHolds,
    /// Time of the engine run (setup included), seconds, from the caller's clock (the CLI's
    /// is the thread's CPU time).
    pub seconds: f64,
}

/// A seed benchmark: both sides and the thread's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedBench {
    /// The scenario's name.
    pub name: String,
    /// Side A (before).
    pub a: SideRun,
    /// Side B (after).
    pub b: SideRun,
    /// The thread's measurement, if the scenario gives one.
    pub measured: Option<Measured>,
}

/// Runs both sides of `text`'s `compare` pair counters only; `clock()` is a time in seconds
/// (the CLI passes `Instant`, which wasm does not have).
pub fn run_seed(
    text: &str,
    limits: &Limits,
    clock: &mut dyn FnMut() -> f64,
) -> Result<SeedBench, ScenarioError> {
    let s = parse_valid(text)?;
    let Some(c) = s.compare.clone() else {
        return Err(ScenarioError::new(
            "compare",
            "a seed benchmark needs a `compare` pair (a before and an after)",
            "add \"compare\": {\"a\": {...}, \"b\": {...}, \"measured\": {...}}",
        ));
    };
    let pair = c.pair();
    let mut side = |which: Side| -> Result<SideRun, ScenarioError> {
        let cs = pair.side(which);
        let v = ValidScenario::new(cs.apply(&s))?;
        let kernel = v.kernel.as_str();
        let t0 = clock();
        let run = Runner::new(v).limits(*limits).counters_only().run()?;
        let seconds = clock() - t0;
        Ok(SideRun {
            label: cs.label.clone(),
            kernel,
            ops: run.ops.len() as u64 + run.ops_omitted,
            totals: run.stats,
            lock_holds: run.lock_holds,
            seconds,
        })
    };
    let a = side(Side::A)?;
    let b = side(Side::B)?;
    Ok(SeedBench {
        name: s.name.clone(),
        a,
        b,
        measured: c.measured,
    })
}

/// B/A with three significant digits below 1 (`0.286`, `0.000061`), three decimals above.
fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        Some(r) if r > 0.0 && r < 0.1 => {
            let digits = (2.0 - r.log10().floor()).min(9.0) as usize;
            format!("{r:.digits$}")
        }
        Some(r) => format!("{r:.3}"),
        None => "-".to_string(),
    }
}

/// The table of one benchmark: every counter either side moved, A, B and B/A; the thread's
/// rows with their B/A; the engine's own time per side.
pub fn table(file: &str, r: &SeedBench) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "## {file}: {}", r.name);
    let _ = writeln!(o, "  a: {} ({}), {} ops", r.a.label, r.a.kernel, r.a.ops);
    let _ = writeln!(o, "  b: {} ({}), {} ops", r.b.label, r.b.kernel, r.b.ops);
    let _ = writeln!(
        o,
        "  {:<22} {:>14} {:>14} {:>9}",
        "counter", "a", "b", "b/a"
    );
    for ((d, va), (_, vb)) in r.a.totals.iter().zip(r.b.totals.iter()) {
        if va == 0 && vb == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "  {:<22} {va:>14} {vb:>14} {:>9}",
            d.name,
            fmt_ratio(ratio(va as f64, vb as f64))
        );
    }
    // The worst hold of each lock: the seeds' lock-hold measurements are worst cases.
    for ((name, ha), (_, hb)) in r.a.lock_holds.iter().into_iter().zip(r.b.lock_holds.iter()) {
        for (what, va, vb) in [
            ("max", ha.max, hb.max),
            ("max_steps", ha.max_steps, hb.max_steps),
        ] {
            if va == 0 && vb == 0 {
                continue;
            }
            let _ = writeln!(
                o,
                "  {:<22} {va:>14} {vb:>14} {:>9}",
                format!("{name}_{what}"),
                fmt_ratio(ratio(va as f64, vb as f64))
            );
        }
    }
    if let Some(m) = &r.measured {
        let _ = writeln!(o, "  measured ({}):", m.source);
        for row in &m.rows {
            let _ = writeln!(
                o,
                "  {:<38} {:>14} {:>14} {:>9}  {}",
                row.label,
                row.a,
                row.b,
                fmt_ratio(ratio(row.a, row.b)),
                row.unit
            );
        }
    }
    let _ = writeln!(
        o,
        "  engine CPU time (counters only): a {:.3} s, b {:.3} s",
        r.a.seconds, r.b.seconds
    );
    o
}

// ---------------------------------------------------------------------------------------------
// The engine benchmark's mixed sequence (benches/engine.rs `mixed_1m`, the app's
// `window.__buddyscopeBench`): one definition, so native and wasm run the same steps.
// ---------------------------------------------------------------------------------------------

/// Pages of the zone the mixed sequence runs on (1 GiB).
pub const MIXED_ZONE_PAGES: u32 = 262_144;

/// A booted 1 GiB zone for the mixed sequence, recording on or off.
pub fn mixed_engine(recording: bool) -> Engine {
    let mut e = crate::mm::boot_engine(&crate::mm::ZoneParams::new(MIXED_ZONE_PAGES));
    e.recording = recording;
    e
}

/// One step of the mixed workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MixedStep {
    /// Allocate `1 << order` pages as `MTS[mt]`.
    Alloc {
        /// The order.
        order: u8,
        /// Index into [`MTS`].
        mt: u8,
    },
    /// Free the live allocation at this index (`swap_remove`).
    Free {
        /// Index of the live allocation.
        slot: u32,
    },
}

/// The migratetypes a [`MixedStep::Alloc`] names by index.
pub const MTS: [MigrateType; 3] = [
    MigrateType::Movable,
    MigrateType::Unmovable,
    MigrateType::Reclaimable,
];

/// `n` steps (the benchmarks use 1M), orders 0–3 (0 most often), 60 % movable / 30 % unmovable / 10 % reclaimable; the
/// live set random-walks between about 2000 and 6000 allocations (≈ 12,000 pages, 5 % of
/// the zone: nothing ever fails).
pub fn mixed_sequence(n: usize) -> Vec<MixedStep> {
    let mut rng = SplitMix64(0x6275_6464_7973_636f);
    let mut live = 0u32;
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let p_alloc = if live < 2000 {
            0.7
        } else if live > 6000 {
            0.3
        } else {
            0.5
        };
        if live == 0 || rng.next_f64() < p_alloc {
            let r = rng.next_u64();
            let order = [0, 0, 0, 0, 1, 1, 2, 3][(r & 7) as usize];
            let m = (r >> 8) % 10;
            let mt = if m < 6 {
                0
            } else if m < 9 {
                1
            } else {
                2
            };
            v.push(MixedStep::Alloc { order, mt });
            live += 1;
        } else {
            v.push(MixedStep::Free {
                slot: (rng.next_u64() % live as u64) as u32,
            });
            live -= 1;
        }
    }
    v
}

/// Runs `seq` on `e` (CPU 0, owner 1); returns the allocations still live at the end. Every
/// allocation succeeds on a 1 GiB zone ([`mixed_engine`]).
pub fn run_mixed_engine(e: &mut Engine, seq: &[MixedStep]) -> usize {
    let mut live: Vec<(u32, u8)> = Vec::with_capacity(8192);
    for s in seq {
        match *s {
            MixedStep::Alloc { order, mt } => {
                let mt = MTS[mt as usize];
                let p = e
                    .alloc_pages(
                        alloc_gfp(mt, false),
                        order,
                        0,
                        1,
                        mt == MigrateType::Movable,
                    )
                    .expect("mixed alloc");
                live.push((p, order));
            }
            MixedStep::Free { slot } => {
                let (p, order) = live.swap_remove(slot as usize);
                e.free_pages(p, order, 0);
            }
        }
    }
    live.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_run_and_the_table_sets_ratios_side_by_side() {
        let text = crate::scenario::builtin::get("cma-frozen-range")
            .unwrap()
            .json();
        let mut t = 0.0;
        let mut clock = || {
            t += 1.0;
            t
        };
        let r = run_seed(text, &Limits::default(), &mut clock).unwrap();
        assert_eq!(r.a.kernel, "v7.1");
        assert_eq!(r.b.kernel, "v7.2");
        assert_eq!(r.a.ops, 5);
        // Page by page every page is a pcp operation; chunked, none of the 16384 is.
        assert!(r.a.totals.pcp_ops >= 16384, "{:?}", r.a.totals);
        assert!(r.b.totals.pcp_ops < r.a.totals.pcp_ops / 100);
        assert_eq!(r.a.seconds, 1.0);
        let out = table("cma.json", &r);
        assert!(out.contains("pcp_ops"), "{out}");
        assert!(out.contains("1406"), "{out}");
        assert!(out.contains("0.286"), "{out}");
        assert_eq!(fmt_ratio(Some(1000.0 / 16387997.0)), "0.0000610");
        assert_eq!(fmt_ratio(Some(0.05)), "0.0500");
        assert_eq!(fmt_ratio(Some(17.9423)), "17.942");
        assert_eq!(fmt_ratio(None), "-");
        // A scenario without a pair is refused.
        let e = run_seed(r#"{"version": 1}"#, &Limits::default(), &mut clock).unwrap_err();
        assert_eq!(e.path, "compare");
    }

    #[test]
    fn the_mixed_sequence_is_fixed_and_never_fails() {
        let seq = mixed_sequence(20_000);
        assert_eq!(seq, mixed_sequence(20_000));
        let allocs = seq
            .iter()
            .filter(|s| matches!(s, MixedStep::Alloc { .. }))
            .count();
        let mut e = mixed_engine(false);
        let live = run_mixed_engine(&mut e, &seq);
        assert_eq!(live, allocs - (seq.len() - allocs));
        assert!(e.log.events.is_empty());
    }
}
