//! Multi-page kernel entry points built on the core paths: contiguous-range frees
//! (`free_contig_range`, §5) and `alloc_contig_range` (scenario-format.md); the vmalloc half
//! (`vmalloc`, `vfree`, `alloc_pages_bulk`) is in [`crate::vmalloc`].

use crate::events::*;
use crate::page_alloc::{Engine, FPI_PREPARED};
use crate::pseudocode::Step;
use crate::types::*;
use crate::zone::*;

impl Engine {
    /// The free block (buddy or pcp) that contains `pfn`, if any: `(head, order, on_pcp)`.
    pub fn free_block_containing(&self, pfn: ZonePfn) -> Option<(ZonePfn, u8, bool)> {
        self.zone.block_containing(pfn)
    }

    /// `free_contig_range` / `__free_contig_frozen_range`, page by page (≤ 7.1, §5.1): one
    /// `__free_page` per pfn, ascending, each onto the order-0 pcp list.
    pub fn free_contig_range_per_page(&mut self, pfn: ZonePfn, n: u32, cpu: usize) {
        self.enter(KernelFn::free_contig_range);
        for p in pfn..pfn + n {
            self.free_pages(p, 0, cpu);
        }
        self.exit(KernelFn::free_contig_range);
    }

    /// `__free_contig_range_common` (7.2, §5.2): every page is released and prepared as
    /// order 0, then each run of prepared pages is freed in naturally aligned chunks.
    pub fn free_contig_range_chunked(&mut self, pfn: ZonePfn, n: u32, cpu: usize) {
        self.enter(KernelFn::__free_contig_range_common);
        let mut start: Option<ZonePfn> = None;
        for p in pfn..pfn + n {
            // A page someone else still references ends the run; its last put frees it.
            if self.zone.refcount[p as usize] != 1 || self.zone.kind[p as usize] != PageKind::Other
            {
                if let Some(s) = start.take() {
                    self.free_prepared_contig_range(s, p - s, cpu);
                }
                self.message(
                    Step::ContigRunBreak,
                    MsgLevel::Warning,
                    format!(
                        "page {:#x} is not held once: skipped, the run is split",
                        self.zone.abs_pfn(p)
                    ),
                );
                continue;
            }
            self.put_page(p, 0);
            self.prepare_one_page(p);
            start.get_or_insert(p);
        }
        if let Some(s) = start {
            self.free_prepared_contig_range(s, pfn + n - s, cpu);
        }
        self.exit(KernelFn::__free_contig_range_common);
    }

    /// `free_prepared_contig_range`: the largest aligned chunks, `FPI_PREPARED`.
    fn free_prepared_contig_range(&mut self, mut p: ZonePfn, mut n: u32, cpu: usize) {
        self.enter(KernelFn::free_prepared_contig_range);
        while n > 0 {
            let o = contig_chunk_order(self.zone.abs_pfn(p), n as u64);
            self.emit(Step::ContigChunk, Annotation::Chunk { pfn: p, order: o });
            self.__free_frozen_pages(p, o, FPI_PREPARED, cpu);
            p += 1 << o;
            n -= 1 << o;
        }
        self.exit(KernelFn::free_prepared_contig_range);
    }

    /// `alloc_contig_range` as the scenario format pins it: fail if any page is allocated
    /// (pcp pages count as free); drain every pcp; take the range out of the buddy, giving the
    /// parts of overlapping blocks outside the range back as aligned chunks at list tails.
    pub fn alloc_contig_range(&mut self, pfn: ZonePfn, nr: u32, owner: u32) -> bool {
        self.enter(KernelFn::alloc_contig_range);
        let end = pfn + nr;
        let mut p = pfn;
        while p < end {
            match self.free_block_containing(p) {
                Some((head, o, _)) => p = head + (1 << o),
                None => {
                    self.message(
                        Step::AllocContigFail,
                        MsgLevel::Failure,
                        format!(
                            "alloc_contig_range: page {:#x} is in use; nothing changed",
                            self.zone.abs_pfn(p)
                        ),
                    );
                    self.exit(KernelFn::alloc_contig_range);
                    return false;
                }
            }
        }
        self.drain_all_pages();
        self.emit(
            Step::AllocContigTake,
            Annotation::Lock { zone: true, cpu: 0 },
        );
        self.begin_zone_hold();
        let mut p = pfn;
        while p < end {
            let (head, o, _) = self
                .free_block_containing(p)
                .expect("range is free after the drain");
            let mt = self.zone.list_mt_of(head);
            self.del_from_free_list(Step::AllocContigTake, head, o, mt);
            self.account_freepages(Step::AllocContigTake, -(1i64 << o), mt);
            self.handled(1 << o);
            let bend = head + (1 << o);
            let outside = [
                (head, pfn.max(head).min(bend)),
                (end.min(bend).max(head), bend),
            ];
            for (s, e) in outside {
                if e > s {
                    for (c, co) in contig_chunks(self.zone.abs_pfn(s), (e - s) as u64) {
                        let c = self.zone.zone_pfn(c);
                        let cmt = self.zone.pageblock_mt(c);
                        self.add_to_free_list(Step::AllocContigGiveBack, c, co, cmt, true);
                        self.account_freepages(Step::AllocContigGiveBack, 1i64 << co, cmt);
                        self.handled(1 << co);
                    }
                }
            }
            p = bend;
        }
        self.unlock_zone();
        self.emit(
            Step::AllocContigAlloc,
            Mutation::ContigAlloc { pfn, nr, owner },
        );
        self.exit(KernelFn::alloc_contig_range);
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::events::{Annotation, EventKind};

    // In the crate because it takes a page reference by hand (the zone's fields are private
    // to the crate, and no scenario op pins a page).
    /// §5.4: pfn=3, n=13 with page 9 still referenced: run [3..8] → 3/0, 4/2, 8/0; page 9 is
    /// skipped; run [10..15] → 10/1, 12/2.
    #[test]
    fn chunked_free_splits_runs_at_a_referenced_page() {
        let mut e = crate::setup::boot_engine(&crate::setup::ZoneParams::new(262144));
        assert!(e.alloc_contig_range(3, 13, 7));
        // Someone else (a compaction scanner, say) holds an extra reference on page 9.
        e.zone.refcount[9] = 2;
        e.log.events.clear();
        e.free_contig_range_chunked(3, 13, 0);
        let chunks: Vec<(u32, u8)> = e
            .log
            .events
            .iter()
            .filter_map(|ev| match ev.kind {
                EventKind::Annotation(Annotation::Chunk { pfn, order }) => Some((pfn, order)),
                _ => None,
            })
            .collect();
        assert_eq!(chunks, vec![(3, 0), (4, 2), (8, 0), (10, 1), (12, 2)]);
        assert_eq!(e.zone.refcount[9], 2, "page 9 is not freed by this call");
    }
}
