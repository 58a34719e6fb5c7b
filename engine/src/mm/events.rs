//! The event trace: every operation is a sequence of typed events.
//!
//! Two kinds of events share one stream, as the two variants of [`EventKind`]:
//! * **[`Mutation`]s** (`FreeListAdd`, `PcpDel`, `SetPageblock`, `Counter`, …) are the only way the
//!   engine changes a [`crate::mm::zone::Zone`]. Each carries what is needed to undo it, so the
//!   timeline can step backwards exactly ([`crate::mm::zone::Zone::unapply`]) and replay forwards
//!   from a checkpoint ([`crate::mm::zone::Zone::apply`]) through the same code the live run used.
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
        watermark_boost,
        nr_reserved_highatomic,
        /// `ZONE_BELOW_HIGH` as 0/1.
        zone_below_high,
        /// `ZONE_BOOSTED_WATERMARK` as 0/1.
        zone_boosted_watermark,
        pcp_high,
        pcp_alloc_factor,
        pcp_free_count,
        /// `PCPF_PREV_FREE_HIGH_ORDER` as 0/1.
        pcp_prev_free_high_order,
    }
}

coded_enum! {
    /// `enum compact_result` (include/linux/compaction.h), as `COMPACTION_STATUS` prints it in
    /// `mm_compaction_end`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
    pub enum CompactResult {
        NotSuitableZone,
        Skipped,
        Deferred,
        NoSuitablePage,
        Continue,
        Complete,
        PartialSkipped,
        Contended,
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

impl DeferPoint {
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
    pub(crate) defer_shift: u8,
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
    /// Severity of an engine message (`# ...` lines of the trace).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum MsgLevel {
        Note,
        Info,
        Warning,
        Failure,
    }
}

coded_enum! {
    /// Which end of a list a block went to or came from.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum End {
        Head,
        Tail,
    }
}

event_kinds! {
    /// A change to the zone: the only way the engine alters a [`crate::mm::zone::Zone`]. Each carries
    /// what is needed to undo it ([`crate::mm::zone::Zone::unapply`]). Pfns are [`ZonePfn`]s.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Mutation {
        /// `__add_to_free_list` + `set_buddy_order`.
        FreeListAdd {
            pfn: ZonePfn,
            order: u8,
            mt: MigrateType,
            end: End,
        },
        /// `__del_page_from_free_list`; `prev` is the list neighbour before it (NIL: it was the head).
        FreeListDel {
            pfn: ZonePfn,
            order: u8,
            mt: MigrateType,
            prev: ZonePfn,
        },
        /// `move_to_free_list`: unlink from `from`, append to `to`.
        FreeListMove {
            pfn: ZonePfn,
            order: u8,
            from: MigrateType,
            to: MigrateType,
            prev: ZonePfn,
        },
        /// `account_freepages` (never for ISOLATE).
        Account { mt: MigrateType, delta: i32 },
        /// A block enters a pcp list (`pcp.count += 2^order`).
        PcpAdd {
            cpu: u8,
            pindex: u8,
            pfn: ZonePfn,
            end: End,
        },
        /// A block leaves a pcp list (`pcp.count -= 2^order`); `prev` as in `FreeListDel`.
        PcpDel {
            cpu: u8,
            pindex: u8,
            pfn: ZonePfn,
            prev: ZonePfn,
        },
        /// Raw pageblock bits (migratetype index, isolate bit 3).
        SetPageblock { pb: u32, old: u8, new: u8 },
        /// The zone's compaction deferral state (`defer_compaction`, `compaction_deferred`,
        /// `compaction_defer_reset`) from `old` to `new`.
        CompactDefer {
            old: CompactDefer,
            new: CompactDefer,
        },
        /// A zone or pcp scalar changes by `delta`.
        Counter { id: CounterId, cpu: u8, delta: i32 },
        /// `prep_new_page`: the block is handed out (head refcount 1) to `owner`.
        PrepNewPage {
            pfn: ZonePfn,
            order: u8,
            owner: u32,
            lru: bool,
        },
        /// `split_page`: every tail page gets refcount 1.
        SplitPage { pfn: ZonePfn, order: u8 },
        /// The owner drops the block (`put_page_testzero` reached 0): head refcount 1 → 0.
        PutPage {
            pfn: ZonePfn,
            order: u8,
            owner: u32,
            lru: bool,
        },
        /// `alloc_contig_range`: `nr` pages become allocated, refcount 1 each.
        ContigAlloc { pfn: ZonePfn, nr: u32, owner: u32 },
        /// `get_page`: a third party (compaction's pfn scanner, a GUP pin) takes an extra
        /// reference on an allocated order-0 page: refcount + 1.
        GetPage { pfn: ZonePfn },
        /// `put_page_testzero` that does not reach zero: refcount − 1, the page stays allocated.
        /// `release`: the reference dropped was its allocation's own (a free of a page someone
        /// else still holds), so the page is no longer the owner's: `owner`/`lru` are the page's
        /// before, for the undo. The later `put_page` that drops the last reference frees it.
        PutPageRef {
            pfn: ZonePfn,
            owner: u32,
            lru: bool,
            release: bool,
        },
        /// A node of several zones: the code goes on in zone `to` of the node (`from` before);
        /// later pfns are `to`'s. The zonelist walk, `page_zone()` of a freed page, and the
        /// per-zone loops (`drain_all_pages`, `/proc`) switch this way.
        ZoneSwitch { from: u8, to: u8 },
    }

    /// An explanation of what happened: changes nothing in the zone but the cost counters
    /// (`Stats::count`). Pfns are [`ZonePfn`]s.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Annotation {
        /// A lock is taken (`spin_lock_irqsave(&zone->lock)` or `pcp_spin_trylock`).
        Lock {
            zone: bool,
            cpu: u8,
        },
        /// Call-chain bookkeeping.
        Enter {
            func: KernelFn,
        },
        Exit {
            func: KernelFn,
        },
        /// `find_suitable_fallback(order, start_mt, claimable)`: `found` is the fallback type, or
        /// `None` (-1), and `refused` is -2 (`should_try_claim_block` said no).
        FallbackProbe {
            order: u8,
            start_mt: MigrateType,
            found: Option<MigrateType>,
            refused: bool,
        },
        /// A claim of the pageblock(s) at `pfn` succeeded (`pageblocks` re-typed).
        Claimed {
            pfn: ZonePfn,
            order: u8,
            from: MigrateType,
            to: MigrateType,
            pageblocks: u32 as u16,
            free: u32 as u16,
            alike: u32 as u16,
        },
        /// `try_to_claim_block` refused a partial pageblock (`free + alike < 256`).
        ClaimRefused {
            pfn: ZonePfn,
            order: u8,
            free: u32,
            alike: u32,
        },
        /// `__rmqueue_steal` took `2^alloc_order` pages of a foreign block.
        Stolen {
            pfn: ZonePfn,
            order: u8,
            alloc_order: u8,
            from: MigrateType,
        },
        /// A watermark check (`zone_watermark_fast`).
        Watermark {
            order: u8,
            mark: u32,
            free: i32,
            ok: bool,
        },
        /// `rmqueue_bulk` asked for `want` blocks and got `got`.
        PcpRefill {
            cpu: u8,
            order: u8,
            mt: MigrateType,
            want: u32,
            got: u32,
        },
        /// `free_pcppages_bulk(count)` starts.
        PcpDrain {
            cpu: u8,
            count: u32,
            pindex: u8,
        },
        /// Two buddies merge into one block of `order` (the result) at `pfn`.
        Merge {
            pfn: ZonePfn,
            buddy: ZonePfn,
            order: u8,
        },
        /// A contiguous-range chunk chosen by `free_prepared_contig_range` (or boot freeing).
        Chunk {
            pfn: ZonePfn,
            order: u8,
        },
        /// A run of physically consecutive pages handed to `__free_contig_range` by `vfree`.
        Run {
            pfn: ZonePfn,
            nr: u32,
        },
        /// A vmalloc order attempt.
        VmallocAttempt {
            order: u8,
            ok: bool,
        },
        /// An engine message; its text is in the log's message table.
        Message {
            level: MsgLevel,
            id: u32,
        },
    }

    /// Kernel tracepoints (`include/trace/events/kmem.h`, §9; `compaction.h` for the
    /// `MmCompaction*` ones). Pfns are [`ZonePfn`]s; the
    /// printed line ([`crate::explain::trace_line`]) makes them absolute.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Tracepoint {
        /// `mm_page_alloc`; `pfn` is `None` for a failed allocation.
        MmPageAlloc {
            pfn: Option<ZonePfn>,
            order: u8,
            mt: MigrateType,
            gfp: u32,
        },
        MmPageFree {
            pfn: ZonePfn,
            order: u8,
        },
        MmPageAllocZoneLocked {
            pfn: ZonePfn,
            order: u8,
            mt: MigrateType,
            percpu_refill: bool,
        },
        MmPagePcpuDrain {
            pfn: ZonePfn,
            order: u8,
            mt: MigrateType,
        },
        MmPageAllocExtfrag {
            pfn: ZonePfn,
            alloc_order: u8,
            fallback_order: u8,
            alloc_mt: MigrateType,
            fallback_mt: MigrateType,
            change_ownership: bool,
        },
        /// `mm_compaction_begin` (`compact_zone`): the scanners' start (the zone's start and end
        /// come from the line's context).
        MmCompactionBegin {
            migrate_pfn: ZonePfn,
            free_pfn: ZonePfn,
            sync: bool,
        },
        /// `mm_compaction_end`: where the scanners stopped and the result.
        MmCompactionEnd {
            migrate_pfn: ZonePfn,
            free_pfn: ZonePfn,
            sync: bool,
            status: CompactResult,
        },
        /// `mm_compaction_isolate_migratepages` (`isolate_migratepages_block`).
        MmCompactionIsolateMigratepages {
            start: ZonePfn,
            end: ZonePfn,
            nr_scanned: u16,
            nr_taken: u16,
        },
        /// `mm_compaction_isolate_freepages` (`isolate_freepages_block`).
        MmCompactionIsolateFreepages {
            start: ZonePfn,
            end: ZonePfn,
            nr_scanned: u16,
            nr_taken: u16,
        },
        /// `mm_compaction_migratepages` (`compact_zone` after `migrate_pages`).
        MmCompactionMigratepages {
            nr_migrated: u32,
            nr_failed: u32,
        },
        /// `mm_compaction_suitable` (`compaction_suitable`); `zone_type` is `zone_idx`.
        MmCompactionSuitable {
            zone_type: u8,
            order: u8,
            ret: CompactResult,
        },
        /// `mm_compaction_finished` (`compact_finished`, each turn of `compact_zone`'s loop).
        MmCompactionFinished {
            zone_type: u8,
            /// `cc->order`: -1 for `compact_memory`.
            order: i8,
            ret: CompactResult,
        },
        /// `mm_compaction_deferred` / `_defer_compaction` / `_defer_reset`: the zone's deferral
        /// state after the change.
        MmCompactionDefer {
            point: DeferPoint,
            zone_type: u8,
            order: u8,
            state: CompactDefer,
        },
    }
}

/// What an event did: a [`Mutation`] of the zone or an [`Annotation`] explaining it. Two types,
/// so that the zone's `apply`/`unapply` match mutations only and a new annotation cannot be
/// forgotten there. Buddy alignment of zone-relative pfns is the absolute one because
/// `start_pfn` is a multiple of 1024.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventKind {
    Mutation(Mutation),
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
                    Tracepoint::MmCompactionBegin { .. }
                    | Tracepoint::MmCompactionEnd { .. }
                    | Tracepoint::MmCompactionMigratepages { .. }
                    | Tracepoint::MmCompactionSuitable { .. }
                    | Tracepoint::MmCompactionFinished { .. }
                    | Tracepoint::MmCompactionDefer { .. } => None,
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
                        | Tracepoint::MmCompactionMigratepages { .. }
                        | Tracepoint::MmCompactionSuitable { .. }
                        | Tracepoint::MmCompactionFinished { .. }
                        | Tracepoint::MmCompactionDefer { .. }
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
        ];
        for k in kinds {
            assert_eq!(decode(&encode(k)), k);
        }
    }
}
