//! Golden tests: every worked example of kernel-model.md, run through the engine.

use buddyscope::mm::{
    boot_engine, check_invariants, gfp::*, order_to_pindex, Annotation, Engine, Mutation,
    Tracepoint, ZoneParams, *,
};

fn fresh_1g() -> Engine {
    boot_engine(&ZoneParams::new(262144))
}

const U: MigrateType = MigrateType::Unmovable;
const M: MigrateType = MigrateType::Movable;

/// §2.11: the first GFP_KERNEL order-0 allocation of a fresh 1 GiB zone.
#[test]
fn first_unmovable_allocation_claims_block_0_and_refills_63() {
    let mut e = fresh_1g();
    assert_eq!(e.zone().free_list_pfns(10, M).len(), 256);
    let p = e.alloc_pages(GFP_KERNEL, 0, 0, 1, false);
    assert_eq!(p, Some(0));
    let pcp = &e.zone().pcp()[0];
    assert_eq!(pcp.high, 7103);
    assert_eq!(pcp.alloc_factor, 1);
    assert_eq!(pcp.count, 62);
    assert_eq!(
        e.zone().pcp_list_pfns(0, order_to_pindex(U, 0)),
        (1..63).collect::<Vec<_>>()
    );
    assert_eq!(e.zone().free_list_pfns(0, U), vec![63]);
    for (o, pfn) in [(6, 64), (7, 128), (8, 256), (9, 512)] {
        assert_eq!(e.zone().free_list_pfns(o, U), vec![pfn], "order {o}");
    }
    assert_eq!(e.zone().pb_mt(0), U);
    assert_eq!(e.zone().pb_mt(1), U);
    assert_eq!(e.zone().pb_mt(2), M);
    // The extfrag trace: alloc_order 0, fallback_order 10, change_ownership 1.
    let extfrag: Vec<_> = e
        .log
        .events
        .iter()
        .filter_map(|ev| match ev.kind().annotation() {
            Some(Annotation::Trace(t @ Tracepoint::MmPageAllocExtfrag { .. })) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(
        extfrag,
        vec![Tracepoint::MmPageAllocExtfrag {
            pfn: 0,
            alloc_order: 0,
            fallback_order: 10,
            alloc_mt: U,
            fallback_mt: M,
            change_ownership: true
        }]
    );
    check_invariants(e.zone()).unwrap();

    // Then __free_pages(pfn 0): front of the same pcp list, count 63, no drain.
    e.free_pages(0, 0, 0);
    assert_eq!(e.zone().pcp()[0].count, 63);
    assert_eq!(e.zone().pcp_list_pfns(0, 0), (0..63).collect::<Vec<_>>());
    check_invariants(e.zone()).unwrap();
}

/// §3.8: draining that pcp merges everything back into 0/o10 at the head of the Unmovable
/// list; pageblocks 0 and 1 stay Unmovable.
#[test]
fn draining_the_pcp_merges_back_to_order_10() {
    let mut e = fresh_1g();
    e.alloc_pages(GFP_KERNEL, 0, 0, 1, false).unwrap();
    e.free_pages(0, 0, 0);
    e.log.events.clear();
    e.drain_pages_zone(0);
    assert_eq!(e.zone().pcp()[0].count, 0);
    assert_eq!(e.zone().free_list_pfns(10, U), vec![0]);
    assert_eq!(e.zone().free_list_pfns(10, M).len(), 255);
    assert_eq!(e.zone().free_list_pfns(10, M)[0], 1024);
    assert_eq!(e.zone().pb_mt(0), U);
    assert_eq!(e.zone().pb_mt(1), U);
    for o in 0..10 {
        assert!(e.zone().free_list_pfns(o, U).is_empty(), "order {o}");
    }
    // Placement of the first blocks: 62 merges with 63 → 62/o1 head; 61 → tail; …
    let adds: Vec<(u32, u8, bool)> = e
        .log
        .events
        .iter()
        .filter_map(|ev| match ev.kind().mutation() {
            Some(Mutation::FreeListAdd {
                pfn, order, end, ..
            }) => Some((pfn, order, end == buddyscope::mm::End::Tail)),
            _ => None,
        })
        .collect();
    assert_eq!(
        &adds[..7],
        &[
            (62, 1, false),
            (61, 0, true),
            (60, 2, false),
            (59, 0, false),
            (58, 1, true),
            (57, 0, true),
            (56, 3, false)
        ]
    );
    check_invariants(e.zone()).unwrap();
}

/// §5.4 (new behaviour): pfn=1000, n=100 → 1000/o3 pcp, 1008/o4 buddy, 1024/o6 buddy,
/// 1088/o3 pcp, 1096/o2 pcp; 100 mm_page_free order=0 first.
#[test]
fn chunked_free_of_an_unaligned_range() {
    let mut p = ZoneParams::new(262144);
    p.kernel = Kernel::V7_2;
    let mut e = boot_engine(&p);
    assert!(e.alloc_contig_range(1000, 100, 7));
    check_invariants(e.zone()).unwrap();
    e.log.events.clear();
    e.free_contig_range_chunked(1000, 100, 0);
    let frees: Vec<(u32, u8)> = e
        .log
        .events
        .iter()
        .filter_map(|ev| match ev.kind().annotation() {
            Some(Annotation::Trace(Tracepoint::MmPageFree { pfn, order })) => Some((pfn, order)),
            _ => None,
        })
        .collect();
    assert_eq!(frees, (1000..1100).map(|p| (p, 0)).collect::<Vec<_>>());
    let chunks: Vec<(u32, u8)> = e
        .log
        .events
        .iter()
        .filter_map(|ev| match ev.kind().annotation() {
            Some(Annotation::Chunk { pfn, order }) => Some((pfn, order)),
            _ => None,
        })
        .collect();
    assert_eq!(
        chunks,
        vec![(1000, 3), (1008, 4), (1024, 6), (1088, 3), (1096, 2)]
    );
    // Orders 3 and 2 sit on pcp lists of the pageblock's type (Movable).
    assert_eq!(
        e.zone().pcp_list_pfns(0, order_to_pindex(M, 3)),
        vec![1088, 1000]
    );
    assert_eq!(e.zone().pcp_list_pfns(0, order_to_pindex(M, 2)), vec![1096]);
    check_invariants(e.zone()).unwrap();
}

/// §5.1 old behaviour: 100 order-0 frees; the pcp list front ends with 1099.
#[test]
fn per_page_free_of_an_unaligned_range() {
    let mut e = fresh_1g();
    assert!(e.alloc_contig_range(1000, 100, 7));
    e.free_contig_range_per_page(1000, 100, 0);
    let l = e.zone().pcp_list_pfns(0, order_to_pindex(M, 0));
    assert_eq!(l.len(), 100);
    assert_eq!(l[0], 1099);
    assert_eq!(l[99], 1000);
    check_invariants(e.zone()).unwrap();
}

/// Order attempts of the page-array vmalloc and of the data pages.
type Attempts = (Vec<(u8, bool)>, Vec<(u8, bool)>);

fn vmalloc_orders(kernel: Kernel, pages: u32) -> Attempts {
    let mut p = ZoneParams::new(262144);
    p.kernel = kernel;
    let mut e = boot_engine(&p);
    let (area, ok) = e.vmalloc(
        pages,
        kernel.default_vmalloc_strategy(),
        0,
        3,
        buddyscope::mm::VMALLOC_GFP,
    );
    assert!(ok);
    assert_eq!(area.pages.len() as u32, pages);
    check_invariants(e.zone()).unwrap();
    let arr = area.array.map(|a| a.attempts).unwrap_or_default();
    (arr, area.attempts)
}

/// §6.5: orders requested by vmalloc (6.19+).
#[test]
fn vmalloc_large_order_worked_examples() {
    let large = |v: Vec<(u8, bool)>| -> Vec<u8> { v.into_iter().map(|(o, _)| o).collect() };
    assert_eq!(large(vmalloc_orders(Kernel::V7_1, 5).1), vec![2, 0]);
    assert_eq!(large(vmalloc_orders(Kernel::V7_1, 50).1), vec![5, 4, 1]);
    assert_eq!(large(vmalloc_orders(Kernel::V7_1, 512).1), vec![9]);
    let (arr, data) = vmalloc_orders(Kernel::V7_1, 1000);
    assert_eq!(large(arr), vec![1]);
    assert_eq!(large(data), vec![9, 8, 7, 6, 5, 3]);
}

/// §6.5 fresh-zone illustration: vmalloc(50) gets B…B+49 and 30 order-1 blocks stay on the pcp.
#[test]
fn vmalloc_50_on_a_fresh_zone() {
    let mut p = ZoneParams::new(262144);
    p.kernel = Kernel::V7_1;
    let mut e = boot_engine(&p);
    let (area, ok) = e.vmalloc(
        50,
        VmallocStrategy::LargeOrder,
        0,
        3,
        buddyscope::mm::VMALLOC_GFP,
    );
    assert!(ok);
    let b = area.pages[0];
    assert_eq!(area.pages, (b..b + 50).collect::<Vec<_>>());
    let l = e.zone().pcp_list_pfns(0, order_to_pindex(U, 1));
    assert_eq!(l.len(), 30);
    assert_eq!(l[0], b + 50);
    assert_eq!(*l.last().unwrap(), b + 108);
}

/// §6.5 failure example: no free block ≥ order 4, order-3 blocks exist:
/// [5✗, 4✗, 3, 3, 3, 3, 3, 3, 1].
#[test]
fn vmalloc_steps_down_and_never_back_up() {
    let mut p = ZoneParams::new(65536);
    p.kernel = Kernel::V7_1;
    p.min_free_kbytes = Some(512);
    let mut e = boot_engine(&p);
    // Take everything, then free only order-3 blocks (every other one so they cannot merge).
    assert!(e.alloc_contig_range(0, 65536, 9));
    for i in 0..64u32 {
        let pfn = i * 16;
        e.free_contig_range_chunked(pfn, 8, 0);
    }
    e.drain_pages_zone(0);
    assert!(e.zone().nr_free()[3] >= 64);
    assert_eq!(e.zone().nr_free()[4..].iter().sum::<u64>(), 0);
    let (area, ok) = e.vmalloc(
        50,
        VmallocStrategy::LargeOrder,
        0,
        3,
        buddyscope::mm::VMALLOC_GFP,
    );
    assert!(ok);
    let large: Vec<(u8, bool)> = area.attempts.iter().copied().filter(|a| a.0 > 0).collect();
    assert_eq!(
        large,
        vec![
            (5, false),
            (4, false),
            (3, true),
            (3, true),
            (3, true),
            (3, true),
            (3, true),
            (3, true),
            (1, true)
        ]
    );
    check_invariants(e.zone()).unwrap();
}
