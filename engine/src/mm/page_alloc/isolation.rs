//! Page isolation (`mm/page_isolation.c`) and `alloc_contig_range` as the kernel does it
//! (`alloc_contig_frozen_range_noprof`, `__alloc_contig_migrate_range`; v6.18.2 and v7.1.5
//! `mm/page_alloc.c`): the touched pageblocks go to `MIGRATE_ISOLATE`, the pcp lists are
//! drained, in-use movable pages in the range are migrated elsewhere, the free blocks are
//! taken, the parts outside the range are freed page by page while still isolated, and the
//! isolation is undone (free blocks to the tail of their lists).

use super::{Engine, FPI_NONE, FPI_TO_TAIL};
use crate::mm::events::*;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::gfp::*;
use crate::mm::types::*;
use crate::mm::zone::*;

/// `COMPACT_CLUSTER_MAX`: `isolate_migratepages_range` stops collecting once this many pages
/// are on `cc->migratepages`; each such batch is one `migrate_pages` call.
pub const COMPACT_CLUSTER_MAX: u32 = 32;

/// `enum pb_isolate_mode`: a CMA allocation may isolate `MIGRATE_CMA` pageblocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsolateMode {
    /// `PB_ISOLATE_MODE_OTHER` (`alloc_contig_range` without `ACR_FLAGS_CMA`).
    Other,
    /// `PB_ISOLATE_MODE_CMA_ALLOC` (`cma_alloc`).
    CmaAlloc,
}

/// One folio `migrate_pages` moved out of the range: the owner's block now lives at `to`.
/// On a node of several zones the target may be in another zone than the range: `from` is an
/// index in zone `from_zone` of the node, `to` in zone `to_zone` (both 0 on a node of one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Migration {
    /// The owner of the folio.
    pub owner: u32,
    /// Its first page before.
    pub from: ZonePfn,
    /// Its first page after.
    pub to: ZonePfn,
    /// Its order.
    pub order: u8,
    /// The zone (index in the node) it was in.
    pub from_zone: u8,
    /// The zone it went to.
    pub to_zone: u8,
}

/// Why an `alloc_contig_range` failed (its return value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContigError {
    /// `-EBUSY`: the page at this pfn could not be isolated or freed.
    Busy(ZonePfn),
    /// `-ENOMEM`: no target page for a migration.
    NoMem(ZonePfn),
}

/// The outcome of [`Engine::alloc_contig_frozen_range`]: success or the error, and every
/// migration done on the way (kept even when the call fails, as in the kernel).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContigOutcome {
    /// Success, or why the range could not be taken.
    pub result: Result<(), ContigError>,
    /// The folios moved out of the range first, in the order they moved, with those a
    /// target's allocation moved by direct compaction (its slow path).
    pub migrated: Vec<Migration>,
}

/// What a page that is not free belongs to: the in-use block `(head, nr pages)`. An unsplit
/// allocation of order > 0 is one compound block (head refcount 1, tails 0, one owner);
/// every other in-use page is a block of its own.
pub(super) fn in_use_block(z: &Zone, p: ZonePfn) -> (ZonePfn, u32) {
    let owner = z.mem_map[p as usize].owner;
    let mut head = p;
    while owner != NO_OWNER
        && z.mem_map[head as usize].refcount == 0
        && head > 0
        && z.mem_map[head as usize - 1].owner == owner
    {
        head -= 1;
    }
    let mut end = head + 1;
    while (end as usize) < z.mem_map.len()
        && z.mem_map[end as usize].refcount == 0
        && z.mem_map[end as usize].owner == owner
        && z.mem_map[end as usize].kind == PageKind::Other
        && owner != NO_OWNER
    {
        end += 1;
    }
    (head, end - head)
}

impl Engine {
    fn pb_isolated(&self, pb: u32) -> bool {
        self.zone().pageblock[pb as usize] & PB_ISOLATE != 0
    }

    /// The pageblock's migratetype under the isolate bit (`MIGRATETYPE_MASK`).
    fn pb_base_mt(&self, pb: u32) -> MigrateType {
        MigrateType::from_idx((self.zone().pageblock[pb as usize] & 7) as usize)
    }

    /// `toggle_pageblock_isolate`: set or clear `PB_migrate_isolate`, the type underneath kept
    /// (6.16+). On 6.12 isolation replaced the type with `MIGRATE_ISOLATE` and un-isolation
    /// sets the caller's ([`Engine::unisolate_mt`]).
    fn toggle_pageblock_isolate(&mut self, step: Step, pb: u32, isolate: bool) {
        let old = self.zone().pageblock[pb as usize];
        let new = if isolate {
            old | PB_ISOLATE
        } else if let Some(mt) = self.unisolate_mt {
            (old & !PB_ISOLATE & !7) | mt.idx() as u8
        } else {
            old & !PB_ISOLATE
        };
        if old != new {
            self.emit(step, Mutation::SetPageblock { pb, old, new });
        }
    }

    /// `find_large_buddy`: the free buddy that contains `start`, else `start`.
    fn find_large_buddy(&self, start: ZonePfn) -> ZonePfn {
        let z = self.zone();
        let mut order = if start != 0 {
            start.trailing_zeros().min(MAX_PAGE_ORDER as u32 + 1)
        } else {
            MAX_PAGE_ORDER as u32
        };
        let mut pfn = start;
        while z.mem_map[pfn as usize].kind != PageKind::Buddy {
            order += 1;
            if order > MAX_PAGE_ORDER as u32 {
                return start;
            }
            pfn &= !0u32 << order;
        }
        if pfn + (1u32 << z.mem_map[pfn as usize].order) > start {
            pfn
        } else {
            start
        }
    }

    /// `split_large_buddy`: a free block taken off its list is freed again one pageblock at a
    /// time, each piece with its own pageblock's type (`__free_one_page`, so the isolated piece
    /// lands on the isolate list and the other one on its type's list, at the head).
    fn split_large_buddy(&mut self, pfn: ZonePfn, order: u8) {
        self.enter(KernelFn::split_large_buddy);
        let piece = order.min(PAGEBLOCK_ORDER);
        let end = pfn + (1u32 << order);
        let mut p = pfn;
        while p < end {
            let mt = self.zone().pageblock_mt(p);
            self.__free_one_page(p, piece, mt, FPI_NONE);
            p += 1u32 << piece;
        }
        self.exit(KernelFn::split_large_buddy);
    }

    /// `__move_freepages_block_isolate`: isolate or un-isolate pageblock `pb`. A free block
    /// larger than a pageblock that contains it is taken off its list and split
    /// (`split_large_buddy`); otherwise every free block of the pageblock moves to the tail
    /// of the isolate list (or back to the tail of the type's list).
    fn move_freepages_block_isolate(&mut self, pb: u32, isolate: bool) {
        let start = pb * PAGEBLOCK_NR_PAGES;
        let buddy = self.find_large_buddy(start);
        if self.zone().mem_map[buddy as usize].kind == PageKind::Buddy
            && self.zone().mem_map[buddy as usize].order > PAGEBLOCK_ORDER
        {
            let o = self.zone().mem_map[buddy as usize].order;
            let mt = self.zone().pageblock_mt(buddy);
            self.del_from_free_list(Step::IsolateSplitLarge, buddy, o, mt);
            self.account_freepages(Step::IsolateSplitLarge, -(1i64 << o), mt);
            self.handled(1 << o);
            self.toggle_pageblock_isolate(Step::IsolateSplitLarge, pb, isolate);
            self.split_large_buddy(buddy, o);
            return;
        }
        let base = self.pb_base_mt(pb);
        let (from, to, step) = if isolate {
            (base, MigrateType::Isolate, Step::IsolateMoveFree)
        } else {
            (MigrateType::Isolate, base, Step::UnisolateMoveFree)
        };
        let moved = self.__move_freepages_block(step, start, start + PAGEBLOCK_NR_PAGES, from, to);
        self.handled(moved);
        self.toggle_pageblock_isolate(step, pb, isolate);
    }

    /// `has_unmovable_pages` over `[s, e)` (one pageblock): the first page that cannot be
    /// migrated. A CMA pageblock counts as movable only for a CMA allocation.
    fn has_unmovable_pages(&self, s: ZonePfn, e: ZonePfn, mode: IsolateMode) -> Option<ZonePfn> {
        if self.pb_base_mt(s >> PAGEBLOCK_ORDER) == MigrateType::Cma {
            return (mode != IsolateMode::CmaAlloc).then_some(s);
        }
        let z = self.zone();
        let mut p = s;
        while p < e {
            if let Some((head, o, _)) = z.block_containing(p) {
                // page_is_unmovable: refcount 0 (free, buddy or pcp) is movable.
                p = head + (1u32 << o);
                continue;
            }
            let (head, nr) = in_use_block(z, p);
            if !z.mem_map[head as usize].lru() {
                return Some(p);
            }
            p = head + nr;
        }
        None
    }

    /// `set_migratetype_isolate`: under the zone lock, refuse a pageblock already isolated or
    /// holding an unmovable page in `[cs, ce)`; else isolate it and move its free blocks.
    fn set_migratetype_isolate(
        &mut self,
        pb: u32,
        cs: ZonePfn,
        ce: ZonePfn,
        mode: IsolateMode,
    ) -> Result<(), ZonePfn> {
        self.enter(KernelFn::set_migratetype_isolate);
        self.lock_zone(Step::IsolateLock);
        let pb_start = pb * PAGEBLOCK_NR_PAGES;
        let r = if self.pb_isolated(pb) {
            Err(pb_start)
        } else if pb_start + PAGEBLOCK_NR_PAGES > self.zone().pages() {
            // prep_move_freepages_block: the pageblock must lie inside the zone.
            self.message(
                Step::IsolateUnmovable,
                MsgLevel::Warning,
                format!(
                    "set_migratetype_isolate: pageblock {:#x} runs past the zone's end; not isolated (-EBUSY)",
                    self.zone().abs_pfn(pb_start)
                ),
            );
            Err(pb_start)
        } else if let Some(bad) = self.has_unmovable_pages(
            cs.max(pb_start),
            ce.min(pb_start + PAGEBLOCK_NR_PAGES),
            mode,
        ) {
            self.message(
                Step::IsolateUnmovable,
                MsgLevel::Warning,
                format!(
                    "set_migratetype_isolate: page {:#x} is unmovable; pageblock {:#x} not isolated (-EBUSY)",
                    self.zone().abs_pfn(bad),
                    self.zone().abs_pfn(pb_start)
                ),
            );
            Err(bad)
        } else {
            self.move_freepages_block_isolate(pb, true);
            Ok(())
        };
        self.unlock_zone();
        self.exit(KernelFn::set_migratetype_isolate);
        r
    }

    /// `unset_migratetype_isolate`: a free pageblock-sized block whose buddy is not isolated
    /// is taken and freed again to the tail so it merges; otherwise the free blocks move back
    /// to the tail of the type's lists (`pageblock_unisolate_and_move_free_pages`).
    fn unset_migratetype_isolate(&mut self, pb: u32) {
        self.enter(KernelFn::unset_migratetype_isolate);
        self.lock_zone(Step::UnisolateLock);
        if self.pb_isolated(pb) {
            let start = pb * PAGEBLOCK_NR_PAGES;
            let mut isolated_page = None;
            if self.zone().mem_map[start as usize].kind == PageKind::Buddy {
                let o = self.zone().mem_map[start as usize].order;
                if (PAGEBLOCK_ORDER..MAX_PAGE_ORDER).contains(&o) {
                    let buddy = start ^ (1u32 << o);
                    if self.zone().is_buddy(buddy, o) && !self.pb_isolated(buddy >> PAGEBLOCK_ORDER)
                    {
                        // __isolate_free_page on an isolated block: no watermark check, no
                        // accounting, and no pageblock change (ISOLATE is not mergeable).
                        self.del_from_free_list(
                            Step::UnisolateMerge,
                            start,
                            o,
                            MigrateType::Isolate,
                        );
                        self.handled(1 << o);
                        isolated_page = Some(o);
                    }
                }
            }
            match isolated_page {
                None => self.move_freepages_block_isolate(pb, false),
                Some(o) => {
                    self.toggle_pageblock_isolate(Step::UnisolateMerge, pb, false);
                    let mt = self.zone().pageblock_mt(start);
                    // __putback_isolated_page: FPI_TO_TAIL.
                    self.__free_one_page(start, o, mt, FPI_TO_TAIL);
                }
            }
        }
        self.unlock_zone();
        self.exit(KernelFn::unset_migratetype_isolate);
    }

    /// `undo_isolate_page_range`: every isolated pageblock of `[s, e)` back to its type.
    pub fn undo_isolate_page_range(&mut self, s: ZonePfn, e: ZonePfn) {
        self.enter(KernelFn::undo_isolate_page_range);
        let first = s >> PAGEBLOCK_ORDER;
        let last = e.div_ceil(PAGEBLOCK_NR_PAGES);
        for pb in first..last {
            if self.pb_isolated(pb) {
                self.unset_migratetype_isolate(pb);
            }
        }
        self.exit(KernelFn::undo_isolate_page_range);
    }

    /// `isolate_single_pageblock`: isolate the pageblock at (or before) `boundary`, then scan
    /// from the `MAX_ORDER_NR_PAGES`-aligned start to `boundary`: an in-use compound page that
    /// straddles the boundary cannot be handled (-EBUSY, the isolation is undone).
    fn isolate_single_pageblock(
        &mut self,
        boundary: ZonePfn,
        mode: IsolateMode,
        before: bool,
        skip_isolation: bool,
    ) -> Result<(), ZonePfn> {
        self.enter(KernelFn::isolate_single_pageblock);
        let r = self.isolate_single_pageblock_inner(boundary, mode, before, skip_isolation);
        self.exit(KernelFn::isolate_single_pageblock);
        r
    }

    fn isolate_single_pageblock_inner(
        &mut self,
        boundary: ZonePfn,
        mode: IsolateMode,
        before: bool,
        skip_isolation: bool,
    ) -> Result<(), ZonePfn> {
        let ipb = if before {
            boundary - PAGEBLOCK_NR_PAGES
        } else {
            boundary
        };
        let start = ipb & !((1u32 << MAX_PAGE_ORDER) - 1);
        if !skip_isolation {
            self.set_migratetype_isolate(
                ipb >> PAGEBLOCK_ORDER,
                ipb,
                ipb + PAGEBLOCK_NR_PAGES,
                mode,
            )?;
        }
        // The page on the other side of the boundary is outside the zone: nothing straddles.
        if (before && boundary >= self.zone().pages()) || (!before && boundary == 0) {
            return Ok(());
        }
        let mut p = start;
        while p < boundary {
            if let Some((head, o, _)) = self.zone().block_containing(p) {
                p = head + (1u32 << o);
                continue;
            }
            let (head, nr) = in_use_block(self.zone(), p);
            if nr > 1 && head + nr > boundary {
                self.message(
                    Step::IsolateStraddle,
                    MsgLevel::Warning,
                    format!(
                        "isolate_single_pageblock: the in-use order-{} block at {:#x} straddles {:#x} (-EBUSY)",
                        nr.trailing_zeros(),
                        self.zone().abs_pfn(head),
                        self.zone().abs_pfn(boundary)
                    ),
                );
                if !skip_isolation {
                    self.unset_migratetype_isolate(ipb >> PAGEBLOCK_ORDER);
                }
                return Err(head);
            }
            p = head + nr;
        }
        Ok(())
    }

    /// `start_isolate_page_range`: the first and last pageblocks (which may sit inside a larger
    /// block), then every pageblock between; any failure undoes what was isolated.
    pub fn start_isolate_page_range(
        &mut self,
        s: ZonePfn,
        e: ZonePfn,
        mode: IsolateMode,
    ) -> Result<(), ZonePfn> {
        self.enter(KernelFn::start_isolate_page_range);
        let r = self.start_isolate_page_range_inner(s, e, mode);
        self.exit(KernelFn::start_isolate_page_range);
        r
    }

    fn start_isolate_page_range_inner(
        &mut self,
        s: ZonePfn,
        e: ZonePfn,
        mode: IsolateMode,
    ) -> Result<(), ZonePfn> {
        let isolate_start = s & !(PAGEBLOCK_NR_PAGES - 1);
        let isolate_end = e.div_ceil(PAGEBLOCK_NR_PAGES) * PAGEBLOCK_NR_PAGES;
        self.isolate_single_pageblock(isolate_start, mode, false, false)?;
        let skip = isolate_start == isolate_end - PAGEBLOCK_NR_PAGES;
        if let Err(bad) = self.isolate_single_pageblock(isolate_end, mode, true, skip) {
            self.unset_migratetype_isolate(isolate_start >> PAGEBLOCK_ORDER);
            return Err(bad);
        }
        let mut pfn = isolate_start + PAGEBLOCK_NR_PAGES;
        while pfn + PAGEBLOCK_NR_PAGES < isolate_end {
            if let Err(bad) = self.set_migratetype_isolate(pfn >> PAGEBLOCK_ORDER, s, e, mode) {
                self.undo_isolate_page_range(isolate_start, pfn);
                self.unset_migratetype_isolate(
                    (isolate_end - PAGEBLOCK_NR_PAGES) >> PAGEBLOCK_ORDER,
                );
                return Err(bad);
            }
            pfn += PAGEBLOCK_NR_PAGES;
        }
        Ok(())
    }

    /// `__alloc_contig_migrate_range`: collect the in-use movable blocks of `[s, e)` in pfn
    /// order, up to [`COMPACT_CLUSTER_MAX`] pages a batch (`isolate_migratepages_range`), and
    /// `migrate_pages` each batch: a target is allocated for every block of the batch
    /// (`alloc_migration_target`: `GFP_KERNEL | __GFP_MOVABLE | __GFP_RETRY_MAYFAIL`,
    /// `GFP_TRANSHUGE` without `__GFP_KSWAPD_RECLAIM` for a large folio), then each source is
    /// released (its isolated pageblock sends it to the isolate list). On a node of several
    /// zones the target comes from the node's zonelist (`alloc_migration_target` →
    /// `__folio_alloc` with `mtc.nid`, no nodemask), so it may land in another zone; the source
    /// is freed in the range's zone, and the walk ends there.
    fn alloc_contig_migrate_range(
        &mut self,
        s: ZonePfn,
        e: ZonePfn,
        cpu: usize,
        migrated: &mut Vec<Migration>,
    ) -> Result<(), ContigError> {
        self.enter(KernelFn::__alloc_contig_migrate_range);
        let range_zone = self.node.active_index();
        let mut pfn = s;
        let mut r = Ok(());
        'outer: while pfn < e {
            self.select_zone(Step::MigrateMove, range_zone);
            // isolate_migratepages_range
            let mut batch: Vec<(ZonePfn, u8, u32)> = Vec::new();
            let mut pages = 0;
            while pfn < e && pages < COMPACT_CLUSTER_MAX {
                if let Some((head, o, _)) = self.zone().block_containing(pfn) {
                    pfn = head + (1u32 << o);
                    continue;
                }
                let (head, nr) = in_use_block(self.zone(), pfn);
                // isolate_migratepages_block skips a folio with references beyond its
                // owner's (a pinned page: migration would fail), so the range stays busy.
                if self.zone().mem_map[head as usize].lru()
                    && nr.is_power_of_two()
                    && self.zone().mem_map[head as usize].refcount == 1
                {
                    batch.push((
                        head,
                        nr.trailing_zeros() as u8,
                        self.zone().mem_map[head as usize].owner,
                    ));
                    pages += nr;
                }
                pfn = head + nr;
            }
            if batch.is_empty() {
                break;
            }
            self.enter(KernelFn::migrate_pages);
            let mut targets = Vec::with_capacity(batch.len());
            for &(from, order, owner) in &batch {
                let base = GFP_KERNEL | __GFP_MOVABLE | __GFP_RETRY_MAYFAIL;
                let gfp = if order > 0 {
                    (base & !__GFP_RECLAIM) | GFP_TRANSHUGE | __GFP_COMP
                } else {
                    base
                };
                match self.alloc_pages(gfp, order, cpu, owner, true) {
                    Some(to) => targets.push((to, self.node.active_index() as u8)),
                    None => {
                        self.select_zone(Step::MigrateNoMem, range_zone);
                        self.message(
                            Step::MigrateNoMem,
                            MsgLevel::Failure,
                            format!(
                                "migrate_pages: no order-{order} target page for {:#x} (-ENOMEM)",
                                self.zone().abs_pfn(from)
                            ),
                        );
                        r = Err(ContigError::NoMem(from));
                        break;
                    }
                }
            }
            // A target's allocation may have compacted (its slow path): those folios moved
            // before this batch's, so they come first in the one list the caller follows.
            migrated.append(&mut self.direct_migrated);
            // The blocks that got a target move; migrate_pages puts the rest back.
            for (&(from, order, owner), &(to, to_zone)) in batch.iter().zip(&targets) {
                self.select_zone(Step::MigrateMove, range_zone);
                if to_zone as usize == range_zone {
                    self.note(
                        Step::MigrateMove,
                        Annotation::Migrate {
                            from,
                            to,
                            order,
                            zone: to_zone,
                            contig: true,
                        },
                    );
                } else {
                    // A target in another zone: its pfn is that zone's, which the event's
                    // context (the range's zone) cannot print; the message says it in words.
                    self.message(
                        Step::MigrateMove,
                        MsgLevel::Info,
                        format!(
                            "migrate: the order-{order} movable block at {:#x} now lives at {:#x} (zone {}: the target came from the zonelist)",
                            self.zone().abs_pfn(from),
                            self.node.zone(to_zone as usize).abs_pfn(to),
                            self.node.zone(to_zone as usize).cfg.name
                        ),
                    );
                }
                self.free_pages(from, order, cpu);
                migrated.push(Migration {
                    owner,
                    from,
                    to,
                    order,
                    from_zone: range_zone as u8,
                    to_zone,
                });
            }
            self.exit(KernelFn::migrate_pages);
            if r.is_err() {
                break 'outer;
            }
        }
        self.select_zone(Step::MigrateMove, range_zone);
        self.exit(KernelFn::__alloc_contig_migrate_range);
        r
    }

    /// `test_pages_isolated`: every page of `[s, e)` is in a free block on an isolate list.
    fn test_pages_isolated(&self, s: ZonePfn, e: ZonePfn) -> Result<(), ZonePfn> {
        let mut p = s;
        while p < e {
            match self.zone().block_containing(p) {
                Some((head, o, false)) if self.zone().list_mt_of(head) == MigrateType::Isolate => {
                    p = head + (1u32 << o)
                }
                _ => return Err(p),
            }
        }
        Ok(())
    }

    /// `alloc_contig_frozen_range` / `alloc_contig_range` of `[pfn, pfn + nr)` for `owner`
    /// (v6.18.2 `alloc_contig_range_noprof`, v7.1.5 `alloc_contig_frozen_range_noprof`).
    pub fn alloc_contig_frozen_range(
        &mut self,
        pfn: ZonePfn,
        nr: u32,
        owner: u32,
        cpu: usize,
        mode: IsolateMode,
    ) -> ContigOutcome {
        self.enter(KernelFn::alloc_contig_range);
        let (s, e) = (pfn, pfn + nr);
        // v6.12.117 alloc_contig_range_noprof (mm/page_alloc.c:6682) passes its migratetype
        // (MIGRATE_MOVABLE, or MIGRATE_CMA from cma_alloc) to every undo_isolate_page_range.
        let saved = self.unisolate_mt;
        if self.zone().cfg.kernel == Kernel::V6_12 {
            self.unisolate_mt = Some(match mode {
                IsolateMode::Other => MigrateType::Movable,
                IsolateMode::CmaAlloc => MigrateType::Cma,
            });
        }
        let mut migrated = Vec::new();
        let result = self.alloc_contig_inner(s, e, owner, cpu, mode, &mut migrated);
        self.undo_isolate_page_range(s, e);
        self.unisolate_mt = saved;
        if let Err(err) = result {
            let (what, at) = match err {
                ContigError::Busy(p) => ("-EBUSY", p),
                ContigError::NoMem(p) => ("-ENOMEM", p),
            };
            self.message(
                Step::AllocContigFail,
                MsgLevel::Failure,
                format!(
                    "alloc_contig_range failed ({what} at page {:#x}); the isolation is undone{}",
                    self.zone().abs_pfn(at),
                    if migrated.is_empty() {
                        ""
                    } else {
                        ", the pages already migrated stay where they went"
                    }
                ),
            );
        }
        self.exit(KernelFn::alloc_contig_range);
        ContigOutcome { result, migrated }
    }

    fn alloc_contig_inner(
        &mut self,
        s: ZonePfn,
        e: ZonePfn,
        owner: u32,
        cpu: usize,
        mode: IsolateMode,
        migrated: &mut Vec<Migration>,
    ) -> Result<(), ContigError> {
        self.start_isolate_page_range(s, e, mode)
            .map_err(ContigError::Busy)?;
        self.enter(KernelFn::drain_all_pages);
        self.drain_all_pages();
        self.exit(KernelFn::drain_all_pages);
        self.alloc_contig_migrate_range(s, e, cpu, migrated)?;
        let outer_start = self.find_large_buddy(s);
        if let Err(bad) = self.test_pages_isolated(outer_start, e) {
            self.message(
                Step::AllocContigFail,
                MsgLevel::Warning,
                format!(
                    "test_pages_isolated: page {:#x} is not free on an isolate list (-EBUSY)",
                    self.zone().abs_pfn(bad)
                ),
            );
            return Err(ContigError::Busy(bad));
        }
        // isolate_freepages_range: take every free block of [outer_start, e) off the isolate
        // lists (no accounting: ISOLATE pages are not counted as free).
        self.lock_zone(Step::AllocContigTake);
        let mut p = outer_start;
        while p < e {
            let o = self.zone().mem_map[p as usize].order;
            self.del_from_free_list(Step::AllocContigTake, p, o, MigrateType::Isolate);
            self.handled(1 << o);
            p += 1u32 << o;
        }
        self.unlock_zone();
        let outer_end = p;
        self.emit(
            Step::AllocContigAlloc,
            Mutation::ContigAlloc {
                pfn: s,
                nr: e - s,
                owner,
            },
        );
        // Free head and tail: __free_contig_frozen_range, still isolated, so every piece
        // goes to the isolate lists through free_one_page.
        let cpu0 = cpu;
        if s != outer_start {
            self.free_contig_frozen_range(outer_start, s - outer_start, cpu0);
        }
        if e != outer_end {
            self.free_contig_frozen_range(e, outer_end - e, cpu0);
        }
        Ok(())
    }

    /// For the trace replay (`crate::run::replay`): isolate pageblock `pb` as
    /// `set_migratetype_isolate` does once its checks passed.
    pub fn replay_isolate_pageblock(&mut self, pb: u32) {
        if !self.pb_isolated(pb) {
            self.move_freepages_block_isolate(pb, true);
        }
    }

    /// For the trace replay: `unset_migratetype_isolate` of pageblock `pb`.
    pub fn replay_unisolate_pageblock(&mut self, pb: u32) {
        self.unset_migratetype_isolate(pb);
    }

    /// For the trace replay: `isolate_freepages_range(find_large_buddy(s), e)`, the free
    /// blocks of the isolated range off the Isolate lists (the head and tail beyond the range
    /// come back as traced frees).
    pub fn replay_take_isolated(&mut self, s: ZonePfn, e: ZonePfn) {
        let mut p = self.find_large_buddy(s);
        while p < e {
            match self.zone().block_containing(p) {
                Some((head, o, false)) if head == p => {
                    self.del_from_free_list(Step::AllocContigTake, p, o, MigrateType::Isolate);
                    p += 1u32 << o;
                }
                _ => p += 1,
            }
        }
    }

    /// `__free_contig_frozen_range` of frozen (refcount 0) order-0 pages: one
    /// `free_frozen_pages(page, 0)` per page up to 7.1; batched in aligned chunks of prepared
    /// pages on 7.2 (`__free_contig_range_common(frozen = true)`, kernel-model.md §5.2).
    pub fn free_contig_frozen_range(&mut self, pfn: ZonePfn, n: u32, cpu: usize) {
        self.enter(KernelFn::__free_contig_frozen_range);
        if self.zone().cfg.kernel.default_free_method() == FreeMethod::Chunked {
            for p in pfn..pfn + n {
                self.prepare_one_page(p);
            }
            self.free_prepared_contig_range(pfn, n, cpu);
        } else {
            for p in pfn..pfn + n {
                self.__free_frozen_pages(p, 0, FPI_NONE, cpu);
            }
        }
        self.exit(KernelFn::__free_contig_frozen_range);
    }
}
