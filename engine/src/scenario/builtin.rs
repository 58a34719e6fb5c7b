//! The built-in scenarios (`engine/scenarios/*.json`): the seed stories the UI offers.

/// One built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// File stem, used in URLs and `buddyscope builtin ID`.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
    /// Its JSON text.
    pub json: &'static str,
}

macro_rules! builtin {
    ($id:literal, $title:literal) => {
        Builtin {
            id: $id,
            title: $title,
            json: include_str!(concat!("../../scenarios/", $id, ".json")),
        }
    };
}

/// Every built-in scenario; the first is the default the app opens with.
pub const ALL: &[Builtin] = &[
    builtin!(
        "free-contig-range-thp",
        "free_contig_range: page by page vs chunked (split THP)"
    ),
    builtin!(
        "free-contig-range-unaligned",
        "free_contig_range of an unaligned range"
    ),
    builtin!(
        "cma-frozen-range",
        "__free_contig_frozen_range: CMA release of 16384 pages"
    ),
    builtin!(
        "vmalloc-large-order",
        "vmalloc: order-0 bulk vs large orders"
    ),
    builtin!(
        "fallback-claim",
        "Unmovable burst that claims movable pageblocks"
    ),
    builtin!(
        "fallback-steal",
        "Unmovable burst that can only steal (rmqueue_mode memory)"
    ),
    builtin!(
        "fallback-steal-no-mode-memory",
        "The same burst without rmqueue_mode memory"
    ),
    builtin!("pcp-overflow-2cpu", "pcp overflow and drain on 2 CPUs"),
    builtin!("fragmented-sandbox", "Fragmented sandbox (seeded workload)"),
    builtin!(
        "pcp-thp-rescued-by-drain",
        "A pcp-held THP rescued by reclaim's drain"
    ),
    builtin!(
        "free-contig-range-held-page",
        "free_contig_range with a page someone else holds"
    ),
    builtin!(
        "alloc-contig-range-migrates",
        "alloc_contig_range: isolate, migrate, take (and -EBUSY)"
    ),
    builtin!(
        "dma32-machine",
        "A DMA32 machine: zonelist fallback and lowmem_reserve"
    ),
    builtin!(
        "cma-alloc-release",
        "cma_alloc and cma_release: CMA release before/after"
    ),
    builtin!(
        "lts-vs-newest-vmalloc",
        "vmalloc and vfree: the 6.12 LTS against 7.3"
    ),
    builtin!(
        "compact-memory-fragmented",
        "compact_memory on a fragmented zone"
    ),
    builtin!(
        "thp-direct-compaction",
        "A THP rescued by direct compaction"
    ),
    builtin!(
        "compaction-unmovable-request",
        "Order-9 unmovable request: ASYNC compaction's source blocks, 6.12 vs 7.3"
    ),
    builtin!(
        "kcompactd-proactive",
        "kcompactd: proactive compaction, then a wakeup for an order"
    ),
];

/// The built-in scenario with this id.
pub fn get(id: &str) -> Option<&'static Builtin> {
    ALL.iter().find(|b| b.id == id)
}

/// The scenario the app loads first: the free_contig_range story.
pub fn default() -> &'static Builtin {
    &ALL[0]
}
