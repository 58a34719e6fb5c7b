//! Fragmentation metrics of `mm/vmstat.c` and the invariant checker (kernel-model.md §1.6).

use crate::mm::events::NIL;
use crate::mm::types::*;
use crate::mm::zone::*;
use serde::{Deserialize, Serialize};

/// `struct contig_page_info` for one order (`fill_contig_page_info`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ContigPageInfo {
    pub free_pages: u64,
    pub free_blocks_total: u64,
    pub free_blocks_suitable: u64,
}

/// `fill_contig_page_info` from `nr_free[]` alone.
pub fn contig_page_info_of(nr_free: &[u64; NR_PAGE_ORDERS], order: u8) -> ContigPageInfo {
    let mut i = ContigPageInfo::default();
    for (o, &n) in nr_free.iter().enumerate() {
        i.free_blocks_total += n;
        i.free_pages += n << o;
        if o >= order as usize {
            i.free_blocks_suitable += n << (o - order as usize);
        }
    }
    i
}

/// `__fragmentation_index` in thousandths: -1000 when a block of `order` is free (the index
/// only makes sense for a request that would fail), 0 no free memory … 1000 all fragmentation.
pub fn fragmentation_index(z: &Zone, order: u8) -> i64 {
    fragmentation_index_of(&z.nr_free, order)
}

/// [`fragmentation_index`] from `nr_free[]` (for charts over recorded ops).
pub fn fragmentation_index_of(nr_free: &[u64; NR_PAGE_ORDERS], order: u8) -> i64 {
    let info = contig_page_info_of(nr_free, order);
    if info.free_blocks_total == 0 {
        return 0;
    }
    if info.free_blocks_suitable > 0 {
        return -1000;
    }
    let requested = 1u64 << order;
    1000 - ((1000 + info.free_pages * 1000 / requested) / info.free_blocks_total) as i64
}

/// `unusable_free_index` in thousandths: the share of free memory unusable for `order`.
pub fn unusable_free_index(z: &Zone, order: u8) -> i64 {
    unusable_free_index_of(&z.nr_free, order)
}

/// [`unusable_free_index`] from `nr_free[]`.
pub fn unusable_free_index_of(nr_free: &[u64; NR_PAGE_ORDERS], order: u8) -> i64 {
    let info = contig_page_info_of(nr_free, order);
    if info.free_pages == 0 {
        return 1000;
    }
    ((info.free_pages - (info.free_blocks_suitable << order)) * 1000 / info.free_pages) as i64
}

/// Free pages in the buddy per order (`nr_free[o] × 2^o`).
pub fn free_pages_per_order(z: &Zone) -> [u64; NR_PAGE_ORDERS] {
    let mut out = [0; NR_PAGE_ORDERS];
    for (o, v) in out.iter_mut().enumerate() {
        *v = z.nr_free[o] << o;
    }
    out
}

/// Pageblocks holding an allocated page whose allocation migratetype differs from the
/// pageblock's (what page_owner's "Number of mixed blocks" counts). `owner_mt` maps an owner
/// id to its allocation migratetype.
pub fn mixed_pageblocks(z: &Zone, owner_mt: impl Fn(u32) -> Option<MigrateType>) -> u32 {
    let mut mixed = 0;
    for pb in 0..z.nr_pageblocks() {
        let bmt = z.pb_mt(pb);
        let start = pb * PAGEBLOCK_NR_PAGES;
        let end = (start + PAGEBLOCK_NR_PAGES).min(z.pages());
        let mut p = start;
        let mut is_mixed = false;
        while p < end {
            let k = z.mem_map[p as usize].kind;
            if k != PageKind::Other {
                p += 1 << z.mem_map[p as usize].order;
                continue;
            }
            let o = z.mem_map[p as usize].owner;
            if o != NO_OWNER {
                if let Some(mt) = owner_mt(o) {
                    if mt != bmt {
                        is_mixed = true;
                        break;
                    }
                }
            }
            p += 1;
        }
        mixed += is_mixed as u32;
    }
    mixed
}

/// The metrics panel / `summary` figures of a zone state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Free pages in blocks of each order.
    pub free_pages: [u64; NR_PAGE_ORDERS],
    /// `__fragmentation_index` of each order (thousandths).
    pub fragmentation_index: [i64; NR_PAGE_ORDERS],
    pub(crate) unusable_free_index: [i64; NR_PAGE_ORDERS],
    /// Pageblocks holding pages of another type than their own ([`mixed_pageblocks`]).
    pub mixed_pageblocks: u32,
    /// Pages on the pcp lists, every CPU.
    pub pcp_pages: i64,
}

/// The metrics of zone `z`; `owner_mt` gives the type an owner allocated with.
pub fn metrics(z: &Zone, owner_mt: impl Fn(u32) -> Option<MigrateType>) -> Metrics {
    let mut m = Metrics {
        free_pages: free_pages_per_order(z),
        mixed_pageblocks: mixed_pageblocks(z, owner_mt),
        pcp_pages: z.pcp_pages(),
        ..Default::default()
    };
    for o in 0..NR_PAGE_ORDERS {
        m.fragmentation_index[o] = fragmentation_index(z, o as u8);
        m.unusable_free_index[o] = unusable_free_index(z, o as u8);
    }
    m
}

/// Checks the invariants that hold after every operation; returns the first violation.
pub fn check_invariants(z: &Zone) -> Result<(), String> {
    let n = z.pages();
    let mut covered = vec![false; n as usize];
    let mut nr_free_pages = 0i64;
    let mut blocks = 0i64;
    let mut highatomic = 0i64;
    let mut cma = 0i64;
    for o in 0..NR_PAGE_ORDERS {
        let mut total = 0u64;
        for mt in MigrateType::ALL {
            let list = z.free_list(o as u8, mt);
            let pfns: Vec<u32> = z.list_iter(list).collect();
            if pfns.len() as u32 != list.len {
                return Err(format!(
                    "free_list[{o}][{mt:?}] len {} but {} linked",
                    list.len,
                    pfns.len()
                ));
            }
            if list.tail != pfns.last().copied().unwrap_or(NIL) {
                return Err(format!(
                    "free_list[{o}][{mt:?}]: tail {:#x} but the last linked block is {:?}",
                    list.tail,
                    pfns.last()
                ));
            }
            total += pfns.len() as u64;
            for p in pfns {
                if p & ((1 << o) - 1) != 0 || p + (1 << o) > n {
                    return Err(format!(
                        "block {p:#x} order {o} misaligned or outside the zone"
                    ));
                }
                if z.mem_map[p as usize].kind != PageKind::Buddy
                    || z.mem_map[p as usize].order != o as u8
                {
                    return Err(format!(
                        "block {p:#x} on order-{o} list is not a buddy head of that order"
                    ));
                }
                for q in p..p + (1 << o) {
                    if covered[q as usize] {
                        return Err(format!("page {q:#x} is in two free blocks"));
                    }
                    covered[q as usize] = true;
                }
                if z.list_mt_of(p) != mt {
                    return Err(format!(
                        "block {p:#x} is on the {mt:?} list but recorded on {:?}",
                        z.list_mt_of(p)
                    ));
                }
                // Freelist hygiene: a block sits on its pageblock's type list. Not with mobility
                // grouping disabled: there set_pageblock_migratetype() writes UNMOVABLE, so a
                // merge across pageblocks leaves a MOVABLE-typed pageblock inside an Unmovable
                // block or the reverse, as in the kernel (whose debug check warns).
                let first = p >> PAGEBLOCK_ORDER;
                let last = (p + (1 << o) - 1) >> PAGEBLOCK_ORDER;
                for pb in first..=last {
                    if !z.cfg.mobility_disabled && z.pb_mt(pb) != mt {
                        return Err(format!(
                            "order-{o} block {p:#x} on the {mt:?} list but pageblock {pb} is {:?}",
                            z.pb_mt(pb)
                        ));
                    }
                }
                if mt != MigrateType::Isolate {
                    nr_free_pages += 1 << o;
                    if o >= PAGEBLOCK_ORDER as usize {
                        blocks += 1 << o;
                    }
                }
                if mt == MigrateType::HighAtomic {
                    highatomic += 1 << o;
                }
                if mt == MigrateType::Cma {
                    cma += 1 << o;
                }
            }
        }
        if total != z.nr_free[o] {
            return Err(format!(
                "nr_free[{o}] = {} but lists hold {total}",
                z.nr_free[o]
            ));
        }
    }
    if nr_free_pages != z.nr_free_pages {
        return Err(format!(
            "NR_FREE_PAGES {} but lists hold {nr_free_pages}",
            z.nr_free_pages
        ));
    }
    if blocks != z.nr_free_pages_blocks {
        return Err(format!(
            "NR_FREE_PAGES_BLOCKS {} but lists hold {blocks}",
            z.nr_free_pages_blocks
        ));
    }
    if highatomic != z.nr_free_highatomic {
        return Err(format!(
            "nr_free_highatomic {} but lists hold {highatomic}",
            z.nr_free_highatomic
        ));
    }
    if cma != z.nr_free_cma {
        return Err(format!(
            "nr_free_cma {} but the CMA lists hold {cma}",
            z.nr_free_cma
        ));
    }
    for (cpu, pcp) in z.pcp.iter().enumerate() {
        let mut count = 0i64;
        for (i, list) in pcp.lists.iter().enumerate() {
            let o = pindex_to_order(i);
            let pfns: Vec<u32> = z.list_iter(list).collect();
            if pfns.len() as u32 != list.len {
                return Err(format!("cpu {cpu} pcp list {i} len mismatch"));
            }
            if list.tail != pfns.last().copied().unwrap_or(NIL) {
                return Err(format!(
                    "cpu {cpu} pcp list {i}: tail {:#x} but the last linked block is {:?}",
                    list.tail,
                    pfns.last()
                ));
            }
            for p in pfns {
                if z.mem_map[p as usize].kind != PageKind::Pcp || z.mem_map[p as usize].order != o {
                    return Err(format!("pcp block {p:#x} not marked"));
                }
                for q in p..p + (1 << o) {
                    if covered[q as usize] {
                        return Err(format!("page {q:#x} is free twice (pcp)"));
                    }
                    covered[q as usize] = true;
                }
                count += 1 << o;
            }
        }
        if count != pcp.count as i64 {
            return Err(format!(
                "cpu {cpu} pcp count {} but lists hold {count}",
                pcp.count
            ));
        }
    }
    // Page conservation: every page is free (buddy or pcp) or not, exactly once; a free page
    // has no owner and no reference.
    for (p, &cov) in covered.iter().enumerate() {
        if cov && z.mem_map[p].refcount != 0 {
            return Err(format!(
                "free page {p:#x} has refcount {}",
                z.mem_map[p].refcount
            ));
        }
        if !cov && (z.mem_map[p].kind != PageKind::Other) {
            return Err(format!("page {p:#x} marked free but on no list"));
        }
    }
    // Buddies of equal order below 10 only coexist across differing, unmergeable pageblocks.
    for o in 0..MAX_PAGE_ORDER {
        for mt in MigrateType::ALL {
            for p in z.list_iter(z.free_list(o, mt)) {
                let b = p ^ (1 << o);
                if b < n && z.is_buddy(b, o) {
                    let bmt = z.pageblock_mt(b);
                    let ok = o >= PAGEBLOCK_ORDER
                        && bmt != mt
                        && (!bmt.is_mergeable() || !mt.is_mergeable());
                    if !ok {
                        return Err(format!("unmerged buddies {p:#x} and {b:#x} at order {o}"));
                    }
                }
            }
        }
    }
    Ok(())
}
