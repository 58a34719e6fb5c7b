//! Property tests (issue item 7).
//!
//! * Random operation sequences on random zones keep every invariant after EVERY op:
//!   `check_invariants`, page conservation (buddy + pcp + pages held by the live allocations the
//!   test tracks itself == zone pages) and the state of every page the test believes it holds.
//!   At least 1,000,000 ops per `cargo test` run (the counts are printed with `--nocapture`).
//! * The timeline: seeking anywhere (forwards, backwards, one event at a time back from the end,
//!   visible steps back) gives exactly the zone a replay of `Zone::apply` from `run.initial`
//!   gives, and the end is `run.final_zone`.
//! * Determinism: the same scenario twice gives the same event log, op records and final zone.
//!
//! `BUDDYSCOPE_PROPTEST_OPS=n` sets the op target of the random-sequence tests (default
//! 1,000,000); `PROPTEST_CASES=n` sets the case count of the timeline and determinism tests.
//! Zones with mobility grouping disabled (below 2560 pages) have their own random-sequence test,
//! `mobility_disabled_zones_keep_invariants` (default 200,000 ops), and two reduced cases of the
//! cross-pageblock merge it once caught (fixed: the zone records each block's list, `list_mt`).

#[path = "support/op_model.rs"]
mod op_model;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use buddyscope::{
    mm::{Zone, *},
    run::{Run, RunOptions, Runner, Timeline},
    scenario::{
        self, DrainTarget, Init, MtWeights, Op as SOp, Scenario, ScenarioError, ValidScenario,
        ZoneSpec,
    },
};

/// Validates `s` and runs it with `opts`.
fn run(s: &Scenario, opts: &RunOptions) -> Result<Run, ScenarioError> {
    Runner::new(ValidScenario::new(s.clone())?)
        .options(opts)
        .run()
}
use op_model::{Cfg, Op, Tally};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

// ------------------------------------------------------------------------------------------
// Strategies
// ------------------------------------------------------------------------------------------

/// Which zones a batch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zones {
    /// Mobility grouping on: 2560..=65536 pages, most ≤ 8192 (3072 and up with CMA).
    Grouped,
    /// Mobility grouping on, 2560..=4096 pages.
    GroupedSmall,
    /// Mobility grouping disabled: below 2560 pages (below 3072 with CMA).
    Ungrouped,
}

fn kernel_strategy() -> impl Strategy<Value = Kernel> {
    prop_oneof![Just(Kernel::V6_18), Just(Kernel::V7_1), Just(Kernel::V7_2)]
}

/// A zone of the kind `zones` asks for: all three kernels, 1–4 CPUs, mode memory on and off,
/// CMA on in one of five, start pfn 0, 1024 or 2048, event recording on in one of four.
fn cfg_strategy(zones: Zones) -> BoxedStrategy<Cfg> {
    let pages = match zones {
        Zones::Grouped => prop_oneof![9 => 2560u32..=8192, 1 => 8193u32..=65536].boxed(),
        Zones::GroupedSmall => (2560u32..=4096).boxed(),
        Zones::Ungrouped => prop_oneof![4 => 1024u32..2560, 1 => 2560u32..3072].boxed(),
    };
    (
        pages,
        1u32..=4,
        kernel_strategy(),
        any::<bool>(),
        prop::bool::weighted(0.2),
        0u32..3,
        prop::bool::weighted(0.25),
    )
        .prop_map(
            move |(pages, cpus, kernel, rmqueue_mode_memory, cma, start_block, recording)| {
                // CMA moves the threshold to 3072 pages (`pageblock_nr_pages × MIGRATE_TYPES`).
                let cma = match zones {
                    Zones::Ungrouped => cma || pages >= 2560,
                    _ => cma && pages >= 3072,
                };
                let cfg = Cfg {
                    pages,
                    cpus,
                    kernel,
                    rmqueue_mode_memory,
                    cma,
                    start_block,
                    recording,
                };
                assert_eq!(
                    buddyscope::mm::mobility_disabled(pages as u64, cma),
                    zones == Zones::Ungrouped
                );
                cfg
            },
        )
        .boxed()
}

/// Orders 0..=10, low orders most often.
fn order_strategy() -> impl Strategy<Value = u8> {
    prop_oneof![40 => Just(0u8), 30 => 1u8..=3, 15 => 4u8..=8, 8 => Just(9u8), 7 => Just(10u8)]
}

/// Relative weights of the op kinds: `[alloc, free, split, free_contig, alloc_contig, vmalloc,
/// vfree, drain, tick, get_page, put_page, compact_memory]` (a compaction walks the whole zone:
/// about one op in 300).
type Mix = [u32; 12];
/// Allocation and freeing roughly balanced.
const CHURN: Mix = [300, 260, 60, 50, 40, 70, 70, 30, 20, 30, 30, 3];
/// Allocation-heavy: the zone runs full (slow path, highatomic, steal, failures, reclaim's
/// drain-and-retry).
const PRESSURE: Mix = [450, 140, 60, 40, 40, 100, 50, 20, 10, 20, 20, 3];
/// Free-heavy with many drains: merging back to whole blocks.
const DRAINING: Mix = [280, 300, 80, 80, 30, 60, 90, 80, 40, 30, 30, 3];

fn mix_strategy() -> impl Strategy<Value = Mix> {
    prop_oneof![5 => Just(CHURN), 3 => Just(PRESSURE), 2 => Just(DRAINING)]
}

fn op_strategy(mix: Mix) -> BoxedStrategy<Op> {
    let cpu = any::<u8>;
    let alloc = (order_strategy(), 0u8..3, prop::bool::weighted(0.15), cpu())
        .prop_map(|(order, mt, highatomic, cpu)| Op::Alloc {
            order,
            mt,
            highatomic,
            cpu,
        })
        .boxed();
    let free = (any::<u32>(), prop::bool::weighted(0.6), any::<u32>(), cpu())
        .prop_map(|(pick, one, page, cpu)| Op::Free {
            pick,
            one,
            page,
            cpu,
        })
        .boxed();
    let split = any::<u32>().prop_map(|pick| Op::Split { pick }).boxed();
    let free_contig = (any::<u32>(), any::<bool>(), cpu())
        .prop_map(|(pick, chunked, cpu)| Op::FreeContig { pick, chunked, cpu })
        .boxed();
    let alloc_contig = (any::<u32>(), any::<u32>(), prop::bool::weighted(0.8))
        .prop_map(|(at, nr, near_free)| Op::AllocContig { at, nr, near_free })
        .boxed();
    let vm_pages = prop_oneof![8 => 1u32..=16, 3 => 17u32..=128, 1 => 129u32..=600];
    let vmalloc = (vm_pages, any::<bool>(), any::<bool>(), cpu())
        .prop_map(|(pages, large_order, chunked_on_fail, cpu)| Op::Vmalloc {
            pages,
            large_order,
            chunked_on_fail,
            cpu,
        })
        .boxed();
    let vfree = (any::<u32>(), any::<bool>(), cpu())
        .prop_map(|(pick, chunked, cpu)| Op::Vfree { pick, chunked, cpu })
        .boxed();
    let drain = (cpu(), prop::bool::weighted(0.3))
        .prop_map(|(cpu, all)| Op::Drain { cpu, all })
        .boxed();
    let tick = (cpu(), prop::bool::weighted(0.5))
        .prop_map(|(cpu, all)| Op::Tick { cpu, all })
        .boxed();
    let get_page = (any::<u32>(), any::<u32>())
        .prop_map(|(pick, page)| Op::GetPage { pick, page })
        .boxed();
    let put_page = (any::<u32>(), cpu())
        .prop_map(|(pick, cpu)| Op::PutPage { pick, cpu })
        .boxed();
    // compact_memory, or one zone at one order (`compact`, either sync priority).
    let compact = prop_oneof![
        cpu().prop_map(|cpu| Op::CompactMemory { cpu }),
        (0u8..=10, any::<bool>(), cpu()).prop_map(|(order, priority, cpu)| Op::Compact {
            order,
            priority,
            cpu
        }),
    ]
    .boxed();
    let kinds = [
        alloc,
        free,
        split,
        free_contig,
        alloc_contig,
        vmalloc,
        vfree,
        drain,
        tick,
        get_page,
        put_page,
        compact,
    ];
    Union::new_weighted(mix.into_iter().zip(kinds).collect()).boxed()
}

/// A zone and an op sequence whose length shrinks as the zone grows (each check is O(pages)).
fn case_strategy(zones: Zones) -> impl Strategy<Value = (Cfg, Vec<Op>)> {
    (cfg_strategy(zones), mix_strategy()).prop_flat_map(|(cfg, mix)| {
        let len = if cfg.pages <= 8192 {
            1500..=2500
        } else {
            300..=600
        };
        (Just(cfg), prop::collection::vec(op_strategy(mix), len))
    })
}

// ------------------------------------------------------------------------------------------
// Random op sequences
// ------------------------------------------------------------------------------------------

fn cases(default: u32) -> u32 {
    env_or("PROPTEST_CASES", default as u64) as u32
}

fn env_or(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        // Long sequences shrink poorly: `op_model::minimize` reduces a failure instead.
        max_shrink_iters: 0,
        ..Config::default()
    }
}

/// One proptest run of `cases` random sequences, each checked after every op and torn down
/// (everything freed, the zone whole again) at the end. Returns what the ops did.
fn run_batch(cases: u32, zones: Zones) -> Result<Tally, String> {
    let total = RefCell::new(Tally::default());
    let mut runner = TestRunner::new(config(cases));
    runner
        .run(&case_strategy(zones), |(cfg, ops)| {
            let r = std::panic::catch_unwind(|| {
                let mut h = op_model::Harness::new(&cfg);
                ops.iter().try_for_each(|op| h.apply(op))?;
                h.teardown().map_err(|e| format!("teardown: {e}"))?;
                Ok(h.tally)
            });
            let r = r.unwrap_or_else(|p| Err(format!("panic: {}", op_model::panic_text(&*p))));
            if let Err(e) = &r {
                // proptest's shrinking of long sequences is weak: reduce it here.
                let (min, f) = op_model::minimize(&cfg, &ops);
                return Err(TestCaseError::fail(format!(
                    "{cfg:?}: {e}\nreduced to {} ops ({}):\n{min:#?}",
                    min.len(),
                    f.unwrap_or_default()
                )));
            }
            total.borrow_mut().add(&r.expect("checked above"));
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    Ok(total.into_inner())
}

/// Batches of 16 random cases on (up to) two threads until `target` ops have been run and
/// checked; `zones(b)` picks the zones of batch `b`. Returns the tally.
fn run_until(name: &str, target: u64, zones: fn(u64) -> Zones) -> Tally {
    let t = Instant::now();
    let done = AtomicU64::new(0);
    let batches = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let tally = Mutex::new(Tally::default());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 2);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) && done.load(Ordering::Relaxed) < target {
                    let b = batches.fetch_add(1, Ordering::Relaxed);
                    match run_batch(16, zones(b)) {
                        Ok(t) => {
                            done.fetch_add(t.ops, Ordering::Relaxed);
                            tally.lock().unwrap().add(&t);
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            panic!("{name}, batch {b} ({:?} zones): {e}", zones(b));
                        }
                    }
                }
            });
        }
    });
    let tally = tally.into_inner().unwrap();
    eprintln!(
        "{name}: {} batches of 16 cases, {} ops, each checked, in {:.1?}: {tally:?}",
        batches.load(Ordering::Relaxed),
        tally.ops,
        t.elapsed()
    );
    assert!(tally.ops >= target, "only {} ops", tally.ops);
    tally
}

/// Random op sequences until at least `BUDDYSCOPE_PROPTEST_OPS` (default 1,000,000) ops have
/// been run and checked. Batches alternate between zones of 2560..=65536 pages and small ones
/// (2560..=4096); mobility grouping is on (zones with it disabled:
/// `mobility_disabled_zones_keep_invariants`).
#[test]
fn random_ops_keep_invariants() {
    let target = env_or("BUDDYSCOPE_PROPTEST_OPS", 1_000_000);
    let tally = run_until("random_ops_keep_invariants", target, |b| {
        if b % 2 == 0 {
            Zones::Grouped
        } else {
            Zones::GroupedSmall
        }
    });
    // Every kind of op did something.
    for (what, n) in [
        ("allocations", tally.allocs_ok),
        ("failed allocations", tally.allocs_failed),
        ("frees", tally.frees),
        ("splits", tally.splits),
        ("contiguous frees", tally.contig_frees),
        ("contiguous allocations", tally.contig_allocs_ok),
        (
            "contiguous allocations that migrated",
            tally.contig_migrations,
        ),
        ("vmallocs", tally.vmallocs_ok),
        ("failed vmallocs", tally.vmallocs_failed),
        ("vfrees", tally.vfrees),
        ("drains", tally.drains),
        ("ticks", tally.ticks),
        ("pages decay_pcp_high drained", tally.tick_drained),
        ("get_pages", tally.get_pages),
        ("put_pages", tally.put_pages),
        ("compact_memory runs", tally.compactions),
        ("folios compaction migrated", tally.compact_migrations),
        ("put_pages that freed the page", tally.put_page_frees),
        ("owner frees of a held page", tally.held_frees),
        (
            "allocations rescued by reclaim's drain",
            tally.reclaim_rescues,
        ),
    ] {
        assert!(n > 0 || target < 100_000, "no {what}");
    }
}

/// The same on zones with mobility grouping disabled (< 2560 pages, < 3072 with CMA).
///
/// With grouping disabled, `__free_one_page` merging a block across pageblocks of different
/// pcp types calls `set_pageblock_migratetype(buddy, mt)`, which writes UNMOVABLE instead of
/// `mt`: the merged block sits on the `mt` list while a pageblock it covers is UNMOVABLE, as in
/// the kernel (its debug check warns). The zone records which list each block is on
/// (`Zone::list_mt`), so later unlinks (e.g. `alloc_contig_range`) take it off the right list.
/// These tests and the two reduced cases below once caught the engine unlinking from the wrong
/// list.
#[test]
fn mobility_disabled_zones_keep_invariants() {
    let target = env_or("BUDDYSCOPE_PROPTEST_OPS", 200_000);
    run_until("mobility_disabled_zones_keep_invariants", target, |_| {
        Zones::Ungrouped
    });
}

fn ungrouped_1617() -> Cfg {
    Cfg {
        pages: 1617,
        cpus: 3,
        kernel: Kernel::V7_2,
        rmqueue_mode_memory: false,
        cma: false,
        start_block: 0,
        recording: false,
    }
}

/// Reduced case 1: a contiguous range in pageblocks 0–1 freed to the pcp, an order-9
/// allocation claims pageblock 0 (UNMOVABLE); freeing it and draining merges pageblock 0's
/// order-9 block with pageblock 1's: an order-10 block on the MOVABLE list over an UNMOVABLE
/// pageblock.
#[test]
fn mobility_disabled_merge_keeps_freelist_hygiene() {
    let ops = [
        Op::AllocContig {
            at: 3946921770,
            nr: 1883525787,
            near_free: true,
        },
        Op::Free {
            pick: 0,
            one: false,
            page: 0,
            cpu: 1,
        },
        Op::Alloc {
            order: 9,
            mt: 2,
            highatomic: false,
            cpu: 0,
        },
        Op::Free {
            pick: 0,
            one: false,
            page: 0,
            cpu: 0,
        },
        Op::Drain { cpu: 0, all: true },
    ];
    if let Err(e) = op_model::run_sequence(&ungrouped_1617(), &ops) {
        panic!("{e}");
    }
}

/// Reduced case 2: the same merge happens inside `alloc_contig_range`'s drain, which then
/// unlinks the order-10 block from the UNMOVABLE list: panic in `Zone::unlink`.
#[test]
fn mobility_disabled_alloc_contig_range_does_not_panic() {
    let ops = [
        Op::AllocContig {
            at: 3946921770,
            nr: 1883525787,
            near_free: true,
        },
        Op::Alloc {
            order: 0,
            mt: 0,
            highatomic: false,
            cpu: 232,
        },
        Op::Free {
            pick: 230327018,
            one: false,
            page: 1759411232,
            cpu: 190,
        },
        Op::Alloc {
            order: 9,
            mt: 2,
            highatomic: false,
            cpu: 231,
        },
        Op::Free {
            pick: 2191892805,
            one: true,
            page: 547744844,
            cpu: 108,
        },
        Op::AllocContig {
            at: 2355641597,
            nr: 2830976867,
            near_free: true,
        },
    ];
    let mut h = op_model::Harness::new(&ungrouped_1617());
    for op in &ops {
        // Step without the checks: the panic comes before any check fails.
        h.apply_nocheck(op);
    }
}

// ------------------------------------------------------------------------------------------
// Timeline and determinism
// ------------------------------------------------------------------------------------------

/// A scenario op before names are resolved.
#[derive(Clone, Debug)]
enum Gen {
    Alloc {
        order: u8,
        mt: u8,
        highatomic: bool,
        cpu: u32,
    },
    Free {
        pick: usize,
        page: Option<u64>,
        cpu: u32,
    },
    Split {
        pick: usize,
    },
    FreeContig {
        pick: usize,
        chunked: bool,
    },
    AllocContig {
        at: u64,
        nr: u64,
    },
    Vmalloc {
        pages: u64,
        large_order: bool,
    },
    Vfree {
        pick: usize,
        chunked: Option<bool>,
    },
    Drain {
        cpu: Option<u32>,
    },
    Workload {
        seed: u64,
        steps: u64,
        max_order: usize,
        free_probability: f64,
    },
    Repeat {
        times: u64,
        order: u8,
    },
    Tick {
        cpu: Option<u32>,
    },
    GetPage {
        pick: usize,
        page: u64,
    },
    PutPage {
        pick: usize,
        cpu: u32,
    },
    /// `cma_alloc` of `1 + nr % area` pages (a CMA zone only).
    CmaAlloc {
        nr: u64,
        align: u8,
    },
    CmaRelease {
        pick: usize,
    },
    CompactMemory {
        cpu: u32,
    },
    Compact {
        order: u8,
        priority: u8,
        cpu: u32,
    },
}

fn gen_strategy() -> impl Strategy<Value = Gen> {
    prop_oneof![
        30 => (order_strategy(), 0u8..3, prop::bool::weighted(0.1), 0u32..4)
            .prop_map(|(order, mt, highatomic, cpu)| Gen::Alloc { order, mt, highatomic, cpu }),
        20 => (any::<usize>(), prop::option::weighted(0.3, 0u64..1100), 0u32..4)
            .prop_map(|(pick, page, cpu)| Gen::Free { pick, page, cpu }),
        6 => any::<usize>().prop_map(|pick| Gen::Split { pick }),
        5 => (any::<usize>(), any::<bool>()).prop_map(|(pick, chunked)| Gen::FreeContig { pick, chunked }),
        4 => (any::<u64>(), 1u64..300).prop_map(|(at, nr)| Gen::AllocContig { at, nr }),
        6 => (1u64..200, any::<bool>()).prop_map(|(pages, large_order)| Gen::Vmalloc { pages, large_order }),
        5 => (any::<usize>(), prop::option::of(any::<bool>())).prop_map(|(pick, chunked)| Gen::Vfree { pick, chunked }),
        3 => prop::option::of(0u32..4).prop_map(|cpu| Gen::Drain { cpu }),
        // Weights and probabilities are dyadic so the JSON round trip is exact (see below).
        2 => (any::<u64>(), 50u64..600, 0usize..=10, 13u32..45)
            .prop_map(|(seed, steps, max_order, p)| Gen::Workload { seed, steps, max_order, free_probability: p as f64 / 64.0 }),
        1 => (0u64..4, 0u8..=3).prop_map(|(times, order)| Gen::Repeat { times, order }),
        2 => prop::option::of(0u32..4).prop_map(|cpu| Gen::Tick { cpu }),
        3 => (any::<usize>(), prop_oneof![3 => 0u64..8, 1 => 0u64..600])
            .prop_map(|(pick, page)| Gen::GetPage { pick, page }),
        3 => (any::<usize>(), 0u32..4).prop_map(|(pick, cpu)| Gen::PutPage { pick, cpu }),
        2 => (any::<u64>(), prop_oneof![0u8..=1, 9u8..=10]).prop_map(|(nr, align)| Gen::CmaAlloc { nr, align }),
        2 => any::<usize>().prop_map(|pick| Gen::CmaRelease { pick }),
        1 => (0u32..4).prop_map(|cpu| Gen::CompactMemory { cpu }),
        1 => (0u8..=10, 0u8..=1, 0u32..4).prop_map(|(order, priority, cpu)| Gen::Compact { order, priority, cpu }),
    ]
}

/// Turns generated ops into a valid scenario: names `a0, a1, …`, refs to earlier names of a
/// kind the op accepts (an op with nothing to refer to becomes an order-0 alloc).
fn build_scenario(cfg: &Cfg, gens: &[Gen]) -> Scenario {
    let cpus = cfg.cpus;
    let start = cfg.start_block as u64 * 1024;
    let mut allocs: Vec<String> = Vec::new(); // alloc (free, split, free_contig_range)
    let mut contigs: Vec<String> = Vec::new(); // alloc_contig_range (free, free_contig_range)
    let mut vms: Vec<String> = Vec::new();
    // (name, page) of each get_page, for put_page to refer to.
    let mut refs: Vec<(String, u64)> = Vec::new();
    let mut cmas: Vec<String> = Vec::new();
    let cma_area = cfg.cma.then(|| {
        PAGEBLOCK_NR_PAGES as u64 * (cfg.pages as u64 / PAGEBLOCK_NR_PAGES as u64 - 1).min(2)
    });
    let mut ops = Vec::new();
    let mut n = 0;
    let mut name = || {
        n += 1;
        format!("a{n}")
    };
    let alloc =
        |order: u8, mt: u8, highatomic: bool, cpu: u32, as_name: Option<String>| SOp::Alloc {
            order,
            mt: op_model::MTS[mt as usize % 3],
            highatomic,
            as_name,
            cpu: Some(cpu % cpus),
            note: None,
            zone: None,
        };
    for g in gens {
        let op = match g.clone() {
            Gen::Alloc {
                order,
                mt,
                highatomic,
                cpu,
            } => {
                let a = name();
                allocs.push(a.clone());
                alloc(order, mt, highatomic, cpu, Some(a))
            }
            Gen::Free { pick, page, cpu } if !allocs.is_empty() || !contigs.is_empty() => {
                let k = pick % (allocs.len() + contigs.len());
                let r = allocs
                    .get(k)
                    .unwrap_or_else(|| &contigs[k - allocs.len()])
                    .clone();
                SOp::Free {
                    ref_name: r,
                    page,
                    cpu: Some(cpu % cpus),
                    note: None,
                }
            }
            Gen::Split { pick } if !allocs.is_empty() => SOp::Split {
                ref_name: allocs[pick % allocs.len()].clone(),
                cpu: None,
                note: None,
            },
            Gen::FreeContig { pick, chunked } if !allocs.is_empty() || !contigs.is_empty() => {
                let k = pick % (allocs.len() + contigs.len());
                let r = allocs
                    .get(k)
                    .unwrap_or_else(|| &contigs[k - allocs.len()])
                    .clone();
                let method = Some(if chunked {
                    FreeMethod::Chunked
                } else {
                    FreeMethod::PerPage
                });
                SOp::FreeContigRange {
                    ref_name: Some(r),
                    pfn: None,
                    nr_pages: None,
                    method,
                    frozen: false,
                    cpu: None,
                    note: None,
                }
            }
            Gen::AllocContig { at, nr } => {
                let rel = at % cfg.pages as u64;
                let nr = nr.min(cfg.pages as u64 - rel);
                let a = name();
                contigs.push(a.clone());
                SOp::AllocContigRange {
                    pfn: start + rel,
                    nr_pages: nr,
                    as_name: Some(a),
                    cpu: None,
                    note: None,
                }
            }
            Gen::Vmalloc { pages, large_order } => {
                let a = name();
                vms.push(a.clone());
                let strategy = Some(if large_order {
                    VmallocStrategy::LargeOrder
                } else {
                    VmallocStrategy::Bulk
                });
                SOp::Vmalloc {
                    pages,
                    strategy,
                    as_name: Some(a),
                    cpu: None,
                    note: None,
                }
            }
            Gen::Vfree { pick, chunked } if !vms.is_empty() => SOp::Vfree {
                ref_name: vms[pick % vms.len()].clone(),
                method: chunked.map(|c| {
                    if c {
                        FreeMethod::Chunked
                    } else {
                        FreeMethod::PerPage
                    }
                }),
                cpu: None,
                note: None,
            },
            Gen::Drain { cpu } => SOp::Drain {
                cpu: cpu.map_or(DrainTarget::All, |c| DrainTarget::Cpu(c % cpus)),
                note: None,
            },
            Gen::Workload {
                seed,
                steps,
                max_order,
                free_probability,
            } => {
                let mut order_weights = [0.0; NR_PAGE_ORDERS];
                for (o, w) in order_weights.iter_mut().enumerate().take(max_order + 1) {
                    *w = (1u32 << (10 - o)) as f64 / 64.0;
                }
                SOp::Workload {
                    seed,
                    steps,
                    order_weights,
                    mt_weights: MtWeights {
                        unmovable: 1.0,
                        movable: 2.0,
                        reclaimable: 0.5,
                    },
                    free_probability,
                    cpu: Some((seed % cpus as u64) as u32),
                    note: Some("random workload".into()),
                }
            }
            Gen::Repeat { times, order } => SOp::Repeat {
                times,
                ops: vec![
                    alloc(order, 0, false, 0, Some("r".into())),
                    SOp::Split {
                        ref_name: "r".into(),
                        cpu: None,
                        note: None,
                    },
                    SOp::Free {
                        ref_name: "r".into(),
                        page: Some(0),
                        cpu: None,
                        note: None,
                    },
                    alloc(order, 1, false, 0, None),
                ],
                cpu: None,
                note: None,
            },
            Gen::CompactMemory { cpu } => SOp::CompactMemory {
                cpu: Some(cpu % cpus),
                note: None,
            },
            Gen::Compact {
                order,
                priority,
                cpu,
            } => SOp::Compact {
                order,
                zone: None,
                priority: Some(priority),
                cpu: Some(cpu % cpus),
                note: None,
            },
            Gen::Tick { cpu } => SOp::Tick {
                cpu: cpu.map_or(DrainTarget::All, |c| DrainTarget::Cpu(c % cpus)),
                note: None,
            },
            // Any alloc or range: an unsplit block, a freed page or an index beyond the
            // allocation is a run-time refusal the run must survive too.
            Gen::GetPage { pick, page } if !allocs.is_empty() || !contigs.is_empty() => {
                let k = pick % (allocs.len() + contigs.len());
                let r = allocs
                    .get(k)
                    .unwrap_or_else(|| &contigs[k - allocs.len()])
                    .clone();
                refs.push((r.clone(), page));
                SOp::GetPage {
                    ref_name: r,
                    page,
                    cpu: None,
                    note: None,
                }
            }
            Gen::PutPage { pick, cpu } if !refs.is_empty() => {
                let (r, page) = refs[pick % refs.len()].clone();
                SOp::PutPage {
                    ref_name: r,
                    page,
                    cpu: Some(cpu % cpus),
                    note: None,
                }
            }
            Gen::CmaAlloc { nr, align } if cma_area.is_some_and(|a| a > 0) => {
                let a = name();
                cmas.push(a.clone());
                SOp::CmaAlloc {
                    nr_pages: 1 + nr % cma_area.unwrap_or(1),
                    align: Some(align),
                    as_name: Some(a),
                    cpu: None,
                    note: None,
                }
            }
            Gen::CmaRelease { pick } if !cmas.is_empty() => SOp::CmaRelease {
                ref_name: cmas[pick % cmas.len()].clone(),
                cpu: None,
                note: None,
            },
            // Nothing of the kind to refer to yet (or no CMA area).
            Gen::Free { .. }
            | Gen::CmaAlloc { .. }
            | Gen::CmaRelease { .. }
            | Gen::Split { .. }
            | Gen::FreeContig { .. }
            | Gen::Vfree { .. }
            | Gen::GetPage { .. }
            | Gen::PutPage { .. } => alloc(0, 1, false, 0, None),
        };
        ops.push(op);
    }
    Scenario {
        name: "proptest".into(),
        kernel: cfg.kernel,
        zone: ZoneSpec {
            pages: Some(cfg.pages as u64),
            start_pfn: start,
            cpus,
            cma: cfg.cma,
            rmqueue_mode_memory: cfg.rmqueue_mode_memory,
            // A CONFIG_CMA zone gets a CMA area (up to two pageblocks from its second one), so
            // the invariants cover MIGRATE_CMA pageblocks, nr_free_cma and __rmqueue's balancing.
            cma_pageblocks: cma_area.map(|nr_pages| buddyscope::scenario::CmaPageblocks {
                start_pfn: start + PAGEBLOCK_NR_PAGES as u64,
                nr_pages,
            }),
            ..ZoneSpec::default()
        },
        init: Init::Boot,
        ops,
        ..Scenario::default()
    }
}

/// Scenarios for the timeline and determinism tests, on zones of the given kind (they use
/// grouped zones; the ungrouped ones are covered by `mobility_disabled_zones_keep_invariants`).
fn scenario_strategy(zones: Zones) -> impl Strategy<Value = Scenario> {
    (
        cfg_strategy(zones),
        prop::collection::vec(gen_strategy(), 5..60),
    )
        .prop_map(|(cfg, gens)| build_scenario(&cfg, &gens))
}

/// The reference: `initial` with `Zone::apply` of events `[0, pos)`, kept incrementally
/// (restarted from `initial` when asked for an earlier position).
struct Replay<'a> {
    run: &'a buddyscope::run::Run,
    zone: Zone,
    pos: u32,
}

impl<'a> Replay<'a> {
    fn new(run: &'a buddyscope::run::Run) -> Self {
        Replay {
            run,
            zone: run.initial.clone(),
            pos: 0,
        }
    }
    fn at(&mut self, pos: u32) -> &Zone {
        if pos < self.pos {
            self.zone = self.run.initial.clone();
            self.pos = 0;
        }
        while self.pos < pos {
            self.zone.apply(&self.run.log.events[self.pos as usize]);
            self.pos += 1;
        }
        &self.zone
    }
}

/// Checks one timeline position against the replay; names the first differing field.
fn same_zone(tl: &Timeline, want: &Zone, what: &str) -> Result<(), TestCaseError> {
    let got = tl.zone();
    if got == want {
        return Ok(());
    }
    let field = got.first_difference(want).unwrap_or("another field");
    Err(TestCaseError::fail(format!(
        "{what}: timeline at {} differs from the replay in {field}",
        tl.pos()
    )))
}

#[test]
fn timeline_seek_matches_replay() {
    let seeks = RefCell::new(0u64);
    let mut runner = TestRunner::new(config(cases(48)));
    let strategy = (
        scenario_strategy(Zones::GroupedSmall),
        prop::collection::vec(any::<u32>(), 30),
        0usize..4,
        50u32..400,
    );
    let result = runner.run(&strategy, |(s, targets, budget_kind, back)| {
        // Small checkpoint budgets thin the checkpoints (and make jumps replay further).
        let budget = [0usize, 200 << 10, 1 << 20, 256 << 20][budget_kind];
        let r = run(
            &s,
            &RunOptions {
                record: true,
                checkpoint_budget: budget,
                ..RunOptions::default()
            },
        )
        .map_err(|e| TestCaseError::fail(format!("run: {e}")))?;
        let len = r.log.events.len() as u32;
        prop_assert!(r.checkpoints.iter().all(|(at, _)| *at <= len));
        for (at, z) in &r.checkpoints {
            let mut rp = Replay::new(&r);
            prop_assert!(
                rp.at(*at) == z,
                "checkpoint at {} is not the replayed state",
                at
            );
        }
        let mut tl = Timeline::new(r.clone());
        let mut rp = Replay::new(&r);
        let mut n = 0;
        // Random jumps, forwards and backwards (long ones go through checkpoints).
        for t in &targets {
            let pos = if len == 0 { 0 } else { t % (len + 1) };
            tl.seek(pos);
            prop_assert_eq!(tl.pos(), pos);
            same_zone(&tl, rp.at(pos), "seek")?;
            n += 1;
        }
        tl.seek(len);
        prop_assert!(
            tl.zone() == &r.final_zone,
            "the end of the timeline is not run.final_zone"
        );
        prop_assert!(
            rp.at(len) == &r.final_zone,
            "the replay's end is not run.final_zone"
        );
        // One event at a time back from the end, against replayed states saved on the way.
        let back = back.min(len);
        let mut rp = Replay::new(&r);
        let mut states: Vec<Zone> = Vec::with_capacity(back as usize + 1);
        states.push(rp.at(len - back).clone());
        for p in len - back + 1..=len {
            states.push(rp.at(p).clone());
        }
        let state = |p: u32| &states[(p - (len - back)) as usize];
        for p in (len - back..len).rev() {
            tl.seek(p);
            same_zone(&tl, state(p), "one event back")?;
            n += 1;
        }
        // Visible steps back from the end, then forward again, within the saved window.
        tl.seek(len);
        while tl.pos() > len - back {
            tl.step_back();
            if tl.pos() < len - back {
                break;
            }
            same_zone(&tl, state(tl.pos()), "step_back")?;
            n += 1;
        }
        tl.seek(len - back);
        while tl.pos() < len {
            tl.step_forward();
            same_zone(&tl, state(tl.pos()), "step_forward")?;
            n += 1;
        }
        // Op boundaries: the state after each op is the replay's.
        let mut rp = Replay::new(&r);
        for o in r.ops.iter().step_by(r.ops.len().max(1).div_ceil(50)) {
            tl.seek(o.end);
            same_zone(&tl, rp.at(o.end), "op end")?;
            // Counters match the lists; a free page has refcount 0 and no owner.
            buddyscope::mm::check_invariants(tl.zone())
                .map_err(|e| TestCaseError::fail(format!("after op {}: {e}", o.def)))?;
            n += 1;
        }
        *seeks.borrow_mut() += n;
        Ok(())
    });
    if let Err(e) = result {
        panic!("timeline_seek_matches_replay: {e}");
    }
    eprintln!(
        "timeline_seek_matches_replay: {} positions compared",
        seeks.into_inner()
    );
}

#[test]
fn same_scenario_same_log() {
    let runs = Cell::new(0u32);
    let mut runner = TestRunner::new(config(cases(64)));
    let result = runner.run(
        &(scenario_strategy(Zones::Grouped), any::<bool>()),
        |(s, record)| {
            // The JSON form reads back to the same scenario.
            let back = scenario::parse(&s.to_json_pretty())
                .map_err(|e| TestCaseError::fail(format!("reparse: {e}")))?;
            prop_assert_eq!(&back, &s);
            let opts = RunOptions {
                record,
                checkpoint_budget: 1 << 20,
                ..RunOptions::default()
            };
            let a = run(&s, &opts).map_err(|e| TestCaseError::fail(format!("run: {e}")))?;
            let b = run(&back, &opts).map_err(|e| TestCaseError::fail(format!("run: {e}")))?;
            prop_assert!(a.log.events == b.log.events, "event logs differ");
            prop_assert_eq!(&a.log.messages, &b.log.messages);
            prop_assert_eq!(&a.ops, &b.ops);
            prop_assert_eq!(&a.owners, &b.owners);
            prop_assert_eq!(&a.names, &b.names);
            prop_assert!(a.final_zone == b.final_zone, "final zones differ");
            prop_assert!(a.checkpoints == b.checkpoints, "checkpoints differ");
            // Recording changes what is stored, never what happens.
            let c = run(
                &s,
                &RunOptions {
                    record: !record,
                    checkpoint_budget: 0,
                    ..RunOptions::default()
                },
            )
            .map_err(|e| TestCaseError::fail(format!("run: {e}")))?;
            prop_assert!(
                a.final_zone == c.final_zone,
                "recording on and off end in different zones"
            );
            prop_assert_eq!(a.owners.len(), c.owners.len());
            if !record {
                prop_assert!(a.log.events.is_empty());
            }
            runs.set(runs.get() + 1);
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("same_scenario_same_log: {e}");
    }
    eprintln!("same_scenario_same_log: {} scenarios run twice", runs.get());
}
