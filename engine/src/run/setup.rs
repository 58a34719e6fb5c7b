//! The second stage of a run: [`build`], a validated scenario's start zone, booted
//! ([`crate::mm::boot`]) or laid out from a real machine's `/proc` text or a drgn snapshot.

use crate::mm::Engine;
use crate::mm::*;
use crate::mm::{boot_engine, boot_node, new_zone, node_zones, ZoneParams};
use crate::scenario::procfs;
use crate::scenario::{
    validate_with_zone_pages, Init, Scenario, ScenarioError, ValidScenario, ZoneSpec,
    IMPORT_ALL_ZONES,
};

/// A scenario's zone parameters after defaults, for a zone of `pages` pages.
fn scenario_zone_params(s: &Scenario, pages: u64) -> ZoneParams {
    zone_params(s.kernel, &s.zone, pages)
}

/// One zone spec's parameters after defaults (`zone`, or one of `zones`).
fn zone_params(kernel: Kernel, z: &ZoneSpec, pages: u64) -> ZoneParams {
    let mut p = ZoneParams::new(pages as u32);
    p.name = z.name.clone();
    p.kernel = kernel;
    p.start_pfn = z.start_pfn;
    p.cpus = z.cpus;
    p.cma = z.cma;
    p.rmqueue_mode_memory = z.rmqueue_mode_memory;
    p.batch = z.pcp.batch;
    p.high_min = z.pcp.high_min;
    p.high_max = z.pcp.high_max;
    p.min_free_kbytes = z.min_free_kbytes;
    p.cma_area = z.cma_pageblocks.map(|a| (a.start_pfn, a.nr_pages));
    p
}

/// A one-zone import placed at `start` must end at or below `limit`.
fn check_import_end(zone: &str, start: Pfn, pages: u64, limit: Pfn) -> Result<(), ScenarioError> {
    if start + pages > limit {
        return Err(ScenarioError::new(
            "init.zoneinfo",
            format!(
                "zone {zone} of {pages} pages from zoneinfo's start_pfn {start:#x} ends beyond pfn {limit:#x}"
            ),
            "set zone.start_pfn to place the zone lower",
        ));
    }
    Ok(())
}

fn import_node(s: &Scenario, pti: &str, zi: Option<&str>) -> Result<Engine, ScenarioError> {
    const STARTS: [Pfn; 3] = [0, 0x1000, 0x10_0000];
    let scan = procfs::scan_pagetypeinfo(pti)?;
    let mut params: Vec<ZoneParams> = Vec::new();
    let mut imps = Vec::new();
    for name in scan.zone_names() {
        let ty = ZoneType::from_name(name)
            .filter(|t| *t <= ZoneType::Normal)
            .ok_or_else(|| {
                ScenarioError::new(
                    "init.zone",
                    format!("the pagetypeinfo has a zone {name}, which a node here cannot hold"),
                    "a node holds DMA, DMA32 and Normal: import one zone by its name instead",
                )
            })?;
        let imp = procfs::parse_import_up_to(pti, zi, name, s.zone.cma, None, MAX_NODE_PAGES)?;
        let total: u64 = imps
            .iter()
            .map(|i: &procfs::ProcImport| i.pages)
            .sum::<u64>()
            + imp.pages;
        if total > MAX_NODE_PAGES {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                format!(
                    "the zones up to {name} have {total} pages, more than a node's {MAX_NODE_PAGES} (64 GiB)"
                ),
                "a node models at most a 64 GiB machine: import one zone by its name (at most 16 GiB) instead",
            ));
        }
        let mut p = zone_params(s.kernel, &s.zone, imp.pages);
        p.name = name.to_string();
        // zoneinfo's start_pfn (aligned as the model needs), else x86_64's zone boundary.
        p.start_pfn = imp.model_start_pfn().unwrap_or(STARTS[ty.idx()]);
        if let Some(prev) = params.last() {
            let prev_end = prev.start_pfn + prev.pages as u64;
            if p.start_pfn < prev_end {
                return Err(ScenarioError::new(
                    "init.zoneinfo",
                    format!(
                        "zone {name} starts at pfn {:#x}, inside zone {} (which the import sizes to end at {prev_end:#x})",
                        p.start_pfn, prev.name
                    ),
                    "use the zoneinfo and pagetypeinfo of one machine, or import one zone by its name",
                ));
            }
        }
        p.batch = p.batch.or(imp.batch);
        p.high_min = p.high_min.or(imp.high_min);
        p.high_max = p.high_max.or(imp.high_max);
        p.initial_high = imp.initial_high.clone();
        let end = p.start_pfn + imp.pages;
        let limit = STARTS
            .get(ty.idx() + 1)
            .copied()
            .unwrap_or(crate::scenario::MAX_PFN);
        if end > limit {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                format!(
                    "zone {name} of {} pages from pfn {:#x} ends at {end:#x}, beyond {limit:#x}",
                    imp.pages, p.start_pfn
                ),
                "import this zone alone by its name",
            ));
        }
        params.push(p);
        imps.push(imp);
    }
    if params.len() < 2 {
        // One zone: exactly the one-zone import of it.
        let name = scan
            .zone_names()
            .first()
            .copied()
            .unwrap_or("Normal")
            .to_string();
        let imp = imps.pop().ok_or_else(|| {
            ScenarioError::new(
                "init.pagetypeinfo",
                "no zone in the text",
                "paste /proc/pagetypeinfo",
            )
        })?;
        let mut p = params.pop().expect("one zone");
        p.name = name;
        let mut e = Engine::new(new_zone(&p));
        e.recording = false;
        procfs::apply_import(&mut e, &imp)?;
        e.recording = true;
        e.reset_stats();
        return Ok(e);
    }
    let mut zones = Vec::new();
    for (z, imp) in node_zones(&params).into_iter().zip(&imps) {
        let mut e = Engine::new(z);
        e.recording = false;
        procfs::apply_import(&mut e, imp)?;
        zones.extend(e.node.into_zones());
    }
    Ok(Engine::new(Node::new(zones)))
}

/// The node of a version-2 snapshot: its zones (at their starts rounded down to 1024, to their
/// ends), the zone parameters a booted node of those sizes has, then each zone laid out and
/// given the snapshot's own watermarks, reserves and pcp state ([`crate::scenario::node_snapshot`]).
fn snapshot_node_engine(s: &Scenario, snap: &crate::scenario::NodeSnapshot) -> Engine {
    let spec = ZoneSpec {
        cpus: snap.cpus,
        cma: snap.cma,
        ..ZoneSpec::default()
    };
    let params: Vec<ZoneParams> = snap
        .zones
        .iter()
        .map(|z| {
            let mut p = zone_params(s.kernel, &spec, z.model_pages());
            p.name = z.zone.clone();
            p.start_pfn = z.model_start();
            p
        })
        .collect();
    let mut zones = Vec::new();
    for (zone, z) in node_zones(&params).into_iter().zip(&snap.zones) {
        let mut e = Engine::new(zone);
        crate::scenario::apply_node_snapshot_zone(&mut e, z);
        zones.extend(e.node.into_zones());
    }
    Engine::new(Node::new(zones))
}

/// A validated scenario and the zone its `init` builds: what [`crate::run::runner::execute`] runs
/// the ops on.
pub struct Start {
    /// The scenario.
    pub scenario: ValidScenario,
    /// The engine at its start state.
    pub engine: Engine,
}

/// The second stage of a run: the start zone of a validated scenario, booted or laid out from
/// its `/proc` text. With `/proc` and no `zone.pages`, the zone size is known only now, so the
/// pfn-range checks [`crate::scenario::parse_valid`] deferred are made here.
pub fn build(scenario: ValidScenario) -> Result<Start, ScenarioError> {
    let engine = match &scenario.init {
        Init::Boot if !scenario.zones.is_empty() => boot_node(
            &scenario
                .zones
                .iter()
                .map(|z| {
                    let pages = z.pages.unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
                    zone_params(scenario.kernel, z, pages)
                })
                .collect::<Vec<_>>(),
        ),
        Init::Boot => {
            let pages = scenario
                .zone
                .pages
                .unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
            boot_engine(&scenario_zone_params(&scenario, pages))
        }
        Init::Proc {
            pagetypeinfo,
            zoneinfo,
            zone,
        } if zone == IMPORT_ALL_ZONES => {
            let e = import_node(&scenario, pagetypeinfo, zoneinfo.as_deref())?;
            // The zones' pfns are known now: the ops' pfn ranges are checked against them.
            let zones = e
                .node()
                .zones()
                .iter()
                .map(|z| {
                    let start = z.cfg().start_pfn;
                    (start, start + u64::from(z.pages()), z.cfg().name.clone())
                })
                .collect();
            crate::scenario::validate_in_imported_node(&scenario, zones)?;
            e
        }
        Init::Proc {
            pagetypeinfo,
            zoneinfo,
            zone,
        } => {
            let imp = procfs::parse_import(
                pagetypeinfo,
                zoneinfo.as_deref(),
                zone,
                scenario.zone.cma,
                scenario.zone.pages,
            )?;
            if scenario.static_zone_pages().is_none() {
                validate_with_zone_pages(&scenario, imp.pages)?;
            }
            let mut p = scenario_zone_params(&scenario, imp.pages);
            // The zone lies where the machine's does (zoneinfo's start_pfn), unless the
            // scenario places it.
            if scenario.zone.start_pfn == 0 {
                if let Some(start) = imp.model_start_pfn() {
                    check_import_end(zone, start, imp.pages, crate::scenario::MAX_PFN)?;
                    p.start_pfn = start;
                }
            }
            // Precedence: zone.pcp > init.zoneinfo > computed.
            p.batch = p.batch.or(imp.batch);
            p.high_min = p.high_min.or(imp.high_min);
            p.high_max = p.high_max.or(imp.high_max);
            p.initial_high = imp.initial_high.clone();
            let mut e = Engine::new(new_zone(&p));
            e.recording = false;
            procfs::apply_import(&mut e, &imp)?;
            e.recording = true;
            e.reset_stats();
            e
        }
        Init::NodeSnapshot(snap) => {
            let e = snapshot_node_engine(&scenario, snap);
            let zones = e
                .node()
                .zones()
                .iter()
                .map(|z| {
                    let start = z.cfg().start_pfn;
                    (start, start + u64::from(z.pages()), z.cfg().name.clone())
                })
                .collect();
            crate::scenario::validate_in_imported_node(&scenario, zones)?;
            e
        }
        Init::Snapshot(snap) => {
            // `parse_valid` checked the scenario against the snapshot's size (its
            // `static_zone_pages`) and `zone` against the snapshot (`validate::check_snapshot_zone`).
            let mut p = scenario_zone_params(&scenario, snap.pages);
            p.start_pfn = snap.start_pfn;
            p.name = snap.zone.clone();
            let mut e = Engine::new(new_zone(&p));
            crate::scenario::apply_zone_snapshot(&mut e, snap);
            e
        }
    };
    Ok(Start { scenario, engine })
}

/// The start state a replay begins from: the zone `s`'s `init` builds, through the same two
/// stages as a run ([`ValidScenario::new`] → [`build`]); the ops are ignored.
pub(crate) fn start_engine(s: &Scenario) -> Result<Engine, ScenarioError> {
    Ok(build(ValidScenario::new(s.clone())?)?.engine)
}
