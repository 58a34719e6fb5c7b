//! Exact snapshots of a zone (`init: {"snapshot": …}`): the free blocks at their pfns, in list
//! order, the pageblock migratetypes and the pcp lists, as `tools/drgn/snapshot.py` reads them
//! from a live kernel or a vmcore. `/proc/pagetypeinfo` only gives counts; a snapshot gives the
//! placement, so the map shows the machine's real layout.
//!
//! Format (version 1; pfns absolute, lists head first, migratetypes by their
//! `migratetype_names[]` name, or the scenario format's lower-case name):
//! ```json
//! {"version": 1, "zone": "Normal", "start_pfn": 1048576, "pages": 262144,
//!  "pageblocks": ["Movable", "Unmovable", …],
//!  "free_area": [{"order": 0, "migratetype": "Movable", "pfns": [1048577, …]}, …],
//!  "pcp": [{"cpu": 0, "pindex": 1, "pfns": [1048600, …]}, …]}
//! ```
//! Every page that is neither in a free block nor on a pcp list is allocated (refcount 1, owned
//! by its pageblock's type, as the `/proc` import does).

use super::error::ScenarioError;
use crate::mm::pindex_to_order;
use crate::mm::Engine;
use crate::mm::Step;
use crate::mm::PF_LRU;
use crate::mm::*;
use crate::mm::{End, Mutation};
use serde::Serialize;
use serde_json::Value;

/// One free list as read from `zone->free_area[order].free_list[mt]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapFreeList {
    /// The order.
    pub order: u8,
    /// The migratetype.
    pub migratetype: MigrateType,
    /// Absolute pfns, head first.
    pub pfns: Vec<u64>,
}

/// One pcp list (`per_cpu_pages.lists[pindex]` of a CPU).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapPcpList {
    /// The CPU.
    pub cpu: u32,
    /// The list's index.
    pub pindex: u8,
    /// Absolute pfns, head first.
    pub pfns: Vec<u64>,
}

/// A validated snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// The snapshot format's version (1).
    pub version: u32,
    /// The zone's name.
    pub zone: String,
    /// Its first pfn (absolute).
    pub start_pfn: u64,
    /// Pages in the zone.
    pub pages: u64,
    /// Each pageblock's type.
    pub pageblocks: Vec<MigrateType>,
    /// Its free lists.
    pub free_area: Vec<SnapFreeList>,
    /// Its pcp lists.
    pub pcp: Vec<SnapPcpList>,
}

type Res<T> = Result<T, ScenarioError>;

fn err(path: &str, message: String, hint: &str) -> ScenarioError {
    ScenarioError::new(path, message, hint)
}

fn obj<'a>(v: &'a Value, path: &str, keys: &[&str]) -> Res<&'a serde_json::Map<String, Value>> {
    let m = v.as_object().ok_or_else(|| {
        err(
            path,
            "expected an object".into(),
            "see docs/snapshot-format.md",
        )
    })?;
    if let Some(k) = m.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(err(
            &format!("{path}.{k}"),
            format!("unknown field `{k}`"),
            &format!("the fields are {}", keys.join(", ")),
        ));
    }
    Ok(m)
}

fn field<'a>(m: &'a serde_json::Map<String, Value>, path: &str, k: &str) -> Res<&'a Value> {
    m.get(k).ok_or_else(|| {
        err(
            path,
            format!("missing field `{k}`"),
            "tools/drgn/snapshot.py writes every field",
        )
    })
}

fn uint(v: &Value, path: &str, max: u64) -> Res<u64> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        _ => Err(err(
            path,
            format!("expected an integer 0..={max}, found {v}"),
            "",
        )),
    }
}

fn mt_name(v: &Value, path: &str) -> Res<MigrateType> {
    let s = v.as_str().unwrap_or("");
    MigrateType::ALL
        .into_iter()
        .find(|m| m.kernel_name() == s || m.slug() == s)
        .ok_or_else(|| {
            err(
                path,
                format!("unknown migratetype {v}"),
                "one of Unmovable, Movable, Reclaimable, HighAtomic, CMA, Isolate",
            )
        })
}

fn pfn_list(v: &Value, path: &str) -> Res<Vec<u64>> {
    let a = v
        .as_array()
        .ok_or_else(|| err(path, "expected an array of pfns".into(), ""))?;
    a.iter()
        .enumerate()
        .map(|(i, x)| uint(x, &format!("{path}[{i}]"), u64::MAX >> 12))
        .collect()
}

/// Reads and checks a snapshot at JSON path `path` (e.g. `init.snapshot`): shapes, names, pfns
/// inside the zone and aligned, no page in two free blocks. The CPUs are checked against the
/// zone by [`check_zone`].
pub fn from_value(v: &Value, path: &str) -> Res<Snapshot> {
    let cpus = u32::MAX;
    let m = obj(
        v,
        path,
        &[
            "version",
            "zone",
            "start_pfn",
            "pages",
            "pageblocks",
            "free_area",
            "pcp",
        ],
    )?;
    let p = |k: &str| format!("{path}.{k}");
    let version = uint(field(m, path, "version")?, &p("version"), u32::MAX as u64)?;
    if version != 1 {
        return Err(err(
            &p("version"),
            format!("snapshot version {version} is not supported"),
            "this buddyscope reads version 1",
        ));
    }
    let zone = field(m, path, "zone")?
        .as_str()
        .ok_or_else(|| err(&p("zone"), "expected a zone name".into(), ""))?
        .to_string();
    let start_pfn = uint(
        field(m, path, "start_pfn")?,
        &p("start_pfn"),
        u64::MAX >> 12,
    )?;
    if !start_pfn.is_multiple_of(1024) {
        return Err(err(
            &p("start_pfn"),
            format!("start_pfn {start_pfn:#x} is not a multiple of 1024"),
            "the model keeps MAX_PAGE_ORDER buddies aligned to the zone start",
        ));
    }
    let pages = uint(field(m, path, "pages")?, &p("pages"), 1 << 30)?;
    if pages < 1024 {
        return Err(err(
            &p("pages"),
            format!("{pages} pages: below the minimum of 1024"),
            "",
        ));
    }
    let pbs = field(m, path, "pageblocks")?.as_array().ok_or_else(|| {
        err(
            &p("pageblocks"),
            "expected an array of migratetype names".into(),
            "",
        )
    })?;
    let want = pages.div_ceil(PAGEBLOCK_NR_PAGES as u64) as usize;
    if pbs.len() != want {
        return Err(err(
            &p("pageblocks"),
            format!(
                "{} pageblocks, but a zone of {pages} pages has {want}",
                pbs.len()
            ),
            "one migratetype per pageblock, in pfn order",
        ));
    }
    let pageblocks = pbs
        .iter()
        .enumerate()
        .map(|(i, x)| mt_name(x, &format!("{path}.pageblocks[{i}]")))
        .collect::<Res<Vec<_>>>()?;
    let mut covered = vec![false; pages as usize];
    let mut claim = |pfn: u64, order: u8, at: &str| -> Res<()> {
        let n = 1u64 << order;
        if pfn < start_pfn || pfn + n > start_pfn + pages {
            return Err(err(
                at,
                format!("order-{order} block at pfn {pfn:#x} is outside the zone"),
                "",
            ));
        }
        let rel = pfn - start_pfn;
        if !rel.is_multiple_of(n) {
            return Err(err(
                at,
                format!("pfn {pfn:#x} is not aligned to order {order}"),
                "",
            ));
        }
        let r = rel as usize..(rel + n) as usize;
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
    let fa = field(m, path, "free_area")?.as_array().ok_or_else(|| {
        err(
            &p("free_area"),
            "expected an array of free lists".into(),
            "",
        )
    })?;
    let mut free_area = Vec::new();
    for (i, l) in fa.iter().enumerate() {
        let lp = format!("{path}.free_area[{i}]");
        let lm = obj(l, &lp, &["order", "migratetype", "pfns"])?;
        let order = uint(
            field(lm, &lp, "order")?,
            &format!("{lp}.order"),
            MAX_PAGE_ORDER as u64,
        )? as u8;
        let migratetype = mt_name(field(lm, &lp, "migratetype")?, &format!("{lp}.migratetype"))?;
        let pfns = pfn_list(field(lm, &lp, "pfns")?, &format!("{lp}.pfns"))?;
        for (j, &pfn) in pfns.iter().enumerate() {
            claim(pfn, order, &format!("{lp}.pfns[{j}]"))?;
        }
        free_area.push(SnapFreeList {
            order,
            migratetype,
            pfns,
        });
    }
    let pl = field(m, path, "pcp")?
        .as_array()
        .ok_or_else(|| err(&p("pcp"), "expected an array of pcp lists".into(), ""))?;
    let mut pcp = Vec::new();
    for (i, l) in pl.iter().enumerate() {
        let lp = format!("{path}.pcp[{i}]");
        let lm = obj(l, &lp, &["cpu", "pindex", "pfns"])?;
        let cpu = uint(
            field(lm, &lp, "cpu")?,
            &format!("{lp}.cpu"),
            u32::MAX as u64,
        )? as u32;
        if cpu >= cpus {
            return Err(err(
                &format!("{lp}.cpu"),
                format!("CPU {cpu}, but the zone has {cpus} CPU(s)"),
                "set zone.cpus to the machine's number of CPUs",
            ));
        }
        let pindex = uint(
            field(lm, &lp, "pindex")?,
            &format!("{lp}.pindex"),
            NR_PCP_LISTS as u64 - 1,
        )? as u8;
        let pfns = pfn_list(field(lm, &lp, "pfns")?, &format!("{lp}.pfns"))?;
        let order = pindex_to_order(pindex as usize);
        for (j, &pfn) in pfns.iter().enumerate() {
            claim(pfn, order, &format!("{lp}.pfns[{j}]"))?;
        }
        pcp.push(SnapPcpList { cpu, pindex, pfns });
    }
    Ok(Snapshot {
        version: version as u32,
        zone,
        start_pfn,
        pages,
        pageblocks,
        free_area,
        pcp,
    })
}

/// Places a validated snapshot into an empty zone of its size (from `setup::new_zone`):
/// pageblock types, free blocks at the tails of their lists in order, pcp lists, and every other
/// page allocated. Nothing is recorded: this is the start state.
pub fn apply(engine: &mut Engine, snap: &Snapshot) {
    let recording = engine.recording;
    engine.recording = false;
    let start = snap.start_pfn;
    for (pb, &mt) in snap.pageblocks.iter().enumerate() {
        let old = engine.zone.pageblock[pb];
        let new = if mt == MigrateType::Isolate {
            old | crate::mm::PB_ISOLATE
        } else {
            mt as u8
        };
        if old != new {
            engine.emit(
                Step::BootChunk,
                Mutation::SetPageblock {
                    pb: pb as u32,
                    old,
                    new,
                },
            );
        }
    }
    for l in &snap.free_area {
        for &pfn in &l.pfns {
            let p = (pfn - start) as u32;
            engine.add_to_free_list(Step::BootChunk, p, l.order, l.migratetype, true);
            engine.account_freepages(Step::BootChunk, 1i64 << l.order, l.migratetype);
        }
    }
    for l in &snap.pcp {
        for &pfn in &l.pfns {
            engine.emit(
                Step::BootChunk,
                Mutation::PcpAdd {
                    cpu: l.cpu as u8,
                    pindex: l.pindex,
                    pfn: (pfn - start) as u32,
                    end: End::Tail,
                },
            );
        }
    }
    let z = &mut engine.zone;
    let mut p = 0usize;
    while p < z.kind.len() {
        if z.kind[p] != crate::mm::PageKind::Other {
            p += 1 << z.order[p];
            continue;
        }
        let t = snap.pageblocks[p >> PAGEBLOCK_ORDER];
        z.refcount[p] = 1;
        z.owner[p] = crate::mm::filler_owner(t);
        if t == MigrateType::Movable {
            z.pflags[p] |= PF_LRU;
        }
        p += 1;
    }
    z.reset_stats();
    engine.recording = recording;
}
