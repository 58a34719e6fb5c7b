//! The second stage of a run: [`build`], a validated scenario's start zone, booted
//! ([`crate::mm::boot`]) or laid out from a real machine's `/proc` text or a drgn snapshot.

use crate::mm::Engine;
use crate::mm::*;
use crate::mm::{boot_engine, boot_node, new_zone, node_zones, ZoneParams};
use crate::scenario::procfs;
use crate::scenario::{
    ImportedZone, Init, Layout, Scenario, ScenarioError, ValidScenario, ZoneSpec,
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

/// The zones of an `init.zone` `"all"` import, as validation read and placed them; one zone is
/// that zone alone.
fn import_node(s: &Scenario, zones: &[ImportedZone]) -> Engine {
    let params: Vec<ZoneParams> = zones
        .iter()
        .map(|z| {
            let mut p = zone_params(s.kernel, &s.zone, z.import.pages);
            p.name = z.name.clone();
            p.start_pfn = z.start_pfn;
            p.batch = p.batch.or(z.import.batch);
            p.high_min = p.high_min.or(z.import.high_min);
            p.high_max = p.high_max.or(z.import.high_max);
            p.initial_high = z.import.initial_high.clone();
            p
        })
        .collect();
    if let [p] = params.as_slice() {
        // One zone: exactly the one-zone import of it.
        let mut e = Engine::new(new_zone(p));
        e.recording = false;
        procfs::apply_import(&mut e, &zones[0].import).expect(LAID_OUT);
        e.recording = true;
        e.reset_stats();
        return e;
    }
    let mut node = Vec::new();
    for (z, imp) in node_zones(&params).into_iter().zip(zones) {
        let mut e = Engine::new(z);
        e.recording = false;
        procfs::apply_import(&mut e, &imp.import).expect(LAID_OUT);
        node.extend(e.into_node().into_zones());
    }
    Engine::new(Node::new(node))
}

/// Why laying out an import cannot fail: validation read it with `procfs::parse_import`, which
/// refuses a text whose layout does not exist.
const LAID_OUT: &str = "validation checked that the import lays out";

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

/// A validated scenario and the zone its `init` builds: what a [`crate::run::Runner`] runs
/// the ops on.
pub struct Start {
    /// The scenario.
    pub scenario: ValidScenario,
    /// The engine at its start state.
    pub engine: Engine,
}

/// The second stage of a run: the start zone of a validated scenario, booted or laid out from
/// what validation read of its `/proc` text or snapshot. It checks nothing: every check was
/// made by [`ValidScenario::new`].
pub fn build(scenario: ValidScenario) -> Start {
    let engine = match (&scenario.init, scenario.layout()) {
        (Init::Boot, _) => boot(&scenario),
        (Init::Proc { .. }, Layout::ProcNode(zones)) => import_node(&scenario, zones),
        (Init::Proc { .. }, Layout::ProcZone { import, start_pfn }) => {
            let mut p = scenario_zone_params(&scenario, import.pages);
            // The zone lies where the machine's does (zoneinfo's start_pfn), unless the
            // scenario places it.
            if let Some(start) = start_pfn {
                p.start_pfn = *start;
            }
            // Precedence: zone.pcp > init.zoneinfo > computed.
            p.batch = p.batch.or(import.batch);
            p.high_min = p.high_min.or(import.high_min);
            p.high_max = p.high_max.or(import.high_max);
            p.initial_high = import.initial_high.clone();
            let mut e = Engine::new(new_zone(&p));
            e.recording = false;
            procfs::apply_import(&mut e, import).expect(LAID_OUT);
            e.recording = true;
            e.reset_stats();
            e
        }
        (Init::Proc { .. }, Layout::AsWritten) => {
            unreachable!("validation reads every /proc init (Layout::resolve)")
        }
        (Init::NodeSnapshot(snap), _) => snapshot_node_engine(&scenario, snap),
        (Init::Snapshot(snap), _) => {
            // `ValidScenario::new` checked the scenario against the snapshot's size (its
            // `static_zone_pages`) and `zone` against the snapshot (`validate::check_snapshot_zone`).
            let mut p = scenario_zone_params(&scenario, snap.pages);
            p.start_pfn = snap.start_pfn;
            p.name = snap.zone.clone();
            let mut e = Engine::new(new_zone(&p));
            crate::scenario::apply_zone_snapshot(&mut e, snap);
            e
        }
    };
    Start { scenario, engine }
}

/// [`build`] of a scenario whose `init` is `"boot"`: its zone or zones booted; `None` for
/// another `init`. Apart from [`build`], it links none of the code that lays a zone out from a
/// `/proc` text or a snapshot (the app's first frame, with
/// [`crate::scenario::parse_boot_start`]).
pub fn build_boot(scenario: ValidScenario) -> Option<Start> {
    if !matches!(scenario.init, Init::Boot) {
        return None;
    }
    let engine = boot(&scenario);
    Some(Start { scenario, engine })
}

/// The zone or zones of a scenario whose `init` is `"boot"`, booted.
fn boot(scenario: &ValidScenario) -> Engine {
    if !scenario.zones.is_empty() {
        boot_node(
            &scenario
                .zones
                .iter()
                .map(|z| {
                    let pages = z.pages.unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
                    zone_params(scenario.kernel, z, pages)
                })
                .collect::<Vec<_>>(),
        )
    } else {
        let pages = scenario
            .zone
            .pages
            .unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
        boot_engine(&scenario_zone_params(scenario, pages))
    }
}

/// The start state a replay begins from: the zone `s`'s `init` builds, through the same two
/// stages as a run ([`ValidScenario::new`] → [`build`]); the ops are dropped (a replay's are
/// the trace's).
pub(crate) fn start_replay(s: &Scenario) -> Result<Start, ScenarioError> {
    let Start { scenario, engine } = build(ValidScenario::new(s.clone())?);
    Ok(Start {
        scenario: scenario.without_ops(),
        engine,
    })
}
