//! Exact snapshots of a whole node (version 2, `tools/drgn/snapshot.py --node`): every zone of
//! the node with its free lists in list order, pageblock types, every CPU's pcp lists and
//! `per_cpu_pages` state, watermarks, boost, `lowmem_reserve` and `nr_reserved_highatomic`.
//! The reader is strict (unknown fields are errors, with JSON paths); the format is in
//! docs/scenario-format-extensions.md ("Node snapshots").
//!
//! The model keeps a zone's MAX_PAGE_ORDER buddies aligned to its start, so a zone starts at the
//! snapshot's `start_pfn` rounded down to 1024; the pages from there to the real start, and the
//! pages of `"Absent"` pageblocks (no memmap: a hole), are never free: they are allocated pages
//! of Unmovable pageblocks on the map, on no list, and the comparison with another snapshot
//! skips them.

use super::error::ScenarioError;
use crate::mm::Engine;
use crate::mm::*;
use crate::mm::{Node, ZoneType, MAX_NR_ZONES, WMARK_HIGH, WMARK_LOW, WMARK_MIN, WMARK_PROMO};
use crate::scenario::zone_snapshot::{SnapFreeList, SnapPcpList};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

type Res<T> = Result<T, ScenarioError>;

/// One CPU's `struct per_cpu_pages` scalars (the fields that exist in the dumped kernel).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PcpState {
    /// The CPU.
    pub cpu: u32,
    /// `count`: pages on its lists.
    pub count: i64,
    /// `high`.
    pub high: i64,
    /// `high_min`, where the kernel has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_min: Option<i64>,
    /// `high_max`, where the kernel has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_max: Option<i64>,
    /// `batch`.
    pub batch: i64,
    /// `free_count`, where the kernel has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_count: Option<i64>,
    /// `flags` (`PCPF_*`), where the kernel has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u64>,
    /// `alloc_factor`, where the kernel has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alloc_factor: Option<i64>,
}

/// `zone->_watermark[WMARK_MIN..=WMARK_HIGH]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Watermarks {
    /// `WMARK_MIN`.
    pub min: u64,
    /// `WMARK_LOW`.
    pub low: u64,
    /// `WMARK_HIGH`.
    pub high: u64,
}

/// A pageblock's type, or `"Absent"` (its mem_section has no memmap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapPageblock {
    /// Its migratetype.
    Type(MigrateType),
    /// No memmap: the pageblock is not memory the zone has.
    Absent,
}

impl Serialize for SnapPageblock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SnapPageblock::Type(mt) => s.serialize_str(mt.kernel_name()),
            SnapPageblock::Absent => s.serialize_str("Absent"),
        }
    }
}

fn pageblock_name(s: &str) -> Option<SnapPageblock> {
    if s == "Absent" {
        return Some(SnapPageblock::Absent);
    }
    MigrateType::ALL
        .into_iter()
        .find(|m| m.kernel_name() == s || m.slug() == s)
        .map(SnapPageblock::Type)
}

/// One zone of a node snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapZone {
    /// The zone's name.
    pub zone: String,
    /// Its first pfn (`zone_start_pfn`).
    pub start_pfn: u64,
    pub(crate) spanned_pages: u64,
    pub(crate) present_pages: u64,
    pub(crate) managed_pages: u64,
    /// Its pageblocks' types, from the pageblock of `start_pfn` on.
    pub pageblocks: Vec<SnapPageblock>,
    /// Its free lists.
    pub free_area: Vec<SnapFreeList>,
    /// `free_area[order].nr_free`, by order.
    pub nr_free: Vec<u64>,
    /// Its pcp lists.
    pub pcp: Vec<SnapPcpList>,
    /// Every CPU's pcp scalars.
    pub pcp_state: Vec<PcpState>,
    /// Its watermarks.
    pub watermark: Watermarks,
    /// `watermark_boost`.
    pub watermark_boost: u64,
    /// `lowmem_reserve[]`.
    pub lowmem_reserve: Vec<u64>,
    pub(crate) nr_reserved_highatomic: u64,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) vm_stat: BTreeMap<String, i64>,
}

impl SnapZone {
    /// The model zone's first pfn: `start_pfn` rounded down to 1024.
    pub fn model_start(&self) -> u64 {
        self.start_pfn & !(super::bounds::ZONE_START_ALIGN - 1)
    }

    /// The first pfn the snapshot's `pageblocks` describe.
    fn pb_start(&self) -> u64 {
        self.start_pfn & !(u64::from(PAGEBLOCK_NR_PAGES) - 1)
    }

    fn end(&self) -> u64 {
        self.start_pfn + self.spanned_pages
    }

    /// The model zone's pages: from [`SnapZone::model_start`] to the zone's end.
    pub fn model_pages(&self) -> u64 {
        self.end() - self.model_start()
    }

    /// The type of the pageblock holding absolute `pfn` (`None`: absent, or before the
    /// zone's real start).
    pub fn pageblock_at(&self, pfn: u64) -> Option<MigrateType> {
        if pfn < self.pb_start() {
            return None;
        }
        match self
            .pageblocks
            .get(((pfn - self.pb_start()) >> PAGEBLOCK_ORDER) as usize)?
        {
            SnapPageblock::Type(mt) => Some(*mt),
            SnapPageblock::Absent => None,
        }
    }
}

/// A validated node snapshot (version 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeSnapshot {
    /// The snapshot format's version (2).
    pub version: u32,
    /// The dumped kernel's `uname -r`, if the snapshot says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The node dumped.
    pub node: u32,
    /// The kernel has `CONFIG_CMA`.
    pub cma: bool,
    /// The kernel's `migratetype_names[]`.
    pub migratetype_names: Vec<String>,
    /// CPUs.
    pub cpus: u32,
    /// The node's zones, in pfn order.
    pub zones: Vec<SnapZone>,
}

impl NodeSnapshot {
    /// The behaviour profile of the dumped kernel (`kernel`, its `uname -r`), if one exists.
    pub fn kernel_profile(&self) -> Option<Kernel> {
        self.kernel.as_deref().and_then(Kernel::from_uname)
    }
}

fn err(path: &str, message: impl Into<String>, hint: &str) -> ScenarioError {
    ScenarioError::new(path, message, hint)
}

const HINT: &str = "see \"Node snapshots\" in docs/scenario-format-extensions.md";

fn obj<'a>(v: &'a Value, path: &str, keys: &[&str]) -> Res<&'a Map<String, Value>> {
    let m = v
        .as_object()
        .ok_or_else(|| err(path, format!("expected an object, found {v}"), HINT))?;
    if let Some(k) = m.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(err(
            &format!("{path}.{k}"),
            format!("unknown field `{k}`"),
            &format!("the fields are {}", keys.join(", ")),
        ));
    }
    Ok(m)
}

fn req<'a>(m: &'a Map<String, Value>, path: &str, k: &str) -> Res<&'a Value> {
    m.get(k).ok_or_else(|| {
        err(
            path,
            format!("missing field `{k}`"),
            "tools/drgn/snapshot.py --node writes every field",
        )
    })
}

fn uint(v: &Value, path: &str, max: u64) -> Res<u64> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        _ => Err(err(
            path,
            format!("expected an integer 0..={max}, found {v}"),
            HINT,
        )),
    }
}

fn int(v: &Value, path: &str) -> Res<i64> {
    v.as_i64()
        .ok_or_else(|| err(path, format!("expected an integer, found {v}"), HINT))
}

fn array<'a>(v: &'a Value, path: &str, what: &str) -> Res<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| {
        err(
            path,
            format!("expected an array of {what}, found {v}"),
            HINT,
        )
    })
}

fn string(v: &Value, path: &str) -> Res<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| err(path, format!("expected a string, found {v}"), HINT))
}

const MAX_PFN: u64 = u64::MAX >> 12;

/// Reads and checks a version-2 node snapshot at JSON path `path`.
pub fn from_value(v: &Value, path: &str) -> Res<NodeSnapshot> {
    let m = obj(
        v,
        path,
        &[
            "version",
            "kernel",
            "node",
            "cma",
            "migratetype_names",
            "cpus",
            "zones",
        ],
    )?;
    let p = |k: &str| format!("{path}.{k}");
    let version = uint(req(m, path, "version")?, &p("version"), u32::MAX as u64)? as u32;
    if version != 2 {
        return Err(err(
            &p("version"),
            format!("a node snapshot is version 2, not {version}"),
            HINT,
        ));
    }
    let kernel = m
        .get("kernel")
        .map(|k| string(k, &p("kernel")))
        .transpose()?;
    let node = uint(req(m, path, "node")?, &p("node"), u32::MAX as u64)? as u32;
    let cma = req(m, path, "cma")?
        .as_bool()
        .ok_or_else(|| err(&p("cma"), "expected true or false", HINT))?;
    let names = array(
        req(m, path, "migratetype_names")?,
        &p("migratetype_names"),
        "names",
    )?
    .iter()
    .enumerate()
    .map(|(i, n)| string(n, &format!("{path}.migratetype_names[{i}]")))
    .collect::<Res<Vec<_>>>()?;
    // The model's migratetype numbers are the kernel's: the names must be its, in its order.
    let want: Vec<&str> = MigrateType::ALL
        .into_iter()
        .filter(|&t| cma || t != MigrateType::Cma)
        .map(MigrateType::kernel_name)
        .collect();
    if names != want {
        return Err(err(
            &p("migratetype_names"),
            format!("migratetype_names {names:?}; with cma {cma} the model has {want:?}"),
            "cma must say whether the names include CMA (CONFIG_CMA); other names are another kernel's",
        ));
    }
    let cpus = uint(req(m, path, "cpus")?, &p("cpus"), u64::from(MAX_CPUS))? as u32;
    if cpus == 0 {
        return Err(err(&p("cpus"), "0 CPUs", "nr_cpu_ids is at least 1"));
    }
    let zs = array(req(m, path, "zones")?, &p("zones"), "zones")?;
    if zs.is_empty() {
        return Err(err(
            &p("zones"),
            "no zones",
            "a node snapshot lists its zones with spanned_pages > 0",
        ));
    }
    let mut zones: Vec<SnapZone> = Vec::new();
    let mut total = 0u64;
    for (i, z) in zs.iter().enumerate() {
        let zp = format!("{path}.zones[{i}]");
        let z = zone_from_value(z, &zp, cpus)?;
        let ty = ZoneType::from_name(&z.zone)
            .filter(|t| *t <= ZoneType::Normal)
            .ok_or_else(|| {
                err(
                    &format!("{zp}.zone"),
                    format!("zone {:?} is not a zone the model's node holds", z.zone),
                    "the zones are DMA, DMA32 and Normal",
                )
            })?;
        if let Some(prev) = zones.last() {
            let pty = ZoneType::for_zone_named(&prev.zone);
            if ty <= pty || z.model_start() < prev.end() {
                return Err(err(
                    &format!("{zp}.start_pfn"),
                    format!(
                        "zone {} at pfn {:#x} (the model aligns it to {:#x}) does not follow zone {} ending at {:#x}",
                        z.zone,
                        z.start_pfn,
                        z.model_start(),
                        prev.zone,
                        prev.end()
                    ),
                    "zones come in the kernel's order, DMA, DMA32, Normal, without overlapping",
                ));
            }
        }
        total += z.model_pages();
        if total > MAX_NODE_PAGES {
            return Err(err(
                &format!("{zp}.spanned_pages"),
                format!("the zones up to {} span {total} pages, more than a node's {MAX_NODE_PAGES} (64 GiB)", z.zone),
                "the model holds at most a 64 GiB node",
            ));
        }
        zones.push(z);
    }
    Ok(NodeSnapshot {
        version,
        kernel,
        node,
        cma,
        migratetype_names: names,
        cpus,
        zones,
    })
}

fn zone_from_value(v: &Value, zp: &str, cpus: u32) -> Res<SnapZone> {
    let m = obj(
        v,
        zp,
        &[
            "zone",
            "start_pfn",
            "spanned_pages",
            "present_pages",
            "managed_pages",
            "pageblocks",
            "free_area",
            "nr_free",
            "pcp",
            "pcp_state",
            "watermark",
            "watermark_boost",
            "lowmem_reserve",
            "nr_reserved_highatomic",
            "vm_stat",
        ],
    )?;
    let p = |k: &str| format!("{zp}.{k}");
    let zone = string(req(m, zp, "zone")?, &p("zone"))?;
    let start_pfn = uint(req(m, zp, "start_pfn")?, &p("start_pfn"), MAX_PFN)?;
    let spanned_pages = uint(
        req(m, zp, "spanned_pages")?,
        &p("spanned_pages"),
        MAX_NODE_PAGES,
    )?;
    if spanned_pages == 0 {
        return Err(err(
            &p("spanned_pages"),
            "an empty zone",
            "zones with spanned_pages 0 are left out",
        ));
    }
    let present_pages = uint(
        req(m, zp, "present_pages")?,
        &p("present_pages"),
        spanned_pages,
    )?;
    let managed_pages = uint(
        req(m, zp, "managed_pages")?,
        &p("managed_pages"),
        present_pages,
    )?;
    let mut z = SnapZone {
        zone,
        start_pfn,
        spanned_pages,
        present_pages,
        managed_pages,
        pageblocks: Vec::new(),
        free_area: Vec::new(),
        nr_free: Vec::new(),
        pcp: Vec::new(),
        pcp_state: Vec::new(),
        watermark: Watermarks {
            min: 0,
            low: 0,
            high: 0,
        },
        watermark_boost: 0,
        lowmem_reserve: Vec::new(),
        nr_reserved_highatomic: 0,
        vm_stat: BTreeMap::new(),
    };
    if z.model_pages() < MIN_ZONE_PAGES {
        return Err(err(
            &p("spanned_pages"),
            format!(
                "a zone of {} pages from pfn {:#x}",
                z.model_pages(),
                z.model_start()
            ),
            &format!("the model's zones have at least {MIN_ZONE_PAGES} pages"),
        ));
    }
    let pbs = array(
        req(m, zp, "pageblocks")?,
        &p("pageblocks"),
        "pageblock types",
    )?;
    let want = (z.end() - z.pb_start()).div_ceil(u64::from(PAGEBLOCK_NR_PAGES)) as usize;
    if pbs.len() != want {
        return Err(err(
            &p("pageblocks"),
            format!(
                "{} pageblocks, but pfns {:#x}..{:#x} hold {want}",
                pbs.len(),
                z.pb_start(),
                z.end()
            ),
            "one per pageblock from start_pfn rounded down to 512 to start_pfn + spanned_pages",
        ));
    }
    for (i, b) in pbs.iter().enumerate() {
        let bp = format!("{zp}.pageblocks[{i}]");
        let name = string(b, &bp)?;
        z.pageblocks.push(pageblock_name(&name).ok_or_else(|| {
            err(
                &bp,
                format!("unknown pageblock type {name:?}"),
                "one of Unmovable, Movable, Reclaimable, HighAtomic, CMA, Isolate, Absent",
            )
        })?);
    }
    // Every free page in one list, inside the zone, in a present pageblock.
    let base = z.model_start();
    let mut covered = vec![false; z.model_pages() as usize];
    let mut claim = |z: &SnapZone, pfn: u64, order: u8, at: &str| -> Res<()> {
        let n = 1u64 << order;
        if pfn < z.start_pfn || pfn + n > z.end() {
            return Err(err(
                at,
                format!("order-{order} block at pfn {pfn:#x} is outside the zone"),
                HINT,
            ));
        }
        if pfn & (n - 1) != 0 {
            return Err(err(
                at,
                format!("pfn {pfn:#x} is not aligned to order {order}"),
                HINT,
            ));
        }
        if (pfn..pfn + n)
            .step_by(PAGEBLOCK_NR_PAGES as usize)
            .any(|q| z.pageblock_at(q).is_none())
        {
            return Err(err(
                at,
                format!("order-{order} block at pfn {pfn:#x} lies in an Absent pageblock"),
                HINT,
            ));
        }
        let r = (pfn - base) as usize..(pfn - base + n) as usize;
        if covered[r.clone()].iter().any(|&c| c) {
            return Err(err(
                at,
                format!("order-{order} block at pfn {pfn:#x} overlaps another free block"),
                "every free page is in exactly one free_area or pcp list",
            ));
        }
        covered[r].fill(true);
        Ok(())
    };
    let mut nr_free = [0u64; NR_PAGE_ORDERS];
    for (i, l) in array(req(m, zp, "free_area")?, &p("free_area"), "free lists")?
        .iter()
        .enumerate()
    {
        let lp = format!("{zp}.free_area[{i}]");
        let lm = obj(l, &lp, &["order", "migratetype", "pfns"])?;
        let order = uint(
            req(lm, &lp, "order")?,
            &format!("{lp}.order"),
            u64::from(MAX_PAGE_ORDER),
        )? as u8;
        let mts = string(req(lm, &lp, "migratetype")?, &format!("{lp}.migratetype"))?;
        let migratetype = match pageblock_name(&mts) {
            Some(SnapPageblock::Type(mt)) => mt,
            _ => {
                return Err(err(
                    &format!("{lp}.migratetype"),
                    format!("unknown migratetype {mts:?}"),
                    "one of Unmovable, Movable, Reclaimable, HighAtomic, CMA, Isolate",
                ))
            }
        };
        if z.free_area
            .iter()
            .any(|f: &SnapFreeList| f.order == order && f.migratetype == migratetype)
        {
            return Err(err(
                &lp,
                format!("a second order-{order} {mts} list"),
                "one entry per list",
            ));
        }
        let pfns = pfns(req(lm, &lp, "pfns")?, &format!("{lp}.pfns"))?;
        for (j, &pfn) in pfns.iter().enumerate() {
            claim(&z, pfn, order, &format!("{lp}.pfns[{j}]"))?;
        }
        nr_free[order as usize] += pfns.len() as u64;
        z.free_area.push(SnapFreeList {
            order,
            migratetype,
            pfns,
        });
    }
    let nf = array(req(m, zp, "nr_free")?, &p("nr_free"), "counts")?;
    if nf.len() != NR_PAGE_ORDERS {
        return Err(err(
            &p("nr_free"),
            format!("{} counts", nf.len()),
            "one per order 0..=10",
        ));
    }
    for (o, c) in nf.iter().enumerate() {
        let c = uint(c, &format!("{zp}.nr_free[{o}]"), u64::MAX)?;
        if c != nr_free[o] {
            return Err(err(
                &format!("{zp}.nr_free[{o}]"),
                format!(
                    "nr_free[{o}] is {c}, but the order-{o} lists hold {} blocks",
                    nr_free[o]
                ),
                "the lists and nr_free were read at different moments (dump with the VM stopped)",
            ));
        }
        z.nr_free.push(c);
    }
    for (i, l) in array(req(m, zp, "pcp")?, &p("pcp"), "pcp lists")?
        .iter()
        .enumerate()
    {
        let lp = format!("{zp}.pcp[{i}]");
        let lm = obj(l, &lp, &["cpu", "pindex", "pfns"])?;
        let cpu = uint(
            req(lm, &lp, "cpu")?,
            &format!("{lp}.cpu"),
            u64::from(cpus) - 1,
        )? as u32;
        let pindex = uint(
            req(lm, &lp, "pindex")?,
            &format!("{lp}.pindex"),
            NR_PCP_LISTS as u64 - 1,
        )? as u8;
        let pfns = pfns(req(lm, &lp, "pfns")?, &format!("{lp}.pfns"))?;
        let order = pindex_to_order(pindex as usize);
        for (j, &pfn) in pfns.iter().enumerate() {
            claim(&z, pfn, order, &format!("{lp}.pfns[{j}]"))?;
        }
        z.pcp.push(SnapPcpList { cpu, pindex, pfns });
    }
    for (i, s) in array(req(m, zp, "pcp_state")?, &p("pcp_state"), "CPU states")?
        .iter()
        .enumerate()
    {
        let sp = format!("{zp}.pcp_state[{i}]");
        let sm = obj(
            s,
            &sp,
            &[
                "cpu",
                "count",
                "high",
                "high_min",
                "high_max",
                "batch",
                "free_count",
                "flags",
                "alloc_factor",
            ],
        )?;
        let f = |k: &str| sm.get(k).map(|v| int(v, &format!("{sp}.{k}"))).transpose();
        let cpu = uint(
            req(sm, &sp, "cpu")?,
            &format!("{sp}.cpu"),
            u64::from(cpus) - 1,
        )? as u32;
        if z.pcp_state.iter().any(|s| s.cpu == cpu) {
            return Err(err(
                &format!("{sp}.cpu"),
                format!("CPU {cpu} twice"),
                "one state per CPU",
            ));
        }
        let st = PcpState {
            cpu,
            count: int(req(sm, &sp, "count")?, &format!("{sp}.count"))?,
            high: int(req(sm, &sp, "high")?, &format!("{sp}.high"))?,
            high_min: f("high_min")?,
            high_max: f("high_max")?,
            batch: int(req(sm, &sp, "batch")?, &format!("{sp}.batch"))?,
            free_count: f("free_count")?,
            flags: sm
                .get("flags")
                .map(|v| uint(v, &format!("{sp}.flags"), u64::from(u8::MAX)))
                .transpose()?,
            alloc_factor: f("alloc_factor")?,
        };
        for (k, v) in [("count", st.count), ("high", st.high), ("batch", st.batch)] {
            if !(0..=i64::from(super::bounds::MAX_PCP_VALUE)).contains(&v) {
                return Err(err(
                    &format!("{sp}.{k}"),
                    format!("{k} {v} is out of range"),
                    HINT,
                ));
            }
        }
        let held: i64 = z
            .pcp
            .iter()
            .filter(|l| l.cpu == cpu)
            .map(|l| (l.pfns.len() as i64) << pindex_to_order(l.pindex as usize))
            .sum();
        if held != st.count {
            return Err(err(
                &format!("{sp}.count"),
                format!(
                    "count {} but CPU {cpu}'s pcp lists hold {held} pages",
                    st.count
                ),
                "the lists and count were read at different moments (dump with the VM stopped)",
            ));
        }
        z.pcp_state.push(st);
    }
    if let Some(c) = (0..cpus).find(|c| !z.pcp_state.iter().any(|s| s.cpu == *c)) {
        return Err(err(
            &p("pcp_state"),
            format!("no state for CPU {c}"),
            "one state per possible CPU (0..cpus)",
        ));
    }
    let wm = obj(
        req(m, zp, "watermark")?,
        &p("watermark"),
        &["min", "low", "high"],
    )?;
    let w = |k: &str| {
        uint(
            req(wm, &p("watermark"), k)?,
            &format!("{zp}.watermark.{k}"),
            MAX_NODE_PAGES,
        )
    };
    z.watermark = Watermarks {
        min: w("min")?,
        low: w("low")?,
        high: w("high")?,
    };
    if !(z.watermark.min <= z.watermark.low && z.watermark.low <= z.watermark.high) {
        return Err(err(&p("watermark"), "min ≤ low ≤ high does not hold", HINT));
    }
    z.watermark_boost = uint(
        req(m, zp, "watermark_boost")?,
        &p("watermark_boost"),
        MAX_NODE_PAGES,
    )?;
    let lr = array(
        req(m, zp, "lowmem_reserve")?,
        &p("lowmem_reserve"),
        "page counts",
    )?;
    if lr.len() < MAX_NR_ZONES {
        return Err(err(
            &p("lowmem_reserve"),
            format!("{} entries", lr.len()),
            "one per zone type of the kernel (MAX_NR_ZONES, at least DMA, DMA32, Normal, Movable)",
        ));
    }
    for (i, x) in lr.iter().enumerate() {
        z.lowmem_reserve
            .push(uint(x, &format!("{zp}.lowmem_reserve[{i}]"), u64::MAX)?);
    }
    z.nr_reserved_highatomic = uint(
        req(m, zp, "nr_reserved_highatomic")?,
        &p("nr_reserved_highatomic"),
        z.spanned_pages,
    )?;
    if let Some(vs) = m.get("vm_stat") {
        let vm = vs
            .as_object()
            .ok_or_else(|| err(&p("vm_stat"), "expected an object of counters", HINT))?;
        for (k, v) in vm {
            z.vm_stat
                .insert(k.clone(), int(v, &format!("{zp}.vm_stat.{k}"))?);
        }
    }
    Ok(z)
}

fn pfns(v: &Value, path: &str) -> Res<Vec<u64>> {
    array(v, path, "pfns")?
        .iter()
        .enumerate()
        .map(|(i, x)| uint(x, &format!("{path}[{i}]"), MAX_PFN))
        .collect()
}

/// The model pageblock type of a snapshot pageblock: an absent one (a hole) is Unmovable and
/// wholly allocated.
fn model_type(b: Option<MigrateType>) -> MigrateType {
    b.unwrap_or(MigrateType::Unmovable)
}

/// Lays snapshot zone `z` into the empty model zone of `engine` (from `setup::new_zone` with
/// [`SnapZone::model_start`] and [`SnapZone::model_pages`]): pageblock types, the free lists
/// and pcp lists in list order, every other page allocated; then the zone's and every CPU's
/// scalars. Nothing is recorded.
pub fn apply_zone(engine: &mut Engine, z: &SnapZone) {
    let recording = engine.recording;
    engine.recording = false;
    let base = z.model_start();
    let types: Vec<MigrateType> = (0..engine.zone().nr_pageblocks())
        .map(|pb| model_type(z.pageblock_at(base + ((pb as u64) << PAGEBLOCK_ORDER))))
        .collect();
    let v1 = crate::scenario::zone_snapshot::Snapshot {
        version: 1,
        zone: z.zone.clone(),
        start_pfn: base,
        pages: z.model_pages(),
        pageblocks: types,
        free_area: z.free_area.clone(),
        pcp: z.pcp.clone(),
    };
    crate::scenario::zone_snapshot::apply(engine, &v1);
    let zone = engine.zone_mut();
    zone.watermark[WMARK_MIN] = z.watermark.min;
    zone.watermark[WMARK_LOW] = z.watermark.low;
    zone.watermark[WMARK_HIGH] = z.watermark.high;
    // __setup_per_zone_wmarks: promo = high + the same distance (v7.2.13 mm/page_alloc.c:6560).
    zone.watermark[WMARK_PROMO] = z.watermark.high + (z.watermark.high - z.watermark.low);
    zone.watermark_boost = z.watermark_boost as i64;
    for (i, r) in zone.lowmem_reserve.iter_mut().enumerate() {
        *r = z.lowmem_reserve[i];
    }
    zone.nr_reserved_highatomic = z.nr_reserved_highatomic as i64;
    zone.cma_pages = z
        .pageblocks
        .iter()
        .filter(|b| **b == SnapPageblock::Type(MigrateType::Cma))
        .count() as u64
        * u64::from(PAGEBLOCK_NR_PAGES);
    for s in &z.pcp_state {
        let pcp = &mut zone.pcp[s.cpu as usize];
        pcp.high = s.high as i32;
        pcp.batch = s.batch as i32;
        if let Some(v) = s.high_min {
            pcp.high_min = v as i32;
        }
        if let Some(v) = s.high_max {
            pcp.high_max = v as i32;
        }
        if let Some(v) = s.free_count {
            pcp.free_count = v as i32;
        }
        if let Some(v) = s.alloc_factor {
            pcp.alloc_factor = v as i32;
        }
        if let Some(f) = s.flags {
            // PCPF_PREV_FREE_HIGH_ORDER BIT(0), PCPF_FREE_HIGH_BATCH BIT(1) (include/linux/mmzone.h).
            pcp.prev_free_high_order = f & 1 != 0;
            pcp.free_high_batch = f & 2 != 0;
        }
    }
    engine.reset_stats();
    engine.recording = recording;
}

/// The model's node as a version-2 node snapshot in the format of `template` (the snapshot the
/// run started from): the zones' geometry, `lowmem_reserve` and the kernel's name come from the
/// template; the free lists in list order, the pageblock types (the template's `"Absent"` ones
/// kept), `nr_free`, the pcp lists and every CPU's scalars, the watermarks, boost and
/// `nr_reserved_highatomic` from the model. Another replay can start from it: a long trace cut
/// at a line continues where this one stopped.
pub fn of_node(node: &Node, template: &NodeSnapshot) -> NodeSnapshot {
    let zones = template
        .zones
        .iter()
        .map(|t| {
            let Some(mz) = node.zones().iter().find(|m| m.cfg().name == t.zone) else {
                return t.clone();
            };
            let mut free_area = Vec::new();
            for o in 0..NR_PAGE_ORDERS as u8 {
                for mt in MigrateType::ALL {
                    let pfns: Vec<u64> = mz.free_list_abs_pfns(o, mt);
                    if !pfns.is_empty() {
                        free_area.push(SnapFreeList {
                            order: o,
                            migratetype: mt,
                            pfns,
                        });
                    }
                }
            }
            let mut pcp = Vec::new();
            for cpu in 0..mz.pcp.len() {
                for pi in 0..NR_PCP_LISTS {
                    let pfns: Vec<u64> = mz.pcp_list_abs_pfns(cpu, pi);
                    if !pfns.is_empty() {
                        pcp.push(SnapPcpList {
                            cpu: cpu as u32,
                            pindex: pi as u8,
                            pfns,
                        });
                    }
                }
            }
            let pb_start = t.pb_start();
            let pageblocks = t
                .pageblocks
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let pfn = pb_start + ((i as u64) << PAGEBLOCK_ORDER);
                    match (b, pfn.checked_sub(mz.abs_pfn(0))) {
                        (SnapPageblock::Type(_), Some(off)) => {
                            SnapPageblock::Type(mz.pb_mt((off >> PAGEBLOCK_ORDER) as u32))
                        }
                        _ => *b,
                    }
                })
                .collect();
            let pcp_state = t
                .pcp_state
                .iter()
                .map(|s| {
                    let p = &mz.pcp[s.cpu as usize];
                    // Only the fields the dumped kernel has (the template's), from the model.
                    PcpState {
                        cpu: s.cpu,
                        count: i64::from(p.count),
                        high: i64::from(p.high),
                        high_min: s.high_min.map(|_| i64::from(p.high_min)),
                        high_max: s.high_max.map(|_| i64::from(p.high_max)),
                        batch: i64::from(p.batch),
                        free_count: s.free_count.map(|_| i64::from(p.free_count)),
                        flags: s.flags.map(|_| {
                            u64::from(p.prev_free_high_order) | (u64::from(p.free_high_batch) << 1)
                        }),
                        alloc_factor: s.alloc_factor.map(|_| i64::from(p.alloc_factor)),
                    }
                })
                .collect();
            SnapZone {
                pageblocks,
                free_area,
                nr_free: mz.nr_free().to_vec(),
                pcp,
                pcp_state,
                watermark: Watermarks {
                    min: mz.watermark[WMARK_MIN],
                    low: mz.watermark[WMARK_LOW],
                    high: mz.watermark[WMARK_HIGH],
                },
                watermark_boost: mz.watermark_boost.max(0) as u64,
                nr_reserved_highatomic: mz.nr_reserved_highatomic.max(0) as u64,
                // The kernel's counters are not the model's: left out rather than copied stale.
                vm_stat: BTreeMap::new(),
                ..t.clone()
            }
        })
        .collect();
    NodeSnapshot {
        zones,
        ..template.clone()
    }
}

/// The differences between the model's node and a node snapshot (every free list in list
/// order, every present pageblock's type, every pcp list in list order), one line each; empty
/// when they are equal. Pageblocks the snapshot has Absent, and pages outside its zones, are
/// not compared.
pub fn differences(node: &Node, snap: &NodeSnapshot, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |s: String| {
        if out.len() < max {
            out.push(s);
        }
    };
    for z in &snap.zones {
        let Some(mz) = node.zones().iter().find(|m| m.cfg().name == z.zone) else {
            push(format!("zone {}: not in the model's node", z.zone));
            continue;
        };
        for o in 0..NR_PAGE_ORDERS as u8 {
            for mt in MigrateType::ALL {
                let want: Vec<u64> = z
                    .free_area
                    .iter()
                    .find(|l| l.order == o && l.migratetype == mt)
                    .map_or_else(Vec::new, |l| l.pfns.clone());
                let got: Vec<u64> = mz.free_list_abs_pfns(o, mt);
                if want != got {
                    push(list_difference(
                        &format!("zone {} order-{o} {} free list", z.zone, mt.kernel_name()),
                        &want,
                        &got,
                    ));
                }
            }
        }
        for pb in 0..mz.nr_pageblocks() {
            let pfn = mz.abs_pfn(pb << PAGEBLOCK_ORDER);
            if let Some(want) = z.pageblock_at(pfn) {
                let got = mz.pb_mt(pb);
                if got != want {
                    push(format!(
                        "zone {} pageblock at pfn {pfn:#x}: {} in the snapshot, {} in the model",
                        z.zone,
                        want.kernel_name(),
                        got.kernel_name()
                    ));
                }
            }
        }
        for cpu in 0..mz.pcp.len() {
            for pi in 0..NR_PCP_LISTS {
                let want: Vec<u64> = z
                    .pcp
                    .iter()
                    .find(|l| l.cpu as usize == cpu && l.pindex as usize == pi)
                    .map_or_else(Vec::new, |l| l.pfns.clone());
                let got: Vec<u64> = mz.pcp_list_abs_pfns(cpu, pi);
                if want != got {
                    push(list_difference(
                        &format!(
                            "zone {} CPU {cpu} pcp list {pi} ({})",
                            z.zone,
                            crate::mm::pcp_list_name(pi)
                        ),
                        &want,
                        &got,
                    ));
                }
            }
        }
    }
    out
}

fn list_difference(what: &str, want: &[u64], got: &[u64]) -> String {
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let show = |l: &[u64]| {
        l.get(at)
            .map_or("the end".to_string(), |p| format!("{p:#x}"))
    };
    format!(
        "{what}: {} blocks in the snapshot, {} in the model; first difference at entry {at}: {} vs {}",
        want.len(),
        got.len(),
        show(want),
        show(got)
    )
}
