//! The stored form of an [`EventKind`]: a tag byte and up to 13 bytes of payload, so that an
//! [`super::Event`] (a 2-byte [`crate::mm::steps::Step`] beside it) is 16 bytes instead of 24.
//!
//! Rust lays the kinds out by alignment: `EventKind` wraps two enums whose own tags it cannot
//! share, and `Annotation::Trace` nests a third, so the typed enum is 20 bytes however narrow
//! its fields. A recorded run holds millions of events (12.7 M for the 1M-operation mixed
//! workload), and faulting in the log's pages is most of what recording costs; so the log
//! stores this byte form and [`super::Event::kind`] decodes it back. The typed enums stay the
//! API: every reader matches on them as before.
//!
//! One tag over all variants: mutations from 0, annotations from 64, tracepoints from 128.
//! Fields are little-endian at byte offsets, unaligned. The encoding is canonical (unused
//! bytes 0, `None` one way), so two events are equal exactly when their bytes are.
//!
//! Only `Annotation::Claimed` does not fit at full width (19 bytes): its `pageblocks`, `free`
//! and `alike` are stored as u16. The kernel bounds them far lower: `try_to_claim_block`
//! (v7.1.5 mm/page_alloc.c:2284-2290) takes a whole block of `current_order >=
//! pageblock_order`, at most the `2^(MAX_PAGE_ORDER - pageblock_order)` = 2 pageblocks of an
//! order-10 block (the model's `free` = 1024 then), and otherwise counts `free_pages` and
//! `movable_pages` within one pageblock (`prep_move_freepages_block`, :1969-1977,
//! `pageblock_start_pfn`..`pageblock_end_pfn`: 512 pages).
//!
//! A new variant gets one arm in [`encode`] and one in [`decode`] with the same tag and the
//! fields in the same order; `Event::new` checks the round trip in debug builds, so every test
//! that records a trace proves both arms.

use super::events::*;
use crate::mm::steps::Step;
use crate::mm::types::MigrateType;

/// Bytes of a stored kind: the tag and the payload.
pub(super) const PACKED_BYTES: usize = 14;

pub(super) type Packed = [u8; PACKED_BYTES];

/// [`KernelFn`] by its declaration index (`func as u8`), to decode `Enter`/`Exit`.
pub(super) const KERNEL_FNS: &[KernelFn] = &[
    KernelFn::alloc_pages,
    KernelFn::get_page_from_freelist,
    KernelFn::__alloc_pages_slowpath,
    KernelFn::rmqueue,
    KernelFn::rmqueue_pcplist,
    KernelFn::nr_pcp_alloc,
    KernelFn::rmqueue_bulk,
    KernelFn::rmqueue_buddy,
    KernelFn::__rmqueue,
    KernelFn::__rmqueue_smallest,
    KernelFn::expand,
    KernelFn::__rmqueue_claim,
    KernelFn::find_suitable_fallback,
    KernelFn::try_to_claim_block,
    KernelFn::__rmqueue_steal,
    KernelFn::reserve_highatomic_pageblock,
    KernelFn::unreserve_highatomic_pageblock,
    KernelFn::__alloc_pages_direct_reclaim,
    KernelFn::zone_watermark_ok,
    KernelFn::__free_pages,
    KernelFn::__free_frozen_pages,
    KernelFn::free_pages_prepare,
    KernelFn::free_frozen_page_commit,
    KernelFn::free_pcppages_bulk,
    KernelFn::free_one_page,
    KernelFn::__free_one_page,
    KernelFn::split_page,
    KernelFn::drain_pages_zone,
    KernelFn::drain_all_pages,
    KernelFn::decay_pcp_high,
    KernelFn::free_contig_range,
    KernelFn::__free_contig_range_common,
    KernelFn::free_prepared_contig_range,
    KernelFn::alloc_contig_range,
    KernelFn::vmalloc,
    KernelFn::vm_area_alloc_pages,
    KernelFn::alloc_pages_bulk,
    KernelFn::vfree,
    KernelFn::memblock_free_all,
    KernelFn::get_page,
    KernelFn::put_page,
    KernelFn::split_large_buddy,
    KernelFn::start_isolate_page_range,
    KernelFn::isolate_single_pageblock,
    KernelFn::set_migratetype_isolate,
    KernelFn::unset_migratetype_isolate,
    KernelFn::undo_isolate_page_range,
    KernelFn::__alloc_contig_migrate_range,
    KernelFn::migrate_pages,
    KernelFn::__free_contig_frozen_range,
    KernelFn::cma_alloc,
    KernelFn::cma_release,
    KernelFn::compact_node,
    KernelFn::compact_zone,
    KernelFn::isolate_migratepages,
    KernelFn::isolate_freepages,
    KernelFn::release_free_list,
];

const COUNTERS: [CounterId; 8] = [
    CounterId::watermark_boost,
    CounterId::nr_reserved_highatomic,
    CounterId::zone_below_high,
    CounterId::zone_boosted_watermark,
    CounterId::pcp_high,
    CounterId::pcp_alloc_factor,
    CounterId::pcp_free_count,
    CounterId::pcp_prev_free_high_order,
];

const LEVELS: [MsgLevel; 4] = [
    MsgLevel::Note,
    MsgLevel::Info,
    MsgLevel::Warning,
    MsgLevel::Failure,
];

/// `Option<MigrateType>`'s `None`.
const NO_MT: u8 = 0xff;

/// Writes fields one after another behind the tag, as bits of one integer: built in registers
/// and stored once (byte stores read back as wider words stall store forwarding).
struct W {
    v: u128,
    bits: u32,
}

impl W {
    #[inline(always)]
    fn tag(t: u8) -> W {
        W {
            v: t as u128,
            bits: 8,
        }
    }
    #[inline(always)]
    fn field(self, x: u32, width: u32) -> W {
        W {
            v: self.v | (x as u128) << self.bits,
            bits: self.bits + width,
        }
    }
    #[inline(always)]
    fn u8(self, v: u8) -> W {
        self.field(v as u32, 8)
    }
    #[inline(always)]
    fn bool(self, v: bool) -> W {
        self.u8(v as u8)
    }
    #[inline(always)]
    fn mt(self, v: MigrateType) -> W {
        self.u8(v as u8)
    }
    #[inline(always)]
    fn end(self, v: End) -> W {
        self.bool(v == End::Tail)
    }
    #[inline(always)]
    fn u16(self, v: u32, what: &str) -> W {
        let v = u16::try_from(v).unwrap_or_else(|_| panic!("{what} {v} exceeds u16"));
        self.field(v as u32, 16)
    }
    #[inline(always)]
    fn u32(self, v: u32) -> W {
        self.field(v, 32)
    }
    #[inline(always)]
    fn i32(self, v: i32) -> W {
        self.field(v as u32, 32)
    }
    #[inline(always)]
    fn finish(self) -> Packed {
        assert!(
            self.bits <= 8 * PACKED_BYTES as u32,
            "an event kind over 14 bytes"
        );
        let b = self.v.to_le_bytes();
        std::array::from_fn(|i| b[i])
    }
}

/// Reads the fields back in the order [`W`] wrote them.
struct R {
    v: u128,
}

impl R {
    #[inline(always)]
    fn field(&mut self, width: u32) -> u32 {
        let x = (self.v & ((1u128 << width) - 1)) as u32;
        self.v >>= width;
        x
    }
    #[inline(always)]
    fn u8(&mut self) -> u8 {
        self.field(8) as u8
    }
    #[inline(always)]
    fn bool(&mut self) -> bool {
        self.u8() != 0
    }
    #[inline(always)]
    fn mt(&mut self) -> MigrateType {
        MigrateType::from_idx(self.u8() as usize)
    }
    #[inline(always)]
    fn end(&mut self) -> End {
        if self.bool() {
            End::Tail
        } else {
            End::Head
        }
    }
    #[inline(always)]
    fn u16(&mut self) -> u32 {
        self.field(16)
    }
    #[inline(always)]
    fn u32(&mut self) -> u32 {
        self.field(32)
    }
    #[inline(always)]
    fn i32(&mut self) -> i32 {
        self.field(32) as i32
    }
}

/// The stored bytes of `kind`.
#[inline(always)]
pub(super) fn encode(kind: EventKind) -> Packed {
    let w = match kind {
        EventKind::Mutation(m) => match m {
            Mutation::FreeListAdd {
                pfn,
                order,
                mt,
                end,
            } => W::tag(0).u32(pfn).u8(order).mt(mt).end(end),
            Mutation::FreeListDel {
                pfn,
                order,
                mt,
                prev,
            } => W::tag(1).u32(pfn).u8(order).mt(mt).u32(prev),
            Mutation::FreeListMove {
                pfn,
                order,
                from,
                to,
                prev,
            } => W::tag(2).u32(pfn).u8(order).mt(from).mt(to).u32(prev),
            Mutation::Account { mt, delta } => W::tag(3).mt(mt).i32(delta),
            Mutation::PcpAdd {
                cpu,
                pindex,
                pfn,
                end,
            } => W::tag(4).u8(cpu).u8(pindex).u32(pfn).end(end),
            Mutation::PcpDel {
                cpu,
                pindex,
                pfn,
                prev,
            } => W::tag(5).u8(cpu).u8(pindex).u32(pfn).u32(prev),
            Mutation::SetPageblock { pb, old, new } => W::tag(6).u32(pb).u8(old).u8(new),
            Mutation::Counter { id, cpu, delta } => W::tag(7).u8(id as u8).u8(cpu).i32(delta),
            Mutation::PrepNewPage {
                pfn,
                order,
                owner,
                lru,
            } => W::tag(8).u32(pfn).u8(order).u32(owner).bool(lru),
            Mutation::SplitPage { pfn, order } => W::tag(9).u32(pfn).u8(order),
            Mutation::PutPage {
                pfn,
                order,
                owner,
                lru,
            } => W::tag(10).u32(pfn).u8(order).u32(owner).bool(lru),
            Mutation::ContigAlloc { pfn, nr, owner } => W::tag(11).u32(pfn).u32(nr).u32(owner),
            Mutation::GetPage { pfn } => W::tag(12).u32(pfn),
            Mutation::PutPageRef {
                pfn,
                owner,
                lru,
                release,
            } => W::tag(13).u32(pfn).u32(owner).bool(lru).bool(release),
            Mutation::ZoneSwitch { from, to } => W::tag(14).u8(from).u8(to),
            Mutation::CompactDefer { old, new } => W::tag(15)
                .u8(old.considered)
                .u8(old.defer_shift)
                .u8(old.order_failed)
                .u8(new.considered)
                .u8(new.defer_shift)
                .u8(new.order_failed),
        },
        EventKind::Annotation(a) => match a {
            Annotation::Lock { zone, cpu } => W::tag(64).bool(zone).u8(cpu),
            Annotation::Enter { func } => W::tag(65).u8(func as u8),
            Annotation::Exit { func } => W::tag(66).u8(func as u8),
            Annotation::Trace(t) => match t {
                Tracepoint::MmPageAlloc {
                    pfn,
                    order,
                    mt,
                    gfp,
                } => W::tag(128)
                    .bool(pfn.is_some())
                    .u32(pfn.unwrap_or(0))
                    .u8(order)
                    .mt(mt)
                    .u32(gfp),
                Tracepoint::MmPageFree { pfn, order } => W::tag(129).u32(pfn).u8(order),
                Tracepoint::MmPageAllocZoneLocked {
                    pfn,
                    order,
                    mt,
                    percpu_refill,
                } => W::tag(130).u32(pfn).u8(order).mt(mt).bool(percpu_refill),
                Tracepoint::MmPagePcpuDrain { pfn, order, mt } => {
                    W::tag(131).u32(pfn).u8(order).mt(mt)
                }
                Tracepoint::MmPageAllocExtfrag {
                    pfn,
                    alloc_order,
                    fallback_order,
                    alloc_mt,
                    fallback_mt,
                    change_ownership,
                } => W::tag(132)
                    .u32(pfn)
                    .u8(alloc_order)
                    .u8(fallback_order)
                    .mt(alloc_mt)
                    .mt(fallback_mt)
                    .bool(change_ownership),
                Tracepoint::MmCompactionBegin {
                    migrate_pfn,
                    free_pfn,
                    sync,
                } => W::tag(133).u32(migrate_pfn).u32(free_pfn).bool(sync),
                Tracepoint::MmCompactionEnd {
                    migrate_pfn,
                    free_pfn,
                    sync,
                    status,
                } => W::tag(134)
                    .u32(migrate_pfn)
                    .u32(free_pfn)
                    .bool(sync)
                    .u8(status as u8),
                Tracepoint::MmCompactionIsolateMigratepages {
                    start,
                    end,
                    nr_scanned,
                    nr_taken,
                } => W::tag(135)
                    .u32(start)
                    .u32(end)
                    .u16(nr_scanned as u32, "nr_scanned")
                    .u16(nr_taken as u32, "nr_taken"),
                Tracepoint::MmCompactionIsolateFreepages {
                    start,
                    end,
                    nr_scanned,
                    nr_taken,
                } => W::tag(136)
                    .u32(start)
                    .u32(end)
                    .u16(nr_scanned as u32, "nr_scanned")
                    .u16(nr_taken as u32, "nr_taken"),
                Tracepoint::MmCompactionMigratepages {
                    nr_migrated,
                    nr_failed,
                } => W::tag(137).u32(nr_migrated).u32(nr_failed),
                Tracepoint::MmCompactionSuitable {
                    zone_type,
                    order,
                    ret,
                } => W::tag(138).u8(zone_type).u8(order).u8(ret as u8),
                Tracepoint::MmCompactionFinished {
                    zone_type,
                    order,
                    ret,
                } => W::tag(139).u8(zone_type).u8(order as u8).u8(ret as u8),
                Tracepoint::MmCompactionDefer {
                    point,
                    zone_type,
                    order,
                    state,
                } => W::tag(140)
                    .u8(point as u8)
                    .u8(zone_type)
                    .u8(order)
                    .u8(state.considered)
                    .u8(state.defer_shift)
                    .u8(state.order_failed),
            },
            Annotation::FallbackProbe {
                order,
                start_mt,
                found,
                refused,
            } => W::tag(67)
                .u8(order)
                .mt(start_mt)
                .u8(found.map_or(NO_MT, |m| m as u8))
                .bool(refused),
            Annotation::Claimed {
                pfn,
                order,
                from,
                to,
                pageblocks,
                free,
                alike,
            } => W::tag(68)
                .u32(pfn)
                .u8(order)
                .mt(from)
                .mt(to)
                .u16(pageblocks, "Claimed pageblocks")
                .u16(free, "Claimed free")
                .u16(alike, "Claimed alike"),
            Annotation::ClaimRefused {
                pfn,
                order,
                free,
                alike,
            } => W::tag(69).u32(pfn).u8(order).u32(free).u32(alike),
            Annotation::Stolen {
                pfn,
                order,
                alloc_order,
                from,
            } => W::tag(70).u32(pfn).u8(order).u8(alloc_order).mt(from),
            Annotation::Watermark {
                order,
                mark,
                free,
                ok,
            } => W::tag(71).u8(order).u32(mark).i32(free).bool(ok),
            Annotation::PcpRefill {
                cpu,
                order,
                mt,
                want,
                got,
            } => W::tag(72).u8(cpu).u8(order).mt(mt).u32(want).u32(got),
            Annotation::PcpDrain { cpu, count, pindex } => W::tag(73).u8(cpu).u32(count).u8(pindex),
            Annotation::Merge { pfn, buddy, order } => W::tag(74).u32(pfn).u32(buddy).u8(order),
            Annotation::Chunk { pfn, order } => W::tag(75).u32(pfn).u8(order),
            Annotation::Run { pfn, nr } => W::tag(76).u32(pfn).u32(nr),
            Annotation::VmallocAttempt { order, ok } => W::tag(77).u8(order).bool(ok),
            Annotation::Message { level, id } => W::tag(78).u8(level as u8).u32(id),
        },
    };
    w.finish()
}

/// The kind `encode` stored in `b`.
#[inline]
pub(super) fn decode(b: &Packed) -> EventKind {
    let mut wide = [0; 16];
    wide[..PACKED_BYTES].copy_from_slice(b);
    let mut r = R {
        v: u128::from_le_bytes(wide) >> 8,
    };
    let r = &mut r;
    match b[0] {
        0 => Mutation::FreeListAdd {
            pfn: r.u32(),
            order: r.u8(),
            mt: r.mt(),
            end: r.end(),
        }
        .into(),
        1 => Mutation::FreeListDel {
            pfn: r.u32(),
            order: r.u8(),
            mt: r.mt(),
            prev: r.u32(),
        }
        .into(),
        2 => Mutation::FreeListMove {
            pfn: r.u32(),
            order: r.u8(),
            from: r.mt(),
            to: r.mt(),
            prev: r.u32(),
        }
        .into(),
        3 => Mutation::Account {
            mt: r.mt(),
            delta: r.i32(),
        }
        .into(),
        4 => Mutation::PcpAdd {
            cpu: r.u8(),
            pindex: r.u8(),
            pfn: r.u32(),
            end: r.end(),
        }
        .into(),
        5 => Mutation::PcpDel {
            cpu: r.u8(),
            pindex: r.u8(),
            pfn: r.u32(),
            prev: r.u32(),
        }
        .into(),
        6 => Mutation::SetPageblock {
            pb: r.u32(),
            old: r.u8(),
            new: r.u8(),
        }
        .into(),
        7 => Mutation::Counter {
            id: COUNTERS[r.u8() as usize],
            cpu: r.u8(),
            delta: r.i32(),
        }
        .into(),
        8 => Mutation::PrepNewPage {
            pfn: r.u32(),
            order: r.u8(),
            owner: r.u32(),
            lru: r.bool(),
        }
        .into(),
        9 => Mutation::SplitPage {
            pfn: r.u32(),
            order: r.u8(),
        }
        .into(),
        10 => Mutation::PutPage {
            pfn: r.u32(),
            order: r.u8(),
            owner: r.u32(),
            lru: r.bool(),
        }
        .into(),
        11 => Mutation::ContigAlloc {
            pfn: r.u32(),
            nr: r.u32(),
            owner: r.u32(),
        }
        .into(),
        12 => Mutation::GetPage { pfn: r.u32() }.into(),
        13 => Mutation::PutPageRef {
            pfn: r.u32(),
            owner: r.u32(),
            lru: r.bool(),
            release: r.bool(),
        }
        .into(),
        14 => Mutation::ZoneSwitch {
            from: r.u8(),
            to: r.u8(),
        }
        .into(),
        15 => Mutation::CompactDefer {
            old: CompactDefer {
                considered: r.u8(),
                defer_shift: r.u8(),
                order_failed: r.u8(),
            },
            new: CompactDefer {
                considered: r.u8(),
                defer_shift: r.u8(),
                order_failed: r.u8(),
            },
        }
        .into(),
        64 => Annotation::Lock {
            zone: r.bool(),
            cpu: r.u8(),
        }
        .into(),
        65 => Annotation::Enter {
            func: kernel_fn(r.u8()),
        }
        .into(),
        66 => Annotation::Exit {
            func: kernel_fn(r.u8()),
        }
        .into(),
        67 => Annotation::FallbackProbe {
            order: r.u8(),
            start_mt: r.mt(),
            found: match r.u8() {
                NO_MT => None,
                m => Some(MigrateType::from_idx(m as usize)),
            },
            refused: r.bool(),
        }
        .into(),
        68 => Annotation::Claimed {
            pfn: r.u32(),
            order: r.u8(),
            from: r.mt(),
            to: r.mt(),
            pageblocks: r.u16(),
            free: r.u16(),
            alike: r.u16(),
        }
        .into(),
        69 => Annotation::ClaimRefused {
            pfn: r.u32(),
            order: r.u8(),
            free: r.u32(),
            alike: r.u32(),
        }
        .into(),
        70 => Annotation::Stolen {
            pfn: r.u32(),
            order: r.u8(),
            alloc_order: r.u8(),
            from: r.mt(),
        }
        .into(),
        71 => Annotation::Watermark {
            order: r.u8(),
            mark: r.u32(),
            free: r.i32(),
            ok: r.bool(),
        }
        .into(),
        72 => Annotation::PcpRefill {
            cpu: r.u8(),
            order: r.u8(),
            mt: r.mt(),
            want: r.u32(),
            got: r.u32(),
        }
        .into(),
        73 => Annotation::PcpDrain {
            cpu: r.u8(),
            count: r.u32(),
            pindex: r.u8(),
        }
        .into(),
        74 => Annotation::Merge {
            pfn: r.u32(),
            buddy: r.u32(),
            order: r.u8(),
        }
        .into(),
        75 => Annotation::Chunk {
            pfn: r.u32(),
            order: r.u8(),
        }
        .into(),
        76 => Annotation::Run {
            pfn: r.u32(),
            nr: r.u32(),
        }
        .into(),
        77 => Annotation::VmallocAttempt {
            order: r.u8(),
            ok: r.bool(),
        }
        .into(),
        78 => Annotation::Message {
            level: LEVELS[r.u8() as usize],
            id: r.u32(),
        }
        .into(),
        128 => Tracepoint::MmPageAlloc {
            pfn: {
                let some = r.bool();
                let pfn = r.u32();
                some.then_some(pfn)
            },
            order: r.u8(),
            mt: r.mt(),
            gfp: r.u32(),
        }
        .into(),
        129 => Tracepoint::MmPageFree {
            pfn: r.u32(),
            order: r.u8(),
        }
        .into(),
        130 => Tracepoint::MmPageAllocZoneLocked {
            pfn: r.u32(),
            order: r.u8(),
            mt: r.mt(),
            percpu_refill: r.bool(),
        }
        .into(),
        131 => Tracepoint::MmPagePcpuDrain {
            pfn: r.u32(),
            order: r.u8(),
            mt: r.mt(),
        }
        .into(),
        132 => Tracepoint::MmPageAllocExtfrag {
            pfn: r.u32(),
            alloc_order: r.u8(),
            fallback_order: r.u8(),
            alloc_mt: r.mt(),
            fallback_mt: r.mt(),
            change_ownership: r.bool(),
        }
        .into(),
        133 => Tracepoint::MmCompactionBegin {
            migrate_pfn: r.u32(),
            free_pfn: r.u32(),
            sync: r.bool(),
        }
        .into(),
        134 => Tracepoint::MmCompactionEnd {
            migrate_pfn: r.u32(),
            free_pfn: r.u32(),
            sync: r.bool(),
            status: CompactResult::ALL[r.u8() as usize],
        }
        .into(),
        135 => Tracepoint::MmCompactionIsolateMigratepages {
            start: r.u32(),
            end: r.u32(),
            nr_scanned: r.u16() as u16,
            nr_taken: r.u16() as u16,
        }
        .into(),
        136 => Tracepoint::MmCompactionIsolateFreepages {
            start: r.u32(),
            end: r.u32(),
            nr_scanned: r.u16() as u16,
            nr_taken: r.u16() as u16,
        }
        .into(),
        137 => Tracepoint::MmCompactionMigratepages {
            nr_migrated: r.u32(),
            nr_failed: r.u32(),
        }
        .into(),
        138 => Tracepoint::MmCompactionSuitable {
            zone_type: r.u8(),
            order: r.u8(),
            ret: CompactResult::ALL[r.u8() as usize],
        }
        .into(),
        139 => Tracepoint::MmCompactionFinished {
            zone_type: r.u8(),
            order: r.u8() as i8,
            ret: CompactResult::ALL[r.u8() as usize],
        }
        .into(),
        140 => Tracepoint::MmCompactionDefer {
            point: DeferPoint::ALL[r.u8() as usize],
            zone_type: r.u8(),
            order: r.u8(),
            state: CompactDefer {
                considered: r.u8(),
                defer_shift: r.u8(),
                order_failed: r.u8(),
            },
        }
        .into(),
        t => unreachable!("event tag {t} has no decode arm"),
    }
}

/// The steps of the zone lock's `Lock` events (`cpu` 0) that [`super::Trace`] keeps as a byte.
const ZONE_LOCK_STEPS: [Step; 9] = [
    Step::UnreserveHighatomicLock,
    Step::BulkLock,
    Step::BuddyLock,
    Step::HighatomicReserveLock,
    Step::IsolateLock,
    Step::UnisolateLock,
    Step::AllocContigTake,
    Step::FreeOnePageLock,
    Step::BulkFreeLock,
];

/// The steps of the pcp locks' `Lock` events kept as a byte, for CPUs below [`LOCK_CPUS`].
const PCP_LOCK_STEPS: [Step; 4] = [
    Step::PcplistLock,
    Step::FreeFrozenPcpLock,
    Step::DrainLock,
    Step::DecayLock,
];

/// pcp `Lock` events of CPUs from here on (up to `MAX_CPUS`) are stored whole: the byte's
/// codes would not hold them all.
const LOCK_CPUS: usize = 32;

/// The first byte code of a `Lock` event: the calls take `0..2 * KERNEL_FNS.len()`.
const LOCK_BASE: usize = 2 * KERNEL_FNS.len();

/// Byte codes in use: calls, then zone-lock steps, then pcp-lock steps × CPUs.
pub(super) const BYTE_CODES: usize =
    LOCK_BASE + ZONE_LOCK_STEPS.len() + PCP_LOCK_STEPS.len() * LOCK_CPUS;
const _: () = assert!(BYTE_CODES <= 256, "the trace's byte codes are a u8");

/// The event of byte code `code` (`code < BYTE_CODES`): the table [`super::Trace`] reads them
/// back from.
pub(super) fn byte_coded_event(code: usize) -> Event {
    if code < LOCK_BASE {
        let func = KERNEL_FNS[code / 2];
        return if code.is_multiple_of(2) {
            Event::new(Step::Enter, Annotation::Enter { func }.into())
        } else {
            Event::new(Step::Exit, Annotation::Exit { func }.into())
        };
    }
    let i = code - LOCK_BASE;
    let (step, zone, cpu) = match ZONE_LOCK_STEPS.get(i) {
        Some(&s) => (s, true, 0),
        None => {
            let j = i - ZONE_LOCK_STEPS.len();
            (PCP_LOCK_STEPS[j / LOCK_CPUS], false, (j % LOCK_CPUS) as u8)
        }
    };
    Event::new(step, Annotation::Lock { zone, cpu }.into())
}

/// The byte code of `Lock { zone, cpu }` at `step`, if it has one. A million of the 5.7
/// million events that are not calls in the 1M-operation mixed workload are locks, and their
/// step, lock and CPU fit a byte as the calls' do: 15 MB of a recorded run's pages not
/// faulted in.
#[inline(always)]
pub(super) fn lock_code(step: Step, zone: bool, cpu: u8) -> Option<u8> {
    let code = if zone {
        if cpu != 0 {
            return None;
        }
        LOCK_BASE + ZONE_LOCK_STEPS.iter().position(|&s| s == step)?
    } else {
        if cpu as usize >= LOCK_CPUS {
            return None;
        }
        let i = PCP_LOCK_STEPS.iter().position(|&s| s == step)?;
        LOCK_BASE + ZONE_LOCK_STEPS.len() + i * LOCK_CPUS + cpu as usize
    };
    Some(code as u8)
}

/// The byte code of an event [`super::Trace`] keeps as a byte: `2 * func + exit` of an `Enter`
/// at `Step::Enter` or an `Exit` at `Step::Exit` (the engine's `enter`/`exit`), or a
/// [`lock_code`].
#[inline(always)]
pub(super) fn byte_code(ev: &Event) -> Option<u8> {
    match (ev.packed[0], ev.step) {
        (65, Step::Enter) => Some(2 * ev.packed[1]),
        (66, Step::Exit) => Some(2 * ev.packed[1] + 1),
        (64, step) => lock_code(step, ev.packed[1] != 0, ev.packed[2]),
        _ => None,
    }
}

/// Mutations are the tags below 64.
#[inline(always)]
pub(super) fn is_mutation(b: &Packed) -> bool {
    b[0] < 64
}

fn kernel_fn(i: u8) -> KernelFn {
    *KERNEL_FNS
        .get(i as usize)
        .unwrap_or_else(|| panic!("KernelFn #{i} is missing from events::packed::KERNEL_FNS"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decode table is the enum's declaration order (`func as u8` indexes it).
    #[test]
    fn kernel_fn_table_is_in_declaration_order() {
        for (i, f) in KERNEL_FNS.iter().enumerate() {
            assert_eq!(*f as usize, i, "{}", f.name());
        }
        for (i, c) in COUNTERS.iter().enumerate() {
            assert_eq!(*c as usize, i);
        }
        for (i, l) in LEVELS.iter().enumerate() {
            assert_eq!(*l as usize, i);
        }
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
