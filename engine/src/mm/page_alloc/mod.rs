//! The allocation and free paths of `mm/page_alloc.c` (kernel-model.md §2–§4, §7).
//!
//! [`Engine`] owns a [`Node`], the run's cost counters and the [`EventLog`]. Every state change
//! goes through [`Engine::emit`], which applies a mutation event to the node and records it: a
//! replay of the log through [`Node::apply`] therefore reproduces the run exactly.
//!
//! The allocation path is in `alloc.rs`, the free path in `free.rs`; this file holds the
//! engine, its event primitives, the free-list helpers and the watermark checks they share.

mod alloc;
pub mod compaction;
mod free;
pub mod isolation;
pub mod zones;

use crate::mm::events::*;
use crate::mm::node::Node;
use crate::mm::stats::Stats;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::trace::EventLog;
use crate::mm::types::alloc_flags::*;
use crate::mm::types::*;
use crate::mm::zone::*;

/// `FPI_*` flags of `__free_pages_ok` / `__free_frozen_pages`.
pub type Fpi = u32;
pub const FPI_NONE: Fpi = 0;
/// Put the block at the tail of its free list (boot, memory onlining).
pub const FPI_TO_TAIL: Fpi = 1 << 1;
/// [7.2] `free_pages_prepare()` already ran for every page of the block.
pub const FPI_PREPARED: Fpi = 1 << 3;

/// The largest pcp hold of one list step that [`Engine`] counts apart until read: a block of
/// `PAGE_ALLOC_COSTLY_ORDER` (the fast paths' largest pcp order but THP's).
const PCP_FAST_HOLD_PAGES: usize = 1 << PAGE_ALLOC_COSTLY_ORDER;

/// `enum rmqueue_mode` (§2.5): where a `__rmqueue` call starts within one `rmqueue_bulk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmqueueMode {
    Normal,
    Cma,
    // `__rmqueue` falls through `RMQUEUE_CLAIM` but never stores it (nor does the model).
    #[allow(dead_code)]
    Claim,
    Steal,
}

/// The simulated kernel: a node, the run's cost counters and the trace being recorded.
#[derive(Clone, Debug)]
pub struct Engine {
    /// The node: its zones and the one being worked on ([`Engine::zone`]).
    pub(crate) node: Node,
    /// The run's cost counters: every event counts towards them, whichever zone it is in.
    pub(crate) stats: Stats,
    /// The recorded events.
    pub log: EventLog,
    /// When false, mutations still apply but nothing is stored (benchmarks, boot).
    pub recording: bool,
    /// Pages handled per lock hold over the run ([`crate::mm::locks`]), up to the last
    /// [`Engine::take_op_holds`]; [`Engine::run_holds`] adds the holds since.
    pub holds: crate::mm::locks::LockHolds,
    /// The holds since the last [`Engine::take_op_holds`] (the runner takes them at the end of
    /// each op). An unlock records into this one only; `holds` gets the sum when it is taken,
    /// one histogram update per unlock instead of two.
    op_holds: crate::mm::locks::LockHolds,
    /// The pcp holds of the fast paths since the last [`Engine::take_op_holds`], not yet in
    /// `op_holds`: `[n]` counts the holds that handled `n` pages in one list step (a block of
    /// order 0-3 put on or taken off a pcp list, nothing else). Every allocation and free from a
    /// pcp list is one; counted here, the histogram's update (sums, maxima, bucket) is made
    /// once per size when the holds are read, not at every unlock.
    pcp_fast_holds: [u64; PCP_FAST_HOLD_PAGES + 1],
    open_holds: crate::mm::locks::OpenHolds,
    /// `ac->highest_zoneidx` of the allocation in progress (`gfp_zone`): which
    /// `lowmem_reserve[]` entry the watermark checks add (all 0 in a node of one zone).
    pub(crate) highest_zoneidx: ZoneType,
    /// The type an un-isolated pageblock gets: `None` keeps the type under
    /// `PB_migrate_isolate` (6.16+); 6.12's `unset_migratetype_isolate(page, migratetype)`
    /// sets the caller's (`Some`, for the `alloc_contig_range` in progress).
    pub(crate) unisolate_mt: Option<MigrateType>,
    /// `current->capture_control` during a direct compaction (`__alloc_pages_direct_compact`):
    /// `__free_one_page` in its zone hands a block of its order to it.
    pub(crate) capture: Option<compaction::CaptureControl>,
    /// The folios direct compaction moved since the runner last took them
    /// ([`Engine::take_direct_migrations`]), so their names follow them.
    pub(crate) direct_migrated: Vec<isolation::Migration>,
}

/// Result of `find_suitable_fallback`.
enum Fallback {
    Found(MigrateType),
    /// -1: no block of that order on a fallback list.
    None,
    /// -2: `should_try_claim_block` refused this order.
    Refused,
}

pub fn pcp_allowed_order(order: u8) -> bool {
    order <= PAGE_ALLOC_COSTLY_ORDER || order == HPAGE_PMD_ORDER
}

impl Engine {
    /// An engine over `node` (a [`Zone`] is a node of one zone), recording.
    pub fn new(node: impl Into<Node>) -> Engine {
        Engine {
            node: node.into(),
            stats: Stats::default(),
            log: EventLog::default(),
            recording: true,
            holds: Default::default(),
            op_holds: Default::default(),
            pcp_fast_holds: [0; PCP_FAST_HOLD_PAGES + 1],
            open_holds: Default::default(),
            highest_zoneidx: ZoneType::Normal,
            unisolate_mt: None,
            capture: None,
            direct_migrated: Vec::new(),
        }
    }

    /// The node.
    pub fn node(&self) -> &Node {
        &self.node
    }

    /// The node, the engine given up: a start state kept without a copy (the app's worker
    /// transfer rebuilds a run from its initial node).
    pub fn into_node(self) -> Node {
        self.node
    }

    /// The zone being worked on: the one the allocation and free code operate on.
    #[inline(always)]
    pub fn zone(&self) -> &Zone {
        self.node.active()
    }

    /// The zone being worked on, to lay out in setup (the `/proc` import, a snapshot): after
    /// setup a zone changes only through [`Engine::emit`].
    pub(crate) fn zone_mut(&mut self) -> &mut Zone {
        self.node.active_mut()
    }

    /// The run's cost counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Zeroes the cost counters. Setup (boot freeing, the `/proc` import, a snapshot) calls it
    /// once the node is built, so a run's counters count only its ops. Not an event: it happens
    /// before the recorded trace starts, so no timeline ever steps across it.
    pub(crate) fn reset_stats(&mut self) {
        self.stats = Stats::default();
    }

    /// Runs `f` as a "what if": every event it emits is recorded into `scratch` (cleared
    /// first), then undone in reverse through [`Node::unapply`], so the node, the counters and
    /// the engine's own bookkeeping (lock holds, `highest_zoneidx`) are exactly as before and
    /// the main log is untouched. `scratch` keeps what `f` did, for the caller to read.
    pub fn speculate<T>(&mut self, scratch: &mut EventLog, f: impl FnOnce(&mut Engine) -> T) -> T {
        let saved = (
            self.recording,
            self.holds,
            self.op_holds,
            self.pcp_fast_holds,
            self.open_holds,
            self.highest_zoneidx,
        );
        scratch.events.clear();
        scratch.messages.clear();
        std::mem::swap(&mut self.log, scratch);
        self.recording = true;
        let out = f(self);
        std::mem::swap(&mut self.log, scratch);
        for ev in scratch.events.iter().rev() {
            self.node.unapply(ev);
            self.stats.unapply(ev);
        }
        (
            self.recording,
            self.holds,
            self.op_holds,
            self.pcp_fast_holds,
            self.open_holds,
            self.highest_zoneidx,
        ) = saved;
        out
    }

    // ------------------------------------------------------------------ event plumbing
    //
    // The allocation and free fast paths are compiled twice, with `REC` (may record) true and
    // false: `alloc_pages`, `free_pages` and `__free_frozen_pages` pick the copy by
    // `self.recording` once, and the recording-off copy neither tests it again nor builds an
    // event for the trace. Elsewhere the primitives without `_if` test it as before
    // (`REC = true`: recording when `self.recording` says so).

    /// Applies an event to the node and the counters and records it.
    #[inline(always)]
    pub fn emit(&mut self, step: Step, kind: impl Into<EventKind>) {
        self.emit_if::<true>(step, kind)
    }

    /// [`Engine::emit`], recording only if `REC` and `self.recording`.
    #[inline(always)]
    pub(crate) fn emit_if<const REC: bool>(&mut self, step: Step, kind: impl Into<EventKind>) {
        let kind = kind.into();
        self.node.apply_kind(kind);
        self.stats.count(step, kind, false);
        if REC && self.recording {
            self.log.events.push(Event::new(step, kind));
        }
    }

    /// Records an annotation that changes nothing (not even a counter): skipped when not
    /// recording, so the fast path pays nothing for call-chain bookkeeping.
    #[inline]
    pub fn note(&mut self, step: Step, kind: Annotation) {
        if self.recording {
            self.log.events.push(Event::new(step, kind.into()));
        }
    }

    /// `note` of `Annotation::Enter` at `Step::Enter`, straight into the trace's call stream.
    #[inline(always)]
    pub fn enter(&mut self, f: KernelFn) {
        self.enter_if::<true>(f)
    }

    #[inline(always)]
    pub(crate) fn enter_if<const REC: bool>(&mut self, f: KernelFn) {
        if REC && self.recording {
            self.log.events.push_call(f, false);
        }
    }

    /// `note` of `Annotation::Exit` at `Step::Exit`.
    #[inline(always)]
    pub fn exit(&mut self, f: KernelFn) {
        self.exit_if::<true>(f)
    }

    #[inline(always)]
    pub(crate) fn exit_if<const REC: bool>(&mut self, f: KernelFn) {
        if REC && self.recording {
            self.log.events.push_call(f, true);
        }
    }

    /// An engine message (`# ...` trace line).
    pub fn message(&mut self, step: Step, level: MsgLevel, text: String) {
        if self.recording {
            let id = self.log.messages.len() as u32;
            self.log.messages.push(text);
            self.log
                .events
                .push(Event::new(step, Annotation::Message { level, id }.into()));
        }
    }

    /// Inlined: each call site names one counter, so `Zone::counter`'s match on the id folds
    /// away (out of line it was ~8 % of the recording-off instructions).
    #[inline(always)]
    fn counter(&mut self, step: Step, id: CounterId, cpu: usize, delta: i64) {
        self.counter_if::<true>(step, id, cpu, delta)
    }

    #[inline(always)]
    fn counter_if<const REC: bool>(&mut self, step: Step, id: CounterId, cpu: usize, delta: i64) {
        if delta != 0 {
            self.emit_if::<REC>(
                step,
                Mutation::Counter {
                    id,
                    cpu: cpu as u8,
                    delta: delta as i32,
                },
            );
        }
    }

    #[inline(always)]
    fn set_flag(&mut self, step: Step, id: CounterId, cpu: usize, cur: bool, want: bool) {
        self.set_flag_if::<true>(step, id, cpu, cur, want)
    }

    #[inline(always)]
    fn set_flag_if<const REC: bool>(
        &mut self,
        step: Step,
        id: CounterId,
        cpu: usize,
        cur: bool,
        want: bool,
    ) {
        if cur != want {
            self.counter_if::<REC>(step, id, cpu, if want { 1 } else { -1 });
        }
    }

    /// Inlined like `emit`: out of line, the tracepoint went through the stack and its reload
    /// stalled on store forwarding (`perf annotate`: 70 % of `trace` on that load).
    #[inline(always)]
    fn trace(&mut self, step: Step, t: Tracepoint) {
        self.trace_if::<true>(step, t)
    }

    #[inline(always)]
    fn trace_if<const REC: bool>(&mut self, step: Step, t: Tracepoint) {
        self.emit_if::<REC>(step, Annotation::Trace(t));
    }

    /// `emit` of the `Lock` annotation, pushed as the byte the trace keeps it as.
    #[inline(always)]
    fn emit_lock<const REC: bool>(&mut self, step: Step, zone: bool, cpu: u8) {
        self.stats
            .count(step, Annotation::Lock { zone, cpu }.into(), false);
        if REC && self.recording {
            self.log.events.push_lock(step, zone, cpu);
        }
    }

    /// Inlined: each call site names its step, so the lock's code folds to a constant.
    #[inline(always)]
    fn lock_zone(&mut self, step: Step) {
        self.emit_lock::<true>(step, true, 0);
        self.open_holds.zone = Some(self.open_hold());
    }

    #[inline(always)]
    fn lock_pcp(&mut self, step: Step, cpu: usize) {
        self.lock_pcp_if::<true>(step, cpu)
    }

    #[inline(always)]
    fn lock_pcp_if<const REC: bool>(&mut self, step: Step, cpu: usize) {
        self.emit_lock::<REC>(step, false, cpu as u8);
        self.relock_pcp();
    }

    /// A pcp hold begins without a `Lock` event: the `pcp_spin_trylock` between the
    /// `free_pcppages_bulk` chunks of 6.19+ `free_frozen_page_commit` (the `pcp_lock` counter
    /// and the event stream stay as they were before the hold counters).
    pub(crate) fn relock_pcp(&mut self) {
        self.open_holds.pcp = Some(self.open_hold());
    }

    /// List steps so far: free-list and pcp-list operations and fallback probes.
    fn list_steps(&self) -> u64 {
        let s = &self.stats;
        s.freelist_ops + s.pcp_ops + s.fallback_probes
    }

    fn open_hold(&self) -> crate::mm::locks::OpenHold {
        crate::mm::locks::OpenHold {
            pages: 0,
            steps_at_lock: self.list_steps(),
        }
    }

    /// `pages` enter or leave the buddy or pcp lists: counted under every lock held now.
    /// Two plain tests: every allocation and free calls it, and the loop over an array of the
    /// two locks it replaces did not fold away.
    #[inline(always)]
    pub(crate) fn handled(&mut self, pages: u64) {
        if let Some(h) = &mut self.open_holds.zone {
            h.pages += pages;
        }
        if let Some(h) = &mut self.open_holds.pcp {
            h.pages += pages;
        }
    }

    /// `spin_unlock_irqrestore(&zone->lock)`: the zone hold ends and is recorded.
    pub(crate) fn unlock_zone(&mut self) {
        if let Some(h) = self.open_holds.zone.take() {
            let steps = self.list_steps() - h.steps_at_lock;
            self.op_holds.zone.record(h.pages, steps);
        }
    }

    /// `pcp_spin_unlock`: the pcp hold ends and is recorded (a fast path's counted in
    /// `pcp_fast_holds`).
    #[inline(always)]
    pub(crate) fn unlock_pcp(&mut self) {
        if let Some(h) = self.open_holds.pcp.take() {
            let steps = self.list_steps() - h.steps_at_lock;
            if steps == 1 && h.pages <= PCP_FAST_HOLD_PAGES as u64 {
                self.pcp_fast_holds[h.pages as usize] += 1;
            } else {
                self.op_holds.pcp.record(h.pages, steps);
            }
        }
    }

    /// The holds since the last call (an op's), added to the run's `holds`.
    pub fn take_op_holds(&mut self) -> crate::mm::locks::LockHolds {
        let mut h = std::mem::take(&mut self.op_holds);
        self.add_pcp_fast_holds(&mut h);
        self.pcp_fast_holds = [0; PCP_FAST_HOLD_PAGES + 1];
        self.holds += h;
        h
    }

    /// Every hold since `holds` was last reset: the taken ones and those since.
    pub fn run_holds(&self) -> crate::mm::locks::LockHolds {
        let mut h = self.holds;
        h += self.op_holds;
        self.add_pcp_fast_holds(&mut h);
        h
    }

    /// Forgets every hold so far (the runner's, once setup is done: boot's are not the run's).
    pub fn reset_holds(&mut self) {
        self.holds = Default::default();
        self.op_holds = Default::default();
        self.pcp_fast_holds = [0; PCP_FAST_HOLD_PAGES + 1];
    }

    /// `pcp_fast_holds` recorded into `h`, as `unlock_pcp` would have one by one.
    fn add_pcp_fast_holds(&self, h: &mut crate::mm::locks::LockHolds) {
        for (pages, &n) in self.pcp_fast_holds.iter().enumerate() {
            h.pcp.record_many(pages as u64, 1, n);
        }
    }

    // ------------------------------------------------------------------ free list primitives

    /// `__add_to_free_list` + `set_buddy_order` (no `NR_FREE_PAGES` change).
    pub(crate) fn add_to_free_list(
        &mut self,
        step: Step,
        pfn: ZonePfn,
        order: u8,
        mt: MigrateType,
        tail: bool,
    ) {
        let end = if tail { End::Tail } else { End::Head };
        self.emit(
            step,
            Mutation::FreeListAdd {
                pfn,
                order,
                mt,
                end,
            },
        );
    }

    /// `__del_page_from_free_list` (no `NR_FREE_PAGES` change). `list_del` unlinks the block
    /// from the list it is really on; `mt` (the caller's idea of it) only matters for
    /// accounting, which the callers do.
    pub(crate) fn del_from_free_list(
        &mut self,
        step: Step,
        pfn: ZonePfn,
        order: u8,
        _mt: MigrateType,
    ) {
        let prev = self.zone().mem_map[pfn as usize].prev;
        let mt = self.zone().list_mt_of(pfn);
        self.emit(
            step,
            Mutation::FreeListDel {
                pfn,
                order,
                mt,
                prev,
            },
        );
    }

    /// `account_freepages`.
    pub(crate) fn account_freepages(&mut self, step: Step, nr: i64, mt: MigrateType) {
        if mt != MigrateType::Isolate && nr != 0 {
            self.emit(
                step,
                Mutation::Account {
                    mt,
                    delta: nr as i32,
                },
            );
        }
    }

    /// `move_to_free_list`: unlink, append to the new type's list, move the accounting.
    fn move_to_free_list(
        &mut self,
        step: Step,
        pfn: ZonePfn,
        order: u8,
        from: MigrateType,
        to: MigrateType,
    ) {
        let prev = self.zone().mem_map[pfn as usize].prev;
        let actual = self.zone().list_mt_of(pfn);
        self.emit(
            step,
            Mutation::FreeListMove {
                pfn,
                order,
                from: actual,
                to,
                prev,
            },
        );
        self.account_freepages(step, -(1i64 << order), from);
        self.account_freepages(step, 1i64 << order, to);
    }

    /// `set_pageblock_migratetype`: mobility grouping off writes UNMOVABLE for the pcp types;
    /// writing clears the isolate bit.
    pub fn set_pageblock_migratetype(&mut self, step: Step, pb: u32, mt: MigrateType) {
        let mt = if self.zone().cfg.mobility_disabled && mt.is_mergeable() {
            MigrateType::Unmovable
        } else {
            mt
        };
        let old = self.zone().pageblock[pb as usize];
        // The skip bit is a separate bit of the pageblock flags: kept.
        let new = mt as u8 | (old & PB_SKIP);
        if old != new {
            self.emit(step, Mutation::SetPageblock { pb, old, new });
        }
    }

    /// `change_pageblock_range`: every pageblock of the block at `pfn` of `order`.
    fn change_pageblock_range(&mut self, step: Step, pfn: ZonePfn, order: u8, mt: MigrateType) {
        let first = pfn >> PAGEBLOCK_ORDER;
        let n = if order >= PAGEBLOCK_ORDER {
            1u32 << (order - PAGEBLOCK_ORDER)
        } else {
            1
        };
        for pb in first..first + n {
            if pb < self.zone().nr_pageblocks() {
                self.set_pageblock_migratetype(step, pb, mt);
            }
        }
    }

    fn front(&self, order: u8, mt: MigrateType) -> Option<ZonePfn> {
        let h = self.zone().free_lists[order as usize][mt.idx()].head;
        (h != NIL).then_some(h)
    }

    // ------------------------------------------------------------------ watermarks

    /// `__zone_watermark_unusable_free`.
    fn unusable_free(&self, order: u8, flags: u32) -> i64 {
        let mut u = (1i64 << order) - 1;
        if flags & ALLOC_RESERVES == 0 {
            u += self.zone().nr_free_highatomic;
        }
        if self.zone().cfg.cma && flags & ALLOC_CMA == 0 {
            u += self.zone().nr_free_cma;
        }
        u
    }

    /// `__zone_watermark_ok` (§7.1). Looks only at the buddy lists: pcp pages do not count.
    pub fn zone_watermark_ok(&self, order: u8, mark: u64, flags: u32, free: i64) -> bool {
        self.__zone_watermark_ok(order, mark, flags, free)
    }

    /// [`Engine::zone_watermark_ok`], inlined into `zone_watermark_fast`'s first check: every
    /// allocation above order 0 makes it, and the call saved and restored registers around a
    /// check of a few compares.
    #[inline(always)]
    fn __zone_watermark_ok(&self, order: u8, mark: u64, flags: u32, free: i64) -> bool {
        let free = free - self.unusable_free(order, flags);
        let mut min = mark as i64;
        if flags & ALLOC_RESERVES != 0 {
            if flags & ALLOC_MIN_RESERVE != 0 {
                min -= min / 2;
                if flags & ALLOC_NON_BLOCK != 0 {
                    min -= min / 4;
                }
            }
            if flags & ALLOC_OOM != 0 {
                min -= min / 2;
            }
        }
        if free <= min + self.lowmem_reserve_now() {
            return false;
        }
        if order == 0 {
            return true;
        }
        for o in order..=MAX_PAGE_ORDER {
            if self.zone().nr_free[o as usize] == 0 {
                continue;
            }
            let fl = &self.zone().free_lists[o as usize];
            if fl[..MIGRATE_PCPTYPES].iter().any(|l| l.len > 0) {
                return true;
            }
            if flags & ALLOC_CMA != 0 && fl[MigrateType::Cma.idx()].len > 0 {
                return true;
            }
            if flags & (ALLOC_HIGHATOMIC | ALLOC_OOM) != 0
                && fl[MigrateType::HighAtomic.idx()].len > 0
            {
                return true;
            }
        }
        false
    }

    /// `zone_watermark_fast`: order-0 shortcut, the full check, and the `__GFP_HIGH` retry
    /// without the boost. Records a `Watermark` event.
    ///
    /// Inlined: every allocation checks at least one watermark, and out of line the call's
    /// saving and restoring of registers was a quarter of the check.
    #[inline(always)]
    fn zone_watermark_fast<const REC: bool>(
        &mut self,
        step: Step,
        order: u8,
        mark: u64,
        flags: u32,
    ) -> bool {
        let free = self.zone().nr_free_pages;
        let mut ok = false;
        if order == 0 {
            let reserved = self.unusable_free(0, flags);
            let usable = free - free.min(reserved);
            ok = usable > mark as i64 + self.lowmem_reserve_now();
        }
        if !ok {
            ok = self.__zone_watermark_ok(order, mark, flags, free);
        }
        if !ok
            && order == 0
            && flags & ALLOC_MIN_RESERVE != 0
            && self.zone().watermark_boost != 0
            && flags & ALLOC_WMARK_MASK == ALLOC_WMARK_MIN
        {
            let m = self.zone().watermark[WMARK_MIN];
            ok = self.zone_watermark_ok(order, m, flags, free);
        }
        // The event's mark and free are read from the trace only: not recording, the counters
        // need `ok` alone, so the reserve lookup and the clamps are skipped (~3 % of the
        // recording-off instructions, every allocation checks a watermark).
        let (mark, free) = if REC && self.recording {
            (
                (mark + self.lowmem_reserve_now() as u64).min(u32::MAX as u64) as u32,
                free.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            )
        } else {
            (0, 0)
        };
        self.emit_if::<REC>(
            step,
            Annotation::Watermark {
                order,
                mark,
                free,
                ok,
            },
        );
        ok
    }

    /// `boost_watermark` (§7.1).
    fn boost_watermark(&mut self) -> bool {
        let managed = self.zone().cfg.pages as u64;
        if PAGEBLOCK_NR_PAGES as u64 * 4 > managed {
            return false;
        }
        let high = self.zone().watermark[WMARK_HIGH];
        // mult_frac(high, watermark_boost_factor = 15000, 10000)
        let max_boost = (high / 10000) * 15000 + (high % 10000) * 15000 / 10000;
        if max_boost == 0 {
            return false;
        }
        let max_boost = max_boost.max(PAGEBLOCK_NR_PAGES as u64) as i64;
        let new = (self.zone().watermark_boost + PAGEBLOCK_NR_PAGES as i64).min(max_boost);
        let d = new - self.zone().watermark_boost;
        self.counter(Step::BoostWatermark, CounterId::watermark_boost, 0, d);
        true
    }

    /// The kernel's `clamp(v, lo, hi)`: `hi` wins when `lo > hi`.
    fn kclamp(v: i32, lo: i32, hi: i32) -> i32 {
        if v >= hi {
            hi
        } else if v <= lo {
            lo
        } else {
            v
        }
    }

    #[inline(always)]
    fn set_pcp_high(&mut self, step: Step, cpu: usize, new: i32) {
        let old = self.zone().pcp[cpu].high;
        self.counter_if::<true>(step, CounterId::pcp_high, cpu, new as i64 - old as i64);
    }
}
