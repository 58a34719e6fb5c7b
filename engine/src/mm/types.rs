//! Constants, migratetypes, gfp and alloc flags: the vocabulary of `mm/page_alloc.c`
//! (x86_64, 4 KiB pages, distro-like config; kernel-model.md §1).
//!
//! **Pfns.** Two kinds, never to be mixed: [`Pfn`], the absolute page frame number the kernel
//! prints (`/proc`, tracepoint lines, the scenario's `start_pfn` and ranges), and [`ZonePfn`],
//! a page's index in its zone (`pfn - zone->zone_start_pfn`), which indexes the zone's per-page
//! arrays and is what every event and list link holds. They are type aliases, not newtypes:
//! the allocator's buddy arithmetic (`pfn ^ (1 << order)`, `pfn + (1 << order)`, masks) runs on
//! `ZonePfn` on every path, and a newtype would need that arithmetic wrapped or unwrapped at
//! every step for no gain in the hot code. What keeps them apart instead: a `u64` is only ever
//! an absolute pfn and a `u32` pfn only ever zone-relative (the widths differ, so passing one
//! for the other does not compile without a cast), and the conversion lives in one place,
//! [`crate::mm::zone::Zone::abs_pfn`] / [`crate::mm::zone::Zone::zone_pfn`] (and
//! [`crate::explain::Ctx`] for printing, which calls the same [`to_abs_pfn`]).

use serde::{Deserialize, Serialize};

/// An absolute page frame number, as the kernel prints it (`/proc`, tracepoints, scenarios).
pub type Pfn = u64;

/// A page's index in its zone (`pfn - zone_start_pfn`): the index of the zone's per-page
/// arrays, and the pfn every event and list link carries. Buddy alignment is the same as the
/// absolute pfn's, because a zone starts at a multiple of 1024 pages.
pub type ZonePfn = u32;

/// `start_pfn + idx`: the one conversion from zone-relative to absolute.
#[inline]
pub fn to_abs_pfn(start_pfn: Pfn, idx: ZonePfn) -> Pfn {
    start_pfn + Pfn::from(idx)
}

/// `pfn - start_pfn`: the one conversion from absolute to zone-relative. The caller has
/// checked that `pfn` lies in the zone (`start_pfn <= pfn < start_pfn + pages`).
#[inline]
pub fn to_zone_pfn(start_pfn: Pfn, pfn: Pfn) -> ZonePfn {
    debug_assert!(pfn >= start_pfn && pfn - start_pfn <= ZonePfn::MAX as Pfn);
    (pfn - start_pfn) as ZonePfn
}

/// Largest buddy order: an order-10 block is 1024 pages = 4 MiB.
pub const MAX_PAGE_ORDER: u8 = 10;
/// Orders 0..=10.
pub const NR_PAGE_ORDERS: usize = 11;
/// `min(HUGETLB_PAGE_ORDER, PAGE_BLOCK_MAX_ORDER)` on x86_64.
pub const PAGEBLOCK_ORDER: u8 = 9;
/// `pageblock_nr_pages`: 512.
pub const PAGEBLOCK_NR_PAGES: u32 = 1 << PAGEBLOCK_ORDER;
/// Orders above this are "costly" (compaction/reclaim heuristics).
pub const PAGE_ALLOC_COSTLY_ORDER: u8 = 3;
/// THP order: the second order class cached on pcp lists.
pub const HPAGE_PMD_ORDER: u8 = 9;
/// `CONFIG_PCP_BATCH_SCALE_MAX`: caps pcp batch scaling at `batch << 5`.
pub const PCP_BATCH_SCALE_MAX: u32 = 5;
/// pcp lists for orders 0..=3, three pcp migratetypes each.
pub const NR_LOWORDER_PCP_LISTS: usize = 12;
/// With THP: 12 low-order lists + 2 order-9 lists.
pub const NR_PCP_LISTS: usize = 14;
pub const PAGE_SIZE: u64 = 4096;
/// Smallest and largest zone the scenario format accepts.
pub const MIN_ZONE_PAGES: u64 = 1024;
pub const MAX_ZONE_PAGES: u64 = 4_194_304;
/// The largest node of several zones (`zones`): 16,777,216 pages, a whole 64 GiB machine (e.g.
/// DMA32 up to 4 GiB and Normal above it); one zone of a node may be up to this size too.
/// About 16 bytes a page: 256 MiB for the node's per-page state, once per copy (the run keeps
/// the initial and the final state; checkpoints within their budget).
pub const MAX_NODE_PAGES: u64 = 16_777_216;
/// CPUs a zone may have.
pub const MAX_CPUS: u32 = 64;

/// `enum migratetype`. The engine always keeps six free lists per order; the numeric value the
/// kernel prints depends on `CONFIG_CMA` (see [`MigrateType::kernel_number`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MigrateType {
    /// `MIGRATE_UNMOVABLE`.
    Unmovable = 0,
    /// `MIGRATE_MOVABLE`.
    Movable = 1,
    /// `MIGRATE_RECLAIMABLE`.
    Reclaimable = 2,
    /// `MIGRATE_HIGHATOMIC`.
    #[serde(rename = "highatomic")]
    HighAtomic = 3,
    /// `MIGRATE_CMA`.
    Cma = 4,
    /// `MIGRATE_ISOLATE`.
    Isolate = 5,
}

/// Number of migratetype slots the engine keeps (CMA and Isolate always have lists).
pub const MT_SLOTS: usize = 6;
/// `MIGRATE_PCPTYPES`: the first three types have pcp lists and are mergeable.
pub const MIGRATE_PCPTYPES: usize = 3;

impl MigrateType {
    /// Every type, by index.
    pub const ALL: [MigrateType; MT_SLOTS] = [
        MigrateType::Unmovable,
        MigrateType::Movable,
        MigrateType::Reclaimable,
        MigrateType::HighAtomic,
        MigrateType::Cma,
        MigrateType::Isolate,
    ];

    /// The index in [`MigrateType::ALL`] (the kernel's number with `CONFIG_CMA`).
    pub fn idx(self) -> usize {
        self as usize
    }

    pub(crate) fn from_idx(i: usize) -> MigrateType {
        Self::ALL[i]
    }

    /// `migratetype_names[]`.
    pub fn kernel_name(self) -> &'static str {
        match self {
            MigrateType::Unmovable => "Unmovable",
            MigrateType::Movable => "Movable",
            MigrateType::Reclaimable => "Reclaimable",
            MigrateType::HighAtomic => "HighAtomic",
            MigrateType::Cma => "CMA",
            MigrateType::Isolate => "Isolate",
        }
    }

    /// Lower-case spelling used by the scenario format and `data-testid`s.
    pub fn slug(self) -> &'static str {
        match self {
            MigrateType::Unmovable => "unmovable",
            MigrateType::Movable => "movable",
            MigrateType::Reclaimable => "reclaimable",
            MigrateType::HighAtomic => "highatomic",
            MigrateType::Cma => "cma",
            MigrateType::Isolate => "isolate",
        }
    }

    /// The value of the enum in a kernel built with or without `CONFIG_CMA`.
    pub fn kernel_number(self, cma: bool) -> u32 {
        match self {
            MigrateType::Isolate if !cma => 4,
            mt => mt as u32,
        }
    }

    /// `migratetype_is_mergeable()`: only the pcp types merge across pageblocks.
    pub fn is_mergeable(self) -> bool {
        self.idx() < MIGRATE_PCPTYPES
    }

    /// The types a kernel of this config has, in enum order (`/proc/pagetypeinfo` columns).
    pub fn kernel_types(cma: bool) -> Vec<MigrateType> {
        let mut v = vec![
            MigrateType::Unmovable,
            MigrateType::Movable,
            MigrateType::Reclaimable,
            MigrateType::HighAtomic,
        ];
        if cma {
            v.push(MigrateType::Cma);
        }
        v.push(MigrateType::Isolate);
        v
    }
}

/// `fallbacks[]`: the order in which foreign free lists are searched (§2.7.1).
pub fn fallbacks(mt: MigrateType) -> [MigrateType; 2] {
    match mt {
        MigrateType::Unmovable => [MigrateType::Reclaimable, MigrateType::Movable],
        MigrateType::Movable => [MigrateType::Reclaimable, MigrateType::Unmovable],
        MigrateType::Reclaimable => [MigrateType::Unmovable, MigrateType::Movable],
        // HIGHATOMIC, CMA and ISOLATE are never fallback sources nor requesters here.
        _ => [MigrateType::Reclaimable, MigrateType::Movable],
    }
}

/// Behaviour profile (kernel-model.md §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Kernel {
    /// Linux 6.18.
    #[serde(rename = "v6.18")]
    V6_18,
    /// Linux 7.1.
    #[serde(rename = "v7.1")]
    V7_1,
    /// Linux 7.2.
    #[default]
    #[serde(rename = "v7.2")]
    V7_2,
    /// Between the two seeds: 6.18's highatomic reservation point and slow path, 7.x's
    /// chunked pcp frees and large-order vmalloc (docs/model-decisions.md).
    #[serde(rename = "v6.19")]
    V6_19,
    /// The 2024 LTS as Debian ships it (6.12.117, with the stable backports of
    /// `__rmqueue_claim`/`__rmqueue_steal`, the `rmqueue_mode` and the chunked `decay_pcp_high`):
    /// 6.18's allocator but for `free_high`, the drains and the zoneinfo format.
    #[serde(rename = "v6.12")]
    V6_12,
    /// 7.3.4: 7.2 plus `ALLOC_HIGHATOMIC` in the fast path, reservation in the slow path only.
    #[serde(rename = "v7.3")]
    V7_3,
}

impl Kernel {
    /// Every profile the engine has, oldest first (the compare selects offer these).
    pub const ALL: [Kernel; 6] = [
        Kernel::V6_12,
        Kernel::V6_18,
        Kernel::V6_19,
        Kernel::V7_1,
        Kernel::V7_2,
        Kernel::V7_3,
    ];
    /// The profile's name (`"v7.1"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kernel::V6_12 => "v6.12",
            Kernel::V6_18 => "v6.18",
            Kernel::V6_19 => "v6.19",
            Kernel::V7_1 => "v7.1",
            Kernel::V7_2 => "v7.2",
            Kernel::V7_3 => "v7.3",
        }
    }
    /// The profile for a kernel release as `uname -r` prints it (`utsname()->release`, e.g.
    /// `7.2.13+deb14-amd64`): its major.minor, for the profiles that exist; `None` for another
    /// version.
    pub fn from_uname(release: &str) -> Option<Kernel> {
        let mut parts = release.split(|c: char| !c.is_ascii_digit());
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = parts.next()?.parse().ok()?;
        // A release picks the profile of its major.minor, and only one that exists.
        Kernel::parse(&format!("v{major}.{minor}"))
    }

    /// The profile spelled `s` as [`Kernel::as_str`] spells it (`"v7.1"`), if there is one.
    pub fn parse(s: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.as_str() == s)
    }
    /// The profiles as a user types them, for messages: "v6.12, v6.18, …, v7.2 or v7.3".
    pub fn choices() -> String {
        let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.as_str()).collect();
        let (last, rest) = names.split_last().expect("at least one profile");
        format!("{} or {last}", rest.join(", "))
    }
    /// The 6.x profiles before 6.19 (6.12, 6.18): one code base for most of the allocator.
    fn is_pre_6_19(self) -> bool {
        matches!(self, Kernel::V6_12 | Kernel::V6_18)
    }
    /// 6.19+: `free_frozen_page_commit` calls `free_pcppages_bulk` in `batch`-sized chunks
    /// (§4.9). 6.12 and 6.18 free `nr_pcp_free` pages in one call.
    pub fn pcp_free_in_batches(self) -> bool {
        !self.is_pre_6_19()
    }
    /// `decay_pcp_high` drains its excess in `batch`-sized chunks, each under its own pcp
    /// lock: 6.19+, and 6.12.117 (a stable backport; v6.12.117 mm/page_alloc.c:2493-2500).
    /// 6.18.2 drains it in one `free_pcppages_bulk` call.
    pub fn decay_in_batches(self) -> bool {
        self != Kernel::V6_18
    }
    /// `free_high` in `free_frozen_page_commit` needs `free_count >= batch + high_min / 2`
    /// (6.18+); 6.12.117's `free_unref_page_commit` needs `free_count >= batch`.
    pub fn free_high_needs_half_high_min(self) -> bool {
        self != Kernel::V6_12
    }
    /// 6.19+ zoneinfo prints `reserved_highatomic`/`free_highatomic`.
    pub fn zoneinfo_highatomic_lines(self) -> bool {
        !self.is_pre_6_19()
    }
    /// 6.18+ zoneinfo: `nr_free_pages_blocks`, the pcp's `high_min`/`high_max` lines and the
    /// wider `count:    ` columns; 6.12 prints `nr_bounce` and `count: `, `high:  `, `batch: `
    /// only (v6.12.117 mm/vmstat.c `zoneinfo_show_print`, `vmstat_text`).
    pub fn zoneinfo_6_18_format(self) -> bool {
        self != Kernel::V6_12
    }
    /// 7.x: highatomic reservation happens in `rmqueue_buddy` only and pcp refill is skipped
    /// for `ALLOC_HIGHATOMIC` (§2.9). 6.19 still reserves in `get_page_from_freelist` after
    /// any successful `rmqueue`, pcp hits included, and refills the pcp for such requests.
    pub fn highatomic_in_rmqueue_buddy(self) -> bool {
        self.is_7x()
    }
    /// 7.3: the fast path adds `alloc_flags_nonblocking(gfp, order) & ALLOC_HIGHATOMIC` (an
    /// order > 0 `__GFP_HIGH` request without `__GFP_DIRECT_RECLAIM` or `__GFP_NOMEMALLOC`), and
    /// `rmqueue_buddy` reserves a highatomic pageblock only for an `ALLOC_WMARK_MIN` (slow
    /// path) request (v7.3.4 mm/page_alloc.c:5456, :3274-3276).
    pub fn fastpath_highatomic(self) -> bool {
        self == Kernel::V7_3
    }
    /// 7.x: `alloc_pages_bulk` zone gate is `low + (nr - populated)` (§6.4).
    pub fn bulk_gate_minus_populated(self) -> bool {
        self.is_7x()
    }
    /// 7.x slow path attempt counting (§7.2); 6.19's `__alloc_pages_slowpath` is 6.18's (two
    /// attempts before reclaim), and so is 6.12's.
    pub fn slowpath_7x(self) -> bool {
        self.is_7x()
    }
    /// 7.x: `cma_alloc` is `cma_alloc_frozen` plus `set_pages_refcounted`, and `cma_release`
    /// drops every reference before `free_contig_frozen_range` (v7.1.5 mm/cma.c:947, :1017);
    /// 6.12/6.18/6.19 free through `free_contig_range`, page by page.
    pub fn cma_frozen(self) -> bool {
        self.is_7x()
    }
    /// 7.2+: `__alloc_pages_direct_compact` gives up without a stall for `COMPACT_DEFERRED`
    /// as for `COMPACT_SKIPPED` (v7.2.13 mm/page_alloc.c:4215-4217); 6.12 … 7.1 count a stall
    /// and try the free lists after a deferred compaction (v7.1.5 mm/page_alloc.c:4159).
    pub fn direct_compact_deferred_is_skipped(self) -> bool {
        matches!(self, Kernel::V7_2 | Kernel::V7_3)
    }
    /// 7.2+ `suitable_migration_source`: a direct compaction never empties a CMA pageblock
    /// for a request without `ALLOC_CMA`, and an `ASYNC` one for a pageblock-order request or a
    /// movable one takes MOVABLE and CMA blocks; 6.12 … 7.1: only `ASYNC` direct compaction
    /// is restricted, to the request's type (movable: MOVABLE and CMA) (v7.2.13
    /// mm/compaction.c `suitable_migration_source` :1376, v6.12.117 :1376).
    pub fn compaction_source_cma_rule(self) -> bool {
        matches!(self, Kernel::V7_2 | Kernel::V7_3)
    }
    /// `fast_find_migrateblock` searches for a direct compaction of a request that is not
    /// movable when its order is pageblock order or more (whole-block production; v7.2.13
    /// mm/compaction.c:2013); 6.12 … 7.1 never do for such a request (v6.12.117 :2001).
    pub fn fast_find_migrateblock_whole_block_exempt(self) -> bool {
        matches!(self, Kernel::V7_2 | Kernel::V7_3)
    }
    /// The 7.x profiles (v7.1, v7.2, v7.3).
    fn is_7x(self) -> bool {
        matches!(self, Kernel::V7_1 | Kernel::V7_2 | Kernel::V7_3)
    }
    /// The tag of the profile's tree on elixir.bootlin.com, for the source links.
    pub fn elixir_tag(self) -> &'static str {
        self.as_str()
    }
    /// Default `vmalloc.strategy`, `free_contig_range.method` and `vfree.method`.
    pub fn default_vmalloc_strategy(self) -> VmallocStrategy {
        if self.is_pre_6_19() {
            VmallocStrategy::Bulk
        } else {
            VmallocStrategy::LargeOrder
        }
    }
    /// 7.2+: `free_contig_range`, `__free_contig_frozen_range` and `vfree` (through
    /// `vm_area_free_pages` → `free_pages_bulk`) release runs through
    /// `__free_contig_range_common` (v7.2.13 mm/page_alloc.c:6928, mm/vmalloc.c:3452).
    pub fn default_free_method(self) -> FreeMethod {
        match self {
            Kernel::V7_2 | Kernel::V7_3 => FreeMethod::Chunked,
            _ => FreeMethod::PerPage,
        }
    }
}

/// How `vm_area_alloc_pages` fills an area (§6.2 vs §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VmallocStrategy {
    /// ≤ 6.18: `alloc_pages_bulk` in requests of ≤ 100 order-0 pages.
    Bulk,
    /// 6.19+: largest order first, `split_page`, step down on failure.
    LargeOrder,
}

/// How a contiguous range of order-0 pages is freed (§5.1 vs §5.2, §6.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeMethod {
    /// ≤ 7.1: one `__free_page` per page.
    PerPage,
    /// 7.2: `free_prepared_contig_range` in naturally aligned chunks.
    Chunked,
}

/// gfp bits (`include/linux/gfp_types.h`), the ones the model uses.
pub mod gfp {
    /// `__GFP_DMA`.
    pub const __GFP_DMA: u32 = 0x1;
    /// `__GFP_HIGHMEM`.
    pub const __GFP_HIGHMEM: u32 = 0x2;
    /// `__GFP_DMA32`.
    pub const __GFP_DMA32: u32 = 0x4;
    /// `__GFP_MOVABLE`.
    pub const __GFP_MOVABLE: u32 = 0x8;
    /// `__GFP_RECLAIMABLE`.
    pub const __GFP_RECLAIMABLE: u32 = 0x10;
    /// `__GFP_HIGH`.
    pub const __GFP_HIGH: u32 = 0x20;
    /// `__GFP_IO`.
    pub const __GFP_IO: u32 = 0x40;
    /// `__GFP_FS`.
    pub const __GFP_FS: u32 = 0x80;
    /// `__GFP_ZERO`.
    pub const __GFP_ZERO: u32 = 0x100;
    /// `__GFP_DIRECT_RECLAIM`.
    pub const __GFP_DIRECT_RECLAIM: u32 = 0x400;
    /// `__GFP_KSWAPD_RECLAIM`.
    pub const __GFP_KSWAPD_RECLAIM: u32 = 0x800;
    /// `__GFP_WRITE`.
    pub const __GFP_WRITE: u32 = 0x1000;
    /// `__GFP_NOWARN`.
    pub const __GFP_NOWARN: u32 = 0x2000;
    /// `__GFP_RETRY_MAYFAIL`.
    pub const __GFP_RETRY_MAYFAIL: u32 = 0x4000;
    /// `__GFP_NOFAIL`.
    pub const __GFP_NOFAIL: u32 = 0x8000;
    /// `__GFP_NORETRY`.
    pub const __GFP_NORETRY: u32 = 0x10000;
    /// `__GFP_MEMALLOC`.
    pub const __GFP_MEMALLOC: u32 = 0x20000;
    /// `__GFP_COMP`.
    pub const __GFP_COMP: u32 = 0x40000;
    /// `__GFP_NOMEMALLOC`.
    pub const __GFP_NOMEMALLOC: u32 = 0x80000;
    /// `__GFP_HARDWALL`.
    pub const __GFP_HARDWALL: u32 = 0x100000;
    /// `__GFP_THISNODE`.
    pub const __GFP_THISNODE: u32 = 0x200000;
    /// `__GFP_ACCOUNT`.
    pub const __GFP_ACCOUNT: u32 = 0x400000;
    /// `__GFP_ZEROTAGS`.
    pub const __GFP_ZEROTAGS: u32 = 0x800000;

    /// `__GFP_RECLAIM`.
    pub const __GFP_RECLAIM: u32 = __GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM;
    /// `GFP_ATOMIC`.
    pub const GFP_ATOMIC: u32 = __GFP_HIGH | __GFP_KSWAPD_RECLAIM;
    /// `GFP_KERNEL`.
    pub const GFP_KERNEL: u32 = __GFP_RECLAIM | __GFP_IO | __GFP_FS;
    /// `GFP_KERNEL_ACCOUNT`.
    pub const GFP_KERNEL_ACCOUNT: u32 = GFP_KERNEL | __GFP_ACCOUNT;
    /// `GFP_NOWAIT`.
    pub const GFP_NOWAIT: u32 = __GFP_KSWAPD_RECLAIM | __GFP_NOWARN;
    /// `GFP_NOIO`.
    pub const GFP_NOIO: u32 = __GFP_RECLAIM;
    /// `GFP_NOFS`.
    pub const GFP_NOFS: u32 = __GFP_RECLAIM | __GFP_IO;
    /// `GFP_USER`.
    pub const GFP_USER: u32 = __GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL;
    /// `GFP_DMA`.
    pub const GFP_DMA: u32 = __GFP_DMA;
    /// `GFP_DMA32`.
    pub const GFP_DMA32: u32 = __GFP_DMA32;
    /// `GFP_HIGHUSER`.
    pub const GFP_HIGHUSER: u32 = GFP_USER | __GFP_HIGHMEM;
    /// `GFP_HIGHUSER_MOVABLE`.
    pub const GFP_HIGHUSER_MOVABLE: u32 = GFP_HIGHUSER | __GFP_MOVABLE;
    /// `GFP_TRANSHUGE_LIGHT`.
    pub const GFP_TRANSHUGE_LIGHT: u32 =
        (GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & !__GFP_RECLAIM;
    /// `GFP_TRANSHUGE`.
    pub const GFP_TRANSHUGE: u32 = GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM;
    /// `GFP_RECLAIM_MASK`: the bits a nested allocation inherits.
    pub const GFP_RECLAIM_MASK: u32 = __GFP_RECLAIM
        | __GFP_HIGH
        | __GFP_IO
        | __GFP_FS
        | __GFP_NOWARN
        | __GFP_RETRY_MAYFAIL
        | __GFP_NOFAIL
        | __GFP_NORETRY
        | __GFP_MEMALLOC
        | __GFP_NOMEMALLOC;

    /// Composite names first, greedily, then single bits, as `show_gfp_flags()` (§9).
    pub const NAMES: &[(u32, &str)] = &[
        (GFP_TRANSHUGE, "GFP_TRANSHUGE"),
        (GFP_TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT"),
        (GFP_HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE"),
        (GFP_HIGHUSER, "GFP_HIGHUSER"),
        (GFP_USER, "GFP_USER"),
        (GFP_KERNEL_ACCOUNT, "GFP_KERNEL_ACCOUNT"),
        (GFP_KERNEL, "GFP_KERNEL"),
        (GFP_NOFS, "GFP_NOFS"),
        (GFP_ATOMIC, "GFP_ATOMIC"),
        (GFP_NOIO, "GFP_NOIO"),
        (GFP_NOWAIT, "GFP_NOWAIT"),
        (GFP_DMA, "GFP_DMA"),
        (GFP_DMA32, "GFP_DMA32"),
        (__GFP_RECLAIM, "__GFP_RECLAIM"),
        (__GFP_DMA, "__GFP_DMA"),
        (__GFP_HIGHMEM, "__GFP_HIGHMEM"),
        (__GFP_DMA32, "__GFP_DMA32"),
        (__GFP_MOVABLE, "__GFP_MOVABLE"),
        (__GFP_RECLAIMABLE, "__GFP_RECLAIMABLE"),
        (__GFP_HIGH, "__GFP_HIGH"),
        (__GFP_IO, "__GFP_IO"),
        (__GFP_FS, "__GFP_FS"),
        (__GFP_ZERO, "__GFP_ZERO"),
        (__GFP_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM"),
        (__GFP_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM"),
        (__GFP_WRITE, "__GFP_WRITE"),
        (__GFP_NOWARN, "__GFP_NOWARN"),
        (__GFP_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL"),
        (__GFP_NOFAIL, "__GFP_NOFAIL"),
        (__GFP_NORETRY, "__GFP_NORETRY"),
        (__GFP_MEMALLOC, "__GFP_MEMALLOC"),
        (__GFP_COMP, "__GFP_COMP"),
        (__GFP_NOMEMALLOC, "__GFP_NOMEMALLOC"),
        (__GFP_HARDWALL, "__GFP_HARDWALL"),
        (__GFP_THISNODE, "__GFP_THISNODE"),
        (__GFP_ACCOUNT, "__GFP_ACCOUNT"),
        (__GFP_ZEROTAGS, "__GFP_ZEROTAGS"),
    ];

    /// `show_gfp_flags()`: `none` for 0, else names joined by `|`, leftovers in hex.
    pub fn format(mut flags: u32) -> String {
        if flags == 0 {
            return "none".to_string();
        }
        let mut out: Vec<String> = Vec::new();
        for &(mask, name) in NAMES {
            if mask != 0 && flags & mask == mask {
                out.push(name.to_string());
                flags &= !mask;
            }
        }
        if flags != 0 {
            out.push(format!("{flags:#x}"));
        }
        out.join("|")
    }
}

/// `ALLOC_*` flags (`mm/internal.h`).
pub mod alloc_flags {
    pub const ALLOC_WMARK_MIN: u32 = 0x00;
    pub const ALLOC_WMARK_LOW: u32 = 0x01;
    pub const ALLOC_NO_WATERMARKS: u32 = 0x04;
    pub const ALLOC_WMARK_MASK: u32 = ALLOC_NO_WATERMARKS - 1;
    pub const ALLOC_OOM: u32 = 0x08;
    pub const ALLOC_NON_BLOCK: u32 = 0x10;
    pub const ALLOC_MIN_RESERVE: u32 = 0x20;
    pub const ALLOC_CPUSET: u32 = 0x40;
    pub const ALLOC_CMA: u32 = 0x80;
    pub const ALLOC_NOFRAGMENT: u32 = 0x100;
    pub const ALLOC_HIGHATOMIC: u32 = 0x200;
    pub const ALLOC_KSWAPD: u32 = 0x800;
    pub const ALLOC_RESERVES: u32 =
        ALLOC_NON_BLOCK | ALLOC_MIN_RESERVE | ALLOC_HIGHATOMIC | ALLOC_OOM;
}

/// `ilog2`: floor(log2 n), n ≥ 1.
pub fn ilog2(n: u64) -> u32 {
    63 - n.leading_zeros()
}

/// The chunk rule of boot freeing (§3.7) and `free_prepared_contig_range` (§5.3): the largest
/// naturally aligned block at `pfn` that fits in `remaining` pages, capped at `MAX_PAGE_ORDER`.
pub fn contig_chunk_order(pfn: Pfn, remaining: u64) -> u8 {
    let align = if pfn == 0 {
        MAX_PAGE_ORDER as u32
    } else {
        pfn.trailing_zeros()
    };
    align.min(ilog2(remaining)).min(MAX_PAGE_ORDER as u32) as u8
}

/// Splits `[pfn, pfn + n)` into the chunks of [`contig_chunk_order`], ascending.
pub fn contig_chunks(mut pfn: Pfn, mut n: u64) -> Vec<(Pfn, u8)> {
    let mut out = Vec::new();
    while n > 0 {
        let o = contig_chunk_order(pfn, n);
        out.push((pfn, o));
        pfn += 1 << o;
        n -= 1 << o;
    }
    out
}

/// `order_to_pindex(mt, order)` (§4.1): orders 0..=3 have three lists each; order 9 has two
/// (UNMOVABLE and RECLAIMABLE share one).
pub fn order_to_pindex(mt: MigrateType, order: u8) -> usize {
    if order as usize <= PAGE_ALLOC_COSTLY_ORDER as usize {
        MIGRATE_PCPTYPES * order as usize + mt.idx()
    } else {
        NR_LOWORDER_PCP_LISTS + usize::from(mt == MigrateType::Movable)
    }
}

/// `pindex_to_order`.
pub fn pindex_to_order(pindex: usize) -> u8 {
    if pindex < NR_LOWORDER_PCP_LISTS {
        (pindex / MIGRATE_PCPTYPES) as u8
    } else {
        HPAGE_PMD_ORDER
    }
}

/// The migratetype a pcp list is named after (order-9 list 12 serves U and R).
pub fn pindex_to_mt(pindex: usize) -> MigrateType {
    if pindex < NR_LOWORDER_PCP_LISTS {
        MigrateType::from_idx(pindex % MIGRATE_PCPTYPES)
    } else if pindex == NR_LOWORDER_PCP_LISTS {
        MigrateType::Unmovable
    } else {
        MigrateType::Movable
    }
}

/// The name of pcp list `pindex` in narration: the order-9 list 12 is shared by Unmovable and
/// Reclaimable THPs (`order_to_pindex`: `movable = migratetype == MIGRATE_MOVABLE`), so it is not
/// named after one of them.
pub fn pcp_list_name(pindex: usize) -> &'static str {
    if pindex == NR_LOWORDER_PCP_LISTS {
        "Unmovable+Reclaimable"
    } else {
        pindex_to_mt(pindex).kernel_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_from_uname_maps_releases_to_profiles() {
        assert_eq!(Kernel::from_uname("7.2.13+deb14-amd64"), Some(Kernel::V7_2));
        assert_eq!(Kernel::from_uname("6.18.2"), Some(Kernel::V6_18));
        assert_eq!(Kernel::from_uname("7.1.5-rc1"), Some(Kernel::V7_1));
        assert_eq!(
            Kernel::from_uname("6.12.117+deb13-amd64"),
            Some(Kernel::V6_12)
        );
        assert_eq!(Kernel::from_uname("7.3.4+deb13-amd64"), Some(Kernel::V7_3));
        assert_eq!(Kernel::from_uname("6.11.0"), None);
        assert_eq!(Kernel::from_uname("garbage"), None);
    }

    #[test]
    fn gfp_names_are_greedy_composites() {
        assert_eq!(gfp::format(gfp::GFP_KERNEL), "GFP_KERNEL");
        assert_eq!(
            gfp::format(gfp::GFP_HIGHUSER_MOVABLE),
            "GFP_HIGHUSER_MOVABLE"
        );
        assert_eq!(
            gfp::format(gfp::GFP_KERNEL | gfp::__GFP_RECLAIMABLE),
            "GFP_KERNEL|__GFP_RECLAIMABLE"
        );
        assert_eq!(gfp::format(0), "none");
        // §9: a 6.19+ large vmalloc attempt.
        let large =
            (gfp::GFP_KERNEL | gfp::__GFP_HIGHMEM | gfp::__GFP_NOWARN) & !gfp::__GFP_DIRECT_RECLAIM;
        assert_eq!(
            gfp::format(large),
            "GFP_NOWAIT|__GFP_HIGHMEM|__GFP_IO|__GFP_FS"
        );
    }

    #[test]
    fn chunk_examples_of_spec_5_4() {
        assert_eq!(contig_chunks(0, 512), vec![(0, 9)]);
        assert_eq!(contig_chunks(3, 13), vec![(3, 0), (4, 2), (8, 3)]);
        assert_eq!(
            contig_chunks(1000, 100),
            vec![(1000, 3), (1008, 4), (1024, 6), (1088, 3), (1096, 2)]
        );
        assert_eq!(
            contig_chunks(0, 3000),
            vec![
                (0, 10),
                (1024, 10),
                (2048, 9),
                (2560, 8),
                (2816, 7),
                (2944, 5),
                (2976, 4),
                (2992, 3)
            ]
        );
        assert_eq!(
            contig_chunks(5, 1030),
            vec![
                (5, 0),
                (6, 1),
                (8, 3),
                (16, 4),
                (32, 5),
                (64, 6),
                (128, 7),
                (256, 8),
                (512, 9),
                (1024, 3),
                (1032, 1),
                (1034, 0)
            ]
        );
    }

    #[test]
    fn isolate_number_depends_on_cma() {
        assert_eq!(MigrateType::Isolate.kernel_number(false), 4);
        assert_eq!(MigrateType::Isolate.kernel_number(true), 5);
    }
}
