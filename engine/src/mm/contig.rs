//! Multi-page kernel entry points built on the core paths: contiguous-range frees
//! (`free_contig_range`, §5) and the simple `alloc_contig_range` entry (the kernel's path is in
//! `page_alloc/isolation.rs`); the vmalloc half
//! (`vmalloc`, `vfree`, `alloc_pages_bulk`) is in [`crate::mm::vmalloc`].

use crate::mm::events::*;
use crate::mm::page_alloc::isolation::IsolateMode;
use crate::mm::page_alloc::{Engine, FPI_PREPARED};
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::*;
use crate::mm::zone::*;

impl Engine {
    /// The free block (buddy or pcp) that contains `pfn`, if any: `(head, order, on_pcp)`.
    pub fn free_block_containing(&self, pfn: ZonePfn) -> Option<(ZonePfn, u8, bool)> {
        self.zone().block_containing(pfn)
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
            // put_page_testzero: a page someone else still references loses the owner's
            // reference only; it ends the run, and its last put_page frees it on its own.
            let refs = self.zone().mem_map[p as usize].refcount;
            if refs != 1 || self.zone().mem_map[p as usize].kind != PageKind::Other {
                let held = refs > 1 && self.zone().mem_map[p as usize].kind == PageKind::Other;
                if held {
                    self.drop_ref(Step::ContigPutRef, p, true);
                }
                if let Some(s) = start.take() {
                    self.free_prepared_contig_range(s, p - s, cpu);
                }
                let why = if held {
                    format!(
                        "page {:#x} still has {} reference(s) after put_page_testzero: not freed, the run is split; its last put_page frees it",
                        self.zone().abs_pfn(p),
                        refs - 1
                    )
                } else {
                    format!(
                        "page {:#x} is not held once: skipped, the run is split",
                        self.zone().abs_pfn(p)
                    )
                };
                self.message(Step::ContigRunBreak, MsgLevel::Warning, why);
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
    pub(crate) fn free_prepared_contig_range(&mut self, mut p: ZonePfn, mut n: u32, cpu: usize) {
        self.enter(KernelFn::free_prepared_contig_range);
        while n > 0 {
            let o = contig_chunk_order(self.zone().abs_pfn(p), n as u64);
            self.emit(Step::ContigChunk, Annotation::Chunk { pfn: p, order: o });
            self.__free_frozen_pages(p, o, FPI_PREPARED, cpu);
            p += 1 << o;
            n -= 1 << o;
        }
        self.exit(KernelFn::free_prepared_contig_range);
    }

    /// `alloc_contig_range` (no CMA) from CPU 0: true on success. The kernel's path, with
    /// isolation and migration, is [`Engine::alloc_contig_frozen_range`]; this keeps the
    /// simple signature for callers that hold no allocation a migration could move.
    pub fn alloc_contig_range(&mut self, pfn: ZonePfn, nr: u32, owner: u32) -> bool {
        self.alloc_contig_frozen_range(pfn, nr, owner, 0, IsolateMode::Other)
            .result
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use crate::mm::events::{Annotation, EventKind};

    /// §5.4: pfn=3, n=13 with page 9 still referenced: run [3..8] → 3/0, 4/2, 8/0; page 9
    /// loses the owner's reference only; run [10..15] → 10/1, 12/2.
    #[test]
    fn chunked_free_splits_runs_at_a_referenced_page() {
        let mut e = crate::mm::boot::boot_engine(&crate::mm::boot::ZoneParams::new(262144));
        assert!(e.alloc_contig_range(3, 13, 7));
        // Someone else (a compaction scanner, say) holds an extra reference on page 9.
        e.get_page(9);
        e.log.events.clear();
        e.free_contig_range_chunked(3, 13, 0);
        let chunks: Vec<(u32, u8)> = e
            .log
            .events
            .iter()
            .filter_map(|ev| match ev.kind() {
                EventKind::Annotation(Annotation::Chunk { pfn, order }) => Some((pfn, order)),
                _ => None,
            })
            .collect();
        assert_eq!(chunks, vec![(3, 0), (4, 2), (8, 0), (10, 1), (12, 2)]);
        assert_eq!(
            e.zone().mem_map[9].refcount,
            1,
            "page 9 is not freed by this call"
        );
        assert_eq!(
            e.zone().mem_map[9].owner,
            crate::mm::zone::NO_OWNER,
            "nor is it the range's any more"
        );
        e.put_page_and_free(9, 0);
        assert_eq!(
            e.zone().mem_map[9].refcount,
            0,
            "the last put_page frees it"
        );
    }
}
