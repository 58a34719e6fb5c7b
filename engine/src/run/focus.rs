//! What an operation touched: the page range a view zooms to when it follows the action.
//!
//! At one pixel per page the pages an op works on are a few pixels in a corner of a 1 GiB map; a
//! presenter view zooms to the pageblocks they lie in. The range is the span of every event's
//! [`EventKind::touched_pages`](crate::mm::EventKind::touched_pages) within the op.

use crate::mm::PAGEBLOCK_NR_PAGES;
use crate::run::runner::Run;

/// The zone-relative pages `[first, end)` the events of op `op` touch (their span), clamped to
/// the zone; `None` if the op touched no page (a drain of empty pcp lists) or does not exist.
pub fn op_touched_pages(run: &Run, op: usize) -> Option<(u32, u32)> {
    let rec = run.ops.get(op)?;
    let pages = run.initial.active().pages();
    if rec.start > rec.end || rec.end as usize > run.log.events.len() {
        return None;
    }
    let (lo, hi) = run
        .log
        .events
        .range(rec.start as usize..rec.end as usize)
        .filter_map(|e| e.kind().touched_pages())
        .filter(|&(s, n)| n > 0 && s < pages)
        .fold((u32::MAX, 0u32), |(lo, hi), (s, n)| {
            (lo.min(s), hi.max(s.saturating_add(n).min(pages)))
        });
    (lo < hi).then_some((lo, hi))
}

/// The pageblocks `[first, last]` holding the pages `[first, end)`.
pub fn pageblock_span((first, end): (u32, u32)) -> (u32, u32) {
    (
        first / PAGEBLOCK_NR_PAGES,
        (end.max(first + 1) - 1) / PAGEBLOCK_NR_PAGES,
    )
}

/// [`op_touched_pages`] as pageblocks.
pub fn op_touched_pageblocks(run: &Run, op: usize) -> Option<(u32, u32)> {
    op_touched_pages(run, op).map(pageblock_span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;
    use crate::scenario::parse_valid;

    fn run(id: &str) -> Run {
        let b = builtin::get(id).expect("builtin");
        crate::run::runner::Runner::new(parse_valid(b.json()).unwrap())
            .run()
            .unwrap()
    }

    #[test]
    fn the_cma_release_touches_exactly_its_range() {
        // cma-frozen-range: alloc_contig_range of 16384 pages at pfn 32768 (zone starts at 0),
        // then its frozen per-page release: both touch pageblocks 64..=95 and nothing else.
        let r = run("cma-frozen-range");
        let (s, e) = op_touched_pages(&r, 0).unwrap();
        assert!(s >= 32768 && e <= 32768 + 16384, "{s}..{e}");
        assert_eq!(op_touched_pageblocks(&r, 0), Some((64, 95)));
        assert_eq!(op_touched_pageblocks(&r, 1), Some((64, 95)));
        assert_eq!(op_touched_pages(&r, r.ops.len()), None);
    }

    #[test]
    fn span_covers_every_touched_page_of_every_op() {
        let r = run("fallback-claim");
        for (i, rec) in r.ops.iter().enumerate() {
            let span = op_touched_pages(&r, i);
            for e in r.log.events.range(rec.start as usize..rec.end as usize) {
                if let Some((s, n)) = e.kind().touched_pages() {
                    let (lo, hi) = span.expect("a touched page means a span");
                    assert!(s >= lo && s + n <= hi, "op {i}: {s}+{n} outside {lo}..{hi}");
                }
            }
        }
    }

    #[test]
    fn pageblock_span_rounds_to_whole_blocks() {
        assert_eq!(pageblock_span((0, 1)), (0, 0));
        assert_eq!(pageblock_span((511, 513)), (0, 1));
        assert_eq!(pageblock_span((1024, 1536)), (2, 2));
    }
}
