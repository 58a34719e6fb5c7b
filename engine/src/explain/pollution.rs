//! Mixed pageblocks: a pageblock of one migratetype holding pages of another. The kernel
//! re-types a pageblock only when a fallback claims it (`__rmqueue_claim` →
//! `try_to_claim_block`, v7.2.13 mm/page_alloc.c); a steal (`__rmqueue_steal`) takes a block
//! off another type's free list and leaves the pageblock's type as it was, so from then on a
//! block of type A holds pages allocated as type B. `/proc/pagetypeinfo` counts blocks by type
//! only ("limited by not having information on mixed pageblocks"); this counts the mixing.
//!
//! A page is of type B when it is allocated with B (its owner's request), or free on a B list
//! (a free_area list or a pcp list). Isolated blocks are left out: their type is a transient
//! mark over pages of the type they had.

use crate::mm::*;
use crate::mm::{Node, Zone, NO_OWNER};
use crate::run::replay::TracedAllocs;
use crate::run::Run;
use serde::Serialize;
use std::collections::HashMap;

/// One pageblock holding pages of another type than its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MixedBlock {
    /// The zone's name and the block's index in it.
    pub zone: String,
    /// The pageblock's index in the zone.
    pub pageblock: u32,
    /// Absolute pfn of its first page.
    pub start_pfn: Pfn,
    /// The pageblock's migratetype (`get_pageblock_migratetype`).
    pub mt: MigrateType,
    /// Its pages of each other type, allocated or free, indexed by [`MigrateType::idx`].
    pub allocated: [u32; 6],
    /// Its free pages of each other type, indexed the same way.
    pub free: [u32; 6],
}

impl MixedBlock {
    /// Pages of another type than the block's, allocated and free.
    pub fn foreign(&self) -> u32 {
        self.allocated.iter().sum::<u32>() + self.free.iter().sum::<u32>()
    }
}

/// The migratetype of the list of every block on a pcp list of `z`, by its head.
pub(crate) fn pcp_heads(z: &Zone) -> HashMap<ZonePfn, MigrateType> {
    let mut m = HashMap::new();
    for cpu in 0..z.pcp().len() {
        for pindex in 0..NR_PCP_LISTS {
            let mt = crate::mm::pindex_to_mt(pindex);
            for head in z.pcp_list_pfns(cpu, pindex) {
                m.insert(head, mt);
            }
        }
    }
    m
}

/// The migratetype page `idx` of `z` is of now: free on a list of that type (a `free_area`
/// list, or a pcp list: `pcp` is [`pcp_heads`] of `z`), or allocated with it; `None` for a page
/// nobody holds that is on no list (reserved, or a hole).
pub fn page_mt(
    run: &Run,
    z: &Zone,
    pcp: &HashMap<ZonePfn, MigrateType>,
    idx: ZonePfn,
) -> Option<MigrateType> {
    match z.block_containing(idx) {
        Some((head, _, true)) => pcp.get(&head).copied(),
        Some((head, _, false)) => Some(z.list_mt_of(head)),
        None => match z.page_owner(idx) {
            NO_OWNER => None,
            o => run.owner_mt(o),
        },
    }
}

/// A page of type `page` is foreign in a pageblock of type `block`: of another type, and
/// neither of them isolated. An isolated pageblock is outside the allocator for a while, and
/// `__move_freepages_block_isolate` moves a block's free pages to the Isolate list just before
/// it sets the pageblock's isolate bit (and back just before clearing it): no mixing.
pub(crate) fn foreign_in(page: Option<MigrateType>, block: MigrateType) -> bool {
    block != MigrateType::Isolate && page.is_some_and(|p| p != block && p != MigrateType::Isolate)
}

/// Every mixed pageblock of `node` (a state of `run`), zone by zone in pfn order.
pub fn mixed_pageblocks(run: &Run, node: &Node) -> Vec<MixedBlock> {
    let mut out = Vec::new();
    for z in node.zones() {
        let pcp = pcp_heads(z);
        for pb in 0..z.nr_pageblocks() {
            let mt = z.pb_mt(pb);
            if mt == MigrateType::Isolate {
                continue;
            }
            let start = pb << PAGEBLOCK_ORDER;
            let end = (start + PAGEBLOCK_NR_PAGES).min(z.pages());
            let (mut allocated, mut free) = ([0u32; 6], [0u32; 6]);
            for idx in start..end {
                let p = page_mt(run, z, &pcp, idx);
                let Some(p) = p.filter(|_| foreign_in(p, mt)) else {
                    continue;
                };
                let on_list = z.block_containing(idx).is_some();
                if on_list {
                    free[p.idx()] += 1;
                } else {
                    allocated[p.idx()] += 1;
                }
            }
            let b = MixedBlock {
                zone: z.cfg().name.clone(),
                pageblock: pb,
                start_pfn: z.abs_pfn(start),
                mt,
                allocated,
                free,
            };
            if b.foreign() > 0 {
                out.push(b);
            }
        }
    }
    out
}

/// The CLI's `--format mixed_pageblocks`: laid out like `/proc/pagetypeinfo`'s "Number of
/// blocks type" table, per zone and block type: how many blocks are mixed, then the foreign
/// pages they hold by type, then one line per mixed block.
pub fn text(node: &Node, blocks: &[MixedBlock]) -> String {
    let types = MigrateType::kernel_types(node.active().cfg().cma);
    let pad = |s: &str, w: usize| format!("{s:>w$}");
    let mut s = format!("{:<31}", "Number of mixed blocks type ");
    for &mt in &types {
        s.push_str(&format!("{} ", pad(mt.kernel_name(), 12)));
    }
    s.push('\n');
    for z in node.zones() {
        s.push_str(&format!("Node 0, zone {}         ", pad(&z.cfg().name, 8)));
        for &mt in &types {
            let n = blocks
                .iter()
                .filter(|b| b.zone == z.cfg().name && b.mt == mt)
                .count();
            s.push_str(&format!("{n:>12} "));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "\n{:<44}",
        "Foreign pages (allocated+free) of page type "
    ));
    for &mt in &types {
        s.push_str(&format!("{} ", pad(mt.kernel_name(), 12)));
    }
    s.push('\n');
    for z in node.zones() {
        for &bt in &types {
            let mine: Vec<&MixedBlock> = blocks
                .iter()
                .filter(|b| b.zone == z.cfg().name && b.mt == bt)
                .collect();
            if mine.is_empty() {
                continue;
            }
            s.push_str(&format!(
                "Node 0, zone {}, blocks {} ",
                pad(&z.cfg().name, 8),
                pad(bt.kernel_name(), 11)
            ));
            for &pt in &types {
                let (a, f) = mine.iter().fold((0, 0), |(a, f), b| {
                    (a + b.allocated[pt.idx()], f + b.free[pt.idx()])
                });
                s.push_str(&format!("{} ", pad(&format!("{a}+{f}"), 12)));
            }
            s.push('\n');
        }
    }
    if !blocks.is_empty() {
        s.push('\n');
    }
    for b in blocks {
        let by: Vec<String> = MigrateType::ALL
            .iter()
            .filter(|t| b.allocated[t.idx()] + b.free[t.idx()] > 0)
            .map(|t| {
                format!(
                    "{} {} allocated {} free",
                    t.kernel_name(),
                    b.allocated[t.idx()],
                    b.free[t.idx()]
                )
            })
            .collect();
        s.push_str(&format!(
            "zone {} pageblock {} (pfn {:#x}) {}: {}\n",
            b.zone,
            b.pageblock,
            b.start_pfn,
            b.mt.kernel_name(),
            by.join(", ")
        ));
    }
    s
}

/// Who holds the foreign pages of mixed pageblocks: one row per holder (a scenario's op, or a
/// replay's `comm-pid`, gfp flags and order), block type and page type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Polluter {
    /// The holder, in words.
    pub holder: String,
    /// The pageblocks' type and the holder's.
    pub block_mt: MigrateType,
    /// The type the holder allocated with.
    pub page_mt: MigrateType,
    /// Pages it holds in blocks of `block_mt`, and in how many blocks.
    pub pages: u32,
    /// Blocks of `block_mt` it holds pages in.
    pub blocks: u32,
}

/// The holder of allocated page `idx` of `z`: the traced task for a replay, else the op.
fn holder(run: &Run, traced: Option<&TracedAllocs>, owner: u32) -> String {
    if let Some((t, a)) = traced.and_then(|t| t.by_owner(owner).map(|a| (t, a))) {
        return format!(
            "{} gfp={} order={}",
            t.task(a).unwrap_or("(no task column)"),
            gfp::format(a.gfp),
            a.order
        );
    }
    run.owner_label(owner)
}

/// The holders of the allocated foreign pages of `node`'s mixed pageblocks, most pages first.
pub fn polluters(run: &Run, node: &Node, traced: Option<&TracedAllocs>) -> Vec<Polluter> {
    let mut rows: Vec<(Polluter, Vec<(String, u32)>)> = Vec::new();
    for b in mixed_pageblocks(run, node) {
        if b.allocated.iter().all(|&n| n == 0) {
            continue;
        }
        let zi = node.zone_named(&b.zone).expect("a zone of the node");
        let z = node.zone(zi);
        let start = z.zone_pfn(b.start_pfn);
        let end = (start + PAGEBLOCK_NR_PAGES).min(z.pages());
        for idx in start..end {
            if z.block_containing(idx).is_some() {
                continue;
            }
            let owner = z.page_owner(idx);
            if owner == NO_OWNER {
                continue;
            }
            let Some(pt) = run.owner_mt(owner) else {
                continue;
            };
            if pt == b.mt {
                continue;
            }
            let h = holder(run, traced, owner);
            let i = match rows
                .iter()
                .position(|(p, _)| p.holder == h && p.block_mt == b.mt && p.page_mt == pt)
            {
                Some(i) => i,
                None => {
                    rows.push((
                        Polluter {
                            holder: h,
                            block_mt: b.mt,
                            page_mt: pt,
                            pages: 0,
                            blocks: 0,
                        },
                        Vec::new(),
                    ));
                    rows.len() - 1
                }
            };
            let (p, seen) = &mut rows[i];
            p.pages += 1;
            let key = (b.zone.clone(), b.pageblock);
            if !seen.contains(&key) {
                seen.push(key);
                p.blocks += 1;
            }
        }
    }
    let mut out: Vec<Polluter> = rows.into_iter().map(|(p, _)| p).collect();
    out.sort_by(|a, b| b.pages.cmp(&a.pages).then_with(|| a.holder.cmp(&b.holder)));
    out
}

/// The CLI's `--format polluters`: a row per holder of foreign pages in mixed pageblocks.
pub fn polluters_text(rows: &[Polluter]) -> String {
    let mut s = format!(
        "{:>6} {:>7} {:<12} {:<12} holder\n",
        "pages", "blocks", "page type", "in blocks"
    );
    for p in rows {
        s.push_str(&format!(
            "{:>6} {:>7} {:<12} {:<12} {}\n",
            p.pages,
            p.blocks,
            p.page_mt.kernel_name(),
            p.block_mt.kernel_name(),
            p.holder
        ));
    }
    if rows.is_empty() {
        s.push_str("(no allocated page in a pageblock of another type)\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fallback-steal's 30 order-0 Unmovable steals from Movable blocks: the blocks stay
    /// Movable (no claim) and now hold those 30 Unmovable pages, allocated or cached on the
    /// Unmovable pcp list that `rmqueue_bulk` filled; before the first steal no block is mixed.
    #[test]
    fn fallback_steal_leaves_movable_blocks_holding_unmovable_pages() {
        let b = crate::scenario::builtin::get("fallback-steal").unwrap();
        let run = crate::scenario::parse_valid(b.json())
            .and_then(|s| crate::run::Runner::new(s).run())
            .unwrap();
        let blocks = mixed_pageblocks(&run, &run.final_node);
        assert!(!blocks.is_empty());
        let mut unmovable = 0;
        for b in &blocks {
            assert_eq!(b.mt, MigrateType::Movable, "{b:?}");
            unmovable +=
                b.allocated[MigrateType::Unmovable.idx()] + b.free[MigrateType::Unmovable.idx()];
            assert_eq!(b.foreign(), b.allocated[0] + b.free[0], "{b:?}");
        }
        assert_eq!(unmovable, 30);
        assert!(mixed_pageblocks(&run, &run.initial).is_empty());
        // The allocated ones are the ops' Unmovable requests, in the Movable block.
        let p = polluters(&run, &run.final_node, None);
        let allocated: u32 = blocks.iter().map(|b| b.allocated[0]).sum();
        assert_eq!(p.iter().map(|p| p.pages).sum::<u32>(), allocated);
        assert!(p.iter().all(|p| p.page_mt == MigrateType::Unmovable
            && p.block_mt == MigrateType::Movable
            && p.blocks == 1));
    }
}
