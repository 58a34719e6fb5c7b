//! Import, step 2: the contract's deterministic layout of a [`ProcImport`] in an empty zone.

use crate::mm::Engine;
use crate::mm::Step;
use crate::mm::*;
use crate::mm::{CounterId, End, Mutation};
use crate::scenario::error::ScenarioError;

/// The types an imported zone may hold, in the kernel order the layout uses (U, M, R, HA,
/// CMA). A text without CMA pageblocks lays out exactly as with the first four alone: a type
/// with no pageblocks places nothing and is never picked as a partial pageblock.
const LAYOUT_TYPES: [MigrateType; 5] = [
    MigrateType::Unmovable,
    MigrateType::Movable,
    MigrateType::Reclaimable,
    MigrateType::HighAtomic,
    MigrateType::Cma,
];

/// What a machine's `/proc` files say about one zone, checked: the layout of
/// [`apply_import`](super::apply_import) exists for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcImport {
    /// The zone size by the contract's rule (`managed`, else `zone.pages`, else Σ pageblocks ×
    /// 512).
    pub pages: u64,
    /// Free blocks per migratetype (`MigrateType::idx`) and order; `>100000` read as 100000.
    pub counts: [[u64; NR_PAGE_ORDERS]; MT_SLOTS],
    /// Pageblocks per migratetype.
    pub blocks: [u64; MT_SLOTS],
    /// The node the zone was read from (the first one that has it in `pagetypeinfo`).
    pub node: u32,
    /// `zoneinfo`'s `managed` for that zone, if `zoneinfo` was given.
    pub managed: Option<u64>,
    /// `batch`, `high_min`, `high_max` of the first CPU listed in `zoneinfo` (for every CPU);
    /// `None` where `zoneinfo` is absent or does not print the field.
    pub batch: Option<i32>,
    /// `high_min` of that CPU (see `batch`).
    pub high_min: Option<i32>,
    /// `high_max` of that CPU (see `batch`).
    pub high_max: Option<i32>,
    /// Initial `high` per simulated CPU, indexed by the CPU number printed after `cpu:`
    /// (CPUs not listed: 0). Empty without `zoneinfo`.
    pub initial_high: Vec<i32>,
    /// Where `pages` came from: the contract's rule, or the fallback for a machine whose
    /// `managed` disagrees with its pageblock count.
    pub size: ZoneSize,
    /// How the free blocks of orders 8..0 are placed.
    pub placement: Placement,
    /// `zoneinfo`'s `start_pfn`, `spanned` and `present` for that zone, if given.
    pub start_pfn: Option<u64>,
    pub(crate) spanned: Option<u64>,
    /// `zoneinfo`'s `present`, if given.
    pub present: Option<u64>,
}

/// Where an imported zone's size came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum ZoneSize {
    /// The contract's rule (`managed`, else `zone.pages`, else Σ pageblocks × 512).
    Contract,
    /// Fallback: `zoneinfo`'s `managed` gives another pageblock count than `pagetypeinfo`
    /// (which counts the pageblocks of present memory; `managed` leaves out reserved pages),
    /// or no layout fits in it; the size is then Σ pageblocks × 512, as without `zoneinfo`.
    Pageblocks {
        /// `zoneinfo`'s `managed`.
        managed: u64,
    },
}

impl ProcImport {
    /// What the import had to assume beyond the contract, one sentence each; empty when the
    /// contract's size rule and layout held.
    pub fn fallbacks(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let ZoneSize::Pageblocks { managed } = self.size {
            out.push(format!(
                "zone size {} pages (the pageblock counts × 512), not zoneinfo's managed {managed}: \
                 /proc/pagetypeinfo counts the pageblocks of present memory, managed leaves out \
                 reserved pages",
                self.pages
            ));
        }
        if self.placement == Placement::Dense {
            out.push(
                "dense placement: the free blocks of orders 8..0 do not fit the contract's \
                 2^(o+1)-page cells (a fragmented machine, or a partial last pageblock), so each \
                 sits at the lowest aligned spot of its type's partial pageblocks whose buddy is \
                 not free"
                    .to_string(),
            );
        }
        out
    }
}

impl ProcImport {
    /// The zone's first pfn in the model: `zoneinfo`'s `start_pfn` rounded down to a multiple of
    /// 1024 (the model keeps MAX_PAGE_ORDER buddies aligned to the zone start; the kernel's
    /// buddies are aligned to absolute pfns, so the rounding moves no block), or `None` without
    /// `zoneinfo`.
    pub fn model_start_pfn(&self) -> Option<u64> {
        self.start_pfn
            .map(|s| s & !(crate::scenario::bounds::ZONE_START_ALIGN - 1))
    }

    /// What the import assumed about where the zone lies, one sentence each (the summary's
    /// "Assumed" list).
    pub fn placement_notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        match (self.start_pfn, self.model_start_pfn()) {
            (Some(s), Some(m)) if s == m => out.push(format!(
                "the zone starts at pfn {s:#x} (zoneinfo's start_pfn)"
            )),
            (Some(s), Some(m)) => out.push(format!(
                "the zone starts at pfn {m:#x}: zoneinfo's start_pfn {s:#x} rounded down to a \
                 multiple of 1024 (the model aligns MAX_PAGE_ORDER blocks to the zone start); \
                 pfns {m:#x}..{s:#x} are not the machine's and stay allocated"
            )),
            _ => out
                .push("without zoneinfo the zone starts at zone.start_pfn (default 0)".to_string()),
        }
        let cma = self.blocks[MigrateType::Cma.idx()];
        if cma > 0 {
            out.push(format!(
                "{cma} CMA pageblocks laid out as any other type (those holding free order-10 \
                 and order-9 blocks first, then the rest together): the counts do not say where \
                 the CMA area lies"
            ));
        }

        if let (Some(spanned), Some(present)) = (self.spanned, self.present) {
            if spanned != present || self.pages != present {
                out.push(format!(
                    "the zone is {} contiguous pages from its start; the machine's zone spans \
                     {spanned} pages with {present} present (holes are not modelled: a pfn \
                     beyond the model's zone is a pfn_outside_zone divergence)",
                    self.pages
                ));
            }
        }
        out
    }

    /// `nr_reserved_highatomic` after the import: 512 × HighAtomic pageblocks.
    pub fn reserved_highatomic(&self) -> u64 {
        self.blocks[MigrateType::HighAtomic.idx()] * u64::from(PAGEBLOCK_NR_PAGES)
    }
}

pub(super) fn perr(message: impl Into<String>, hint: impl Into<String>) -> ScenarioError {
    ScenarioError::new("init.pagetypeinfo", message, hint)
}

/// The deterministic layout (contract, "Layout", steps 1–5).
pub(super) struct Plan {
    /// Pageblock types, in pfn order.
    pb_types: Vec<MigrateType>,
    /// Free blocks (zone-relative pfn, order, type), ascending pfn.
    free: Vec<(u32, u8, MigrateType)>,
}

/// How step 4 places the free blocks of orders 8..0 (the import says which it used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// The contract's layout: each block in a 2^(o+1)-page cell whose lower half is allocated.
    Contract,
    /// The fallback for a machine too fragmented for the cells (or a truncated last
    /// pageblock): each block at the lowest aligned spot of its type's partial pageblocks whose
    /// same-order buddy is not free, largest orders first. Nothing merges either way.
    Dense,
}

pub(super) fn plan(imp: &ProcImport) -> Result<Plan, ScenarioError> {
    plan_with(imp, imp.placement)
}

pub(super) fn plan_with(imp: &ProcImport, placement: Placement) -> Result<Plan, ScenarioError> {
    let pages = imp.pages;
    let pbn = u64::from(PAGEBLOCK_NR_PAGES);
    let nblocks = pages.div_ceil(pbn);
    let total: u64 = imp.blocks.iter().sum();
    if total != nblocks {
        return Err(perr(
            format!("the pageblock counts sum to {total}, but a zone of {pages} pages has {nblocks} pageblocks"),
            format!("make the counts sum to {nblocks} (⌈{pages} / 512⌉), or fix the zone size"),
        ));
    }
    for mt in [MigrateType::Isolate] {
        if imp.blocks[mt.idx()] != 0 || imp.counts[mt.idx()].iter().any(|&c| c != 0) {
            return Err(perr(
                format!(
                    "{} pageblocks or free blocks in the import",
                    mt.kernel_name()
                ),
                format!("set the {} counts to 0", mt.kernel_name()),
            ));
        }
    }
    let name = |t: MigrateType| t.kernel_name();
    // Partial pageblocks per type.
    let mut partial = [0u64; MT_SLOTS];
    for t in LAYOUT_TYPES {
        let c = &imp.counts[t.idx()];
        let need = 2u64.saturating_mul(c[10]).saturating_add(c[9]);
        let have = imp.blocks[t.idx()];
        if need > have {
            return Err(perr(
                format!(
                    "{}: {} free order-10 and {} order-9 blocks need {need} {} pageblocks, but the table has {have}",
                    name(t), c[10], c[9], name(t)
                ),
                "each free order-10 block fills two pageblocks of its type and each order-9 block one; \
                 use counts read from one file at one time",
            ));
        }
        partial[t.idx()] = have - need;
    }
    let mut pb_types: Vec<MigrateType> = Vec::with_capacity(nblocks as usize);
    let mut partial_pbs: [Vec<u32>; MT_SLOTS] = Default::default();
    let mut free: Vec<(ZonePfn, u8, MigrateType)> = Vec::new();
    // Zone-relative page indices are computed in u64 here so that a layout overflowing the
    // zone is reported, not wrapped.
    let room = |page: u64, order: u8| -> Result<(), ScenarioError> {
        if page + (1u64 << order) > pages {
            return Err(perr(
                format!(
                    "no room: a free order-{order} block at page {page} would end beyond the zone's {pages} pages"
                ),
                "the zone's last pageblock is partial; check the zone size (zone.pages, zoneinfo's managed)",
            ));
        }
        Ok(())
    };
    // Step 1: 2·n10 pageblocks per type, each pair one free order-10 block.
    for t in LAYOUT_TYPES {
        for _ in 0..imp.counts[t.idx()][10] {
            let pfn = pb_types.len() as u64 * pbn;
            room(pfn, 10)?;
            free.push((pfn as ZonePfn, 10, t));
            pb_types.push(t);
            pb_types.push(t);
        }
    }
    // Step 2: each order-9 block's pageblock, then one partial pageblock.
    let mut unused = partial;
    for t in LAYOUT_TYPES {
        for k in 0..imp.counts[t.idx()][9] {
            let pfn = pb_types.len() as u64 * pbn;
            room(pfn, 9)?;
            free.push((pfn as ZonePfn, 9, t));
            pb_types.push(t);
            let c = if unused[t.idx()] > 0 {
                t
            } else {
                match LAYOUT_TYPES.into_iter().find(|u| unused[u.idx()] > 0) {
                    Some(u) => u,
                    None => {
                        return Err(perr(
                            format!(
                                "no room: {}'s order-9 free block {} of {} has no partial pageblock left to follow it",
                                name(t),
                                k + 1,
                                imp.counts[t.idx()][9]
                            ),
                            "each free order-9 block is followed by a pageblock that is not entirely free, \
                             so the two never merge; the counts leave none (use counts read from one file at one time)",
                        ));
                    }
                }
            };
            unused[c.idx()] -= 1;
            partial_pbs[c.idx()].push(pb_types.len() as u32);
            pb_types.push(c);
        }
    }
    // Step 3: the remaining partial pageblocks, type by type.
    for t in LAYOUT_TYPES {
        for _ in 0..unused[t.idx()] {
            partial_pbs[t.idx()].push(pb_types.len() as u32);
            pb_types.push(t);
        }
    }
    debug_assert_eq!(pb_types.len() as u64, nblocks);
    if placement == Placement::Dense {
        place_dense(imp, &partial_pbs, &mut free)?;
        free.sort_unstable_by_key(|&(pfn, _, _)| pfn);
        return Ok(Plan { pb_types, free });
    }
    // Step 4: orders 8..0, largest first, in 2^(o+1)-page cells, upper half free.
    for t in LAYOUT_TYPES {
        let pbs = &partial_pbs[t.idx()];
        let mut i = 0usize; // index into pbs
        let mut off = 0u64; // offset in pbs[i]
        for o in (0..PAGEBLOCK_ORDER).rev() {
            let n = imp.counts[t.idx()][o as usize];
            let cell = 2u64 << o;
            for k in 0..n {
                loop {
                    let Some(&pb) = pbs.get(i) else {
                        return Err(perr(
                            format!(
                                "no room: {}'s free blocks of orders 8..0 do not fit in its {} partial pageblocks \
                                 (order-{o} block {} of {n} has no cell left)",
                                name(t),
                                pbs.len(),
                                k + 1
                            ),
                            format!(
                                "the layout gives each free block of order o < 9 a 2^(o+1)-page cell (lower half \
                                 allocated) in a {} pageblock not holding an order-9/10 block; lower those counts \
                                 or add {} pageblocks",
                                name(t),
                                name(t)
                            ),
                        ));
                    };
                    let start = u64::from(pb) * pbn;
                    let end = (start + pbn).min(pages);
                    if start + off + cell <= end {
                        free.push(((start + off + (cell >> 1)) as ZonePfn, o, t));
                        off += cell;
                        break;
                    }
                    i += 1;
                    off = 0;
                }
            }
        }
    }
    // Step 5: every list in ascending pfn order.
    free.sort_unstable_by_key(|&(pfn, _, _)| pfn);
    Ok(Plan { pb_types, free })
}

/// Step 4 of [`Placement::Dense`]: per type, orders 8..0, each free block at the lowest
/// aligned spot (pfn order) of the type's partial pageblocks that is unused and whose buddy of
/// the same order is not a free block. That is the only condition under which
/// `__free_one_page` would merge, and it also keeps every partial pageblock from being wholly
/// free (a full cover of an aligned range by smaller aligned blocks always holds a buddy pair).
/// One cursor per order moves forward only, since a spot once refused stays refused.
fn place_dense(
    imp: &ProcImport,
    partial_pbs: &[Vec<u32>; MT_SLOTS],
    free: &mut Vec<(ZonePfn, u8, MigrateType)>,
) -> Result<(), ScenarioError> {
    let pbn = PAGEBLOCK_NR_PAGES as usize;
    for t in LAYOUT_TYPES {
        let pbs = &partial_pbs[t.idx()];
        let span = pbs.len() * pbn;
        // Indexed by the page's place in `pbs` (pageblock i, offset off → i·512 + off).
        let mut used = vec![false; span];
        let mut head = vec![u8::MAX; span];
        for o in (0..PAGEBLOCK_ORDER).rev() {
            let n = imp.counts[t.idx()][o as usize];
            let size = 1usize << o;
            let mut cur = 0usize;
            for k in 0..n {
                loop {
                    if cur >= span {
                        return Err(perr(
                            format!(
                                "no room: {}'s free blocks of orders 8..0 do not fit in its {} partial \
                                 pageblocks even packed densely (order-{o} block {} of {n})",
                                t.kernel_name(),
                                pbs.len(),
                                k + 1
                            ),
                            "no two free blocks of one order may be buddies (they would have merged); \
                             use counts read from one file at one time",
                        ));
                    }
                    let (i, off) = (cur / pbn, cur % pbn);
                    let start = pbs[i] as usize * pbn;
                    if start + off + size > imp.pages as usize {
                        cur = (i + 1) * pbn;
                        continue;
                    }
                    let fits = !used[cur..cur + size].iter().any(|&u| u) && head[cur ^ size] != o;
                    if fits {
                        used[cur..cur + size].fill(true);
                        head[cur] = o;
                        free.push(((start + off) as ZonePfn, o, t));
                        cur += size;
                        break;
                    }
                    cur += size;
                }
            }
        }
    }
    Ok(())
}

/// Lays `imp` out in the empty zone of `engine` (built by [`crate::mm::new_zone`] with
/// `pages = imp.pages`; the caller picks the pcp values): contract "Layout" steps 1–6.
/// Pageblock types, free blocks (tail-added in ascending pfn order, accounted, never merged) and
/// `nr_reserved_highatomic` go through [`Engine::emit`], unrecorded; the allocated rest gets
/// refcount 1, owner [`filler_owner`] of its pageblock type and `PageLRU` in Movable pageblocks,
/// set directly (`init` emits no events). Cost counters are reset.
pub fn apply_import(engine: &mut Engine, imp: &ProcImport) -> Result<(), ScenarioError> {
    let z = engine.zone();
    let empty = z.nr_free.iter().all(|&n| n == 0)
        && z.nr_free_pages == 0
        && z.pcp_pages() == 0
        && z.mem_map.iter().all(|p| p.refcount == 0);
    if u64::from(z.cfg.pages) != imp.pages || !empty {
        return Err(ScenarioError::new(
            "init",
            format!(
                "internal: the /proc import needs an empty zone of {} pages (got {} pages{})",
                imp.pages,
                z.cfg.pages,
                if empty { "" } else { ", not empty" }
            ),
            "build the zone with setup::new_zone(pages = ProcImport::pages)",
        ));
    }
    let plan = plan(imp)?;
    let recording = engine.recording;
    engine.recording = false;
    for (pb, &t) in plan.pb_types.iter().enumerate() {
        let old = engine.zone().pageblock[pb];
        let new = t as u8;
        if old != new {
            engine.emit(
                Step::BootChunk,
                Mutation::SetPageblock {
                    pb: pb as u32,
                    old,
                    new,
                },
            );
        }
    }
    for &(pfn, order, mt) in &plan.free {
        engine.emit(
            Step::BootChunk,
            Mutation::FreeListAdd {
                pfn,
                order,
                mt,
                end: End::Tail,
            },
        );
        engine.emit(
            Step::BootChunk,
            Mutation::Account {
                mt,
                delta: 1 << order,
            },
        );
    }
    let reserved = imp.reserved_highatomic() as i64 - engine.zone().nr_reserved_highatomic;
    if reserved != 0 {
        engine.emit(
            Step::BootChunk,
            Mutation::Counter {
                id: CounterId::nr_reserved_highatomic,
                cpu: 0,
                delta: reserved as i32,
            },
        );
    }
    // Step 6: every other page allocated, refcount 1 (as if split), owned by its pageblock's type.
    let z = engine.zone_mut();
    let n = z.cfg.pages as usize;
    let mut is_free = vec![false; n];
    for &(pfn, order, _) in &plan.free {
        is_free[pfn as usize..pfn as usize + (1usize << order)].fill(true);
    }
    for (p, free) in is_free.into_iter().enumerate() {
        if free {
            continue;
        }
        let t = plan.pb_types[p >> PAGEBLOCK_ORDER];
        z.mem_map[p].refcount = 1;
        z.mem_map[p].owner = filler_owner(t);
        // A CMA pageblock holds movable allocations only (`gfp_migratetype` → `ALLOC_CMA`).
        if matches!(t, MigrateType::Movable | MigrateType::Cma) {
            z.mem_map[p].flags |= PF_LRU;
        } else {
            z.mem_map[p].flags &= !PF_LRU;
        }
    }
    // `zone->cma_pages`: the CMA pageblocks are the zone's CMA area.
    z.cma_pages = imp.blocks[MigrateType::Cma.idx()] * u64::from(PAGEBLOCK_NR_PAGES);
    engine.reset_stats();
    engine.recording = recording;
    Ok(())
}
