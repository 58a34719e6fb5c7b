//! Engine benchmarks (issue item 8), criterion, with event recording off and on, and the
//! `buddy_system_allocator` crate's `FrameAllocator` (a real buddy frame allocator over
//! `BTreeSet` free lists) on the same order-0 and mixed sequences as a peer.
//!
//! Run: `cargo bench -p buddyscope-engine --bench engine` (about 5 minutes). Criterion prints
//! a confidence interval per benchmark; the medians are in
//! `target/criterion/<group>/<id>/new/estimates.json` (`median.point_estimate`, ns).
//!
//! Groups:
//! * `order0_pair`: one order-0 `alloc_pages` + `__free_pages` through the pcp of a warm 1 GiB
//!   zone; the peer's `alloc(1)` + `dealloc(_, 1)`.
//! * `order9_split_free_contig`: order-9 `alloc_pages`, `split_page`, then
//!   `free_contig_range` page by page (≤ 7.1) or chunked (7.2).
//! * `vmalloc`: `vmalloc` + `vfree` of 50 and 512 pages, the ≤ 6.18 way (bulk, freed page by
//!   page) and the 7.2 way (large orders first, freed in chunks).
//! * `mixed_1m`: one fixed pseudo-random sequence of 1,000,000 allocs and frees of orders 0–3
//!   (a few thousand live allocations, `buddyscope::bench::mixed_sequence`) on a fresh 1 GiB
//!   zone per iteration; the peer runs the same sequence. `engine_recording_on_warm` records
//!   into a log whose pages are already faulted in (the ~12.7 million events are ~300 MB).
//!
//! With recording on, the event log is cleared (capacity kept) whenever it passes 4 Mi events
//! in the short benchmarks, so memory stays bounded; `mixed_1m` records the whole run.

use std::hint::black_box;
use std::time::Duration;

use buddyscope::{
    bench::{mixed_sequence, run_mixed_engine, MIXED_ZONE_PAGES},
    mm::{boot_engine, gfp::*, Engine, ZoneParams, VMALLOC_GFP, *},
};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};

/// 1 GiB of 4 KiB pages.
const ZONE_PAGES: u32 = 262_144;
#[path = "support/peer.rs"]
mod peer;
use peer::{mixed_peer, run_mixed_peer, Peer};

fn engine(recording: bool) -> Engine {
    let mut e = boot_engine(&ZoneParams::new(ZONE_PAGES));
    e.recording = recording;
    e
}

/// The peer on the same zone (`mixed_peer` holds `MIXED_ZONE_PAGES` frames).
fn peer() -> Peer {
    const { assert!(ZONE_PAGES == MIXED_ZONE_PAGES) };
    mixed_peer()
}

/// Keeps a recording engine's log bounded in the per-op benchmarks.
#[inline]
fn trim(e: &mut Engine) {
    if e.log.events.len() > 4 << 20 {
        e.log.events.clear();
        e.log.messages.clear();
    }
}

fn mode(recording: bool) -> &'static str {
    if recording {
        "engine_recording_on"
    } else {
        "engine_recording_off"
    }
}

fn order0_pair(c: &mut Criterion) {
    let mut g = c.benchmark_group("order0_pair");
    g.throughput(Throughput::Elements(1));
    for recording in [false, true] {
        let mut e = engine(recording);
        g.bench_function(mode(recording), |b| {
            b.iter(|| {
                let p = e
                    .alloc_pages(GFP_KERNEL, 0, 0, 1, false)
                    .expect("order-0 page");
                e.free_pages(black_box(p), 0, 0);
                trim(&mut e);
            })
        });
    }
    let mut p = peer();
    g.bench_function("peer_buddy_system_allocator", |b| {
        b.iter(|| {
            let f = p.alloc(1).expect("frame");
            p.dealloc(black_box(f), 1);
        })
    });
    g.finish();
}

fn order9_split_free_contig(c: &mut Criterion) {
    let mut g = c.benchmark_group("order9_split_free_contig");
    g.throughput(Throughput::Elements(512));
    for recording in [false, true] {
        for method in [FreeMethod::PerPage, FreeMethod::Chunked] {
            let mut e = engine(recording);
            let name = format!(
                "{}/{}",
                mode(recording),
                if method == FreeMethod::Chunked {
                    "chunked"
                } else {
                    "per_page"
                }
            );
            g.bench_function(name, |b| {
                b.iter(|| {
                    let p = e
                        .alloc_pages(GFP_HIGHUSER_MOVABLE, 9, 0, 1, true)
                        .expect("order-9 block");
                    e.split_page(p, 9);
                    match method {
                        FreeMethod::PerPage => e.free_contig_range_per_page(black_box(p), 512, 0),
                        FreeMethod::Chunked => e.free_contig_range_chunked(black_box(p), 512, 0),
                    }
                    trim(&mut e);
                })
            });
        }
    }
    g.finish();
}

fn vmalloc(c: &mut Criterion) {
    let mut g = c.benchmark_group("vmalloc");
    for pages in [50u32, 512] {
        g.throughput(Throughput::Elements(pages as u64));
        for recording in [false, true] {
            for (way, strategy, method) in [
                ("bulk+per_page", VmallocStrategy::Bulk, FreeMethod::PerPage),
                (
                    "large_order+chunked",
                    VmallocStrategy::LargeOrder,
                    FreeMethod::Chunked,
                ),
            ] {
                let mut e = engine(recording);
                g.bench_function(
                    BenchmarkId::new(format!("{}/{way}", mode(recording)), pages),
                    |b| {
                        b.iter(|| {
                            let (area, ok) = e.vmalloc(pages, strategy, 0, 1, VMALLOC_GFP);
                            assert!(ok);
                            e.vfree(black_box(&area), method, 0);
                            trim(&mut e);
                        })
                    },
                );
            }
        }
    }
    g.finish();
}

fn mixed_1m(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let seq = mixed_sequence(N);
    let mut g = c.benchmark_group("mixed_1m");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(8));
    for recording in [false, true] {
        g.bench_function(mode(recording), |b| {
            b.iter_batched(
                || engine(recording),
                |mut e| {
                    black_box(run_mixed_engine(&mut e, &seq));
                    e
                },
                BatchSize::PerIteration,
            )
        });
    }
    // Recording into a log whose memory is already faulted in (capacity kept): what recording
    // costs beyond the kernel handing out and zeroing ~300 MB of fresh pages.
    let recorded = {
        let mut e = engine(true);
        run_mixed_engine(&mut e, &seq);
        e.log.events
    };
    g.bench_function("engine_recording_on_warm", |b| {
        b.iter_batched(
            || {
                let mut e = engine(true);
                e.log.events = recorded.clone();
                e.log.events.clear();
                e
            },
            |mut e| {
                black_box(run_mixed_engine(&mut e, &seq));
                e
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("peer_buddy_system_allocator", |b| {
        b.iter_batched(
            peer,
            |mut p| {
                black_box(run_mixed_peer(&mut p, &seq));
                p
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = order0_pair, order9_split_free_contig, vmalloc, mixed_1m
}
criterion_main!(benches);
