//! The seeds' benchmarks at their real size (issue 10, item 3): a scenario with a `compare`
//! pair runs on both sides counters only, and its counters' B/A stand next to the B/A the
//! seed thread measured on a real kernel (`compare.measured`). The model counts work (lock
//! round trips, list operations, pages prepared), the thread timed it: the ratios are what
//! can be set side by side. `buddyscope bench-seeds engine/bench/*.json` prints the table.

use std::fmt::Write;

use crate::compare::{ratio, Measured, Side};
use crate::limits::Limits;
use crate::runner::{execute_counters_only, RunOptions};
use crate::scenario::{parse_valid, ScenarioError, ValidScenario};
use crate::stats::Stats;

/// One side's run.
#[derive(Clone, Debug, PartialEq)]
pub struct SideRun {
    pub label: String,
    pub kernel: &'static str,
    /// Executed operations.
    pub ops: u64,
    pub totals: Stats,
    /// Wall time of the engine run (setup included), seconds, from the caller's clock.
    pub seconds: f64,
}

/// A seed benchmark: both sides and the thread's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedBench {
    pub name: String,
    pub a: SideRun,
    pub b: SideRun,
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
        let start = crate::setup::build(v)?;
        let mut progress = |_: u64, _: u64| std::ops::ControlFlow::Continue(());
        let run = execute_counters_only(start, &RunOptions::default(), limits, &mut progress)?;
        let seconds = clock() - t0;
        Ok(SideRun {
            label: cs.label.clone(),
            kernel,
            ops: run.ops.len() as u64 + run.ops_omitted,
            totals: run.final_zone.stats,
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

fn fmt_ratio(r: Option<f64>) -> String {
    match r {
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
        "  engine time (counters only): a {:.3} s, b {:.3} s",
        r.a.seconds, r.b.seconds
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_run_and_the_table_sets_ratios_side_by_side() {
        let text = crate::builtin::get("cma-frozen-range").unwrap().json;
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
        // A scenario without a pair is refused.
        let e = run_seed(r#"{"version": 1}"#, &Limits::default(), &mut clock).unwrap_err();
        assert_eq!(e.path, "compare");
    }
}
