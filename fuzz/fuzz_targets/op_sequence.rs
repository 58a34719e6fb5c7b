//! Bytes → a zone (1–4 CPUs, any kernel, mode memory, CMA, recording) and an op sequence
//! (`op_model::decode`); every op is followed by `check_invariants`, page conservation and the
//! state of every live allocation. Any violation panics.
//!
//! Zones are 1024..=4096 pages, so both mobility grouping on and off (below 2560 pages) are
//! fuzzed. With `OP_SEQUENCE_GROUPED=1` in the environment they are 2560..=4096 pages with
//! grouping on only, to spend the time on the grouped paths (the mobility-disabled merge bug
//! this once stepped around is fixed: the zone records each block's list, `list_mt`).
#![no_main]

#[path = "../../engine/tests/support/op_model.rs"]
mod op_model;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn grouped() -> bool {
    static G: OnceLock<bool> = OnceLock::new();
    *G.get_or_init(|| std::env::var("OP_SEQUENCE_GROUPED").is_ok_and(|v| v == "1"))
}

fuzz_target!(|data: &[u8]| {
    let min_pages = if grouped() { 2560 } else { 1024 };
    let (cfg, ops) = op_model::decode(data, min_pages, 4096, grouped());
    let mut h = op_model::Harness::new(&cfg);
    for op in &ops {
        if let Err(e) = h.apply(op) {
            panic!("{cfg:?}: {e}");
        }
    }
    if let Err(e) = h.teardown() {
        panic!("{cfg:?}: teardown: {e}");
    }
});
