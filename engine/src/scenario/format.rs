//! Scenario format v1 (`design/scenario-format.md`): the types of a scenario document.
//!
//! They derive `Serialize` (writing is here: [`Scenario::to_json_pretty`], and a scenario kept
//! in other state is kept as this JSON); reading has one place, the reader of `read.rs`
//! ([`super::valid::parse`]), which gives every error its JSON path.

use std::fmt;

use serde::{Serialize, Serializer};

use super::bounds::{check_zone_pages_up_to, DEFAULT_ZONE_PAGES, SCENARIO_VERSION};
use super::error::ScenarioError;
use super::node_snapshot::NodeSnapshot;
use super::zone_snapshot::Snapshot;
use crate::mm::{
    FreeMethod, Kernel, MigrateType, VmallocStrategy, MAX_ZONE_PAGES, NR_PAGE_ORDERS,
    PAGEBLOCK_NR_PAGES,
};

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/// A whole scenario document (contract § Document).
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Always [`SCENARIO_VERSION`] once validated.
    pub version: u32,
    /// Title; the contract's table does not require it, so an absent name is `""`.
    pub name: String,
    /// What the scenario shows (plain text).
    pub description: Option<String>,
    /// The kernel profile (default: the newest).
    pub kernel: Kernel,
    /// The zone, when the node has one.
    pub zone: ZoneSpec,
    /// A node of several zones, in pfn order (e.g. `DMA32` then `Normal`), instead of `zone`.
    /// Empty: the one zone of `zone`.
    pub zones: Vec<ZoneSpec>,
    /// How the zone starts.
    pub init: Init,
    /// No ops is a valid scenario: it shows the state `init` builds.
    pub ops: Vec<Op>,
    /// The before/after pair compare mode runs, and the thread's measurement.
    pub compare: Option<ScenarioCompare>,
    /// Stops for presenting the run: positions and captions, see [`TourStop`].
    pub tour: Vec<TourStop>,
}

/// One stop of a tour (`tour[i]` in the document).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TourStop {
    /// After this many executed ops (0: before the first).
    pub op: u32,
    /// Events of op `op + 1` applied further (absent: 0, the op boundary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u32>,
    /// What to say at this stop.
    pub caption: String,
}

impl TourStop {
    /// The position key stops are ordered by.
    pub(super) fn key(&self) -> (u32, u32) {
        (self.op, self.event.unwrap_or(0))
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            version: SCENARIO_VERSION,
            name: String::new(),
            description: None,
            kernel: Kernel::default(),
            zone: ZoneSpec::default(),
            zones: Vec::new(),
            init: Init::Boot,
            ops: Vec::new(),
            compare: None,
            tour: Vec::new(),
        }
    }
}

/// `zone`: the one simulated zone.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZoneSpec {
    /// Printed in the `/proc` outputs only.
    pub name: String,
    /// `None`: [`DEFAULT_ZONE_PAGES`] with `init: "boot"`, the `/proc` text's size otherwise
    /// (see [`Scenario::resolve_proc_zone_pages`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    /// Its first pfn (absolute), a multiple of [`ZONE_START_ALIGN`].
    pub start_pfn: u64,
    /// CPUs, each with its pcp lists.
    pub cpus: u32,
    /// The kernel has `CONFIG_CMA` (pageblock type numbers and the `/proc` columns follow it).
    pub cma: bool,
    /// Overrides of the pcp parameters.
    #[serde(skip_serializing_if = "PcpOverride::is_empty")]
    pub pcp: PcpOverride,
    /// The final `min_free_kbytes` (replaces the computed one, THP bump included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_free_kbytes: Option<u64>,
    /// `rmqueue_mode` remembers the fallback mode across a refill (7.1+).
    pub rmqueue_mode_memory: bool,
    /// `vm.compaction_proactiveness` (0..=100, default 20): kcompactd's proactive compaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_proactiveness: Option<u32>,
    /// `MIGRATE_CMA` pageblocks reserved at boot (`cma_declare_contiguous` then
    /// `init_cma_reserved_pageblock`); needs `cma`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cma_pageblocks: Option<CmaPageblocks>,
}

/// `zone.cma_pageblocks`: the CMA area, whole pageblocks of the zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CmaPageblocks {
    /// The first pfn (absolute), a multiple of `pageblock_nr_pages` (512).
    pub start_pfn: u64,
    /// The number of pages, a positive multiple of 512.
    pub nr_pages: u64,
}

impl Default for ZoneSpec {
    fn default() -> Self {
        ZoneSpec {
            name: "Normal".to_string(),
            pages: None,
            start_pfn: 0,
            cpus: 1,
            cma: false,
            pcp: PcpOverride::default(),
            min_free_kbytes: None,
            rmqueue_mode_memory: true,
            compaction_proactiveness: None,
            cma_pageblocks: None,
        }
    }
}

/// `zone.pcp`: overrides for every CPU's pcp parameters. `i32` because the kernel's are `int`.
/// `high_min > high_max` is allowed: the kernel's `clamp` lets `high_max` win (kernel-model §0.1),
/// so the runner must not use `Ord::clamp` (it panics on that).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PcpOverride {
    /// `pcp->batch`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<i32>,
    /// `pcp->high_min`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_min: Option<i32>,
    /// `pcp->high_max`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_max: Option<i32>,
}

impl PcpOverride {
    /// Nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self.batch.is_none() && self.high_min.is_none() && self.high_max.is_none()
    }
}

/// `init`: how the zone starts. JSON: the string `"boot"` or an object.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Init {
    /// All pages freed as at boot (kernel-model §3.7).
    #[default]
    Boot,
    /// Start from a real machine's `/proc` files. The text is parsed elsewhere (procfs); this
    /// module only checks the shape.
    Proc {
        /// The `/proc/pagetypeinfo` text.
        pagetypeinfo: String,
        /// The `/proc/zoneinfo` text, if given.
        zoneinfo: Option<String>,
        /// The zone to read, in the first node that has it; default `"Normal"`.
        zone: String,
    },
    /// Start from an exact snapshot (free blocks at their pfns, pageblock types, pcp lists),
    /// e.g. written by `tools/drgn/snapshot.py`; see [`crate::scenario::zone_snapshot`].
    Snapshot(Box<Snapshot>),
    /// Start from a node snapshot (version 2: every zone of a node); see
    /// [`crate::scenario::node_snapshot`]. The zones and pfns come from it, as with `init.zone` `"all"`.
    NodeSnapshot(Box<NodeSnapshot>),
}

/// How the binding kinds of `as` are named in messages and accepted by `ref`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BindKind {
    /// `alloc`.
    Alloc,
    /// `alloc_contig_range`.
    AllocContigRange,
    /// `vmalloc`.
    Vmalloc,
    /// `cma_alloc`.
    CmaAlloc,
}

impl BindKind {
    /// The op that binds this kind.
    pub fn op_name(self) -> &'static str {
        match self {
            BindKind::Alloc => "alloc",
            BindKind::AllocContigRange => "alloc_contig_range",
            BindKind::Vmalloc => "vmalloc",
            BindKind::CmaAlloc => "cma_alloc",
        }
    }

    pub(super) fn with_article(self) -> &'static str {
        match self {
            BindKind::Alloc => "an alloc",
            BindKind::AllocContigRange => "an alloc_contig_range",
            BindKind::Vmalloc => "a vmalloc",
            BindKind::CmaAlloc => "a cma_alloc",
        }
    }
}

impl fmt::Display for BindKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_name())
    }
}

/// `drain`'s `cpu`: one CPU or every CPU whose pcp `count` ≠ 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrainTarget {
    /// One CPU.
    Cpu(u32),
    /// Every CPU.
    All,
}

impl Default for DrainTarget {
    fn default() -> Self {
        DrainTarget::Cpu(0)
    }
}

/// `workload.mt_weights`: relative frequencies of the three requestable migratetypes; an absent
/// key weighs 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MtWeights {
    /// The weight of `unmovable`.
    pub unmovable: f64,
    /// The weight of `movable`.
    pub movable: f64,
    /// The weight of `reclaimable`.
    pub reclaimable: f64,
}

impl MtWeights {
    /// The weight of `mt`; 0 for the types a request cannot name.
    pub fn get(&self, mt: MigrateType) -> f64 {
        match mt {
            MigrateType::Unmovable => self.unmovable,
            MigrateType::Movable => self.movable,
            MigrateType::Reclaimable => self.reclaimable,
            _ => 0.0,
        }
    }
}

/// One operation (contract § Operations), tagged by `"op"`. Every op but `drain` has an optional
/// `cpu` (the CPU it runs on, default 0; `drain`'s `cpu` is its target) and every op an optional
/// `note`. JSON `as` / `ref` are Rust keywords, hence `as_name` / `ref_name`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// `alloc_pages(gfp, order)`: one block, bound to `as`.
    Alloc {
        /// The order.
        order: u8,
        /// The migratetype asked for (default `unmovable`).
        mt: MigrateType,
        /// `__GFP_HIGH` with `ALLOC_HIGHATOMIC`: may take and reserve a highatomic pageblock.
        #[serde(skip_serializing_if = "is_false")]
        highatomic: bool,
        /// `as`: the name a later `ref` gives to act on it.
        #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The highest zone the request may use (`GFP_DMA32` for `"DMA32"`, `GFP_DMA` for
        /// `"DMA"`); a zone of the scenario. `None`: the mt's gfp (Normal, Movable for movable).
        #[serde(skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
    /// `free` of an allocation (`__free_pages`, page by page for a split or contiguous one).
    Free {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// Index of one page in the allocation; an index beyond it is a run-time warning.
        #[serde(skip_serializing_if = "Option::is_none")]
        page: Option<u64>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `split_page` of an allocation: every page gets its own refcount.
    Split {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `alloc_contig_range(pfn, pfn + nr_pages)`, bound to `as`.
    AllocContigRange {
        /// First pfn (absolute).
        pfn: u64,
        /// Pages in the range.
        nr_pages: u64,
        /// `as`: the name a later `ref` gives to act on it.
        #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Either `ref_name`, or `pfn` and `nr_pages` (checked by [`validate`]).
    FreeContigRange {
        /// The `alloc_contig_range` to free.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        ref_name: Option<String>,
        /// First pfn (absolute) of a range to free.
        #[serde(skip_serializing_if = "Option::is_none")]
        pfn: Option<u64>,
        /// Pages in it.
        #[serde(skip_serializing_if = "Option::is_none")]
        nr_pages: Option<u64>,
        /// `None`: the profile's ([`Scenario::free_contig_range_method`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<FreeMethod>,
        /// The call is `__free_contig_frozen_range` (pages whose refcount is already 0); the model
        /// frees them the same way.
        #[serde(skip_serializing_if = "is_false")]
        frozen: bool,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `vmalloc(pages * PAGE_SIZE)`, bound to `as`.
    Vmalloc {
        /// Pages to map.
        pages: u64,
        /// `None`: the profile's ([`Scenario::vmalloc_strategy`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        strategy: Option<VmallocStrategy>,
        /// `as`: the name a later `ref` gives to act on it.
        #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `vfree` of a `vmalloc`.
    Vfree {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// `None`: the profile's ([`Scenario::vfree_method`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<FreeMethod>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `drain_all_pages` (or one CPU's `drain_local_pages`).
    Drain {
        /// The CPU whose pcp lists to drain, or `"all"`.
        cpu: DrainTarget,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// One vmstat interval (`stat_interval`, 1 s): `refresh_cpu_vm_stats` runs
    /// `decay_pcp_high` on each target CPU's pcp (default every CPU, in CPU order), so pages freed
    /// one by one do not stay on the pcp lists forever.
    Tick {
        /// The CPUs whose `pcp->high` decays (default every CPU).
        cpu: DrainTarget,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `echo 1 > /proc/sys/vm/compact_memory`: `compact_node` of the node, every zone compacted
    /// whole (`compact_zone` with order -1, `MIGRATE_SYNC`); `cpu` is the writer's CPU.
    CompactMemory {
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Direct compaction of one zone at one order, as `try_to_compact_pages` does it for each
    /// zone: `compaction_deferred` (for a priority above `COMPACT_PRIO_SYNC_FULL`), then
    /// `compact_zone_order`, then `compaction_defer_reset` or `defer_compaction`. `zone` names a
    /// zone of the node (default: the highest populated one); `priority` is
    /// `COMPACT_PRIO_SYNC_FULL` (0) or `COMPACT_PRIO_SYNC_LIGHT` (1).
    Compact {
        /// The order compacted for.
        order: u8,
        /// The zone to compact (default: the highest populated one).
        #[serde(skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
        /// `COMPACT_PRIO_SYNC_FULL` (0, default) or `COMPACT_PRIO_SYNC_LIGHT` (1).
        #[serde(skip_serializing_if = "Option::is_none")]
        priority: Option<u8>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// One wakeup of kcompactd: for `order` (`wakeup_kcompactd` from kswapd: `kcompactd_do_work`),
    /// or without one (the timeout: proactive compaction against the fragmentation score).
    Kcompactd {
        /// The order `wakeup_kcompactd` asked for (1..=10); absent: the timeout wakeup.
        #[serde(skip_serializing_if = "Option::is_none")]
        order: Option<u8>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Each iteration runs `ops` in a new name scope. `cpu` is accepted but not inherited.
    Repeat {
        /// Iterations.
        times: u64,
        /// The ops each iteration runs.
        ops: Vec<Op>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Random alloc/free mix; its op stream is implementation-defined.
    Workload {
        /// Seed of the step stream.
        seed: u64,
        /// Steps (an allocation or a free each).
        steps: u64,
        /// Relative frequencies of each order in an allocation.
        order_weights: [f64; NR_PAGE_ORDERS],
        /// Relative frequencies of the migratetypes.
        mt_weights: MtWeights,
        /// Chance that a step frees a live allocation instead of allocating.
        free_probability: f64,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `get_page` on page `page` of an allocation: a third party (compaction's pfn scanner, a
    /// GUP pin) takes an extra reference. Only on a page with its own refcount: an order-0
    /// alloc, a `split` alloc, an `alloc_contig_range` (run-time warning otherwise).
    GetPage {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// The page's index in the allocation.
        page: u64,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `put_page` dropping a reference an earlier `get_page` took; the last reference frees
    /// the page (on `cpu`'s pcp), even after the allocation itself was freed.
    PutPage {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// The page's index in the allocation.
        page: u64,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `cma_alloc(cma, nr_pages, align)` from the scenario's CMA area (`zone.cma_pageblocks`):
    /// the first free run of the area's bitmap at the alignment, taken with
    /// `alloc_contig_frozen_range(.., ACR_FLAGS_CMA)`, retried further on `-EBUSY`.
    CmaAlloc {
        /// Pages to allocate.
        nr_pages: u64,
        /// The alignment as a page order (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        align: Option<u8>,
        /// `as`: the name a later `ref` gives to act on it.
        #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `cma_release` of a `cma_alloc`'s pages: freed as the kernel profile frees frozen pages
    /// (page by page ≤ 7.1, aligned chunks on 7.2), the bits cleared.
    CmaRelease {
        /// `ref`: the name (`as`) of the allocation it acts on.
        #[serde(rename = "ref")]
        ref_name: String,
        /// The CPU it runs on (default 0).
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        /// Words shown with the op (narration, summary).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Kinds a `free` / `free_contig_range` `ref` accepts.
pub(super) const FREEABLE: &[BindKind] = &[BindKind::Alloc, BindKind::AllocContigRange];
const SPLITTABLE: &[BindKind] = &[BindKind::Alloc];
const VFREEABLE: &[BindKind] = &[BindKind::Vmalloc];
const CMA_RELEASABLE: &[BindKind] = &[BindKind::CmaAlloc];

impl Op {
    /// The `"op"` tag.
    pub fn op_name(&self) -> &'static str {
        match self {
            Op::Alloc { .. } => "alloc",
            Op::Free { .. } => "free",
            Op::Split { .. } => "split",
            Op::AllocContigRange { .. } => "alloc_contig_range",
            Op::FreeContigRange { .. } => "free_contig_range",
            Op::Vmalloc { .. } => "vmalloc",
            Op::Vfree { .. } => "vfree",
            Op::Drain { .. } => "drain",
            Op::Tick { .. } => "tick",
            Op::Repeat { .. } => "repeat",
            Op::Workload { .. } => "workload",
            Op::GetPage { .. } => "get_page",
            Op::PutPage { .. } => "put_page",
            Op::CmaAlloc { .. } => "cma_alloc",
            Op::CmaRelease { .. } => "cma_release",
            Op::CompactMemory { .. } => "compact_memory",
            Op::Compact { .. } => "compact",
            Op::Kcompactd { .. } => "kcompactd",
        }
    }

    /// The op's own `cpu` field as written; `None` for `drain` (whose `cpu` is its target).
    pub fn cpu_field(&self) -> Option<u32> {
        match self {
            Op::Alloc { cpu, .. }
            | Op::Free { cpu, .. }
            | Op::Split { cpu, .. }
            | Op::AllocContigRange { cpu, .. }
            | Op::FreeContigRange { cpu, .. }
            | Op::Vmalloc { cpu, .. }
            | Op::Vfree { cpu, .. }
            | Op::Repeat { cpu, .. }
            | Op::Workload { cpu, .. }
            | Op::GetPage { cpu, .. }
            | Op::PutPage { cpu, .. }
            | Op::CmaAlloc { cpu, .. }
            | Op::CmaRelease { cpu, .. }
            | Op::CompactMemory { cpu, .. }
            | Op::Compact { cpu, .. }
            | Op::Kcompactd { cpu, .. } => *cpu,
            Op::Drain { .. } | Op::Tick { .. } => None,
        }
    }

    /// The CPU the op runs on (default 0). For `drain` this is 0: see [`DrainTarget`].
    pub fn cpu(&self) -> u32 {
        self.cpu_field().unwrap_or(0)
    }

    /// The op's `note`, if any.
    pub fn note(&self) -> Option<&str> {
        match self {
            Op::Alloc { note, .. }
            | Op::Free { note, .. }
            | Op::Split { note, .. }
            | Op::AllocContigRange { note, .. }
            | Op::FreeContigRange { note, .. }
            | Op::Vmalloc { note, .. }
            | Op::Vfree { note, .. }
            | Op::Drain { note, .. }
            | Op::Tick { note, .. }
            | Op::Repeat { note, .. }
            | Op::Workload { note, .. }
            | Op::GetPage { note, .. }
            | Op::PutPage { note, .. }
            | Op::CmaAlloc { note, .. }
            | Op::CmaRelease { note, .. }
            | Op::CompactMemory { note, .. }
            | Op::Compact { note, .. }
            | Op::Kcompactd { note, .. } => note.as_deref(),
        }
    }

    /// The name this op binds (`as`) and its kind.
    pub fn binding(&self) -> Option<(&str, BindKind)> {
        match self {
            Op::Alloc { as_name, .. } => as_name.as_deref().map(|n| (n, BindKind::Alloc)),
            Op::AllocContigRange { as_name, .. } => {
                as_name.as_deref().map(|n| (n, BindKind::AllocContigRange))
            }
            Op::Vmalloc { as_name, .. } => as_name.as_deref().map(|n| (n, BindKind::Vmalloc)),
            Op::CmaAlloc { as_name, .. } => as_name.as_deref().map(|n| (n, BindKind::CmaAlloc)),
            _ => None,
        }
    }

    /// The name this op refers to (`ref`) and the kinds it accepts (contract's op table).
    pub fn reference(&self) -> Option<(&str, &'static [BindKind])> {
        match self {
            Op::Free { ref_name, .. } => Some((ref_name, FREEABLE)),
            Op::Split { ref_name, .. } => Some((ref_name, SPLITTABLE)),
            Op::FreeContigRange { ref_name, .. } => ref_name.as_deref().map(|n| (n, FREEABLE)),
            Op::Vfree { ref_name, .. } => Some((ref_name, VFREEABLE)),
            Op::GetPage { ref_name, .. } | Op::PutPage { ref_name, .. } => {
                Some((ref_name, FREEABLE))
            }
            Op::CmaRelease { ref_name, .. } => Some((ref_name, CMA_RELEASABLE)),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// `compare`: a scenario's before/after pair (its use: super::pair)
// ---------------------------------------------------------------------------------------------

fn is_true(b: &bool) -> bool {
    *b
}

/// One side's overrides: the kernel profile and the knobs. `None` keeps the scenario's value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareSide {
    /// Shown above the side's panels ("v7.1: page by page").
    pub label: String,
    /// The kernel profile (`None`: the scenario's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// `zone.rmqueue_mode_memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rmqueue_mode_memory: Option<bool>,
    /// `zone.pcp`, replacing the scenario's whole (`{}`: the kernel's defaults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcp: Option<PcpOverride>,
    /// `zone.compaction_proactiveness` (`vm.compaction_proactiveness`, 0..=100), in every zone
    /// of a node: the sysctl is one for the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_proactiveness: Option<u32>,
    /// Let the kernel profile pick `free_contig_range` / `vfree` methods and the vmalloc
    /// strategy, ignoring the ops' explicit `method` / `strategy` (default true).
    #[serde(skip_serializing_if = "is_true")]
    pub profile_methods: bool,
}

/// One row of the thread's measurement: what was timed, before (a) and after (b), the unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredRow {
    /// What was timed.
    pub label: String,
    /// Before.
    pub a: f64,
    /// After.
    pub b: f64,
    /// The unit (`usec`, `MB/s`, …).
    pub unit: String,
}

/// The seed thread's headline measurement of the kernel: what the model does not explain
/// (time), shown beside the counters it does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// Where the figures come from (the thread, the message).
    pub source: String,
    /// The rows.
    pub rows: Vec<MeasuredRow>,
}

/// A scenario's `compare` field: its before/after pair and the thread's measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioCompare {
    /// Side A (before).
    pub a: CompareSide,
    /// Side B (after).
    pub b: CompareSide,
    /// The thread's measurement, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
}

// ---------------------------------------------------------------------------------------------
// Hand-written Serialize for the two JSON shapes derive cannot express
// ---------------------------------------------------------------------------------------------

impl Serialize for DrainTarget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DrainTarget::Cpu(n) => s.serialize_u32(*n),
            DrainTarget::All => s.serialize_str("all"),
        }
    }
}

#[derive(Serialize)]
struct ProcInitRepr {
    pagetypeinfo: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    zoneinfo: Option<String>,
    zone: String,
}

/// `init.zone` when the document does not give it.
pub(super) fn default_init_zone() -> String {
    "Normal".to_string()
}

#[derive(Serialize)]
struct SnapshotInitRepr<'a> {
    snapshot: &'a Snapshot,
}

#[derive(Serialize)]
struct NodeSnapshotInitRepr<'a> {
    snapshot: &'a NodeSnapshot,
}

/// The document's fields in contract order, the empty optional ones left out. With a node
/// snapshot `zone` is left out too: the reader fills it from the snapshot (its CPUs and
/// CONFIG_CMA) and refuses any other zone field, so what is written reads back.
impl Serialize for Scenario {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Scenario", 10)?;
        st.serialize_field("version", &self.version)?;
        st.serialize_field("name", &self.name)?;
        match &self.description {
            Some(d) => st.serialize_field("description", d)?,
            None => st.skip_field("description")?,
        }
        st.serialize_field("kernel", &self.kernel)?;
        if matches!(self.init, Init::NodeSnapshot(_)) {
            st.skip_field("zone")?;
        } else {
            st.serialize_field("zone", &self.zone)?;
        }
        if self.zones.is_empty() {
            st.skip_field("zones")?;
        } else {
            st.serialize_field("zones", &self.zones)?;
        }
        st.serialize_field("init", &self.init)?;
        st.serialize_field("ops", &self.ops)?;
        match &self.compare {
            Some(c) => st.serialize_field("compare", c)?,
            None => st.skip_field("compare")?,
        }
        if self.tour.is_empty() {
            st.skip_field("tour")?;
        } else {
            st.serialize_field("tour", &self.tour)?;
        }
        st.end()
    }
}

impl Serialize for Init {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Init::Boot => s.serialize_str("boot"),
            Init::Proc {
                pagetypeinfo,
                zoneinfo,
                zone,
            } => ProcInitRepr {
                pagetypeinfo: pagetypeinfo.clone(),
                zoneinfo: zoneinfo.clone(),
                zone: zone.clone(),
            }
            .serialize(s),
            Init::Snapshot(snap) => SnapshotInitRepr { snapshot: snap }.serialize(s),
            Init::NodeSnapshot(snap) => NodeSnapshotInitRepr { snapshot: snap }.serialize(s),
        }
    }
}

impl Scenario {
    /// Pretty JSON that [`parse`] reads back to an equal value.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// The zone size if it is known without reading `/proc` text: `zone.pages` (default
    /// 262144) for `"boot"`; for `/proc`, `zone.pages` if given (any other final size is an
    /// error), else `None`.
    pub fn static_zone_pages(&self) -> Option<u64> {
        match self.init {
            Init::Boot => Some(self.zone.pages.unwrap_or(DEFAULT_ZONE_PAGES)),
            Init::Proc { .. } => self.zone.pages,
            Init::Snapshot(ref snap) => Some(snap.pages),
            Init::NodeSnapshot(_) => None,
        }
    }

    /// The contract's size rule for `init` from `/proc`: `zoneinfo`'s `managed` if given (a
    /// different `zone.pages` is an error), else `zone.pages`, else Σ pageblocks × 512; and the
    /// pageblock counts must sum to ⌈size / 512⌉. `pageblocks` is that sum as read (after the
    /// `>100000` rule). For `"boot"` it returns [`Scenario::static_zone_pages`].
    pub fn resolve_proc_zone_pages(
        &self,
        zoneinfo_managed: Option<u64>,
        pageblocks: u64,
    ) -> Result<u64, ScenarioError> {
        self.resolve_proc_zone_pages_up_to(zoneinfo_managed, pageblocks, MAX_ZONE_PAGES)
    }

    /// [`Scenario::resolve_proc_zone_pages`] for a zone of at most `max_pages` pages:
    /// [`MAX_ZONE_PAGES`] for the one zone of a scenario, [`crate::mm::MAX_NODE_PAGES`] for
    /// a zone of `init.zone` `"all"` (a zone of a node, as in `zones`).
    pub fn resolve_proc_zone_pages_up_to(
        &self,
        zoneinfo_managed: Option<u64>,
        pageblocks: u64,
        max_pages: u64,
    ) -> Result<u64, ScenarioError> {
        let Init::Proc { zoneinfo, .. } = &self.init else {
            return Ok(self.static_zone_pages().unwrap_or(DEFAULT_ZONE_PAGES));
        };
        let block = u64::from(PAGEBLOCK_NR_PAGES);
        let (size, origin) = match (zoneinfo_managed, self.zone.pages) {
            (Some(managed), Some(pages)) if managed != pages => {
                return Err(ScenarioError::new(
                    "zone.pages",
                    format!("zone.pages is {pages} but init.zoneinfo says managed {managed}"),
                    format!("remove zone.pages or set it to {managed}"),
                ));
            }
            (Some(managed), _) if zoneinfo.is_some() => (managed, "init.zoneinfo"),
            (_, Some(pages)) => (pages, "zone.pages"),
            _ => (pageblocks.saturating_mul(block), "init.pagetypeinfo"),
        };
        check_zone_pages_up_to(origin, size, max_pages)?;
        let want = size.div_ceil(block);
        if pageblocks != want {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                format!(
                    "the pageblock counts sum to {pageblocks}, but a zone of {size} pages has \
                     {want} pageblocks"
                ),
                format!("make the counts sum to {want} (⌈{size} / 512⌉), or fix the zone size"),
            ));
        }
        Ok(size)
    }

    /// The zones of the node in pfn order: `zones`, or the one `zone`.
    pub fn node_zones(&self) -> &[ZoneSpec] {
        if self.zones.is_empty() {
            std::slice::from_ref(&self.zone)
        } else {
            &self.zones
        }
    }

    /// `vmalloc.strategy`, or the kernel profile's default.
    pub fn vmalloc_strategy(&self, op_strategy: Option<VmallocStrategy>) -> VmallocStrategy {
        op_strategy.unwrap_or_else(|| self.kernel.default_vmalloc_strategy())
    }

    /// `free_contig_range.method`, or the kernel profile's default.
    pub fn free_contig_range_method(&self, op_method: Option<FreeMethod>) -> FreeMethod {
        op_method.unwrap_or_else(|| self.kernel.default_free_method())
    }

    /// `vfree.method`, or the kernel profile's default.
    pub fn vfree_method(&self, op_method: Option<FreeMethod>) -> FreeMethod {
        op_method.unwrap_or_else(|| self.kernel.default_free_method())
    }
}
