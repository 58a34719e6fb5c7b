//! Where an event is in the kernel: the modelled kernel functions ([`KernelFn`]) and the
//! [`Step`] ids that events carry, each one line of one function's pseudocode (the lines
//! themselves are [`crate::explain::lines`]).

use serde::{Deserialize, Serialize};

use super::packed::coded_enum;

/// The table of modelled kernel functions: each one's name and the file it is in. Declares
/// [`KernelFn`] (a [`coded_enum!`]: `ALL` in this order), its `name` and `source_file`.
macro_rules! kernel_fns {
    ($($f:ident => $file:literal),* $(,)?) => {
        coded_enum! {
            /// Kernel functions the model follows, by their names in the kernel.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
            #[allow(non_camel_case_types)]
            pub enum KernelFn {
                $( #[doc = concat!("`", stringify!($f), "` (", $file, ").")] $f ),*
            }
        }

        impl KernelFn {
            /// The function's name in the kernel.
            pub fn name(self) -> &'static str {
                match self { $(KernelFn::$f => stringify!($f)),* }
            }

            /// Source file of the function, for the elixir link.
            pub fn source_file(self) -> &'static str {
                match self { $(KernelFn::$f => $file),* }
            }
        }
    };
}

kernel_fns! {
    alloc_pages => "mm/page_alloc.c",
    get_page_from_freelist => "mm/page_alloc.c",
    __alloc_pages_slowpath => "mm/page_alloc.c",
    rmqueue => "mm/page_alloc.c",
    rmqueue_pcplist => "mm/page_alloc.c",
    nr_pcp_alloc => "mm/page_alloc.c",
    rmqueue_bulk => "mm/page_alloc.c",
    rmqueue_buddy => "mm/page_alloc.c",
    __rmqueue => "mm/page_alloc.c",
    __rmqueue_smallest => "mm/page_alloc.c",
    expand => "mm/page_alloc.c",
    __rmqueue_claim => "mm/page_alloc.c",
    find_suitable_fallback => "mm/page_alloc.c",
    try_to_claim_block => "mm/page_alloc.c",
    __rmqueue_steal => "mm/page_alloc.c",
    reserve_highatomic_pageblock => "mm/page_alloc.c",
    unreserve_highatomic_pageblock => "mm/page_alloc.c",
    __alloc_pages_direct_reclaim => "mm/page_alloc.c",
    zone_watermark_ok => "mm/page_alloc.c",
    __free_pages => "mm/page_alloc.c",
    __free_frozen_pages => "mm/page_alloc.c",
    free_pages_prepare => "mm/page_alloc.c",
    free_frozen_page_commit => "mm/page_alloc.c",
    free_pcppages_bulk => "mm/page_alloc.c",
    free_one_page => "mm/page_alloc.c",
    __free_one_page => "mm/page_alloc.c",
    split_page => "mm/page_alloc.c",
    drain_pages_zone => "mm/page_alloc.c",
    drain_all_pages => "mm/page_alloc.c",
    decay_pcp_high => "mm/page_alloc.c",
    free_contig_range => "mm/page_alloc.c",
    __free_contig_range_common => "mm/page_alloc.c",
    free_prepared_contig_range => "mm/page_alloc.c",
    alloc_contig_range => "mm/page_alloc.c",
    vmalloc => "mm/vmalloc.c",
    vm_area_alloc_pages => "mm/vmalloc.c",
    alloc_pages_bulk => "mm/page_alloc.c",
    vfree => "mm/vmalloc.c",
    memblock_free_all => "mm/memblock.c",
    get_page => "include/linux/mm.h",
    put_page => "include/linux/mm.h",
    split_large_buddy => "mm/page_alloc.c",
    start_isolate_page_range => "mm/page_isolation.c",
    isolate_single_pageblock => "mm/page_isolation.c",
    set_migratetype_isolate => "mm/page_isolation.c",
    unset_migratetype_isolate => "mm/page_isolation.c",
    undo_isolate_page_range => "mm/page_isolation.c",
    __alloc_contig_migrate_range => "mm/page_alloc.c",
    migrate_pages => "mm/migrate.c",
    __free_contig_frozen_range => "mm/page_alloc.c",
    cma_alloc => "mm/cma.c",
    cma_release => "mm/cma.c",
    compact_node => "mm/compaction.c",
    compact_zone => "mm/compaction.c",
    isolate_migratepages => "mm/compaction.c",
    isolate_freepages => "mm/compaction.c",
    release_free_list => "mm/compaction.c",
    __alloc_pages_direct_compact => "mm/page_alloc.c",
    try_to_compact_pages => "mm/compaction.c",
    kcompactd => "mm/compaction.c",
    kcompactd_do_work => "mm/compaction.c",
    fast_isolate_freepages => "mm/compaction.c",
    wakeup_kcompactd => "mm/compaction.c",
}

impl KernelFn {
    /// The identifier to look up on elixir (some names are macros over `_noprof` functions).
    pub fn elixir_ident(self) -> &'static str {
        match self {
            KernelFn::alloc_pages => "__alloc_frozen_pages_noprof",
            KernelFn::alloc_pages_bulk => "alloc_pages_bulk_noprof",
            KernelFn::__free_contig_range_common => "free_contig_range",
            KernelFn::free_prepared_contig_range => "free_contig_range",
            KernelFn::vmalloc => "__vmalloc_node_range_noprof",
            KernelFn::zone_watermark_ok => "__zone_watermark_ok",
            KernelFn::drain_pages_zone => "drain_pages_zone",
            KernelFn::free_pages_prepare => "__free_pages_prepare",
            f => f.name(),
        }
    }

    /// `https://elixir.bootlin.com/linux/<tag>/A/ident/<name>`.
    pub fn elixir_url(self, kernel: crate::mm::types::Kernel) -> String {
        format!(
            "https://elixir.bootlin.com/linux/{}/A/ident/{}",
            kernel.elixir_tag(),
            self.elixir_ident()
        )
    }
}

macro_rules! steps {
    ($($name:ident => $func:ident : $line:expr),* $(,)?) => {
        /// A stable id of a pseudocode line (see [`Step::func`] and [`Step::line`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[repr(u16)]
        pub enum Step {
            $( #[doc = concat!("In `", stringify!($func), "`: pseudocode line ", stringify!($line), " (from 0).")] $name ),*
        }

        impl Step {
            /// Every step, for tests and tooling.
            pub const ALL: &'static [Step] = &[$(Step::$name),*];
            /// The kernel function this step is in.
            pub fn func(self) -> KernelFn {
                match self { $(Step::$name => KernelFn::$func),* }
            }
            /// Index into [`lines`](crate::explain::lines)`(self.func())`.
            pub fn line(self) -> usize {
                match self { $(Step::$name => $line),* }
            }
            /// The step's name (`Step::ExpandAddUpper` is `"ExpandAddUpper"`).
            pub fn name(self) -> &'static str {
                match self { $(Step::$name => stringify!($name)),* }
            }
        }
    };
}

steps! {
    // Call bookkeeping (the function comes from the event itself).
    Enter => alloc_pages: 0,
    Exit => alloc_pages: 0,
    // engine-level messages of scenario ops
    OpNote => alloc_pages: 0,
    OpWarning => alloc_pages: 0,
    OpFailure => alloc_pages: 6,
    // a replayed trace and the model disagree (crate::run::replay)
    ReplayDivergence => alloc_pages: 0,

    PrepNewPage => alloc_pages: 4,
    TraceMmPageAlloc => alloc_pages: 5,

    GpffHighGate => get_page_from_freelist: 1,
    GpffSetBelowHigh => get_page_from_freelist: 2,
    GpffWatermark => get_page_from_freelist: 3,
    GpffRetryNoFragment => get_page_from_freelist: 6,

    SlowpathDirectReclaim => __alloc_pages_slowpath: 4,
    SlowpathFail => __alloc_pages_slowpath: 5,

    DirectReclaimNotModelled => __alloc_pages_direct_reclaim: 0,
    DirectReclaimDrain => __alloc_pages_direct_reclaim: 4,

    UnreserveHighatomicLock => unreserve_highatomic_pageblock: 1,
    UnreserveHighatomicMove => unreserve_highatomic_pageblock: 3,
    UnreserveHighatomicRange => unreserve_highatomic_pageblock: 4,

    RmqueueBoostReset => rmqueue: 3,

    PcplistLock => rmqueue_pcplist: 0,
    PcplistHalveFreeCount => rmqueue_pcplist: 1,
    PcplistRefilled => rmqueue_pcplist: 5,
    PcplistTakeFront => rmqueue_pcplist: 7,

    NrPcpAllocClamp => nr_pcp_alloc: 0,
    NrPcpAllocGrowHigh => nr_pcp_alloc: 2,
    NrPcpAllocFactor => nr_pcp_alloc: 3,

    BulkLock => rmqueue_bulk: 0,
    BulkAddTail => rmqueue_bulk: 3,

    BuddyLock => rmqueue_buddy: 0,

    RmqueueModeSteal => __rmqueue: 5,

    SmallestTake => __rmqueue_smallest: 2,
    TraceZoneLocked => __rmqueue_smallest: 4,

    ExpandAddUpper => expand: 3,
    ExpandAccount => expand: 5,

    ClaimProbe => __rmqueue_claim: 2,
    TraceExtfrag => __rmqueue_claim: 6,

    ClaimWholeDel => try_to_claim_block: 1,
    ClaimWholeRetype => try_to_claim_block: 2,
    BoostWatermark => try_to_claim_block: 4,
    ClaimMoveFree => try_to_claim_block: 7,
    ClaimPartialRetype => try_to_claim_block: 8,
    ClaimRefused => try_to_claim_block: 10,

    StealProbe => __rmqueue_steal: 1,
    StealTake => __rmqueue_steal: 3,
    StealTraceExtfrag => __rmqueue_steal: 3,

    HighatomicReserveLock => reserve_highatomic_pageblock: 1,
    HighatomicReserve => reserve_highatomic_pageblock: 2,
    HighatomicReserveRange => reserve_highatomic_pageblock: 3,

    PutPage => __free_pages: 0,
    TraceMmPageFree => free_pages_prepare: 0,

    FreeFrozenPcpLock => __free_frozen_pages: 5,

    FreeOnePageLock => free_one_page: 0,

    FreeOneAccount => __free_one_page: 0,
    FreeOneDelBuddy => __free_one_page: 5,
    FreeOneRetypeBuddy => __free_one_page: 6,
    FreeOneMerge => __free_one_page: 7,
    FreeOneAddTail => __free_one_page: 9,
    FreeOneAddHead => __free_one_page: 10,

    CommitAllocFactor => free_frozen_page_commit: 0,
    CommitAddHead => free_frozen_page_commit: 1,
    CommitFreeHigh => free_frozen_page_commit: 2,
    CommitFreeCount => free_frozen_page_commit: 3,
    NrPcpHigh => free_frozen_page_commit: 4,
    CommitDrain => free_frozen_page_commit: 6,
    CommitClearBelowHigh => free_frozen_page_commit: 7,

    BulkFreeLock => free_pcppages_bulk: 1,
    BulkFreeTakeTail => free_pcppages_bulk: 4,
    TracePcpuDrain => free_pcppages_bulk: 6,

    DecayHigh => decay_pcp_high: 0,
    DecayLock => decay_pcp_high: 3,
    DecayBulk => decay_pcp_high: 3,

    DrainLock => drain_pages_zone: 0,
    DrainBulk => drain_pages_zone: 1,

    SplitPage => split_page: 0,

    ContigRunBreak => __free_contig_range_common: 2,
    ContigChunk => free_prepared_contig_range: 1,

    AllocContigFail => alloc_contig_range: 7,
    AllocContigTake => alloc_contig_range: 4,
    AllocContigGiveBack => alloc_contig_range: 6,
    AllocContigAlloc => alloc_contig_range: 5,

    BulkGate => alloc_pages_bulk: 1,
    BulkPcpLock => alloc_pages_bulk: 2,
    BulkPrep => alloc_pages_bulk: 3,

    VmallocArray => vmalloc: 0,
    VmallocAttempt => vm_area_alloc_pages: 2,

    VfreeRun => vfree: 2,

    BootChunk => memblock_free_all: 1,

    GetPage => get_page: 0,
    PutPageDrop => put_page: 1,
    PutPageLast => put_page: 0,
    FreePagesStillHeld => __free_pages: 1,
    ContigPutRef => __free_contig_range_common: 1,
    IsolateLock => set_migratetype_isolate: 0,
    IsolateUnmovable => set_migratetype_isolate: 2,
    IsolateSplitLarge => set_migratetype_isolate: 4,
    IsolateMoveFree => set_migratetype_isolate: 5,
    UnisolateLock => unset_migratetype_isolate: 0,
    UnisolateMerge => unset_migratetype_isolate: 1,
    UnisolateMoveFree => unset_migratetype_isolate: 3,
    IsolateStraddle => isolate_single_pageblock: 3,
    MigrateNoMem => migrate_pages: 1,
    MigrateMove => migrate_pages: 2,
    // A node of several zones (page_alloc/zones.rs).
    ZonelistNext => get_page_from_freelist: 8,
    PageZone => __free_pages: 2,
    DrainEveryZone => drain_all_pages: 1,
    // cma_alloc / cma_release (cma.rs).
    CmaNoRange => cma_alloc: 2,
    CmaBitmapSet => cma_alloc: 3,
    CmaBusyRetry => cma_alloc: 5,
    CmaBitmapClear => cma_release: 3,
    CmaAllocFail => cma_alloc: 7,
    CmaReleasePut => cma_release: 1,
    BulkZonelistNext => alloc_pages_bulk: 5,
    // compact_memory (page_alloc/compaction.rs).
    CompactNodeZone => compact_node: 0,
    CompactBegin => compact_zone: 1,
    CompactMigrated => compact_zone: 4,
    CompactEnd => compact_zone: 6,
    IsolateMigrateBlock => isolate_migratepages: 4,
    IsolateMigrateSkip => isolate_migratepages: 3,
    IsolateFreeLock => isolate_freepages: 2,
    IsolateFreeTake => isolate_freepages: 3,
    IsolateFreeMoveBlock => isolate_freepages: 4,
    IsolateFreeSkip => isolate_freepages: 5,
    IsolateFreeTrace => isolate_freepages: 6,
    CompactionAllocTarget => migrate_pages: 3,
    ReleaseFreeList => release_free_list: 0,
    // compact (page_alloc/compaction.rs): one zone of try_to_compact_pages.
    CompactFinished => compact_zone: 2,
    CompactionDeferred => compact_zone: 7,
    CompactSuitable => compact_zone: 8,
    CompactDeferReset => compact_zone: 9,
    DeferCompaction => compact_zone: 10,
    ResetIsolationSuitable => compact_zone: 11,
    // Direct compaction in the slow path (page_alloc/compaction.rs, alloc.rs).
    TryToCompactPages => try_to_compact_pages: 0,
    TryToCompactZone => try_to_compact_pages: 1,
    DirectCompactStall => __alloc_pages_direct_compact: 1,
    DirectCompactCaptured => __alloc_pages_direct_compact: 2,
    DirectCompactSuccess => __alloc_pages_direct_compact: 3,
    DirectCompactFail => __alloc_pages_direct_compact: 4,
    FreeOneCapture => __free_one_page: 11,
    // kcompactd (page_alloc/compaction.rs).
    KcompactdSleep => kcompactd: 0,
    KcompactdProactive => kcompactd: 2,
    KcompactdWake => kcompactd_do_work: 0,
    KcompactdZone => kcompactd_do_work: 1,
    KcompactdScanned => kcompactd_do_work: 4,
    // fast_isolate_freepages (page_alloc/compaction.rs).
    FastIsolateReorder => fast_isolate_freepages: 1,
    FastIsolateTake => fast_isolate_freepages: 2,
    FastIsolateTrace => fast_isolate_freepages: 3,
    FastIsolateMiss => fast_isolate_freepages: 4,
    FastIsolateAround => fast_isolate_freepages: 5,
    FastFindMigrateReorder => isolate_migratepages: 7,
    // kswapd's wakeup of kcompactd (page_alloc/compaction.rs).
    WakeupKcompactdSuitable => wakeup_kcompactd: 2,
    WakeupKcompactdTrace => wakeup_kcompactd: 3,
    // The compaction scanners' restart points (page_alloc/compaction.rs).
    CompactCachedStart => compact_zone: 15,
    ResetCachedPositions => compact_zone: 16,
    UpdateCachedMigrate => isolate_migratepages: 8,
    UpdateCachedFree => isolate_freepages: 7,
    // The slow path's retry loop (page_alloc/alloc.rs).
    ShouldReclaimRetry => __alloc_pages_slowpath: 7,
    ShouldCompactRetry => __alloc_pages_slowpath: 8,
}
