//! The lock-hold counters (`zone_lock_hold`, `pcp_lock_hold`: pages handled and list steps under
//! one hold), each checked against a worked example computed by hand from the C
//! (`/work/shared/kernel-src/`, lines cited per test).

use buddyscope::{
    mm::{boot_engine, gfp::*, Engine, HoldHistogram, LockHolds, ZoneParams, HOLD_BUCKETS, *},
    scenario::parse_valid,
};

/// A histogram from its holds' page counts (the buckets by hand: 0, 1, 2-3, 4-7, …).
fn hist(pages: &[u64], max_steps: u64, buckets: &[(usize, u64)]) -> HoldHistogram {
    let mut b = [0u64; HOLD_BUCKETS];
    for &(i, n) in buckets {
        b[i] = n;
    }
    HoldHistogram {
        holds: pages.len() as u64,
        pages: pages.iter().sum(),
        max: pages.iter().copied().max().unwrap_or(0),
        max_steps,
        buckets: b,
    }
}

fn fresh(e: &mut Engine) -> LockHolds {
    e.take_op_holds()
}

/// `rmqueue_bulk` (v6.19 mm/page_alloc.c:2542-2575): one zone lock hold for the whole refill,
/// inside the pcp hold of `rmqueue_pcplist` (:3349-3372).
///
/// By hand: 65536 pages, `batch` 15, `high_min` 64, `high_max` 1024; the first GFP_KERNEL order-0
/// allocation: `nr_pcp_alloc(0)`: high = clamp(0, 64, 1024) = 64 ≥ 15, b = 15 << 0 = 15, high grows
/// to 79, max_nr = max(79 − 0 − 15, 15) = 64 ≥ 15 → b = 15. `rmqueue_bulk(0, 15)` takes 15 pages
/// under one zone hold (bucket 8-15); the pcp hold counts those 15 and the page taken off the
/// list: 16 (bucket 16-31). The zone hold's list steps: claim of block 0 (one del from the Movable
/// order-10 list, `expand` adds 10 halves: 512 … 1), then pfns 1 … 14 by `__rmqueue_smallest`
/// (each: one del, and `expand` adds the halves it splits: pfn 1: 0; 2: 1 (3/o0); 3: 0; 4: 2; 5:
/// 0; 6: 1; 7: 0; 8: 3; 9: 0; 10: 1; 11: 0; 12: 2; 13: 0; 14: 1 → 11 adds), the 15 pcp adds, and
/// the fallback probes of the claim (`find_suitable_fallback` at order 10: 1). Steps = 1 + 10 + 14
/// + 11 + 15 + 1 = 52; the pcp hold adds its take: 53.
#[test]
fn rmqueue_bulk_is_one_zone_hold_inside_the_pcp_hold() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.batch = Some(15);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        let mut e = boot_engine(&p);
        fresh(&mut e);
        assert_eq!(e.alloc_pages(GFP_KERNEL, 0, 0, 1, false), Some(0));
        let h = fresh(&mut e);
        assert_eq!(h.zone, hist(&[15], 52, &[(4, 1)]), "{kernel:?}");
        assert_eq!(h.pcp, hist(&[16], 53, &[(5, 1)]), "{kernel:?}");
    }
}

/// `free_frozen_page_commit` (v6.19 :2854-2954; v6.18.2 one `free_pcppages_bulk`): the pcp lock
/// is dropped and re-taken (`pcp_spin_unlock` / `pcp_spin_trylock`, :2916-2921) between the
/// `batch` chunks on 6.19+, and each `free_pcppages_bulk` (:1481-1531) holds the zone lock once.
///
/// By hand (the zone of `fidelity.rs`' `v6_19_frees_the_pcp_in_batch_chunks`): freeing page 63
/// of a split order-10 block with pages 0..=62 on pcp list 1, `batch` 8, high 64: `nr_pcp_free`
/// = 56.
/// * 6.12 and 6.18: one pcp hold: 1 page added + 56 drained = 57; one zone hold: 56. Zone steps: 56 pcp
///   dels, 56 free-list adds, 53 merges (each a del of the buddy; 56 pages end as 3 blocks) = 165;
///   the pcp hold adds its own add: 166.
/// * 6.19+: seven pcp holds: 1 + 8 = 9, then 8 × 6; seven zone holds of 8. Zone steps per chunk:
///   8 pcp dels + 8 adds + the merges: chunk 0..7: 7; 8..15: 8 (then 8/o3 joins 0/o3); 16..23:
///   7; 24..31: 9 (→ 16/o4, → 0/o5); 32..39: 7; 40..47: 8; 48..55: 7 (56/o3 is on the pcp) —
///   max 16 + 9 = 25. pcp steps: the first hold 1 + 23 = 24, the others as their zone hold: max 25.
#[test]
fn free_frozen_page_commit_drops_the_pcp_lock_between_chunks() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.batch = Some(8);
        p.high_min = Some(64);
        p.high_max = Some(64);
        let mut e = boot_engine(&p);
        e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 1, true).unwrap();
        e.split_page(0, 10);
        for pfn in 0..63 {
            e.free_pages(pfn, 0, 0);
        }
        fresh(&mut e);
        e.free_pages(63, 0, 0);
        let h = fresh(&mut e);
        if matches!(kernel, Kernel::V6_12 | Kernel::V6_18) {
            assert_eq!(h.zone, hist(&[56], 165, &[(6, 1)]));
            assert_eq!(h.pcp, hist(&[57], 166, &[(6, 1)]));
        } else {
            assert_eq!(h.zone, hist(&[8; 7], 25, &[(4, 7)]), "{kernel:?}");
            assert_eq!(
                h.pcp,
                hist(&[9, 8, 8, 8, 8, 8, 8], 25, &[(4, 7)]),
                "{kernel:?}"
            );
        }
    }
}

/// `reserve_highatomic_pageblock` takes the zone lock itself (v7.1.5 :3441, after
/// `rmqueue_buddy`'s unlock; v6.19 :3445, from `get_page_from_freelist`).
///
/// By hand (the zone of `fidelity.rs`' `v6_19_refills_the_pcp_for_a_highatomic_request`): a
/// GFP_ATOMIC order-1 request, only 64512/o10 free.
/// * 7.1/7.2/7.3: the pcp hold returns nothing (0 pages; 7.3's fast path fails the low
///   watermark, the slow path's `ALLOC_HIGHATOMIC` at `ALLOC_WMARK_MIN` skips the refill, v7.3.4
///   :3360, and reserves, :3274); `rmqueue_buddy`'s zone hold takes 2 pages
///   (claim of the order-10 block; `expand` leaves 64514/o1 … 65024/o9); the reservation's hold
///   moves pageblock 126's free blocks 64514/o1, 64516/o2, 64520/o3, 64528/o4, 64544/o5,
///   64576/o6, 64640/o7, 64768/o8: 510 pages in 8 moves (8 steps).
/// * 6.12/6.18/6.19: the pcp hold refills 7 blocks (14 pages) and takes one (2): 16; `rmqueue_bulk`'s
///   zone hold: 14; the reservation's: 64526/o1, 64528/o4, 64544/o5, 64576/o6, 64640/o7,
///   64768/o8: 498 pages in 6 moves.
#[test]
fn reserve_highatomic_pageblock_is_a_zone_hold_of_its_own() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.batch = Some(15);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        p.min_free_kbytes = Some(4096);
        let mut e = boot_engine(&p);
        for i in 0..63 {
            e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, i + 1, true)
                .unwrap();
        }
        fresh(&mut e);
        assert_eq!(e.alloc_pages(GFP_ATOMIC, 1, 0, 100, false), Some(64512));
        let h = fresh(&mut e);
        let (zone, pcp) = if matches!(kernel, Kernel::V7_1 | Kernel::V7_2 | Kernel::V7_3) {
            ([2, 510], [0])
        } else {
            ([14, 498], [16])
        };
        assert_eq!(h.zone.holds, 2, "{kernel:?}");
        assert_eq!(h.zone.pages, zone.iter().sum::<u64>(), "{kernel:?}");
        assert_eq!(h.zone.max, zone[1], "{kernel:?}");
        let mut b = [0u64; HOLD_BUCKETS];
        b[HoldHistogram::bucket(zone[0])] += 1;
        b[HoldHistogram::bucket(zone[1])] += 1;
        assert_eq!(h.zone.buckets, b, "{kernel:?}");
        assert_eq!((h.pcp.holds, h.pcp.max), (1, pcp[0]), "{kernel:?}");
    }
}

/// `free_contig_range` per page (v7.1.5 `__free_contig_frozen_range` / `free_contig_range`: one
/// `__free_page` each, one pcp hold each) vs chunked (7.2, kernel-model.md §5.2: one
/// `__free_frozen_pages` per aligned chunk). By hand: 4096 pages, `batch` 8, `high_min` =
/// `high_max` = 4096 (no drain); an order-9 Unmovable block at 0 (its pcp refill of 2 leaves 512 on
/// the THP list), split, then freed: per page 512 pcp holds of 1 page (1 step each), no zone
/// hold; chunked (0, 512) is one order-9 chunk: one pcp hold of 512 pages (1 step).
#[test]
fn free_contig_range_per_page_vs_chunked() {
    for (method, pcp) in [
        ("per_page", hist(&[1; 512], 1, &[(1, 512)])),
        ("chunked", hist(&[512], 1, &[(10, 1)])),
    ] {
        let text = format!(
            r#"{{"version": 1, "kernel": "v7.2", "zone": {{"pages": 4096,
                "pcp": {{"batch": 8, "high_min": 4096, "high_max": 4096}}}}, "init": "boot",
                "ops": [{{"op": "alloc", "order": 9, "mt": "unmovable", "as": "thp"}},
                        {{"op": "split", "ref": "thp"}},
                        {{"op": "free_contig_range", "ref": "thp", "method": "{method}"}}]}}"#
        );
        let run = buddyscope::Runner::new(parse_valid(&text).unwrap())
            .run()
            .unwrap();
        let free = &run.ops[2].lock_holds;
        assert_eq!(free.pcp, pcp, "{method}");
        assert_eq!(free.zone, HoldHistogram::default(), "{method}");
        // The run's holds are the sum of its ops'.
        let sum: LockHolds = run.ops.iter().map(|o| o.lock_holds).sum();
        assert_eq!(run.lock_holds, sum, "{method}");
    }
}

/// The rmqueue_bulk seed (`fallback-steal`: side A without `rmqueue_mode` memory, side B with
/// it; ../shared/seeds/rmqueue_bulk-fallback-speedup.txt): the burst's refill moves the same
/// pages under its zone hold on both sides, but without the mode memory every page of the
/// refill searches the fallback lists again, so the worst zone hold takes many more list steps
/// (the thread's worst-case hold: 280 ms before, 8 ms after). Relational: the step counts are
/// the engine's (fallback probes depend on the whole free-list state), the pages are not.
#[test]
fn rmqueue_bulk_seed_worst_hold_before_and_after() {
    use buddyscope::scenario::Side;
    let text = buddyscope::scenario::builtin::get("fallback-steal")
        .unwrap()
        .json();
    let s = parse_valid(text).unwrap();
    let pair = s.compare.clone().unwrap().pair();
    let burst = |side: Side| {
        let v = buddyscope::scenario::ValidScenario::new(pair.side(side).apply(&s)).unwrap();
        let run = buddyscope::Runner::new(v).run().unwrap();
        let i = run
            .ops
            .iter()
            .position(|o| run.op_defs[o.def as usize].path == "ops[34].ops[0]")
            .unwrap();
        run.ops[i].lock_holds
    };
    let (a, b) = (burst(Side::A), burst(Side::B));
    assert_eq!(a.zone.holds, b.zone.holds);
    assert_eq!(a.zone.pages, b.zone.pages);
    assert_eq!(a.zone.max, b.zone.max);
    assert!(
        a.zone.max_steps > 2 * b.zone.max_steps,
        "before {} after {}",
        a.zone.max_steps,
        b.zone.max_steps
    );
}
