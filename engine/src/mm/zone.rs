//! One memory zone: per-page state, pageblock bits, `free_area[]`, per-CPU pagesets, counters
//! and watermarks (kernel-model.md §1.3–§1.5, §4.1).
//!
//! A `Zone` is one zone of a [`Node`](crate::mm::node::Node) and plain state. It changes only
//! through the node's `apply` of a [`Mutation`] event (`mutate`), and every mutation can be undone
//! (`unmutate`): the timeline steps backwards exactly and replays from checkpoints through the
//! code the live run used. Pages are indexed by [`ZonePfn`]; [`Zone::abs_pfn`] and
//! [`Zone::zone_pfn`] convert at the edges.

use crate::mm::events::{CompactDefer, CounterId, End, Mutation, NIL};
use crate::mm::types::*;
use serde::{Deserialize, Serialize};

/// Per-page `kind`: what the first page of a block is. One byte per page (the map of a
/// large zone is copied into every checkpoint).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum PageKind {
    /// Not the head of a free block: allocated, reserved, or inside a block.
    #[default]
    Other,
    /// `PageBuddy`: the head of a free block on a `free_area` list.
    Buddy,
    /// The head of a block on a pcp list (not PageBuddy: invisible to the buddy allocator).
    Pcp,
}

/// Per-page flag bit: the approximation of `PageLRU` (§2.7.3: pages allocated as MOVABLE).
pub const PF_LRU: u8 = 1;

/// The page flags of [`Page::flags`] (bits 0–3); bits 4–6 hold the buddy head's list type.
const PF_MASK: u8 = 0x0f;

/// Where [`Page::flags`] keeps the migratetype of the free list a buddy head is on.
const LIST_MT_SHIFT: u32 = 4;

/// `owner` of a page nobody holds.
pub const NO_OWNER: u32 = u32::MAX;

/// Pageblock bits: low 3 bits the migratetype, bit 3 `PB_migrate_isolate`.
pub const PB_ISOLATE: u8 = 1 << 3;

/// Pageblock bit 4: `PB_migrate_skip`, compaction's "nothing to isolate here" hint
/// (`set_pageblock_skip`); a migratetype change leaves it alone.
pub const PB_SKIP: u8 = 1 << 4;

/// An intrusive doubly linked list of block heads, linked through the zone's per-page
/// `next`/`prev` arrays, like the kernel's `struct list_head` inside `struct page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct List {
    /// The first block (`NIL`: empty).
    pub head: ZonePfn,
    pub(crate) tail: ZonePfn,
    /// Blocks on the list.
    pub len: u32,
}

impl Default for List {
    fn default() -> Self {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

/// Which list a block is on: `zone->free_area[order].free_list[mt]` or
/// `pcp[cpu]->lists[pindex]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListId {
    /// `zone->free_area[order].free_list[mt]`.
    Buddy {
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
    },
    /// CPU `cpu`'s `pcp->lists[pindex]`.
    Pcp {
        /// The CPU.
        cpu: u8,
        /// The list's index.
        pindex: u8,
    },
}

/// `struct per_cpu_pages` (§4.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerCpuPages {
    /// Pages on all lists, weighted by `2^order`.
    pub count: i32,
    /// `high`: when `count` reaches it, a free sends a batch back to the buddy.
    pub high: i32,
    /// `high_min`.
    pub high_min: i32,
    /// `high_max`.
    pub high_max: i32,
    /// `batch`.
    pub batch: i32,
    /// `PCPF_PREV_FREE_HIGH_ORDER`.
    pub prev_free_high_order: bool,
    /// `PCPF_FREE_HIGH_BATCH` (cache-geometry dependent; set by default, §4.2).
    pub free_high_batch: bool,
    /// `alloc_factor`: scales a refill (`nr_pcp_alloc`).
    pub alloc_factor: i32,
    /// `short free_count`.
    pub free_count: i32,
    /// The lists, by `pindex`.
    pub lists: [List; NR_PCP_LISTS],
}

/// Static configuration of a zone (from the scenario's `kernel` and `zone`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneConfig {
    /// The zone's name.
    pub name: String,
    /// Its type (`zone_idx`).
    pub zone_type: ZoneType,
    /// The kernel profile.
    pub kernel: Kernel,
    /// Its first pfn.
    pub start_pfn: Pfn,
    /// Pages in the zone.
    pub pages: u32,
    /// CPUs, each with its pcp lists.
    pub cpus: u32,
    /// The kernel has `CONFIG_CMA`.
    pub cma: bool,
    /// `rmqueue_mode` remembers the fallback mode across a refill (7.1+).
    pub rmqueue_mode_memory: bool,
    /// `page_group_by_mobility_disabled` (zone < 2560 pages, 3072 with CMA; §1.8).
    pub mobility_disabled: bool,
    /// Fixed: THP on.
    pub thp: bool,
    /// `alloc_flags_nofragment()`: the `ALLOC_NOFRAGMENT` first pass runs only when the preferred
    /// zone is `ZONE_NORMAL` (a zone named `Normal`); `DMA32`/`DMA` run one pass without it.
    pub nofragment_first_pass: bool,
}

/// `struct page`: what the model keeps of one page, 16 bytes. The fields a list operation
/// touches together (the links of a block head, its kind, order and list) sit in one struct,
/// so a free or an allocation reaches one cache line per page where eight parallel arrays
/// reached eight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Page {
    /// `lru.next`: the next block head on the same list (`NIL`: none).
    pub(crate) next: ZonePfn,
    /// `lru.prev`: the previous block head on the same list (`NIL`: none).
    pub(crate) prev: ZonePfn,
    /// Allocation id for an allocated page; the CPU for a pcp head.
    pub(crate) owner: u32,
    /// What the page heads: a buddy block, a pcp block, or neither.
    pub(crate) kind: PageKind,
    /// The order of the block it heads (`buddy_order`); 0 if it heads none.
    pub(crate) order: u8,
    /// `page_ref_count`.
    pub(crate) refcount: u8,
    /// Bits 0–3: page flags ([`PF_LRU`]). Bits 4–6, for a buddy head: the migratetype of the
    /// free list it is on ([`Page::list_mt`]), 0 for every other page so that equal states
    /// compare equal.
    pub(crate) flags: u8,
}

impl Page {
    /// A page of a zone just made: allocated, no owner, on no list.
    const EMPTY: Page = Page {
        next: NIL,
        prev: NIL,
        owner: NO_OWNER,
        kind: PageKind::Other,
        order: 0,
        refcount: 0,
        flags: 0,
    };

    /// `PageLRU`.
    #[inline(always)]
    pub(crate) fn lru(&self) -> bool {
        self.flags & PF_LRU != 0
    }

    /// For a buddy head: the migratetype of the free list it is on. Normally its pageblock's
    /// type (freelist hygiene), but with mobility grouping disabled a merge across pageblocks
    /// can leave a block on a list other than its pageblock's, exactly as in the kernel
    /// (which warns); `list_del` then unlinks it from the list it is really on.
    #[inline(always)]
    pub(crate) fn list_mt(&self) -> u8 {
        self.flags >> LIST_MT_SHIFT
    }

    #[inline(always)]
    fn set_list_mt(&mut self, mt: u8) {
        self.flags = (self.flags & PF_MASK) | (mt << LIST_MT_SHIFT);
    }

    #[inline(always)]
    fn set_lru(&mut self, lru: bool) {
        self.flags = (self.flags & !PF_LRU) | if lru { PF_LRU } else { 0 };
    }
}

/// `list_add`: `pfn` becomes the first block of `list`; returns its page.
#[inline(always)]
fn link_head<'a>(list: &mut List, mm: &'a mut [Page], pfn: ZonePfn) -> &'a mut Page {
    let old = list.head;
    list.head = pfn;
    if old == NIL {
        list.tail = pfn;
    }
    list.len += 1;
    if old != NIL {
        mm[old as usize].prev = pfn;
    }
    let page = &mut mm[pfn as usize];
    page.prev = NIL;
    page.next = old;
    page
}

/// `list_add_tail`: `pfn` becomes the last block of `list`; returns its page.
#[inline(always)]
fn link_tail<'a>(list: &mut List, mm: &'a mut [Page], pfn: ZonePfn) -> &'a mut Page {
    let old = list.tail;
    list.tail = pfn;
    if old == NIL {
        list.head = pfn;
    }
    list.len += 1;
    if old != NIL {
        mm[old as usize].next = pfn;
    }
    let page = &mut mm[pfn as usize];
    page.next = NIL;
    page.prev = old;
    page
}

/// `list_del`: unlinks `pfn` from `list`; returns its predecessor and its page.
#[inline(always)]
fn unlink<'a>(list: &mut List, mm: &'a mut [Page], pfn: ZonePfn) -> (ZonePfn, &'a mut Page) {
    let page = &mut mm[pfn as usize];
    let (p, n) = (page.prev, page.next);
    page.next = NIL;
    page.prev = NIL;
    if p != NIL {
        mm[p as usize].next = n;
    }
    if n != NIL {
        mm[n as usize].prev = p;
    }
    if list.head == pfn {
        list.head = n;
    }
    if list.tail == pfn {
        list.tail = p;
    }
    list.len -= 1;
    (p, &mut mm[pfn as usize])
}

/// One zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    pub(crate) cfg: ZoneConfig,
    /// `mem_map`: the pages, indexed by `ZonePfn` (pfn - start_pfn).
    pub(crate) mem_map: Vec<Page>,
    // --- per pageblock ---
    pub(crate) pageblock: Vec<u8>,
    // --- free_area ---
    pub(crate) free_lists: [[List; MT_SLOTS]; NR_PAGE_ORDERS],
    pub(crate) nr_free: [u64; NR_PAGE_ORDERS],
    // --- vmstat counters (exact, §7.3) ---
    pub(crate) nr_free_pages: i64,
    pub(crate) nr_free_pages_blocks: i64,
    pub(crate) nr_free_cma: i64,
    pub(crate) nr_free_highatomic: i64,
    pub(crate) nr_reserved_highatomic: i64,
    pub(crate) watermark_boost: i64,
    pub(crate) below_high: bool,
    pub(crate) boosted_watermark: bool,
    /// `_watermark[WMARK_MIN, LOW, HIGH, PROMO]` without the boost.
    pub(crate) watermark: [u64; 4],
    pub(crate) min_free_kbytes: u64,
    pub(crate) pcp: Vec<PerCpuPages>,
    /// `lowmem_reserve[highest_zoneidx]` (`setup_per_zone_lowmem_reserve`), indexed by
    /// [`ZoneType::idx`]; all 0 in a node of one zone.
    pub(crate) lowmem_reserve: [u64; MAX_NR_ZONES],
    /// `zone->cma_pages`: the pages of the zone's CMA area (`init_cma_reserved_pageblock` adds
    /// `pageblock_nr_pages` per pageblock); fixed after boot; zoneinfo's `cma` line.
    pub(crate) cma_pages: u64,
    /// `compact_considered`, `compact_defer_shift`, `compact_order_failed`: the zone's
    /// compaction deferral (mm/compaction.c `defer_compaction`).
    pub(crate) compact_defer: CompactDefer,
    /// The vm events `__alloc_pages_direct_compact` counted for allocations that compacted
    /// in this zone's slot of the node: `COMPACTSTALL`, `COMPACTFAIL`, `COMPACTSUCCESS`
    /// (/proc/vmstat sums them over the node).
    pub(crate) compact_events: [i64; 3],
    /// The vm events kcompactd counted while compacting this zone: `KCOMPACTD_WAKE`,
    /// `KCOMPACTD_MIGRATE_SCANNED`, `KCOMPACTD_FREE_SCANNED`.
    pub(crate) daemon_events: [i64; 3],
    /// `zone->compact_blockskip_flush`: a direct compaction's scanners met, so the next
    /// `__reset_isolation_suitable` clears the skip bits.
    pub(crate) compact_blockskip_flush: bool,
    /// The compaction scanners' restart points (`compact_cached_migrate_pfn[2]`,
    /// `compact_cached_free_pfn`, `compact_init_migrate_pfn`, `compact_init_free_pfn`),
    /// absolute pfns, 0 in a zone no compaction touched yet (the kernel's zeroed `struct zone`).
    pub(crate) compact_cached: CompactCached,
}

/// `struct zone`'s compaction restart points (include/linux/mmzone.h), absolute pfns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CompactCached {
    /// `compact_cached_migrate_pfn[0]` (`ASYNC`) and `[1]` (sync).
    pub(crate) migrate: [Pfn; 2],
    /// `compact_cached_free_pfn`.
    pub(crate) free: Pfn,
    /// `compact_init_migrate_pfn`.
    pub(crate) init_migrate: Pfn,
    /// `compact_init_free_pfn`.
    pub(crate) init_free: Pfn,
}

/// Owner id of the pages `init` from `/proc` leaves allocated in a pageblock of type `mt`
/// ("owned by its pageblock's type"): `NO_OWNER − 1 − mt`, i.e. `u32::MAX − 1 − mt`, far
/// above any id a run hands out. See [`filler_owner_mt`] for the reverse.
pub const fn filler_owner(mt: MigrateType) -> u32 {
    NO_OWNER - 1 - mt as u32
}

/// The pageblock type of a filler owner id, or `None` if `owner` is not one.
pub fn filler_owner_mt(owner: u32) -> Option<MigrateType> {
    MigrateType::ALL
        .into_iter()
        .find(|&mt| filler_owner(mt) == owner)
}

/// `MAX_NR_ZONES`: the zone types (`ZoneType::ALL`), the length of `lowmem_reserve[]`.
pub const MAX_NR_ZONES: usize = 4;

/// `enum zone_type` on x86_64 (no `CONFIG_HIGHMEM`, no `ZONE_DEVICE`): a zone's `zone_idx`, the
/// index of `lowmem_reserve[]` and of `sysctl_lowmem_reserve_ratio[]`. Set when the zone is
/// made; a node's zones ascend by it. Serialized as the kernel's `zone_names[]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum ZoneType {
    /// `ZONE_DMA`: the first 16 MiB.
    #[serde(rename = "DMA")]
    Dma,
    /// `ZONE_DMA32`: up to 4 GiB.
    #[serde(rename = "DMA32")]
    Dma32,
    /// `ZONE_NORMAL`.
    Normal,
    /// `ZONE_MOVABLE`.
    Movable,
}

impl ZoneType {
    /// Every zone type, by `zone_idx`.
    pub const ALL: [ZoneType; MAX_NR_ZONES] = [
        ZoneType::Dma,
        ZoneType::Dma32,
        ZoneType::Normal,
        ZoneType::Movable,
    ];

    /// `zone_idx`: the index of `lowmem_reserve[]`.
    pub const fn idx(self) -> usize {
        self as usize
    }

    /// `zone_names[zone_idx]`, as `/proc` prints it.
    pub const fn name(self) -> &'static str {
        match self {
            ZoneType::Dma => "DMA",
            ZoneType::Dma32 => "DMA32",
            ZoneType::Normal => "Normal",
            ZoneType::Movable => "Movable",
        }
    }

    /// The type the kernel names `name` (`/proc`, a scenario's zone), if any.
    pub fn from_name(name: &str) -> Option<ZoneType> {
        ZoneType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The type a zone named `name` is made with: a name the kernel does not use counts as
    /// `Normal` (a one-zone scenario may name its zone anything: it only prints).
    pub fn for_zone_named(name: &str) -> ZoneType {
        ZoneType::from_name(name).unwrap_or(ZoneType::Normal)
    }
}

pub const WMARK_MIN: usize = 0;
pub const WMARK_LOW: usize = 1;
pub const WMARK_HIGH: usize = 2;
pub const WMARK_PROMO: usize = 3;

impl Zone {
    /// Heap bytes of the zone: its per-page and per-pageblock arrays and pcp sets, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.mem_map.capacity() * std::mem::size_of::<Page>()
            + self.pageblock.capacity()
            + self.pcp.capacity() * std::mem::size_of::<PerCpuPages>()
            + self.cfg.name.capacity()
    }

    /// An empty zone: every page allocated (refcount 0, no owner), every pageblock MOVABLE
    /// (`memmap_init_range`), no free blocks, pcp parameters zero. Callers fill it by freeing.
    pub fn new_empty(cfg: ZoneConfig) -> Zone {
        let n = cfg.pages as usize;
        let nblocks = n.div_ceil(PAGEBLOCK_NR_PAGES as usize);
        let cpus = cfg.cpus as usize;
        Zone {
            mem_map: vec![Page::EMPTY; n],
            pageblock: vec![MigrateType::Movable as u8; nblocks],
            free_lists: [[List::default(); MT_SLOTS]; NR_PAGE_ORDERS],
            nr_free: [0; NR_PAGE_ORDERS],
            nr_free_pages: 0,
            nr_free_pages_blocks: 0,
            nr_free_cma: 0,
            nr_free_highatomic: 0,
            nr_reserved_highatomic: 0,
            watermark_boost: 0,
            below_high: false,
            boosted_watermark: false,
            watermark: [0; 4],
            min_free_kbytes: 0,
            pcp: (0..cpus)
                .map(|_| PerCpuPages {
                    count: 0,
                    high: 0,
                    high_min: 0,
                    high_max: 0,
                    batch: 0,
                    prev_free_high_order: false,
                    free_high_batch: true,
                    alloc_factor: 0,
                    free_count: 0,
                    lists: [List::default(); NR_PCP_LISTS],
                })
                .collect(),
            lowmem_reserve: [0; MAX_NR_ZONES],
            cma_pages: 0,
            compact_defer: CompactDefer::default(),
            compact_events: [0; 3],
            daemon_events: [0; 3],
            compact_blockskip_flush: false,
            compact_cached: CompactCached::default(),
            cfg,
        }
    }

    /// `zone_idx(zone)`: the zone's type.
    pub fn zone_type(&self) -> ZoneType {
        self.cfg.zone_type
    }

    /// `zone->lowmem_reserve[]`, by zone type.
    pub fn lowmem_reserve(&self) -> &[u64; MAX_NR_ZONES] {
        &self.lowmem_reserve
    }

    /// Pages in the zone.
    pub fn pages(&self) -> u32 {
        self.cfg.pages
    }

    // ------------------------------------------------------------------ read accessors
    // The fields are private to the crate: outside it, a zone changes only through
    // `apply`/`unapply` of events, so a timeline can always step back.

    /// The zone's configuration.
    pub fn cfg(&self) -> &ZoneConfig {
        &self.cfg
    }

    /// `free_area[order].nr_free`: free blocks of each order (all migratetypes).
    pub fn nr_free(&self) -> &[u64; NR_PAGE_ORDERS] {
        &self.nr_free
    }

    /// `NR_FREE_PAGES`: pages in the buddy free lists (not on pcp lists, not ISOLATE).
    pub fn nr_free_pages(&self) -> i64 {
        self.nr_free_pages
    }

    /// `zone->watermark_boost`.
    pub fn watermark_boost(&self) -> i64 {
        self.watermark_boost
    }

    /// The per-CPU pagesets, by CPU.
    pub fn pcp(&self) -> &[PerCpuPages] {
        &self.pcp
    }

    /// What page `pfn` is: the head of a buddy block, of a pcp block, or neither.
    pub fn page_kind(&self, pfn: ZonePfn) -> PageKind {
        self.mem_map[pfn as usize].kind
    }

    /// The order of the free block headed by `pfn` (`buddy_order`; 0 if not a head).
    pub fn page_order(&self, pfn: ZonePfn) -> u8 {
        self.mem_map[pfn as usize].order
    }

    /// `page_ref_count`.
    pub fn page_refcount(&self, pfn: ZonePfn) -> u8 {
        self.mem_map[pfn as usize].refcount
    }

    /// The allocation id holding page `pfn` ([`NO_OWNER`] if none); the CPU for a pcp head.
    pub fn page_owner(&self, pfn: ZonePfn) -> u32 {
        self.mem_map[pfn as usize].owner
    }

    /// The name of the first field in which `self` and `other` differ (`None` if equal): a
    /// diagnostic for tests comparing two ways to the same state.
    pub fn first_difference(&self, other: &Zone) -> Option<&'static str> {
        let checks: [(&'static str, bool); 11] = [
            ("cfg", self.cfg != other.cfg),
            ("kind/order", self.differ(other, |p| (p.kind, p.order))),
            ("list links", self.differ(other, |p| (p.next, p.prev))),
            ("refcount", self.differ(other, |p| p.refcount)),
            (
                "owner/pflags",
                self.differ(other, |p| (p.owner, p.flags & PF_MASK)),
            ),
            ("list_mt", self.differ(other, Page::list_mt)),
            ("pageblock", self.pageblock != other.pageblock),
            ("free_lists", self.free_lists != other.free_lists),
            ("nr_free", self.nr_free != other.nr_free),
            ("pcp", self.pcp != other.pcp),
            ("vmstat counters and watermarks", self != other),
        ];
        checks.into_iter().find(|c| c.1).map(|c| c.0)
    }

    /// The absolute pfn of a page of this zone (see [`ZonePfn`] for the convention).
    pub fn abs_pfn(&self, idx: ZonePfn) -> Pfn {
        to_abs_pfn(self.cfg.start_pfn, idx)
    }

    /// The index in this zone of absolute pfn `pfn`, which the caller knows is in the zone.
    pub fn zone_pfn(&self, pfn: Pfn) -> ZonePfn {
        to_zone_pfn(self.cfg.start_pfn, pfn)
    }

    /// Pageblocks in the zone.
    pub fn nr_pageblocks(&self) -> u32 {
        self.pageblock.len() as u32
    }

    /// `get_pfnblock_migratetype`: ISOLATE if the isolate bit is set, else the 3-bit type.
    pub fn pageblock_mt(&self, pfn: ZonePfn) -> MigrateType {
        self.pb_mt(pfn >> PAGEBLOCK_ORDER)
    }

    /// `get_pageblock_skip`: compaction's `PB_migrate_skip` hint of pageblock `pb`.
    pub fn pageblock_skip(&self, pb: u32) -> bool {
        self.pageblock[pb as usize] & PB_SKIP != 0
    }

    /// `get_pageblock_migratetype` of pageblock `pb`: `Isolate` if its isolate bit is set, else its
    /// type.
    pub fn pb_mt(&self, pb: u32) -> MigrateType {
        let bits = self.pageblock[pb as usize];
        if bits & PB_ISOLATE != 0 {
            MigrateType::Isolate
        } else {
            MigrateType::from_idx((bits & 7) as usize)
        }
    }

    /// The free list a buddy head is on.
    pub fn list_mt_of(&self, pfn: ZonePfn) -> MigrateType {
        MigrateType::from_idx(self.mem_map[pfn as usize].list_mt() as usize)
    }

    /// True if `pfn` is the head of a free buddy block of exactly `order`.
    pub fn is_buddy(&self, pfn: ZonePfn, order: u8) -> bool {
        self.mem_map
            .get(pfn as usize)
            .is_some_and(|p| p.kind == PageKind::Buddy && p.order == order)
    }

    /// The list `l` names.
    pub fn list(&self, l: ListId) -> &List {
        match l {
            ListId::Buddy { order, mt } => &self.free_lists[order as usize][mt.idx()],
            ListId::Pcp { cpu, pindex } => &self.pcp[cpu as usize].lists[pindex as usize],
        }
    }

    /// `free_area[order].free_list[mt]`.
    pub fn free_list(&self, order: u8, mt: MigrateType) -> &List {
        self.list(ListId::Buddy { order, mt })
    }

    /// Walks a list from its head (`list_for_each_entry`).
    pub fn list_iter(&self, list: &List) -> ListIter<'_> {
        ListIter {
            zone: self,
            cur: list.head,
        }
    }

    /// The pfns of a free list, head first.
    pub fn free_list_pfns(&self, order: u8, mt: MigrateType) -> Vec<ZonePfn> {
        self.list_iter(self.free_list(order, mt)).collect()
    }

    /// The pfns of CPU `cpu`'s `pcp->lists[pindex]`, head first.
    pub fn pcp_list_pfns(&self, cpu: usize, pindex: usize) -> Vec<ZonePfn> {
        self.list_iter(&self.pcp[cpu].lists[pindex]).collect()
    }

    /// [`Zone::free_list_pfns`] as absolute pfns, as the kernel's tools and snapshots print them.
    pub fn free_list_abs_pfns(&self, order: u8, mt: MigrateType) -> Vec<Pfn> {
        self.list_iter(self.free_list(order, mt))
            .map(|p| self.abs_pfn(p))
            .collect()
    }

    /// [`Zone::pcp_list_pfns`] as absolute pfns.
    pub fn pcp_list_abs_pfns(&self, cpu: usize, pindex: usize) -> Vec<Pfn> {
        self.list_iter(&self.pcp[cpu].lists[pindex])
            .map(|p| self.abs_pfn(p))
            .collect()
    }

    /// `wmark_pages()`: the watermark plus the boost.
    pub fn wmark_pages(&self, w: usize) -> u64 {
        self.watermark[w] + self.watermark_boost as u64
    }

    /// The free block (buddy or pcp) that contains page `pfn`, if any: `(head, order, on_pcp)`.
    /// Blocks are naturally aligned, so the head is `pfn` rounded down to some order.
    pub fn block_containing(&self, pfn: ZonePfn) -> Option<(ZonePfn, u8, bool)> {
        (0..=MAX_PAGE_ORDER).find_map(|o| {
            let head = pfn & !((1u32 << o) - 1);
            let Page { kind: k, order, .. } = self.mem_map[head as usize];
            (k != PageKind::Other && order >= o && head + (1 << order) > pfn).then_some((
                head,
                order,
                k == PageKind::Pcp,
            ))
        })
    }

    /// Free pages cached on all pcp lists.
    pub fn pcp_pages(&self) -> i64 {
        self.pcp.iter().map(|p| p.count as i64).sum()
    }

    // ------------------------------------------------------------------ list primitives

    // Each primitive borrows the list and `mem_map` once (`lists_and_pages`): a store to a page
    // through `self.mem_map[..]` made the compiler reload the vector's pointer and length and
    // check the bounds again before the next page access.

    #[inline(always)]
    fn link_head(&mut self, l: ListId, pfn: ZonePfn) {
        let (list, mm) = self.lists_and_pages(l);
        link_head(list, mm, pfn);
    }

    #[inline(always)]
    fn link_tail(&mut self, l: ListId, pfn: ZonePfn) {
        let (list, mm) = self.lists_and_pages(l);
        link_tail(list, mm, pfn);
    }

    /// Inserts after `after` (NIL: at the head). Used to undo an unlink.
    fn link_after(&mut self, l: ListId, after: ZonePfn, pfn: ZonePfn) {
        if after == NIL {
            return self.link_head(l, pfn);
        }
        let nxt = self.mem_map[after as usize].next;
        if nxt == NIL {
            return self.link_tail(l, pfn);
        }
        let (list, mm) = self.lists_and_pages(l);
        mm[after as usize].next = pfn;
        let page = &mut mm[pfn as usize];
        page.prev = after;
        page.next = nxt;
        mm[nxt as usize].prev = pfn;
        list.len += 1;
    }

    /// Unlinks `pfn` from list `l`; returns its predecessor.
    #[inline(always)]
    fn unlink(&mut self, l: ListId, pfn: ZonePfn) -> ZonePfn {
        let (list, mm) = self.lists_and_pages(l);
        unlink(list, mm, pfn).0
    }

    /// Makes `pfn` (on the list) its first block, keeping the ring's order: what stood before
    /// it goes to the tail (`list_cut_before` + `list_splice_tail`).
    fn rotate_to(&mut self, l: ListId, pfn: ZonePfn) {
        let (list, mm) = self.lists_and_pages(l);
        if list.head == pfn {
            return;
        }
        let before = mm[pfn as usize].prev;
        mm[list.tail as usize].next = list.head;
        mm[list.head as usize].prev = list.tail;
        mm[before as usize].next = NIL;
        mm[pfn as usize].prev = NIL;
        list.head = pfn;
        list.tail = before;
    }

    /// The list `l` names and the pages, borrowed together.
    #[inline(always)]
    fn lists_and_pages(&mut self, l: ListId) -> (&mut List, &mut [Page]) {
        let list = match l {
            ListId::Buddy { order, mt } => &mut self.free_lists[order as usize][mt.idx()],
            ListId::Pcp { cpu, pindex } => &mut self.pcp[cpu as usize].lists[pindex as usize],
        };
        (list, &mut self.mem_map)
    }

    fn blocks_delta(&mut self, order: u8, mt: MigrateType, sign: i64) {
        if order >= PAGEBLOCK_ORDER && mt != MigrateType::Isolate {
            self.nr_free_pages_blocks += sign << order;
        }
    }

    fn account(&mut self, mt: MigrateType, delta: i64) {
        if mt == MigrateType::Isolate {
            return;
        }
        self.nr_free_pages += delta;
        match mt {
            MigrateType::Cma => self.nr_free_cma += delta,
            MigrateType::HighAtomic => self.nr_free_highatomic += delta,
            _ => {}
        }
    }

    /// Always inlined: each `Engine::counter` site names one counter, so the match folds to
    /// that arm (out of line, the call and the match were ~3 % of the recording-off
    /// instructions).
    #[inline(always)]
    fn counter(&mut self, id: CounterId, cpu: u8, delta: i64) {
        let flag = |b: &mut bool, d: i64| *b = (*b as i64 + d) != 0;
        match id {
            CounterId::watermark_boost => self.watermark_boost += delta,
            CounterId::nr_reserved_highatomic => self.nr_reserved_highatomic += delta,
            CounterId::zone_below_high => flag(&mut self.below_high, delta),
            CounterId::zone_boosted_watermark => flag(&mut self.boosted_watermark, delta),
            CounterId::pcp_high => self.pcp[cpu as usize].high += delta as i32,
            CounterId::pcp_alloc_factor => self.pcp[cpu as usize].alloc_factor += delta as i32,
            CounterId::pcp_free_count => self.pcp[cpu as usize].free_count += delta as i32,
            CounterId::pcp_prev_free_high_order => {
                flag(&mut self.pcp[cpu as usize].prev_free_high_order, delta)
            }
            CounterId::compact_stall => self.compact_events[0] += delta,
            CounterId::compact_fail => self.compact_events[1] += delta,
            CounterId::compact_success => self.compact_events[2] += delta,
            CounterId::compact_blockskip_flush => flag(&mut self.compact_blockskip_flush, delta),
            CounterId::compact_daemon_wake => self.daemon_events[0] += delta,
            CounterId::compact_daemon_migrate_scanned => self.daemon_events[1] += delta,
            CounterId::compact_daemon_free_scanned => self.daemon_events[2] += delta,
            CounterId::compact_cached_migrate_pfn_async => {
                self.compact_cached.migrate[0] =
                    self.compact_cached.migrate[0].wrapping_add_signed(delta)
            }
            CounterId::compact_cached_migrate_pfn_sync => {
                self.compact_cached.migrate[1] =
                    self.compact_cached.migrate[1].wrapping_add_signed(delta)
            }
            CounterId::compact_cached_free_pfn => {
                self.compact_cached.free = self.compact_cached.free.wrapping_add_signed(delta)
            }
            CounterId::compact_init_migrate_pfn => {
                self.compact_cached.init_migrate =
                    self.compact_cached.init_migrate.wrapping_add_signed(delta)
            }
            CounterId::compact_init_free_pfn => {
                self.compact_cached.init_free =
                    self.compact_cached.init_free.wrapping_add_signed(delta)
            }
        }
    }

    #[inline(always)]
    fn set_owner_range(&mut self, pfn: ZonePfn, n: u32, owner: u32, lru: bool) {
        for p in &mut self.mem_map[pfn as usize..(pfn + n) as usize] {
            p.owner = owner;
            p.set_lru(lru);
        }
    }

    /// The head's refcount and the owner of pages `[pfn, pfn + n)`, through one borrow of the
    /// pages (an allocation and a free each do this once).
    #[inline(always)]
    fn set_head_and_owner(&mut self, pfn: ZonePfn, n: u32, refcount: u8, owner: u32, lru: bool) {
        let pages = &mut self.mem_map[pfn as usize..(pfn + n) as usize];
        pages[0].refcount = refcount;
        for p in pages {
            p.owner = owner;
            p.set_lru(lru);
        }
    }

    /// Sets the refcount of pages `[pfn, pfn + n)`.
    #[inline(always)]
    fn set_refcount_range(&mut self, pfn: ZonePfn, n: u32, refcount: u8) {
        for p in &mut self.mem_map[pfn as usize..(pfn + n) as usize] {
            p.refcount = refcount;
        }
    }

    /// True if some page's `field` differs between `self` and `other` (or their sizes do).
    fn differ<T: PartialEq>(&self, other: &Zone, field: impl Fn(&Page) -> T) -> bool {
        self.mem_map.len() != other.mem_map.len()
            || self
                .mem_map
                .iter()
                .zip(&other.mem_map)
                .any(|(a, b)| field(a) != field(b))
    }

    /// Performs a mutation: the zone's one way to change after setup. [`Node::apply`] calls it
    /// with every mutation but `ZoneSwitch`, which changes the node, not a zone.
    ///
    /// Always inlined: every `Engine::emit` site builds one known variant, so the match folds
    /// to that arm (a third fewer instructions on the alloc/free fast path, no larger code).
    ///
    /// [`Node::apply`]: crate::mm::node::Node::apply
    #[inline(always)]
    pub(crate) fn mutate(&mut self, m: Mutation) {
        match m {
            Mutation::FreeListAdd {
                pfn,
                order,
                mt,
                end,
            } => {
                let l = ListId::Buddy { order, mt };
                match end {
                    End::Head => self.link_head(l, pfn),
                    End::Tail => self.link_tail(l, pfn),
                }
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Buddy;
                page.order = order;
                page.set_list_mt(mt as u8);
                self.nr_free[order as usize] += 1;
                self.blocks_delta(order, mt, 1);
            }
            Mutation::FreeListDel { pfn, order, mt, .. } => {
                self.unlink(ListId::Buddy { order, mt }, pfn);
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Other;
                page.order = 0;
                page.set_list_mt(0);
                self.nr_free[order as usize] -= 1;
                self.blocks_delta(order, mt, -1);
            }
            Mutation::FreeListMove {
                pfn,
                order,
                from,
                to,
                ..
            } => {
                self.unlink(ListId::Buddy { order, mt: from }, pfn);
                self.link_tail(ListId::Buddy { order, mt: to }, pfn);
                self.mem_map[pfn as usize].set_list_mt(to as u8);
                self.blocks_delta(order, from, -1);
                self.blocks_delta(order, to, 1);
            }
            Mutation::FreeListRotate {
                order, mt, head, ..
            } => self.rotate_to(ListId::Buddy { order, mt }, head),
            Mutation::Account { mt, delta } => self.account(mt, delta as i64),
            // The pcp and the page are each borrowed once for the link, the page's fields and
            // the count (every allocation and free of the fast path does one of these two).
            Mutation::PcpAdd {
                cpu,
                pindex,
                pfn,
                end,
            } => {
                let order = pindex_to_order(pindex as usize);
                let pcp = &mut self.pcp[cpu as usize];
                let list = &mut pcp.lists[pindex as usize];
                let page = match end {
                    End::Head => link_head(list, &mut self.mem_map, pfn),
                    End::Tail => link_tail(list, &mut self.mem_map, pfn),
                };
                page.kind = PageKind::Pcp;
                page.order = order;
                page.owner = cpu as u32;
                pcp.count += 1 << order;
            }
            Mutation::PcpDel {
                cpu, pindex, pfn, ..
            } => {
                let order = pindex_to_order(pindex as usize);
                let pcp = &mut self.pcp[cpu as usize];
                let (_, page) = unlink(&mut pcp.lists[pindex as usize], &mut self.mem_map, pfn);
                page.kind = PageKind::Other;
                page.order = 0;
                page.owner = NO_OWNER;
                pcp.count -= 1 << order;
            }
            Mutation::SetPageblock { pb, new, .. } => self.pageblock[pb as usize] = new,
            Mutation::Counter { id, cpu, delta } => self.counter(id, cpu, delta as i64),
            Mutation::PrepNewPage {
                pfn,
                order,
                owner,
                lru,
            } => {
                self.set_head_and_owner(pfn, 1 << order, 1, owner, lru);
            }
            Mutation::SplitPage { pfn, order } => {
                self.set_refcount_range(pfn + 1, (1 << order) - 1, 1);
            }
            Mutation::PutPage { pfn, order, .. } => {
                self.set_head_and_owner(pfn, 1 << order, 0, NO_OWNER, false);
            }
            Mutation::ContigAlloc { pfn, nr, owner } => {
                self.set_refcount_range(pfn, nr, 1);
                self.set_owner_range(pfn, nr, owner, false);
            }
            Mutation::GetPage { pfn } => self.mem_map[pfn as usize].refcount += 1,
            Mutation::PutPageRef { pfn, release, .. } => {
                self.mem_map[pfn as usize].refcount -= 1;
                if release {
                    self.set_owner_range(pfn, 1, NO_OWNER, false);
                }
            }
            // The node's: `Node::apply` never passes it here.
            Mutation::ZoneSwitch { .. } => {}
            Mutation::CompactDefer { new, .. } => self.compact_defer = new,
        }
    }

    /// Undoes `mutate(m)`.
    pub(crate) fn unmutate(&mut self, m: Mutation) {
        match m {
            Mutation::FreeListAdd { pfn, order, mt, .. } => {
                self.unlink(ListId::Buddy { order, mt }, pfn);
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Other;
                page.order = 0;
                page.set_list_mt(0);
                self.nr_free[order as usize] -= 1;
                self.blocks_delta(order, mt, -1);
            }
            Mutation::FreeListDel {
                pfn,
                order,
                mt,
                prev,
            } => {
                self.link_after(ListId::Buddy { order, mt }, prev, pfn);
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Buddy;
                page.order = order;
                page.set_list_mt(mt as u8);
                self.nr_free[order as usize] += 1;
                self.blocks_delta(order, mt, 1);
            }
            Mutation::FreeListMove {
                pfn,
                order,
                from,
                to,
                prev,
            } => {
                self.unlink(ListId::Buddy { order, mt: to }, pfn);
                self.link_after(ListId::Buddy { order, mt: from }, prev, pfn);
                self.mem_map[pfn as usize].set_list_mt(from as u8);
                self.blocks_delta(order, to, -1);
                self.blocks_delta(order, from, 1);
            }
            Mutation::FreeListRotate {
                order,
                mt,
                old_head,
                ..
            } => self.rotate_to(ListId::Buddy { order, mt }, old_head),
            Mutation::Account { mt, delta } => self.account(mt, -(delta as i64)),
            Mutation::PcpAdd {
                cpu, pindex, pfn, ..
            } => {
                self.unlink(ListId::Pcp { cpu, pindex }, pfn);
                let order = pindex_to_order(pindex as usize);
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Other;
                page.order = 0;
                page.owner = NO_OWNER;
                self.pcp[cpu as usize].count -= 1 << order;
            }
            Mutation::PcpDel {
                cpu,
                pindex,
                pfn,
                prev,
            } => {
                self.link_after(ListId::Pcp { cpu, pindex }, prev, pfn);
                let order = pindex_to_order(pindex as usize);
                let page = &mut self.mem_map[pfn as usize];
                page.kind = PageKind::Pcp;
                page.order = order;
                page.owner = cpu as u32;
                self.pcp[cpu as usize].count += 1 << order;
            }
            Mutation::SetPageblock { pb, old, .. } => self.pageblock[pb as usize] = old,
            Mutation::Counter { id, cpu, delta } => self.counter(id, cpu, -(delta as i64)),
            Mutation::PrepNewPage { pfn, order, .. } => {
                self.mem_map[pfn as usize].refcount = 0;
                self.set_owner_range(pfn, 1 << order, NO_OWNER, false);
            }
            Mutation::SplitPage { pfn, order } => {
                self.set_refcount_range(pfn + 1, (1 << order) - 1, 0);
            }
            Mutation::PutPage {
                pfn,
                order,
                owner,
                lru,
            } => {
                self.mem_map[pfn as usize].refcount = 1;
                self.set_owner_range(pfn, 1 << order, owner, lru);
            }
            Mutation::ContigAlloc { pfn, nr, .. } => {
                self.set_refcount_range(pfn, nr, 0);
                self.set_owner_range(pfn, nr, NO_OWNER, false);
            }
            Mutation::GetPage { pfn } => self.mem_map[pfn as usize].refcount -= 1,
            Mutation::PutPageRef {
                pfn,
                owner,
                lru,
                release,
            } => {
                self.mem_map[pfn as usize].refcount += 1;
                if release {
                    self.set_owner_range(pfn, 1, owner, lru);
                }
            }
            Mutation::ZoneSwitch { .. } => {}
            Mutation::CompactDefer { old, .. } => self.compact_defer = old,
        }
    }
}

/// Iterator over a list's pfns, head first.
pub struct ListIter<'a> {
    zone: &'a Zone,
    cur: ZonePfn,
}

impl Iterator for ListIter<'_> {
    type Item = ZonePfn;
    fn next(&mut self) -> Option<ZonePfn> {
        if self.cur == NIL {
            return None;
        }
        let c = self.cur;
        self.cur = self.zone.mem_map[c as usize].next;
        Some(c)
    }
}

/// A zone's serialized form keeps the per-page state as one array per field (`kind`, `order`,
/// `next`, `prev`, `refcount`, `pflags`, `owner`, `list_mt`), as when the zone held eight
/// parallel vectors, so its JSON does not depend on how [`Page`] is laid out.
mod serde_form {
    use super::*;
    use serde::de::Error as _;
    use serde::{Deserializer, Serializer};

    /// One field of every page, serialized as an array.
    struct Column<'a, T>(&'a [Page], fn(&Page) -> T);

    impl<T: Serialize> Serialize for Column<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(self.1))
        }
    }

    #[derive(Serialize)]
    struct Out<'a> {
        cfg: &'a ZoneConfig,
        kind: Column<'a, PageKind>,
        order: Column<'a, u8>,
        next: Column<'a, ZonePfn>,
        prev: Column<'a, ZonePfn>,
        refcount: Column<'a, u8>,
        pflags: Column<'a, u8>,
        owner: Column<'a, u32>,
        list_mt: Column<'a, u8>,
        pageblock: &'a [u8],
        free_lists: &'a [[List; MT_SLOTS]; NR_PAGE_ORDERS],
        nr_free: &'a [u64; NR_PAGE_ORDERS],
        nr_free_pages: i64,
        nr_free_pages_blocks: i64,
        nr_free_cma: i64,
        nr_free_highatomic: i64,
        nr_reserved_highatomic: i64,
        watermark_boost: i64,
        below_high: bool,
        boosted_watermark: bool,
        watermark: &'a [u64; 4],
        min_free_kbytes: u64,
        pcp: &'a [PerCpuPages],
        #[serde(skip_serializing_if = "is_zero_reserve")]
        lowmem_reserve: &'a [u64; MAX_NR_ZONES],
        #[serde(skip_serializing_if = "is_zero_u64")]
        cma_pages: u64,
        #[serde(skip_serializing_if = "is_default_defer")]
        compact_defer: &'a CompactDefer,
        #[serde(skip_serializing_if = "is_zero_events")]
        compact_events: &'a [i64; 3],
        #[serde(skip_serializing_if = "is_zero_events")]
        daemon_events: &'a [i64; 3],
        #[serde(skip_serializing_if = "is_false")]
        compact_blockskip_flush: bool,
        #[serde(skip_serializing_if = "is_default_cached")]
        compact_cached: &'a CompactCached,
    }

    fn is_default_cached(c: &&CompactCached) -> bool {
        **c == CompactCached::default()
    }

    fn is_zero_events(e: &&[i64; 3]) -> bool {
        e.iter().all(|&x| x == 0)
    }

    fn is_false(b: &bool) -> bool {
        !*b
    }

    fn is_default_defer(d: &&CompactDefer) -> bool {
        **d == CompactDefer::default()
    }

    fn is_zero_u64(x: &u64) -> bool {
        *x == 0
    }

    fn is_zero_reserve(r: &&[u64; MAX_NR_ZONES]) -> bool {
        r.iter().all(|&x| x == 0)
    }

    impl Serialize for Zone {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let m = &self.mem_map[..];
            Out {
                cfg: &self.cfg,
                kind: Column(m, |p| p.kind),
                order: Column(m, |p| p.order),
                next: Column(m, |p| p.next),
                prev: Column(m, |p| p.prev),
                refcount: Column(m, |p| p.refcount),
                pflags: Column(m, |p| p.flags & PF_MASK),
                owner: Column(m, |p| p.owner),
                list_mt: Column(m, Page::list_mt),
                pageblock: &self.pageblock,
                free_lists: &self.free_lists,
                nr_free: &self.nr_free,
                nr_free_pages: self.nr_free_pages,
                nr_free_pages_blocks: self.nr_free_pages_blocks,
                nr_free_cma: self.nr_free_cma,
                nr_free_highatomic: self.nr_free_highatomic,
                nr_reserved_highatomic: self.nr_reserved_highatomic,
                watermark_boost: self.watermark_boost,
                below_high: self.below_high,
                boosted_watermark: self.boosted_watermark,
                watermark: &self.watermark,
                min_free_kbytes: self.min_free_kbytes,
                pcp: &self.pcp,
                lowmem_reserve: &self.lowmem_reserve,
                cma_pages: self.cma_pages,
                compact_defer: &self.compact_defer,
                compact_events: &self.compact_events,
                daemon_events: &self.daemon_events,
                compact_blockskip_flush: self.compact_blockskip_flush,
                compact_cached: &self.compact_cached,
            }
            .serialize(s)
        }
    }

    #[derive(Deserialize)]
    struct In {
        cfg: ZoneConfig,
        kind: Vec<PageKind>,
        order: Vec<u8>,
        next: Vec<ZonePfn>,
        prev: Vec<ZonePfn>,
        refcount: Vec<u8>,
        pflags: Vec<u8>,
        owner: Vec<u32>,
        list_mt: Vec<u8>,
        pageblock: Vec<u8>,
        free_lists: [[List; MT_SLOTS]; NR_PAGE_ORDERS],
        nr_free: [u64; NR_PAGE_ORDERS],
        nr_free_pages: i64,
        nr_free_pages_blocks: i64,
        nr_free_cma: i64,
        nr_free_highatomic: i64,
        nr_reserved_highatomic: i64,
        watermark_boost: i64,
        below_high: bool,
        boosted_watermark: bool,
        watermark: [u64; 4],
        min_free_kbytes: u64,
        pcp: Vec<PerCpuPages>,
        #[serde(default)]
        lowmem_reserve: [u64; MAX_NR_ZONES],
        #[serde(default)]
        cma_pages: u64,
        #[serde(default)]
        compact_defer: CompactDefer,
        #[serde(default)]
        compact_events: [i64; 3],
        #[serde(default)]
        daemon_events: [i64; 3],
        #[serde(default)]
        compact_blockskip_flush: bool,
        #[serde(default)]
        compact_cached: CompactCached,
    }

    impl<'de> Deserialize<'de> for Zone {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Zone, D::Error> {
            let z = In::deserialize(d)?;
            let n = z.kind.len();
            let lens = [
                z.order.len(),
                z.next.len(),
                z.prev.len(),
                z.refcount.len(),
                z.pflags.len(),
                z.owner.len(),
                z.list_mt.len(),
            ];
            if lens.iter().any(|&l| l != n) {
                return Err(D::Error::custom(
                    "the per-page arrays of a zone differ in length",
                ));
            }
            if z.pflags.iter().any(|&f| f & !PF_MASK != 0)
                || z.list_mt.iter().any(|&mt| mt as usize >= MT_SLOTS)
            {
                return Err(D::Error::custom(
                    "a page's flags or free-list type is out of range",
                ));
            }
            let mem_map = (0..n)
                .map(|i| Page {
                    next: z.next[i],
                    prev: z.prev[i],
                    owner: z.owner[i],
                    kind: z.kind[i],
                    order: z.order[i],
                    refcount: z.refcount[i],
                    flags: z.pflags[i] | (z.list_mt[i] << LIST_MT_SHIFT),
                })
                .collect();
            Ok(Zone {
                cfg: z.cfg,
                mem_map,
                pageblock: z.pageblock,
                free_lists: z.free_lists,
                nr_free: z.nr_free,
                nr_free_pages: z.nr_free_pages,
                nr_free_pages_blocks: z.nr_free_pages_blocks,
                nr_free_cma: z.nr_free_cma,
                nr_free_highatomic: z.nr_free_highatomic,
                nr_reserved_highatomic: z.nr_reserved_highatomic,
                watermark_boost: z.watermark_boost,
                below_high: z.below_high,
                boosted_watermark: z.boosted_watermark,
                watermark: z.watermark,
                min_free_kbytes: z.min_free_kbytes,
                pcp: z.pcp,
                lowmem_reserve: z.lowmem_reserve,
                cma_pages: z.cma_pages,
                compact_defer: z.compact_defer,
                compact_events: z.compact_events,
                daemon_events: z.daemon_events,
                compact_blockskip_flush: z.compact_blockskip_flush,
                compact_cached: z.compact_cached,
            })
        }
    }
}
