//! The last step of validation: the zones `init` lays out, where the scenario does not write
//! them. A `/proc` text is read here (each zone's free blocks, pageblocks, size and place), a
//! node snapshot's zones placed, and the ops' pfn ranges checked against them, so that nothing
//! is left to check once the run starts: `run::build` lays out what this read.

use super::bounds::{IMPORT_ALL_ZONES, MAX_PFN};
use super::error::{Res, ScenarioError};
use super::format::{Init, Scenario};
use super::procfs::{self, ProcImport};
use super::program::Program;
use super::validate::{check_scenario, check_scenario_in};
use crate::mm::{MAX_NODE_PAGES, ZONE_NAMES, ZONE_NORMAL};

/// What validation read of the zones `init` lays out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Layout {
    /// The scenario writes its zones (`"boot"`, `zones`, a snapshot): nothing was read.
    AsWritten,
    /// `init` from `/proc`, one zone: what the text says about it, and the pfn its zone starts
    /// at when the scenario does not place it (zoneinfo's `start_pfn`, aligned as the model
    /// needs).
    ProcZone {
        /// The import.
        import: Box<ProcImport>,
        /// zoneinfo's start, when `zone.start_pfn` is not given.
        start_pfn: Option<u64>,
    },
    /// `init.zone` `"all"`: every zone of the text, in pfn order.
    ProcNode(Vec<ImportedZone>),
}

/// One zone of an `init.zone` `"all"` import.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ImportedZone {
    /// Its name in the text (`DMA`, `DMA32`, `Normal`).
    pub(crate) name: String,
    /// Its first pfn: zoneinfo's `start_pfn` (aligned as the model needs), else x86_64's zone
    /// boundary.
    pub(crate) start_pfn: u64,
    /// What the text says about it.
    pub(crate) import: ProcImport,
}

/// The first pfn of each zone type a node may hold on x86_64 (`DMA`, `DMA32`, `Normal`): where
/// an imported zone starts when zoneinfo does not say, and where the next type begins.
const ZONE_STARTS: [u64; 3] = [0, 0x1000, 0x10_0000];

impl Layout {
    /// Reads what `s`'s `init` lays out and checks the ops (numbered by `program`) against it.
    pub(crate) fn resolve(s: &Scenario, program: &Program) -> Res<Layout> {
        match &s.init {
            Init::Boot | Init::Snapshot(_) => Ok(Layout::AsWritten),
            Init::Proc {
                pagetypeinfo,
                zoneinfo,
                zone,
            } if zone == IMPORT_ALL_ZONES => {
                let zones = import_node(s, pagetypeinfo, zoneinfo.as_deref())?;
                validate_in_node(
                    s,
                    program,
                    zones
                        .iter()
                        .map(|z| {
                            let end = z.start_pfn + z.import.pages;
                            (z.start_pfn, end, z.name.clone())
                        })
                        .collect(),
                )?;
                Ok(Layout::ProcNode(zones))
            }
            Init::Proc {
                pagetypeinfo,
                zoneinfo,
                zone,
            } => {
                let import = procfs::parse_import(
                    pagetypeinfo,
                    zoneinfo.as_deref(),
                    zone,
                    s.zone.cma,
                    s.zone.pages,
                )?;
                if s.static_zone_pages().is_none() {
                    validate_with_zone_pages(s, program, import.pages)?;
                }
                // The zone lies where the machine's does (zoneinfo's start_pfn), unless the
                // scenario places it.
                let start_pfn = match import.model_start_pfn() {
                    Some(start) if s.zone.start_pfn == 0 => {
                        check_import_end(zone, start, import.pages, MAX_PFN)?;
                        Some(start)
                    }
                    _ => None,
                };
                Ok(Layout::ProcZone {
                    import: Box::new(import),
                    start_pfn,
                })
            }
            Init::NodeSnapshot(snap) => {
                validate_in_node(
                    s,
                    program,
                    snap.zones
                        .iter()
                        .map(|z| {
                            let start = z.model_start();
                            (start, start + z.model_pages(), z.zone.clone())
                        })
                        .collect(),
                )?;
                Ok(Layout::AsWritten)
            }
        }
    }
}

/// A one-zone import placed at `start` must end at or below `limit`.
fn check_import_end(zone: &str, start: u64, pages: u64, limit: u64) -> Res<()> {
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

/// Every zone of the pasted text, each read as a zone of a node (up to a node's size) and
/// placed in pfn order; one zone is that zone alone.
fn import_node(s: &Scenario, pti: &str, zi: Option<&str>) -> Res<Vec<ImportedZone>> {
    let scan = procfs::scan_pagetypeinfo(pti)?;
    let mut zones: Vec<ImportedZone> = Vec::new();
    for name in scan.zone_names() {
        let ty = ZONE_NAMES[..=ZONE_NORMAL]
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| {
                ScenarioError::new(
                    "init.zone",
                    format!("the pagetypeinfo has a zone {name}, which a node here cannot hold"),
                    "a node holds DMA, DMA32 and Normal: import one zone by its name instead",
                )
            })?;
        let import = procfs::parse_import_up_to(pti, zi, name, s.zone.cma, None, MAX_NODE_PAGES)?;
        let total: u64 = zones.iter().map(|z| z.import.pages).sum::<u64>() + import.pages;
        if total > MAX_NODE_PAGES {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                format!(
                    "the zones up to {name} have {total} pages, more than a node's {MAX_NODE_PAGES} (64 GiB)"
                ),
                "a node models at most a 64 GiB machine: import one zone by its name (at most 16 GiB) instead",
            ));
        }
        // zoneinfo's start_pfn (aligned as the model needs), else x86_64's zone boundary.
        let start_pfn = import.model_start_pfn().unwrap_or(ZONE_STARTS[ty]);
        if let Some(prev) = zones.last() {
            let prev_end = prev.start_pfn + prev.import.pages;
            if start_pfn < prev_end {
                return Err(ScenarioError::new(
                    "init.zoneinfo",
                    format!(
                        "zone {name} starts at pfn {start_pfn:#x}, inside zone {} (which the import sizes to end at {prev_end:#x})",
                        prev.name
                    ),
                    "use the zoneinfo and pagetypeinfo of one machine, or import one zone by its name",
                ));
            }
        }
        let end = start_pfn + import.pages;
        let limit = ZONE_STARTS.get(ty + 1).copied().unwrap_or(MAX_PFN);
        if end > limit {
            return Err(ScenarioError::new(
                "init.pagetypeinfo",
                format!(
                    "zone {name} of {} pages from pfn {start_pfn:#x} ends at {end:#x}, beyond {limit:#x}",
                    import.pages
                ),
                "import this zone alone by its name",
            ));
        }
        zones.push(ImportedZone {
            name: name.to_string(),
            start_pfn,
            import,
        });
    }
    if zones.is_empty() {
        return Err(ScenarioError::new(
            "init.pagetypeinfo",
            "no zone in the text",
            "paste /proc/pagetypeinfo",
        ));
    }
    Ok(zones)
}

/// [`super::validate`] with the final zone size `pages` (e.g. from [`Scenario::resolve_proc_zone_pages`]),
/// so the pfn ranges of the ops are checked against the zone `init` really builds.
pub(super) fn validate_with_zone_pages(
    s: &Scenario,
    program: &Program,
    pages: u64,
) -> Result<(), ScenarioError> {
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
    check_scenario(s, program, Some((pages, origin))).map(drop)
}

/// [`super::validate`] for a node whose zones `init` gives (`init.zone` `"all"`, a node snapshot):
/// `zones` are its zones' `[start_pfn, end_pfn)` and names in pfn order, and the ops' pfn
/// ranges are checked against them with the errors (and JSON paths) of a `zones` scenario.
/// [`super::validate`] leaves those ranges to this call.
fn validate_in_node(
    s: &Scenario,
    program: &Program,
    zones: Vec<(u64, u64, String)>,
) -> Result<(), ScenarioError> {
    check_scenario_in(
        s,
        program,
        s.static_zone_pages().map(|p| (p, "zone.pages")),
        Some(zones),
    )
    .map(drop)
}
