//! Golden tests for the second fidelity pass (issue 9): worked examples computed by hand from the
//! C in `/work/shared/kernel-src/` (function names and versions cited in each test).

use buddyscope::page_alloc::Engine;
use buddyscope::pseudocode::Step;
use buddyscope::setup::{boot_engine, ZoneParams};
use buddyscope::types::gfp::*;
use buddyscope::types::*;

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
        buddyscope::metrics::check_invariants(&e.zone).unwrap();
    }
}

/// `reserve_highatomic_pageblock` takes the zone lock itself in every version (v6.18.2: called
/// from `get_page_from_freelist`; v7.1.5 mm/page_alloc.c:3441 `spin_lock_irqsave(&zone->lock,
/// flags)`, called from `rmqueue_buddy` after its `spin_unlock_irqrestore`). Before issue 9 the
/// model skipped it on 7.x.
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
                    ev.kind.annotation(),
                    Some(buddyscope::events::Annotation::Lock { zone: true, .. })
                )
            })
            .count();
        assert_eq!(zone_locks, 2, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(126), MigrateType::HighAtomic, "{kernel:?}");
        assert_eq!(e.zone.pb_mt(127), MigrateType::Unmovable, "{kernel:?}");
        buddyscope::metrics::check_invariants(&e.zone).unwrap();
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
/// (`rmqueue_bulk` finds 1 of 2) and returns it. Before issue 9 the model failed here.
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
        buddyscope::metrics::check_invariants(&e.zone).unwrap();

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
    for (kernel, locks) in [(Kernel::V6_18, 1), (Kernel::V7_1, 7)] {
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
                    ev.kind.annotation(),
                    Some(buddyscope::events::Annotation::Lock { zone: false, .. })
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
        buddyscope::metrics::check_invariants(&e.zone).unwrap();
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
    buddyscope::setup::boot_node(&[dma32, normal])
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
    use buddyscope::zone::{ZONE_DMA32, ZONE_NORMAL};
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
        buddyscope::page_alloc::gfp_zone(GFP_KERNEL | __GFP_DMA32),
        ZONE_DMA32
    );
}
