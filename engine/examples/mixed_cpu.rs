//! The criterion bench's `mixed_1m` by CPU time: the engine with recording off, on, and on into
//! a pre-faulted log ("warm"), and `buddy_system_allocator`'s `FrameAllocator` on the same
//! 1,000,000 steps, interleaved in one process, median of N rounds. On a shared, loaded machine
//! the thread's CPU time (`/proc/thread-self/schedstat`) is steadier than criterion's wall time.
//!
//! `cargo run --release -p buddyscope-engine --example mixed_cpu -- [ROUNDS]` (BENCHMARKS.md).

use std::hint::black_box;

use buddy_system_allocator::FrameAllocator;
use buddyscope::bench::MIXED_ZONE_PAGES;
use buddyscope::bench::{mixed_engine, mixed_sequence, run_mixed_engine, MixedStep};

type Peer = FrameAllocator<11>;

/// This thread's CPU time in ms (wall time where schedstat is missing).
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e6)
        .expect("/proc/thread-self/schedstat (Linux)")
}

fn run_peer(seq: &[MixedStep]) -> f64 {
    let mut p = Peer::new();
    p.add_frame(0, MIXED_ZONE_PAGES as usize);
    let t = cpu_ms();
    let mut live: Vec<(usize, usize)> = Vec::with_capacity(8192);
    for s in seq {
        match *s {
            MixedStep::Alloc { order, .. } => {
                let n = 1usize << order;
                live.push((p.alloc(n).expect("mixed alloc"), n));
            }
            MixedStep::Free { slot } => {
                let (f, n) = live.swap_remove(slot as usize);
                p.dealloc(f, n);
            }
        }
    }
    black_box(live.len());
    cpu_ms() - t
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROUNDS is a number"))
        .unwrap_or(7);
    let seq = mixed_sequence(1_000_000);
    let (events, fill) = {
        let mut e = mixed_engine(true);
        run_mixed_engine(&mut e, &seq);
        (e.log.events.len(), e.log.events[0])
    };
    let (mut off, mut on, mut warm, mut peer) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let mut e = mixed_engine(false);
        let t = cpu_ms();
        black_box(run_mixed_engine(&mut e, &seq));
        off.push(cpu_ms() - t);

        let mut e = mixed_engine(true);
        let t = cpu_ms();
        black_box(run_mixed_engine(&mut e, &seq));
        on.push(cpu_ms() - t);
        drop(e);

        let mut e = mixed_engine(true);
        e.log.events.resize(events, fill);
        e.log.events.clear();
        let t = cpu_ms();
        black_box(run_mixed_engine(&mut e, &seq));
        warm.push(cpu_ms() - t);
        drop(e);

        peer.push(run_peer(&seq));
    }
    let (off, on, warm, peer) = (
        median(&mut off),
        median(&mut on),
        median(&mut warm),
        median(&mut peer),
    );
    println!("mixed_1m by thread CPU time, median of {rounds} interleaved rounds ({events} events recorded)");
    println!("| run | ms | vs peer | vs recording off |");
    println!("|---|---:|---:|---:|");
    for (name, v) in [
        ("engine, recording off", off),
        ("engine, recording on", on),
        ("engine, recording on, log pre-faulted", warm),
        ("buddy_system_allocator (peer)", peer),
    ] {
        println!("| {name} | {v:.1} | {:.2}× | {:.2}× |", v / peer, v / off);
    }
}
