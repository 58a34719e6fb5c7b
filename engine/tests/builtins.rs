//! Every built-in scenario runs, keeps the invariants after every op (checked by stepping a
//! timeline through the recorded trace) and shows its seed's effect in the cost counters.

use buddyscope::{
    mm::{check_invariants, Stats},
    run::{Run, Runner, Timeline},
    scenario::{builtin, ValidScenario},
};

fn run(id: &str) -> Run {
    let b = builtin::get(id).unwrap_or_else(|| panic!("no builtin {id}"));
    buddyscope::parse_valid(b.json())
        .and_then(|s| buddyscope::Runner::new(s).run())
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Sum of the costs of the ops whose def path starts with `prefix`.
fn cost(r: &Run, prefix: &str) -> Stats {
    r.ops
        .iter()
        .filter(|o| r.op_defs[o.def as usize].path.starts_with(prefix))
        .map(|o| o.cost)
        .sum()
}

#[test]
fn every_builtin_keeps_the_invariants_after_every_op() {
    for b in builtin::ALL {
        let r = run(b.id);
        assert!(!r.ops.is_empty(), "{}", b.id);
        let fin = r.final_node.clone();
        let ends: Vec<u32> = r.ops.iter().map(|o| o.end).collect();
        let mut tl = Timeline::new(r);
        for (i, &end) in ends.iter().enumerate() {
            tl.seek(end);
            // Every zone of a node of several zones (one for the others).
            for z in tl.node().zones() {
                if let Err(e) = check_invariants(z) {
                    panic!("{}: after op {i}: zone {}: {e}", b.id, z.cfg().name);
                }
            }
        }
        tl.seek(tl.len());
        assert!(*tl.node() == fin, "{}: replay differs from the run", b.id);
    }
}

#[test]
fn chunked_free_of_a_split_thp_is_one_pcp_op_instead_of_512() {
    let r = run("free-contig-range-thp");
    let per_page = r
        .ops
        .iter()
        .filter(|o| r.op_defs[o.def as usize].summary.contains("(per page)"));
    let chunked = r
        .ops
        .iter()
        .filter(|o| r.op_defs[o.def as usize].summary.contains("(chunked)"));
    for o in per_page {
        assert!(o.cost.pcp_ops >= 512, "{:?}", o.cost);
        assert_eq!(o.cost.pages_prepared, 512);
    }
    for o in chunked {
        assert_eq!(o.cost.pcp_ops, 1, "{:?}", o.cost);
        assert_eq!(o.cost.pages_prepared, 512);
    }
    // The per-page phase makes the pcp overflow and drain; the chunked phase never does.
    assert!(cost(&r, "ops[0]").pcp_drains > 0);
    assert_eq!(cost(&r, "ops[2]").pcp_drains, 0);
}

#[test]
fn cma_release_chunked_takes_sixteen_zone_locks() {
    let r = run("cma-frozen-range");
    let per_page = cost(&r, "ops[1]");
    let chunked = cost(&r, "ops[4]");
    assert_eq!(
        chunked.zone_lock, 16,
        "sixteen order-10 chunks straight into the buddy"
    );
    assert_eq!(chunked.pcp_ops, 0);
    assert!(per_page.pcp_ops >= 16384);
    assert!(per_page.zone_lock > chunked.zone_lock);
}

#[test]
fn vmalloc_large_order_touches_fewer_pageblocks() {
    let r = run("vmalloc-large-order");
    let touched = |name: &str| {
        let d = r
            .op_defs
            .iter()
            .position(|d| d.name.as_deref() == Some(name))
            .unwrap() as u32;
        r.ops
            .iter()
            .find(|o| o.def == d)
            .unwrap()
            .pageblocks_touched
    };
    assert!(touched("v2048_large") < touched("v2048_bulk"));
    assert!(touched("v4000_large") <= touched("v4000_bulk"));
}

#[test]
fn fallback_claim_retypes_a_pageblock_and_steal_does_not() {
    let claim = run("fallback-claim");
    assert!(claim.stats.pageblocks_claimed >= 1);
    assert_eq!(claim.stats.pages_stolen, 0);
    let steal = run("fallback-steal");
    assert_eq!(steal.stats.pageblocks_claimed, 0);
    assert!(steal.stats.pages_stolen > 0);
    let nomem = run("fallback-steal-no-mode-memory");
    // Same pages stolen, but without the mode memory every refill page repeats the claim
    // search: more probes and more refused claims.
    assert_eq!(nomem.stats.pages_stolen, steal.stats.pages_stolen);
    assert!(nomem.stats.fallback_probes > 3 * steal.stats.fallback_probes);
    assert!(nomem.stats.claims_refused > steal.stats.claims_refused);
}

#[test]
fn stepping_back_one_event_is_exact() {
    let r = run("fallback-steal");
    let states: Vec<u32> = (0..r.log.events.len() as u32).step_by(97).collect();
    let mut tl = Timeline::new(r.clone());
    let mut fwd = Timeline::new(r);
    tl.seek(tl.len());
    for &p in states.iter().rev() {
        tl.seek(p);
        fwd.seek(p);
        assert!(tl.zone() == fwd.zone(), "position {p}");
    }
}

#[test]
fn pcp_overflow_drains_during_the_per_page_vfree() {
    let r = run("pcp-overflow-2cpu");
    let vfree = cost(&r, "ops[2]");
    assert!(vfree.pcp_drains > 0, "{vfree:?}");
    // 6.19+: free_pcppages_bulk in batch-sized chunks (batch 15 on a 256 MiB zone).
    assert!(vfree.zone_lock >= vfree.pcp_drains);
}

/// The reclaim drain rescues the pcp-held THP: the last op succeeds with the block that sat on
/// CPU 0's pcp list, after a `drain_all_pages` and without page reclaim.
#[test]
fn pcp_held_thp_is_rescued_by_the_reclaim_drain() {
    use buddyscope::mm::Annotation;
    use buddyscope::mm::KernelFn;
    use buddyscope::mm::Step;
    use buddyscope::run::Outcome;
    let r = run("pcp-thp-rescued-by-drain");
    let last = r.ops.last().unwrap();
    assert_eq!(
        last.outcome,
        Outcome::Allocated {
            order: 9,
            pfn: 0x200
        }
    );
    let evs = r.log.events.range(last.start as usize..last.end as usize);
    assert!(evs.iter().any(|e| e.step == Step::DirectReclaimNotModelled));
    assert!(evs.iter().any(|e| e.kind().annotation()
        == Some(Annotation::Enter {
            func: KernelFn::drain_all_pages
        })));
    assert_eq!(r.ops[3].nr_free_after.iter().sum::<u64>(), 0, "buddy empty");
    assert_eq!(r.final_node.active().pcp()[0].count, 0);
}

/// The held page in the chunked free: 7.2 splits the run at page 100 (two runs of chunks), 7.1
/// frees page by page; on both sides the page is freed only by the last `put_page`.
#[test]
fn held_page_splits_the_chunked_free_and_is_freed_by_put_page() {
    use buddyscope::mm::{Annotation, EventKind, Tracepoint};
    use buddyscope::run::Outcome;
    let b = builtin::get("free-contig-range-held-page").unwrap();
    let s = buddyscope::scenario::parse(b.json()).unwrap();
    let cmp = s.compare.clone().unwrap();
    for (side, chunks) in [(&cmp.a, 0), (&cmp.b, 9)] {
        let r = ValidScenario::new(side.apply(&s))
            .and_then(|v| Runner::new(v).run())
            .unwrap();
        let op = &r.ops[3];
        let evs = r.log.events.range(op.start as usize..op.end as usize);
        let n = evs
            .iter()
            .filter(|e| matches!(e.kind(), EventKind::Annotation(Annotation::Chunk { .. })))
            .count();
        assert_eq!(n, chunks, "{}", side.label);
        assert!(matches!(
            op.outcome,
            Outcome::ContigFreedHeld { held: 1, .. }
        ));
        assert_eq!(
            r.ops[4].outcome,
            Outcome::PageRefDropped {
                index: 100,
                freed: true
            }
        );
        let put = r
            .log
            .events
            .range(r.ops[4].start as usize..r.ops[4].end as usize);
        assert!(put.iter().any(|e| matches!(
            e.kind(),
            EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageFree {
                pfn: 100,
                order: 0
            }))
        )));
        assert_eq!(r.final_node.active().page_refcount(100), 0);
    }
}

/// The alloc_contig_range story: three movable blocks migrate out of [0, 1024), the range is
/// taken, the -EBUSY attempt changes nothing, and `free thp` frees the THP's new page (0x800).
#[test]
fn alloc_contig_range_migrates_and_the_busy_one_fails() {
    use buddyscope::run::Outcome;
    let r = run("alloc-contig-range-migrates");
    assert_eq!(
        r.ops[4].outcome,
        Outcome::ContigMigrated {
            nr: 1024,
            pfn: 0,
            migrated: 3
        }
    );
    assert_eq!(r.ops[5].outcome, Outcome::RangeInUse);
    let freed: Vec<u32> =
        r.log
            .events
            .range(r.ops[6].start as usize..r.ops[6].end as usize)
            .filter_map(|ev| match ev.kind().annotation() {
                Some(buddyscope::mm::Annotation::Trace(
                    buddyscope::mm::Tracepoint::MmPageFree { pfn, order: 9 },
                )) => Some(pfn),
                _ => None,
            })
            .collect();
    assert_eq!(freed, vec![0x800]);
}

/// The CMA allocator story: `cma_alloc` of the whole 16384-page area migrates the 8 THPs that
/// landed in it; `cma_release` on 7.2 is sixteen order-10 chunks (16 zone locks,
/// no pcp operation), on 7.1 16384 pcp frees and their drains.
#[test]
fn cma_alloc_migrates_and_cma_release_is_chunked_on_7_2() {
    use buddyscope::run::Outcome;
    let r = run("cma-alloc-release");
    let n = r.ops.len();
    assert_eq!(
        r.ops[n - 2].outcome,
        Outcome::CmaAllocated {
            nr: 16384,
            pfn: 0x2000,
            migrated: 8,
            retries: 0
        }
    );
    let release = r.ops[n - 1].cost;
    assert_eq!(release.zone_lock, 16);
    assert_eq!(release.pcp_ops, 0);
    assert_eq!(release.pages_prepared, 16384);
    let v71 = builtin::get("cma-alloc-release").unwrap().json().replace(
        "\"kernel\": \"v7.2\",\n  \"zone\"",
        "\"kernel\": \"v7.1\",\n  \"zone\"",
    );
    let r = buddyscope::parse_valid(&v71)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .unwrap();
    assert_eq!(r.scenario.kernel, buddyscope::mm::Kernel::V7_1);
    let release = r.ops[r.ops.len() - 1].cost;
    assert!(release.pcp_ops >= 16384, "{release:?}");
    assert!(release.pcp_drains > 0);
}

/// Every built-in runs on every profile (the scenario's kernel replaced, as `run --kernel`
/// does), keeps the invariants at its end, and its `--format trace` output replays with zero
/// divergences onto the same free lists.
#[test]
fn every_builtin_runs_and_replays_on_every_profile() {
    use buddyscope::mm::{Kernel, MigrateType, NR_PAGE_ORDERS};
    use buddyscope::run::replay::{replay_text, ReplayOptions};
    let mut failed = Vec::new();
    for b in builtin::ALL {
        for kernel in Kernel::ALL {
            let mut s = buddyscope::scenario::parse(b.json()).unwrap();
            s.kernel = kernel;
            let r = match ValidScenario::new(s.clone()).and_then(|v| Runner::new(v).run()) {
                Ok(r) => r,
                Err(e) => {
                    failed.push(format!("{} {}: {e}", b.id, kernel.as_str()));
                    continue;
                }
            };
            for z in r.final_node.zones() {
                if let Err(e) = check_invariants(z) {
                    failed.push(format!("{} {}: {e}", b.id, kernel.as_str()));
                }
            }
            let trace = buddyscope::explain::trace_text(&r);
            let rep = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
            let lists = |node: &buddyscope::mm::Node| {
                node.zones()
                    .iter()
                    .flat_map(|z| {
                        (0..NR_PAGE_ORDERS as u8)
                            .flat_map(|o| MigrateType::ALL.map(|mt| z.free_list_pfns(o, mt)))
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            };
            if rep.divergence_count != 0 || lists(&r.final_node) != lists(&rep.run.final_node) {
                failed.push(format!(
                    "{} {}: {} divergences (first: {:?})",
                    b.id,
                    kernel.as_str(),
                    rep.divergence_count,
                    rep.divergences.first().map(|d| d.to_string())
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// `compact-memory-fragmented`: every other page free, so before `compact_memory` no free
/// block of order 9 or more; after it (and the drain of the migrated pages' sources) an
/// order-10 and an order-9 block on both sides of the compare pair. The pair is the pcp lists:
/// with high 0 every source freed by `migrate_folio_done` merges at once, so `compact_memory`
/// itself leaves both blocks; with the kernel's default lists the sources wait on the pcp
/// (`free_frozen_page_commit`) and only the order-9 block at pfn 0 is free until the drain.
#[test]
fn compact_memory_rebuilds_order9_blocks_in_the_fragmented_builtin() {
    let b = builtin::get("compact-memory-fragmented").unwrap();
    let s = buddyscope::scenario::parse(b.json()).unwrap();
    let cmp = s.compare.clone().unwrap();
    for (side, after_compact) in [(&cmp.a, [1, 1]), (&cmp.b, [1, 0])] {
        let r = ValidScenario::new(side.apply(&s))
            .and_then(|v| Runner::new(v).run())
            .unwrap();
        let n = r.ops.len();
        let compact = n - 2;
        assert_eq!(r.op_defs[r.ops[compact].def as usize].op, "compact_memory");
        let big = |k: usize| r.ops[k].nr_free_after[9..].iter().sum::<u64>();
        assert_eq!(big(compact - 1), 0, "{}: before compact_memory", side.label);
        assert_eq!(r.ops[compact - 1].nr_free_after[0], 2000, "{}", side.label);
        assert_eq!(
            r.ops[compact].nr_free_after[9..],
            after_compact,
            "{}: compact_memory",
            side.label
        );
        assert_eq!(
            r.ops[n - 1].nr_free_after[9..],
            [1, 1],
            "{}: after the drain",
            side.label
        );
    }
}

/// `thp-direct-compaction` and `compaction-unmovable-request` (zones at pfn 0x1000, so the
/// zeroed cached pfns lie outside the zone and the first ASYNC pass starts at the zone's ends,
/// v7.3.4 mm/compaction.c:2614-2629): their compare pairs end differently.
/// `compaction-unmovable-request`: 6.12's ASYNC pass may not take a Movable pageblock for an
/// unmovable request (v6.12.117 :1408-1411), sets no skip bit, and SYNC_LIGHT captures the block
/// at 0x1000; 7.3's takes them (v7.3.4 :1421), sets their skip bits (`test_and_set_skip`) and
/// gives each up at the first free-block tail (`skip_on_failure`), so SYNC_LIGHT passes every
/// marked pageblock by and the costly request, not retried, fails.
/// `thp-direct-compaction` (7.3 on both sides): with pcp high 0 the THP fails as the 7.3
/// unmovable request does; with the default pcp lists the sources wait on the pcp, the ASYNC
/// pass runs out of targets, and SYNC_LIGHT empties pageblock 1 and captures it at 0x1200.
#[test]
fn direct_compaction_builtins_capture_their_block() {
    use buddyscope::run::Outcome;
    let stall = |r: &Run| {
        let vm = buddyscope::scenario::procfs::vmstat_compaction(&r.final_node, &r.stats);
        ["compact_stall", "compact_fail", "compact_success"].map(|k| {
            vm.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix(' ')?.parse::<u64>().ok())
                .unwrap()
        })
    };
    let fails = None;
    for (id, a, b) in [
        (
            "thp-direct-compaction",
            (fails, [2, 2, 0]),
            (Some(0x1200), [2, 1, 1]),
        ),
        (
            "compaction-unmovable-request",
            (Some(0x1000), [2, 1, 1]),
            (fails, [2, 2, 0]),
        ),
    ] {
        let s = buddyscope::scenario::parse(builtin::get(id).unwrap().json()).unwrap();
        let cmp = s.compare.clone().unwrap();
        for (side, (pfn, want)) in [(&cmp.a, a), (&cmp.b, b)] {
            let r = ValidScenario::new(side.apply(&s))
                .and_then(|v| Runner::new(v).run())
                .unwrap();
            let last = &r.ops.last().unwrap().outcome;
            match pfn {
                Some(pfn) => assert_eq!(
                    *last,
                    Outcome::Allocated { order: 9, pfn },
                    "{id} {}",
                    side.label
                ),
                None => assert!(
                    !matches!(last, Outcome::Allocated { .. }),
                    "{id} {}: {last:?}",
                    side.label
                ),
            }
            assert_eq!(stall(&r), want, "{id} {}", side.label);
        }
    }
}

/// `kcompactd-proactive`, its pair being `vm.compaction_proactiveness` 0 vs 20 (v7.3.4
/// mm/compaction.c:2269-2278, 3213-3242). With 20 the timeout's proactive compaction runs
/// (score 99 above the high watermark 90) down to the low one (80), its scans counted as the
/// daemon's, no `compact_daemon_wake`; after the drain the zone has order-9 and order-10 blocks,
/// so kswapd's order-9 `wakeup_kcompactd` is not traced and `kcompactd_do_work` (one
/// `compact_daemon_wake`) moves nothing. With 0 the timeout does nothing; the order-9 wakeup is
/// traced and `kcompactd_do_work` compacts until pageblock 0x1000 is free (COMPACT_SUCCESS).
#[test]
fn kcompactd_builtin_compacts_proactively_then_is_not_woken() {
    use buddyscope::mm::fragmentation_score_node;
    use buddyscope::run::Outcome;
    let s =
        buddyscope::scenario::parse(builtin::get("kcompactd-proactive").unwrap().json()).unwrap();
    let cmp = s.compare.clone().unwrap();
    assert_eq!(
        (
            cmp.a.compaction_proactiveness,
            cmp.b.compaction_proactiveness
        ),
        (Some(0), Some(20))
    );
    for (side, proactive) in [(&cmp.a, false), (&cmp.b, true)] {
        let r = ValidScenario::new(side.apply(&s))
            .and_then(|v| Runner::new(v).run())
            .unwrap();
        let n = r.ops.len();
        let Outcome::Kcompactd {
            do_work: false,
            proactive: p,
            score_before: 99,
            score_after,
            migrated,
            ..
        } = r.ops[n - 3].outcome.clone()
        else {
            panic!("{}: {:?}", side.label, r.ops[n - 3].outcome)
        };
        assert_eq!(p, proactive, "{}", side.label);
        let Outcome::Kcompactd {
            do_work: true,
            migrated: on_demand,
            ..
        } = r.ops[n - 1].outcome.clone()
        else {
            panic!("{}: {:?}", side.label, r.ops[n - 1].outcome)
        };
        let nr_free = r.final_node.active().nr_free();
        let vm = buddyscope::scenario::procfs::vmstat_compaction(&r.final_node, &r.stats);
        assert!(vm.contains("compact_daemon_wake 1\n"), "{vm}");
        assert!(vm.contains("compact_stall 0\n"), "{vm}");
        let trace = buddyscope::explain::trace_text(&r);
        assert_eq!(trace.matches("mm_compaction_kcompactd_wake: ").count(), 1);
        // With proactiveness 0 kcompactd sleeps without a timeout (MAX_SCHEDULE_TIMEOUT):
        // the timeout's wakeup and its sleep line never happen.
        assert_eq!(
            trace
                .matches("mm_compaction_kcompactd_sleep: nid=0")
                .count(),
            if proactive { 2 } else { 1 },
            "{}",
            side.label
        );
        if proactive {
            assert!(score_after <= 80 && migrated > 0, "{}", side.label);
            assert_eq!(on_demand, 0, "{}", side.label);
            assert!(nr_free[9..].iter().all(|&n| n >= 1));
            assert!(fragmentation_score_node(&r.final_node) < 80);
            assert!(!trace.contains("mm_compaction_wakeup_kcompactd"));
        } else {
            assert_eq!((score_after, migrated), (99, 0), "{}", side.label);
            assert_eq!(on_demand, 256, "{}", side.label);
            assert_eq!(&nr_free[9..], &[1, 0], "{}", side.label);
            assert_eq!(
                trace
                    .matches("mm_compaction_wakeup_kcompactd: nid=0 order=9")
                    .count(),
                1
            );
        }
    }
}

/// Every built-in's `compare` pair shows something: its two sides end with different free
/// lists, cost counters or lock holds. A pair whose sides run the same code and end the same is
/// useless on a projector.
#[test]
fn every_builtin_compare_pair_differs() {
    use buddyscope::mm::{MigrateType, NR_PAGE_ORDERS};
    let mut same = Vec::new();
    for b in builtin::ALL {
        let s = buddyscope::scenario::parse(b.json()).unwrap();
        let Some(cmp) = s.compare.clone() else {
            continue;
        };
        let end = |side: &buddyscope::scenario::CompareSide| {
            let r = ValidScenario::new(side.apply(&s))
                .and_then(|v| Runner::new(v).run())
                .unwrap_or_else(|e| panic!("{} {}: {e}", b.id, side.label));
            let lists = r
                .final_node
                .zones()
                .iter()
                .flat_map(|z| {
                    (0..NR_PAGE_ORDERS as u8)
                        .flat_map(|o| MigrateType::ALL.map(|mt| z.free_list_pfns(o, mt)))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>();
            (lists, r.stats, r.lock_holds)
        };
        if end(&cmp.a) == end(&cmp.b) {
            same.push(b.id);
        }
    }
    // `fallback-claim` (rmqueue_mode_memory off vs on) ends alike on purpose: a successful
    // `__rmqueue_claim` puts rmqueue_bulk's mode back to RMQUEUE_NORMAL (v7.3.4
    // mm/page_alloc.c :2520-2526), so the remembered mode changes nothing there, and its tour
    // says so. Any other pair that stops differing fails here.
    assert_eq!(same, ["fallback-claim"], "pairs whose sides end the same");
}
