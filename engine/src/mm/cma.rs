//! The CMA area's allocator (`mm/cma.c`, v7.1.5): `cma_alloc` finds a free run in the area's
//! bitmap and takes it with `alloc_contig_frozen_range(.., ACR_FLAGS_CMA)`, retrying further
//! on `-EBUSY`; `cma_release` frees the pages (`free_contig_frozen_range`) and clears the bits.
//!
//! One area of one range with `order_per_bit` 0 (one bit a page): what `cma=` on the command
//! line gives (docs/model-decisions.md).

use crate::mm::events::*;
use crate::mm::page_alloc::isolation::{ContigError, IsolateMode, Migration};
use crate::mm::page_alloc::Engine;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::*;

/// `-EBUSY`, `-ENOMEM`: `cma_range_alloc`'s return values.
pub const EBUSY: i32 = -16;
pub const ENOMEM: i32 = -12;

/// `struct cma` with its one `cma_memrange`: the bitmap and the free count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmaArea {
    /// `cma->name`: `"reserved"` for the area `cma=` declares (`dma_contiguous_reserve`).
    pub name: &'static str,
    /// `cmr->base_pfn` (absolute).
    pub base_pfn: Pfn,
    /// `cmr->bitmap`, one bit a page (`order_per_bit` 0): set = handed out by `cma_alloc`.
    pub bitmap: Vec<bool>,
    /// `cma->available_count`.
    pub available_count: u64,
}

/// What one `cma_alloc` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmaAllocOutcome {
    /// The first page (zone-relative) of the range obtained, `None` on failure.
    pub pfn: Option<ZonePfn>,
    /// 0, or the failure's `ret` ([`EBUSY`], [`ENOMEM`]).
    pub ret: i32,
    /// The starts (zone-relative) of the ranges that were busy and retried past.
    pub busy: Vec<ZonePfn>,
    /// Every migration of every attempt.
    pub migrated: Vec<Migration>,
}

impl CmaArea {
    /// The area `[base_pfn, base_pfn + nr_pages)`, all of it available.
    pub fn new(base_pfn: Pfn, nr_pages: u64) -> CmaArea {
        CmaArea {
            name: "reserved",
            base_pfn,
            bitmap: vec![false; nr_pages as usize],
            available_count: nr_pages,
        }
    }

    /// `cma->count`.
    pub fn count(&self) -> u64 {
        self.bitmap.len() as u64
    }

    /// `cma_clear_bitmap`: the bits of `[pfn, pfn + count)` (absolute) cleared.
    fn clear(&mut self, pfn: Pfn, count: u64) {
        let no = (pfn - self.base_pfn) as usize;
        self.bitmap[no..no + count as usize].fill(false);
        self.available_count += count;
    }
}

/// `bitmap_find_next_zero_area_off` (lib/bitmap.c): the first index ≥ `start` of a run of `nr`
/// clear bits whose `index + align_offset` is a multiple of `align_mask + 1`; a value
/// `> size` when there is none.
pub fn bitmap_find_next_zero_area_off(
    map: &[bool],
    start: u64,
    nr: u64,
    align_mask: u64,
    align_offset: u64,
) -> u64 {
    let size = map.len() as u64;
    let mut start = start;
    loop {
        // find_next_zero_bit
        let mut index = start;
        while index < size && map[index as usize] {
            index += 1;
        }
        // __ALIGN_MASK(index + align_offset, align_mask) - align_offset
        index = ((index + align_offset + align_mask) & !align_mask) - align_offset;
        let end = index + nr;
        if end > size {
            return end;
        }
        // find_next_bit(map, end, index)
        match (index..end).find(|&i| map[i as usize]) {
            Some(i) => start = i + 1,
            None => return index,
        }
    }
}

/// `page=%p` of a pfn as `no_hash_pointers` prints it with x86_64's default vmemmap.
fn page_ptr(pfn: Pfn) -> String {
    format!("{:016x}", 0xffff_ea00_0000_0000u64 + 64 * pfn)
}

impl Engine {
    /// `cma_alloc(cma, count, align, false)` (v7.1.5 mm/cma.c:947, `__cma_alloc_frozen`
    /// :864, `cma_range_alloc` :784): from bit 0, the first free run of `count` bits at the
    /// alignment is set and `alloc_contig_frozen_range` tries it; on `-EBUSY` the bits are
    /// cleared and the search goes on from `bitmap_no + mask + 1`. The zone of the area must be
    /// the selected one.
    pub fn cma_alloc(
        &mut self,
        area: &mut CmaArea,
        count: u32,
        align: u8,
        owner: u32,
        cpu: usize,
    ) -> CmaAllocOutcome {
        self.enter(KernelFn::cma_alloc);
        let count64 = u64::from(count);
        // cma_bitmap_aligned_mask / cma_bitmap_aligned_offset with order_per_bit 0.
        let mask = (1u64 << align) - 1;
        let offset = area.base_pfn & mask;
        let maxno = area.count();
        let mut out = CmaAllocOutcome {
            pfn: None,
            ret: EBUSY,
            busy: Vec::new(),
            migrated: Vec::new(),
        };
        if count64 <= maxno {
            let mut start = 0u64;
            loop {
                if count64 > area.available_count {
                    self.message(
                        Step::CmaNoRange,
                        MsgLevel::Info,
                        format!(
                            "cma_range_alloc: {count} pages asked, {} available in the area: stop",
                            area.available_count
                        ),
                    );
                    break;
                }
                let bitmap_no =
                    bitmap_find_next_zero_area_off(&area.bitmap, start, count64, mask, offset);
                if bitmap_no >= maxno {
                    self.message(
                        Step::CmaNoRange,
                        MsgLevel::Info,
                        format!(
                            "cma_range_alloc: no free run of {count} bits from bit {start} (mask {mask:#x}): stop"
                        ),
                    );
                    break;
                }
                let pfn = area.base_pfn + bitmap_no;
                let b = bitmap_no as usize;
                area.bitmap[b..b + count as usize].fill(true);
                area.available_count -= count64;
                self.message(
                    Step::CmaBitmapSet,
                    MsgLevel::Info,
                    format!(
                        "cma_range_alloc: bits {bitmap_no}..{} of the bitmap set: alloc_contig_frozen_range(pfn {pfn:#x}, {count} pages, ACR_FLAGS_CMA)",
                        bitmap_no + count64 - 1
                    ),
                );
                let rel = self.zone().zone_pfn(pfn);
                let r =
                    self.alloc_contig_frozen_range(rel, count, owner, cpu, IsolateMode::CmaAlloc);
                out.migrated.extend(r.migrated);
                match r.result {
                    Ok(()) => {
                        out.pfn = Some(rel);
                        out.ret = 0;
                        break;
                    }
                    Err(e) => {
                        area.clear(pfn, count64);
                        if let ContigError::NoMem(_) = e {
                            out.ret = ENOMEM;
                            self.message(
                                Step::CmaBitmapClear,
                                MsgLevel::Info,
                                format!("cma_clear_bitmap: bits {bitmap_no}..{} cleared; -ENOMEM: no retry", bitmap_no + count64 - 1),
                            );
                            break;
                        }
                        out.ret = EBUSY;
                        out.busy.push(rel);
                        self.message(
                            Step::CmaBusyRetry,
                            MsgLevel::Warning,
                            format!(
                                "cma_range_alloc(): memory range at pfn {pfn:#x} {} is busy, retrying",
                                page_ptr(pfn)
                            ),
                        );
                        start = bitmap_no + mask + 1;
                    }
                }
            }
        }
        if out.ret != 0 {
            let func = if self.zone().cfg.kernel.cma_frozen() {
                "__cma_alloc_frozen"
            } else {
                "__cma_alloc"
            };
            self.message(
                Step::CmaAllocFail,
                MsgLevel::Failure,
                format!(
                    "{func}: {}: alloc failed, req-size: {count} pages, ret: {}",
                    area.name, out.ret
                ),
            );
        }
        self.exit(KernelFn::cma_alloc);
        out
    }

    /// `cma_release(cma, pages, count)` of a range `cma_alloc` gave (v7.1.5 mm/cma.c:1017):
    /// `put_page_testzero` on every page, then `__cma_release_frozen` (:994):
    /// `free_contig_frozen_range` (one `free_frozen_pages` a page ≤ 7.1, prepared aligned
    /// chunks on 7.2) and `cma_clear_bitmap`. On 6.18 and 6.19, `free_contig_range`:
    /// `__free_page` page by page (the reference dropped and the page freed in turn).
    pub fn cma_release(&mut self, area: &mut CmaArea, pfn: ZonePfn, count: u32, cpu: usize) {
        self.enter(KernelFn::cma_release);
        if self.zone().cfg.kernel.cma_frozen() {
            for p in pfn..pfn + count {
                // put_page_testzero: refcount 1 → 0, the owner lets go (frozen now).
                let owner = self.zone().mem_map[p as usize].owner;
                let lru = self.zone().mem_map[p as usize].lru();
                self.emit(
                    Step::CmaReleasePut,
                    Mutation::PutPage {
                        pfn: p,
                        order: 0,
                        owner,
                        lru,
                    },
                );
            }
            self.free_contig_frozen_range(pfn, count, cpu);
        } else {
            self.free_contig_range_per_page(pfn, count, cpu);
        }
        let abs = self.zone().abs_pfn(pfn);
        area.clear(abs, u64::from(count));
        let bit = abs - area.base_pfn;
        self.message(
            Step::CmaBitmapClear,
            MsgLevel::Info,
            format!(
                "cma_clear_bitmap: bits {bit}..{} cleared; {} of {} pages available",
                bit + u64::from(count) - 1,
                area.available_count,
                area.count()
            ),
        );
        self.exit(KernelFn::cma_release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bitmap_find_next_zero_area_off`: the first fit from `start`, past set bits, aligned
    /// by `(index + offset) & mask == 0`; a value beyond the size when nothing fits.
    #[test]
    fn find_next_zero_area_first_fit_aligned() {
        let mut map = vec![false; 16];
        assert_eq!(bitmap_find_next_zero_area_off(&map, 0, 4, 0, 0), 0);
        map[1] = true;
        // [0, 4) holds bit 1: go on from 2.
        assert_eq!(bitmap_find_next_zero_area_off(&map, 0, 4, 0, 0), 2);
        // Aligned to 4: 4.
        assert_eq!(bitmap_find_next_zero_area_off(&map, 0, 4, 3, 0), 4);
        // Offset 2 (the area's base is 2 past an aligned pfn): indices 2, 6, 10, 14.
        assert_eq!(bitmap_find_next_zero_area_off(&map, 0, 4, 3, 2), 2);
        map[3] = true;
        assert_eq!(bitmap_find_next_zero_area_off(&map, 0, 4, 3, 2), 6);
        // Nothing fits: end > size.
        assert!(bitmap_find_next_zero_area_off(&map, 0, 13, 0, 0) > 16);
        assert!(bitmap_find_next_zero_area_off(&map, 13, 4, 0, 0) > 16);
    }
}
