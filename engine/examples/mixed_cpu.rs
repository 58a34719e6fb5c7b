//! The criterion bench's `mixed_1m` by CPU time: the engine with recording off, on, and on into
//! a pre-faulted log ("warm"), and `buddy_system_allocator`'s `FrameAllocator` on the same
//! 1,000,000 steps, interleaved in one process, median of N rounds. On a shared, loaded machine
//! the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) is steadier than criterion's wall time.
//! A second table times the trace alone: as many 24-byte records (the `Event` before it was
//! packed), 16-byte ones (the `Event` now) and 16-byte ones without the Enter/Exit annotations
//! pushed into a fresh vector, the floor of recording on.
//!
//! `cargo run --release -p buddyscope-engine --example mixed_cpu -- [ROUNDS]` (BENCHMARKS.md).

use std::hint::black_box;

use buddyscope::{
    bench::{mixed_engine, mixed_sequence, run_mixed_engine, MixedStep},
    mm::Annotation,
};

#[path = "../benches/support/peer.rs"]
mod peer;

/// This thread's CPU time in ms, to the nanosecond (`CLOCK_THREAD_CPUTIME_ID`). Not
/// `/proc/thread-self/schedstat`: for a thread that is running it is brought up to date only at
/// a scheduler tick or a switch, so on a quiet machine it moved in steps of 4 ms (`HZ=250`),
/// a tenth of a run.
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call writes only into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// Page faults this thread has taken (`getrusage(RUSAGE_THREAD)`'s minor faults): a recorded
/// run faults in its trace's pages one by one, and that is most of what recording costs.
fn minor_faults() -> i64 {
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage; the call writes only into it.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_THREAD)");
    ru.ru_minflt
}

fn run_peer(seq: &[MixedStep]) -> f64 {
    let mut p = peer::mixed_peer();
    let t = cpu_ms();
    black_box(peer::run_mixed_peer(&mut p, seq));
    cpu_ms() - t
}

/// CPU ms to push `n` copies of `v` into a fresh vector: what writing a trace of that size costs
/// with no engine at all (the kernel's page faults and zeroing, the vector's growth).
fn fill<T: Copy>(n: usize, v: T) -> f64 {
    let t = cpu_ms();
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(black_box(v));
    }
    black_box(&out);
    let ms = cpu_ms() - t;
    drop(out);
    ms
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
    let (events, fill_event, calls, recorded) = {
        let mut e = mixed_engine(true);
        run_mixed_engine(&mut e, &seq);
        let calls = e
            .log
            .events
            .iter()
            .filter(|ev| {
                matches!(
                    ev.kind().annotation(),
                    Some(Annotation::Enter { .. } | Annotation::Exit { .. })
                )
            })
            .count();
        (e.log.events.len(), e.log.events[0], calls, e.log.events)
    };
    let (mut off, mut on, mut warm, mut peer) = (vec![], vec![], vec![], vec![]);
    let mut on_faults = vec![];
    let (mut log24, mut log16, mut log16_no_calls) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        let mut e = mixed_engine(false);
        let t = cpu_ms();
        black_box(run_mixed_engine(&mut e, &seq));
        off.push(cpu_ms() - t);

        let mut e = mixed_engine(true);
        let (t, f) = (cpu_ms(), minor_faults());
        black_box(run_mixed_engine(&mut e, &seq));
        on.push(cpu_ms() - t);
        on_faults.push((minor_faults() - f) as f64);
        drop(e);

        let mut e = mixed_engine(true);
        e.log.events = recorded.clone();
        e.log.events.clear();
        let t = cpu_ms();
        black_box(run_mixed_engine(&mut e, &seq));
        warm.push(cpu_ms() - t);
        drop(e);

        peer.push(run_peer(&seq));

        log24.push(fill(events, [0u64; 3]));
        log16.push(fill(events, fill_event));
        log16_no_calls.push(fill(events - calls, [0u64; 2]));
    }
    let (off, on, warm, peer) = (
        median(&mut off),
        median(&mut on),
        median(&mut warm),
        median(&mut peer),
    );
    let (log24, log16, log16_no_calls) = (
        median(&mut log24),
        median(&mut log16),
        median(&mut log16_no_calls),
    );
    println!(
        "mixed_1m by thread CPU time, median of {rounds} interleaved rounds ({events} events \
         recorded, {calls} of them Enter/Exit; {} coded, {:.1} MB at the least; recording on \
         took {:.0} page faults, median)",
        recorded.coded_count(),
        recorded.min_bytes() as f64 / 1e6,
        median(&mut on_faults)
    );
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
    println!();
    println!("The trace alone, no engine: pushing as many records into a fresh vector");
    println!("| records | ms | vs recording off |");
    println!("|---|---:|---:|");
    for (name, v) in [
        (format!("{events} × 24 bytes (the unpacked Event)"), log24),
        (format!("{events} × 16 bytes (the log as it is)"), log16),
        (
            format!("{} × 16 bytes, no Enter/Exit", events - calls),
            log16_no_calls,
        ),
    ] {
        println!("| {name} | {v:.1} | {:.2}× |", v / off);
    }
}
