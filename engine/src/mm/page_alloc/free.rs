//! The free path (kernel-model.md §3, §4): `__free_pages` → `__free_frozen_pages` →
//! `free_frozen_page_commit` / `free_pcppages_bulk` / `__free_one_page`, pcp draining and
//! `split_page`.

use super::{pcp_allowed_order, Engine, Fpi, FPI_NONE, FPI_PREPARED, FPI_TO_TAIL};
use crate::mm::events::*;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::*;
use crate::mm::zone::*;

/// The scalars of a `struct per_cpu_pages` (no lists) that `free_frozen_page_commit` reads,
/// copied once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PcpScalars {
    count: i32,
    high: i32,
    high_min: i32,
    high_max: i32,
    batch: i32,
    free_count: i32,
    prev_free_high_order: bool,
    free_high_batch: bool,
}

impl PcpScalars {
    #[inline(always)]
    fn of(p: &PerCpuPages) -> PcpScalars {
        PcpScalars {
            count: p.count,
            high: p.high,
            high_min: p.high_min,
            high_max: p.high_max,
            batch: p.batch,
            free_count: p.free_count,
            prev_free_high_order: p.prev_free_high_order,
            free_high_batch: p.free_high_batch,
        }
    }
}

impl Engine {
    /// `__free_pages(page, order)` of a block `owner` holds with refcount 1 (§3.1): the
    /// refcount drops to zero, so the whole block is freed.
    ///
    /// A page a third party still references ([`Engine::get_page`]; only order-0 pages take
    /// one) is not freed: `put_page_testzero` drops the owner's reference only, and the
    /// third party's last [`Engine::put_page_and_free`] frees it.
    pub fn free_pages(&mut self, pfn: ZonePfn, order: u8, cpu: usize) {
        if self.recording {
            self.free_pages_if::<true>(pfn, order, cpu)
        } else {
            self.free_pages_if::<false>(pfn, order, cpu)
        }
    }

    /// [`Engine::free_pages`], recording only if `REC` (as `alloc_pages_if`).
    #[inline(always)]
    fn free_pages_if<const REC: bool>(&mut self, pfn: ZonePfn, order: u8, cpu: usize) {
        self.enter_if::<REC>(KernelFn::__free_pages);
        if self.zone().mem_map[pfn as usize].refcount > 1 {
            self.drop_ref(Step::FreePagesStillHeld, pfn, true);
        } else {
            self.put_page_at::<REC>(Step::PutPage, pfn, order);
            self.__free_frozen_pages_if::<REC>(pfn, order, FPI_NONE, cpu);
        }
        self.exit_if::<REC>(KernelFn::__free_pages);
    }

    /// `get_page`: a third party (compaction's pfn scanner, a GUP pin) takes an extra
    /// reference on an allocated order-0 page.
    pub fn get_page(&mut self, pfn: ZonePfn) {
        self.enter(KernelFn::get_page);
        self.emit(Step::GetPage, Mutation::GetPage { pfn });
        self.exit(KernelFn::get_page);
    }

    /// `put_page` of an order-0 page by a third party: drops one reference; the last one
    /// frees the page (`folio_put` → `__folio_put` → `free_frozen_pages(page, 0)`, mm/swap.c).
    pub fn put_page_and_free(&mut self, pfn: ZonePfn, cpu: usize) {
        self.enter(KernelFn::put_page);
        if self.zone().mem_map[pfn as usize].refcount > 1 {
            self.drop_ref(Step::PutPageDrop, pfn, false);
        } else {
            self.put_page_at::<true>(Step::PutPageLast, pfn, 0);
            self.__free_frozen_pages(pfn, 0, FPI_NONE, cpu);
        }
        self.exit(KernelFn::put_page);
    }

    /// `put_page_testzero` that does not reach zero; `release`: it was the owner's reference.
    pub(crate) fn drop_ref(&mut self, step: Step, pfn: ZonePfn, release: bool) {
        let owner = self.zone().mem_map[pfn as usize].owner;
        let lru = self.zone().mem_map[pfn as usize].lru();
        self.emit(
            step,
            Mutation::PutPageRef {
                pfn,
                owner,
                lru,
                release,
            },
        );
    }

    /// `put_page_testzero` reaching zero: the owner lets go of the block.
    #[inline(always)]
    pub fn put_page(&mut self, pfn: ZonePfn, order: u8) {
        self.put_page_at::<true>(Step::PutPage, pfn, order);
    }

    /// [`Engine::put_page`] at a given pseudocode line (the owner's free, or a third party's
    /// last `put_page`). Inlined: every free calls it once, and its work is smaller than the
    /// call.
    #[inline(always)]
    fn put_page_at<const REC: bool>(&mut self, step: Step, pfn: ZonePfn, order: u8) {
        let owner = self.zone().mem_map[pfn as usize].owner;
        let lru = self.zone().mem_map[pfn as usize].lru();
        self.emit_if::<REC>(
            step,
            Mutation::PutPage {
                pfn,
                order,
                owner,
                lru,
            },
        );
    }

    /// `__free_pages_prepare`: emits `mm_page_free` unless the block was prepared already.
    #[inline(always)]
    fn free_pages_prepare<const REC: bool>(&mut self, pfn: ZonePfn, order: u8, fpi: Fpi) -> bool {
        if fpi & FPI_PREPARED != 0 {
            return true;
        }
        self.trace_if::<REC>(Step::TraceMmPageFree, Tracepoint::MmPageFree { pfn, order });
        true
    }

    /// Per-page `free_pages_prepare(page, 0)` of the chunked contiguous free (§5.2).
    pub fn prepare_one_page(&mut self, pfn: ZonePfn) {
        self.free_pages_prepare::<true>(pfn, 0, FPI_NONE);
    }

    /// `__free_frozen_pages` (§3.2): pcp for orders 0–3 and 9, buddy otherwise.
    pub fn __free_frozen_pages(&mut self, pfn: ZonePfn, order: u8, fpi: Fpi, cpu: usize) {
        if self.recording {
            self.__free_frozen_pages_if::<true>(pfn, order, fpi, cpu)
        } else {
            self.__free_frozen_pages_if::<false>(pfn, order, fpi, cpu)
        }
    }

    /// [`Engine::__free_frozen_pages`], recording only if `REC`.
    fn __free_frozen_pages_if<const REC: bool>(
        &mut self,
        pfn: ZonePfn,
        order: u8,
        fpi: Fpi,
        cpu: usize,
    ) {
        self.enter_if::<REC>(KernelFn::__free_frozen_pages);
        if !pcp_allowed_order(order) {
            self.__free_pages_ok(pfn, order, fpi);
        } else if self.free_pages_prepare::<REC>(pfn, order, fpi) {
            let mut mt = self.zone().pageblock_mt(pfn);
            if mt.idx() >= MIGRATE_PCPTYPES {
                if mt == MigrateType::Isolate {
                    self.free_one_page(pfn, order, fpi);
                    self.exit_if::<REC>(KernelFn::__free_frozen_pages);
                    return;
                }
                // HIGHATOMIC and CMA pages use the MOVABLE pcp list.
                mt = MigrateType::Movable;
            }
            self.lock_pcp_if::<REC>(Step::FreeFrozenPcpLock, cpu);
            self.free_frozen_page_commit::<REC>(cpu, pfn, mt, order);
            self.unlock_pcp();
        }
        self.exit_if::<REC>(KernelFn::__free_frozen_pages);
    }

    /// `__free_pages_ok`: prepare, then straight to the buddy.
    fn __free_pages_ok(&mut self, pfn: ZonePfn, order: u8, fpi: Fpi) {
        if self.free_pages_prepare::<true>(pfn, order, fpi) {
            self.free_one_page(pfn, order, fpi);
        }
    }

    /// `free_one_page` → `split_large_buddy`: at most one pageblock at a time.
    pub fn free_one_page(&mut self, pfn: ZonePfn, order: u8, fpi: Fpi) {
        self.enter(KernelFn::free_one_page);
        self.lock_zone(Step::FreeOnePageLock);
        self.handled(1 << order);
        let piece = order.min(PAGEBLOCK_ORDER);
        let end = pfn + (1 << order);
        let mut p = pfn;
        while p < end {
            let mt = self.zone().pageblock_mt(p);
            self.__free_one_page(p, piece, mt, fpi);
            p += 1 << piece;
        }
        self.unlock_zone();
        self.exit(KernelFn::free_one_page);
    }

    /// `__free_one_page` (§3.4): merge with free buddies, then head or tail placement.
    pub fn __free_one_page(&mut self, mut pfn: ZonePfn, mut order: u8, mt: MigrateType, fpi: Fpi) {
        self.enter(KernelFn::__free_one_page);
        self.account_freepages(Step::FreeOneAccount, 1i64 << order, mt);
        let mut buddy_pfn = 0u32;
        while order < MAX_PAGE_ORDER {
            if self.compaction_capture(pfn, order, mt) {
                self.account_freepages(Step::FreeOneCapture, -(1i64 << order), mt);
                self.exit(KernelFn::__free_one_page);
                return;
            }
            buddy_pfn = pfn ^ (1 << order);
            if !self.zone().is_buddy(buddy_pfn, order) {
                break;
            }
            let mut buddy_mt = mt;
            if order >= PAGEBLOCK_ORDER {
                buddy_mt = self.zone().pageblock_mt(buddy_pfn);
                if buddy_mt != mt && (!mt.is_mergeable() || !buddy_mt.is_mergeable()) {
                    break;
                }
            }
            self.del_from_free_list(Step::FreeOneDelBuddy, buddy_pfn, order, buddy_mt);
            if buddy_mt != mt {
                self.change_pageblock_range(Step::FreeOneRetypeBuddy, buddy_pfn, order, mt);
            }
            let combined = buddy_pfn & pfn;
            self.emit(
                Step::FreeOneMerge,
                Annotation::Merge {
                    pfn: combined,
                    buddy: buddy_pfn,
                    order: order + 1,
                },
            );
            pfn = combined;
            order += 1;
        }
        let to_tail = if fpi & FPI_TO_TAIL != 0 {
            true
        } else {
            self.buddy_merge_likely(pfn, buddy_pfn, order)
        };
        let step = if to_tail {
            Step::FreeOneAddTail
        } else {
            Step::FreeOneAddHead
        };
        self.add_to_free_list(step, pfn, order, mt, to_tail);
        self.exit(KernelFn::__free_one_page);
    }

    /// `task_capc(zone)` + `compaction_capture` (v7.3.4 mm/page_alloc.c:722-761): during a
    /// direct compaction of this zone, a block reaching the order asked for is the
    /// allocation's, unless it is CMA or isolated, or a MOVABLE block below pageblock order
    /// and the request is not movable (`mm_page_alloc_extfrag` when the types differ).
    fn compaction_capture(&mut self, pfn: ZonePfn, order: u8, mt: MigrateType) -> bool {
        let Some(capc) = self.capture else {
            return false;
        };
        if capc.page.is_some()
            || capc.zone != Some(self.node.active_index())
            || order != capc.order
            || matches!(mt, MigrateType::Cma | MigrateType::Isolate)
            || (order < PAGEBLOCK_ORDER
                && mt == MigrateType::Movable
                && capc.migratetype != MigrateType::Movable)
        {
            return false;
        }
        if mt != capc.migratetype {
            self.trace(
                Step::FreeOneCapture,
                Tracepoint::MmPageAllocExtfrag {
                    pfn,
                    alloc_order: capc.order,
                    fallback_order: order,
                    alloc_mt: capc.migratetype,
                    fallback_mt: mt,
                    change_ownership: self.zone().pageblock_mt(pfn) == capc.migratetype,
                },
            );
        }
        if let Some(c) = self.capture.as_mut() {
            c.page = Some(pfn);
        }
        true
    }

    /// `buddy_merge_likely`: is the order+1 buddy of the combined block free?
    fn buddy_merge_likely(&self, pfn: ZonePfn, buddy_pfn: ZonePfn, order: u8) -> bool {
        if order >= MAX_PAGE_ORDER - 1 {
            return false;
        }
        let higher = buddy_pfn & pfn;
        self.zone().is_buddy(higher ^ (1 << (order + 1)), order + 1)
    }

    /// `free_frozen_page_commit` (§4.5).
    fn free_frozen_page_commit<const REC: bool>(
        &mut self,
        cpu: usize,
        pfn: ZonePfn,
        mt: MigrateType,
        order: u8,
    ) {
        self.enter_if::<REC>(KernelFn::free_frozen_page_commit);
        let af = self.zone().pcp[cpu].alloc_factor;
        self.counter_if::<REC>(
            Step::CommitAllocFactor,
            CounterId::pcp_alloc_factor,
            cpu,
            (af >> 1) as i64 - af as i64,
        );
        let pindex = order_to_pindex(mt, order);
        self.handled(1 << order);
        self.emit_if::<REC>(
            Step::CommitAddHead,
            Mutation::PcpAdd {
                cpu: cpu as u8,
                pindex: pindex as u8,
                pfn,
                end: End::Head,
            },
        );
        // The pcp's scalars, read once after the add: the events below change only the counter
        // each names, and `p` follows them (read back through the zone after each event, every
        // read was the zone's index, the pcp vector's bounds and a reload).
        let zone = self.zone();
        let half_high_min = zone.cfg.kernel.free_high_needs_half_high_min();
        let mut p = PcpScalars::of(&zone.pcp[cpu]);
        let batch = p.batch;
        let mut free_high = false;
        let prev_high = p.prev_free_high_order;
        if (1..=PAGE_ALLOC_COSTLY_ORDER).contains(&order) {
            // 6.12.117 free_unref_page_commit: `free_count >= batch` (:2696).
            let need = if half_high_min {
                batch + p.high_min / 2
            } else {
                batch
            };
            free_high =
                p.free_count >= need && prev_high && (!p.free_high_batch || p.count >= batch);
            self.set_flag_if::<REC>(
                Step::CommitFreeHigh,
                CounterId::pcp_prev_free_high_order,
                cpu,
                prev_high,
                true,
            );
            p.prev_free_high_order = true;
        } else {
            self.set_flag_if::<REC>(
                Step::CommitFreeHigh,
                CounterId::pcp_prev_free_high_order,
                cpu,
                prev_high,
                false,
            );
            p.prev_free_high_order = false;
        }
        if p.free_count < (batch << PCP_BATCH_SCALE_MAX) {
            self.counter_if::<REC>(
                Step::CommitFreeCount,
                CounterId::pcp_free_count,
                cpu,
                1 << order,
            );
            p.free_count += 1 << order;
        }
        let high = self.nr_pcp_high::<REC>(cpu, &mut p, free_high);
        debug_assert_eq!(p, PcpScalars::of(&self.zone().pcp[cpu]));
        if p.count >= high {
            let mut to_free = self.nr_pcp_free(cpu, batch, high, free_high);
            if self.zone().cfg.kernel.pcp_free_in_batches() {
                while to_free > 0 && self.zone().pcp[cpu].count > 0 {
                    let chunk = to_free.min(batch);
                    self.free_pcppages_bulk(Step::CommitDrain, cpu, chunk, pindex);
                    to_free -= chunk;
                    if to_free > 0 && self.zone().pcp[cpu].count > 0 {
                        // pcp_spin_unlock, then pcp_spin_trylock (v6.19 :2916-2921): the model's
                        // trylock always succeeds on the same CPU, but the hold ends here.
                        self.unlock_pcp();
                        self.relock_pcp();
                    }
                }
            } else if to_free > 0 && self.zone().pcp[cpu].count > 0 {
                self.free_pcppages_bulk(Step::CommitDrain, cpu, to_free, pindex);
            }
            if self.zone().below_high {
                let high_w = self.zone().wmark_pages(WMARK_HIGH);
                let free = self.zone().nr_free_pages;
                if self.zone_watermark_ok(0, high_w, 0, free) {
                    self.set_flag_if::<REC>(
                        Step::CommitClearBelowHigh,
                        CounterId::zone_below_high,
                        0,
                        true,
                        false,
                    );
                }
            }
        }
        self.exit_if::<REC>(KernelFn::free_frozen_page_commit);
    }

    /// `nr_pcp_high` (§4.5): the limit for this free; may move `pcp.high` (in the zone and in
    /// `p`, the pcp's scalars as the caller read them).
    #[inline(always)]
    fn nr_pcp_high<const REC: bool>(
        &mut self,
        cpu: usize,
        p: &mut PcpScalars,
        free_high: bool,
    ) -> i32 {
        let (high_min, high_max, batch) = (p.high_min, p.high_max, p.batch);
        let high = Self::kclamp(p.high, high_min, high_max);
        self.move_pcp_high::<REC>(cpu, p, high);
        if high == 0 {
            return 0;
        }
        if free_high {
            self.move_pcp_high::<REC>(
                cpu,
                p,
                (high - (batch << PCP_BATCH_SCALE_MAX)).max(high_min),
            );
            return 0;
        }
        if high_min == high_max {
            return high;
        }
        let (count, free_count) = (p.count, p.free_count);
        if self.zone().below_high {
            self.move_pcp_high::<REC>(cpu, p, (high - free_count.max(batch)).max(high_min));
            return count.max(high_min);
        }
        if count >= high {
            let need = free_count + batch;
            if p.high < need {
                self.move_pcp_high::<REC>(cpu, p, Self::kclamp(need, high_min, high_max));
            }
        }
        high
    }

    /// `pcp->high = new` in `nr_pcp_high`, from the value in `p`.
    #[inline(always)]
    fn move_pcp_high<const REC: bool>(&mut self, cpu: usize, p: &mut PcpScalars, new: i32) {
        self.counter_if::<REC>(
            Step::NrPcpHigh,
            CounterId::pcp_high,
            cpu,
            new as i64 - p.high as i64,
        );
        p.high = new;
    }

    /// `nr_pcp_free`.
    fn nr_pcp_free(&self, cpu: usize, batch: i32, high: i32, free_high: bool) -> i32 {
        let p = &self.zone().pcp[cpu];
        if free_high {
            return p.count.min(batch << PCP_BATCH_SCALE_MAX);
        }
        if high < batch {
            return 1;
        }
        Self::kclamp(p.free_count, batch, high - batch)
    }

    /// `free_pcppages_bulk` (§4.6): from the back of the list at `pindex` first, one list
    /// emptied before the next, round robin; the pageblock type is re-read per page.
    pub fn free_pcppages_bulk(&mut self, step: Step, cpu: usize, count: i32, pindex: usize) {
        self.enter(KernelFn::free_pcppages_bulk);
        let mut count = count.min(self.zone().pcp[cpu].count);
        self.emit(
            step,
            Annotation::PcpDrain {
                cpu: cpu as u8,
                count: count.max(0) as u32,
                pindex: pindex as u8,
            },
        );
        self.lock_zone(Step::BulkFreeLock);
        let mut i = pindex + NR_PCP_LISTS - 1;
        while count > 0 {
            loop {
                i = (i + 1) % NR_PCP_LISTS;
                if self.zone().pcp[cpu].lists[i].len > 0 {
                    break;
                }
            }
            let o = pindex_to_order(i);
            loop {
                let list = self.zone().pcp[cpu].lists[i];
                let p = list.tail;
                let mt = self.zone().pageblock_mt(p);
                let prev = self.zone().mem_map[p as usize].prev;
                self.emit(
                    Step::BulkFreeTakeTail,
                    Mutation::PcpDel {
                        cpu: cpu as u8,
                        pindex: i as u8,
                        pfn: p,
                        prev,
                    },
                );
                count -= 1 << o;
                self.handled(1 << o);
                self.__free_one_page(p, o, mt, FPI_NONE);
                self.trace(
                    Step::TracePcpuDrain,
                    Tracepoint::MmPagePcpuDrain {
                        pfn: p,
                        order: o,
                        mt,
                    },
                );
                if count <= 0 || self.zone().pcp[cpu].lists[i].len == 0 {
                    break;
                }
            }
        }
        self.unlock_zone();
        self.exit(KernelFn::free_pcppages_bulk);
    }

    /// `drain_all_pages(NULL)` for the one zone: `drain_pages_zone` on every CPU whose pcp holds
    /// pages, in CPU order (§4.7).
    pub fn drain_all_pages(&mut self) {
        if self.node.several_zones() {
            return self.drain_all_pages_node();
        }
        for cpu in 0..self.zone().pcp.len() {
            if self.zone().pcp[cpu].count != 0 {
                self.drain_pages_zone(cpu);
            }
        }
    }

    /// `drain_pages_zone(cpu)` (§4.7).
    pub fn drain_pages_zone(&mut self, cpu: usize) {
        self.enter(KernelFn::drain_pages_zone);
        loop {
            self.lock_pcp(Step::DrainLock, cpu);
            let mut count = self.zone().pcp[cpu].count;
            if count > 0 {
                let to_drain = count.min(self.zone().pcp[cpu].batch << PCP_BATCH_SCALE_MAX);
                self.free_pcppages_bulk(Step::DrainBulk, cpu, to_drain, 0);
                count -= to_drain;
            }
            self.unlock_pcp();
            if count <= 0 {
                break;
            }
        }
        self.exit(KernelFn::drain_pages_zone);
    }

    /// `decay_pcp_high(zone, pcp)` (§4.7; run by the vmstat worker `refresh_cpu_vm_stats` every
    /// `stat_interval`): lower `high` toward `high_min` by an eighth (never below `count − batch
    /// << 5`), then free what exceeds it from pindex 0: 6.18 in one `free_pcppages_bulk`, 6.12
    /// and 6.19+ in `batch`-sized chunks, each under its own pcp lock. Returns the pages freed.
    pub fn decay_pcp_high(&mut self, cpu: usize) -> u64 {
        self.enter(KernelFn::decay_pcp_high);
        let p = &self.zone().pcp[cpu];
        let (high_min, batch, count, high) = (p.high_min, p.batch, p.count, p.high);
        if high > high_min {
            let new = (count - (batch << PCP_BATCH_SCALE_MAX))
                .max(high - (high >> 3))
                .max(high_min);
            self.set_pcp_high(Step::DecayHigh, cpu, new);
        }
        let mut to_drain = self.zone().pcp[cpu].count - self.zone().pcp[cpu].high;
        let before = self.zone().pcp[cpu].count;
        if self.zone().cfg.kernel.decay_in_batches() {
            while to_drain > 0 {
                let chunk = to_drain.min(batch);
                self.lock_pcp(Step::DecayLock, cpu);
                self.free_pcppages_bulk(Step::DecayBulk, cpu, chunk, 0);
                self.unlock_pcp();
                to_drain -= chunk;
            }
        } else if to_drain > 0 {
            self.lock_pcp(Step::DecayLock, cpu);
            self.free_pcppages_bulk(Step::DecayBulk, cpu, to_drain, 0);
            self.unlock_pcp();
        }
        self.exit(KernelFn::decay_pcp_high);
        (before - self.zone().pcp[cpu].count) as u64
    }

    /// `split_page`: every tail page gets its own reference.
    pub fn split_page(&mut self, pfn: ZonePfn, order: u8) {
        if order == 0 {
            return;
        }
        self.enter(KernelFn::split_page);
        self.emit(Step::SplitPage, Mutation::SplitPage { pfn, order });
        self.exit(KernelFn::split_page);
    }
}
