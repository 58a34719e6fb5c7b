//! The allocation path (kernel-model.md §2, §4): `alloc_pages` → `get_page_from_freelist` →
//! `rmqueue` → the pcp and buddy paths, fallback (`__rmqueue_claim` / `__rmqueue_steal`) and
//! the highatomic reserve.

use super::{pcp_allowed_order, Engine, Fallback, RmqueueMode};
use crate::mm::events::*;
use crate::mm::page_alloc::compaction::CompactPriority;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::alloc_flags::*;
use crate::mm::types::gfp::*;
use crate::mm::types::*;
use crate::mm::zone::*;

/// `MAX_RECLAIM_RETRIES` (mm/internal.h).
const MAX_RECLAIM_RETRIES: u32 = 16;
/// `MAX_COMPACT_RETRIES` (mm/page_alloc.c).
const MAX_COMPACT_RETRIES: u32 = 16;

/// The slow path's retry state, set at `restart:`.
struct SlowpathRetry {
    compaction_retries: u32,
    no_progress_loops: u32,
    compact_result: CompactResult,
    prio: CompactPriority,
    did_some_progress: bool,
    /// The model's bound on `should_reclaim_retry`'s retries (reclaim frees nothing here).
    passes: u32,
}

impl Engine {
    /// `gfp_migratetype`.
    pub fn gfp_migratetype(&self, gfp: u32) -> MigrateType {
        if self.zone().cfg.mobility_disabled {
            MigrateType::Unmovable
        } else if gfp & __GFP_MOVABLE != 0 {
            MigrateType::Movable
        } else if gfp & __GFP_RECLAIMABLE != 0 {
            MigrateType::Reclaimable
        } else {
            MigrateType::Unmovable
        }
    }

    /// `alloc_pages(gfp, order)` → `__alloc_frozen_pages_noprof` (§2.1). On success the block is
    /// handed to `owner` (head refcount 1); `lru` marks it as `PageLRU` for claim decisions.
    pub fn alloc_pages(
        &mut self,
        gfp: u32,
        order: u8,
        cpu: usize,
        owner: u32,
        lru: bool,
    ) -> Option<ZonePfn> {
        if self.recording {
            self.alloc_pages_if::<true>(gfp, order, cpu, owner, lru)
        } else {
            self.alloc_pages_if::<false>(gfp, order, cpu, owner, lru)
        }
    }

    /// [`Engine::alloc_pages`], recording only if `REC` (the copy without it is the one a run
    /// that does not record takes: no test of `recording`, no event built).
    #[inline(always)]
    fn alloc_pages_if<const REC: bool>(
        &mut self,
        gfp: u32,
        order: u8,
        cpu: usize,
        owner: u32,
        lru: bool,
    ) -> Option<ZonePfn> {
        self.enter_if::<REC>(KernelFn::alloc_pages);
        let mt = self.gfp_migratetype(gfp);
        let mut page = None;
        self.highest_zoneidx = super::zones::gfp_zone(gfp);
        // The preferred zone (`ac->preferred_zoneref`): the first of the zonelist. A node of one
        // zone has no other; a GFP_DMA request on a node without DMA has none at all.
        let preferred = self.zonelist().first().copied();
        if let Some(z) = preferred {
            self.select_zone(Step::ZonelistNext, z);
        }
        if order <= MAX_PAGE_ORDER && preferred.is_some() {
            let mut flags = ALLOC_WMARK_LOW;
            if self.zone().cfg.cma && mt == MigrateType::Movable {
                flags |= ALLOC_CMA;
            }
            // alloc_flags_nofragment(): __GFP_KSWAPD_RECLAIM is ALLOC_KSWAPD's bit.
            if gfp & __GFP_KSWAPD_RECLAIM != 0 {
                flags |= ALLOC_KSWAPD;
            }
            if self.zone().cfg.nofragment_first_pass {
                flags |= ALLOC_NOFRAGMENT;
            }
            // 7.3: `alloc_flags_nonblocking(gfp, order) & ALLOC_HIGHATOMIC` in the fast path.
            if self.zone().cfg.kernel.fastpath_highatomic()
                && order > 0
                && gfp & __GFP_HIGH != 0
                && gfp & (__GFP_DIRECT_RECLAIM | __GFP_NOMEMALLOC) == 0
            {
                flags |= ALLOC_HIGHATOMIC;
            }
            page = self.get_page_from_freelist::<REC>(gfp, order, flags, mt, cpu);
            if page.is_none() {
                page = self.alloc_pages_slowpath(gfp, order, mt, cpu);
            }
        }
        if let Some(pfn) = page {
            self.emit_if::<REC>(
                Step::PrepNewPage,
                Mutation::PrepNewPage {
                    pfn,
                    order,
                    owner,
                    lru,
                },
            );
        }
        self.trace_if::<REC>(
            Step::TraceMmPageAlloc,
            Tracepoint::MmPageAlloc {
                pfn: page,
                order,
                mt,
                gfp,
            },
        );
        self.exit_if::<REC>(KernelFn::alloc_pages);
        page
    }

    /// `get_page_from_freelist` (§2.2): each zone of the zonelist in turn (one in a node of one
    /// zone), then the `ALLOC_NOFRAGMENT` retry over the whole zonelist.
    pub(super) fn get_page_from_freelist<const REC: bool>(
        &mut self,
        _gfp: u32,
        order: u8,
        mut flags: u32,
        mt: MigrateType,
        cpu: usize,
    ) -> Option<ZonePfn> {
        self.enter_if::<REC>(KernelFn::get_page_from_freelist);
        let zonelist = self.zonelist();
        let page = 'retry: loop {
            let no_fallback = flags & ALLOC_NOFRAGMENT != 0;
            for &zone in &zonelist {
                self.select_zone(Step::ZonelistNext, zone);
                let mut try_zone = false;
                if !self.zone().below_high {
                    let high = self.zone().wmark_pages(WMARK_HIGH);
                    if self.zone_watermark_fast::<REC>(Step::GpffHighGate, order, high, flags) {
                        try_zone = true;
                    } else {
                        self.set_flag_if::<REC>(
                            Step::GpffSetBelowHigh,
                            CounterId::zone_below_high,
                            0,
                            false,
                            true,
                        );
                    }
                }
                if !try_zone {
                    let w = (flags & ALLOC_WMARK_MASK) as usize;
                    let mark = self.zone().wmark_pages(w);
                    try_zone =
                        self.zone_watermark_fast::<REC>(Step::GpffWatermark, order, mark, flags);
                }
                if try_zone {
                    if let Some(p) = self.rmqueue::<REC>(order, flags, mt, cpu) {
                        // ≤ 6.19 reserved highatomic blocks here, after any successful rmqueue.
                        if flags & ALLOC_HIGHATOMIC != 0
                            && !self.zone().cfg.kernel.highatomic_in_rmqueue_buddy()
                        {
                            self.reserve_highatomic_pageblock(p, order);
                        }
                        break 'retry Some(p);
                    }
                }
            }
            if no_fallback {
                flags &= !ALLOC_NOFRAGMENT;
                self.message(
                    Step::GpffRetryNoFragment,
                    MsgLevel::Info,
                    "no page without fragmenting: retry without ALLOC_NOFRAGMENT (claims below order 9 and steals allowed)".into(),
                );
                continue;
            }
            break None;
        };
        self.exit_if::<REC>(KernelFn::get_page_from_freelist);
        page
    }

    /// Simulator slow path (§7.2): the profile's number of `get_page_from_freelist` attempts
    /// with `ALLOC_WMARK_MIN`, then failure (no reclaim, compaction or OOM).
    fn alloc_pages_slowpath(
        &mut self,
        gfp: u32,
        order: u8,
        mt: MigrateType,
        cpu: usize,
    ) -> Option<ZonePfn> {
        self.enter(KernelFn::__alloc_pages_slowpath);
        let mut flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;
        if gfp & __GFP_HIGH != 0 {
            flags |= ALLOC_MIN_RESERVE;
        }
        if gfp & __GFP_KSWAPD_RECLAIM != 0 {
            flags |= ALLOC_KSWAPD;
        }
        if gfp & __GFP_DIRECT_RECLAIM == 0 {
            if gfp & __GFP_NOMEMALLOC == 0 {
                flags |= ALLOC_NON_BLOCK;
                if order > 0 && flags & ALLOC_MIN_RESERVE != 0 {
                    flags |= ALLOC_HIGHATOMIC;
                }
            }
            if flags & ALLOC_MIN_RESERVE != 0 {
                flags &= !ALLOC_CPUSET;
            }
        }
        if self.zone().cfg.cma && mt == MigrateType::Movable {
            flags |= ALLOC_CMA;
        }
        let costly = order > PAGE_ALLOC_COSTLY_ORDER;
        let can_direct_reclaim = gfp & __GFP_DIRECT_RECLAIM != 0;
        // gfp_compaction_allowed: CONFIG_COMPACTION and __GFP_IO.
        let compaction_allowed = gfp & __GFP_IO != 0;
        let noretry = gfp & __GFP_NORETRY != 0;
        let thisnode = gfp & __GFP_THISNODE != 0;
        let retry_mayfail = gfp & __GFP_RETRY_MAYFAIL != 0;
        let can_compact = can_direct_reclaim && compaction_allowed;
        let compact_early = can_compact && (costly || (order > 0 && mt != MigrateType::Movable));
        let v7 = self.zone().cfg.kernel.slowpath_7x();
        // restart: compaction_retries = 0, no_progress_loops = 0, compact_result =
        // COMPACT_SKIPPED, compact_priority = DEF_COMPACT_PRIORITY (SYNC_LIGHT).
        let mut retry = SlowpathRetry {
            compaction_retries: 0,
            no_progress_loops: 0,
            compact_result: CompactResult::Skipped,
            prio: CompactPriority::SyncLight,
            did_some_progress: false,
            passes: 0,
        };
        let mut attempts = 0u32;
        let mut page: Option<ZonePfn> = None;
        let mut nopage = false;
        if !v7 {
            // v6.12.117 mm/page_alloc.c:4373-4420: one attempt, then (costly, or order > 0 not
            // movable) an ASYNC compaction before any reclaim.
            attempts += 1;
            page = self.get_page_from_freelist::<true>(gfp, order, flags, mt, cpu);
            if page.is_none() && compact_early {
                let (p, result) = self.__alloc_pages_direct_compact(
                    gfp,
                    order,
                    flags,
                    mt,
                    cpu,
                    CompactPriority::Async,
                );
                page = p;
                retry.compact_result = result;
                if page.is_none() && costly && noretry {
                    // Costly __GFP_NORETRY (THP): SKIPPED/DEFERRED or __GFP_THISNODE give
                    // up; otherwise the one later compaction stays ASYNC.
                    nopage = matches!(result, CompactResult::Skipped | CompactResult::Deferred)
                        || thisnode;
                    retry.prio = CompactPriority::Async;
                }
            }
        }
        // v7.3.4 mm/page_alloc.c:4836-4840: compact_first starts at INIT_COMPACT_PRIORITY.
        let mut compact_first = v7 && compact_early;
        if compact_first {
            retry.prio = CompactPriority::Async;
        }
        // The first adjustment of ALLOC_CPUSET retries at once (7.x can_retry_reserves).
        let mut can_retry_reserves = v7 && flags & ALLOC_CPUSET == 0;
        let mut why = "this request may not reclaim";
        while page.is_none() && !nopage {
            // retry:
            attempts += 1;
            page = self.get_page_from_freelist::<true>(gfp, order, flags, mt, cpu);
            if page.is_some() {
                break;
            }
            if can_retry_reserves {
                can_retry_reserves = false;
                continue;
            }
            if !can_direct_reclaim {
                break;
            }
            if !compact_first {
                page = self.__alloc_pages_direct_reclaim(gfp, order, flags, mt, cpu);
                // Reclaim is not modelled: it is taken to have made progress.
                retry.did_some_progress = true;
                if page.is_some() {
                    break;
                }
            }
            let (p, result) =
                self.__alloc_pages_direct_compact(gfp, order, flags, mt, cpu, retry.prio);
            page = p;
            retry.compact_result = result;
            if page.is_some() {
                break;
            }
            if compact_first {
                // THP faults that may only compact on this node give up here.
                if noretry && thisnode {
                    why = "__GFP_NORETRY | __GFP_THISNODE: no reclaim after the first compaction";
                    break;
                }
                if !noretry {
                    retry.prio = CompactPriority::SyncLight;
                }
                compact_first = false;
                continue;
            }
            if noretry {
                why = "__GFP_NORETRY: no retry";
                break;
            }
            if costly && (!can_compact || !retry_mayfail) {
                why = "a costly order retries only with __GFP_RETRY_MAYFAIL";
                break;
            }
            if self.should_reclaim_retry(order, flags, mt, &mut retry) {
                continue;
            }
            if retry.did_some_progress
                && can_compact
                && self.should_compact_retry(order, &mut retry)
            {
                continue;
            }
            why = "reclaim and compaction gave up; the kernel would now invoke the OOM killer (not modelled)";
            break;
        }
        if page.is_none() {
            if nopage {
                why = "a costly __GFP_NORETRY request whose compaction was skipped or deferred, or __GFP_THISNODE, gives up";
            }
            self.message(
                Step::SlowpathFail,
                MsgLevel::Failure,
                format!(
                    "order-{order} {} allocation failed after {attempts} slow-path attempt(s): {why}",
                    mt.kernel_name()
                ),
            );
        }
        self.exit(KernelFn::__alloc_pages_slowpath);
        page
    }

    /// `should_reclaim_retry` (v7.3.4 mm/page_alloc.c:4639-4705; v6.12.117 the same test):
    /// reclaim's progress resets `no_progress_loops` below the costly order (a costly request
    /// always counts a loop), more than `MAX_RECLAIM_RETRIES` loops give up, else a zone whose
    /// min watermark at the order would hold with its reclaimable pages added retries. The
    /// model has no LRU: a zone's reclaimable pages are 0, so only its free pages count. No zone:
    /// `unreserve_highatomic_pageblock(ac, true)` before OOM, a retry if it gave a block back.
    /// The kernel loops as long as reclaim makes progress; the model, whose reclaim frees nothing,
    /// stops after `MAX_RECLAIM_RETRIES` such retries.
    fn should_reclaim_retry(
        &mut self,
        order: u8,
        flags: u32,
        mt: MigrateType,
        retry: &mut SlowpathRetry,
    ) -> bool {
        if retry.did_some_progress && order <= PAGE_ALLOC_COSTLY_ORDER {
            retry.no_progress_loops = 0;
        } else {
            retry.no_progress_loops += 1;
        }
        let mut ret = false;
        if retry.no_progress_loops <= MAX_RECLAIM_RETRIES {
            for zone in self.zonelist() {
                self.select_zone(Step::ZonelistNext, zone);
                let min = self.zone().watermark[WMARK_MIN];
                let available = self.zone().nr_free_pages;
                let wmark = self.zone_watermark_ok(order, min, flags, available);
                // trace_reclaim_retry_zone (v7.3.4 mm/page_alloc.c:4691; v6.12.117 :4225):
                // no reclaimable pages in the model.
                let check = ReclaimRetryCheck {
                    order,
                    min_wmark: min.min(u64::from(ReclaimRetryCheck::MAX_MIN_WMARK)) as u32,
                    no_progress_loops: retry.no_progress_loops as u8,
                    wmark_check: wmark,
                };
                self.trace(
                    Step::ShouldReclaimRetry,
                    Tracepoint::ReclaimRetryZone {
                        reclaimable: 0,
                        available: available.clamp(0, i64::from(u32::MAX)) as u32,
                        check,
                    },
                );
                if wmark {
                    ret = true;
                    break;
                }
            }
            if ret {
                retry.passes += 1;
                if retry.passes > MAX_RECLAIM_RETRIES {
                    ret = false;
                }
            }
        }
        let text = if ret {
            format!(
                "should_reclaim_retry: no_progress_loops {}, a zone's min watermark holds at order {order}: retry",
                retry.no_progress_loops
            )
        } else if retry.no_progress_loops > MAX_RECLAIM_RETRIES {
            format!(
                "should_reclaim_retry: no_progress_loops {} > MAX_RECLAIM_RETRIES ({MAX_RECLAIM_RETRIES}): no reclaim retry",
                retry.no_progress_loops
            )
        } else if retry.passes > MAX_RECLAIM_RETRIES {
            format!(
                "should_reclaim_retry: the kernel would keep retrying while reclaim makes progress; reclaim is not modelled, the model stops after {MAX_RECLAIM_RETRIES} retries"
            )
        } else {
            format!(
                "should_reclaim_retry: no_progress_loops {}, no zone's min watermark would hold at order {order} (reclaimable pages not modelled: free pages only)",
                retry.no_progress_loops
            )
        };
        self.message(Step::ShouldReclaimRetry, MsgLevel::Info, text);
        if ret {
            return true;
        }
        // Before OOM, exhaust the highatomic reserve.
        for zone in self.zonelist() {
            self.select_zone(Step::ZonelistNext, zone);
            if self.unreserve_highatomic_pageblock(mt, true) {
                return true;
            }
        }
        false
    }

    /// `should_compact_retry` (v7.3.4 mm/page_alloc.c:4249-4318; v6.12.117 :3809-3873, which
    /// tests `order` where 7.x tests `ac->reclaim_compact_order`, the same without
    /// `defrag_mode`): `COMPACT_SKIPPED` retries while `compaction_zonelist_suitable` (reclaim
    /// could make room for it); `COMPACT_SUCCESS` whose allocation failed retries up to
    /// `MAX_COMPACT_RETRIES` (a quarter above the costly order); anything else (and a success
    /// past its retries) raises the priority one step, down to `MIN_COMPACT_PRIORITY`
    /// (SYNC_FULL; `MIN_COMPACT_COSTLY_PRIORITY`, SYNC_LIGHT, above the costly order), with
    /// `compaction_retries` back to 0; at the floor, no retry.
    fn should_compact_retry(&mut self, order: u8, retry: &mut SlowpathRetry) -> bool {
        if order == 0 {
            return false;
        }
        let prio = retry.prio;
        let retries = retry.compaction_retries;
        let result = retry.compact_result;
        let (ret, max_retries) = if result == CompactResult::Skipped {
            (
                self.compaction_zonelist_suitable(order),
                MAX_COMPACT_RETRIES,
            )
        } else {
            compact_retry_decision(
                order,
                result,
                &mut retry.prio,
                &mut retry.compaction_retries,
            )
        };
        // trace_compact_retry at `out:` (v7.3.4 mm/page_alloc.c:4314; v6.12.117 :3870): the
        // priority and retries before the decision.
        self.trace(
            Step::ShouldCompactRetry,
            Tracepoint::CompactRetry {
                order,
                prio: prio as u8,
                feedback: CompactFeedback::of(result),
                retries: retries.min(u32::from(u8::MAX)) as u8,
                max_retries: max_retries as u8,
                ret,
            },
        );
        let then = if !ret {
            "no retry".to_string()
        } else if retry.prio != prio {
            format!("retry at {}", retry.prio.kernel_name())
        } else {
            format!("retry at {}", prio.kernel_name())
        };
        self.message(
            Step::ShouldCompactRetry,
            MsgLevel::Info,
            format!(
                "should_compact_retry: order={order} priority={} compaction_result={} retries={retries} max_retries={max_retries}: {then}",
                prio.kernel_name(),
                result.as_str()
            ),
        );
        ret
    }

    /// `__alloc_pages_direct_reclaim`: page reclaim itself is not modelled (no page is reclaimed;
    /// the model assumes it made progress, as on a machine with page cache to reclaim), but what
    /// the kernel does after it is: one more `get_page_from_freelist`, then, if that fails,
    /// `unreserve_highatomic_pageblock(ac, false)` and `drain_all_pages(NULL)` and a last try,
    /// so a block held on a pcp list is found.
    fn __alloc_pages_direct_reclaim(
        &mut self,
        gfp: u32,
        order: u8,
        flags: u32,
        mt: MigrateType,
        cpu: usize,
    ) -> Option<ZonePfn> {
        self.enter(KernelFn::__alloc_pages_direct_reclaim);
        self.message(
            Step::DirectReclaimNotModelled,
            MsgLevel::Note,
            "__alloc_pages_direct_reclaim: page reclaim is not modelled (no page reclaimed); retry, then drain the pcp lists and retry".into(),
        );
        let mut page = self.get_page_from_freelist::<true>(gfp, order, flags, mt, cpu);
        if page.is_none() {
            // for_each_zone_zonelist_nodemask: the first zone that gives a pageblock back.
            for zone in self.zonelist() {
                self.select_zone(Step::ZonelistNext, zone);
                let before = self.zone().nr_reserved_highatomic;
                self.unreserve_highatomic_pageblock(mt, false);
                if self.zone().nr_reserved_highatomic != before {
                    break;
                }
            }
            self.enter(KernelFn::drain_all_pages);
            self.drain_all_pages();
            self.exit(KernelFn::drain_all_pages);
            page = self.get_page_from_freelist::<true>(gfp, order, flags, mt, cpu);
        }
        self.exit(KernelFn::__alloc_pages_direct_reclaim);
        page
    }

    /// `unreserve_highatomic_pageblock(ac, force)`: give one highatomic pageblock back to the
    /// requester's migratetype, keeping at least one reserved unless `force` (before OOM).
    /// True when a block was given back.
    fn unreserve_highatomic_pageblock(&mut self, ac_mt: MigrateType, force: bool) -> bool {
        let pb = PAGEBLOCK_NR_PAGES as i64;
        if (!force && self.zone().nr_reserved_highatomic <= pb)
            || self.zone().nr_reserved_highatomic == 0
        {
            return false;
        }
        let mut given = false;
        self.enter(KernelFn::unreserve_highatomic_pageblock);
        self.lock_zone(Step::UnreserveHighatomicLock);
        for order in 0..=MAX_PAGE_ORDER {
            let Some(pfn) = self.front(order, MigrateType::HighAtomic) else {
                continue;
            };
            let size = pb.max(1 << order).min(self.zone().nr_reserved_highatomic);
            if order < PAGEBLOCK_ORDER {
                self.counter(
                    Step::UnreserveHighatomicMove,
                    CounterId::nr_reserved_highatomic,
                    0,
                    -size,
                );
                let start = pfn & !(PAGEBLOCK_NR_PAGES - 1);
                let moved = self.__move_freepages_block(
                    Step::UnreserveHighatomicMove,
                    start,
                    start + PAGEBLOCK_NR_PAGES,
                    MigrateType::HighAtomic,
                    ac_mt,
                );
                self.handled(moved);
                self.set_pageblock_migratetype(
                    Step::UnreserveHighatomicMove,
                    start >> PAGEBLOCK_ORDER,
                    ac_mt,
                );
            } else {
                self.counter(
                    Step::UnreserveHighatomicRange,
                    CounterId::nr_reserved_highatomic,
                    0,
                    -size,
                );
                self.move_to_free_list(
                    Step::UnreserveHighatomicRange,
                    pfn,
                    order,
                    MigrateType::HighAtomic,
                    ac_mt,
                );
                self.handled(1 << order);
                self.change_pageblock_range(Step::UnreserveHighatomicRange, pfn, order, ac_mt);
            }
            given = true;
            break;
        }
        self.unlock_zone();
        self.exit(KernelFn::unreserve_highatomic_pageblock);
        given
    }

    /// `rmqueue` (§2.3).
    fn rmqueue<const REC: bool>(
        &mut self,
        order: u8,
        flags: u32,
        mt: MigrateType,
        cpu: usize,
    ) -> Option<ZonePfn> {
        self.enter_if::<REC>(KernelFn::rmqueue);
        let mut page = None;
        if pcp_allowed_order(order) {
            page = self.rmqueue_pcplist::<REC>(order, mt, flags, cpu);
        }
        if page.is_none() {
            page = self.rmqueue_buddy(order, flags, mt);
        }
        if flags & ALLOC_KSWAPD != 0 && self.zone().boosted_watermark {
            // Boost policy (b): kswapd is woken and (not modelled) would reclaim and zero the
            // boost; the simulator zeroes it here.
            self.set_flag_if::<REC>(
                Step::RmqueueBoostReset,
                CounterId::zone_boosted_watermark,
                0,
                true,
                false,
            );
            let b = self.zone().watermark_boost;
            self.counter_if::<REC>(Step::RmqueueBoostReset, CounterId::watermark_boost, 0, -b);
        }
        self.exit_if::<REC>(KernelFn::rmqueue);
        page
    }

    /// `rmqueue_pcplist` (§4.4).
    fn rmqueue_pcplist<const REC: bool>(
        &mut self,
        order: u8,
        mt: MigrateType,
        flags: u32,
        cpu: usize,
    ) -> Option<ZonePfn> {
        self.enter_if::<REC>(KernelFn::rmqueue_pcplist);
        self.lock_pcp_if::<REC>(Step::PcplistLock, cpu);
        let fc = self.zone().pcp[cpu].free_count;
        self.counter_if::<REC>(
            Step::PcplistHalveFreeCount,
            CounterId::pcp_free_count,
            cpu,
            (fc >> 1) as i64 - fc as i64,
        );
        let page = self.__rmqueue_pcplist::<REC>(order, mt, flags, cpu);
        self.unlock_pcp();
        self.exit_if::<REC>(KernelFn::rmqueue_pcplist);
        page
    }

    /// `__rmqueue_pcplist`: refill an empty list with `rmqueue_bulk`, then take the front.
    /// Inlined into its two callers: most allocations end here, at the front of a pcp list.
    #[inline(always)]
    fn __rmqueue_pcplist<const REC: bool>(
        &mut self,
        order: u8,
        mt: MigrateType,
        flags: u32,
        cpu: usize,
    ) -> Option<ZonePfn> {
        let pindex = order_to_pindex(mt, order);
        if self.zone().pcp[cpu].lists[pindex].len == 0 {
            let batch = self.nr_pcp_alloc(order, cpu);
            if flags & ALLOC_HIGHATOMIC != 0 && self.zone().cfg.kernel.highatomic_in_rmqueue_buddy()
            {
                return None;
            }
            let got = self.rmqueue_bulk(order, batch as u32, mt, flags, cpu);
            self.emit_if::<REC>(
                Step::PcplistRefilled,
                Annotation::PcpRefill {
                    cpu: cpu as u8,
                    order,
                    mt,
                    want: batch as u32,
                    got,
                },
            );
            if self.zone().pcp[cpu].lists[pindex].len == 0 {
                return None;
            }
        }
        let pfn = self.zone().pcp[cpu].lists[pindex].head;
        self.handled(1 << order);
        self.emit_if::<REC>(
            Step::PcplistTakeFront,
            Mutation::PcpDel {
                cpu: cpu as u8,
                pindex: pindex as u8,
                pfn,
                prev: NIL,
            },
        );
        Some(pfn)
    }

    /// The zone gate of `alloc_pages_bulk` (order 0).
    pub(crate) fn bulk_gate(&mut self, mark: u64, flags: u32) -> bool {
        self.zone_watermark_fast::<true>(Step::BulkGate, 0, mark, flags)
    }

    /// One page of the `alloc_pages_bulk` loop: `__rmqueue_pcplist` without halving
    /// `free_count` and without `ALLOC_NOFRAGMENT`.
    pub(crate) fn bulk_take(&mut self, mt: MigrateType, flags: u32, cpu: usize) -> Option<ZonePfn> {
        self.__rmqueue_pcplist::<true>(0, mt, flags, cpu)
    }

    /// `nr_pcp_alloc` (§4.4): how many blocks a refill asks for; grows `high` and
    /// `alloc_factor`.
    fn nr_pcp_alloc(&mut self, order: u8, cpu: usize) -> i32 {
        let p = &self.zone().pcp[cpu];
        let (base, high_min, high_max) = (p.batch, p.high_min, p.high_max);
        let mut high = Self::kclamp(p.high, high_min, high_max);
        self.set_pcp_high(Step::NrPcpAllocClamp, cpu, high);
        if high < base {
            return 1;
        }
        let af = self.zone().pcp[cpu].alloc_factor;
        let mut b = if order == 0 { base << af } else { base };
        if high_min != high_max && !self.zone().below_high {
            high = (high + b).min(high_max);
            self.set_pcp_high(Step::NrPcpAllocGrowHigh, cpu, high);
        }
        if order == 0 {
            let count = self.zone().pcp[cpu].count;
            let max_nr = (high - count - base).max(base);
            if b <= max_nr && af < PCP_BATCH_SCALE_MAX as i32 {
                self.counter(Step::NrPcpAllocFactor, CounterId::pcp_alloc_factor, cpu, 1);
            }
            b = b.min(max_nr);
        }
        if b > 1 {
            b = (b >> order).max(2);
        }
        b
    }

    /// `rmqueue_bulk` (§2.8): `count` blocks under one zone lock, each to the list's tail;
    /// the fallback mode is remembered across iterations.
    fn rmqueue_bulk(
        &mut self,
        order: u8,
        count: u32,
        mt: MigrateType,
        flags: u32,
        cpu: usize,
    ) -> u32 {
        self.enter(KernelFn::rmqueue_bulk);
        self.lock_zone(Step::BulkLock);
        let pindex = order_to_pindex(mt, order) as u8;
        let mut mode = RmqueueMode::Normal;
        let mut i = 0;
        while i < count {
            let Some(p) = self.__rmqueue(order, mt, flags, &mut mode) else {
                break;
            };
            self.emit(
                Step::BulkAddTail,
                Mutation::PcpAdd {
                    cpu: cpu as u8,
                    pindex,
                    pfn: p,
                    end: End::Tail,
                },
            );
            i += 1;
        }
        self.handled((i as u64) << order);
        self.unlock_zone();
        self.exit(KernelFn::rmqueue_bulk);
        i
    }

    /// `rmqueue_buddy` (§2.4).
    fn rmqueue_buddy(&mut self, order: u8, flags: u32, mt: MigrateType) -> Option<ZonePfn> {
        self.enter(KernelFn::rmqueue_buddy);
        self.lock_zone(Step::BuddyLock);
        let mut page = None;
        if flags & ALLOC_HIGHATOMIC != 0 {
            page = self.__rmqueue_smallest(order, MigrateType::HighAtomic);
        }
        if page.is_none() {
            let mut mode = RmqueueMode::Normal;
            page = self.__rmqueue(order, mt, flags, &mut mode);
            if page.is_none() && flags & (ALLOC_OOM | ALLOC_NON_BLOCK) != 0 {
                page = self.__rmqueue_smallest(order, MigrateType::HighAtomic);
            }
        }
        if page.is_some() {
            self.handled(1 << order);
        }
        // 7.1.5 rmqueue_buddy: spin_unlock_irqrestore, then reserve_highatomic_pageblock.
        self.unlock_zone();
        if let Some(p) = page {
            // 7.3.4 reserves for slow-path (`ALLOC_WMARK_MIN`) requests only (:3274).
            let slowpath = flags & ALLOC_WMARK_MASK == ALLOC_WMARK_MIN;
            if flags & ALLOC_HIGHATOMIC != 0
                && self.zone().cfg.kernel.highatomic_in_rmqueue_buddy()
                && (slowpath || !self.zone().cfg.kernel.fastpath_highatomic())
            {
                self.reserve_highatomic_pageblock(p, order);
            }
        }
        self.exit(KernelFn::rmqueue_buddy);
        page
    }

    /// `__rmqueue` with `enum rmqueue_mode` (§2.5). Without mode memory every call starts at
    /// `RMQUEUE_NORMAL`, as before the rmqueue_bulk fix.
    fn __rmqueue(
        &mut self,
        order: u8,
        mt: MigrateType,
        flags: u32,
        mode: &mut RmqueueMode,
    ) -> Option<ZonePfn> {
        self.enter(KernelFn::__rmqueue);
        if !self.zone().cfg.rmqueue_mode_memory {
            *mode = RmqueueMode::Normal;
        }
        let r = self.__rmqueue_modes(order, mt, flags, mode);
        self.exit(KernelFn::__rmqueue);
        r
    }

    fn __rmqueue_modes(
        &mut self,
        order: u8,
        mt: MigrateType,
        flags: u32,
        mode: &mut RmqueueMode,
    ) -> Option<ZonePfn> {
        if self.zone().cfg.cma
            && flags & ALLOC_CMA != 0
            && self.zone().nr_free_cma > self.zone().nr_free_pages / 2
        {
            if let Some(p) = self.__rmqueue_smallest(order, MigrateType::Cma) {
                return Some(p);
            }
        }
        // The switch falls through from the remembered mode.
        if *mode == RmqueueMode::Normal {
            if let Some(p) = self.__rmqueue_smallest(order, mt) {
                return Some(p);
            }
        }
        if matches!(*mode, RmqueueMode::Normal | RmqueueMode::Cma) && flags & ALLOC_CMA != 0 {
            if let Some(p) = self.__rmqueue_smallest(order, MigrateType::Cma) {
                *mode = RmqueueMode::Cma;
                return Some(p);
            }
        }
        if *mode != RmqueueMode::Steal {
            if let Some(p) = self.__rmqueue_claim(order, mt, flags) {
                *mode = RmqueueMode::Normal;
                return Some(p);
            }
        }
        if flags & ALLOC_NOFRAGMENT == 0 {
            if let Some(p) = self.__rmqueue_steal(order, mt) {
                if *mode != RmqueueMode::Steal && self.zone().cfg.rmqueue_mode_memory {
                    self.message(
                        Step::RmqueueModeSteal,
                        MsgLevel::Info,
                        "rmqueue_mode := RMQUEUE_STEAL: the rest of this refill skips the native and claim searches".into(),
                    );
                }
                *mode = RmqueueMode::Steal;
                return Some(p);
            }
        }
        None
    }

    /// `__rmqueue_smallest` (§2.6): the first block of order ≥ `order` on `mt`'s lists.
    fn __rmqueue_smallest(&mut self, order: u8, mt: MigrateType) -> Option<ZonePfn> {
        for o in order..=MAX_PAGE_ORDER {
            if let Some(pfn) = self.front(o, mt) {
                self.enter(KernelFn::__rmqueue_smallest);
                self.page_del_and_expand(Step::SmallestTake, pfn, order, o, mt);
                let percpu_refill = pcp_allowed_order(order) && mt.idx() < MIGRATE_PCPTYPES;
                self.trace(
                    Step::TraceZoneLocked,
                    Tracepoint::MmPageAllocZoneLocked {
                        pfn,
                        order,
                        mt,
                        percpu_refill,
                    },
                );
                self.exit(KernelFn::__rmqueue_smallest);
                return Some(pfn);
            }
        }
        None
    }

    /// `page_del_and_expand`: take the block off its list, give back the upper halves,
    /// account the net `-2^low` pages.
    fn page_del_and_expand(
        &mut self,
        step: Step,
        pfn: ZonePfn,
        low: u8,
        high: u8,
        mt: MigrateType,
    ) {
        self.del_from_free_list(step, pfn, high, mt);
        let added = self.expand(pfn, low, high, mt);
        self.account_freepages(Step::ExpandAccount, -((1i64 << high) - added as i64), mt);
    }

    /// `expand` (§2.6): keep the lower part, push each split-off upper half to the FRONT of
    /// its list, from order `high-1` down to `low`.
    pub(crate) fn expand(
        &mut self,
        pfn: ZonePfn,
        low: u8,
        mut high: u8,
        mt: MigrateType,
    ) -> ZonePfn {
        if high == low {
            return 0;
        }
        self.enter(KernelFn::expand);
        let mut added = 0;
        while high > low {
            high -= 1;
            let upper = pfn + (1 << high);
            self.add_to_free_list(Step::ExpandAddUpper, upper, high, mt, false);
            added += 1 << high;
        }
        self.exit(KernelFn::expand);
        added
    }

    /// `should_try_claim_block` (§2.7.2), on the order of the free block examined.
    fn should_try_claim_block(&self, order: u8, start_mt: MigrateType) -> bool {
        order >= PAGEBLOCK_ORDER
            || order >= PAGEBLOCK_ORDER / 2
            || start_mt == MigrateType::Reclaimable
            || start_mt == MigrateType::Unmovable
            || self.zone().cfg.mobility_disabled
    }

    /// `find_suitable_fallback`: only the FIRST non-empty fallback type is returned.
    pub(super) fn find_suitable_fallback(
        &mut self,
        step: Step,
        order: u8,
        start_mt: MigrateType,
        claimable: bool,
    ) -> Fallback {
        let r = if claimable && !self.should_try_claim_block(order, start_mt) {
            Fallback::Refused
        } else if self.zone().nr_free[order as usize] == 0 {
            Fallback::None
        } else {
            fallbacks(start_mt)
                .into_iter()
                .find(|f| self.zone().free_lists[order as usize][f.idx()].len > 0)
                .map_or(Fallback::None, Fallback::Found)
        };
        let (found, refused) = match r {
            Fallback::Found(f) => (Some(f), false),
            Fallback::None => (None, false),
            Fallback::Refused => (None, true),
        };
        self.emit(
            step,
            Annotation::FallbackProbe {
                order,
                start_mt,
                found,
                refused,
            },
        );
        r
    }

    /// `__rmqueue_claim` (§2.7.4): top-down search for a block whose pageblock(s) can be
    /// claimed. With `ALLOC_NOFRAGMENT` only whole pageblocks (order ≥ 9) qualify.
    fn __rmqueue_claim(&mut self, order: u8, start_mt: MigrateType, flags: u32) -> Option<ZonePfn> {
        self.enter(KernelFn::__rmqueue_claim);
        let mut min_order = order;
        if order < PAGEBLOCK_ORDER && flags & ALLOC_NOFRAGMENT != 0 {
            min_order = PAGEBLOCK_ORDER;
        }
        let mut result = None;
        for cur in (min_order..=MAX_PAGE_ORDER).rev() {
            let f = match self.find_suitable_fallback(Step::ClaimProbe, cur, start_mt, true) {
                Fallback::None => continue,
                Fallback::Refused => break,
                Fallback::Found(f) => f,
            };
            let pfn = self.front(cur, f).expect("fallback list non-empty");
            if let Some(p) = self.try_to_claim_block(pfn, cur, order, start_mt, f, flags) {
                self.trace_extfrag(Step::TraceExtfrag, p, order, cur, start_mt, f);
                result = Some(p);
                break;
            }
        }
        self.exit(KernelFn::__rmqueue_claim);
        result
    }

    /// `trace_mm_page_alloc_extfrag`: `change_ownership` is read after a claim or steal, so it
    /// is 1 for claims and usually 0 for steals.
    fn trace_extfrag(
        &mut self,
        step: Step,
        pfn: ZonePfn,
        order: u8,
        cur: u8,
        start_mt: MigrateType,
        f: MigrateType,
    ) {
        let change_ownership = self.zone().pageblock_mt(pfn) == start_mt;
        self.trace(
            step,
            Tracepoint::MmPageAllocExtfrag {
                pfn,
                alloc_order: order,
                fallback_order: cur,
                alloc_mt: start_mt,
                fallback_mt: f,
                change_ownership,
            },
        );
    }

    /// `try_to_claim_block` (§2.7.3).
    fn try_to_claim_block(
        &mut self,
        pfn: ZonePfn,
        cur: u8,
        order: u8,
        start_mt: MigrateType,
        block_mt: MigrateType,
        flags: u32,
    ) -> Option<ZonePfn> {
        self.enter(KernelFn::try_to_claim_block);
        let r = self.try_to_claim_block_inner(pfn, cur, order, start_mt, block_mt, flags);
        self.exit(KernelFn::try_to_claim_block);
        r
    }

    fn try_to_claim_block_inner(
        &mut self,
        pfn: ZonePfn,
        cur: u8,
        order: u8,
        start_mt: MigrateType,
        block_mt: MigrateType,
        flags: u32,
    ) -> Option<ZonePfn> {
        if cur >= PAGEBLOCK_ORDER {
            // Whole pageblock(s): always succeeds.
            self.del_from_free_list(Step::ClaimWholeDel, pfn, cur, block_mt);
            self.account_freepages(Step::ClaimWholeDel, -(1i64 << cur), block_mt);
            self.change_pageblock_range(Step::ClaimWholeRetype, pfn, cur, start_mt);
            self.emit(
                Step::ClaimWholeRetype,
                Annotation::Claimed {
                    pfn,
                    order: cur,
                    from: block_mt,
                    to: start_mt,
                    pageblocks: 1 << (cur - PAGEBLOCK_ORDER),
                    free: 1 << cur,
                    alike: 0,
                },
            );
            let added = self.expand(pfn, order, cur, start_mt);
            self.account_freepages(Step::ExpandAccount, added as i64, start_mt);
            return Some(pfn);
        }
        if self.boost_watermark() && flags & ALLOC_KSWAPD != 0 {
            let b = self.zone().boosted_watermark;
            self.set_flag(
                Step::BoostWatermark,
                CounterId::zone_boosted_watermark,
                0,
                b,
                true,
            );
        }
        // prep_move_freepages_block: the pageblock must lie inside the zone.
        let start = pfn & !(PAGEBLOCK_NR_PAGES - 1);
        let end = start + PAGEBLOCK_NR_PAGES;
        if end > self.zone().pages() {
            return None;
        }
        let (free, movable) = self.count_free_and_movable(start, end);
        let alike = if start_mt == MigrateType::Movable {
            movable
        } else if block_mt == MigrateType::Movable {
            PAGEBLOCK_NR_PAGES - (free + movable)
        } else {
            0
        };
        if free + alike >= 1 << (PAGEBLOCK_ORDER - 1) || self.zone().cfg.mobility_disabled {
            let moved =
                self.__move_freepages_block(Step::ClaimMoveFree, start, end, block_mt, start_mt);
            self.handled(moved);
            self.set_pageblock_migratetype(
                Step::ClaimPartialRetype,
                start >> PAGEBLOCK_ORDER,
                start_mt,
            );
            self.emit(
                Step::ClaimPartialRetype,
                Annotation::Claimed {
                    pfn: start,
                    order: PAGEBLOCK_ORDER,
                    from: block_mt,
                    to: start_mt,
                    pageblocks: 1,
                    free,
                    alike,
                },
            );
            return self.__rmqueue_smallest(order, start_mt);
        }
        self.emit(
            Step::ClaimRefused,
            Annotation::ClaimRefused {
                pfn,
                order: cur,
                free,
                alike,
            },
        );
        None
    }

    /// The walk of `prep_move_freepages_block`: free pages (buddy heads, skipping their
    /// blocks) and `PageLRU` pages of `[start, end)`.
    pub(crate) fn count_free_and_movable(&self, start: ZonePfn, end: ZonePfn) -> (u32, u32) {
        let z = self.zone();
        let (mut free, mut movable) = (0, 0);
        let mut p = start;
        while p < end {
            if z.mem_map[p as usize].kind == PageKind::Buddy {
                let nr = 1 << z.mem_map[p as usize].order;
                free += nr;
                p += nr;
                continue;
            }
            if z.mem_map[p as usize].kind == PageKind::Other && z.mem_map[p as usize].lru() {
                movable += 1;
            }
            p += 1;
        }
        (free, movable)
    }

    /// `__move_freepages_block`: every buddy block of the pageblock, ascending, to the tail of
    /// the new type's list.
    pub(crate) fn __move_freepages_block(
        &mut self,
        step: Step,
        start: u32,
        end: u32,
        old: MigrateType,
        new: MigrateType,
    ) -> u64 {
        let mut p = start;
        let mut moved = 0;
        while p < end {
            if self.zone().mem_map[p as usize].kind != PageKind::Buddy {
                p += 1;
                continue;
            }
            let o = self.zone().mem_map[p as usize].order;
            self.move_to_free_list(step, p, o, old, new);
            moved += 1 << o;
            p += 1 << o;
        }
        moved
    }

    /// `__rmqueue_steal` (§2.7.5): bottom-up; the remainder stays on the foreign type's lists.
    fn __rmqueue_steal(&mut self, order: u8, start_mt: MigrateType) -> Option<ZonePfn> {
        self.enter(KernelFn::__rmqueue_steal);
        let mut result = None;
        for cur in order..=MAX_PAGE_ORDER {
            let f = match self.find_suitable_fallback(Step::StealProbe, cur, start_mt, false) {
                Fallback::Found(f) => f,
                _ => continue,
            };
            let pfn = self.front(cur, f).expect("fallback list non-empty");
            self.page_del_and_expand(Step::StealTake, pfn, order, cur, f);
            self.emit(
                Step::StealTake,
                Annotation::Stolen {
                    pfn,
                    order: cur,
                    alloc_order: order,
                    from: f,
                },
            );
            self.trace_extfrag(Step::StealTraceExtfrag, pfn, order, cur, start_mt, f);
            result = Some(pfn);
            break;
        }
        self.exit(KernelFn::__rmqueue_steal);
        result
    }

    /// `reserve_highatomic_pageblock` (§2.9).
    fn reserve_highatomic_pageblock(&mut self, pfn: ZonePfn, order: u8) {
        let managed = self.zone().cfg.pages as i64;
        if managed / 100 < PAGEBLOCK_NR_PAGES as i64 {
            return;
        }
        let pb = PAGEBLOCK_NR_PAGES as i64;
        let max = (managed / 100 + pb - 1) / pb * pb;
        if self.zone().nr_reserved_highatomic >= max {
            return;
        }
        self.enter(KernelFn::reserve_highatomic_pageblock);
        // Every version takes the zone lock itself: ≤ 6.19 it is called from
        // get_page_from_freelist, 7.x from rmqueue_buddy after its spin_unlock_irqrestore.
        self.lock_zone(Step::HighatomicReserveLock);
        let mt = self.zone().pageblock_mt(pfn);
        if mt.is_mergeable() {
            if order < PAGEBLOCK_ORDER {
                let start = pfn & !(PAGEBLOCK_NR_PAGES - 1);
                let end = start + PAGEBLOCK_NR_PAGES;
                if end <= self.zone().pages() {
                    let moved = self.__move_freepages_block(
                        Step::HighatomicReserve,
                        start,
                        end,
                        mt,
                        MigrateType::HighAtomic,
                    );
                    self.handled(moved);
                    self.set_pageblock_migratetype(
                        Step::HighatomicReserve,
                        start >> PAGEBLOCK_ORDER,
                        MigrateType::HighAtomic,
                    );
                    self.counter(
                        Step::HighatomicReserve,
                        CounterId::nr_reserved_highatomic,
                        0,
                        pb,
                    );
                }
            } else {
                self.change_pageblock_range(
                    Step::HighatomicReserveRange,
                    pfn,
                    order,
                    MigrateType::HighAtomic,
                );
                self.counter(
                    Step::HighatomicReserveRange,
                    CounterId::nr_reserved_highatomic,
                    0,
                    1 << order,
                );
            }
        }
        self.unlock_zone();
        self.exit(KernelFn::reserve_highatomic_pageblock);
    }
}

/// `should_compact_retry`'s decision after a compaction that was not skipped (v7.3.4
/// mm/page_alloc.c:4281-4312; v6.12.117 :3836-3868, the same): a `COMPACT_SUCCESS` whose
/// allocation still failed retries while `++compaction_retries` stays within
/// `MAX_COMPACT_RETRIES` (a quarter above the costly order); otherwise the priority goes one
/// step stronger down to `MIN_COMPACT_PRIORITY` (`MIN_COMPACT_COSTLY_PRIORITY` above the costly
/// order), `compaction_retries` back to 0. Returns the decision and `max_retries` as traced.
fn compact_retry_decision(
    order: u8,
    result: CompactResult,
    prio: &mut CompactPriority,
    compaction_retries: &mut u32,
) -> (bool, u32) {
    let mut max_retries = MAX_COMPACT_RETRIES;
    if result == CompactResult::Success {
        if order > PAGE_ALLOC_COSTLY_ORDER {
            max_retries /= 4;
        }
        *compaction_retries += 1;
        if *compaction_retries <= max_retries {
            return (true, max_retries);
        }
    }
    let min_priority = if order > PAGE_ALLOC_COSTLY_ORDER {
        CompactPriority::SyncLight
    } else {
        CompactPriority::SyncFull
    };
    if *prio > min_priority {
        *prio = match *prio {
            CompactPriority::Async => CompactPriority::SyncLight,
            _ => CompactPriority::SyncFull,
        };
        *compaction_retries = 0;
        return (true, max_retries);
    }
    (false, max_retries)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MAX_COMPACT_RETRIES` running out, worked from `should_compact_retry` (v7.3.4
    /// mm/page_alloc.c:4249-4318; v6.12.117 :3809-3873). A compaction that reports
    /// `COMPACT_SUCCESS` while its allocation fails is, in the kernel, a race: another CPU or
    /// an interrupt took the block between `compact_finished` and `get_page_from_freelist`.
    /// The model runs one op at a time and nothing can come between the two, so no scenario
    /// reaches it; the decision is checked on its own here.
    ///
    /// * Order 9 (costly): `max_retries` = 16 / 4 = 4. From `COMPACT_PRIO_SYNC_LIGHT` (the
    ///   costly floor) the successes retry with `compaction_retries` 1, 2, 3, 4; the fifth
    ///   makes it 5 > 4 and falls through to the priority: already `MIN_COMPACT_COSTLY_PRIORITY`,
    ///   no retry (the allocation fails).
    /// * Order 2: 16 retries at SYNC_LIGHT, the 17th raises the priority to SYNC_FULL with
    ///   `compaction_retries` back to 0, 16 more there, then none.
    /// * A failed or withdrawn compaction does not count a retry: it only raises the priority,
    ///   and `max_retries` stays 16 (the quarter is taken only on success).
    #[test]
    fn max_compact_retries_runs_out() {
        let success = CompactResult::Success;
        let (mut prio, mut n) = (CompactPriority::SyncLight, 0);
        let got: Vec<_> = (0..5)
            .map(|_| compact_retry_decision(9, success, &mut prio, &mut n))
            .collect();
        assert_eq!(
            got,
            [(true, 4), (true, 4), (true, 4), (true, 4), (false, 4)]
        );
        assert_eq!((prio, n), (CompactPriority::SyncLight, 5));

        let (mut prio, mut n) = (CompactPriority::SyncLight, 0);
        for k in 1..=16 {
            assert_eq!(
                compact_retry_decision(2, success, &mut prio, &mut n),
                (true, 16)
            );
            assert_eq!((prio, n), (CompactPriority::SyncLight, k));
        }
        assert_eq!(
            compact_retry_decision(2, success, &mut prio, &mut n),
            (true, 16)
        );
        assert_eq!((prio, n), (CompactPriority::SyncFull, 0));
        for _ in 0..16 {
            assert!(compact_retry_decision(2, success, &mut prio, &mut n).0);
        }
        assert_eq!(
            compact_retry_decision(2, success, &mut prio, &mut n),
            (false, 16)
        );
        assert_eq!((prio, n), (CompactPriority::SyncFull, 17));

        for result in [CompactResult::Complete, CompactResult::PartialSkipped] {
            let (mut prio, mut n) = (CompactPriority::Async, 3);
            assert_eq!(
                compact_retry_decision(9, result, &mut prio, &mut n),
                (true, 16)
            );
            assert_eq!((prio, n), (CompactPriority::SyncLight, 0));
            assert_eq!(
                compact_retry_decision(9, result, &mut prio, &mut n),
                (false, 16)
            );
        }
    }
}
