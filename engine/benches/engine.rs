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
//!   (a few thousand live allocations) on a fresh 1 GiB zone per iteration; the peer runs the
//!   same sequence.
//!
//! With recording on, the event log is cleared (capacity kept) whenever it passes 4 Mi events
//! in the short benchmarks, so memory stays bounded; `mixed_1m` records the whole run.

use std::hint::black_box;
use std::time::Duration;

use buddy_system_allocator::FrameAllocator;
use buddyscope::page_alloc::Engine;
use buddyscope::runner::alloc_gfp;
use buddyscope::setup::{boot_engine, ZoneParams};
use buddyscope::types::gfp::*;
use buddyscope::types::*;
use buddyscope::vmalloc::VMALLOC_GFP;
use buddyscope::workload::SplitMix64;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};

/// 1 GiB of 4 KiB pages.
const ZONE_PAGES: u32 = 262_144;
/// The peer's `ORDER`: blocks up to 2^10 pages, as `MAX_PAGE_ORDER`.
type Peer = FrameAllocator<11>;

fn engine(recording: bool) -> Engine {
    let mut e = boot_engine(&ZoneParams::new(ZONE_PAGES));
    e.recording = recording;
    e
}

fn peer() -> Peer {
    let mut p = Peer::new();
    p.add_frame(0, ZONE_PAGES as usize);
    p
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

/// One step of the mixed workload.
#[derive(Clone, Copy)]
enum Step {
    /// Allocate `1 << order` pages as `MTS[mt]`.
    Alloc { order: u8, mt: u8 },
    /// Free the live allocation at this index (`swap_remove`).
    Free { slot: u32 },
}

const MTS: [MigrateType; 3] = [
    MigrateType::Movable,
    MigrateType::Unmovable,
    MigrateType::Reclaimable,
];

/// 1M steps, orders 0–3 (0 most often), 60 % movable / 30 % unmovable / 10 % reclaimable; the
/// live set random-walks between about 2000 and 6000 allocations (≈ 12,000 pages, 5 % of
/// the zone: nothing ever fails).
fn mixed_sequence(n: usize) -> Vec<Step> {
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
            v.push(Step::Alloc { order, mt });
            live += 1;
        } else {
            v.push(Step::Free {
                slot: (rng.next_u64() % live as u64) as u32,
            });
            live -= 1;
        }
    }
    v
}

fn run_mixed_engine(e: &mut Engine, seq: &[Step]) -> usize {
    let mut live: Vec<(u32, u8)> = Vec::with_capacity(8192);
    for s in seq {
        match *s {
            Step::Alloc { order, mt } => {
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
            Step::Free { slot } => {
                let (p, order) = live.swap_remove(slot as usize);
                e.free_pages(p, order, 0);
            }
        }
    }
    live.len()
}

fn run_mixed_peer(p: &mut Peer, seq: &[Step]) -> usize {
    let mut live: Vec<(usize, usize)> = Vec::with_capacity(8192);
    for s in seq {
        match *s {
            Step::Alloc { order, .. } => {
                let n = 1usize << order;
                live.push((p.alloc(n).expect("mixed alloc"), n));
            }
            Step::Free { slot } => {
                let (f, n) = live.swap_remove(slot as usize);
                p.dealloc(f, n);
            }
        }
    }
    live.len()
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
