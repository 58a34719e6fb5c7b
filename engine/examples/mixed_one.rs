//! One run of the mixed sequence, for instruction counts (callgrind) and profiles (`perf
//! record`), which need one process per configuration: the engine with recording off, on, or
//! `buddy_system_allocator` (the peer), on the first STEPS steps (default 1,000,000).
//!
//! ```sh
//! cargo build --release -p buddyscope-engine --example mixed_one
//! valgrind --tool=callgrind --callgrind-out-file=off.cg \
//!     --toggle-collect='buddyscope::bench::run_mixed_engine' \
//!     $CARGO_TARGET_DIR/release/examples/mixed_one off
//! ```
//!
//! Collecting only inside the timed loop (`--toggle-collect`: `run_mixed_engine`, or `*run_mixed_peer`
//! for the peer) leaves out boot and the sequence's generation, as `mixed_cpu` does.

use std::hint::black_box;

use buddyscope::bench::{mixed_engine, mixed_sequence, run_mixed_engine};

#[path = "../benches/support/peer.rs"]
mod peer;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "off".into());
    let steps: usize = args
        .next()
        .map(|a| a.parse().expect("STEPS is a number"))
        .unwrap_or(1_000_000);
    let seq = mixed_sequence(steps);
    let live = match mode.as_str() {
        "off" | "on" => {
            let mut e = mixed_engine(mode == "on");
            let live = run_mixed_engine(&mut e, &seq);
            black_box(e.log.events.len());
            live
        }
        "peer" => peer::run_mixed_peer(&mut peer::mixed_peer(), &seq),
        _ => panic!("mode is off, on or peer"),
    };
    black_box(live);
}
