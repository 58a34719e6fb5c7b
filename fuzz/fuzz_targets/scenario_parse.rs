//! Arbitrary bytes → `scenario::parse` must not panic. A scenario that parses is re-read from
//! its own JSON (that must parse too) and, when small, run with recording on; the final zone
//! must keep every invariant. Skipped as too slow: more than 2000 ops in all (repeats and
//! workload steps multiplied out) or a zone above 65536 pages.
//!
//! It once found `Engine::vmalloc` overflowing `8 * pages` (u32) for ≥ 2^29 pages (input:
//! `{"version":1,"ops":[{"op":"vmalloc","pages":7e8}]}`); the size is computed in u64 since.
#![no_main]

use buddyscope::{
    mm::check_invariants,
    run::{run, RunOptions},
    scenario::{self, Init, Op, Scenario},
};
use libfuzzer_sys::fuzz_target;

const MAX_OPS: u64 = 2000;

const MAX_PAGES: u64 = 65536;

/// Ops a run executes: a repeat's body `times` times, a workload's `steps`.
fn total_ops(ops: &[Op]) -> u64 {
    ops.iter().fold(0u64, |n, op| {
        n.saturating_add(match op {
            Op::Repeat { times, ops, .. } => times.saturating_mul(total_ops(ops)).max(1),
            Op::Workload { steps, .. } => (*steps).max(1),
            _ => 1,
        })
    })
}

/// The zone size `init` builds, if it can be told (a `/proc` text that does not parse fails
/// the run early anyway).
fn zone_pages(s: &Scenario) -> Option<u64> {
    match &s.init {
        Init::Boot => s.static_zone_pages(),
        Init::Proc {
            pagetypeinfo,
            zoneinfo,
            zone,
        } => buddyscope::scenario::procfs::parse_import(
            pagetypeinfo,
            zoneinfo.as_deref(),
            zone,
            s.zone.cma,
            s.zone.pages,
        )
        .ok()
        .map(|imp| imp.pages),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = scenario::parse(text) else {
        return;
    };
    if let Err(e) = scenario::parse(&s.to_json_pretty()) {
        panic!("a parsed scenario's own JSON does not parse: {e}");
    }
    if total_ops(&s.ops) > MAX_OPS || zone_pages(&s).is_none_or(|p| p > MAX_PAGES) {
        return;
    }
    let opts = RunOptions {
        record: true,
        checkpoint_budget: 4 << 20,
        ..RunOptions::default()
    };
    if let Ok(r) = run(&s, &opts) {
        for z in r.final_node.zones() {
            if let Err(e) = check_invariants(z) {
                panic!("invariant violated at the end of the run: {e}");
            }
        }
    }
});
