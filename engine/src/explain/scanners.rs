//! Where compaction's two scanners are at a position of a run, for the memory map: read back
//! from the run's own `mm_compaction_*` tracepoints (`compact_zone` traces where each scan of
//! a pageblock started and stopped) by the kernel's rules for `cc->migrate_pfn` and
//! `cc->free_pfn`.

use serde::Serialize;

use crate::mm::{
    pindex_to_order, Annotation, EventKind, Mutation, Step, Tracepoint, Zone, ZonePfn,
    PAGEBLOCK_NR_PAGES,
};
use crate::run::{CompactionSpan, Run};

/// The scanners of the `compact_zone` in progress (zone pfns of the zone being compacted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Scanners {
    /// The migration scanner (`cc->migrate_pfn`): `mm_compaction_begin`'s, then the end of
    /// each `mm_compaction_isolate_migratepages` range (it walks up from the zone start).
    pub migrate_pfn: ZonePfn,
    /// The free scanner (`cc->free_pfn`): `mm_compaction_begin`'s (the last pageblock), then
    /// after each `mm_compaction_isolate_freepages` line of the linear scan where
    /// `isolate_freepages` restarts: the end of the range when the scan stopped inside its
    /// pageblock, the pageblock below when it scanned to the pageblock's end.
    pub free_pfn: ZonePfn,
    /// The event of the `mm_compaction_begin`.
    pub begin: u32,
}

/// The `compact_zone` in progress after the first `at` events of `run` (the last one that began
/// before `at` and has not traced its `mm_compaction_end` by then), with `at` capped at the
/// run's length; `None` outside every compaction.
fn compaction_in_progress(run: &Run, at: u32) -> Option<(CompactionSpan, u32)> {
    let at = (at as usize).min(run.log.events.len()) as u32;
    let spans = run.compactions();
    let span = spans[spans.partition_point(|s| s.begin < at).checked_sub(1)?];
    span.end.is_none_or(|e| e >= at).then_some((span, at))
}

/// The scanners after the first `at` events of `run` (a recorded run or replay), with `zone`
/// the zone being compacted (its start aligns the pageblocks, its end caps the last one):
/// `None` when no `compact_zone` is in progress there (none began, or the last one traced its
/// `mm_compaction_end`). The compactions are indexed once per run ([`Run::compactions`]); the
/// walk is the compaction's lines before `at`.
///
/// The free scanner follows v7.3.4 mm/compaction.c `isolate_freepages`:
/// - a scan of a pageblock (`isolate_freepages_block`, traced with the range it covered,
///   :678) that reached `block_end_pfn` (the pageblock's end, or the zone's, :1753-1754)
///   leaves `isolate_start_pfn` one pageblock lower: set at :1812-1813 when enough free pages
///   were isolated, else by the loop's step (:1764-1766) for the next pageblock or for the
///   end of the loop; `cc->free_pfn = isolate_start_pfn` at :1838;
/// - a scan that stopped inside its pageblock breaks out (:1806-1821) with
///   `isolate_start_pfn` where it stopped (:681), so `cc->free_pfn` is the range's end;
/// - `fast_isolate_around` (:1507-1533), run by `fast_isolate_freepages` (:1718) after its
///   own line, scans the chosen page's pageblock with a local `start_pfn`: its line does not
///   move `cc->free_pfn`. It is the first `isolate_freepages` line after a
///   `mm_compaction_fast_isolate_freepages` that took a block. After one that took none, a
///   starting search may have moved `cc->free_pfn` to `highest` or `min_pfn` (:1688-1703),
///   pageblock starts, and looked around there: a first line that does not start at the
///   search's printed `cc->free_pfn` (where the linear scan restarts when the search moved
///   nothing) is that look around, and its start is the new `cc->free_pfn`.
///
/// The pageblocks the linear scan passes over without a line (unsuitable or skipped) are not
/// seen.
pub fn compaction_scanners(run: &Run, zone: &Zone, at: u32) -> Option<Scanners> {
    let (span, at) = compaction_in_progress(run, at)?;
    let EventKind::Annotation(Annotation::Trace(Tracepoint::MmCompactionBegin {
        migrate_pfn,
        free_pfn,
        ..
    })) = run.log.events.get(span.begin as usize)?.kind()
    else {
        return None;
    };
    let (mut migrate, mut free) = (migrate_pfn, free_pfn);
    // Pageblocks are aligned on absolute pfns: work in them.
    let abs = |p: ZonePfn| zone.abs_pfn(p);
    let zone_end = zone.abs_pfn(zone.pages());
    let pb = PAGEBLOCK_NR_PAGES as u64;
    // After a fast search: `Some(None)` if it took a block, `Some(Some(pfn))` (its
    // `cc->free_pfn`) if it took none.
    let mut fast: Option<Option<ZonePfn>> = None;
    for e in run.log.events.range(span.begin as usize + 1..at as usize) {
        let EventKind::Annotation(Annotation::Trace(tp)) = e.kind() else {
            continue;
        };
        match tp {
            Tracepoint::MmCompactionIsolateMigratepages { end, .. } => {
                migrate = end;
                fast = None;
            }
            Tracepoint::MmCompactionMigratepages { .. } => fast = None,
            Tracepoint::MmCompactionFastIsolateFreepages { end, nr_taken, .. } => {
                fast = Some((nr_taken == 0).then_some(end));
            }
            Tracepoint::MmCompactionIsolateFreepages { start, end, .. } => {
                match fast.take() {
                    // The look around the block the search took.
                    Some(None) => continue,
                    // The look around `highest` or `min_pfn`, both pageblock starts, which
                    // the search made `cc->free_pfn` (:1688-1703).
                    Some(Some(search_free)) if start != search_free => {
                        free = start;
                        continue;
                    }
                    _ => {}
                }
                let block_start = abs(start) / pb * pb;
                let block_end = (block_start + pb).min(zone_end);
                free = if abs(end) >= block_end {
                    zone.zone_pfn(block_start.saturating_sub(pb).max(abs(0)))
                } else {
                    end
                };
            }
            _ => {}
        }
    }
    Some(Scanners {
        migrate_pfn: migrate,
        free_pfn: free,
        begin: span.begin,
    })
}

/// The free blocks on `cc->freepages` of the `compact_zone` in progress after the first `at`
/// events of `run`: `(zone pfn of the head, order)`, in pfn order (zone pfns of the zone being
/// compacted); `None` when no `compact_zone` is in progress there.
///
/// These are the pages the free scanner took out of the buddy (`isolate_freepages_block` and
/// `fast_isolate_freepages` → `__isolate_free_page`: a `FreeListDel` at
/// [`Step::IsolateFreeTake`] or [`Step::FastIsolateTake`]) as targets for the folios the
/// migration scanner isolated. A block leaves the list when `compaction_alloc` hands it (or
/// the part of it a folio needs: the rest stays on the list, split as the buddy splits) to a
/// migrating folio, or when `release_free_list` gives it back to the buddy at the end
/// (`PrepNewPage` at [`Step::CompactionAllocTarget`] and [`Step::ReleaseFreeList`]); in a
/// trace replay, whatever makes the page allocated or free again ends its isolation too.
/// Nothing is recorded for the blocks beyond the events the run already has.
pub fn compaction_freepages(run: &Run, at: u32) -> Option<Vec<(ZonePfn, u8)>> {
    let (span, at) = compaction_in_progress(run, at)?;
    let mut blocks: Vec<(ZonePfn, u8)> = Vec::new();
    // Takes pages `[pfn, pfn + 2^order)` off the list: a block that holds them is split, as
    // `compaction_alloc` splits (`expand`), and the halves without them stay.
    fn take(blocks: &mut Vec<(ZonePfn, u8)>, pfn: ZonePfn, order: u8) {
        let (lo, hi) = (pfn, pfn + (1u32 << order));
        let mut out = Vec::with_capacity(blocks.len() + 2);
        for &(head, o) in blocks.iter() {
            let mut parts = vec![(head, o)];
            while let Some((h, o)) = parts.pop() {
                let end = h + (1u32 << o);
                if end <= lo || h >= hi {
                    out.push((h, o));
                } else if h < lo || end > hi {
                    // Partly inside: o > 0, since an order-0 page is either in or out.
                    let half = 1u32 << (o - 1);
                    parts.push((h, o - 1));
                    parts.push((h + half, o - 1));
                }
            }
        }
        *blocks = out;
    }
    for e in run.log.events.range(span.begin as usize + 1..at as usize) {
        let EventKind::Mutation(m) = e.kind() else {
            continue;
        };
        match m {
            Mutation::FreeListDel { pfn, order, .. }
                if matches!(e.step, Step::IsolateFreeTake | Step::FastIsolateTake) =>
            {
                blocks.push((pfn, order));
            }
            // The replay's isolation marks the block allocated to a compaction owner.
            Mutation::PrepNewPage { .. }
                if matches!(e.step, Step::IsolateFreeTake | Step::FastIsolateTake) => {}
            Mutation::PrepNewPage { pfn, order, .. } | Mutation::FreeListAdd { pfn, order, .. } => {
                take(&mut blocks, pfn, order)
            }
            Mutation::PcpAdd { pindex, pfn, .. } => {
                take(&mut blocks, pfn, pindex_to_order(pindex as usize))
            }
            _ => {}
        }
    }
    blocks.sort_unstable();
    Some(blocks)
}
