//! Bounded work: what a scenario costs, computed without running it, and the limits a run is
//! held to.
//!
//! A `repeat` of a `repeat` multiplies, so a few lines of JSON can ask for 10^18 operations:
//! [`estimate`] reads the scenario's program (each op as written once, with the times it runs,
//! counted at compile time) and counts in `u128` with saturation, so any document is counted,
//! never overflowed. [`check_limits`]
//! refuses a cost over [`Limits`] with a message that gives the count, the limit and how to
//! raise it; the CLI (`check`, `run`) and the app call it before anything runs. While a run
//! records its event trace, [`Limits::max_events`] bounds the trace's memory (checked after
//! every op, see [`crate::run::Runner::limits`]).
//!
//! What a recorded run holds (see [`crate::run::runner::Run::memory_bytes`]):
//! * the trace: [`EVENT_BYTES`] bytes an event, 2 a call (`Enter`/`Exit`) or lock, and a bit an
//!   event of position map ([`crate::mm::Trace`]); at most [`DEFAULT_MAX_EVENTS`] events
//!   plus the events of the op that crossed the cap (the cap is checked between ops);
//! * one op record per executed op (at most [`DEFAULT_MAX_RECORDED_OPS`] of them);
//! * the checkpoints: at most `RunOptions::checkpoint_budget` bytes of node copies (the ring
//!   thins itself out when full), plus the initial and the final node.
//!
//! A zone copy is about 16 bytes a page (its `struct Page`s and pageblock bits,
//! [`Zone::heap_bytes`](crate::mm::Zone::heap_bytes)): 64 MiB for the largest one zone
//! (`zone.pages` ≤ [`MAX_ZONE_PAGES`], 16 GiB), 256 MiB for the largest node (`zones`, or
//! `init.zone` `"all"`: every zone together ≤ [`MAX_NODE_PAGES`], 64 GiB, one zone as large as
//! the node). A copy larger than the checkpoint budget leaves the ring with the initial state
//! only (a jump then replays from event 0), so at 64 GiB a run holds three node copies (the
//! working, later final, node, the initial node and the ring's copy of it: 816 MiB) beside the
//! trace and the op records; [`estimate`] counts the pages an op touches against the node's
//! size there too.

use std::fmt;

use crate::mm::{MAX_NODE_PAGES, MAX_ZONE_PAGES, NR_PAGE_ORDERS};
use crate::scenario::{Op, OpId, ScenarioError, ValidScenario};

/// Operations a scenario may expand to by default. Every built-in and the full-size seed
/// benchmarks of `engine/bench/` fit (the largest, `bench-vmalloc-fix-size`, is 2,000,000 ops
/// on each side), and a counters-only run holds no per-op state, so the bound is time, not
/// memory: about 10 s of native engine work.
pub const DEFAULT_MAX_OPS: u64 = 10_000_000;

/// Operations a *recorded* run may expand to by default: each executed op keeps an op record
/// (about 300 bytes with its iteration path and costs), so this bounds them at ~300 MB.
pub const DEFAULT_MAX_RECORDED_OPS: u64 = 1_000_000;

/// Events a recorded run may hold by default: 16 Mi events of [`EVENT_BYTES`] each is 256 MiB
/// of trace. The largest built-in records about 173,000; `tools/replay/million.json` (900,000
/// workload steps, the replay benchmark's trace) about 13 million.
pub const DEFAULT_MAX_EVENTS: u64 = 16 << 20;

/// Bytes one recorded event takes in the trace (`size_of::<Event>()`; a call or lock takes 2).
pub const EVENT_BYTES: usize = std::mem::size_of::<crate::mm::Event>();

/// The path of a [`ScenarioError`] that reports a run stopped by its progress callback.
pub const CANCELLED_PATH: &str = "run.cancelled";

/// The path of a [`ScenarioError`] that reports a recorded run stopped at the event cap.
pub const EVENT_CAP_PATH: &str = "run.events";

/// The cost of a scenario, counted without running it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    /// Executed operations: the op records a run makes (a `repeat` body counts once per
    /// iteration, a `workload` once per step; `repeat` itself is not an op). Saturates at
    /// `u128::MAX`.
    pub ops: u128,
    /// An upper bound of the pages the ops name: `2^order` for an `alloc`, the allocation a
    /// `free` / `split` / `vfree` names (or one page with `page`), `nr_pages` of a contiguous
    /// range, `pages` of a `vmalloc`, the zone for a `drain`, `2^(largest order)` for each
    /// `workload` step; each op capped at the zone's size. The pcp refills and drains an op
    /// triggers on the side (bounded by the pcp's `high`) are not counted.
    pub pages_touched: u128,
}

impl Cost {
    /// [`Cost::ops`] as a `u64` (saturating): the progress callback's total.
    pub fn ops_u64(&self) -> u64 {
        u64::try_from(self.ops).unwrap_or(u64::MAX)
    }
}

/// `N operations, M pages touched` (a saturated count is printed as `≥ N`).
impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} operations, {} pages touched",
            count(self.ops),
            count(self.pages_touched)
        )
    }
}

fn count(n: u128) -> String {
    if n == u128::MAX {
        format!("≥ {n}")
    } else {
        n.to_string()
    }
}

/// The limits a run is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most operations the scenario may expand to ([`Cost::ops`]).
    pub max_ops: u64,
    /// Most events a recorded run may hold; ignored when not recording.
    pub max_events: u64,
}

impl Default for Limits {
    /// The limits of a counters-only run: [`DEFAULT_MAX_OPS`] (events are not recorded).
    fn default() -> Self {
        Limits {
            max_ops: DEFAULT_MAX_OPS,
            max_events: DEFAULT_MAX_EVENTS,
        }
    }
}

impl Limits {
    /// The limits of a recorded run (the app's timeline, `--format trace`):
    /// [`DEFAULT_MAX_RECORDED_OPS`] and [`DEFAULT_MAX_EVENTS`].
    pub fn recorded() -> Limits {
        Limits {
            max_ops: DEFAULT_MAX_RECORDED_OPS,
            max_events: DEFAULT_MAX_EVENTS,
        }
    }

    /// The default limits for a run that records (`true`) or counts only.
    pub fn for_recording(record: bool) -> Limits {
        if record {
            Limits::recorded()
        } else {
            Limits::default()
        }
    }
}

/// Refuses a cost over the limits: the message gives the count and the limit, the hint how to
/// get under it or raise it.
pub fn check_limits(cost: &Cost, limits: &Limits) -> Result<(), ScenarioError> {
    if cost.ops > u128::from(limits.max_ops) {
        return Err(ScenarioError::new(
            "ops",
            format!(
                "the scenario expands to {} operations ({} pages touched); the limit is {} \
                 operations",
                count(cost.ops),
                count(cost.pages_touched),
                limits.max_ops
            ),
            "lower the repeat times or workload steps, or raise the limit (buddyscope run \
             --max-ops N; a run without the trace, --no-trace, allows more)",
        ));
    }
    Ok(())
}

/// The error a recorded run stops with at the event cap.
pub(crate) fn event_cap_error(events: usize, ops_done: u64, max_events: u64) -> ScenarioError {
    ScenarioError::new(
        EVENT_CAP_PATH,
        format!(
            "the run recorded {events} events after {ops_done} operations, over the cap of \
             {max_events} events ({} MiB of trace at {EVENT_BYTES} bytes an event)",
            (max_events as u128 * EVENT_BYTES as u128) >> 20
        ),
        "run it without the trace (buddyscope run --no-trace, or counters only in the app), \
         or raise the cap (buddyscope run --max-events N)",
    )
}

/// The error a run stops with when its progress callback breaks.
pub(crate) fn cancelled_error(ops_done: u64, ops_total: u64) -> ScenarioError {
    ScenarioError::new(
        CANCELLED_PATH,
        format!("run cancelled after {ops_done} of {ops_total} operations"),
        "",
    )
}

/// True if `e` reports a run its progress callback cancelled.
pub fn is_cancelled(e: &ScenarioError) -> bool {
    e.path == CANCELLED_PATH
}

/// The cost of a scenario, without running it: the op records come from its program (counted
/// once, [`crate::scenario::Program::executed_ops`]); the pages from each op as written, times
/// the times it runs, a `ref` costing what the op that binds its name touches.
pub fn estimate(s: &ValidScenario) -> Cost {
    let import_all = matches!(&s.init, crate::scenario::Init::Proc { zone, .. }
        if zone == crate::scenario::IMPORT_ALL_ZONES);
    let zone = if import_all {
        // The /proc text sizes the node's zones: at most a node's pages in all.
        u128::from(MAX_NODE_PAGES)
    } else if s.zones.is_empty() {
        u128::from(s.static_zone_pages().unwrap_or(MAX_ZONE_PAGES))
    } else {
        // A node of several zones: an op may touch pages of every zone (a drain does).
        s.zones
            .iter()
            .map(|z| u128::from(z.pages.unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES)))
            .sum()
    };
    let program = s.program();
    // By op: the pages one run of it touches (what a `ref` to its name costs).
    let mut pages = vec![0u128; program.len()];
    let mut pages_touched = 0u128;
    for id in 0..program.len() as OpId {
        let named = |pages: &[u128]| program.target(id).map_or(0, |t| pages[t as usize]);
        let one: u128 = match program.op(id) {
            Op::Repeat { .. } => continue,
            Op::Workload {
                steps,
                order_weights,
                ..
            } => {
                let top = (0..NR_PAGE_ORDERS)
                    .rev()
                    .find(|&o| order_weights[o] > 0.0)
                    .unwrap_or(0);
                let p = u128::from(*steps).saturating_mul((1u128 << top).min(zone));
                pages_touched = pages_touched.saturating_add(p.saturating_mul(program.runs(id)));
                continue;
            }
            Op::Alloc { order, .. } => 1u128 << order,
            Op::Free { page, .. } => match page {
                Some(_) => 1,
                None => named(&pages),
            },
            Op::Split { .. } | Op::Vfree { .. } => named(&pages),
            Op::AllocContigRange { nr_pages, .. } => u128::from(*nr_pages),
            Op::FreeContigRange {
                ref_name, nr_pages, ..
            } => match ref_name {
                Some(_) => named(&pages),
                None => u128::from(nr_pages.unwrap_or(0)),
            },
            Op::Vmalloc { pages, .. } => u128::from(*pages),
            // compact_memory scans every page of every zone and may move each one.
            Op::Drain { .. }
            | Op::Tick { .. }
            | Op::CompactMemory { .. }
            | Op::Compact { .. }
            | Op::Kcompactd { .. } => zone,
            Op::GetPage { .. } | Op::PutPage { .. } => 1,
            Op::CmaAlloc { nr_pages, .. } => u128::from(*nr_pages),
            Op::CmaRelease { .. } => named(&pages),
        };
        let one = one.min(zone);
        pages[id as usize] = one;
        pages_touched = pages_touched.saturating_add(one.saturating_mul(program.runs(id)));
    }
    Cost {
        ops: program.executed_ops(),
        pages_touched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_valid;

    fn nested(levels: usize, times: u64) -> String {
        let mut ops =
            r#"{"op": "alloc", "order": 0, "as": "p"}, {"op": "free", "ref": "p"}"#.to_string();
        for _ in 0..levels {
            ops = format!(r#"{{"op": "repeat", "times": {times}, "ops": [{ops}]}}"#);
        }
        format!(r#"{{"version": 1, "ops": [{ops}]}}"#)
    }

    #[test]
    fn nested_repeats_multiply_without_overflow() {
        // 10^6 × 10^6 × 10^6 iterations of two ops: 2·10^18 operations.
        let s = parse_valid(&nested(3, 1_000_000)).unwrap();
        let c = estimate(&s);
        assert_eq!(c.ops, 2_000_000_000_000_000_000);
        assert_eq!(c.pages_touched, 2_000_000_000_000_000_000);
        // 16 levels of u64::MAX: far beyond u128, saturated.
        let s = parse_valid(&nested(16, u64::MAX)).unwrap();
        let c = estimate(&s);
        assert_eq!(c.ops, u128::MAX);
        assert_eq!(c.ops_u64(), u64::MAX);
        assert!(c.to_string().starts_with("≥ "), "{c}");
    }

    #[test]
    fn the_refusal_gives_count_limit_and_how_to_raise_it() {
        let s = parse_valid(&nested(3, 1_000_000)).unwrap();
        let e = check_limits(&estimate(&s), &Limits::default()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("2000000000000000000 operations"), "{text}");
        assert!(text.contains("the limit is 10000000"), "{text}");
        assert!(text.contains("--max-ops"), "{text}");
        // Raised far enough, the same cost passes.
        let raised = Limits {
            max_ops: u64::MAX,
            ..Limits::default()
        };
        assert!(check_limits(&estimate(&s), &raised).is_ok());
    }

    #[test]
    fn names_cost_their_allocation_and_workloads_their_top_order() {
        let s = parse_valid(
            r#"{"version": 1, "zone": {"pages": 4096}, "ops": [
                {"op": "alloc", "order": 9, "as": "thp"},
                {"op": "split", "ref": "thp"},
                {"op": "free_contig_range", "ref": "thp"},
                {"op": "alloc_contig_range", "pfn": 1024, "nr_pages": 100, "as": "r"},
                {"op": "free", "ref": "r", "page": 3},
                {"op": "vmalloc", "pages": 50, "as": "v"},
                {"op": "vfree", "ref": "v"},
                {"op": "drain"},
                {"op": "workload", "seed": 1, "steps": 10,
                 "order_weights": [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
                 "mt_weights": {"movable": 1}, "free_probability": 0.5}
            ]}"#,
        )
        .unwrap();
        let c = estimate(&s);
        assert_eq!(c.ops, 8 + 10);
        assert_eq!(c.pages_touched, 512 * 3 + 100 + 1 + 50 * 2 + 4096 + 10 * 8);
    }

    #[test]
    fn an_import_of_all_zones_is_bounded_by_a_node() {
        // The /proc text sizes the zones only at build: a drain is counted at a node's pages.
        let doc = serde_json::json!({
            "version": 1,
            "init": {
                "pagetypeinfo": include_str!("../../tests/fixtures/machine-6.18-pagetypeinfo.txt"),
                "zone": "all"
            },
            "ops": [{"op": "drain"}, {"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 100}]
        });
        let c = estimate(&parse_valid(&doc.to_string()).unwrap());
        assert_eq!(c.ops, 2);
        assert_eq!(c.pages_touched, u128::from(MAX_NODE_PAGES) + 100);
    }

    #[test]
    fn a_name_bound_in_a_repeat_body_is_its_own() {
        let s = parse_valid(
            r#"{"version": 1, "ops": [
                {"op": "alloc", "order": 3, "as": "x"},
                {"op": "repeat", "times": 4, "ops": [
                    {"op": "alloc", "order": 1, "as": "x"},
                    {"op": "free", "ref": "x"}]},
                {"op": "free", "ref": "x"}
            ]}"#,
        )
        .unwrap();
        let c = estimate(&s);
        assert_eq!(c.ops, 1 + 4 * 2 + 1);
        assert_eq!(c.pages_touched, 8 + 4 * (2 + 2) + 8);
    }
}
