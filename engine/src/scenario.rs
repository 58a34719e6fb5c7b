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

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::types::{
    FreeMethod, Kernel, MigrateType, VmallocStrategy, MAX_CPUS, MAX_PAGE_ORDER, MAX_ZONE_PAGES,
    MIN_ZONE_PAGES, NR_PAGE_ORDERS, PAGEBLOCK_NR_PAGES,
};

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
    #[serde(default)]
    pub init: Init,
    /// No ops is a valid scenario: it shows the state `init` builds.
    #[serde(default)]
    pub ops: Vec<Op>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            version: SCENARIO_VERSION,
            name: String::new(),
            description: None,
            kernel: Kernel::default(),
            zone: ZoneSpec::default(),
            init: Init::Boot,
            ops: Vec::new(),
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
    /// e.g. written by `tools/drgn/snapshot.py`; see [`crate::snapshot`].
    Snapshot(Box<crate::snapshot::Snapshot>),
}

/// How the binding kinds of `as` are named in messages and accepted by `ref`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindKind {
    Alloc,
    AllocContigRange,
    Vmalloc,
}

impl BindKind {
    /// The op that binds this kind.
    pub fn op_name(self) -> &'static str {
        match self {
            BindKind::Alloc => "alloc",
            BindKind::AllocContigRange => "alloc_contig_range",
            BindKind::Vmalloc => "vmalloc",
        }
    }

    fn with_article(self) -> &'static str {
        match self {
            BindKind::Alloc => "an alloc",
            BindKind::AllocContigRange => "an alloc_contig_range",
            BindKind::Vmalloc => "a vmalloc",
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
}

fn default_mt() -> MigrateType {
    MigrateType::Unmovable
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Kinds a `free` / `free_contig_range` `ref` accepts.
const FREEABLE: &[BindKind] = &[BindKind::Alloc, BindKind::AllocContigRange];
const SPLITTABLE: &[BindKind] = &[BindKind::Alloc];
const VFREEABLE: &[BindKind] = &[BindKind::Vmalloc];

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
            Op::Repeat { .. } => "repeat",
            Op::Workload { .. } => "workload",
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
            | Op::Workload { cpu, .. } => *cpu,
            Op::Drain { .. } => None,
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
            | Op::Repeat { note, .. }
            | Op::Workload { note, .. } => note.as_deref(),
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

fn default_init_zone() -> String {
    "Normal".to_string()
}

#[derive(Deserialize)]
#[serde(untagged)]
enum InitRepr {
    Name(String),
    Proc(ProcInitRepr),
    Snapshot {
        snapshot: Box<crate::snapshot::Snapshot>,
    },
}

#[derive(Serialize)]
struct SnapshotInitRepr<'a> {
    snapshot: &'a crate::snapshot::Snapshot,
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
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// A document error: where (`path`, a JSON path such as `ops[2].ops[0].ref`, `zone.pages`;
/// empty for the document itself, e.g. a syntax error, whose message then gives line and
/// column), what (`message`) and what to do (`hint`, possibly empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
    pub hint: String,
}

impl ScenarioError {
    pub fn new(
        path: impl Into<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
            hint: hint.into(),
        }
    }

    fn or_hint(mut self, hint: &str) -> Self {
        if self.hint.is_empty() {
            self.hint = hint.to_string();
        }
        self
    }
}

/// `path: message; hint`, e.g.
/// `ops[3].order: order 11 is above MAX_PAGE_ORDER (10); use 0..=10`.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)?;
        if !self.hint.is_empty() {
            write!(f, "; {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

type Res<T> = Result<T, ScenarioError>;

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

/// Parses and statically validates a scenario. With `init` from `/proc` and no `zone.pages`,
/// the zone size is only known once the `/proc` text is read: the pfn-range checks then wait for
/// [`validate_with_zone_pages`].
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let value = parse_json(text)?;
    let scenario = scenario_from_value(&value)?;
    validate(&scenario)?;
    Ok(scenario)
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
    };
    check_scenario(s, Some((pages, origin)))
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
        check_zone_pages(origin, size)?;
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

// ---------------------------------------------------------------------------------------------
// Name scopes
// ---------------------------------------------------------------------------------------------

/// The lexical scopes of `as`/`ref`: a stack of frames, the root being the top-level ops, one
/// frame pushed per `repeat` iteration and popped at its end. Static validation uses it with the
/// binding kind; the runner can use it with its allocation handle, so both apply the same rules.
#[derive(Clone, Debug)]
pub struct Scopes<T> {
    frames: Vec<HashMap<String, T>>,
}

impl<T> Default for Scopes<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Scopes<T> {
    /// Just the root scope.
    pub fn new() -> Self {
        Scopes {
            frames: vec![HashMap::new()],
        }
    }

    /// Enters a new scope (a `repeat` iteration).
    pub fn push(&mut self) {
        self.frames.push(HashMap::new());
    }

    /// Leaves the innermost scope and returns its bindings; the root scope is never popped
    /// (`None`).
    pub fn pop(&mut self) -> Option<HashMap<String, T>> {
        if self.frames.len() > 1 {
            self.frames.pop()
        } else {
            None
        }
    }

    /// Number of scopes above the root (= `repeat` nesting).
    pub fn depth(&self) -> usize {
        self.frames.len() - 1
    }

    /// Binds `name` in the innermost scope. A name binds once per scope: if it is already bound
    /// there, nothing changes and `value` comes back as the error. Shadowing an outer scope's name
    /// is fine.
    pub fn bind(&mut self, name: impl Into<String>, value: T) -> Result<(), T> {
        let frame = self
            .frames
            .last_mut()
            .expect("the root scope is never popped");
        match frame.entry(name.into()) {
            Entry::Occupied(_) => Err(value),
            Entry::Vacant(e) => {
                e.insert(value);
                Ok(())
            }
        }
    }

    /// The innermost binding of `name` visible here.
    pub fn lookup(&self, name: &str) -> Option<&T> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    pub fn lookup_mut(&mut self, name: &str) -> Option<&mut T> {
        self.frames.iter_mut().rev().find_map(|f| f.get_mut(name))
    }

    /// The binding of `name` in the innermost scope only.
    pub fn lookup_here(&self, name: &str) -> Option<&T> {
        self.frames.last().and_then(|f| f.get(name))
    }

    /// Every visible binding (shadowed ones left out), sorted by name so a UI listing is stable.
    pub fn visible(&self) -> Vec<(&str, &T)> {
        let mut seen: HashMap<&str, &T> = HashMap::new();
        for frame in self.frames.iter().rev() {
            for (name, value) in frame {
                seen.entry(name.as_str()).or_insert(value);
            }
        }
        let mut out: Vec<(&str, &T)> = seen.into_iter().collect();
        out.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Step 1: text → Value, duplicate keys rejected
// ---------------------------------------------------------------------------------------------

/// A `Value` built by a visitor that refuses a key seen twice in one object.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(n)))
    }
    fn visit_f64<E>(self, x: f64) -> Result<StrictValue, E> {
        Ok(StrictValue(
            Number::from_f64(x).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, s: &str) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_none<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<StrictValue, D::Error> {
        StrictValue::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictValue, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(StrictValue(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictValue, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(StrictValue(Value::Object(out)))
    }
}

fn parse_json(text: &str) -> Res<Value> {
    serde_json::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|e| {
            let (line, column) = (e.line(), e.column());
            let full = e.to_string();
            let what = full
                .strip_suffix(&format!(" at line {line} column {column}"))
                .unwrap_or(&full);
            let hint = match e.classify() {
                serde_json::error::Category::Eof => {
                    "the document ends too early: close every `{` and `[`"
                }
                serde_json::error::Category::Data if what.starts_with("duplicate field") => {
                    "a key may appear once per object: remove one of them"
                }
                _ => "fix the JSON syntax there (a missing comma or quote, a trailing comma?)",
            };
            ScenarioError::new(
                "",
                format!("invalid JSON at line {line}, column {column}: {what}"),
                hint,
            )
        })
}

// ---------------------------------------------------------------------------------------------
// Step 2: Value → Scenario, with paths
// ---------------------------------------------------------------------------------------------

const OP_NAMES: &[&str] = &[
    "alloc",
    "free",
    "split",
    "alloc_contig_range",
    "free_contig_range",
    "vmalloc",
    "vfree",
    "drain",
    "repeat",
    "workload",
];

const CPU_DOC: &str = "the CPU the op runs on, 0..=zone.cpus-1 (default 0)";
const NOTE_DOC: &str = "a text shown by the UI and the trace";
const AS_DOC: &str = "a name for the allocation, bound once per scope";
const FREE_METHOD_DOC: &str = "\"per_page\" or \"chunked\" (default: the kernel profile's)";

/// Every object's fields, in contract order, with a one-line description for hints. Unknown-field
/// checks read their allowed lists from here, so there is one list to extend.
const FIELDS: &[(&str, &str, &str)] = &[
    ("document", "version", "1, the only version this build reads"),
    ("document", "name", "a title"),
    ("document", "description", "a text shown in the UI (markdown allowed)"),
    ("document", "kernel", "\"v6.18\", \"v7.1\" or \"v7.2\" (default \"v7.2\")"),
    ("document", "zone", "an object with any of name, pages, start_pfn, cpus, cma, pcp, min_free_kbytes, rmqueue_mode_memory"),
    ("document", "init", "\"boot\", or an object {\"pagetypeinfo\": TEXT, \"zoneinfo\": TEXT, \"zone\": NAME}"),
    ("document", "ops", "an array of ops"),
    ("zone", "name", "one word printed in the /proc outputs (default \"Normal\")"),
    ("zone", "pages", "the zone size in pages, 1024..=4194304 (default 262144)"),
    ("zone", "start_pfn", "the first pfn, a multiple of 1024 (default 0)"),
    ("zone", "cpus", "the number of per-CPU page sets, 1..=64 (default 1)"),
    ("zone", "cma", "true or false: CONFIG_CMA (default false)"),
    ("zone", "pcp", "an object with any of batch, high_min, high_max"),
    ("zone", "min_free_kbytes", "the final min_free_kbytes, 0..=2147483647 (default: computed)"),
    ("zone", "rmqueue_mode_memory", "true or false (default true)"),
    ("zone.pcp", "batch", "an integer 1..=4194304"),
    ("zone.pcp", "high_min", "an integer 0..=4194304"),
    ("zone.pcp", "high_max", "an integer 0..=4194304"),
    ("init", "pagetypeinfo", "the text of /proc/pagetypeinfo"),
    ("init", "zoneinfo", "the text of /proc/zoneinfo (optional)"),
    ("init", "zone", "the zone to read from the /proc text (default \"Normal\")"),
    ("alloc", "order", "an integer 0..=10"),
    ("alloc", "mt", "\"unmovable\", \"movable\" or \"reclaimable\" (default \"unmovable\")"),
    ("alloc", "highatomic", "true or false (default false)"),
    ("alloc", "as", AS_DOC),
    ("alloc", "cpu", CPU_DOC),
    ("alloc", "note", NOTE_DOC),
    ("free", "ref", "the name of an alloc or alloc_contig_range"),
    ("free", "page", "the index of one page in the allocation (optional)"),
    ("free", "cpu", CPU_DOC),
    ("free", "note", NOTE_DOC),
    ("split", "ref", "the name of an alloc"),
    ("split", "cpu", CPU_DOC),
    ("split", "note", NOTE_DOC),
    ("alloc_contig_range", "pfn", "the first pfn of the range, inside the zone"),
    ("alloc_contig_range", "nr_pages", "the number of pages, at least 1"),
    ("alloc_contig_range", "as", AS_DOC),
    ("alloc_contig_range", "cpu", CPU_DOC),
    ("alloc_contig_range", "note", NOTE_DOC),
    ("free_contig_range", "ref", "the name of an alloc or alloc_contig_range (or give pfn and nr_pages)"),
    ("free_contig_range", "pfn", "the first pfn (with nr_pages, instead of ref)"),
    ("free_contig_range", "nr_pages", "the number of pages, at least 1 (with pfn)"),
    ("free_contig_range", "method", FREE_METHOD_DOC),
    ("free_contig_range", "frozen", "true or false (default false)"),
    ("free_contig_range", "cpu", CPU_DOC),
    ("free_contig_range", "note", NOTE_DOC),
    ("vmalloc", "pages", "the number of pages, at least 1"),
    ("vmalloc", "strategy", "\"bulk\" or \"large_order\" (default: the kernel profile's)"),
    ("vmalloc", "as", AS_DOC),
    ("vmalloc", "cpu", CPU_DOC),
    ("vmalloc", "note", NOTE_DOC),
    ("vfree", "ref", "the name of a vmalloc"),
    ("vfree", "method", FREE_METHOD_DOC),
    ("vfree", "cpu", CPU_DOC),
    ("vfree", "note", NOTE_DOC),
    ("drain", "cpu", "the CPU to drain, a number or \"all\" (default 0)"),
    ("drain", "note", NOTE_DOC),
    ("repeat", "times", "an integer ≥ 0"),
    ("repeat", "ops", "an array of ops, run once per iteration in a new name scope"),
    ("repeat", "cpu", "a CPU 0..=zone.cpus-1; not inherited by the repeated ops"),
    ("repeat", "note", NOTE_DOC),
    ("workload", "seed", "an integer"),
    ("workload", "steps", "an integer ≥ 0"),
    ("workload", "order_weights", "11 non-negative numbers, index = order"),
    ("workload", "mt_weights", "an object with any of unmovable, movable, reclaimable: non-negative numbers"),
    ("workload", "free_probability", "a number 0..=1"),
    ("workload", "cpu", CPU_DOC),
    ("workload", "note", NOTE_DOC),
    ("mt_weights", "unmovable", "a non-negative number (default 0)"),
    ("mt_weights", "movable", "a non-negative number (default 0)"),
    ("mt_weights", "reclaimable", "a non-negative number (default 0)"),
];

fn field_doc(owner: &str, key: &str) -> &'static str {
    FIELDS
        .iter()
        .find(|(o, k, _)| *o == owner && *k == key)
        .map_or("", |(_, _, d)| d)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A short description of a JSON value for "expected …, found …" messages.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            let ell = if short.len() < s.len() { "…" } else { "" };
            format!("the string {}{ell}", Value::String(short))
        }
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

fn type_err(path: &str, expected: &str, found: &Value) -> ScenarioError {
    ScenarioError::new(
        path,
        format!("expected {expected}, found {}", describe(found)),
        "",
    )
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest candidate, if close enough to be a likely typo.
fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (distance(&lower, c), c))
        .filter(|(d, c)| *d <= 2 && *d < c.len().max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `"a", "b" or "c"`.
fn quoted_choices(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn with_suggestion(word: &str, candidates: &[&str], rest: String) -> String {
    match suggest(word, candidates.iter().copied()) {
        Some(s) => format!("did you mean \"{s}\"? {rest}"),
        None => rest,
    }
}

type Reader<T> = fn(&Value, &str) -> Res<T>;

/// A JSON object being converted: its path, its owner key in [`FIELDS`] and how to name it.
struct Fields<'a> {
    path: String,
    owner: &'static str,
    what: String,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn new(v: &'a Value, path: &str, owner: &'static str, what: &str) -> Res<Self> {
        let map = v
            .as_object()
            .ok_or_else(|| type_err(path, &format!("{what} (a JSON object)"), v))?;
        Ok(Fields {
            path: path.to_string(),
            owner,
            what: what.to_string(),
            map,
        })
    }

    fn allowed(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if OP_NAMES.contains(&self.owner) {
            keys.push("op");
        }
        keys.extend(
            FIELDS
                .iter()
                .filter(|(o, _, _)| *o == self.owner)
                .map(|(_, k, _)| *k),
        );
        keys
    }

    /// Rejects the first unknown key (in key order, so the report is stable).
    fn deny_unknown(&self) -> Res<()> {
        let allowed = self.allowed();
        if let Some(key) = self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            let takes = format!("{} takes: {}", self.what, allowed.join(", "));
            let hint = match suggest(key, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`? {takes}"),
                None => takes,
            };
            return Err(ScenarioError::new(
                join(&self.path, key),
                format!("unknown field `{key}` in {}", self.what),
                hint,
            ));
        }
        Ok(())
    }

    fn read<T>(&self, key: &str, v: &Value, read: Reader<T>) -> Res<T> {
        read(v, &join(&self.path, key))
            .map_err(|e| e.or_hint(&format!("`{key}`: {}", field_doc(self.owner, key))))
    }

    /// A required field.
    fn req<T>(&self, key: &str, read: Reader<T>) -> Res<T> {
        match self.map.get(key) {
            Some(v) => self.read(key, v, read),
            None => Err(ScenarioError::new(
                join(&self.path, key),
                format!("missing field `{key}` in {}", self.what),
                format!("`{key}`: {}", field_doc(self.owner, key)),
            )),
        }
    }

    /// An optional field; `null` counts as absent (as serde reads an `Option`).
    fn opt<T>(&self, key: &str, read: Reader<T>) -> Res<Option<T>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.read(key, v, read).map(Some),
        }
    }

    /// A field with a default.
    fn or<T>(&self, key: &str, default: T, read: Reader<T>) -> Res<T> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => self.read(key, v, read),
        }
    }
}

/// Integers; an integral float such as `1.0` is accepted (JSON does not tell them apart).
fn read_u64(v: &Value, path: &str) -> Res<u64> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    if let Some(x) = v.as_f64() {
        if x.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&x) {
            return Ok(x as u64);
        }
        if x < 0.0 {
            return Err(type_err(path, "a non-negative integer", v));
        }
    }
    Err(type_err(path, "an integer", v))
}

fn read_i64(v: &Value, path: &str) -> Res<i64> {
    if let Some(n) = v.as_i64() {
        return Ok(n);
    }
    if let Some(x) = v.as_f64() {
        if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
            return Ok(x as i64);
        }
    }
    Err(type_err(path, "an integer", v))
}

fn read_f64(v: &Value, path: &str) -> Res<f64> {
    v.as_f64().ok_or_else(|| type_err(path, "a number", v))
}

fn read_bool(v: &Value, path: &str) -> Res<bool> {
    v.as_bool()
        .ok_or_else(|| type_err(path, "true or false", v))
}

fn read_string(v: &Value, path: &str) -> Res<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| type_err(path, "a string", v))
}

fn read_choice<T: Copy>(v: &Value, path: &str, what: &str, choices: &[(&str, T)]) -> Res<T> {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let s = v
        .as_str()
        .ok_or_else(|| type_err(path, &format!("{what} {}", quoted_choices(&names)), v))?;
    choices
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            ScenarioError::new(
                path,
                format!("unknown {what} {}", Value::String(s.to_string())),
                with_suggestion(s, &names, format!("use {}", quoted_choices(&names))),
            )
        })
}

fn read_kernel(v: &Value, path: &str) -> Res<Kernel> {
    read_choice(
        v,
        path,
        "kernel",
        &[
            ("v6.18", Kernel::V6_18),
            ("v7.1", Kernel::V7_1),
            ("v7.2", Kernel::V7_2),
        ],
    )
}

fn read_alloc_mt(v: &Value, path: &str) -> Res<MigrateType> {
    if let Some(s) = v.as_str() {
        if let Some(mt) = MigrateType::ALL.iter().find(|m| m.slug() == s) {
            check_alloc_mt(path, *mt)?;
        }
    }
    read_choice(
        v,
        path,
        "mt",
        &[
            ("unmovable", MigrateType::Unmovable),
            ("movable", MigrateType::Movable),
            ("reclaimable", MigrateType::Reclaimable),
        ],
    )
}

fn read_strategy(v: &Value, path: &str) -> Res<VmallocStrategy> {
    read_choice(
        v,
        path,
        "strategy",
        &[
            ("bulk", VmallocStrategy::Bulk),
            ("large_order", VmallocStrategy::LargeOrder),
        ],
    )
}

fn read_method(v: &Value, path: &str) -> Res<FreeMethod> {
    read_choice(
        v,
        path,
        "method",
        &[
            ("per_page", FreeMethod::PerPage),
            ("chunked", FreeMethod::Chunked),
        ],
    )
}

fn read_version(v: &Value, path: &str) -> Res<u32> {
    check_version(read_u64(v, path)?)
}

fn read_order(v: &Value, path: &str) -> Res<u8> {
    check_order(path, read_u64(v, path)?)
}

fn read_cpus(v: &Value, path: &str) -> Res<u32> {
    check_cpus(path, read_u64(v, path)?)
}

fn read_cpu(v: &Value, path: &str) -> Res<u32> {
    let n = read_u64(v, path)?;
    u32::try_from(n).map_err(|_| {
        ScenarioError::new(
            path,
            format!("cpu {n} is out of range"),
            format!("use 0..=zone.cpus-1 (zone.cpus is at most {MAX_CPUS})"),
        )
    })
}

fn read_drain_target(v: &Value, path: &str) -> Res<DrainTarget> {
    match v {
        Value::String(s) if s == "all" => Ok(DrainTarget::All),
        Value::String(s) => Err(ScenarioError::new(
            path,
            format!("unknown drain target {}", Value::String(s.clone())),
            "use a CPU number or \"all\"",
        )),
        _ => read_cpu(v, path)
            .map(DrainTarget::Cpu)
            .map_err(|e| e.or_hint("a CPU number or \"all\"")),
    }
}

fn read_batch(v: &Value, path: &str) -> Res<i32> {
    check_pcp(path, "batch", 1, read_i64(v, path)?)
}

fn read_high(v: &Value, path: &str) -> Res<i32> {
    let name = path.rsplit('.').next().unwrap_or("high");
    check_pcp(path, name, 0, read_i64(v, path)?)
}

fn read_min_free_kbytes(v: &Value, path: &str) -> Res<u64> {
    let n = read_u64(v, path)?;
    check_min_free_kbytes(path, n)?;
    Ok(n)
}

fn read_order_weights(v: &Value, path: &str) -> Res<[f64; NR_PAGE_ORDERS]> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of 11 numbers", v))?;
    if items.len() != NR_PAGE_ORDERS {
        return Err(ScenarioError::new(
            path,
            format!(
                "expected {NR_PAGE_ORDERS} order weights (orders 0..=10), found {}",
                items.len()
            ),
            "give one non-negative weight per order, index = order",
        ));
    }
    let mut out = [0.0; NR_PAGE_ORDERS];
    for (k, item) in items.iter().enumerate() {
        out[k] = read_f64(item, &format!("{path}[{k}]"))?;
    }
    Ok(out)
}

fn mt_weights_from_value(v: &Value, path: &str) -> Res<MtWeights> {
    let f = Fields::new(v, path, "mt_weights", "mt_weights")?;
    f.deny_unknown()?;
    Ok(MtWeights {
        unmovable: f.or("unmovable", 0.0, read_f64)?,
        movable: f.or("movable", 0.0, read_f64)?,
        reclaimable: f.or("reclaimable", 0.0, read_f64)?,
    })
}

fn pcp_from_value(v: &Value, path: &str) -> Res<PcpOverride> {
    let f = Fields::new(v, path, "zone.pcp", "zone.pcp")?;
    f.deny_unknown()?;
    Ok(PcpOverride {
        batch: f.opt("batch", read_batch)?,
        high_min: f.opt("high_min", read_high)?,
        high_max: f.opt("high_max", read_high)?,
    })
}

fn zone_from_value(v: &Value, path: &str) -> Res<ZoneSpec> {
    let f = Fields::new(v, path, "zone", "zone")?;
    f.deny_unknown()?;
    let d = ZoneSpec::default();
    Ok(ZoneSpec {
        name: f.or("name", d.name, read_string)?,
        pages: f.opt("pages", read_u64)?,
        start_pfn: f.or("start_pfn", d.start_pfn, read_u64)?,
        cpus: f.or("cpus", d.cpus, read_cpus)?,
        cma: f.or("cma", d.cma, read_bool)?,
        pcp: f.or("pcp", d.pcp, pcp_from_value)?,
        min_free_kbytes: f.opt("min_free_kbytes", read_min_free_kbytes)?,
        rmqueue_mode_memory: f.or("rmqueue_mode_memory", d.rmqueue_mode_memory, read_bool)?,
    })
}

fn init_from_value(v: &Value, path: &str) -> Res<Init> {
    let hint =
        "use \"boot\", or an object {\"pagetypeinfo\": TEXT, \"zoneinfo\": TEXT, \"zone\": NAME}";
    match v {
        Value::String(s) if s == "boot" => Ok(Init::Boot),
        Value::String(s) => Err(ScenarioError::new(
            path,
            format!("unknown init {}", Value::String(s.clone())),
            hint,
        )),
        Value::Object(m) if m.contains_key("snapshot") => {
            if let Some(k) = m.keys().find(|k| *k != "snapshot") {
                return Err(ScenarioError::new(
                    join(path, k),
                    format!("unknown field `{k}` next to `snapshot`"),
                    "init is {\"snapshot\": {...}} alone",
                ));
            }
            crate::snapshot::from_value(&m["snapshot"], &join(path, "snapshot"))
                .map(|s| Init::Snapshot(Box::new(s)))
        }
        Value::Object(_) => {
            let f = Fields::new(v, path, "init", "init")?;
            f.deny_unknown()?;
            Ok(Init::Proc {
                pagetypeinfo: f.req("pagetypeinfo", read_string)?,
                zoneinfo: f.opt("zoneinfo", read_string)?,
                zone: f.or("zone", default_init_zone(), read_string)?,
            })
        }
        _ => Err(type_err(path, "\"boot\" or an object", v).or_hint(hint)),
    }
}

fn ops_from_value(v: &Value, path: &str) -> Res<Vec<Op>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of ops", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| op_from_value(item, &format!("{path}[{i}]")))
        .collect()
}

fn op_from_value(v: &Value, path: &str) -> Res<Op> {
    let list = OP_NAMES.join(", ");
    let map = v.as_object().ok_or_else(|| {
        type_err(path, "an op (a JSON object)", v)
            .or_hint("write an op as {\"op\": \"alloc\", \"order\": 0}")
    })?;
    let Some(tag) = map.get("op") else {
        return Err(ScenarioError::new(
            path,
            "missing field `op`",
            format!("every op names its kind in \"op\": {list}"),
        ));
    };
    let tag_path = join(path, "op");
    let tag = read_string(tag, &tag_path).map_err(|e| e.or_hint(&format!("one of {list}")))?;
    let Some(&kind) = OP_NAMES.iter().find(|n| **n == tag) else {
        return Err(ScenarioError::new(
            tag_path,
            format!("unknown op {}", Value::String(tag.clone())),
            with_suggestion(&tag, OP_NAMES, format!("ops: {list}")),
        ));
    };
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let f = Fields::new(v, path, kind, &format!("{article} {kind} op"))?;
    f.deny_unknown()?;
    let cpu = || f.opt("cpu", read_cpu);
    let note = || f.opt("note", read_string);
    Ok(match kind {
        "alloc" => Op::Alloc {
            order: f.req("order", read_order)?,
            mt: f.or("mt", MigrateType::Unmovable, read_alloc_mt)?,
            highatomic: f.or("highatomic", false, read_bool)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "free" => Op::Free {
            ref_name: f.req("ref", read_string)?,
            page: f.opt("page", read_u64)?,
            cpu: cpu()?,
            note: note()?,
        },
        "split" => Op::Split {
            ref_name: f.req("ref", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "alloc_contig_range" => Op::AllocContigRange {
            pfn: f.req("pfn", read_u64)?,
            nr_pages: f.req("nr_pages", read_u64)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "free_contig_range" => Op::FreeContigRange {
            ref_name: f.opt("ref", read_string)?,
            pfn: f.opt("pfn", read_u64)?,
            nr_pages: f.opt("nr_pages", read_u64)?,
            method: f.opt("method", read_method)?,
            frozen: f.or("frozen", false, read_bool)?,
            cpu: cpu()?,
            note: note()?,
        },
        "vmalloc" => Op::Vmalloc {
            pages: f.req("pages", read_u64)?,
            strategy: f.opt("strategy", read_strategy)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "vfree" => Op::Vfree {
            ref_name: f.req("ref", read_string)?,
            method: f.opt("method", read_method)?,
            cpu: cpu()?,
            note: note()?,
        },
        "drain" => Op::Drain {
            cpu: f.or("cpu", DrainTarget::default(), read_drain_target)?,
            note: note()?,
        },
        "repeat" => Op::Repeat {
            times: f.req("times", read_u64)?,
            ops: f.req("ops", ops_from_value)?,
            cpu: cpu()?,
            note: note()?,
        },
        "workload" => Op::Workload {
            seed: f.req("seed", read_u64)?,
            steps: f.req("steps", read_u64)?,
            order_weights: f.req("order_weights", read_order_weights)?,
            mt_weights: f.req("mt_weights", mt_weights_from_value)?,
            free_probability: f.req("free_probability", read_f64)?,
            cpu: cpu()?,
            note: note()?,
        },
        _ => unreachable!("OP_NAMES and this match list the same ops"),
    })
}

fn scenario_from_value(v: &Value) -> Res<Scenario> {
    let f = Fields::new(v, "", "document", "the document")?;
    // The version first: a newer document should be told so, not that its new fields are unknown.
    let version = f.req("version", read_version)?;
    f.deny_unknown()?;
    Ok(Scenario {
        version,
        name: f.or("name", String::new(), read_string)?,
        description: f.opt("description", read_string)?,
        kernel: f.or("kernel", Kernel::default(), read_kernel)?,
        zone: f.or("zone", ZoneSpec::default(), zone_from_value)?,
        init: f.or("init", Init::Boot, init_from_value)?,
        ops: f.or("ops", Vec::new(), ops_from_value)?,
    })
}

// ---------------------------------------------------------------------------------------------
// Step 3: static validation
// ---------------------------------------------------------------------------------------------

fn check_version(v: u64) -> Res<u32> {
    if v == u64::from(SCENARIO_VERSION) {
        Ok(SCENARIO_VERSION)
    } else {
        Err(ScenarioError::new(
            "version",
            format!("unsupported scenario version {v}"),
            format!("this build reads version {SCENARIO_VERSION}"),
        ))
    }
}

fn check_order(path: &str, order: u64) -> Res<u8> {
    if order > u64::from(MAX_PAGE_ORDER) {
        return Err(ScenarioError::new(
            path,
            format!("order {order} is above MAX_PAGE_ORDER ({MAX_PAGE_ORDER})"),
            format!("use 0..={MAX_PAGE_ORDER}"),
        ));
    }
    Ok(order as u8)
}

fn check_cpus(path: &str, cpus: u64) -> Res<u32> {
    if !(1..=u64::from(MAX_CPUS)).contains(&cpus) {
        return Err(ScenarioError::new(
            path,
            format!("{cpus} CPUs is out of range"),
            format!("use 1..={MAX_CPUS}"),
        ));
    }
    Ok(cpus as u32)
}

fn check_pcp(path: &str, name: &str, min: i64, v: i64) -> Res<i32> {
    if !(min..=i64::from(MAX_PCP_VALUE)).contains(&v) {
        return Err(ScenarioError::new(
            path,
            format!("{name} {v} is out of range"),
            format!("use {min}..={MAX_PCP_VALUE}"),
        ));
    }
    Ok(v as i32)
}

fn check_min_free_kbytes(path: &str, v: u64) -> Res<()> {
    if v > MAX_MIN_FREE_KBYTES {
        return Err(ScenarioError::new(
            path,
            format!("min_free_kbytes {v} is above the sysctl's int range"),
            format!("use 0..={MAX_MIN_FREE_KBYTES}"),
        ));
    }
    Ok(())
}

fn check_zone_pages(path: &str, pages: u64) -> Res<()> {
    if !(MIN_ZONE_PAGES..=MAX_ZONE_PAGES).contains(&pages) {
        let why = if pages < MIN_ZONE_PAGES {
            "below the minimum of 1024 (4 MiB)"
        } else {
            "above the maximum of 4194304 (16 GiB)"
        };
        return Err(ScenarioError::new(
            path,
            format!("a zone of {pages} pages is {why}"),
            format!("use {MIN_ZONE_PAGES}..={MAX_ZONE_PAGES} pages"),
        ));
    }
    Ok(())
}

fn check_alloc_mt(path: &str, mt: MigrateType) -> Res<()> {
    if mt.is_mergeable() {
        return Ok(());
    }
    let hint = if mt == MigrateType::HighAtomic {
        "use \"unmovable\", \"movable\" or \"reclaimable\"; for the highatomic reserve add \"highatomic\": true"
    } else {
        "use \"unmovable\", \"movable\" or \"reclaimable\""
    };
    Err(ScenarioError::new(
        path,
        format!("mt \"{}\" cannot be requested", mt.slug()),
        hint,
    ))
}

/// A name printed as one `%s` word in `/proc` text.
fn check_word(path: &str, what: &str, s: &str) -> Res<()> {
    if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ScenarioError::new(
            path,
            format!("{what} {} is not one word", Value::String(s.to_string())),
            "it is printed as one word in the /proc outputs; use e.g. \"Normal\"",
        ));
    }
    Ok(())
}

/// What a name is bound to during static validation.
struct StaticBinding {
    kind: BindKind,
    at: String,
}

struct Checker {
    cpus: u32,
    start_pfn: u64,
    /// One past the zone's last pfn, if the size is known.
    end_pfn: Option<u64>,
    scopes: Scopes<StaticBinding>,
    /// Names whose `repeat` scope has ended, and where they were bound: only for the hint of a
    /// `ref` that reaches into a finished scope.
    ended: HashMap<String, String>,
}

fn check_scenario(s: &Scenario, size: Option<(u64, &str)>) -> Res<()> {
    check_version(u64::from(s.version))?;
    let z = &s.zone;
    check_word("zone.name", "zone name", &z.name)?;
    if let Some(pages) = z.pages {
        check_zone_pages("zone.pages", pages)?;
    }
    // A mask, not `is_multiple_of` (Rust 1.87; the workspace floor is 1.85).
    if z.start_pfn & (ZONE_START_ALIGN - 1) != 0 {
        let below = z.start_pfn / ZONE_START_ALIGN * ZONE_START_ALIGN;
        return Err(ScenarioError::new(
            "zone.start_pfn",
            format!("start_pfn {} is not a multiple of 1024", z.start_pfn),
            format!(
                "use a multiple of 1024, e.g. {below} or {}",
                below + ZONE_START_ALIGN
            ),
        ));
    }
    check_cpus("zone.cpus", u64::from(z.cpus))?;
    if let Some(b) = z.pcp.batch {
        check_pcp("zone.pcp.batch", "batch", 1, i64::from(b))?;
    }
    if let Some(h) = z.pcp.high_min {
        check_pcp("zone.pcp.high_min", "high_min", 0, i64::from(h))?;
    }
    if let Some(h) = z.pcp.high_max {
        check_pcp("zone.pcp.high_max", "high_max", 0, i64::from(h))?;
    }
    if let Some(k) = z.min_free_kbytes {
        check_min_free_kbytes("zone.min_free_kbytes", k)?;
    }
    if let Init::Proc {
        pagetypeinfo,
        zoneinfo,
        zone,
    } = &s.init
    {
        if pagetypeinfo.trim().is_empty() {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                "the pagetypeinfo text is empty",
                "paste the contents of /proc/pagetypeinfo",
            ));
        }
        if zoneinfo.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(ScenarioError::new(
                "init.zoneinfo",
                "the zoneinfo text is empty",
                "paste the contents of /proc/zoneinfo, or leave out init.zoneinfo",
            ));
        }
        check_word("init.zone", "zone name", zone)?;
    }
    if let Some((pages, origin)) = size {
        if let Some(zp) = z.pages {
            if zp != pages {
                return Err(ScenarioError::new(
                    "zone.pages",
                    format!("zone.pages is {zp} but init gives a zone of {pages} pages"),
                    format!("remove zone.pages or set it to {pages}"),
                ));
            }
        }
        check_zone_pages(origin, pages)?;
    }
    let span = size.map_or(MIN_ZONE_PAGES, |(p, _)| p);
    if z.start_pfn
        .checked_add(span)
        .is_none_or(|end| end > MAX_PFN)
    {
        return Err(ScenarioError::new(
            "zone.start_pfn",
            format!("a zone at pfn {} ends beyond the largest pfn", z.start_pfn),
            format!("x86_64 addresses pfns below {MAX_PFN} (2^40); use a lower start_pfn"),
        ));
    }
    let mut checker = Checker {
        cpus: z.cpus,
        start_pfn: z.start_pfn,
        end_pfn: size.map(|(p, _)| z.start_pfn + p),
        scopes: Scopes::new(),
        ended: HashMap::new(),
    };
    checker.ops(&s.ops, "ops", 0)
}

impl Checker {
    fn ops(&mut self, ops: &[Op], prefix: &str, depth: usize) -> Res<()> {
        for (i, op) in ops.iter().enumerate() {
            self.op(op, &format!("{prefix}[{i}]"), depth)?;
        }
        Ok(())
    }

    fn op(&mut self, op: &Op, path: &str, depth: usize) -> Res<()> {
        if let Some(cpu) = op.cpu_field() {
            self.cpu(&join(path, "cpu"), cpu)?;
        }
        match op {
            Op::Alloc { order, mt, .. } => {
                check_order(&join(path, "order"), u64::from(*order))?;
                check_alloc_mt(&join(path, "mt"), *mt)?;
            }
            Op::Free { .. } | Op::Split { .. } | Op::Vfree { .. } => {}
            Op::AllocContigRange { pfn, nr_pages, .. } => self.range(path, *pfn, *nr_pages)?,
            Op::FreeContigRange {
                ref_name,
                pfn,
                nr_pages,
                ..
            } => {
                let either = "give either ref, or pfn and nr_pages";
                match (ref_name, pfn, nr_pages) {
                    (Some(_), None, None) => {}
                    (Some(_), Some(_), _) => {
                        return Err(ScenarioError::new(
                            join(path, "pfn"),
                            "free_contig_range has both ref and pfn",
                            either,
                        ));
                    }
                    (Some(_), None, Some(_)) => {
                        return Err(ScenarioError::new(
                            join(path, "nr_pages"),
                            "free_contig_range has both ref and nr_pages",
                            either,
                        ));
                    }
                    (None, Some(p), Some(n)) => self.range(path, *p, *n)?,
                    (None, Some(_), None) => {
                        return Err(ScenarioError::new(
                            join(path, "nr_pages"),
                            "missing field `nr_pages` in a free_contig_range op by pfn",
                            "`nr_pages`: the number of pages, at least 1",
                        ));
                    }
                    (None, None, Some(_)) => {
                        return Err(ScenarioError::new(
                            join(path, "pfn"),
                            "missing field `pfn` in a free_contig_range op by pfn",
                            "`pfn`: the first pfn of the range",
                        ));
                    }
                    (None, None, None) => {
                        return Err(ScenarioError::new(
                            path,
                            "free_contig_range needs ref, or pfn and nr_pages",
                            either,
                        ));
                    }
                }
            }
            Op::Vmalloc { pages, .. } => {
                if *pages == 0 {
                    return Err(ScenarioError::new(
                        join(path, "pages"),
                        "vmalloc of 0 pages",
                        "use pages ≥ 1",
                    ));
                }
            }
            Op::Drain { cpu, .. } => {
                if let DrainTarget::Cpu(c) = cpu {
                    self.cpu(&join(path, "cpu"), *c)?;
                }
            }
            Op::Repeat { ops, .. } => {
                let level = depth + 1;
                if level > MAX_REPEAT_DEPTH {
                    return Err(ScenarioError::new(
                        path,
                        format!("repeat nested {level} deep"),
                        format!(
                            "repeat nests at most {MAX_REPEAT_DEPTH} deep; merge inner loops \
                             (their times multiply)"
                        ),
                    ));
                }
                self.scopes.push();
                let result = self.ops(ops, &join(path, "ops"), level);
                if let Some(frame) = self.scopes.pop() {
                    for (name, b) in frame {
                        self.ended.insert(name, b.at);
                    }
                }
                result?;
            }
            Op::Workload {
                order_weights,
                mt_weights,
                free_probability,
                ..
            } => check_workload(path, order_weights, mt_weights, *free_probability)?,
        }
        // The ref resolves before the op's own `as` binds (an op never refers to itself).
        if let Some((name, accepts)) = op.reference() {
            self.resolve(&join(path, "ref"), op.op_name(), name, accepts)?;
        }
        if let Some((name, kind)) = op.binding() {
            self.bind(path, name, kind)?;
        }
        Ok(())
    }

    fn cpu(&self, path: &str, cpu: u32) -> Res<()> {
        if cpu >= self.cpus {
            let hint = if self.cpus == 1 {
                "use 0, or raise zone.cpus".to_string()
            } else {
                format!("use 0..={}, or raise zone.cpus", self.cpus - 1)
            };
            return Err(ScenarioError::new(
                path,
                format!("cpu {cpu} is out of range: zone.cpus is {}", self.cpus),
                hint,
            ));
        }
        Ok(())
    }

    /// `[pfn, pfn + nr)` must be non-empty and inside the zone (as far as its size is known).
    fn range(&self, path: &str, pfn: u64, nr: u64) -> Res<()> {
        let (pfn_path, nr_path) = (join(path, "pfn"), join(path, "nr_pages"));
        if nr == 0 {
            return Err(ScenarioError::new(
                nr_path,
                "nr_pages is 0",
                "use nr_pages ≥ 1",
            ));
        }
        let start = self.start_pfn;
        let zone = match self.end_pfn {
            Some(end) => format!("[{start}, {end})"),
            None => format!("starting at pfn {start}"),
        };
        if pfn < start || self.end_pfn.is_some_and(|end| pfn >= end) {
            return Err(ScenarioError::new(
                pfn_path,
                format!("pfn {pfn} is outside the zone {zone}"),
                "the zone spans zone.start_pfn .. zone.start_pfn + zone.pages",
            ));
        }
        let limit = self.end_pfn.unwrap_or(MAX_PFN);
        if nr > limit - pfn {
            let end = pfn.saturating_add(nr);
            return Err(ScenarioError::new(
                nr_path,
                format!("the range [{pfn}, {end}) runs past the end of the zone {zone}"),
                format!("use nr_pages ≤ {}", limit - pfn),
            ));
        }
        Ok(())
    }

    fn resolve(&self, path: &str, op: &str, name: &str, accepts: &[BindKind]) -> Res<()> {
        let wanted: Vec<&str> = accepts.iter().map(|k| k.with_article()).collect();
        let wanted = wanted.join(" or ");
        match self.scopes.lookup(name) {
            Some(b) if accepts.contains(&b.kind) => Ok(()),
            Some(b) => Err(ScenarioError::new(
                path,
                format!(
                    "`{name}` names {} ({}); {op} takes {wanted}",
                    b.kind.with_article(),
                    b.at
                ),
                format!("ref the name of {wanted}"),
            )),
            None => {
                let hint = match self.ended.get(name) {
                    Some(at) => {
                        format!("`{name}` was bound at {at}, inside a repeat whose scope has ended")
                    }
                    None => format!(
                        "bind {wanted} with \"as\": \"{name}\" in an earlier op of this scope or \
                         an enclosing one"
                    ),
                };
                Err(ScenarioError::new(
                    path,
                    format!("`{name}` is not bound here"),
                    hint,
                ))
            }
        }
    }

    fn bind(&mut self, op_path: &str, name: &str, kind: BindKind) -> Res<()> {
        let path = join(op_path, "as");
        if name.is_empty() {
            return Err(ScenarioError::new(
                path,
                "the name is empty",
                "give a non-empty name, or leave out \"as\"",
            ));
        }
        let binding = StaticBinding {
            kind,
            at: op_path.to_string(),
        };
        self.scopes.bind(name, binding).map_err(|_| {
            let at = self.scopes.lookup_here(name).map_or("", |b| b.at.as_str());
            ScenarioError::new(
                path,
                format!("`{name}` is already bound in this scope (at {at})"),
                "a name binds once per scope: pick another name (inside a repeat, a name may \
                 shadow an outer one)",
            )
        })
    }
}

fn check_workload(
    path: &str,
    order_weights: &[f64; NR_PAGE_ORDERS],
    mt_weights: &MtWeights,
    free_probability: f64,
) -> Res<()> {
    let weight_err = |p: String, w: f64| {
        ScenarioError::new(
            p,
            format!("weight {w} is not a non-negative number"),
            "weights are relative frequencies ≥ 0",
        )
    };
    let ow = join(path, "order_weights");
    for (k, w) in order_weights.iter().enumerate() {
        if !(w.is_finite() && *w >= 0.0) {
            return Err(weight_err(format!("{ow}[{k}]"), *w));
        }
    }
    if order_weights.iter().all(|w| *w == 0.0) {
        return Err(ScenarioError::new(
            ow,
            "every order weight is 0",
            "give at least one order a positive weight",
        ));
    }
    let mw = join(path, "mt_weights");
    let mts = [
        ("unmovable", mt_weights.unmovable),
        ("movable", mt_weights.movable),
        ("reclaimable", mt_weights.reclaimable),
    ];
    for (name, w) in mts {
        if !(w.is_finite() && w >= 0.0) {
            return Err(weight_err(join(&mw, name), w));
        }
    }
    if mts.iter().all(|(_, w)| *w == 0.0) {
        return Err(ScenarioError::new(
            mw,
            "every mt weight is 0",
            "give at least one of unmovable, movable, reclaimable a positive weight",
        ));
    }
    if !(0.0..=1.0).contains(&free_probability) {
        return Err(ScenarioError::new(
            join(path, "free_probability"),
            format!("free_probability {free_probability} is outside 0..=1"),
            "use a probability between 0 and 1",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract's example document, verbatim.
    const EXAMPLE: &str = r#"{
  "version": 1,
  "name": "free_contig_range: page by page vs chunked",
  "description": "optional, markdown allowed, shown in the UI",
  "kernel": "v7.2",
  "zone": { "name": "Normal", "pages": 262144, "start_pfn": 0, "cpus": 1, "cma": false,
            "pcp": { "batch": 63, "high_min": 7856, "high_max": 48307 },
            "min_free_kbytes": 22528,
            "rmqueue_mode_memory": true },
  "init": "boot",
  "ops": [ { "op": "alloc", "order": 9, "mt": "movable", "as": "thp" },
           { "op": "split", "ref": "thp" },
           { "op": "free_contig_range", "ref": "thp" } ]
}"#;

    fn doc_with(zone: &str, ops: &str) -> String {
        format!(r#"{{"version": 1, "zone": {zone}, "ops": {ops}}}"#)
    }

    fn ops_doc(ops: &str) -> String {
        doc_with("{}", ops)
    }

    fn err(text: &str) -> ScenarioError {
        match parse(text) {
            Ok(s) => panic!("expected an error, parsed {s:?}"),
            Err(e) => e,
        }
    }

    fn err_path(text: &str) -> String {
        err(text).path
    }

    /// A document whose every field and op kind is set, for round trips.
    const FULL: &str = r#"{
  "version": 1, "name": "all", "kernel": "v6.18",
  "zone": { "name": "DMA32", "pages": 4096, "start_pfn": 1024, "cpus": 4, "cma": true,
            "pcp": { "batch": 7, "high_max": 100 }, "min_free_kbytes": 0,
            "rmqueue_mode_memory": false },
  "ops": [
    { "op": "alloc", "order": 3, "highatomic": true, "mt": "reclaimable", "as": "a",
      "cpu": 3, "note": "hi" },
    { "op": "alloc_contig_range", "pfn": 2048, "nr_pages": 100, "as": "r" },
    { "op": "vmalloc", "pages": 700, "strategy": "bulk", "as": "v" },
    { "op": "free", "ref": "a", "page": 2 },
    { "op": "split", "ref": "a" },
    { "op": "free_contig_range", "pfn": 1024, "nr_pages": 4096, "method": "chunked",
      "frozen": true },
    { "op": "free_contig_range", "ref": "r" },
    { "op": "vfree", "ref": "v", "method": "per_page" },
    { "op": "drain", "cpu": "all" },
    { "op": "drain", "cpu": 2, "note": "n" },
    { "op": "repeat", "times": 3, "cpu": 1, "ops": [
        { "op": "alloc", "order": 0, "as": "a" },
        { "op": "free", "ref": "a" } ] },
    { "op": "workload", "seed": 42, "steps": 1000,
      "order_weights": [8, 4, 2, 1, 0, 0, 0, 0, 0, 1, 0.5],
      "mt_weights": { "movable": 3, "unmovable": 1 }, "free_probability": 0.4 }
  ]
}"#;

    #[test]
    fn contract_example_parses() {
        let s = parse(EXAMPLE).unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.name, "free_contig_range: page by page vs chunked");
        assert_eq!(s.kernel, Kernel::V7_2);
        assert_eq!(s.zone.pages, Some(262_144));
        assert_eq!(s.zone.pcp.batch, Some(63));
        assert_eq!(s.zone.pcp.high_max, Some(48307));
        assert_eq!(s.zone.min_free_kbytes, Some(22528));
        assert_eq!(s.init, Init::Boot);
        assert_eq!(s.ops.len(), 3);
        assert_eq!(
            s.ops[0],
            Op::Alloc {
                order: 9,
                mt: MigrateType::Movable,
                highatomic: false,
                as_name: Some("thp".into()),
                cpu: None,
                note: None
            }
        );
        assert_eq!(s.ops[2].reference(), Some(("thp", FREEABLE)));
        // The derived Deserialize reads the same document to the same value.
        let derived: Scenario = serde_json::from_str(EXAMPLE).unwrap();
        assert_eq!(derived, s);
    }

    #[test]
    fn defaults() {
        let s = parse(r#"{"version": 1}"#).unwrap();
        assert_eq!(s, Scenario::default());
        assert_eq!(s.zone.name, "Normal");
        assert_eq!(s.zone.cpus, 1);
        assert!(s.zone.rmqueue_mode_memory);
        assert_eq!(s.static_zone_pages(), Some(DEFAULT_ZONE_PAGES));
        let s = parse(&ops_doc(
            r#"[{"op": "alloc", "order": 0}, {"op": "drain"}]"#,
        ))
        .unwrap();
        assert!(matches!(
            s.ops[0],
            Op::Alloc {
                mt: MigrateType::Unmovable,
                highatomic: false,
                ..
            }
        ));
        assert_eq!(
            s.ops[1],
            Op::Drain {
                cpu: DrainTarget::Cpu(0),
                note: None
            }
        );
    }

    #[test]
    fn per_op_defaults_follow_the_profile() {
        let mut s = Scenario::default();
        for (k, strat, method) in [
            (Kernel::V6_18, VmallocStrategy::Bulk, FreeMethod::PerPage),
            (
                Kernel::V7_1,
                VmallocStrategy::LargeOrder,
                FreeMethod::PerPage,
            ),
            (
                Kernel::V7_2,
                VmallocStrategy::LargeOrder,
                FreeMethod::Chunked,
            ),
        ] {
            s.kernel = k;
            assert_eq!(s.vmalloc_strategy(None), strat);
            assert_eq!(s.free_contig_range_method(None), method);
            assert_eq!(s.vfree_method(None), method);
            assert_eq!(
                s.vmalloc_strategy(Some(VmallocStrategy::Bulk)),
                VmallocStrategy::Bulk
            );
            assert_eq!(
                s.vfree_method(Some(FreeMethod::PerPage)),
                FreeMethod::PerPage
            );
        }
    }

    #[test]
    fn round_trip() {
        for text in [EXAMPLE, FULL] {
            let s = parse(text).unwrap();
            let json = s.to_json_pretty();
            assert_eq!(parse(&json).unwrap(), s, "{json}");
            let derived: Scenario = serde_json::from_str(&json).unwrap();
            assert_eq!(derived, s);
            assert_eq!(serde_json::from_str::<Scenario>(text).unwrap(), s);
        }
        let proc = r#"{"version": 1, "init": {"pagetypeinfo": "x", "zoneinfo": "y"}}"#;
        let s = parse(proc).unwrap();
        assert_eq!(
            s.init,
            Init::Proc {
                pagetypeinfo: "x".into(),
                zoneinfo: Some("y".into()),
                zone: "Normal".into()
            }
        );
        assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
    }

    #[test]
    fn full_document_fields() {
        let s = parse(FULL).unwrap();
        assert_eq!(s.zone.pcp.high_min, None);
        assert_eq!(s.ops[0].cpu(), 3);
        assert_eq!(s.ops[0].note(), Some("hi"));
        assert_eq!(
            s.ops[8],
            Op::Drain {
                cpu: DrainTarget::All,
                note: None
            }
        );
        let Op::Workload {
            order_weights,
            mt_weights,
            ..
        } = &s.ops[11]
        else {
            panic!()
        };
        assert_eq!(order_weights[10], 0.5);
        assert_eq!(mt_weights.get(MigrateType::Movable), 3.0);
        assert_eq!(mt_weights.reclaimable, 0.0);
    }

    #[test]
    fn display_format() {
        let e = err(&ops_doc(
            r#"[{"op":"drain"},{"op":"drain"},{"op":"drain"},{"op":"alloc","order":11}]"#,
        ));
        assert_eq!(
            e.to_string(),
            "ops[3].order: order 11 is above MAX_PAGE_ORDER (10); use 0..=10"
        );
    }

    #[test]
    fn json_syntax_errors_give_line_and_column() {
        let e = err("{\n  \"version\": 1,\n  \"ops\": [}\n");
        assert_eq!(e.path, "");
        assert!(e.message.contains("line 3, column"), "{e}");
        let e = err("{\"version\": 1");
        assert!(e.message.contains("line 1"), "{e}");
        assert!(e.hint.contains("ends too early"), "{e}");
        let e = err(r#"{"version": 1, "ops": [{"op": "alloc", "order": 1, "order": 2}]}"#);
        assert!(e.message.contains("duplicate field `order`"), "{e}");
        assert!(e.message.contains("line 1, column"), "{e}");
        assert!(err("[1, 2]").message.contains("expected the document"));
    }

    #[test]
    fn version_errors() {
        assert_eq!(err(r#"{"name": "x"}"#).path, "version");
        let e = err(r#"{"version": 2, "future_field": 1}"#);
        assert_eq!(e.path, "version");
        assert!(e.message.contains("unsupported scenario version 2"));
        assert_eq!(err_path(r#"{"version": "1"}"#), "version");
        // An integral float is an integer.
        assert!(parse(r#"{"version": 1.0}"#).is_ok());
    }

    #[test]
    fn unknown_fields_are_named() {
        let e = err(r#"{"version": 1, "nmae": "x"}"#);
        assert_eq!(e.path, "nmae");
        assert!(e.message.contains("unknown field `nmae`"));
        assert!(e.hint.contains("did you mean `name`"), "{e}");

        let e = err(&ops_doc(r#"[{"op": "alloc", "ordr": 3}]"#));
        assert_eq!(e.path, "ops[0].ordr");
        assert!(
            e.message.contains("`ordr`") && e.message.contains("an alloc op"),
            "{e}"
        );
        assert!(e.hint.contains("did you mean `order`"), "{e}");

        // `as` is not a field of free.
        let e = err(&ops_doc(
            r#"[{"op":"alloc","order":0,"as":"a"},{"op": "free", "ref": "a", "as": "b"}]"#,
        ));
        assert_eq!(e.path, "ops[1].as");

        assert_eq!(err_path(&doc_with(r#"{"page": 4096}"#, "[]")), "zone.page");
        assert_eq!(
            err_path(&doc_with(r#"{"pcp": {"batch": 1, "hihg": 3}}"#, "[]")),
            "zone.pcp.hihg"
        );
        assert_eq!(
            err_path(r#"{"version": 1, "init": {"pagetypeinfoo": "x"}}"#),
            "init.pagetypeinfoo"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"repeat","times":1,"ops":[{"op":"drain","cpus":0}]}]"#
            )),
            "ops[0].ops[0].cpus"
        );
        let e = err(&ops_doc(
            r#"[{"op":"workload","seed":1,"steps":1,"order_weights":[1,0,0,0,0,0,0,0,0,0,0],
                "mt_weights":{"highatomic":1},"free_probability":0}]"#,
        ));
        assert_eq!(e.path, "ops[0].mt_weights.highatomic");
    }

    #[test]
    fn op_tag_errors() {
        let e = err(&ops_doc(r#"[{"op": "drain"}, {"op": "aloc", "order": 1}]"#));
        assert_eq!(e.path, "ops[1].op");
        assert!(e.hint.contains("did you mean \"alloc\""), "{e}");
        assert_eq!(err_path(&ops_doc(r#"[{"order": 1}]"#)), "ops[0]");
        assert_eq!(err_path(&ops_doc(r#"[{"op": 3}]"#)), "ops[0].op");
        assert_eq!(err_path(&ops_doc(r#"["alloc"]"#)), "ops[0]");
        assert_eq!(err_path(&ops_doc(r#"{"op": "alloc"}"#)), "ops");
    }

    #[test]
    fn type_and_missing_field_errors() {
        let e = err(&ops_doc(r#"[{"op": "alloc", "order": "9"}]"#));
        assert_eq!(e.path, "ops[0].order");
        assert!(e.message.contains("expected an integer"), "{e}");
        let e = err(&ops_doc(r#"[{"op": "alloc"}]"#));
        assert_eq!(e.path, "ops[0].order");
        assert!(e.message.contains("missing field `order`"), "{e}");
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "alloc", "order": -1}]"#)),
            "ops[0].order"
        );
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "alloc", "order": 1.5}]"#)),
            "ops[0].order"
        );
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "alloc", "order": 300}]"#)),
            "ops[0].order"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op": "alloc", "order": 1, "highatomic": 1}]"#
            )),
            "ops[0].highatomic"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op": "vmalloc", "pages": 1, "strategy": "big"}]"#
            )),
            "ops[0].strategy"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"vmalloc","pages":1,"as":"v"},{"op":"vfree","ref":"v","method":"chunky"}]"#
            )),
            "ops[1].method"
        );
        assert_eq!(err_path(&ops_doc(r#"[{"op": "free"}]"#)), "ops[0].ref");
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "repeat", "ops": []}]"#)),
            "ops[0].times"
        );
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "alloc", "order": 1, "note": 5}]"#)),
            "ops[0].note"
        );
        let e = err(r#"{"version": 1, "kernel": "v7.0"}"#);
        assert_eq!(e.path, "kernel");
        assert!(e.hint.contains("\"v7.1\""), "{e}");
        assert_eq!(err_path(r#"{"version": 1, "init": "bootx"}"#), "init");
        assert_eq!(
            err_path(r#"{"version": 1, "init": {}}"#),
            "init.pagetypeinfo"
        );
        assert_eq!(err_path(r#"{"version": 1, "zone": 5}"#), "zone");
    }

    #[test]
    fn zone_errors() {
        for (zone, path) in [
            (r#"{"pages": 1000}"#, "zone.pages"),
            (r#"{"pages": 4194305}"#, "zone.pages"),
            (r#"{"start_pfn": 1000}"#, "zone.start_pfn"),
            (r#"{"start_pfn": 1099511627776}"#, "zone.start_pfn"),
            (r#"{"cpus": 0}"#, "zone.cpus"),
            (r#"{"cpus": 65}"#, "zone.cpus"),
            (r#"{"pcp": {"batch": 0}}"#, "zone.pcp.batch"),
            (r#"{"pcp": {"high_min": -1}}"#, "zone.pcp.high_min"),
            (r#"{"pcp": {"high_max": 99999999999}}"#, "zone.pcp.high_max"),
            (r#"{"min_free_kbytes": 3000000000}"#, "zone.min_free_kbytes"),
            (r#"{"name": "High Mem"}"#, "zone.name"),
            (r#"{"name": ""}"#, "zone.name"),
        ] {
            assert_eq!(err_path(&doc_with(zone, "[]")), path, "{zone}");
        }
        // The limits themselves are fine; high_min > high_max is the kernel's business.
        for zone in [
            r#"{"pages": 1024, "start_pfn": 2048, "cpus": 64}"#,
            r#"{"pages": 4194304, "pcp": {"batch": 1, "high_min": 10, "high_max": 5}}"#,
        ] {
            parse(&doc_with(zone, "[]")).unwrap();
        }
    }

    #[test]
    fn op_value_errors() {
        let cases = [
            (r#"[{"op": "alloc", "order": 0, "cpu": 1}]"#, "ops[0].cpu"),
            (r#"[{"op": "drain", "cpu": 1}]"#, "ops[0].cpu"),
            (r#"[{"op": "drain", "cpu": "some"}]"#, "ops[0].cpu"),
            (
                r#"[{"op": "repeat", "times": 1, "cpu": 5, "ops": []}]"#,
                "ops[0].cpu",
            ),
            (
                r#"[{"op": "alloc", "order": 0, "mt": "highatomic"}]"#,
                "ops[0].mt",
            ),
            (r#"[{"op": "alloc", "order": 0, "mt": "cma"}]"#, "ops[0].mt"),
            (
                r#"[{"op": "alloc", "order": 0, "mt": "Movable"}]"#,
                "ops[0].mt",
            ),
            (r#"[{"op": "vmalloc", "pages": 0}]"#, "ops[0].pages"),
            (
                r#"[{"op": "alloc_contig_range", "pfn": 0, "nr_pages": 0}]"#,
                "ops[0].nr_pages",
            ),
            (
                r#"[{"op": "alloc_contig_range", "pfn": 262144, "nr_pages": 1}]"#,
                "ops[0].pfn",
            ),
            (
                r#"[{"op": "alloc_contig_range", "pfn": 262000, "nr_pages": 145}]"#,
                "ops[0].nr_pages",
            ),
            (
                r#"[{"op": "free_contig_range", "pfn": 0}]"#,
                "ops[0].nr_pages",
            ),
            (
                r#"[{"op": "free_contig_range", "nr_pages": 3}]"#,
                "ops[0].pfn",
            ),
            (r#"[{"op": "free_contig_range"}]"#, "ops[0]"),
            (
                r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "free_contig_range", "ref": "a", "pfn": 0, "nr_pages": 1}]"#,
                "ops[1].pfn",
            ),
            (
                r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "free_contig_range", "ref": "a", "nr_pages": 1}]"#,
                "ops[1].nr_pages",
            ),
            (
                r#"[{"op": "repeat", "times": 2, "ops": [
                    {"op": "free_contig_range", "pfn": 18446744073709551615, "nr_pages": 2}]}]"#,
                "ops[0].ops[0].pfn",
            ),
        ];
        for (ops, path) in cases {
            assert_eq!(err_path(&ops_doc(ops)), path, "{ops}");
        }
        let e = err(&ops_doc(
            r#"[{"op": "alloc", "order": 0, "mt": "highatomic"}]"#,
        ));
        assert!(e.hint.contains("\"highatomic\": true"), "{e}");
        // With cpus = 4, cpu 3 and drain 3 are fine, 4 is not.
        let four = r#"{"cpus": 4}"#;
        parse(&doc_with(
            four,
            r#"[{"op":"alloc","order":0,"cpu":3},{"op":"drain","cpu":3},{"op":"drain","cpu":"all"}]"#,
        ))
        .unwrap();
        let e = err(&doc_with(four, r#"[{"op":"drain","cpu":4}]"#));
        assert_eq!(e.path, "ops[0].cpu");
        assert!(e.hint.contains("0..=3"), "{e}");
    }

    #[test]
    fn pfn_ranges_are_relative_to_the_zone() {
        let zone = r#"{"pages": 2048, "start_pfn": 4096}"#;
        parse(&doc_with(
            zone,
            r#"[{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 2048}]"#,
        ))
        .unwrap();
        assert_eq!(
            err_path(&doc_with(
                zone,
                r#"[{"op": "alloc_contig_range", "pfn": 4095, "nr_pages": 1}]"#
            )),
            "ops[0].pfn"
        );
        assert_eq!(
            err_path(&doc_with(
                zone,
                r#"[{"op": "free_contig_range", "pfn": 6143, "nr_pages": 2}]"#
            )),
            "ops[0].nr_pages"
        );
    }

    #[test]
    fn workload_errors() {
        let w = |ow: &str, mw: &str, fp: &str| {
            ops_doc(&format!(
                r#"[{{"op":"workload","seed":1,"steps":10,"order_weights":{ow},
                      "mt_weights":{mw},"free_probability":{fp}}}]"#
            ))
        };
        let ow = "[1,0,0,0,0,0,0,0,0,0,0]";
        parse(&w(ow, r#"{"movable": 1}"#, "0.5")).unwrap();
        assert_eq!(
            err_path(&w("[1,2,3]", r#"{"movable":1}"#, "0")),
            "ops[0].order_weights"
        );
        assert_eq!(
            err_path(&w("[1,0,-2,0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
            "ops[0].order_weights[2]"
        );
        assert_eq!(
            err_path(&w("[1,0,\"x\",0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
            "ops[0].order_weights[2]"
        );
        assert_eq!(
            err_path(&w("[0,0,0,0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
            "ops[0].order_weights"
        );
        assert_eq!(
            err_path(&w(ow, r#"{"movable":-1}"#, "0")),
            "ops[0].mt_weights.movable"
        );
        assert_eq!(err_path(&w(ow, "{}", "0")), "ops[0].mt_weights");
        assert_eq!(
            err_path(&w(ow, r#"{"movable":1}"#, "1.5")),
            "ops[0].free_probability"
        );
        assert_eq!(
            err_path(&ops_doc(r#"[{"op":"workload","seed":1,"steps":10}]"#)),
            "ops[0].order_weights"
        );
    }

    #[test]
    fn names_and_scopes() {
        // Unknown ref, in a nested repeat.
        let e = err(&ops_doc(
            r#"[{"op": "drain"}, {"op": "drain"},
                {"op": "repeat", "times": 1, "ops": [{"op": "free", "ref": "nope"}]}]"#,
        ));
        assert_eq!(e.path, "ops[2].ops[0].ref");
        assert!(e.message.contains("`nope` is not bound"), "{e}");

        // A ref before the binding.
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op": "free", "ref": "a"}, {"op": "alloc", "order": 0, "as": "a"}]"#
            )),
            "ops[0].ref"
        );

        // Wrong kind: vfree of an alloc, split of an alloc_contig_range, free of a vmalloc.
        let e = err(&ops_doc(
            r#"[{"op": "alloc", "order": 0, "as": "a"}, {"op": "vfree", "ref": "a"}]"#,
        ));
        assert_eq!(e.path, "ops[1].ref");
        assert!(e.message.contains("names an alloc (ops[0])"), "{e}");
        assert!(e.message.contains("vfree takes a vmalloc"), "{e}");
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"alloc_contig_range","pfn":0,"nr_pages":8,"as":"r"},{"op":"split","ref":"r"}]"#
            )),
            "ops[1].ref"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"vmalloc","pages":8,"as":"v"},{"op":"free","ref":"v"}]"#
            )),
            "ops[1].ref"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"vmalloc","pages":8,"as":"v"},{"op":"free_contig_range","ref":"v"}]"#
            )),
            "ops[1].ref"
        );
        // The accepted kinds.
        parse(&ops_doc(
            r#"[{"op":"alloc","order":2,"as":"a"},{"op":"alloc_contig_range","pfn":0,"nr_pages":8,"as":"r"},
                {"op":"vmalloc","pages":8,"as":"v"},
                {"op":"split","ref":"a"},{"op":"free","ref":"a","page":1},{"op":"free","ref":"r"},
                {"op":"free_contig_range","ref":"a"},{"op":"free_contig_range","ref":"r"},
                {"op":"vfree","ref":"v"}]"#,
        ))
        .unwrap();

        // Rebinding in the same scope, top level and inside a repeat.
        let e = err(&ops_doc(
            r#"[{"op": "alloc", "order": 0, "as": "a"}, {"op": "vmalloc", "pages": 1, "as": "a"}]"#,
        ));
        assert_eq!(e.path, "ops[1].as");
        assert!(
            e.message
                .contains("already bound in this scope (at ops[0])"),
            "{e}"
        );
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op":"repeat","times":2,"ops":[
                    {"op":"alloc","order":0,"as":"x"},{"op":"alloc","order":0,"as":"x"}]}]"#
            )),
            "ops[0].ops[1].as"
        );
        assert_eq!(
            err_path(&ops_doc(r#"[{"op": "alloc", "order": 0, "as": ""}]"#)),
            "ops[0].as"
        );

        // Shadowing in a repeat is fine, and the inner kind wins inside.
        parse(&ops_doc(
            r#"[{"op": "alloc", "order": 0, "as": "a"},
                {"op": "repeat", "times": 3, "ops": [
                    {"op": "free", "ref": "a"},
                    {"op": "vmalloc", "pages": 4, "as": "a"},
                    {"op": "vfree", "ref": "a"},
                    {"op": "repeat", "times": 2, "ops": [{"op": "vfree", "ref": "a"}]}]},
                {"op": "free", "ref": "a"}]"#,
        ))
        .unwrap();
        // ... and after the repeat the outer binding is back.
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "repeat", "times": 1, "ops": [{"op": "vmalloc", "pages": 4, "as": "a"}]},
                    {"op": "vfree", "ref": "a"}]"#
            )),
            "ops[2].ref"
        );

        // A name of an inner scope is gone outside it.
        let e = err(&ops_doc(
            r#"[{"op": "repeat", "times": 1, "ops": [{"op": "alloc", "order": 0, "as": "in"}]},
                {"op": "free", "ref": "in"}]"#,
        ));
        assert_eq!(e.path, "ops[1].ref");
        assert!(e.hint.contains("ops[0].ops[0]"), "{e}");
        assert!(e.hint.contains("scope has ended"), "{e}");
        // Also between two sibling repeats.
        assert_eq!(
            err_path(&ops_doc(
                r#"[{"op": "repeat", "times": 1, "ops": [{"op": "alloc", "order": 0, "as": "in"}]},
                    {"op": "repeat", "times": 1, "ops": [{"op": "free", "ref": "in"}]}]"#
            )),
            "ops[1].ops[0].ref"
        );
    }

    fn nested_repeats(depth: usize) -> String {
        let mut ops = r#"[{"op": "alloc", "order": 0}]"#.to_string();
        for _ in 0..depth {
            ops = format!(r#"[{{"op": "repeat", "times": 1, "ops": {ops}}}]"#);
        }
        ops_doc(&ops)
    }

    #[test]
    fn repeat_depth() {
        parse(&nested_repeats(16)).unwrap();
        let e = err(&nested_repeats(17));
        let want = format!("ops[0]{}", ".ops[0]".repeat(16));
        assert_eq!(e.path, want);
        assert!(e.message.contains("17 deep"), "{e}");
    }

    #[test]
    fn proc_init_defers_pfn_checks() {
        let text = r#"{"version": 1, "init": {"pagetypeinfo": "text"},
                       "ops": [{"op": "alloc_contig_range", "pfn": 300000, "nr_pages": 1}]}"#;
        let s = parse(text).unwrap();
        assert_eq!(s.static_zone_pages(), None);
        let e = validate_with_zone_pages(&s, 262_144).unwrap_err();
        assert_eq!(e.path, "ops[0].pfn");
        validate_with_zone_pages(&s, 524_288).unwrap();
        let e = validate_with_zone_pages(&s, 512).unwrap_err();
        assert_eq!(e.path, "init.pagetypeinfo");

        // With zone.pages, the size is known (any other final size is an error).
        let text = r#"{"version": 1, "init": {"pagetypeinfo": "t", "zoneinfo": "z"},
                       "zone": {"pages": 4096},
                       "ops": [{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 1}]}"#;
        assert_eq!(err_path(text), "ops[0].pfn");
        let e = validate_with_zone_pages(
            &parse(r#"{"version": 1, "init": {"pagetypeinfo": "t"}, "zone": {"pages": 4096}}"#)
                .unwrap(),
            8192,
        )
        .unwrap_err();
        assert_eq!(e.path, "zone.pages");

        // Pfns below start_pfn are caught without a size.
        let text = r#"{"version": 1, "init": {"pagetypeinfo": "t"}, "zone": {"start_pfn": 1024},
                       "ops": [{"op": "free_contig_range", "pfn": 5, "nr_pages": 1}]}"#;
        assert_eq!(err_path(text), "ops[0].pfn");

        assert_eq!(
            err_path(r#"{"version": 1, "init": {"pagetypeinfo": " "}}"#),
            "init.pagetypeinfo"
        );
        assert_eq!(
            err_path(r#"{"version": 1, "init": {"pagetypeinfo": "t", "zoneinfo": ""}}"#),
            "init.zoneinfo"
        );
        assert_eq!(
            err_path(r#"{"version": 1, "init": {"pagetypeinfo": "t", "zone": "Nor mal"}}"#),
            "init.zone"
        );
    }

    #[test]
    fn proc_zone_size_rule() {
        let proc = |zone: &str, zoneinfo: bool| {
            let zi = if zoneinfo { r#", "zoneinfo": "z""# } else { "" };
            parse(&format!(
                r#"{{"version": 1, "zone": {zone}, "init": {{"pagetypeinfo": "t"{zi}}}}}"#
            ))
            .unwrap()
        };
        // managed wins; zone.pages must agree with it.
        assert_eq!(
            proc("{}", true).resolve_proc_zone_pages(Some(1500), 3),
            Ok(1500)
        );
        assert_eq!(
            proc(r#"{"pages": 2048}"#, true)
                .resolve_proc_zone_pages(Some(1500), 3)
                .unwrap_err()
                .path,
            "zone.pages"
        );
        // else zone.pages, else Σ pageblocks × 512.
        assert_eq!(
            proc(r#"{"pages": 2048}"#, false).resolve_proc_zone_pages(None, 4),
            Ok(2048)
        );
        assert_eq!(proc("{}", false).resolve_proc_zone_pages(None, 8), Ok(4096));
        // counts must sum to ⌈size / 512⌉.
        assert_eq!(
            proc("{}", true)
                .resolve_proc_zone_pages(Some(1500), 2)
                .unwrap_err()
                .path,
            "init.pagetypeinfo"
        );
        assert_eq!(
            proc("{}", false)
                .resolve_proc_zone_pages(None, 1)
                .unwrap_err()
                .path,
            "init.pagetypeinfo"
        );
        assert_eq!(
            Scenario::default().resolve_proc_zone_pages(None, 0),
            Ok(DEFAULT_ZONE_PAGES)
        );
    }

    #[test]
    fn derived_deserialize_also_denies_unknown_fields() {
        assert!(serde_json::from_str::<Scenario>(
            r#"{"version": 1, "ops": [{"op": "alloc", "order": 1, "ordr": 2}]}"#
        )
        .is_err());
        assert!(serde_json::from_str::<Scenario>(r#"{"version": 1, "x": 1}"#).is_err());
        assert!(serde_json::from_str::<Scenario>(r#"{"version": 1, "init": "bot"}"#).is_err());
        assert!(serde_json::from_str::<Scenario>(
            r#"{"version": 1, "init": {"pagetypeinfo": "t", "y": 1}}"#
        )
        .is_err());
    }

    #[test]
    fn validate_checks_scenarios_built_in_code() {
        let mut s = Scenario::default();
        s.ops.push(Op::Alloc {
            order: 12,
            mt: MigrateType::Unmovable,
            highatomic: false,
            as_name: None,
            cpu: None,
            note: None,
        });
        assert_eq!(validate(&s).unwrap_err().path, "ops[0].order");
        s.ops[0] = Op::Workload {
            seed: 0,
            steps: 1,
            order_weights: [f64::NAN; NR_PAGE_ORDERS],
            mt_weights: MtWeights::default(),
            free_probability: 0.0,
            cpu: None,
            note: None,
        };
        assert_eq!(validate(&s).unwrap_err().path, "ops[0].order_weights[0]");
        s.ops.clear();
        s.version = 3;
        assert_eq!(validate(&s).unwrap_err().path, "version");
    }

    #[test]
    fn scopes_helper() {
        let mut sc: Scopes<u32> = Scopes::new();
        assert_eq!(sc.depth(), 0);
        assert!(sc.pop().is_none(), "the root scope stays");
        sc.bind("a", 1).unwrap();
        assert_eq!(sc.bind("a", 2), Err(2));
        sc.push();
        sc.bind("a", 3).unwrap();
        sc.bind("b", 4).unwrap();
        assert_eq!(sc.lookup("a"), Some(&3));
        assert_eq!(sc.lookup_here("a"), Some(&3));
        *sc.lookup_mut("a").unwrap() += 10;
        assert_eq!(sc.visible(), vec![("a", &13), ("b", &4)]);
        let frame = sc.pop().unwrap();
        assert_eq!(frame.len(), 2);
        assert_eq!(sc.lookup("a"), Some(&1));
        assert_eq!(sc.lookup("b"), None);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("ordr", ["order", "mt"]), Some("order"));
        assert_eq!(suggest("zzzz", ["order", "mt"]), None);
        assert_eq!(
            suggest("Movable", ["unmovable", "movable"]),
            Some("movable")
        );
        assert_eq!(quoted_choices(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
    }
}
