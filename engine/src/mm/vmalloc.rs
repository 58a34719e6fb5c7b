//! vmalloc population and `vfree` (`mm/vmalloc.c`, §6), and the order-0 bulk allocator
//! (`alloc_pages_bulk_noprof`, §6.4) that populates them.

use crate::mm::events::*;
use crate::mm::page_alloc::Engine;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::alloc_flags::*;
use crate::mm::types::gfp::*;
use crate::mm::types::*;

/// A vmalloc area: its data pages in array order and, above 512 pages, the nested vmalloc that
/// holds the page-pointer array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VmArea {
    /// Each page's index in its zone ([`VmArea::zone_of`] says which zone).
    pub pages: Vec<ZonePfn>,
    /// On a node of several zones, the node index of each page's zone (`page_zone()`: each
    /// allocation walks the zonelist, so one area may hold pages of several zones); empty on a
    /// node of one zone, where every page is in zone 0.
    pub zones: Vec<u8>,
    /// Above 512 pages: the nested vmalloc that holds the page-pointer array.
    pub array: Option<Box<VmArea>>,
    /// Orders requested from the buddy/pcp, in order (`false`: the attempt failed).
    pub attempts: Vec<(u8, bool)>,
}

impl VmArea {
    /// Every page the area holds, data and array, for "pageblocks touched".
    pub fn all_pages(&self) -> Vec<ZonePfn> {
        let mut v = self.pages.clone();
        if let Some(a) = &self.array {
            v.extend(a.all_pages());
        }
        v
    }

    /// Every page the area holds, data and array, with its zone's node index.
    pub fn all_pages_zoned(&self) -> Vec<(usize, ZonePfn)> {
        let mut v: Vec<(usize, ZonePfn)> = (0..self.pages.len())
            .map(|i| (self.zone_of(i), self.pages[i]))
            .collect();
        if let Some(a) = &self.array {
            v.extend(a.all_pages_zoned());
        }
        v
    }

    /// The node index of the zone of data page `i` (0 on a node of one zone).
    pub fn zone_of(&self, i: usize) -> usize {
        self.zones.get(i).map_or(0, |&z| z as usize)
    }
}

/// The gfp of a vmalloc data page (`GFP_KERNEL | __GFP_HIGHMEM | __GFP_NOWARN`).
pub const VMALLOC_GFP: u32 = GFP_KERNEL | __GFP_HIGHMEM | __GFP_NOWARN;

impl Engine {
    /// `alloc_pages_bulk_noprof` for order 0 (§6.4): one watermark gate, then pages straight
    /// off the order-0 pcp list (refilled by `rmqueue_bulk`), no `mm_page_alloc` events.
    pub fn alloc_pages_bulk(
        &mut self,
        gfp: u32,
        nr: u32,
        cpu: usize,
        owner: u32,
        out: &mut Vec<ZonePfn>,
    ) -> u32 {
        self.enter(KernelFn::alloc_pages_bulk);
        let got = self.alloc_pages_bulk_inner(gfp, nr, cpu, owner, out);
        self.exit(KernelFn::alloc_pages_bulk);
        got
    }

    fn alloc_pages_bulk_inner(
        &mut self,
        gfp: u32,
        nr: u32,
        cpu: usize,
        owner: u32,
        out: &mut Vec<ZonePfn>,
    ) -> u32 {
        if nr == 0 {
            return 0;
        }
        if nr > 1 {
            let mt = self.gfp_migratetype(gfp);
            let mut flags = ALLOC_WMARK_LOW;
            if self.zone().cfg.cma && mt == MigrateType::Movable {
                flags |= ALLOC_CMA;
            }
            // `for_next_zone_zonelist_nodemask` from the preferred zone: the first zone whose
            // free pages pass low + nr is the one the whole batch comes from (v7.1.5
            // mm/page_alloc.c:5095-5126). The C passes the preferred zone's index as
            // `highest_zoneidx` to `zone_watermark_fast`; the zones between it and `gfp_zone`
            // are empty, so their `lowmem_reserve` entries are equal. One zone in a node of one.
            self.highest_zoneidx = crate::mm::page_alloc::zones::gfp_zone(gfp);
            let mut zone = None;
            for z in self.zonelist() {
                self.select_zone(Step::BulkZonelistNext, z);
                // 6.18/6.19 add `nr`, 7.x `nr - populated`: the same for vmalloc's empty slice.
                let mark = self.zone().wmark_pages(crate::mm::zone::WMARK_LOW) + nr as u64;
                if self.bulk_gate(mark, flags) {
                    zone = Some(z);
                    break;
                }
            }
            if zone.is_some() {
                self.emit(
                    Step::BulkPcpLock,
                    Annotation::Lock {
                        zone: false,
                        cpu: cpu as u8,
                    },
                );
                self.relock_pcp();
                let mut got = 0;
                while got < nr {
                    match self.bulk_take(mt, flags, cpu) {
                        Some(p) => {
                            self.emit(
                                Step::BulkPrep,
                                Mutation::PrepNewPage {
                                    pfn: p,
                                    order: 0,
                                    owner,
                                    lru: false,
                                },
                            );
                            out.push(p);
                            got += 1;
                        }
                        None => break,
                    }
                }
                self.unlock_pcp();
                if got > 0 {
                    return got;
                }
            }
        }
        // `failed:` one page through the full allocator.
        match self.alloc_pages(gfp, 0, cpu, owner, false) {
            Some(p) => {
                out.push(p);
                1
            }
            None => 0,
        }
    }

    /// On a node of several zones: the pages `area` gained since the last call came from the
    /// zone being worked on (an allocation ends in the zone it took its page from).
    fn note_zones(&self, area: &mut VmArea) {
        if self.node.several_zones() {
            let z = self.node.active_index() as u8;
            area.zones.resize(area.pages.len(), z);
        }
    }

    /// vmalloc's page population: `vm_area_alloc_pages` (§6.2 / §6.3) for `n` order-0 pages.
    pub fn vm_area_alloc_pages(
        &mut self,
        gfp: u32,
        n: u32,
        strategy: VmallocStrategy,
        cpu: usize,
        owner: u32,
        area: &mut VmArea,
    ) {
        self.enter(KernelFn::vm_area_alloc_pages);
        let mut allocated = 0u32;
        if strategy == VmallocStrategy::LargeOrder {
            let mut max_attempt = MAX_PAGE_ORDER as u32;
            let mut remaining = n;
            let mut large = ilog2(remaining.max(1) as u64);
            // vmalloc_gfp_adjust(gfp, large != 0) & ~__GFP_DIRECT_RECLAIM
            let mut large_gfp = gfp | __GFP_NOWARN;
            if large != 0 {
                large_gfp &= !__GFP_NOFAIL;
            }
            large_gfp &= !__GFP_DIRECT_RECLAIM;
            large = large.min(max_attempt);
            while large > 0 && remaining > 0 {
                let o = large as u8;
                let page = self.alloc_pages(large_gfp, o, cpu, owner, false);
                self.emit(
                    Step::VmallocAttempt,
                    Annotation::VmallocAttempt {
                        order: o,
                        ok: page.is_some(),
                    },
                );
                area.attempts.push((o, page.is_some()));
                let Some(p) = page else {
                    large -= 1;
                    max_attempt = large;
                    continue;
                };
                self.split_page(p, o);
                area.pages.extend(p..p + (1 << o));
                self.note_zones(area);
                allocated += 1 << o;
                remaining = n - allocated;
                if remaining > 0 {
                    large = max_attempt.min(ilog2(remaining as u64));
                }
            }
        }
        while allocated < n {
            let req = (n - allocated).min(100);
            let before = area.pages.len();
            let got = self.alloc_pages_bulk(gfp, req, cpu, owner, &mut area.pages);
            self.note_zones(area);
            for _ in before..area.pages.len() {
                area.attempts.push((0, true));
            }
            allocated += got;
            if got != req {
                break;
            }
        }
        while allocated < n {
            match self.alloc_pages(gfp, 0, cpu, owner, false) {
                Some(p) => {
                    area.pages.push(p);
                    self.note_zones(area);
                    area.attempts.push((0, true));
                    allocated += 1;
                }
                None => {
                    area.attempts.push((0, false));
                    break;
                }
            }
        }
        self.exit(KernelFn::vm_area_alloc_pages);
    }

    /// `vmalloc(pages)`: the nested page-array vmalloc first when the array exceeds a page,
    /// then the data pages. Returns the area and whether it is complete.
    pub fn vmalloc(
        &mut self,
        pages: u32,
        strategy: VmallocStrategy,
        cpu: usize,
        owner: u32,
        gfp: u32,
    ) -> (VmArea, bool) {
        self.enter(KernelFn::vmalloc);
        let mut area = VmArea::default();
        let mut ok = true;
        if pages > 512 {
            // 8 bytes per page pointer; u64 so that absurd sizes cannot overflow.
            let array_pages = (8 * pages as u64).div_ceil(PAGE_SIZE) as u32;
            self.message(
                Step::VmallocArray,
                MsgLevel::Info,
                format!("page array of {pages} pointers needs {array_pages} pages: nested vmalloc first"),
            );
            let (arr, arr_ok) = self.vmalloc(array_pages, strategy, cpu, owner, gfp | __GFP_ZERO);
            area.array = Some(Box::new(arr));
            ok = arr_ok;
        }
        if ok {
            self.vm_area_alloc_pages(gfp, pages, strategy, cpu, owner, &mut area);
            ok = area.pages.len() as u32 == pages;
        }
        self.exit(KernelFn::vmalloc);
        (area, ok)
    }

    /// `vfree`: data pages in array order, then the array (§6.6).
    pub fn vfree(&mut self, area: &VmArea, method: FreeMethod, cpu: usize) {
        self.enter(KernelFn::vfree);
        match method {
            FreeMethod::PerPage => {
                for (i, &p) in area.pages.iter().enumerate() {
                    // __free_page frees to page_zone(page).
                    self.select_zone(Step::PageZone, area.zone_of(i));
                    self.free_pages(p, 0, cpu);
                }
            }
            FreeMethod::Chunked => {
                // free_pages_bulk: maximal runs of physically consecutive pages. On a node of
                // several zones a run also ends where page_zone changes (docs/model-decisions.md).
                let mut i = 0;
                while i < area.pages.len() {
                    let mut j = i + 1;
                    while j < area.pages.len()
                        && area.pages[j] == area.pages[j - 1] + 1
                        && area.zone_of(j) == area.zone_of(i)
                    {
                        j += 1;
                    }
                    self.select_zone(Step::PageZone, area.zone_of(i));
                    self.emit(
                        Step::VfreeRun,
                        Annotation::Run {
                            pfn: area.pages[i],
                            nr: (j - i) as u32,
                        },
                    );
                    self.free_contig_range_chunked(area.pages[i], (j - i) as u32, cpu);
                    i = j;
                }
            }
        }
        if let Some(a) = &area.array {
            self.vfree(a, method, cpu);
        }
        self.exit(KernelFn::vfree);
    }
}
