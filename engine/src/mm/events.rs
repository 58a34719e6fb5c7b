//! The event trace: every operation is a sequence of typed events.
//!
//! Two kinds of events share one stream, as the two variants of [`EventKind`]:
//! * **[`Mutation`]s** (`FreeListAdd`, `PcpDel`, `SetPageblock`, `Counter`, …) are the only way the
//!   engine changes a [`crate::mm::zone::Zone`]. Each carries what is needed to undo it, so the
//!   timeline can step backwards exactly ([`crate::mm::node::Node::unapply`]) and replay forwards
//!   from a checkpoint ([`crate::mm::node::Node::apply`]) through the same code the live run used.
//! * **[`Annotation`]s** (tracepoints, fallback probes, watermark checks, messages, call
//!   enter/exit) explain what happened; they change nothing but the cost counters.
//!
//! Every event names the kernel function it belongs to and a [`Step`], the stable id of a line
//! in that function's pseudocode ([`super::steps`]).
//!
//! The kinds are declared in one table ([`event_kinds!`](super::packed::event_kinds)) that also
//! makes their packed form (`super::packed`): an [`Event`] is 16 bytes.

use crate::mm::types::{MigrateType, ZonePfn};
use serde::{Deserialize, Serialize};

use super::packed::{self, coded_enum, event_kinds, Field, R, W};
use super::steps::{KernelFn, Step};

/// "No pfn": list end, or "inserted at the head".
pub const NIL: ZonePfn = ZonePfn::MAX;

coded_enum! {
    /// Zone and pcp scalar fields that change by delta (so a `Counter` event undoes by negation).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[allow(non_camel_case_types)]
    pub enum CounterId {
        /// `zone->watermark_boost`.
        watermark_boost,
        /// `zone->nr_reserved_highatomic`.
        nr_reserved_highatomic,
        /// `ZONE_BELOW_HIGH` as 0/1.
        zone_below_high,
        /// `ZONE_BOOSTED_WATERMARK` as 0/1.
        zone_boosted_watermark,
        /// A CPU's `pcp->high`.
        pcp_high,
        /// A CPU's `pcp->alloc_factor`.
        pcp_alloc_factor,
        /// A CPU's `pcp->free_count`.
        pcp_free_count,
        /// `PCPF_PREV_FREE_HIGH_ORDER` as 0/1.
        pcp_prev_free_high_order,
        /// The `COMPACTSTALL` event count (/proc/vmstat `compact_stall`).
        compact_stall,
        /// The `COMPACTFAIL` event count (/proc/vmstat `compact_fail`).
        compact_fail,
        /// The `COMPACTSUCCESS` event count (/proc/vmstat `compact_success`).
        compact_success,
        /// `zone->compact_blockskip_flush` as 0/1.
        compact_blockskip_flush,
        /// The `KCOMPACTD_WAKE` event count (/proc/vmstat `compact_daemon_wake`).
        compact_daemon_wake,
        /// The `KCOMPACTD_MIGRATE_SCANNED` event count (`compact_daemon_migrate_scanned`).
        compact_daemon_migrate_scanned,
        /// The `KCOMPACTD_FREE_SCANNED` event count (`compact_daemon_free_scanned`).
        compact_daemon_free_scanned,
        /// `zone->compact_cached_migrate_pfn[0]` (absolute pfn): where an `ASYNC` compaction's
        /// migration scanner restarts.
        compact_cached_migrate_pfn_async,
        /// `zone->compact_cached_migrate_pfn[1]`: where a sync one's restarts.
        compact_cached_migrate_pfn_sync,
        /// `zone->compact_cached_free_pfn`: where the free scanner restarts.
        compact_cached_free_pfn,
        /// `zone->compact_init_migrate_pfn`: the migration scanner's start that makes a
        /// compaction `whole_zone` (`__reset_isolation_suitable` sets it).
        compact_init_migrate_pfn,
        /// `zone->compact_init_free_pfn`: a free scanner at or above it is starting its scan.
        compact_init_free_pfn,
    }
}

coded_enum! {
    /// `enum compact_result` (include/linux/compaction.h), as `COMPACTION_STATUS` prints it in
    /// `mm_compaction_end`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
    pub enum CompactResult {
        /// `COMPACT_NOT_SUITABLE_ZONE`.
        NotSuitableZone,
        /// `COMPACT_SKIPPED`.
        Skipped,
        /// `COMPACT_DEFERRED`.
        Deferred,
        /// `COMPACT_NO_SUITABLE_PAGE`.
        NoSuitablePage,
        /// `COMPACT_CONTINUE`.
        Continue,
        /// `COMPACT_COMPLETE`.
        Complete,
        /// `COMPACT_PARTIAL_SKIPPED`.
        PartialSkipped,
        /// `COMPACT_CONTENDED`.
        Contended,
        /// `COMPACT_SUCCESS`.
        Success,
    }
}

impl CompactResult {
    /// The `COMPACTION_STATUS` string (include/trace/events/mmflags.h).
    pub fn as_str(self) -> &'static str {
        match self {
            CompactResult::NotSuitableZone => "not_suitable_zone",
            CompactResult::Skipped => "skipped",
            CompactResult::Deferred => "deferred",
            CompactResult::NoSuitablePage => "no_suitable_page",
            CompactResult::Continue => "continue",
            CompactResult::Complete => "complete",
            CompactResult::PartialSkipped => "partial_skipped",
            CompactResult::Contended => "contended",
            CompactResult::Success => "success",
        }
    }
}

coded_enum! {
    /// Which of `mm_compaction_defer_template`'s events (include/trace/events/compaction.h).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum DeferPoint {
        /// `compaction_deferred` skipped the zone.
        Deferred,
        /// `defer_compaction` after a compaction that did not make the order.
        DeferCompaction,
        /// `compaction_defer_reset` after a success.
        DeferReset,
    }
}

coded_enum! {
    /// Which of `kcompactd_wake_template`'s events (include/trace/events/compaction.h).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum KcompactdWakePoint {
        /// `wakeup_kcompactd` woke the sleeping thread (kswapd, or the
        /// `compaction_proactiveness` sysctl with order -1).
        WakeupKcompactd,
        /// `kcompactd_do_work` starts.
        KcompactdWake,
    }
}

impl KcompactdWakePoint {
    /// The tracepoint's name.
    pub fn tracepoint(self) -> &'static str {
        match self {
            KcompactdWakePoint::WakeupKcompactd => "mm_compaction_wakeup_kcompactd",
            KcompactdWakePoint::KcompactdWake => "mm_compaction_kcompactd_wake",
        }
    }
}

impl DeferPoint {
    /// The tracepoint's name.
    pub fn tracepoint(self) -> &'static str {
        match self {
            DeferPoint::Deferred => "mm_compaction_deferred",
            DeferPoint::DeferCompaction => "mm_compaction_defer_compaction",
            DeferPoint::DeferReset => "mm_compaction_defer_reset",
        }
    }
}

/// A zone's deferral state: `compact_considered`, `compact_defer_shift`,
/// `compact_order_failed` (struct zone, include/linux/mmzone.h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompactDefer {
    /// At most `1 << COMPACT_MAX_DEFER_SHIFT` = 64 (`compaction_deferred` caps it).
    pub considered: u8,
    /// `compact_defer_shift`: compaction is skipped for `1 << defer_shift` attempts.
    pub defer_shift: u8,
    /// `compact_order_failed`: the lowest order compaction last failed at.
    pub order_failed: u8,
}

/// Its three counts, a byte each.
impl Field for CompactDefer {
    const BITS: u32 = 24;
    #[inline(always)]
    fn put(self, w: W) -> W {
        self.order_failed
            .put(self.defer_shift.put(self.considered.put(w)))
    }
    #[inline(always)]
    fn get(r: &mut R) -> CompactDefer {
        CompactDefer {
            considered: u8::get(r),
            defer_shift: u8::get(r),
            order_failed: u8::get(r),
        }
    }
}

coded_enum! {
    /// `compact_result_to_feedback` (include/trace/events/mmflags.h): what `compact_retry`
    /// prints of the compaction's result.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum CompactFeedback {
        /// `COMPACTION_FAILED` (1): `COMPACT_COMPLETE`.
        Failed,
        /// `COMPACTION_WITHDRAWN` (2): any other result.
        Withdrawn,
        /// `COMPACTION_PROGRESS` (3): `COMPACT_SUCCESS`.
        Progress,
    }
}

impl CompactFeedback {
    /// `compact_result_to_feedback(result)`.
    pub fn of(result: CompactResult) -> CompactFeedback {
        match result {
            CompactResult::Complete => CompactFeedback::Failed,
            CompactResult::Success => CompactFeedback::Progress,
            _ => CompactFeedback::Withdrawn,
        }
    }

    /// `COMPACTION_FEEDBACK`'s string.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactFeedback::Failed => "failed",
            CompactFeedback::Withdrawn => "withdrawn",
            CompactFeedback::Progress => "progress",
        }
    }
}

/// One zone of `should_reclaim_retry`'s check as `reclaim_retry_zone` prints it (besides the
/// zone, which is the event's, and the zone's reclaimable and available pages): stored in 38
/// bits (order 4, `no_progress_loops` 5, the verdict 1, the min watermark 28) so that the event
/// fits its 13 bytes, and packed in 7 bytes so that the typed kind stays 20. The kernel prints
/// `no_progress_loops` only up to `MAX_RECLAIM_RETRIES` (16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(C, packed)]
pub struct ReclaimRetryCheck {
    /// The order.
    pub order: u8,
    /// `min_wmark_pages(zone)`.
    pub min_wmark: u32,
    /// `*no_progress_loops`.
    pub no_progress_loops: u8,
    /// `__zone_watermark_ok` at the min watermark with the available pages.
    pub wmark_check: bool,
}

impl ReclaimRetryCheck {
    /// The largest min watermark the event stores (28 bits).
    pub const MAX_MIN_WMARK: u32 = (1 << 28) - 1;
    /// The largest `no_progress_loops` it stores (5 bits).
    pub const MAX_LOOPS: u8 = 31;
}

impl Field for ReclaimRetryCheck {
    const BITS: u32 = 38;
    #[inline(always)]
    fn put(self, w: W) -> W {
        w.field(u32::from(self.order), 4)
            .field(u32::from(self.no_progress_loops), 5)
            .field(u32::from(self.wmark_check), 1)
            .field(self.min_wmark, 28)
    }
    #[inline(always)]
    fn get(r: &mut R) -> ReclaimRetryCheck {
        let order = r.field(4) as u8;
        let no_progress_loops = r.field(5) as u8;
        let wmark_check = r.field(1) != 0;
        ReclaimRetryCheck {
            order,
            min_wmark: r.field(28),
            no_progress_loops,
            wmark_check,
        }
    }
}

coded_enum! {
    /// Severity of an engine message (`# ...` lines of the trace).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum MsgLevel {
        /// A remark on the kernel path (what the model leaves out, why it went one way).
        Note,
        /// What an op did.
        Info,
        /// An op that could not do all it was asked (skipped, cut short).
        Warning,
        /// An op that failed.
        Failure,
    }
}

coded_enum! {
    /// Which end of a list a block went to or came from.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum End {
        /// The head (`list_add`).
        Head,
        /// The tail (`list_add_tail`).
        Tail,
    }
}

event_kinds! {
    /// A change to the zone: the only way the engine alters a [`crate::mm::zone::Zone`]. Each carries
    /// what is needed to undo it ([`crate::mm::node::Node::unapply`]). Pfns are [`ZonePfn`]s of
    /// the zone being worked on.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Mutation {
        /// `__add_to_free_list` + `set_buddy_order`.
        FreeListAdd {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The free list's migratetype.
            mt: MigrateType,
            /// The end of the list it goes to.
            end: End,
        },
        /// `__del_page_from_free_list`; `prev` is the list neighbour before it (NIL: it was the head).
        FreeListDel {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The free list's migratetype.
            mt: MigrateType,
            /// The block before it on the list, where the undo puts it back ([`NIL`]: it was the head).
            prev: ZonePfn,
        },
        /// `move_to_free_list`: unlink from `from`, append to `to`.
        FreeListMove {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The list it leaves.
            from: MigrateType,
            /// The list it joins.
            to: MigrateType,
            /// The block before it on `from`, for the undo ([`NIL`]: the head).
            prev: ZonePfn,
        },
        /// `move_freelist_head` (mm/compaction.c): the free list is cut before `head` and the
        /// part cut off spliced at its tail, so `head` is first and the order of the ring is
        /// kept; `old_head` is the first block before, where the undo turns it back to.
        FreeListRotate {
            /// The list's order.
            order: u8,
            /// The list's migratetype.
            mt: MigrateType,
            /// The block that becomes the first.
            head: ZonePfn,
            /// The first block before.
            old_head: ZonePfn,
        },
        /// `account_freepages` (never for ISOLATE).
        Account {
            /// The migratetype whose free count changes.
            mt: MigrateType,
            /// Pages added (negative: taken).
            delta: i32,
        },
        /// A block enters a pcp list (`pcp.count += 2^order`).
        PcpAdd {
            /// The CPU whose lists.
            cpu: u8,
            /// The list ([`order_to_pindex`](crate::mm::order_to_pindex)).
            pindex: u8,
            /// First page of the block.
            pfn: ZonePfn,
            /// The end of the list it goes to.
            end: End,
        },
        /// A block leaves a pcp list (`pcp.count -= 2^order`); `prev` as in `FreeListDel`.
        PcpDel {
            /// The CPU whose lists.
            cpu: u8,
            /// The list.
            pindex: u8,
            /// First page of the block.
            pfn: ZonePfn,
            /// The block before it on the list, for the undo ([`NIL`]: the head).
            prev: ZonePfn,
        },
        /// Raw pageblock bits (migratetype index, isolate bit 3).
        SetPageblock {
            /// The pageblock's index in the zone.
            pb: u32,
            /// Its bits before.
            old: u8,
            /// Its bits after.
            new: u8,
        },
        /// The zone's compaction deferral state (`defer_compaction`, `compaction_deferred`,
        /// `compaction_defer_reset`) from `old` to `new`.
        CompactDefer {
            /// The state before.
            old: CompactDefer,
            /// The state after.
            new: CompactDefer,
        },
        /// A zone or pcp scalar changes by `delta`.
        Counter {
            /// Which scalar.
            id: CounterId,
            /// The CPU of a pcp scalar (0 for a zone one).
            cpu: u8,
            /// The change.
            delta: i32,
        },
        /// `prep_new_page`: the block is handed out (head refcount 1) to `owner`.
        PrepNewPage {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The owner id it is handed to.
            owner: u32,
            /// The page goes on an LRU list (a user page compaction can migrate).
            lru: bool,
        },
        /// `split_page`: every tail page gets refcount 1.
        SplitPage {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
        },
        /// The owner drops the block (`put_page_testzero` reached 0): head refcount 1 → 0.
        PutPage {
            /// First page of the block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The owner it had, for the undo.
            owner: u32,
            /// Its LRU flag before, for the undo.
            lru: bool,
        },
        /// `alloc_contig_range`: `nr` pages become allocated, refcount 1 each.
        ContigAlloc {
            /// First page of the range.
            pfn: ZonePfn,
            /// Pages in the range.
            nr: u32,
            /// The owner id the pages are handed to.
            owner: u32,
        },
        /// `get_page`: a third party (compaction's pfn scanner, a GUP pin) takes an extra
        /// reference on an allocated order-0 page: refcount + 1.
        GetPage {
            /// The page.
            pfn: ZonePfn,
        },
        /// `put_page_testzero` that does not reach zero: refcount − 1, the page stays allocated.
        /// `release`: the reference dropped was its allocation's own (a free of a page someone
        /// else still holds), so the page is no longer the owner's: `owner`/`lru` are the page's
        /// before, for the undo. The later `put_page` that drops the last reference frees it.
        PutPageRef {
            /// The page.
            pfn: ZonePfn,
            /// Its owner before, for the undo.
            owner: u32,
            /// Its LRU flag before, for the undo.
            lru: bool,
            /// The reference dropped was its allocation's own.
            release: bool,
        },
        /// A node of several zones: the code goes on in zone `to` of the node (`from` before):
        /// the node's zone being worked on changes; later pfns are `to`'s. The zonelist walk, `page_zone()` of a freed page, and the
        /// per-zone loops (`drain_all_pages`, `/proc`) switch this way.
        ZoneSwitch {
            /// The zone's index in the node before.
            from: u8,
            /// The zone's index in the node after.
            to: u8,
        },
    }

    /// An explanation of what happened: changes nothing in the zone but the cost counters
    /// (`Stats::count`). Pfns are [`ZonePfn`]s.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Annotation {
        /// A lock is taken (`spin_lock_irqsave(&zone->lock)` or `pcp_spin_trylock`).
        Lock {
            /// The zone lock (`false`: a CPU's pcp lock).
            zone: bool,
            /// The CPU of a pcp lock (0 for the zone lock).
            cpu: u8,
        },
        /// A function is entered (call-chain bookkeeping).
        Enter {
            /// The function.
            func: KernelFn,
        },
        /// The function returns (call-chain bookkeeping).
        Exit {
            /// The function.
            func: KernelFn,
        },
        /// `find_suitable_fallback(order, start_mt, claimable)`: `found` is the fallback type, or
        /// `None` (-1), and `refused` is -2 (`should_try_claim_block` said no).
        FallbackProbe {
            /// The order probed.
            order: u8,
            /// The type whose fallback lists are searched.
            start_mt: MigrateType,
            /// The fallback type with a block of that order, if any.
            found: Option<MigrateType>,
            /// `should_try_claim_block` refused the order (-2).
            refused: bool,
        },
        /// A claim of the pageblock(s) at `pfn` succeeded (`pageblocks` re-typed).
        Claimed {
            /// First page of the block claimed from.
            pfn: ZonePfn,
            /// The block's order.
            order: u8,
            /// The type the pageblock(s) had.
            from: MigrateType,
            /// The type they get.
            to: MigrateType,
            /// Pageblocks re-typed.
            pageblocks: u32 as u16,
            /// `free_pages`: the pageblock's free pages.
            free: u32 as u16,
            /// `alike_pages`: its pages in use by a type compatible with the request.
            alike: u32 as u16,
        },
        /// `try_to_claim_block` refused a partial pageblock (`free + alike < 256`).
        ClaimRefused {
            /// First page of the block.
            pfn: ZonePfn,
            /// The block's order.
            order: u8,
            /// `free_pages`: the pageblock's free pages.
            free: u32,
            /// `alike_pages`: its pages in use by a type compatible with the request.
            alike: u32,
        },
        /// `__rmqueue_steal` took `2^alloc_order` pages of a foreign block.
        Stolen {
            /// First page of the foreign block.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
            /// The order taken from it.
            alloc_order: u8,
            /// Its type.
            from: MigrateType,
        },
        /// A watermark check (`zone_watermark_fast`).
        Watermark {
            /// The allocation's order.
            order: u8,
            /// The watermark checked against, in pages.
            mark: u32,
            /// Free pages as the check counts them (may go below 0).
            free: i32,
            /// The check passed.
            ok: bool,
        },
        /// `rmqueue_bulk` asked for `want` blocks and got `got`.
        PcpRefill {
            /// The CPU whose list.
            cpu: u8,
            /// The order.
            order: u8,
            /// The migratetype.
            mt: MigrateType,
            /// Blocks asked for.
            want: u32,
            /// Blocks taken.
            got: u32,
        },
        /// `free_pcppages_bulk(count)` starts.
        PcpDrain {
            /// The CPU whose lists.
            cpu: u8,
            /// Pages to free.
            count: u32,
            /// The list the round robin starts at.
            pindex: u8,
        },
        /// Two buddies merge into one block of `order` (the result) at `pfn`.
        Merge {
            /// First page of the merged block.
            pfn: ZonePfn,
            /// First page of the buddy merged in.
            buddy: ZonePfn,
            /// The merged block's order.
            order: u8,
        },
        /// A contiguous-range chunk chosen by `free_prepared_contig_range` (or boot freeing).
        Chunk {
            /// First page of the chunk.
            pfn: ZonePfn,
            /// Its order.
            order: u8,
        },
        /// A run of physically consecutive pages handed to `__free_contig_range` by `vfree`.
        Run {
            /// First page of the run.
            pfn: ZonePfn,
            /// Pages in the run.
            nr: u32,
        },
        /// A vmalloc order attempt.
        VmallocAttempt {
            /// The order tried.
            order: u8,
            /// It succeeded.
            ok: bool,
        },
        /// An engine message; its text is in the log's message table.
        Message {
            /// Its severity.
            level: MsgLevel,
            /// Its text's index in [`EventLog::messages`](crate::mm::EventLog::messages).
            id: u32,
        },
        /// `migrate_pages` moves a folio within zone `zone`: the order-`order` movable folio
        /// at `from` now lives at `to` (its source is freed next). `contig`: a migration out
        /// of `alloc_contig_range`'s range, else compaction's (`compact_zone`).
        Migrate {
            /// The folio's first page before.
            from: ZonePfn,
            /// Its first page after (the target `compaction_alloc` or the range's
            /// allocation gave it).
            to: ZonePfn,
            /// The folio's order.
            order: u8,
            /// The zone's index in the node (the zone being worked on).
            zone: u8,
            /// `alloc_contig_range`'s migration.
            contig: bool,
        },
    }

    /// Kernel tracepoints (`include/trace/events/kmem.h`, §9; `compaction.h` for the
    /// `MmCompaction*` ones). Pfns are [`ZonePfn`]s; the
    /// printed line ([`crate::explain::trace_line`]) makes them absolute.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Tracepoint {
        /// `mm_page_alloc`; `pfn` is `None` for a failed allocation.
        MmPageAlloc {
            /// The page (`None`: the allocation failed).
            pfn: Option<ZonePfn>,
            /// The order.
            order: u8,
            /// `migratetype`.
            mt: MigrateType,
            /// `gfp_flags`.
            gfp: u32,
        },
        /// `mm_page_free`.
        MmPageFree {
            /// The page.
            pfn: ZonePfn,
            /// The order.
            order: u8,
        },
        /// `mm_page_alloc_zone_locked`: a block taken under the zone lock.
        MmPageAllocZoneLocked {
            /// The page.
            pfn: ZonePfn,
            /// The order.
            order: u8,
            /// `migratetype`.
            mt: MigrateType,
            /// Taken to refill a pcp list.
            percpu_refill: bool,
        },
        /// `mm_page_pcpu_drain`: a block freed from a pcp list to the buddy lists.
        MmPagePcpuDrain {
            /// The page.
            pfn: ZonePfn,
            /// The order.
            order: u8,
            /// `migratetype`.
            mt: MigrateType,
        },
        /// `mm_page_alloc_extfrag`: a fallback took a block of another type.
        MmPageAllocExtfrag {
            /// The page.
            pfn: ZonePfn,
            /// The order asked for.
            alloc_order: u8,
            /// The order of the block taken.
            fallback_order: u8,
            /// The type asked for.
            alloc_mt: MigrateType,
            /// The block's type.
            fallback_mt: MigrateType,
            /// The pageblock changed type.
            change_ownership: bool,
        },
        /// `mm_compaction_begin` (`compact_zone`): the scanners' start (the zone's start and end
        /// come from the line's context).
        MmCompactionBegin {
            /// The migrate scanner's start.
            migrate_pfn: ZonePfn,
            /// The free scanner's start.
            free_pfn: ZonePfn,
            /// A synchronous compaction.
            sync: bool,
        },
        /// `mm_compaction_end`: where the scanners stopped and the result.
        MmCompactionEnd {
            /// Where the migrate scanner stopped.
            migrate_pfn: ZonePfn,
            /// Where the free scanner stopped.
            free_pfn: ZonePfn,
            /// A synchronous compaction.
            sync: bool,
            /// The result.
            status: CompactResult,
        },
        /// `mm_compaction_isolate_migratepages` (`isolate_migratepages_block`).
        MmCompactionIsolateMigratepages {
            /// First pfn scanned.
            start: ZonePfn,
            /// Where the scan stopped.
            end: ZonePfn,
            /// Pages scanned.
            nr_scanned: u16,
            /// Pages isolated.
            nr_taken: u16,
        },
        /// `mm_compaction_isolate_freepages` (`isolate_freepages_block`).
        MmCompactionIsolateFreepages {
            /// First pfn scanned.
            start: ZonePfn,
            /// Where the scan stopped.
            end: ZonePfn,
            /// Pages scanned.
            nr_scanned: u16,
            /// Pages isolated.
            nr_taken: u16,
        },
        /// `mm_compaction_fast_isolate_freepages` (`fast_isolate_freepages`): the search
        /// window `(min_pfn ~ cc->free_pfn)` and what was taken; which block it took is not
        /// printed.
        MmCompactionFastIsolateFreepages {
            /// `min_pfn`: the lowest pfn a candidate may have.
            start: ZonePfn,
            /// `cc->free_pfn`.
            end: ZonePfn,
            /// Free list entries looked at, plus the pages of the block taken but one.
            nr_scanned: u16,
            /// Pages isolated.
            nr_taken: u16,
            /// The free scanner was below the migration scanner: the unsigned
            /// `cc->free_pfn - cc->migrate_pfn` wrapped and `min_pfn` is `start` with bit 63 set
            /// (no block can be at or above it).
            wrapped: bool,
        },
        /// `mm_compaction_migratepages` (`compact_zone` after `migrate_pages`).
        MmCompactionMigratepages {
            /// Pages migrated.
            nr_migrated: u32,
            /// Pages that could not be.
            nr_failed: u32,
        },
        /// `mm_compaction_suitable` (`compaction_suitable`); `zone_type` is `zone_idx`.
        MmCompactionSuitable {
            /// `zone_idx`.
            zone_type: u8,
            /// The order.
            order: u8,
            /// The verdict.
            ret: CompactResult,
        },
        /// `mm_compaction_finished` (`compact_finished`, each turn of `compact_zone`'s loop).
        MmCompactionFinished {
            /// `zone_idx`.
            zone_type: u8,
            /// `cc->order`: -1 for `compact_memory`.
            order: i8,
            /// The verdict.
            ret: CompactResult,
        },
        /// `mm_compaction_deferred` / `_defer_compaction` / `_defer_reset`: the zone's deferral
        /// state after the change.
        MmCompactionDefer {
            /// Which of the three events.
            point: DeferPoint,
            /// `zone_idx`.
            zone_type: u8,
            /// The order.
            order: u8,
            /// The zone's deferral state after the change.
            state: CompactDefer,
        },
        /// `mm_compaction_try_to_compact_pages`: a direct compaction starts.
        MmCompactionTryToCompactPages {
            /// The order.
            order: u8,
            /// `gfp_mask`.
            gfp: u32,
            /// `enum compact_priority` (0 `SYNC_FULL`, 1 `SYNC_LIGHT`, 2 `ASYNC`).
            prio: u8,
        },
        /// `mm_compaction_wakeup_kcompactd` / `mm_compaction_kcompactd_wake`
        /// (`kcompactd_wake_template`, node 0).
        MmCompactionKcompactdWake {
            /// Which of the two.
            point: KcompactdWakePoint,
            /// The order (-1: the `compaction_proactiveness` sysctl's wakeup).
            order: i8,
            /// `highest_zoneidx`, printed as `classzone_idx`.
            zone_type: u8,
        },
        /// `mm_compaction_kcompactd_sleep`: kcompactd goes back to sleep.
        MmCompactionKcompactdSleep {
            /// `nid`.
            nid: u8,
        },
        /// `compact_retry` (include/trace/events/oom.h): `should_compact_retry`'s decision.
        CompactRetry {
            /// The order.
            order: u8,
            /// `enum compact_priority` before the decision (0 `SYNC_FULL` … 2 `ASYNC`).
            prio: u8,
            /// `compact_result_to_feedback` of the last compaction's result.
            feedback: CompactFeedback,
            /// `*compaction_retries` before the decision.
            retries: u8,
            /// `MAX_COMPACT_RETRIES`, a quarter above the costly order.
            max_retries: u8,
            /// `should_retry`.
            ret: bool,
        },
        /// `reclaim_retry_zone` (include/trace/events/oom.h): one zone of
        /// `should_reclaim_retry`'s check (the event's zone), node 0.
        ReclaimRetryZone {
            /// `zone_reclaimable_pages(zone)`.
            reclaimable: u32,
            /// The reclaimable pages plus `NR_FREE_PAGES`.
            available: u32,
            /// The order, watermark, loops and verdict.
            check: ReclaimRetryCheck,
        },
    }
}

/// What an event did: a [`Mutation`] of the zone or an [`Annotation`] explaining it. Two types,
/// so that the zone's `apply`/`unapply` match mutations only and a new annotation cannot be
/// forgotten there. Buddy alignment of zone-relative pfns is the absolute one because
/// `start_pfn` is a multiple of 1024.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventKind {
    /// A change to the zone.
    Mutation(Mutation),
    /// An explanation.
    Annotation(Annotation),
}

impl From<Mutation> for EventKind {
    fn from(m: Mutation) -> EventKind {
        EventKind::Mutation(m)
    }
}

impl From<Annotation> for EventKind {
    fn from(a: Annotation) -> EventKind {
        EventKind::Annotation(a)
    }
}

impl From<Tracepoint> for EventKind {
    fn from(t: Tracepoint) -> EventKind {
        EventKind::Annotation(Annotation::Trace(t))
    }
}

impl EventKind {
    /// The mutation, if the event is one.
    pub fn mutation(&self) -> Option<Mutation> {
        match *self {
            EventKind::Mutation(m) => Some(m),
            EventKind::Annotation(_) => None,
        }
    }

    /// The annotation, if the event is one.
    pub fn annotation(&self) -> Option<Annotation> {
        match *self {
            EventKind::Mutation(_) => None,
            EventKind::Annotation(a) => Some(a),
        }
    }

    /// The zone-relative page range `(start, len)` the event names, if it names pages: the
    /// block it moves, hands out or frees, the pageblock it re-types, the range it covers.
    pub fn touched_pages(&self) -> Option<(ZonePfn, u32)> {
        use crate::mm::types::PAGEBLOCK_NR_PAGES;
        let block = |pfn: ZonePfn, order: u8| Some((pfn, 1u32 << order));
        match *self {
            EventKind::Mutation(m) => match m {
                Mutation::FreeListAdd { pfn, order, .. }
                | Mutation::FreeListDel { pfn, order, .. }
                | Mutation::FreeListMove { pfn, order, .. }
                | Mutation::FreeListRotate {
                    head: pfn, order, ..
                }
                | Mutation::PrepNewPage { pfn, order, .. }
                | Mutation::SplitPage { pfn, order }
                | Mutation::PutPage { pfn, order, .. } => block(pfn, order),
                Mutation::PcpAdd { pindex, pfn, .. } | Mutation::PcpDel { pindex, pfn, .. } => {
                    block(pfn, crate::mm::types::pindex_to_order(pindex as usize))
                }
                Mutation::SetPageblock { pb, .. } => {
                    Some((pb * PAGEBLOCK_NR_PAGES, PAGEBLOCK_NR_PAGES))
                }
                Mutation::ContigAlloc { pfn, nr, .. } => Some((pfn, nr)),
                Mutation::GetPage { pfn } | Mutation::PutPageRef { pfn, .. } => block(pfn, 0),
                Mutation::Account { .. }
                | Mutation::Counter { .. }
                | Mutation::ZoneSwitch { .. }
                | Mutation::CompactDefer { .. } => None,
            },
            EventKind::Annotation(a) => match a {
                Annotation::Stolen { pfn, order, .. }
                | Annotation::ClaimRefused { pfn, order, .. }
                | Annotation::Chunk { pfn, order }
                | Annotation::Merge { pfn, order, .. } => block(pfn, order),
                Annotation::Claimed {
                    pfn,
                    order,
                    pageblocks,
                    ..
                } => Some((pfn, (1u32 << order).max(pageblocks * PAGEBLOCK_NR_PAGES))),
                Annotation::Run { pfn, nr } => Some((pfn, nr)),
                Annotation::Trace(t) => match t {
                    Tracepoint::MmPageAlloc {
                        pfn: Some(pfn),
                        order,
                        ..
                    }
                    | Tracepoint::MmPageFree { pfn, order }
                    | Tracepoint::MmPageAllocZoneLocked { pfn, order, .. }
                    | Tracepoint::MmPagePcpuDrain { pfn, order, .. } => block(pfn, order),
                    Tracepoint::MmPageAllocExtfrag {
                        pfn,
                        fallback_order,
                        ..
                    } => block(pfn, fallback_order),
                    Tracepoint::MmPageAlloc { pfn: None, .. } => None,
                    Tracepoint::MmCompactionIsolateMigratepages { start, end, .. }
                    | Tracepoint::MmCompactionIsolateFreepages { start, end, .. } => {
                        (end > start).then_some((start, end - start))
                    }
                    // The search window is most of the zone: the block taken shows in its
                    // own mutations.
                    Tracepoint::MmCompactionBegin { .. }
                    | Tracepoint::MmCompactionEnd { .. }
                    | Tracepoint::MmCompactionFastIsolateFreepages { .. }
                    | Tracepoint::MmCompactionMigratepages { .. }
                    | Tracepoint::MmCompactionSuitable { .. }
                    | Tracepoint::MmCompactionTryToCompactPages { .. }
                    | Tracepoint::MmCompactionFinished { .. }
                    | Tracepoint::MmCompactionDefer { .. }
                    | Tracepoint::MmCompactionKcompactdWake { .. }
                    | Tracepoint::MmCompactionKcompactdSleep { .. }
                    | Tracepoint::CompactRetry { .. }
                    | Tracepoint::ReclaimRetryZone { .. } => None,
                },
                _ => None,
            },
        }
    }
}

/// One event: what ([`Event::kind`]) and where in the kernel (`step`).
///
/// 16 bytes: the kind is stored in its byte form ([`packed`]), since a trace holds millions of
/// events and the typed [`EventKind`] alone is 20. Serialized, compared and printed (`{:?}`)
/// exactly as the struct `{ step, kind }` it stands for.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "EventFields", into = "EventFields")]
pub struct Event {
    /// Where in the kernel: a line of a function's pseudocode.
    pub step: Step,
    pub(super) packed: packed::Packed,
}

/// An [`Event`] with its kind typed: its serialized form.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Event")]
struct EventFields {
    step: Step,
    kind: EventKind,
}

impl From<EventFields> for Event {
    fn from(e: EventFields) -> Event {
        Event::new(e.step, e.kind)
    }
}

impl From<Event> for EventFields {
    fn from(e: Event) -> EventFields {
        EventFields {
            step: e.step,
            kind: e.kind(),
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("step", &self.step)
            .field("kind", &self.kind())
            .finish()
    }
}

impl Event {
    /// The event `kind` at `step`, packed (checked to unpack to `kind` in debug builds).
    #[inline(always)]
    pub fn new(step: Step, kind: EventKind) -> Event {
        let ev = Event {
            step,
            packed: encode(kind),
        };
        debug_assert_eq!(ev.kind(), kind, "events::packed round trip");
        ev
    }

    /// What the event did.
    #[inline]
    pub fn kind(&self) -> EventKind {
        decode(&self.packed)
    }

    /// Mutations change the zone; annotations only explain (and count costs).
    pub fn is_mutation(&self) -> bool {
        self.packed[0] < packed::ANNOTATION_TAGS
    }

    /// Events a user steps through. Bookkeeping (counters, accounting, locks, call
    /// enter/exit, tracepoints that repeat a visible step) is applied on the way.
    pub fn is_visible(&self) -> bool {
        match self.kind() {
            EventKind::Mutation(m) => {
                !matches!(m, Mutation::Account { .. } | Mutation::Counter { .. })
            }
            EventKind::Annotation(a) => match a {
                Annotation::Lock { .. } | Annotation::Enter { .. } | Annotation::Exit { .. } => {
                    false
                }
                // The compaction lines are the scanners' steps: where each stopped, what it took.
                Annotation::Trace(t) => matches!(
                    t,
                    Tracepoint::MmPageAlloc { .. }
                        | Tracepoint::MmCompactionBegin { .. }
                        | Tracepoint::MmCompactionEnd { .. }
                        | Tracepoint::MmCompactionIsolateMigratepages { .. }
                        | Tracepoint::MmCompactionIsolateFreepages { .. }
                        | Tracepoint::MmCompactionFastIsolateFreepages { .. }
                        | Tracepoint::MmCompactionMigratepages { .. }
                        | Tracepoint::MmCompactionSuitable { .. }
                        | Tracepoint::MmCompactionTryToCompactPages { .. }
                        | Tracepoint::MmCompactionFinished { .. }
                        | Tracepoint::MmCompactionDefer { .. }
                        | Tracepoint::MmCompactionKcompactdWake { .. }
                        | Tracepoint::MmCompactionKcompactdSleep { .. }
                ),
                _ => true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed kind is 20 bytes (its outer tag lives in the inner tags' spare values); the
    /// log stores its 14-byte form beside the 2-byte step, so a trace of millions of events
    /// costs 16 bytes an event.
    #[test]
    fn an_event_is_16_bytes() {
        assert_eq!(std::mem::size_of::<EventKind>(), 20);
        assert_eq!(std::mem::size_of::<Event>(), 16);
    }

    /// The packed event is serialized and printed as the struct `{ step, kind }` it was before
    /// (the app's worker sends events through serde; test and CLI output print `{:?}`).
    #[test]
    fn an_event_serializes_and_prints_as_step_and_kind() {
        let ev = Event::new(
            Step::Enter,
            Tracepoint::MmPageAlloc {
                pfn: None,
                order: 3,
                mt: MigrateType::Movable,
                gfp: 0xcc0,
            }
            .into(),
        );
        let json = serde_json::to_string(&ev).unwrap();
        assert_eq!(
            json,
            r#"{"step":"Enter","kind":{"Annotation":{"Trace":{"MmPageAlloc":{"pfn":null,"order":3,"mt":"movable","gfp":3264}}}}}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), ev);
        assert_eq!(
            format!("{ev:?}"),
            "Event { step: Enter, kind: Annotation(Trace(MmPageAlloc { pfn: None, order: 3, \
             mt: Movable, gfp: 3264 })) }"
        );
    }

    /// Exactly the mutations change the zone: `is_mutation` agrees with the variant split.
    #[test]
    fn mutations_are_the_mutation_variant() {
        let step = Step::Enter;
        let m = Event::new(step, Mutation::SplitPage { pfn: 0, order: 1 }.into());
        let a = Event::new(step, Annotation::Chunk { pfn: 0, order: 1 }.into());
        assert!(
            m.is_mutation() && m.kind().mutation().is_some() && m.kind().annotation().is_none()
        );
        assert!(
            !a.is_mutation() && a.kind().annotation().is_some() && a.kind().mutation().is_none()
        );
        assert_eq!(m.kind().touched_pages(), a.kind().touched_pages());
    }

    /// Every variant at the edges of its fields' ranges comes back as it went in.
    #[test]
    fn every_variant_round_trips_at_its_extremes() {
        use MigrateType::*;
        let kinds: Vec<EventKind> = vec![
            Mutation::FreeListAdd {
                pfn: u32::MAX - 1,
                order: 10,
                mt: Isolate,
                end: End::Tail,
            }
            .into(),
            Mutation::FreeListDel {
                pfn: 7,
                order: 3,
                mt: Cma,
                prev: NIL,
            }
            .into(),
            Mutation::FreeListMove {
                pfn: 1 << 24,
                order: 9,
                from: HighAtomic,
                to: Reclaimable,
                prev: 12345,
            }
            .into(),
            Mutation::FreeListRotate {
                order: 7,
                mt: Movable,
                head: 1 << 20,
                old_head: NIL,
            }
            .into(),
            Mutation::Account {
                mt: Movable,
                delta: i32::MIN,
            }
            .into(),
            Mutation::PcpAdd {
                cpu: 255,
                pindex: 12,
                pfn: 99,
                end: End::Head,
            }
            .into(),
            Mutation::PcpDel {
                cpu: 1,
                pindex: 0,
                pfn: 5,
                prev: NIL,
            }
            .into(),
            Mutation::SetPageblock {
                pb: 8191,
                old: 1,
                new: 8 | 2,
            }
            .into(),
            Mutation::Counter {
                id: CounterId::pcp_prev_free_high_order,
                cpu: 3,
                delta: -1,
            }
            .into(),
            Mutation::PrepNewPage {
                pfn: 1,
                order: 0,
                owner: u32::MAX,
                lru: true,
            }
            .into(),
            Mutation::SplitPage { pfn: 2, order: 4 }.into(),
            Mutation::PutPage {
                pfn: 3,
                order: 2,
                owner: 77,
                lru: false,
            }
            .into(),
            Mutation::ContigAlloc {
                pfn: 4096,
                nr: 1 << 22,
                owner: u32::MAX,
            }
            .into(),
            Mutation::GetPage { pfn: 6 }.into(),
            Mutation::PutPageRef {
                pfn: 8,
                owner: 9,
                lru: true,
                release: true,
            }
            .into(),
            Mutation::ZoneSwitch { from: 2, to: 0 }.into(),
            Mutation::CompactDefer {
                old: CompactDefer {
                    considered: 64,
                    defer_shift: 6,
                    order_failed: 0,
                },
                new: CompactDefer {
                    considered: 0,
                    defer_shift: 0,
                    order_failed: 11,
                },
            }
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionFinished {
                zone_type: 2,
                order: -1,
                ret: CompactResult::Complete,
            })
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionSuitable {
                zone_type: 1,
                order: 10,
                ret: CompactResult::NotSuitableZone,
            })
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionTryToCompactPages {
                order: 9,
                gfp: 0x1c2_4cca,
                prio: 2,
            })
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionKcompactdWake {
                point: KcompactdWakePoint::WakeupKcompactd,
                order: -1,
                zone_type: 3,
            })
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionKcompactdSleep { nid: 0 }).into(),
            Annotation::Trace(Tracepoint::CompactRetry {
                order: 9,
                prio: 1,
                feedback: CompactFeedback::Progress,
                retries: 4,
                max_retries: 4,
                ret: false,
            })
            .into(),
            Annotation::Trace(Tracepoint::ReclaimRetryZone {
                reclaimable: u32::MAX,
                available: 0xfedc_ba98,
                check: ReclaimRetryCheck {
                    order: 10,
                    min_wmark: ReclaimRetryCheck::MAX_MIN_WMARK,
                    no_progress_loops: 16,
                    wmark_check: true,
                },
            })
            .into(),
            Annotation::Trace(Tracepoint::MmCompactionDefer {
                point: DeferPoint::DeferReset,
                zone_type: 0,
                order: 9,
                state: CompactDefer {
                    considered: 3,
                    defer_shift: 2,
                    order_failed: 10,
                },
            })
            .into(),
            Annotation::Lock { zone: true, cpu: 0 }.into(),
            Annotation::Enter {
                func: KernelFn::__free_contig_frozen_range,
            }
            .into(),
            Annotation::Exit {
                func: KernelFn::alloc_pages,
            }
            .into(),
            Tracepoint::MmPageAlloc {
                pfn: None,
                order: 10,
                mt: Movable,
                gfp: u32::MAX,
            }
            .into(),
            Tracepoint::MmPageAlloc {
                pfn: Some(0),
                order: 0,
                mt: Unmovable,
                gfp: 0xcc0,
            }
            .into(),
            Tracepoint::MmPageFree { pfn: 11, order: 1 }.into(),
            Tracepoint::MmPageAllocZoneLocked {
                pfn: 12,
                order: 3,
                mt: Cma,
                percpu_refill: true,
            }
            .into(),
            Tracepoint::MmPagePcpuDrain {
                pfn: 13,
                order: 9,
                mt: Reclaimable,
            }
            .into(),
            Tracepoint::MmPageAllocExtfrag {
                pfn: 14,
                alloc_order: 0,
                fallback_order: 10,
                alloc_mt: Unmovable,
                fallback_mt: Movable,
                change_ownership: true,
            }
            .into(),
            Annotation::FallbackProbe {
                order: 10,
                start_mt: Unmovable,
                found: None,
                refused: true,
            }
            .into(),
            Annotation::FallbackProbe {
                order: 0,
                start_mt: Movable,
                found: Some(Isolate),
                refused: false,
            }
            .into(),
            Annotation::Claimed {
                pfn: 1024,
                order: 10,
                from: Movable,
                to: Unmovable,
                pageblocks: 2,
                free: 1024,
                alike: 511,
            }
            .into(),
            Annotation::ClaimRefused {
                pfn: 512,
                order: 9,
                free: u32::MAX,
                alike: 255,
            }
            .into(),
            Annotation::Stolen {
                pfn: 15,
                order: 5,
                alloc_order: 0,
                from: Reclaimable,
            }
            .into(),
            Annotation::Watermark {
                order: 3,
                mark: u32::MAX,
                free: -5,
                ok: false,
            }
            .into(),
            Annotation::PcpRefill {
                cpu: 7,
                order: 9,
                mt: Movable,
                want: 1 << 20,
                got: 0,
            }
            .into(),
            Annotation::PcpDrain {
                cpu: 2,
                count: u32::MAX,
                pindex: 12,
            }
            .into(),
            Annotation::Merge {
                pfn: 16,
                buddy: 24,
                order: 4,
            }
            .into(),
            Annotation::Chunk { pfn: 32, order: 5 }.into(),
            Annotation::Run {
                pfn: 64,
                nr: u32::MAX,
            }
            .into(),
            Annotation::VmallocAttempt { order: 9, ok: true }.into(),
            Annotation::Message {
                level: MsgLevel::Failure,
                id: 1 << 30,
            }
            .into(),
            Annotation::Migrate {
                from: u32::MAX - 1,
                to: 1 << 31,
                order: 10,
                zone: 3,
                contig: true,
            }
            .into(),
        ];
        for k in kinds {
            assert_eq!(decode(&encode(k)), k);
        }
    }
}
