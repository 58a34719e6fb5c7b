//! Golden tests for the second fidelity pass: worked examples computed by hand from the
//! C in `/work/shared/kernel-src/` (function names and versions cited in each test).

use buddyscope::mm::{boot_engine, gfp::*, Engine, Step, ZoneParams, *};

const M: MigrateType = MigrateType::Movable;

/// A 4096-page zone (pageblocks 0..=7, four order-10 Movable blocks at boot) named `name`, with
/// every page allocated as Movable LRU data except one free order-5 block at pfn 4064
/// (pageblock 7): orders 10, 10, 10, then 9, 8, 7, 6, 5 split off the last order-10 block.
/// `min_free_kbytes` 0: min 0, low = high − … = 4 pages (mult_frac(4096, 10, 10000) = 4).
fn one_free_order5_block(name: &str) -> Engine {
    let mut p = ZoneParams::new(4096);
    p.name = name.into();
    p.kernel = Kernel::V7_1;
    p.min_free_kbytes = Some(0);
    let mut e = boot_engine(&p);
    for (i, order) in [10u8, 10, 10, 9, 8, 7, 6, 5].into_iter().enumerate() {
        let pfn = e.alloc_pages(GFP_HIGHUSER_MOVABLE, order, 0, i as u32 + 1, true);
        assert!(pfn.is_some(), "setup alloc of order {order}");
    }
    assert_eq!(e.zone.free_list_pfns(4, M), Vec::<u32>::new());
    assert_eq!(e.zone.free_list_pfns(5, M), vec![4064]);
    e.log.events.clear();
    e
}

fn retries(e: &Engine) -> usize {
    e.log
        .events
        .iter()
        .filter(|ev| ev.step == Step::GpffRetryNoFragment)
        .count()
}

/// `alloc_flags_nofragment()` (mm/page_alloc.c, identical in v6.18.2 and v7.1.5: `if
/// (zone_idx(zone) != ZONE_NORMAL) return alloc_flags;`): only a preferred Normal zone gets the
/// `ALLOC_NOFRAGMENT` first pass.
///
/// By hand, an order-4 GFP_KERNEL (Unmovable) request; order 4 is not a pcp order, so
/// `rmqueue_buddy` → `__rmqueue(4, Unmovable)`:
/// * Normal, pass 1 (NOFRAGMENT): `__rmqueue_smallest` finds no Unmovable block;
///   `__rmqueue_claim` starts at `min_order = pageblock_order` (9) because of NOFRAGMENT and finds
///   nothing ≥ 9; `__rmqueue_steal` is skipped under NOFRAGMENT → NULL; `get_page_from_freelist`
///   clears the flag and `goto retry` (one `GpffRetryNoFragment`). Pass 2: claim tries the order-5
///   Movable block: `should_try_claim_block(5, Unmovable)` is true (Unmovable always tries), but
///   `try_to_claim_block` counts free 32 + alike 0 (every other page of pageblock 7 is Movable LRU)
///   < 256 and refuses; `__rmqueue_steal` (bottom-up from order 4) takes the order-5 block at 4064
///   and `expand` puts 4080/o4 back on the **Movable** list; pageblock 7 stays Movable.
/// * DMA32: no NOFRAGMENT, so pass 1 is Normal's pass 2: the same page and the same state, and no
///   retry.
#[test]
fn alloc_nofragment_only_for_the_normal_zone() {
    for (name, want_retries) in [("Normal", 1), ("DMA32", 0), ("DMA", 0)] {
        let mut e = one_free_order5_block(name);
        assert_eq!(e.zone.cfg().nofragment_first_pass, name == "Normal");
        let pfn = e.alloc_pages(GFP_KERNEL, 4, 0, 100, false);
        assert_eq!(pfn, Some(4064), "{name}");
        assert_eq!(e.zone.free_list_pfns(4, M), vec![4080], "{name}");
        assert_eq!(e.zone.pb_mt(7), M, "{name}: stolen, not claimed");
        assert_eq!(retries(&e), want_retries, "{name}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// `reserve_highatomic_pageblock` takes the zone lock itself in every version (v6.18.2: called
/// from `get_page_from_freelist`; v7.1.5 mm/page_alloc.c:3441 `spin_lock_irqsave(&zone->lock,
/// flags)`, called from `rmqueue_buddy` after its `spin_unlock_irqrestore`); the model once skipped it
/// on 7.x.
///
/// By hand: 65536 pages, `min_free_kbytes` 4096 → min 1024, low 1280 pages. Sixty-three order-10
/// Movable allocations leave one free order-10 block at 64512 (pageblocks 126, 127), 1024 free
/// pages. An order-1 GFP_ATOMIC (Unmovable) request fails the fast path (1024 − 1 ≤ low), the
/// slow path adds `ALLOC_HIGHATOMIC` (order > 0, `__GFP_HIGH`, no direct reclaim) and passes
/// `ALLOC_WMARK_MIN` lowered by the reserve. 7.1: `__rmqueue_pcplist` returns NULL for
/// `ALLOC_HIGHATOMIC` before refilling; `rmqueue_buddy` locks the zone (1), `__rmqueue` claims the
/// order-10 block (both pageblocks become Unmovable) and takes 64512/o1; after the unlock,
/// `reserve_highatomic_pageblock` (managed/100 = 655 ≥ 512, limit ALIGN(655, 512) = 1024) locks
/// again (2) and moves pageblock 126's free pages to HighAtomic: 512 reserved.
/// 6.18: the pcp refill's `rmqueue_bulk` lock (1), then the reservation's (2).
#[test]
fn reserve_highatomic_pageblock_takes_the_zone_lock() {
    for kernel in [Kernel::V6_18, Kernel::V7_1] {
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.min_free_kbytes = Some(4096);
        let mut e = boot_engine(&p);
        for i in 0..63 {
            assert!(e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, i + 1, true)
                .is_some());
        }
        assert_eq!(e.zone.free_list_pfns(10, M), vec![64512]);
        e.log.events.clear();
        let pfn = e.alloc_pages(GFP_ATOMIC, 1, 0, 100, false);
        assert_eq!(pfn, Some(64512), "{kernel:?}");
        let zone_locks = e
            .log
            .events
            .iter()
            .filter(|ev| {
                matches!(
                    ev.kind().annotation(),
                    Some(buddyscope::mm::Annotation::Lock { zone: true, .. })
                )
            })
            .count();
        assert_eq!(zone_locks, 2, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(126), MigrateType::HighAtomic, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(127), MigrateType::Unmovable, "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// Reclaim's pcp drain (`__alloc_pages_direct_reclaim`, v7.1.5 mm/page_alloc.c:4422-4435, the
/// same in v6.18.2): after the slow path's attempts fail, a request that may direct-reclaim gets
/// one more `get_page_from_freelist`, then `unreserve_highatomic_pageblock(ac, false)` +
/// `drain_all_pages(NULL)` and a last one. Page reclaim itself is not modelled.
///
/// By hand: 4096 pages (four order-10 Movable blocks), `min_free_kbytes` 0 (min 0, low 4), pcp
/// `batch` 8 and `high_min` = `high_max` = 1024 (a 4096-page zone's own batch is 1, which refills
/// one block at a time). An order-9 GFP_HIGHUSER_MOVABLE request: the Movable THP pcp list
/// (pindex 13) is empty, so `nr_pcp_alloc(order 9)` (batch 8 > 1) asks `rmqueue_bulk` for
/// max(8 >> 9, 2) = 2 blocks: both halves
/// of an order-10 block; one is returned, the other stays on the pcp (count 512). Three order-10
/// allocations take the rest (the third through the slow path: 1024 − 1023 = 1 ≤ low, > min).
/// `NR_FREE_PAGES` is now 0 and the only free block sits on the pcp list. A second order-9
/// Movable request fails every watermark check (0 − 511 ≤ 0: pcp pages are not in
/// `NR_FREE_PAGES`), including the retry after (unmodelled) reclaim; the drain frees the pcp
/// block to the buddy (its buddy is allocated: it stays order 9, 512 free pages), and the last
/// `get_page_from_freelist` passes (512 − 511 = 1 > 0), refills the pcp list with that block
/// (`rmqueue_bulk` finds 1 of 2) and returns it (the model once failed here).
#[test]
fn reclaim_drains_the_pcp_and_rescues_a_pcp_held_thp() {
    for kernel in [Kernel::V6_18, Kernel::V7_1, Kernel::V7_2] {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.min_free_kbytes = Some(0);
        p.batch = Some(8);
        p.high_min = Some(1024);
        p.high_max = Some(1024);
        let mut e = boot_engine(&p);
        let first = e.alloc_pages(GFP_HIGHUSER_MOVABLE, 9, 0, 1, true).unwrap();
        let held = e.zone.pcp_list_pfns(0, 13);
        assert_eq!(held.len(), 1, "{kernel:?}");
        assert_eq!(
            held[0],
            first ^ 512,
            "{kernel:?}: the other half of the order-10 block"
        );
        assert_eq!(e.zone.pcp()[0].count, 512);
        for i in 0..3 {
            assert!(e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 2 + i, true)
                .is_some());
        }
        assert_eq!(e.zone.nr_free_pages(), 0, "{kernel:?}");
        e.log.events.clear();
        let got = e.alloc_pages(GFP_HIGHUSER_MOVABLE, 9, 0, 9, true);
        assert_eq!(got, Some(held[0]), "{kernel:?}: rescued by the drain");
        assert_eq!(e.zone.pcp()[0].count, 0, "{kernel:?}");
        assert_eq!(e.zone.nr_free_pages(), 0, "{kernel:?}");
        assert!(e
            .log
            .events
            .iter()
            .any(|ev| ev.step == Step::DirectReclaimNotModelled));
        buddyscope::mm::check_invariants(&e.zone).unwrap();

        // GFP_NOWAIT cannot direct-reclaim: no drain, the request fails and the block stays.
        let mut e2 = boot_engine(&p);
        e2.alloc_pages(GFP_HIGHUSER_MOVABLE, 9, 0, 1, true).unwrap();
        for i in 0..3 {
            e2.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 2 + i, true)
                .unwrap();
        }
        assert_eq!(
            e2.alloc_pages(GFP_NOWAIT | __GFP_MOVABLE, 9, 0, 9, true),
            None
        );
        assert_eq!(e2.zone.pcp()[0].count, 512, "{kernel:?}");
    }
}

fn pcp_state(e: &Engine) -> (i32, i32) {
    let p = &e.zone.pcp()[0];
    (p.count, p.high)
}

/// `decay_pcp_high` (v7.1.5 mm/page_alloc.c:2552-2583; v6.18.2 :2555-2583), run by a `tick` op.
///
/// By hand: 4096 pages, pcp `batch` 8, `high_min` 16, `high_max` 1024. Three hundred order-0
/// GFP_KERNEL allocations then their frees leave `count` 504, `high` 520 (the starting point,
/// read off the engine; the free path's `nr_pcp_high` grew `high`).
/// Tick 1: `high` 520 > 16 → max3(504 − (8 << 5), 520 − (520 >> 3), 16) = max3(248, 455, 16) =
/// 455; `to_drain` = 504 − 455 = 49: 7.x frees it in `batch` chunks, 6 × 8 + 1, each under its
/// own pcp lock (7 locks); 6.18 in one `free_pcppages_bulk` (1 lock). `count` 455.
/// Tick 2: max3(199, 455 − 56, 16) = 399, drain 56 (7 chunks on 7.x). Tick 3: 399 − 49 = 350.
/// Each tick takes an eighth until `high` reaches `high_min`: max3(…, 17 − 2, 16) = 16, and then
/// `high` = `high_min` is left alone and `count` stays at 16.
#[test]
fn tick_decays_pcp_high_and_drains_the_excess() {
    // v6.19 :2583-2615 already drains in `batch` chunks (`to_drain_batched`), like 7.x.
    // v6.12.117 :2429-2438 too (a stable backport of the chunked drain).
    for (kernel, locks) in [
        (Kernel::V6_12, 7),
        (Kernel::V6_18, 1),
        (Kernel::V6_19, 7),
        (Kernel::V7_1, 7),
    ] {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.batch = Some(8);
        p.high_min = Some(16);
        p.high_max = Some(1024);
        let mut e = boot_engine(&p);
        let pfns: Vec<_> = (0..300)
            .map(|i| e.alloc_pages(GFP_KERNEL, 0, 0, i + 1, false).unwrap())
            .collect();
        for pfn in pfns {
            e.free_pages(pfn, 0, 0);
        }
        assert_eq!(pcp_state(&e), (504, 520), "{kernel:?}");
        e.log.events.clear();
        assert_eq!(e.decay_pcp_high(0), 49);
        assert_eq!(pcp_state(&e), (455, 455), "{kernel:?}");
        let pcp_locks = e
            .log
            .events
            .iter()
            .filter(|ev| {
                matches!(
                    ev.kind().annotation(),
                    Some(buddyscope::mm::Annotation::Lock { zone: false, .. })
                )
            })
            .count();
        assert_eq!(pcp_locks, locks, "{kernel:?}");
        assert_eq!(e.decay_pcp_high(0), 56);
        assert_eq!(pcp_state(&e), (399, 399), "{kernel:?}");
        e.decay_pcp_high(0);
        assert_eq!(pcp_state(&e), (350, 350), "{kernel:?}");
        for _ in 0..40 {
            e.decay_pcp_high(0);
        }
        assert_eq!(pcp_state(&e), (16, 16), "{kernel:?}");
        assert_eq!(
            e.decay_pcp_high(0),
            0,
            "{kernel:?}: at high_min nothing moves"
        );
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// The chunks (zone pfn, order) that `free_prepared_contig_range` chose in `events`.
fn chunks(events: &[buddyscope::mm::Event]) -> Vec<(u32, u8)> {
    use buddyscope::mm::{Annotation, EventKind};
    events
        .iter()
        .filter_map(|ev| match ev.kind() {
            EventKind::Annotation(Annotation::Chunk { pfn, order }) => Some((pfn, order)),
            _ => None,
        })
        .collect()
}

/// The pfns of the `mm_page_free` tracepoints in `events`.
fn page_frees(events: &[buddyscope::mm::Event]) -> Vec<u32> {
    use buddyscope::mm::{Annotation, EventKind, Tracepoint};
    events
        .iter()
        .filter_map(|ev| match ev.kind() {
            EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageFree { pfn, order })) => {
                assert_eq!(order, 0);
                Some(pfn)
            }
            _ => None,
        })
        .collect()
}

/// Transient references: the review case of the 7.2 seed
/// (`../shared/seeds/free_contig_range-batching.txt`, Vlastimil Babka: "Spurious temporary page
/// refcount increases (get_page_unless_zero()) can happen e.g. due to memory compaction pfn
/// scanners … that side will be then the last one to drop the refcount and freeing the order-0
/// page"): a scanner holds one page in the middle of a range that is freed.
///
/// By hand: 512 pages at pfn 512 from `alloc_contig_range` (refcount 1 each); `get_page` on
/// page 100 (pfn 612: refcount 2); `free_contig_range` of the range.
/// * 7.2, the seed's `__free_contig_range`: for every page `can_free = put_page_testzero(page)`,
///   then `free_pages_prepare(page, 0)` (one `mm_page_free` each: 511); pfn 612's count drops
///   2 → 1, so `!can_free && start` → `free_prepared_contig_range(512, 100)`, `start = NULL`;
///   pfn 613 starts the next run, freed at the end as `free_prepared_contig_range(613, 411)`.
///   Chunks (`order = min(__ffs(pfn), ilog2(nr_pages), MAX_PAGE_ORDER)`): run 1: 512/6 (100 →
///   36 left), 576/5 (__ffs 6, ilog2 36 = 5; 4 left), 608/2; run 2: 613/0 (__ffs 0), 614/1,
///   616/3, 624/4, 640/7 (__ffs 7, ilog2 384 = 8), 768/8. 1+2+8+16+128+256 = 411.
/// * 7.1, `free_contig_range` (v7.1.5 mm/page_alloc.c:7302-7310): `__free_page` per pfn →
///   `___free_pages(page, 0)` (:5293-5314): `put_page_testzero` fails for pfn 612, and `!head`
///   with order 0 frees nothing more. 511 `mm_page_free`, no chunks.
/// * Either way pfn 612 stays allocated with refcount 1 and no owner; the scanner's `put_page`
///   (include/linux/mm.h v7.1.5:2191 → `folio_put` :2126 → `__folio_put` →
///   `free_frozen_pages(page, 0)`) drops the last reference and frees it: one `mm_page_free`.
///
/// Rewinding the run event by event gives the start state back exactly.
#[test]
fn chunked_free_with_a_held_page_splits_the_run_and_the_last_put_page_frees_it() {
    let scenario = |kernel: &str| {
        format!(
            r#"{{"version": 1, "kernel": "{kernel}", "zone": {{"pages": 4096}}, "ops": [
            {{"op": "alloc_contig_range", "pfn": 512, "nr_pages": 512, "as": "r"}},
            {{"op": "get_page", "ref": "r", "page": 100}},
            {{"op": "free_contig_range", "ref": "r"}},
            {{"op": "put_page", "ref": "r", "page": 100}}]}}"#
        )
    };
    for (kernel, want_chunks) in [
        (
            "v7.2",
            vec![
                (512, 6),
                (576, 5),
                (608, 2),
                (613, 0),
                (614, 1),
                (616, 3),
                (624, 4),
                (640, 7),
                (768, 8),
            ],
        ),
        ("v7.1", vec![]),
    ] {
        let opts = buddyscope::run::RunOptions::default();
        let run = buddyscope::parse_valid(&scenario(kernel))
            .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
            .unwrap();
        let ev = |k: usize| -> Vec<buddyscope::mm::Event> {
            let op = &run.ops[k];
            run.log
                .events
                .range(op.start as usize..op.end as usize)
                .copied()
                .collect()
        };
        assert_eq!(chunks(&ev(2)), want_chunks, "{kernel}");
        let freed = page_frees(&ev(2));
        assert_eq!(freed.len(), 511, "{kernel}");
        assert!(
            !freed.contains(&612),
            "{kernel}: the held page is not freed"
        );
        assert_eq!(
            page_frees(&ev(3)),
            vec![612],
            "{kernel}: the last put_page frees it"
        );

        // The state between the free and the put_page: the held page alone is allocated.
        let mut z = run.initial.clone();
        for e in run.log.events.range(0..run.ops[3].start as usize) {
            z.apply(e);
        }
        assert_eq!(z.page_refcount(612), 1, "{kernel}");
        assert_eq!(z.page_owner(612), buddyscope::mm::NO_OWNER, "{kernel}");
        assert_eq!(z.block_containing(612), None, "{kernel}");
        for p in (512..1024).filter(|&p| p != 612) {
            assert!(
                z.block_containing(p).is_some(),
                "{kernel}: page {p} is free"
            );
        }
        buddyscope::mm::check_invariants(&z).unwrap();
        assert_eq!(run.final_zone.page_refcount(612), 0, "{kernel}");
        assert!(run.final_zone.block_containing(612).is_some(), "{kernel}");

        let mut back = run.final_zone.clone();
        for e in run.log.events.iter().rev() {
            back.unapply(e);
        }
        assert_eq!(back.first_difference(&run.initial), None, "{kernel}");
    }
}

fn merges(e: &Engine) -> usize {
    e.log
        .events
        .iter()
        .filter(|ev| {
            matches!(
                ev.kind().annotation(),
                Some(buddyscope::mm::Annotation::Merge { .. })
            )
        })
        .count()
}

const U: MigrateType = MigrateType::Unmovable;
const H: MigrateType = MigrateType::HighAtomic;

fn enters(e: &Engine, f: buddyscope::mm::KernelFn) -> usize {
    e.log
        .events
        .iter()
        .filter(|ev| {
            matches!(
                ev.kind().annotation(),
                Some(buddyscope::mm::Annotation::Enter { func }) if func == f
            )
        })
        .count()
}

/// `alloc_contig_range` of pfns 1000..1100 on a freshly booted 4096-page zone (four order-10
/// Movable blocks, list order 0, 1024, 2048, 3072), computed by hand from v7.1.5
/// mm/page_isolation.c and mm/page_alloc.c (v6.18.2 has the same steps in mm/page_alloc.c):
/// * `start_isolate_page_range` (page_isolation.c:486): `isolate_single_pageblock(512)` →
///   `set_migratetype_isolate(pb 1)` → `__move_freepages_block_isolate` (page_alloc.c:2093):
///   `find_large_buddy(512)` (:2036) finds 0/o10 > pageblock_order, so it is taken off the
///   Movable list, pb 1 gets the isolate bit and `split_large_buddy` (:1504) frees 0/o9 to the
///   Movable list and 512/o9 to the Isolate list (two halves of different types do not merge).
///   `isolate_single_pageblock(1536, before)` does the same to 1024/o10: 1024/o9 Isolate,
///   1536/o9 Movable, put at the head (order 9 = MAX_PAGE_ORDER − 1: no tail placement).
/// * `alloc_contig_frozen_range_noprof` (:6925): `outer_start = find_large_buddy(1000)` = 512;
///   `isolate_freepages_range` takes 512/o9 and 1024/o9, `outer_end` = 1536; the head
///   [512, 1000) (488 pages) and the tail [1100, 1536) (436 pages) go back through
///   `__free_contig_frozen_range` (:6896) while isolated: v7.1 one `free_frozen_pages(p, 0)` per
///   page, merging on the Isolate lists into 512/o8 768/o7 896/o6 960/o5 992/o3 and 1100/o2
///   1104/o4 1120/o5 1152/o7 1280/o8: 924 pages in 10 blocks, 924 − 10 = 914 merges. 7.2 frees
///   the same ten blocks as prepared chunks (`free_prepared_contig_range`): no merge at all.
/// * `undo_isolate_page_range` (page_isolation.c:536) → `unset_migratetype_isolate` (:223):
///   pages 512 and 1024 are not order-9 buddies, so `pageblock_unisolate_and_move_free_pages`
///   moves every free block of pb 1, then pb 2, ascending, to the **tail** of its Movable list.
#[test]
fn alloc_contig_range_isolates_splits_and_gives_back_at_the_tail() {
    for (kernel, want_merges) in [(Kernel::V7_1, 914), (Kernel::V7_2, 0)] {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        let mut e = boot_engine(&p);
        e.log.events.clear();
        assert!(e.alloc_contig_range(1000, 100, 7), "{kernel:?}");
        assert_eq!(merges(&e), want_merges, "{kernel:?}");
        let frees = e
            .log
            .events
            .iter()
            .filter(|ev| ev.step == Step::TraceMmPageFree)
            .count();
        assert_eq!(
            frees, 924,
            "{kernel:?}: one mm_page_free per page either way"
        );
        for (o, want) in [
            (10u8, vec![2048, 3072]),
            (9, vec![1536, 0]),
            (8, vec![512, 1280]),
            (7, vec![768, 1152]),
            (6, vec![896]),
            (5, vec![960, 1120]),
            (4, vec![1104]),
            (3, vec![992]),
            (2, vec![1100]),
        ] {
            assert_eq!(e.zone.free_list_pfns(o, M), want, "{kernel:?} order {o}");
        }
        for pb in 0..8 {
            assert_eq!(e.zone.pb_mt(pb), M, "{kernel:?}: pageblock {pb}");
        }
        assert!((1000..1100).all(|p| e.zone.page_refcount(p) == 1 && e.zone.page_owner(p) == 7));
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// v6.19: `reserve_highatomic_pageblock` runs in `get_page_from_freelist` after any successful
/// `rmqueue`, pcp hits included (v6.19 mm/page_alloc.c:3946-3953, as in v6.18.2); v7.1.5 calls it
/// from `rmqueue_buddy` only (:3237-3242), so a pcp hit reserves nothing.
///
/// By hand: 65536 pages, 1 CPU, `batch` 15, `high_min` 64, `high_max` 1024, `min_free_kbytes`
/// 6508: min = 6508 >> 2 = 1627, low = 1627 + max(1627 >> 2, mult_frac(65536, 10, 10000)) = 1627 +
/// max(406, 65) = 2033.
/// 1. GFP_KERNEL order 1: `nr_pcp_alloc(1)`: high = clamp(0, 64, 1024) = 64 ≥ 15, b = 15 → max(15 >> 1,
///    2) = 7; `rmqueue_bulk(1, 7, Unmovable)` claims the order-10 block 0 whole (pageblocks 0
///    and 1 Unmovable) and takes 0, 2, 4, …, 12; 0 is returned, [2, 4, …, 12] stay on pcp list 3.
///    Buddy: 65536 − 14 = 65522 free; block 0's rest is 14/o1, 16/o4, 32/o5, 64/o6, 128/o7,
///    256/o8, 512/o9 (1010 pages).
/// 2. 62 order-10 Movable allocations (the last sees 3058 − 1023 = 2035 > low 2033): 2034 free.
/// 3. GFP_ATOMIC order 1: fast path 2034 − 1 = 2033 ≤ low fails; the slow path sets
///    `ALLOC_HIGHATOMIC` (order > 0, `__GFP_HIGH`, no direct reclaim) and passes min (1627 − 813 =
///    814, − 814/4 = 611 < 2033). `rmqueue_pcplist` hits: pfn 2. 6.18/6.19 then reserve:
///    managed/100 = 655 ≥ 512, max ALIGN(655, 512) = 1024 > 0 reserved; pageblock 0 is Unmovable
///    (mergeable), order 1 < 9: `move_freepages_block` moves 14/o1, 16/o4, 32/o5, 64/o6,
///    128/o7, 256/o8 to HighAtomic and pageblock 0 becomes HighAtomic, under its own zone lock
///    (512/o9 is pageblock 1: stays). 7.1/7.2: nothing moves, no zone lock.
#[test]
fn v6_19_reserves_highatomic_after_a_pcp_hit() {
    for kernel in Kernel::ALL {
        // v6.12.117's get_page_from_freelist reserves at the same point as 6.18.
        let reserves = matches!(kernel, Kernel::V6_12 | Kernel::V6_18 | Kernel::V6_19);
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.batch = Some(15);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        p.min_free_kbytes = Some(6508);
        let mut e = boot_engine(&p);
        assert_eq!(e.alloc_pages(GFP_KERNEL, 1, 0, 1, false), Some(0));
        assert_eq!(e.zone.pcp_list_pfns(0, 3), vec![2, 4, 6, 8, 10, 12]);
        for i in 0..62 {
            assert!(e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, i + 2, true)
                .is_some());
        }
        assert_eq!(e.zone.nr_free_pages(), 2034, "{kernel:?}");
        e.log.events.clear();
        assert_eq!(
            e.alloc_pages(GFP_ATOMIC, 1, 0, 100, false),
            Some(2),
            "{kernel:?}"
        );
        let want = if reserves { H } else { U };
        assert_eq!(e.zone.pb_mt(0), want, "{kernel:?}");
        for (order, pfn) in [(1, 14), (4, 16), (5, 32), (6, 64), (7, 128), (8, 256)] {
            assert_eq!(e.zone.free_list_pfns(order, want), vec![pfn], "{kernel:?}");
        }
        assert_eq!(e.zone.free_list_pfns(9, U), vec![512], "{kernel:?}");
        assert_eq!(e.zone.pb_mt(1), U, "{kernel:?}");
        let zone_locks = e
            .log
            .events
            .iter()
            .filter(|ev| {
                matches!(
                    ev.kind().annotation(),
                    Some(buddyscope::mm::Annotation::Lock { zone: true, .. })
                )
            })
            .count();
        assert_eq!(zone_locks, reserves as usize, "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// Migration (`__alloc_contig_migrate_range`, v7.1.5 mm/page_alloc.c:6777): an order-10 Movable
/// LRU allocation at 0 (the head of the order-10 Movable list at boot) inside the range [0, 1024).
/// `isolate_single_pageblock(1024, before)` scans from 0: the compound page ends at the boundary
/// (`head_pfn + nr_pages <= boundary_pfn`), so it is skipped, not refused. `migrate_pages` gets a
/// target from `alloc_migration_target` (order 10: 1024, the next head of the list), the source
/// is freed into its isolated pageblocks (`split_large_buddy` halves, which merge: both ISOLATE)
/// and taken again as the range. The scenario's name follows its page: a later `free big` frees
/// pfn 1024 (v7.1.5 `alloc_migration_target` is in mm/migrate.c, not among the sources here: a
/// large folio gets `GFP_TRANSHUGE` and its own order).
#[test]
fn alloc_contig_range_migrates_a_movable_page_and_the_name_follows() {
    let json = r#"{"version": 1, "kernel": "v7.1", "zone": {"pages": 4096},
        "ops": [{"op": "alloc", "order": 10, "mt": "movable", "as": "big"},
                {"op": "alloc_contig_range", "pfn": 0, "nr_pages": 1024, "as": "r"},
                {"op": "free", "ref": "big"}]}"#;
    let s = buddyscope::scenario::parse_valid(json).unwrap();
    let run = buddyscope::Runner::new(s).run().unwrap();
    use buddyscope::run::Outcome;
    assert_eq!(run.ops[0].outcome, Outcome::Allocated { order: 10, pfn: 0 });
    assert_eq!(
        run.ops[1].outcome,
        Outcome::ContigMigrated {
            nr: 1024,
            pfn: 0,
            migrated: 1
        }
    );
    let freed: Vec<u32> =
        run.log
            .events
            .range(run.ops[2].start as usize..run.ops[2].end as usize)
            .filter_map(|ev| match ev.kind().annotation() {
                Some(buddyscope::mm::Annotation::Trace(
                    buddyscope::mm::Tracepoint::MmPageFree { pfn, order: 10 },
                )) => Some(pfn),
                _ => None,
            })
            .collect();
    assert_eq!(
        freed,
        vec![1024],
        "free big frees the page it was migrated to"
    );
    let z = &run.final_zone;
    // The free: `free_one_page` → two order-9 pieces that merge back to 1024/o10, placed at
    // the head (`buddy_merge_likely` is false at MAX_PAGE_ORDER).
    assert_eq!(z.free_list_pfns(10, M), vec![1024, 2048, 3072]);
    assert!((0..1024).all(|p| z.page_owner(p) == 1), "the range is r's");
    buddyscope::mm::check_invariants(z).unwrap();
}

/// The `-EBUSY` paths leave the zone as it was (`start_isolate_page_range` undoes its own
/// isolation; `alloc_contig_frozen_range_noprof` then `goto done`):
/// * an Unmovable page in the first pageblock, even outside the range: `isolate_single_pageblock`
///   passes the whole pageblock to `set_migratetype_isolate`, whose `has_unmovable_pages`
///   (page_isolation.c:118) finds it (not LRU, no movable_ops);
/// * an in-use order-10 Movable page straddling the range's end boundary (512):
///   `isolate_single_pageblock(512, before)` (page_isolation.c:324) reaches its head at 0 and
///   `goto failed` (LRU pages are not expected above pageblock_order).
#[test]
fn alloc_contig_range_busy_paths_change_nothing() {
    for (gfp, range) in [
        (GFP_KERNEL, (100u32, 10u32)),
        (GFP_HIGHUSER_MOVABLE, (0, 512)),
    ] {
        let mut e = boot_engine(&ZoneParams::new(4096));
        assert_eq!(
            e.alloc_pages(gfp, 10, 0, 1, gfp & __GFP_MOVABLE != 0),
            Some(0)
        );
        let before = e.zone.clone();
        assert!(!e.alloc_contig_range(range.0, range.1, 2));
        // Everything but the cost counters (the failed attempt took locks).
        for o in 0..=10u8 {
            for mt in MigrateType::ALL {
                assert_eq!(
                    e.zone.free_list_pfns(o, mt),
                    before.free_list_pfns(o, mt),
                    "{range:?}"
                );
            }
        }
        assert_eq!(e.zone.nr_free(), before.nr_free());
        assert_eq!(e.zone.nr_free_pages(), before.nr_free_pages());
        for pb in 0..8 {
            assert_eq!(e.zone.pb_mt(pb), before.pb_mt(pb), "{range:?}");
        }
        for p in 0..4096 {
            assert_eq!(e.zone.page_owner(p), before.page_owner(p));
            assert_eq!(e.zone.page_refcount(p), before.page_refcount(p));
        }
    }
}

/// v6.19 `__rmqueue_pcplist` (mm/page_alloc.c:3319-3347) refills an empty pcp list for an
/// `ALLOC_HIGHATOMIC` request like any other; v7.1.5 (:3312-3327) returns NULL before
/// `rmqueue_bulk` and `rmqueue_buddy` serves it.
///
/// By hand: the zone of `reserve_highatomic_pageblock_takes_the_zone_lock` (65536 pages,
/// `min_free_kbytes` 4096: min 1024, low 1280; 63 order-10 Movable allocations leave the order-10
/// block 64512), `batch` 15, `high_min` 64. GFP_ATOMIC order 1 fails the fast path (1024 − 1 ≤
/// 1280) and passes the slow path's reduced min (1024 − 512 − 128 = 384). 6.18/6.19:
/// `nr_pcp_alloc(1)` = max(15 >> 1, 2) = 7; `rmqueue_bulk` (no `ALLOC_NOFRAGMENT` in the slow
/// path) claims 64512/o10 whole and takes 64512, 64514, …, 64524 to the list's tail; 64512 is
/// returned and six blocks (12 pages) stay on pcp list 3. 7.1/7.2: the list stays empty,
/// `rmqueue_buddy` claims the same block and `expand` leaves 64514/o1 on the buddy's Unmovable
/// (then HighAtomic) list. Either way pageblock 126 is then reserved.
#[test]
fn v6_19_refills_the_pcp_for_a_highatomic_request() {
    for kernel in Kernel::ALL {
        // v6.12.117's __rmqueue_pcplist is 6.18.2's.
        let refills = matches!(kernel, Kernel::V6_12 | Kernel::V6_18 | Kernel::V6_19);
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.batch = Some(15);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        p.min_free_kbytes = Some(4096);
        let mut e = boot_engine(&p);
        for i in 0..63 {
            assert!(e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, i + 1, true)
                .is_some());
        }
        e.log.events.clear();
        assert_eq!(e.alloc_pages(GFP_ATOMIC, 1, 0, 100, false), Some(64512));
        let held = e.zone.pcp_list_pfns(0, 3);
        if refills {
            assert_eq!(held, vec![64514, 64516, 64518, 64520, 64522, 64524]);
            assert_eq!(e.zone.free_list_pfns(1, H), vec![64526], "{kernel:?}");
        } else {
            assert!(held.is_empty(), "{kernel:?}");
            assert_eq!(e.zone.free_list_pfns(1, H), vec![64514], "{kernel:?}");
        }
        assert_eq!(
            enters(&e, buddyscope::mm::KernelFn::rmqueue_bulk),
            refills as usize
        );
        assert_eq!(e.zone.pb_mt(126), H, "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// v6.19 `__alloc_pages_slowpath` (mm/page_alloc.c:4693-) is v6.18.2's: the first
/// `get_page_from_freelist` after `gfp_to_alloc_flags` (:4771) and the one after `retry:` (:4860)
/// run before `if (!can_direct_reclaim) goto nopage` — two attempts. v7.1.5 makes the second one
/// only when `ALLOC_CPUSET` was dropped (`can_retry_reserves`) or after `compact_first`.
///
/// By hand: 4096 pages, `min_free_kbytes` 0 (min 0, low 4), the four order-10 blocks allocated
/// (the last one through the slow path: 1024 − 1023 = 1 ≤ low, > min); GFP_NOWAIT | __GFP_MOVABLE order 10
/// (no `__GFP_HIGH`, no direct reclaim) fails everywhere: `get_page_from_freelist` runs once in
/// the fast path, then 2 times on 6.18/6.19 and 1 time on 7.1/7.2.
#[test]
fn v6_19_slow_path_makes_two_attempts() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.min_free_kbytes = Some(0);
        let mut e = boot_engine(&p);
        for i in 0..4 {
            assert!(e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, i + 1, true)
                .is_some());
        }
        e.log.events.clear();
        assert_eq!(
            e.alloc_pages(GFP_NOWAIT | __GFP_MOVABLE, 10, 0, 9, true),
            None
        );
        // v6.12.117's __alloc_pages_slowpath makes 6.18.2's attempts.
        let want = if matches!(kernel, Kernel::V6_12 | Kernel::V6_18 | Kernel::V6_19) {
            3
        } else {
            2
        };
        assert_eq!(
            enters(&e, buddyscope::mm::KernelFn::get_page_from_freelist),
            want,
            "{kernel:?}"
        );
    }
}

/// v6.19 `free_frozen_page_commit` (mm/page_alloc.c:2854-2954, the loop at :2907-2935) frees
/// `nr_pcp_free` in `batch`-sized `free_pcppages_bulk` chunks, dropping the pcp lock and
/// `pcp_spin_trylock`-ing it again between chunks; v6.18.2 makes one call.
///
/// By hand: 4096 pages, `batch` 8, `high_min` = `high_max` = 64. The order-10 block 0 is
/// allocated as Movable (the buddy serves order 10: the pcp is untouched), split, and its pages
/// 0..=63 freed one by one to pcp list 1 (Movable order 0). Free k leaves `count` = `free_count`
/// = k; `nr_pcp_high` returns 64 (high_min = high_max). At k = 64, `nr_pcp_free` = clamp(64, 8,
/// 64 − 8) = 56: 6.19+ frees 7 chunks of 8 (7 `free_pcppages_bulk` calls), 6.18 one of 56. Both
/// drain from the tail, pfns 0..=55, which merge into 0/o5, 32/o4, 48/o3; 56..=63 stay.
#[test]
fn v6_19_frees_the_pcp_in_batch_chunks() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.batch = Some(8);
        p.high_min = Some(64);
        p.high_max = Some(64);
        let mut e = boot_engine(&p);
        assert_eq!(e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 1, true), Some(0));
        e.split_page(0, 10);
        for pfn in 0..63 {
            e.free_pages(pfn, 0, 0);
        }
        assert_eq!(e.zone.pcp()[0].count, 63);
        e.log.events.clear();
        e.free_pages(63, 0, 0);
        // v6.12.117 free_unref_page_commit: one call, as 6.18.
        let chunks = if matches!(kernel, Kernel::V6_12 | Kernel::V6_18) {
            1
        } else {
            7
        };
        assert_eq!(
            enters(&e, buddyscope::mm::KernelFn::free_pcppages_bulk),
            chunks,
            "{kernel:?}"
        );
        assert_eq!(
            e.zone.pcp_list_pfns(0, 1),
            (56..64).rev().collect::<Vec<_>>()
        );
        assert_eq!(e.zone.free_list_pfns(5, M), vec![0], "{kernel:?}");
        assert_eq!(e.zone.free_list_pfns(4, M), vec![32], "{kernel:?}");
        assert_eq!(e.zone.free_list_pfns(3, M), vec![48], "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// A node of DMA32 (2048 pages at pfn 0x1000) and Normal (8192 pages at pfn 0x100000), 6.18,
/// `min_free_kbytes` 64, booted.
///
/// By hand from the C (v6.18.2; v7.1.5 identical):
/// * `__setup_per_zone_wmarks` (:6338, `tmp = div64_ul(tmp, lowmem_pages)` :6356): pages_min =
///   64 >> 2 = 16, lowmem_pages = 10240. DMA32: min = 16 × 2048 / 10240 = 3; the distance is
///   max(3 >> 2, mult_frac(2048, 10, 10000) = 2) = 2, so low 5, high 7. Normal: min = 16 × 8192 /
///   10240 = 12; distance max(3, 8) = 8: low 20, high 28.
/// * `setup_per_zone_lowmem_reserve` (:6327 `zone->lowmem_reserve[j] = managed_pages / ratio`):
///   DMA32's ratio is 256, so its reserve against a Normal (or Movable) request is 8192 / 256 =
///   32; Normal has nothing above it: 0.
fn dma32_and_normal() -> Engine {
    let mut dma32 = ZoneParams::new(2048);
    dma32.name = "DMA32".into();
    dma32.start_pfn = 0x1000;
    dma32.kernel = Kernel::V6_18;
    dma32.min_free_kbytes = Some(64);
    let mut normal = ZoneParams::new(8192);
    normal.start_pfn = 0x10_0000;
    normal.kernel = Kernel::V6_18;
    normal.min_free_kbytes = Some(64);
    buddyscope::mm::boot_node(&[dma32, normal])
}

/// The absolute pfn of a page the engine just handed out (in the zone being worked on).
fn abs(e: &Engine, pfn: Option<u32>) -> Option<u64> {
    pfn.map(|p| e.zone.abs_pfn(p))
}

/// `get_page_from_freelist`'s zonelist walk (v6.18.2 :3743, v7.1.5 :3805
/// `for_next_zone_zonelist_nodemask(zone, z, ac->highest_zoneidx, …)`) with the watermark check
/// adding `z->lowmem_reserve[highest_zoneidx]` (`__zone_watermark_ok` v6.18.2 :3563 / v7.1.5
/// :3625 `free_pages <= min + z->lowmem_reserve[highest_zoneidx]`; the order-0 fast check :3625 /
/// :3687), and `gfp_zone(GFP_DMA32)` = ZONE_DMA32 whose own reserve entry is 0.
///
/// Worked example (GFP_KERNEL order 9 and 10 are not refilled in batches here: both zones have
/// `batch` 1, so an order-9 pcp refill takes exactly the block handed out):
/// 1. 7 × order-10 and 1 × order-9 GFP_KERNEL: all from Normal (its last check: 1024 − 511 = 513
///    > high 28). Normal keeps 512 free pages.
/// 2. An order-9 GFP_KERNEL: Normal fails (512 − 511 = 1 ≤ low 20); the zonelist goes on to
///    DMA32: 2048 − 511 = 1537 > high 7 + reserve 32, so the page comes from DMA32: the claim
///    takes the order-10 block at 0x1000 and the request gets its first half, pfn 0x1000.
/// 3. GFP_DMA32 requests of order 9, 8, 7, 6, 5, 4 (1008 pages) leave DMA32 with 528 free pages:
///    0x15f0/o4 and 0x1600/o9.
/// 4. An order-9 GFP_KERNEL now fails: Normal as in 2; DMA32: 528 − 511 = 17 ≤ low 5 + reserve 32
///    (and ≤ min 3 + 32 in the slow path). Without the reserve 17 > 5 would have passed.
/// 5. The same order-9 request with GFP_DMA32: reserve[DMA32] = 0, 17 > high 7: pfn 0x1600.
#[test]
fn zonelist_falls_back_to_dma32_only_above_its_lowmem_reserve() {
    use buddyscope::mm::{ZONE_DMA32, ZONE_NORMAL};
    let mut e = dma32_and_normal();
    assert_eq!(e.zone.nr_zones(), 2);
    let (d, n) = (e.zone.zone_at(0), e.zone.zone_at(1));
    assert_eq!(
        (d.wmark_pages(0), d.wmark_pages(1), d.wmark_pages(2)),
        (3, 5, 7)
    );
    assert_eq!(
        (n.wmark_pages(0), n.wmark_pages(1), n.wmark_pages(2)),
        (12, 20, 28)
    );
    assert_eq!(d.lowmem_reserve()[ZONE_NORMAL], 32);
    assert_eq!(d.lowmem_reserve()[ZONE_DMA32], 0);
    assert_eq!(n.lowmem_reserve(), &[0, 0, 0, 0]);

    let mut owner = 1;
    let mut alloc = |e: &mut Engine, gfp: u32, order: u8| {
        owner += 1;
        let p = e.alloc_pages(gfp, order, 0, owner, false);
        abs(e, p)
    };
    // 1.
    for i in 0..7u64 {
        assert_eq!(alloc(&mut e, GFP_KERNEL, 10), Some(0x10_0000 + 1024 * i));
    }
    assert_eq!(alloc(&mut e, GFP_KERNEL, 9), Some(0x10_0000 + 7 * 1024));
    assert_eq!(e.zone.zone_at(1).nr_free_pages(), 512);
    // 2.
    assert_eq!(alloc(&mut e, GFP_KERNEL, 9), Some(0x1000));
    assert_eq!(e.zone.zone_at(0).nr_free_pages(), 1536);
    // 3.
    for order in [9u8, 8, 7, 6, 5, 4] {
        let got = alloc(&mut e, GFP_KERNEL | __GFP_DMA32, order);
        assert!(
            got.is_some_and(|p| (0x1000..0x1800).contains(&p)),
            "GFP_DMA32 order {order}: {got:?}"
        );
    }
    let d = e.zone.zone_at(0);
    assert_eq!(d.nr_free_pages(), 528);
    assert_eq!(d.free_list_pfns(4, MigrateType::Unmovable), vec![0x5f0]);
    assert_eq!(d.free_list_pfns(9, MigrateType::Unmovable), vec![0x600]);
    // 4.
    assert_eq!(alloc(&mut e, GFP_KERNEL, 9), None);
    assert_eq!(e.zone.zone_at(0).nr_free_pages(), 528);
    // 5.
    assert_eq!(alloc(&mut e, GFP_KERNEL | __GFP_DMA32, 9), Some(0x1600));
    assert_eq!(
        buddyscope::mm::gfp_zone(GFP_KERNEL | __GFP_DMA32),
        ZONE_DMA32
    );
}

/// A zone of 4096 pages at pfn 1024 whose CMA area is `cma` pages from pfn 2048.
fn cma_zone(cma: u64) -> Engine {
    let mut p = ZoneParams::new(4096);
    p.start_pfn = 1024;
    p.cma = true;
    p.cma_area = Some((2048, cma));
    boot_engine(&p)
}

/// `init_cma_reserved_pageblock` (v7.1.5 mm/mm_init.c:2231: `init_pageblock_migratetype(page,
/// MIGRATE_CMA, false)`, `__free_pages(page, pageblock_order)`, `cma_pages +=
/// pageblock_nr_pages`) after `memblock_free_all` freed the rest, and `__rmqueue`'s CMA balancing
/// (v6.18.2 :2456, v7.1.5 :2453: `alloc_flags & ALLOC_CMA && NR_FREE_CMA_PAGES > NR_FREE_PAGES
/// / 2` → `__rmqueue_cma_fallback` first).
///
/// Worked example, CMA area [2048, 4608) (5 pageblocks) in the zone [1024, 5120):
/// 1. memblock frees [1024, 2048) as one order-10 chunk and [4608, 5120) as one order-9 chunk
///    (4608 = 9 × 512), both MOVABLE.
/// 2. The CMA pageblocks are freed one by one at order 9: 2048+2560 merge to order 10 at 2048,
///    3072+3584 to order 10 at 3072 (added at the head: `FPI_NONE`, order 10 = MAX_PAGE_ORDER
///    skips `buddy_merge_likely`), so the CMA order-10 list is 3072, 2048. 4096's buddy 4608 is
///    MOVABLE and CMA is not `migratetype_is_mergeable` (`__free_one_page` v6.18.2 :982, v7.1.5 :976), so it
///    stays order 9. nr_free_cma = 2560, zoneinfo `cma 2560`, 5 CMA pageblocks.
/// 3. An order-10 `GFP_HIGHUSER_MOVABLE` (ALLOC_CMA: `gfp_to_alloc_flags_cma`): 2560 > 4096 / 2,
///    so `__rmqueue_cma_fallback` hands out the CMA list's head, pfn 3072.
/// 4. The next one: 1536 > 3072 / 2 = 1536 is false, so `__rmqueue_smallest(MOVABLE)` gives the
///    MOVABLE order-10 block at 1024.
///
/// With a 1024-page area (nr_free_cma 1024 ≤ 2048) the first request already gets 1024.
#[test]
fn cma_pageblocks_at_boot_and_rmqueue_cma_balancing() {
    let mut e = cma_zone(2560);
    assert_eq!(e.zone.free_list_pfns(10, MigrateType::Movable), vec![0]);
    assert_eq!(
        e.zone.free_list_pfns(9, MigrateType::Movable),
        vec![4608 - 1024]
    );
    assert_eq!(
        e.zone.free_list_pfns(10, MigrateType::Cma),
        vec![3072 - 1024, 2048 - 1024]
    );
    assert_eq!(
        e.zone.free_list_pfns(9, MigrateType::Cma),
        vec![4096 - 1024]
    );
    let cma_blocks = (0..e.zone.nr_pageblocks())
        .filter(|&pb| e.zone.pb_mt(pb) == MigrateType::Cma)
        .count();
    assert_eq!(cma_blocks, 5);
    let zi = buddyscope::scenario::procfs::zoneinfo(&e.zone);
    assert!(zi.contains("        cma      2560\n"), "{zi}");
    assert!(zi.contains("      nr_free_cma  2560\n"), "{zi}");

    let p = e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 2, false);
    assert_eq!(abs(&e, p), Some(3072));
    let p = e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 3, false);
    assert_eq!(abs(&e, p), Some(1024));

    let mut small = cma_zone(1024);
    let p = small.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 2, false);
    assert_eq!(abs(&small, p), Some(1024));
}

/// A 4096-page zone at pfn 0 whose CMA area is [2048, 4096) (pageblocks 4..=7), `min_free_kbytes`
/// 0, after two movable allocations: order 10 at 0 (owner 1) and order 5 at 3072 (owner 2).
///
/// By hand: memblock frees 0/o10 and 1024/o10 to the Movable tail; the CMA pageblocks are freed
/// at order 9 in pfn order and merge at the head into the CMA order-10 list [3072, 2048]
/// (see `cma_pageblocks_at_boot_and_rmqueue_cma_balancing`). The order-10 request: 2048 CMA
/// pages are not more than half of 4096, so `__rmqueue_smallest(MOVABLE)` gives 0. The order-5
/// one (not a pcp order): 2048 > 3072 / 2, so `__rmqueue_cma_fallback` splits the CMA list's
/// head 3072 (`expand`: 3584/o9, 3328/o8, 3200/o7, 3136/o6, 3104/o5 back on the CMA lists).
fn cma_area_with_a_movable_block(kernel: Kernel) -> Engine {
    let mut p = ZoneParams::new(4096);
    p.kernel = kernel;
    p.cma = true;
    p.min_free_kbytes = Some(0);
    p.cma_area = Some((2048, 2048));
    let mut e = boot_engine(&p);
    assert_eq!(
        e.zone.free_list_pfns(10, MigrateType::Cma),
        vec![3072, 2048]
    );
    assert_eq!(e.alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 1, true), Some(0));
    assert_eq!(
        e.alloc_pages(GFP_HIGHUSER_MOVABLE, 5, 0, 2, true),
        Some(3072)
    );
    assert_eq!(e.zone.free_list_pfns(9, MigrateType::Cma), vec![3584]);
    e.log.events.clear();
    e
}

fn messages(e: &Engine) -> Vec<String> {
    e.log
        .events
        .iter()
        .filter_map(|ev| match ev.kind().annotation() {
            Some(buddyscope::mm::Annotation::Message { id, .. }) => {
                Some(e.log.message(id).to_string())
            }
            _ => None,
        })
        .collect()
}

/// `cma_alloc` (v7.1.5 mm/cma.c:947 → `__cma_alloc_frozen` :864 → `cma_range_alloc` :784) of
/// the whole area, then `cma_release` (:1017), on 7.1 and 7.2 (and 6.18's `free_contig_range`).
///
/// * `cma_range_alloc`: mask 0, offset 0, `bitmap_find_next_zero_area_off(bitmap, 2048, 0,
///   2048, 0, 0)` = 0 (:811); `bitmap_set` (:834), then `alloc_contig_frozen_range(2048, 4096,
///   ACR_FLAGS_CMA)` (:844). Its `start_isolate_page_range` may isolate the CMA pageblocks
///   (`PB_ISOLATE_MODE_CMA_ALLOC`); `__alloc_contig_migrate_range` migrates owner 2's order-5
///   block: its target (`alloc_migration_target`, movable) cannot come from the isolated CMA
///   pageblocks (NR_FREE_CMA_PAGES is 0 once they are isolated), so `__rmqueue_smallest`
///   splits the Movable order-10 block at 1024 and the block lands at 1024. The range is the
///   caller's: pfn 2048, no retry.
/// * `cma_release`: `put_page_testzero` on each of the 2048 pages (:1029), then
///   `__cma_release_frozen` (:994) → `free_contig_frozen_range` (page_alloc.c:7277; not a
///   compound head) → `__free_contig_frozen_range`: v7.1.5 (:6896) one `free_frozen_pages(page,
///   0)` per page: 2048 pcp frees, no chunk; 7.2 (the seed): `free_pages_prepare` per page
///   (2048 `mm_page_free`) and `free_prepared_contig_range(2048, 2048)`: chunk order
///   `min(__ffs(2048) = 11, ilog2(2048) = 11, MAX_PAGE_ORDER)` = 10, so 2048/o10 and 3072/o10,
///   not pcp orders: `free_one_page` (:1536) takes the zone lock once per chunk (2 holds) and
///   its `split_large_buddy` (:1504) frees each chunk as two order-9 pageblocks that merge back
///   (2 merges in all), each order-10 block at the head (`buddy_merge_likely` is false at
///   MAX_PAGE_ORDER): CMA order-10 list [3072, 2048]. Then `cma_clear_bitmap` (:1002): all 2048 pages available.
///   On 7.1 the pages left on the pcp go back with a drain and merge to the same two blocks.
#[test]
fn cma_alloc_migrates_and_cma_release_per_page_vs_chunks() {
    use buddyscope::mm::CmaArea;
    use buddyscope::mm::KernelFn;
    for kernel in [Kernel::V6_18, Kernel::V7_1, Kernel::V7_2] {
        let mut e = cma_area_with_a_movable_block(kernel);
        let mut area = CmaArea::new(2048, 2048);
        let out = e.cma_alloc(&mut area, 2048, 0, 3, 0);
        assert_eq!(out.pfn, Some(2048), "{kernel:?}");
        assert_eq!(out.ret, 0);
        assert!(out.busy.is_empty());
        assert_eq!(
            out.migrated,
            vec![buddyscope::mm::Migration {
                owner: 2,
                from: 3072,
                to: 1024,
                order: 5,
                from_zone: 0,
                to_zone: 0,
            }]
        );
        assert_eq!(area.available_count, 0);
        assert!(area.bitmap.iter().all(|&b| b));
        assert!((2048..4096).all(|p| e.zone.page_owner(p) == 3));
        assert!((4..8).all(|pb| e.zone.pb_mt(pb) == MigrateType::Cma));
        assert_eq!(e.zone.page_owner(1024), 2);
        assert!(messages(&e)[0].starts_with(
            "cma_range_alloc: bits 0..2047 of the bitmap set: alloc_contig_frozen_range(pfn 0x800, 2048 pages"
        ));

        e.log.events.clear();
        let locks = e.zone.stats().zone_lock;
        e.cma_release(&mut area, 2048, 2048, 0);
        assert_eq!(area.available_count, 2048);
        assert!(area.bitmap.iter().all(|&b| !b));
        let puts = e
            .log
            .events
            .iter()
            .filter(|ev| ev.step == Step::CmaReleasePut)
            .count();
        // 6.18: `free_contig_range` → `__free_page` a page: the reference drops as each page
        // is freed (v6.18.2 mm/page_alloc.c:7121-7144), not all first.
        let (want_puts, want_fcr) = if kernel == Kernel::V6_18 {
            (0, 1)
        } else {
            (2048, 0)
        };
        assert_eq!(puts, want_puts, "{kernel:?}");
        assert_eq!(
            enters(&e, KernelFn::free_contig_range),
            want_fcr,
            "{kernel:?}"
        );
        assert_eq!(
            page_frees(&e.log.events.iter().copied().collect::<Vec<_>>()).len(),
            2048,
            "{kernel:?}"
        );
        let pcp_frees = enters(&e, KernelFn::__free_frozen_pages);
        if kernel == Kernel::V7_2 {
            assert_eq!(
                chunks(&e.log.events.iter().copied().collect::<Vec<_>>()),
                vec![(2048, 10), (3072, 10)]
            );
            assert_eq!(pcp_frees, 2);
            assert_eq!(merges(&e), 2);
            assert_eq!(e.zone.stats().zone_lock - locks, 2);
            assert_eq!(
                e.zone.free_list_pfns(10, MigrateType::Cma),
                vec![3072, 2048]
            );
        } else {
            assert_eq!(
                chunks(&e.log.events.iter().copied().collect::<Vec<_>>()),
                vec![]
            );
            assert_eq!(pcp_frees, 2048);
            assert!(merges(&e) > 0);
            e.drain_all_pages();
        }
        assert_eq!(
            e.zone.free_list_pfns(10, MigrateType::Cma).len(),
            2,
            "{kernel:?}"
        );
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// `cma_range_alloc`'s `-EBUSY` retry (v7.1.5 mm/cma.c:801-857): a pinned page (owner 2's
/// order-5 block at 3072 with a second reference: `isolate_migratepages_block` skips it, so
/// `test_pages_isolated` fails and `alloc_contig_frozen_range` returns -EBUSY).
/// * c1 = `cma_alloc(1024, align 9)`: mask 511, offset `2048 & 511` = 0; bit 0 → [2048, 3072)
///   is free: taken.
/// * c2 = `cma_alloc(512, align 9)`: the first zero bit is 1024 (aligned), [3072, 3584) holds
///   the pinned block: -EBUSY, `cma_clear_bitmap`, `start = bitmap_no + mask + 1` = 1536
///   (:801): [3584, 4096) is free: taken, one busy range retried.
/// * c3 = `cma_alloc(512, align 9)`: bit 1024 is busy again; from 1536 every bit is set, so
///   `bitmap_find_next_zero_area_off` returns 2048 + 512 > 2048 = `bitmap_maxno` (:814): stop;
///   `__cma_alloc_frozen` prints "alloc failed, req-size: 512 pages, ret: -16" (:902).
#[test]
fn cma_alloc_retries_past_a_busy_range() {
    use buddyscope::mm::{CmaArea, EBUSY};
    let mut e = cma_area_with_a_movable_block(Kernel::V7_1);
    e.get_page(3072);
    let mut area = CmaArea::new(2048, 2048);
    let c1 = e.cma_alloc(&mut area, 1024, 9, 3, 0);
    assert_eq!((c1.pfn, c1.ret, c1.busy.len()), (Some(2048), 0, 0));
    let c2 = e.cma_alloc(&mut area, 512, 9, 4, 0);
    assert_eq!((c2.pfn, c2.ret), (Some(3584), 0));
    assert_eq!(c2.busy, vec![3072]);
    assert!(c2.migrated.is_empty());
    assert_eq!(area.available_count, 512);
    assert!(area.bitmap[1024..1536].iter().all(|&b| !b));
    e.log.events.clear();
    let c3 = e.cma_alloc(&mut area, 512, 9, 5, 0);
    assert_eq!((c3.pfn, c3.ret), (None, EBUSY));
    assert_eq!(c3.busy, vec![3072]);
    assert_eq!(area.available_count, 512);
    let m = messages(&e);
    assert!(m
        .iter()
        .any(|t| t
            == "cma_range_alloc(): memory range at pfn 0xc00 ffffea0000030000 is busy, retrying"));
    assert_eq!(
        m.last().unwrap(),
        "__cma_alloc_frozen: reserved: alloc failed, req-size: 512 pages, ret: -16"
    );
    assert_eq!(e.zone.page_owner(3072), 2, "the pinned block stays");
    buddyscope::mm::check_invariants(&e.zone).unwrap();
}

/// vmalloc on a node of several zones: `vm_area_alloc_pages` (v7.1.5
/// mm/vmalloc.c:3632) asks `alloc_pages_bulk_node_noprof` for at most 100 pages at a time
/// (:3692), and `alloc_pages_bulk_noprof` (v7.1.5 mm/page_alloc.c:5037) walks the zonelist from
/// the preferred zone (:5095 `for_next_zone_zonelist_nodemask`) to the first zone whose
/// `zone_watermark_fast(zone, 0, low + nr_pages - nr_populated, …)` passes (:5110-5114, with the
/// zone's `lowmem_reserve`), and takes the whole batch from that zone's pcp (:5140-5165); `vfree`
/// (mm/vmalloc.c:3436, :3472) `__free_page`s each page to `page_zone(page)`.
///
/// Worked example on [`dma32_and_normal`] (Normal low 20; DMA32 low 5, reserve 32 against a
/// Normal request; `VMALLOC_GFP` has `__GFP_HIGHMEM`, which is `ZONE_NORMAL` on x86_64):
/// 1. GFP_KERNEL order 10 ×7, then 9, 8, 6, 5 from Normal (as in the zonelist example, each far
///    above high 28) leave Normal the blocks 0x101f60/o5 and 0x101f80/o7: 160 free pages.
/// 2. vmalloc(150), bulk: the first batch of 100: Normal passes (160 > 20 + 100), so all 100
///    pages come from Normal's Unmovable pcp list, refilled from its smallest blocks in pfn
///    order: 0x101f60 ..= 0x101fc3. Normal is left 60 pages: 33 in the buddy, 27 on the pcp.
/// 3. The second batch of 50: Normal fails (33 ≤ 20 + 50: pcp pages do not count); DMA32 passes
///    (2048 > 5 + 50 + reserve 32). The pcp refill claims the order-10 block at 0x1000 (its
///    pageblocks become Unmovable) and hands out 0x1000 ..= 0x1031 in pfn order.
/// 4. vfree, page by page: each page goes back to its own zone's pcp, so each zone's free pages
///    (buddy + pcp) are what they were before the vmalloc: Normal 160, DMA32 2048.
/// 5. The same area freed by the 7.2 `free_pages_bulk` (runs of consecutive pfns, each run in
///    one zone): Normal's run 0x101f60 + 100 → chunks 0x101f60/o5 (ctz 5), 0x101f80/o6
///    (ilog2 68), 0x101fc0/o2; DMA32's run 0x1000 + 50 → 0x1000/o5, 0x1020/o4, 0x1030/o1.
#[test]
fn vmalloc_on_a_node_takes_each_batch_from_the_first_zone_above_low_plus_nr() {
    use buddyscope::mm::VMALLOC_GFP;
    use buddyscope::mm::{Annotation, EventKind, Mutation};
    let mut e = dma32_and_normal();
    let mut owner = 1;
    // 1.
    for order in [10u8, 10, 10, 10, 10, 10, 10, 9, 8, 6, 5] {
        owner += 1;
        let p = e.alloc_pages(GFP_KERNEL, order, 0, owner, false);
        assert_eq!(e.zone.active_index(), 1, "order {order} from Normal");
        assert!(p.is_some());
    }
    let n = e.zone.zone_at(1);
    assert_eq!(n.nr_free_pages(), 160);
    assert_eq!(n.free_list_pfns(5, MigrateType::Unmovable), vec![0x1f60]);
    assert_eq!(n.free_list_pfns(7, MigrateType::Unmovable), vec![0x1f80]);
    // 2. and 3.
    let (area, ok) = e.vmalloc(150, VmallocStrategy::Bulk, 0, 99, VMALLOC_GFP);
    assert!(ok);
    let pages: Vec<u64> = (0..area.pages.len())
        .map(|i| e.zone.zone_at(area.zone_of(i)).abs_pfn(area.pages[i]))
        .collect();
    let want: Vec<u64> = (0x10_1f60..=0x10_1fc3).chain(0x1000..=0x1031).collect();
    assert_eq!(pages, want);
    assert_eq!(area.zones, [vec![1u8; 100], vec![0u8; 50]].concat());
    let free_and_pcp = |e: &Engine, z: usize| {
        let zz = e.zone.zone_at(z);
        zz.nr_free_pages() + zz.pcp_pages()
    };
    assert_eq!(e.zone.zone_at(1).nr_free_pages(), 33);
    assert_eq!(free_and_pcp(&e, 1), 60);
    assert_eq!(free_and_pcp(&e, 0), 2048 - 50);
    let d = e.zone.zone_at(0);
    assert_eq!(d.pb_mt(0), MigrateType::Unmovable);
    assert_eq!(d.pb_mt(1), MigrateType::Unmovable);
    // 5. (on a copy)
    let mut chunked = e.clone();
    chunked.log.events.clear();
    chunked.vfree(&area, FreeMethod::Chunked, 0);
    let mut cur = chunked.zone.active_index();
    let mut chunks = Vec::new();
    for ev in &chunked.log.events {
        match ev.kind() {
            EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) => cur = to as usize,
            EventKind::Annotation(Annotation::Chunk { pfn, order }) => {
                chunks.push((chunked.zone.zone_at(cur).abs_pfn(pfn), order))
            }
            _ => {}
        }
    }
    assert_eq!(
        chunks,
        vec![
            (0x10_1f60, 5),
            (0x10_1f80, 6),
            (0x10_1fc0, 2),
            (0x1000, 5),
            (0x1020, 4),
            (0x1030, 1)
        ]
    );
    assert_eq!(free_and_pcp(&chunked, 1), 160);
    assert_eq!(free_and_pcp(&chunked, 0), 2048);
    // 4.
    e.vfree(&area, FreeMethod::PerPage, 0);
    assert_eq!(
        e.zone.zone_at(1).nr_free_pages(),
        33,
        "Normal's pages went to its pcp"
    );
    assert_eq!(free_and_pcp(&e, 1), 160);
    assert_eq!(free_and_pcp(&e, 0), 2048);
    for z in e.zone.zones() {
        buddyscope::mm::check_invariants(z).unwrap();
    }
}

/// Migration on a node of several zones (decision 15): `alloc_contig_range`'s
/// migrate step allocates each target with `alloc_migration_target` (mm/migrate.c, not in the
/// sources here: `__folio_alloc(gfp, order, mtc->nid, mtc->nmask)`, the node's zonelist, no
/// nodemask), with `mtc.gfp_mask = cc->gfp_mask` (v7.1.5 mm/page_alloc.c:6785-6789), which
/// `__alloc_contig_verify_gfp_mask` makes `GFP_KERNEL`'s reclaim bits | `__GFP_MOVABLE` |
/// `__GFP_RETRY_MAYFAIL` (:6890-6891). `gfp_zone` of that is ZONE_NORMAL, so the zonelist starts
/// at Normal whatever zone the range is in: a page in DMA32 moves up into Normal.
///
/// Worked example on [`dma32_and_normal`] (6.18, batch 1 in both zones):
/// 1. A `GFP_HIGHUSER_MOVABLE | __GFP_DMA32` order-0 page: the DMA32 pcp refill takes one page
///    (`nr_pcp_alloc` with batch 1) from the head of the Movable order-10 list, 0x1000 (boot
///    adds 0x1000 then 0x1400 at the tail), splitting it: 0x1000.
/// 2. `alloc_contig_range(0x1000, 1)`: pageblock 0x1000 is isolated (its free buddies
///    0x1001/o0 … 0x1100/o8 move to the Isolate lists); the batch is [0x1000]. The target
///    request walks Normal first: 8192 free > high 28, the Normal pcp refill takes the head of
///    its Movable order-10 list, 0x100000. The source is freed in DMA32 (`page_zone`): its
///    pageblock is isolated, so `free_one_page` merges it with the isolated buddies up to
///    0x1000/o9 (the o9 buddy 0x1200 is in a Movable pageblock: no merge across an isolated one).
/// 3. `test_pages_isolated` passes, the o9 block is taken, page 0x1000 kept and 0x1001..0x1200
///    freed back (isolated) page by page, then the isolation is undone: DMA32 has 2047 free
///    pages, Normal 8191, and the owner's page lives at 0x100000.
#[test]
fn alloc_contig_range_migrates_a_dma32_page_up_into_normal() {
    use buddyscope::mm::{IsolateMode, Migration};
    let mut e = dma32_and_normal();
    // 1.
    let p = e.alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_DMA32, 0, 0, 2, true);
    assert_eq!((e.zone.active_index(), abs(&e, p)), (0, Some(0x1000)));
    // 2. and 3.
    let out = e.alloc_contig_frozen_range(0, 1, 9, 0, IsolateMode::Other);
    assert_eq!(out.result, Ok(()));
    assert_eq!(
        out.migrated,
        vec![Migration {
            owner: 2,
            from: 0,
            to: 0,
            order: 0,
            from_zone: 0,
            to_zone: 1
        }]
    );
    let (d, n) = (e.zone.zone_at(0), e.zone.zone_at(1));
    assert_eq!((d.page_owner(0), d.page_refcount(0)), (9, 1));
    assert_eq!((n.page_owner(0), n.page_refcount(0)), (2, 1));
    assert_eq!(d.nr_free_pages() + d.pcp_pages(), 2047);
    assert_eq!(n.nr_free_pages() + n.pcp_pages(), 8191);
    for z in e.zone.zones() {
        assert_eq!(
            (0..z.nr_pageblocks())
                .filter(|&pb| z.pb_mt(pb) == MigrateType::Isolate)
                .count(),
            0
        );
        buddyscope::mm::check_invariants(z).unwrap();
    }
}

/// The events recorded so far, as a slice.
fn evs(e: &Engine) -> Vec<buddyscope::mm::Event> {
    e.log.events.iter().copied().collect()
}

/// The trace lines (`mm_page_alloc` pfns, `mm_page_free` pfns) of `events`.
fn traced(events: &[buddyscope::mm::Event]) -> (Vec<Option<u32>>, Vec<u32>) {
    use buddyscope::mm::{Annotation, EventKind, Tracepoint};
    let mut allocs = Vec::new();
    let mut frees = Vec::new();
    for ev in events {
        match ev.kind() {
            EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAlloc { pfn, .. })) => {
                allocs.push(pfn)
            }
            EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageFree { pfn, order })) => {
                assert_eq!(order, 0);
                frees.push(pfn)
            }
            _ => {}
        }
    }
    (allocs, frees)
}

/// 7.2's `vfree` read against v7.2.13's source: `vfree` → `vm_area_free_pages` (mm/vmalloc.c
/// :3452) → `free_pages_bulk` (mm/page_alloc.c:5308: runs of consecutive pfns, each one
/// `__free_contig_range`) → `__free_contig_range_common` (:6928: `put_page_testzero` and
/// `free_pages_prepare(page, 0)` per page, one `mm_page_free order=0` each) →
/// `free_prepared_contig_range` (:6902: `order = min(__ffs(pfn), ilog2(nr_pages), 10)`) →
/// `__free_frozen_pages(page, order, FPI_PREPARED)` (:2937): a chunk of a pcp order (0-3, 9:
/// `pcp_allowed_order`, :675) goes to the freeing CPU's pcp list through
/// `free_frozen_page_commit` (`__free_pages_prepare` returns at once for `FPI_PREPARED`, :1321:
/// no second trace line); any other order goes to `__free_pages_ok` → the buddy. Then
/// `alloc_pages_bulk_noprof` (:5156) takes pages off the order-0 pcp list, those the vfree put
/// there included, with no `mm_page_alloc` line (`prep_new_page` only).
///
/// By hand: 4096 pages, 7.2, `high_min` = `high_max` = 1000 (no pcp drain). Block 0 is taken at
/// order 10 by GFP_KERNEL (`__rmqueue_claim` claims both pageblocks: Unmovable) and split. The
/// area holds pfns 3..=23, 32..=63 and 70 (three runs):
/// * run 3..=23 (21 pages): 3/o0 (`__ffs` 0), 4/o2 (`__ffs` 2 < ilog2 20), 8/o3, 16/o3
///   (ilog2 8 = 3): all pcp orders, each at the head of pcp list `3 × order + Unmovable`;
/// * run 32..=63: 32/o5 (`__ffs` 5, ilog2 32 = 5): `__free_pages_ok`; its buddy 0/o5 is in use,
///   so it stays on the order-5 Unmovable free list;
/// * run 70: 70/o0, at the head of pcp list 0: [70, 3].
///
/// 54 `mm_page_free` lines in array order and no other tracepoint; pcp `count` 1 + 4 + 8 + 8 +
/// 1 = 22. On 7.1 (`__free_page` per page, v7.1.5 mm/vmalloc.c:3462-3474) all 54 go to pcp list
/// 0. `alloc_pages_bulk(GFP_KERNEL, 2)` then returns 70 and 3, untraced.
#[test]
fn v7_2_vfree_frees_runs_through_free_pages_bulk_and_bulk_alloc_takes_them_untraced() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.batch = Some(8);
        p.high_min = Some(1000);
        p.high_max = Some(1000);
        let mut e = boot_engine(&p);
        assert_eq!(e.alloc_pages(GFP_KERNEL, 10, 0, 1, false), Some(0));
        assert_eq!((e.zone.pb_mt(0), e.zone.pb_mt(1)), (U, U));
        e.split_page(0, 10);
        let pages: Vec<u32> = (3..24).chain(32..64).chain([70]).collect();
        let area = buddyscope::mm::VmArea {
            pages: pages.clone(),
            ..Default::default()
        };
        e.log.events.clear();
        let method = kernel.default_free_method();
        e.vfree(&area, method, 0);
        let (allocs, frees) = traced(&evs(&e));
        assert!(allocs.is_empty());
        assert_eq!(
            frees, pages,
            "{kernel:?}: one mm_page_free order=0 per page"
        );
        let chunked = matches!(kernel, Kernel::V7_2 | Kernel::V7_3);
        assert_eq!(method == FreeMethod::Chunked, chunked, "{kernel:?}");
        if chunked {
            assert_eq!(
                chunks(&evs(&e)),
                vec![(3, 0), (4, 2), (8, 3), (16, 3), (32, 5), (70, 0)]
            );
            assert_eq!(e.zone.pcp_list_pfns(0, 0), vec![70, 3]);
            assert_eq!(e.zone.pcp_list_pfns(0, 6), vec![4]);
            assert_eq!(e.zone.pcp_list_pfns(0, 9), vec![16, 8]);
            assert_eq!(e.zone.pcp()[0].count, 22);
            assert_eq!(e.zone.free_list_pfns(5, U), vec![32]);
        } else {
            assert!(chunks(&evs(&e)).is_empty());
            let mut want = pages.clone();
            want.reverse();
            assert_eq!(e.zone.pcp_list_pfns(0, 0), want, "{kernel:?}");
            assert_eq!(e.zone.pcp()[0].count, 54);
            assert!(e.zone.free_list_pfns(5, U).is_empty());
        }
        e.log.events.clear();
        let mut out = Vec::new();
        assert_eq!(e.alloc_pages_bulk(GFP_KERNEL, 2, 0, 2, &mut out), 2);
        let want = if chunked { vec![70, 3] } else { vec![70, 63] };
        assert_eq!(out, want, "{kernel:?}");
        assert_eq!(traced(&evs(&e)), (vec![], vec![]), "{kernel:?}: untraced");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// v7.3.4 `__alloc_frozen_pages_noprof` adds `alloc_flags_nonblocking(gfp, order) &
/// ALLOC_HIGHATOMIC` to the fast path (mm/page_alloc.c:5456; `alloc_flags_nonblocking` :4527:
/// no `__GFP_DIRECT_RECLAIM`, no `__GFP_NOMEMALLOC`, order > 0 and `__GFP_HIGH`), and
/// `rmqueue_buddy` reserves only for `ALLOC_WMARK_MIN` requests (:3274). v7.2.13 has neither
/// (its fast path is `ALLOC_WMARK_LOW` plus `alloc_flags_nofragment`, :5347-5360).
///
/// By hand: 65536 pages, `min_free_kbytes` 6508 (min 1627, low 2033, high 2439), `batch` 15.
/// 1. Seven GFP_KERNEL order-1 allocations: the first claims order-10 block 0 (pageblocks 0, 1
///    Unmovable) and the refill leaves 2..=12 on pcp list 3; the next six empty it.
/// 2. 62 order-10 Movable allocations: 2034 free (block 0's rest 1010 + one order-10 block).
/// 3. GFP_ATOMIC order 1: the fast path fails low (2034 − 1 = 2033 ≤ 2033; on 7.3 too:
///    `ALLOC_HIGHATOMIC` counts the highatomic pages, 0, and lowers no mark). The slow path
///    (`ALLOC_WMARK_MIN | ALLOC_HIGHATOMIC`): `__rmqueue_pcplist` returns NULL for the empty
///    list, `rmqueue_buddy` takes 14/o1 and reserves pageblock 0 on every 7.x: 16/o4, 32/o5,
///    64/o6, 128/o7, 256/o8 move to HighAtomic (496 pages); 512/o9 (pageblock 1) stays.
/// 4. The last order-10 Movable block is freed: 3056 free.
/// 5. GFP_ATOMIC order 1 again. 7.2: fast path (3056 − 1 − 496 = 2559 > high 2439), pcp list 3
///    is refilled by `rmqueue_bulk` from 512/o9 and hands out 512. 7.3: the fast path has
///    `ALLOC_HIGHATOMIC` (3055 > 2439), `__rmqueue_pcplist` returns NULL without a refill,
///    `rmqueue_buddy` takes `__rmqueue_smallest(1, HIGHATOMIC)`: 16/o4, split into 16 (returned),
///    18/o1, 20/o2, 24/o3 on the HighAtomic lists; no new reservation (`ALLOC_WMARK_LOW`).
#[test]
fn v7_3_fast_path_atomic_takes_the_highatomic_reserve() {
    for kernel in [Kernel::V7_2, Kernel::V7_3] {
        let mut p = ZoneParams::new(65536);
        p.kernel = kernel;
        p.batch = Some(15);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        p.min_free_kbytes = Some(6508);
        let mut e = boot_engine(&p);
        assert_eq!(e.alloc_pages(GFP_KERNEL, 1, 0, 1, false), Some(0));
        assert_eq!(e.zone.pcp_list_pfns(0, 3), vec![2, 4, 6, 8, 10, 12]);
        for (i, want) in [2, 4, 6, 8, 10, 12].into_iter().enumerate() {
            assert_eq!(
                e.alloc_pages(GFP_KERNEL, 1, 0, 2 + i as u32, false),
                Some(want)
            );
        }
        assert!(e.zone.pcp_list_pfns(0, 3).is_empty());
        let mut last = 0;
        for i in 0..62 {
            last = e
                .alloc_pages(GFP_HIGHUSER_MOVABLE, 10, 0, 10 + i, true)
                .unwrap();
        }
        assert_eq!(e.zone.nr_free_pages(), 2034, "{kernel:?}");
        assert_eq!(e.alloc_pages(GFP_ATOMIC, 1, 0, 100, false), Some(14));
        assert_eq!(e.zone.pb_mt(0), H, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(1), U, "{kernel:?}");
        for (order, pfn) in [(4, 16), (5, 32), (6, 64), (7, 128), (8, 256)] {
            assert_eq!(e.zone.free_list_pfns(order, H), vec![pfn], "{kernel:?}");
        }
        e.free_pages(last, 10, 0);
        assert_eq!(e.zone.nr_free_pages(), 3056, "{kernel:?}");
        e.log.events.clear();
        let got = e.alloc_pages(GFP_ATOMIC, 1, 0, 101, false);
        assert_eq!(traced(&evs(&e)).0, vec![got]);
        if kernel == Kernel::V7_3 {
            assert_eq!(got, Some(16));
            assert!(e.zone.free_list_pfns(4, H).is_empty());
            for (order, pfn) in [(1, 18), (2, 20), (3, 24)] {
                assert_eq!(e.zone.free_list_pfns(order, H), vec![pfn]);
            }
            assert!(e.zone.pcp_list_pfns(0, 3).is_empty(), "no refill");
            assert_eq!(e.zone.free_list_pfns(9, U), vec![512]);
        } else {
            assert_eq!(got, Some(512));
            assert_eq!(e.zone.free_list_pfns(4, H), vec![16]);
            assert!(!e.zone.pcp_list_pfns(0, 3).is_empty(), "refilled");
        }
        assert_eq!(e.zone.pb_mt(1), U, "{kernel:?}: no second reservation");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// `free_high` (a run of high-order frees without allocations) in v6.12.117's
/// `free_unref_page_commit` (mm/page_alloc.c:2696-2700) needs `pcp->free_count >= batch`;
/// v6.18.2's `free_frozen_page_commit` (:2810) and later need `free_count >= batch + high_min /
/// 2`. With `free_high`, `nr_pcp_high` returns 0 and `nr_pcp_free` = min(count, batch << 5):
/// the whole pcp goes back to the buddy.
///
/// By hand: 4096 pages, `batch` 8, `high_min` 64, `high_max` 1024. Five order-1 Movable
/// allocations (`rmqueue_pcplist` halves `free_count`, 0 → 0), then their frees: free k adds 2
/// to `free_count` after the check, so the fifth free sees 8 and `PCPF_PREV_FREE_HIGH_ORDER`
/// (set by the first) and `count >= batch` (`PCPF_FREE_HIGH_BATCH`): on 6.12 the pcp is
/// drained to 0; on 6.18+ 8 < 8 + 32, nothing is drained and `count` has grown by 10.
#[test]
fn v6_12_free_high_needs_only_batch() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        p.batch = Some(8);
        p.high_min = Some(64);
        p.high_max = Some(1024);
        p.min_free_kbytes = Some(0);
        let mut e = boot_engine(&p);
        let pfns: Vec<u32> = (0..5)
            .map(|i| {
                e.alloc_pages(GFP_HIGHUSER_MOVABLE, 1, 0, i + 1, true)
                    .unwrap()
            })
            .collect();
        assert_eq!(e.zone.pcp()[0].free_count, 0);
        let before = e.zone.pcp()[0].count;
        for &pfn in &pfns[..4] {
            e.free_pages(pfn, 1, 0);
        }
        assert_eq!(e.zone.pcp()[0].count, before + 8, "{kernel:?}");
        assert_eq!(e.zone.pcp()[0].free_count, 8, "{kernel:?}");
        e.free_pages(pfns[4], 1, 0);
        let want = if kernel == Kernel::V6_12 {
            0
        } else {
            before + 10
        };
        assert_eq!(e.zone.pcp()[0].count, want, "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}

/// `/proc/zoneinfo` of 6.12 (v6.12.117 mm/vmstat.c `zoneinfo_show_print`, `vmstat_text`): the
/// zone items have no `nr_free_pages_blocks` (added in 6.18 with NR_FREE_PAGES_BLOCKS) and
/// still `nr_bounce` after `nr_mlock`; each CPU prints `count: %i`, `high:  %i`, `batch: %i`
/// only (6.18: `count:    %i` … `high_min: %i`, `high_max: %i`); no `reserved_highatomic`
/// lines (6.19+). `%-12s` pads `nr_bounce` to `nr_bounce   ` plus the separating space.
#[test]
fn v6_12_zoneinfo_format() {
    let mut p = ZoneParams::new(4096);
    p.kernel = Kernel::V6_12;
    p.batch = Some(8);
    p.high_min = Some(64);
    p.high_max = Some(1024);
    p.min_free_kbytes = Some(0);
    let e = boot_engine(&p);
    let text = buddyscope::scenario::procfs::zoneinfo(&e.zone);
    let lines: Vec<&str> = text.lines().collect();
    let from = lines
        .iter()
        .position(|l| l.starts_with("      nr_free_pages "))
        .unwrap();
    assert_eq!(
        &lines[from..],
        &[
            "      nr_free_pages 4096",
            "      nr_zone_inactive_anon 0",
            "      nr_zone_active_anon 0",
            "      nr_zone_inactive_file 0",
            "      nr_zone_active_file 0",
            "      nr_zone_unevictable 0",
            "      nr_zone_write_pending 0",
            "      nr_mlock     0",
            "      nr_bounce    0",
            "      nr_zspages   0",
            "      nr_free_cma  0",
            "  pagesets",
            "    cpu: 0",
            "              count: 0",
            "              high:  0",
            "              batch: 8",
            "  vm stats threshold: 2",
            "  node_unreclaimable:  0",
            "  start_pfn:           0",
        ][..]
    );
}

/// Un-isolation on 6.12: v6.12.117 `alloc_contig_range_noprof` (mm/page_alloc.c:6682) isolates
/// with `start_isolate_page_range(start, end, migratetype, …)`, which sets the pageblock's type
/// to `MIGRATE_ISOLATE` (`move_freepages_block_isolate`), and ends with
/// `undo_isolate_page_range(start, end, migratetype)` → `unset_migratetype_isolate(page,
/// migratetype)` (mm/page_isolation.c:205-262): the pageblock gets the caller's type
/// (`MIGRATE_MOVABLE` from `alloc_contig_pages`), whatever it was. 6.16+ keep the type under
/// the standalone `PB_migrate_isolate` bit (v6.18.2 `toggle_pageblock_isolate`).
///
/// By hand: 4096 pages; GFP_KERNEL order 10 at 0 claims pageblocks 0 and 1 (Unmovable) and is
/// freed again (order 10: `__free_pages_ok`, onto the Unmovable list). `alloc_contig_range(0,
/// 512)`: nothing unmovable in pageblock 0; its isolation splits the order-10 block
/// (`split_large_buddy`: 0/o9 Isolate, 512/o9 Unmovable); the range is taken; the undo leaves
/// pageblock 0 Movable on 6.12 and Unmovable on 6.18; pageblock 1 Unmovable on both.
#[test]
fn v6_12_unisolate_sets_the_callers_migratetype() {
    for kernel in Kernel::ALL {
        let mut p = ZoneParams::new(4096);
        p.kernel = kernel;
        let mut e = boot_engine(&p);
        assert_eq!(e.alloc_pages(GFP_KERNEL, 10, 0, 1, false), Some(0));
        e.free_pages(0, 10, 0);
        assert_eq!((e.zone.pb_mt(0), e.zone.pb_mt(1)), (U, U));
        assert!(e.alloc_contig_range(0, 512, 2));
        let want = if kernel == Kernel::V6_12 { M } else { U };
        assert_eq!(e.zone.pb_mt(0), want, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(1), U, "{kernel:?}");
        assert_eq!(e.zone.free_list_pfns(9, U), vec![512], "{kernel:?}");
        buddyscope::mm::check_invariants(&e.zone).unwrap();
    }
}
