//! Scenario format v1 (`design/scenario-format.md`): types, parsing and static validation.
//!
//! A scenario is the one artefact shared by the app, the CLI and the tests, so its errors must
//! point at the exact spot of the document. Parsing therefore goes in three steps:
//!
//! 1. text → [`serde_json::Value`], rejecting duplicate keys (serde_json would silently keep the
//!    last one, and the contract says a typo must never be ignored); a syntax error reports its
//!    line and column;
//! 2. `Value` → [`Scenario`] field by field, so every type error and every unknown field carries
//!    its JSON path (`ops[2].ops[0].ref`) — serde's derived errors carry none;
//! 3. [`validate`]: every check the contract makes "before anything runs" (ranges, CPUs, names,
//!    pfn ranges), on the typed value, so a scenario built in code (the app's editor) gets exactly
//!    the checks a scenario read from text gets.
//!
//! The types also derive `Serialize`/`Deserialize` with the same names and defaults (unknown
//! fields denied), for [`Scenario::to_json_pretty`] and for embedding a scenario in other state;
//! [`parse`] is the entry point that gives good errors.

pub use super::error::ScenarioError;
use super::tour::TourStop;

use std::fmt;
use std::str::FromStr;

use super::json::parse_json;
use super::read::scenario_from_value;
use super::validate::{self, check_scenario, check_zone_pages_up_to};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::mm::types::{
    FreeMethod, Kernel, MigrateType, VmallocStrategy, MAX_PAGE_ORDER, MAX_ZONE_PAGES,
    NR_PAGE_ORDERS, PAGEBLOCK_NR_PAGES,
};
use crate::scenario::pair::ScenarioCompare;

/// The only `version` this build reads.
pub const SCENARIO_VERSION: u32 = 1;
/// `zone.pages` when absent (1 GiB: gives the kernel's batch of 63).
pub const DEFAULT_ZONE_PAGES: u64 = 262_144;
/// `zone.start_pfn` must be a multiple of this (an order-10 block), so buddy alignment relative to
/// pfn 0 never straddles the zone start.
pub const ZONE_START_ALIGN: u64 = 1 << MAX_PAGE_ORDER;
/// `repeat` nests at most this deep.
pub const MAX_REPEAT_DEPTH: usize = 16;
/// One past the largest pfn x86_64 can address (`MAX_PHYSMEM_BITS` 52 − `PAGE_SHIFT` 12). Not in
/// the contract's words, but a zone beyond it is not a machine, and the bound keeps every
/// `pfn + n` and the trace's `vmemmap + 64 × pfn` free of overflow.
pub const MAX_PFN: u64 = 1 << 40;
/// Upper bound for `zone.pcp` values. The kernel's are `int`s and it computes at most
/// `managed / 8`; capping at the largest zone keeps `batch << 5` and `4 × batch` inside `i32`.
pub const MAX_PCP_VALUE: i32 = MAX_ZONE_PAGES as i32;
/// `min_free_kbytes` is an `int` sysctl.
pub const MAX_MIN_FREE_KBYTES: u64 = i32::MAX as u64;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/// A whole scenario document (contract § Document).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Always [`SCENARIO_VERSION`] once validated.
    pub version: u32,
    /// Title; the contract's table does not require it, so an absent name is `""`.
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub kernel: Kernel,
    #[serde(default)]
    pub zone: ZoneSpec,
    /// A node of several zones, in pfn order (e.g. `DMA32` then `Normal`), instead of `zone`.
    /// Empty: the one zone of `zone`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<ZoneSpec>,
    #[serde(default)]
    pub init: Init,
    /// No ops is a valid scenario: it shows the state `init` builds.
    #[serde(default)]
    pub ops: Vec<Op>,
    /// The before/after pair compare mode runs, and the thread's measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<ScenarioCompare>,
    /// Stops for presenting the run: positions and captions, see [`TourStop`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tour: Vec<TourStop>,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZoneSpec {
    /// Printed in the `/proc` outputs only.
    pub name: String,
    /// `None`: [`DEFAULT_ZONE_PAGES`] with `init: "boot"`, the `/proc` text's size otherwise
    /// (see [`Scenario::resolve_proc_zone_pages`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    pub start_pfn: u64,
    pub cpus: u32,
    pub cma: bool,
    #[serde(skip_serializing_if = "PcpOverride::is_empty")]
    pub pcp: PcpOverride,
    /// The final `min_free_kbytes` (replaces the computed one, THP bump included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_free_kbytes: Option<u64>,
    pub rmqueue_mode_memory: bool,
    /// `MIGRATE_CMA` pageblocks reserved at boot (`cma_declare_contiguous` then
    /// `init_cma_reserved_pageblock`); needs `cma`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cma_pageblocks: Option<CmaPageblocks>,
}

/// `zone.cma_pageblocks`: the CMA area, whole pageblocks of the zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
            cma_pageblocks: None,
        }
    }
}

/// `zone.pcp`: overrides for every CPU's pcp parameters. `i32` because the kernel's are `int`.
/// `high_min > high_max` is allowed: the kernel's `clamp` lets `high_max` win (kernel-model §0.1),
/// so the runner must not use `Ord::clamp` (it panics on that).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PcpOverride {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_min: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_max: Option<i32>,
}

impl PcpOverride {
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
        pagetypeinfo: String,
        zoneinfo: Option<String>,
        /// The zone to read, in the first node that has it; default `"Normal"`.
        zone: String,
    },
    /// Start from an exact snapshot (free blocks at their pfns, pageblock types, pcp lists),
    /// e.g. written by `tools/drgn/snapshot.py`; see [`crate::scenario::zone_snapshot`].
    Snapshot(Box<crate::scenario::zone_snapshot::Snapshot>),
    /// Start from a node snapshot (version 2: every zone of a node); see
    /// [`crate::scenario::node_snapshot`]. The zones and pfns come from it, as with `init.zone` `"all"`.
    NodeSnapshot(Box<crate::scenario::node_snapshot::NodeSnapshot>),
}

/// How the binding kinds of `as` are named in messages and accepted by `ref`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindKind {
    Alloc,
    AllocContigRange,
    Vmalloc,
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
    Cpu(u32),
    All,
}

impl Default for DrainTarget {
    fn default() -> Self {
        DrainTarget::Cpu(0)
    }
}

/// `workload.mt_weights`: relative frequencies of the three requestable migratetypes; an absent
/// key weighs 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MtWeights {
    pub unmovable: f64,
    pub movable: f64,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    Alloc {
        order: u8,
        #[serde(default = "default_mt")]
        mt: MigrateType,
        #[serde(default, skip_serializing_if = "is_false")]
        highatomic: bool,
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The highest zone the request may use (`GFP_DMA32` for `"DMA32"`, `GFP_DMA` for
        /// `"DMA"`); a zone of the scenario. `None`: the mt's gfp (Normal, Movable for movable).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
    Free {
        #[serde(rename = "ref")]
        ref_name: String,
        /// Index of one page in the allocation; an index beyond it is a run-time warning.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        page: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    Split {
        #[serde(rename = "ref")]
        ref_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    AllocContigRange {
        pfn: u64,
        nr_pages: u64,
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Either `ref_name`, or `pfn` and `nr_pages` (checked by [`validate`]).
    FreeContigRange {
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pfn: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nr_pages: Option<u64>,
        /// `None`: the profile's ([`Scenario::free_contig_range_method`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<FreeMethod>,
        #[serde(default, skip_serializing_if = "is_false")]
        frozen: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    Vmalloc {
        pages: u64,
        /// `None`: the profile's ([`Scenario::vmalloc_strategy`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strategy: Option<VmallocStrategy>,
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    Vfree {
        #[serde(rename = "ref")]
        ref_name: String,
        /// `None`: the profile's ([`Scenario::vfree_method`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<FreeMethod>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    Drain {
        #[serde(default)]
        cpu: DrainTarget,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// One vmstat interval (`stat_interval`, 1 s): `refresh_cpu_vm_stats` runs
    /// `decay_pcp_high` on each target CPU's pcp (default every CPU, in CPU order), so pages freed
    /// one by one do not stay on the pcp lists forever.
    Tick {
        #[serde(default = "tick_default_target")]
        cpu: DrainTarget,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `echo 1 > /proc/sys/vm/compact_memory`: `compact_node` of the node, every zone compacted
    /// whole (`compact_zone` with order -1, `MIGRATE_SYNC`); `cpu` is the writer's CPU.
    CompactMemory {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Direct compaction of one zone at one order, as `try_to_compact_pages` does it for each
    /// zone: `compaction_deferred` (for a priority above `COMPACT_PRIO_SYNC_FULL`), then
    /// `compact_zone_order`, then `compaction_defer_reset` or `defer_compaction`. `zone` names a
    /// zone of the node (default: the highest populated one); `priority` is
    /// `COMPACT_PRIO_SYNC_FULL` (0) or `COMPACT_PRIO_SYNC_LIGHT` (1).
    Compact {
        order: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        priority: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Each iteration runs `ops` in a new name scope. `cpu` is accepted but not inherited.
    Repeat {
        times: u64,
        ops: Vec<Op>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Random alloc/free mix; its op stream is implementation-defined.
    Workload {
        seed: u64,
        steps: u64,
        order_weights: [f64; NR_PAGE_ORDERS],
        mt_weights: MtWeights,
        free_probability: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `get_page` on page `page` of an allocation: a third party (compaction's pfn scanner, a
    /// GUP pin) takes an extra reference. Only on a page with its own refcount: an order-0
    /// alloc, a `split` alloc, an `alloc_contig_range` (run-time warning otherwise).
    GetPage {
        #[serde(rename = "ref")]
        ref_name: String,
        page: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `put_page` dropping a reference an earlier `get_page` took; the last reference frees
    /// the page (on `cpu`'s pcp), even after the allocation itself was freed.
    PutPage {
        #[serde(rename = "ref")]
        ref_name: String,
        page: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `cma_alloc(cma, nr_pages, align)` from the scenario's CMA area (`zone.cma_pageblocks`):
    /// the first free run of the area's bitmap at the alignment, taken with
    /// `alloc_contig_frozen_range(.., ACR_FLAGS_CMA)`, retried further on `-EBUSY`.
    CmaAlloc {
        nr_pages: u64,
        /// The alignment as a page order (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        align: Option<u8>,
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        as_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `cma_release` of a `cma_alloc`'s pages: freed as the kernel profile frees frozen pages
    /// (page by page ≤ 7.1, aligned chunks on 7.2), the bits cleared.
    CmaRelease {
        #[serde(rename = "ref")]
        ref_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

fn tick_default_target() -> DrainTarget {
    DrainTarget::All
}

fn default_mt() -> MigrateType {
    MigrateType::Unmovable
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
            | Op::Compact { cpu, .. } => *cpu,
            Op::Drain { .. } | Op::Tick { .. } => None,
        }
    }

    /// The CPU the op runs on (default 0). For `drain` this is 0: see [`DrainTarget`].
    pub fn cpu(&self) -> u32 {
        self.cpu_field().unwrap_or(0)
    }

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
            | Op::Compact { note, .. } => note.as_deref(),
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
// Hand-written serde for the two JSON shapes derive cannot express
// ---------------------------------------------------------------------------------------------

impl Serialize for DrainTarget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DrainTarget::Cpu(n) => s.serialize_u32(*n),
            DrainTarget::All => s.serialize_str("all"),
        }
    }
}

impl<'de> Deserialize<'de> for DrainTarget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DrainTarget;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a CPU number or \"all\"")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<DrainTarget, E> {
                u32::try_from(n)
                    .map(DrainTarget::Cpu)
                    .map_err(|_| E::custom(format_args!("cpu {n} is out of range")))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<DrainTarget, E> {
                u64::try_from(n)
                    .map_err(|_| E::custom(format_args!("cpu {n} is out of range")))
                    .and_then(|n| self.visit_u64(n))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<DrainTarget, E> {
                if s == "all" {
                    Ok(DrainTarget::All)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(s), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcInitRepr {
    pagetypeinfo: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    zoneinfo: Option<String>,
    #[serde(default = "default_init_zone")]
    zone: String,
}

pub(super) fn default_init_zone() -> String {
    "Normal".to_string()
}

#[derive(Deserialize)]
#[serde(untagged)]
enum InitRepr {
    Name(String),
    Proc(ProcInitRepr),
    Snapshot {
        snapshot: Box<crate::scenario::zone_snapshot::Snapshot>,
    },
    NodeSnapshot {
        snapshot: Box<crate::scenario::node_snapshot::NodeSnapshot>,
    },
}

#[derive(Serialize)]
struct SnapshotInitRepr<'a> {
    snapshot: &'a crate::scenario::zone_snapshot::Snapshot,
}

#[derive(Serialize)]
struct NodeSnapshotInitRepr<'a> {
    snapshot: &'a crate::scenario::node_snapshot::NodeSnapshot,
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

impl<'de> Deserialize<'de> for Init {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match InitRepr::deserialize(d)? {
            InitRepr::Name(s) if s == "boot" => Ok(Init::Boot),
            InitRepr::Name(s) => Err(de::Error::invalid_value(
                de::Unexpected::Str(&s),
                &"\"boot\" or an object",
            )),
            InitRepr::Proc(p) => Ok(Init::Proc {
                pagetypeinfo: p.pagetypeinfo,
                zoneinfo: p.zoneinfo,
                zone: p.zone,
            }),
            InitRepr::Snapshot { snapshot } => Ok(Init::Snapshot(snapshot)),
            InitRepr::NodeSnapshot { snapshot } => Ok(Init::NodeSnapshot(snapshot)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

/// A scenario that passed every static check ([`validate`]): the first stage of a run, and the
/// only input of the next one. A run goes one way through: [`parse_valid`] (or
/// [`ValidScenario::new`]) → [`crate::run::setup::build`] (the start zone, with the `/proc` import)
/// → [`crate::run::runner::execute`] (the ops) → [`crate::run::timeline::Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValidScenario(Scenario);

impl ValidScenario {
    /// Validates a scenario built in code (the app's editor, tests) exactly as [`parse`] does.
    pub fn new(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
        validate(&scenario)?;
        Ok(ValidScenario(scenario))
    }

    pub fn into_scenario(self) -> Scenario {
        self.0
    }
}

impl std::ops::Deref for ValidScenario {
    type Target = Scenario;
    fn deref(&self) -> &Scenario {
        &self.0
    }
}

/// Parses and statically validates a scenario. With `init` from `/proc` and no `zone.pages`,
/// the zone size is only known once the `/proc` text is read: the pfn-range checks then wait for
/// [`validate_with_zone_pages`], which [`crate::run::setup::build`] calls.
pub fn parse_valid(text: &str) -> Result<ValidScenario, ScenarioError> {
    let value = parse_json(text)?;
    ValidScenario::new(scenario_from_value(&value)?)
}

/// [`parse_valid`], for a caller that wants the plain [`Scenario`] (to edit or serialize it).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_valid(text).map(ValidScenario::into_scenario)
}

/// Every static check of the contract, with the zone size [`Scenario::static_zone_pages`] knows.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    check_scenario(s, s.static_zone_pages().map(|p| (p, "zone.pages")))
}

/// [`validate`] with the final zone size `pages` (e.g. from [`Scenario::resolve_proc_zone_pages`]),
/// so the pfn ranges of the ops are checked against the zone `init` really builds.
pub fn validate_with_zone_pages(s: &Scenario, pages: u64) -> Result<(), ScenarioError> {
    let origin = match &s.init {
        Init::Boot => "zone.pages",
        Init::Proc {
            zoneinfo: Some(_), ..
        } => "init.zoneinfo",
        Init::Proc { .. } if s.zone.pages.is_some() => "zone.pages",
        Init::Proc { .. } => "init.pagetypeinfo",
        Init::Snapshot(_) => "init.snapshot.pages",
        Init::NodeSnapshot(_) => "init.snapshot.zones",
    };
    check_scenario(s, Some((pages, origin)))
}

/// [`validate`] for `init.zone` `"all"` once the import has built the node: `zones` are its
/// zones' `[start_pfn, end_pfn)` and names in pfn order, and the ops' pfn ranges are checked
/// against them with the errors (and JSON paths) of a `zones` scenario. [`validate`] leaves
/// those ranges to this call, which [`crate::run::setup::build`] makes.
pub fn validate_in_imported_node(
    s: &Scenario,
    zones: Vec<(u64, u64, String)>,
) -> Result<(), ScenarioError> {
    validate::check_scenario_in(
        s,
        s.static_zone_pages().map(|p| (p, "zone.pages")),
        Some(zones),
    )
}

impl FromStr for Scenario {
    type Err = ScenarioError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
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
    /// [`MAX_ZONE_PAGES`] for the one zone of a scenario, [`crate::mm::types::MAX_NODE_PAGES`] for
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
