//! The built-in scenarios (`engine/scenarios/*.json`): the seed stories the UI offers.

/// One built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// File stem, used in URLs and `buddyscope builtin ID`.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
}

impl Builtin {
    /// Its JSON text (`engine/scenarios/<id>.json`). In the browser build only the default
    /// scenario's text is compiled in; the others come from the data file the app installs
    /// after the first paint ([`crate::scenario::texts`]), before anything can name them.
    pub fn json(&self) -> &'static str {
        if self.id == DEFAULT_ID {
            return DEFAULT_JSON;
        }
        #[cfg(target_arch = "wasm32")]
        return crate::scenario::texts::scenario(self.id);
        #[cfg(not(target_arch = "wasm32"))]
        compiled_in(self.id)
    }
}

/// The scenario the app opens with: its first frame reads this text before anything is fetched.
const DEFAULT_ID: &str = "free-contig-range-thp";
const DEFAULT_JSON: &str = include_str!("../../scenarios/free-contig-range-thp.json");

macro_rules! builtins {
    ($(($id:literal, $title:literal),)*) => {
        /// Every built-in scenario; the first is the default the app opens with.
        pub const ALL: &[Builtin] = &[$(Builtin { id: $id, title: $title }),*];

        /// The texts of the built-ins, compiled into the CLI and the native tests.
        #[cfg(not(target_arch = "wasm32"))]
        fn compiled_in(id: &str) -> &'static str {
            match id {
                $($id => include_str!(concat!("../../scenarios/", $id, ".json")),)*
                _ => unreachable!("{id} is not in ALL"),
            }
        }
    };
}

builtins! {
    ("free-contig-range-thp", "free_contig_range: page by page vs chunked (split THP)"),
    ("free-contig-range-unaligned", "free_contig_range of an unaligned range"),
    ("cma-frozen-range", "__free_contig_frozen_range: CMA release of 16384 pages"),
    ("vmalloc-large-order", "vmalloc: order-0 bulk vs large orders"),
    ("fallback-claim", "Unmovable burst that claims movable pageblocks"),
    ("fallback-steal", "Unmovable burst that can only steal (rmqueue_mode memory)"),
    ("fallback-steal-no-mode-memory", "The same burst without rmqueue_mode memory"),
    ("pcp-overflow-2cpu", "pcp overflow and drain on 2 CPUs"),
    ("fragmented-sandbox", "Fragmented sandbox (seeded workload)"),
    ("pcp-thp-rescued-by-drain", "A pcp-held THP rescued by reclaim's drain"),
    ("free-contig-range-held-page", "free_contig_range with a page someone else holds"),
    ("alloc-contig-range-migrates", "alloc_contig_range: isolate, migrate, take (and -EBUSY)"),
    ("dma32-machine", "A DMA32 machine: zonelist fallback and lowmem_reserve"),
    ("cma-alloc-release", "cma_alloc and cma_release: CMA release before/after"),
    ("lts-vs-newest-vmalloc", "vmalloc and vfree: the 6.12 LTS against 7.3"),
    ("compact-memory-fragmented", "compact_memory on a fragmented zone"),
    ("thp-direct-compaction", "A THP rescued by direct compaction"),
    ("compaction-unmovable-request", "Order-9 unmovable request: ASYNC compaction's source blocks, 6.12 vs 7.3"),
    ("kcompactd-proactive", "kcompactd: proactive compaction, then a wakeup for an order"),
}

/// The built-in scenario with this id.
pub fn get(id: &str) -> Option<&'static Builtin> {
    ALL.iter().find(|b| b.id == id)
}

/// The scenario the app loads first: the free_contig_range story.
pub fn default() -> &'static Builtin {
    &ALL[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text compiled in for the first frame is the default's own file.
    #[test]
    fn the_default_text_is_the_first_builtins() {
        assert_eq!(default().id, DEFAULT_ID);
        assert_eq!(default().json(), compiled_in(DEFAULT_ID));
    }
}
