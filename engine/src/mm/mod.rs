//! The allocator model, the bottom layer: the kernel's vocabulary ([`MigrateType`], [`Kernel`]
//! profiles, gfp flags), the [`Node`] of [`Zone`]s and the [`Event`]s that change and explain it,
//! and the [`Engine`] that follows the kernel's functions (`mm/page_alloc.c`, `mm/compaction.c`,
//! `mm/page_isolation.c`, `mm/vmalloc.c`, `mm/cma.c`, the boot path) event by event.
//!
//! It imports from no other layer.

mod boot;
mod cma;
mod contig;
mod events;
mod locks;
mod metrics;
mod node;
mod packed;
mod page_alloc;
mod stats;
mod steps;
mod trace;
mod types;
mod vmalloc;
mod zone;

pub use boot::{boot_engine, boot_node, mobility_disabled, ZoneParams};
pub(crate) use boot::{new_zone, node_zones};
#[cfg(test)]
pub(crate) use boot::{watermarks_for, zone_batchsize};
pub(crate) use cma::ENOMEM;
pub use cma::{CmaAllocOutcome, CmaArea, EBUSY};
pub(crate) use events::NIL;
pub use events::{
    Annotation, CompactDefer, CompactFeedback, CompactResult, CounterId, DeferPoint, End, Event,
    EventKind, KcompactdWakePoint, MsgLevel, Mutation, ReclaimRetryCheck, Tracepoint,
};
pub use locks::{HoldHistogram, LockHolds, HOLD_BUCKETS};
pub use metrics::{
    check_invariants, fragmentation_index, fragmentation_index_of, metrics, mixed_pageblocks,
    unusable_free_index_of, Metrics,
};
pub use node::{Node, Zones, ZonesIter};
pub(crate) use page_alloc::compaction::{
    fast_find_migrateblock_runs, fast_find_migrateblock_window, FastSearch,
};
pub use page_alloc::compaction::{
    fragmentation_score_node, fragmentation_score_wmark, fragmentation_score_zone, CompactOutcome,
    CompactPriority, KcompactdOutcome, COMPACTION_PROACTIVENESS,
};
pub use page_alloc::isolation::{ContigError, ContigOutcome, IsolateMode, Migration};
pub use page_alloc::zones::gfp_zone;
pub use page_alloc::Engine;
pub(crate) use page_alloc::{pcp_allowed_order, FPI_NONE};
pub use stats::{StatDef, Stats};
pub use steps::{KernelFn, Step};
pub use trace::{EventLog, Trace, TraceIter};
pub(crate) use types::{
    contig_chunks, pcp_list_name, to_abs_pfn, ZonePfn, MAX_NODE_PAGES, MAX_PAGE_ORDER,
    MAX_ZONE_PAGES, MIGRATE_PCPTYPES, MIN_ZONE_PAGES, MT_SLOTS, NR_LOWORDER_PCP_LISTS,
    PAGEBLOCK_ORDER,
};
pub use types::{
    fallbacks, gfp, order_to_pindex, pindex_to_mt, pindex_to_order, FreeMethod, Kernel,
    MigrateType, Pfn, VmallocStrategy, MAX_CPUS, NR_PAGE_ORDERS, NR_PCP_LISTS, PAGEBLOCK_NR_PAGES,
};
pub use vmalloc::{VmArea, VMALLOC_GFP};
pub(crate) use zone::{
    filler_owner, PB_ISOLATE, PB_SKIP, PF_LRU, WMARK_HIGH, WMARK_LOW, WMARK_MIN, WMARK_PROMO,
};
pub use zone::{
    filler_owner_mt, List, ListId, ListIter, PageKind, PerCpuPages, Zone, ZoneConfig, ZoneType,
    MAX_NR_ZONES, NO_OWNER,
};
