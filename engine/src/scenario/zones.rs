//! The static checks of `zones`: a node of several zones (`DMA`, `DMA32`, `Normal` in pfn
//! order, not overlapping, `DMA32` below 4 GiB), the `alloc.zone` names, and op pfn ranges that
//! must lie inside one zone.

use super::bounds::{check_compaction_proactiveness, check_cpus, check_min_free_kbytes, check_pcp};
use super::bounds::{DEFAULT_ZONE_PAGES, IMPORT_ALL_ZONES, MAX_PFN, ZONE_START_ALIGN};
use super::error::{join, Res, ScenarioError};
use super::format::{Scenario, ZoneSpec};
use crate::mm::ZoneType;
use crate::mm::{MAX_NODE_PAGES, MIN_ZONE_PAGES};

/// The zone types `zones` may name, and the pfn each must end at or below (`MAX_DMA_PFN`
/// 16 MiB, `MAX_DMA32_PFN` 4 GiB on x86_64; `zone_sizes_init`).
const NODE_ZONES: [(ZoneType, u64); 3] = [
    (ZoneType::Dma, 0x1000),
    (ZoneType::Dma32, 0x10_0000),
    (ZoneType::Normal, MAX_PFN),
];

/// Checks `zones` and returns each zone's `[start, end)` and name; empty without `zones`.
pub(super) fn check_node(s: &Scenario) -> Res<Vec<(u64, u64, String)>> {
    if s.zones.is_empty() {
        return Ok(Vec::new());
    }
    if s.zone != ZoneSpec::default() {
        return Err(ScenarioError::new(
            "zone",
            "both zone and zones are given",
            "give one zone in zone, or several in zones (then leave zone out)",
        ));
    }
    if !matches!(s.init, super::format::Init::Boot) {
        return Err(ScenarioError::new(
            "init",
            "zones works with init \"boot\" only",
            "use \"init\": \"boot\", or a single zone",
        ));
    }
    let mut out: Vec<(u64, u64, String)> = Vec::new();
    let mut last_type: Option<ZoneType> = None;
    let first = &s.zones[0];
    let mut min_free: Option<(u64, String)> = None;
    let mut proactiveness: Option<(u32, String)> = None;
    let mut total = 0u64;
    for (i, z) in s.zones.iter().enumerate() {
        let p = |k: &str| join(&format!("zones[{i}]"), k);
        let Some(&(ty, max_end)) = NODE_ZONES.iter().find(|(t, _)| t.name() == z.name) else {
            return Err(ScenarioError::new(
                p("name"),
                format!("zone name {:?} is not a zone of a node", z.name),
                "use \"DMA\", \"DMA32\" or \"Normal\"",
            ));
        };
        if let Some(t) = last_type {
            if ty <= t {
                let why = if ty == t {
                    "appears twice"
                } else {
                    "comes after a higher zone"
                };
                return Err(ScenarioError::new(
                    p("name"),
                    format!("zone {} {why}", z.name),
                    "list each zone once, in the kernel's order: DMA, DMA32, Normal",
                ));
            }
        }
        last_type = Some(ty);
        let pages = z.pages.unwrap_or(DEFAULT_ZONE_PAGES);
        if !(MIN_ZONE_PAGES..=MAX_NODE_PAGES).contains(&pages) {
            return Err(ScenarioError::new(
                p("pages"),
                format!("a zone of {pages} pages is outside a node's zone sizes"),
                format!("use {MIN_ZONE_PAGES}..={MAX_NODE_PAGES} pages (64 GiB)"),
            ));
        }
        total += pages;
        if total > MAX_NODE_PAGES {
            return Err(ScenarioError::new(
                p("pages"),
                format!("the zones up to this one have {total} pages, more than a node's {MAX_NODE_PAGES} (64 GiB)"),
                "use fewer pages: a node models at most a 64 GiB machine",
            ));
        }
        if z.start_pfn & (ZONE_START_ALIGN - 1) != 0 {
            return Err(ScenarioError::new(
                p("start_pfn"),
                format!("start_pfn {} is not a multiple of 1024", z.start_pfn),
                "use a multiple of 1024",
            ));
        }
        let end = z.start_pfn + pages;
        if let Some(prev) = out.last() {
            if z.start_pfn < prev.1 {
                return Err(ScenarioError::new(
                    p("start_pfn"),
                    format!(
                        "zone {} at pfn {:#x} overlaps zone {}, which ends at pfn {:#x}",
                        z.name, z.start_pfn, prev.2, prev.1
                    ),
                    format!("start it at pfn {:#x} or above", prev.1),
                ));
            }
        }
        if end > max_end {
            return Err(ScenarioError::new(
                p("pages"),
                format!(
                    "zone {} ends at pfn {end:#x}, above its limit {max_end:#x}",
                    z.name
                ),
                format!(
                    "{} ends at or below pfn {max_end:#x}; use fewer pages or a lower start_pfn",
                    z.name
                ),
            ));
        }
        check_cpus(&p("cpus"), u64::from(z.cpus))?;
        if z.cpus != first.cpus {
            return Err(ScenarioError::new(
                p("cpus"),
                format!(
                    "zone {} has {} CPUs but zones[0] has {}",
                    z.name, z.cpus, first.cpus
                ),
                "CPUs are the machine's: give every zone the same cpus",
            ));
        }
        if let Some(b) = z.pcp.batch {
            check_pcp(&p("pcp.batch"), "batch", 1, i64::from(b))?;
        }
        if let Some(h) = z.pcp.high_min {
            check_pcp(&p("pcp.high_min"), "high_min", 0, i64::from(h))?;
        }
        if let Some(h) = z.pcp.high_max {
            check_pcp(&p("pcp.high_max"), "high_max", 0, i64::from(h))?;
        }
        if let Some(k) = z.min_free_kbytes {
            check_min_free_kbytes(&p("min_free_kbytes"), k)?;
            match &min_free {
                Some((v, at)) if *v != k => {
                    return Err(ScenarioError::new(
                        p("min_free_kbytes"),
                        format!("min_free_kbytes {k} differs from {v} at {at}"),
                        "min_free_kbytes is one sysctl for the machine: give the same value, or give it once",
                    ))
                }
                _ => min_free = Some((k, p("min_free_kbytes"))),
            }
        }
        if let Some(v) = z.compaction_proactiveness {
            check_compaction_proactiveness(&p("compaction_proactiveness"), u64::from(v))?;
            match &proactiveness {
                Some((w, at)) if *w != v => {
                    return Err(ScenarioError::new(
                        p("compaction_proactiveness"),
                        format!("compaction_proactiveness {v} differs from {w} at {at}"),
                        "compaction_proactiveness is one sysctl for the machine: give the same value, or give it once",
                    ))
                }
                _ => proactiveness = Some((v, p("compaction_proactiveness"))),
            }
        }
        check_cma_pageblocks(&format!("zones[{i}]"), z, Some(end), true)?;
        out.push((z.start_pfn, end, z.name.clone()));
    }
    Ok(out)
}

/// `init.zone` `"all"` ([`IMPORT_ALL_ZONES`]): every zone of the pasted text. The
/// sizes come from the text, so `zone.pages` may not be given.
pub(super) fn check_import_all(s: &Scenario) -> Res<bool> {
    let all = matches!(&s.init, super::format::Init::Proc { zone, .. } if zone == IMPORT_ALL_ZONES)
        || matches!(s.init, super::format::Init::NodeSnapshot(_));
    if all && s.zone.pages.is_some() {
        return Err(ScenarioError::new(
            "zone.pages",
            "zone.pages with init.zone \"all\"",
            "the /proc text gives each zone's size: remove zone.pages",
        ));
    }
    Ok(all)
}

/// `alloc.zone` names a zone of the scenario.
pub(super) fn check_alloc_zone(path: &str, name: &str, zones: &[String]) -> Res<()> {
    if zones.iter().any(|z| z == name)
        && ZoneType::from_name(name).is_some_and(|t| t <= ZoneType::Normal)
    {
        return Ok(());
    }
    Err(ScenarioError::new(
        path,
        format!("zone {name:?} is not a zone of this scenario"),
        format!(
            "use one of {} (the highest zone the request may use)",
            zones
                .iter()
                .map(|z| format!("\"{z}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// `[pfn, pfn + nr)` (`nr` ≥ 1: the caller, `Checker::range`, checked it) lies inside one
/// zone of the node.
pub(super) fn check_node_range(
    path: &str,
    pfn: u64,
    nr: u64,
    node: &[(u64, u64, String)],
) -> Res<()> {
    let (pfn_path, nr_path) = (join(path, "pfn"), join(path, "nr_pages"));
    let spans = node
        .iter()
        .map(|(s, e, n)| format!("{n} [{s}, {e})"))
        .collect::<Vec<_>>()
        .join(", ");
    let Some((_, end, name)) = node.iter().find(|(s, e, _)| pfn >= *s && pfn < *e) else {
        return Err(ScenarioError::new(
            pfn_path,
            format!("pfn {pfn} is in no zone of the node"),
            format!("the zones span {spans}"),
        ));
    };
    if nr > end - pfn {
        return Err(ScenarioError::new(
            nr_path,
            format!(
                "the range [{pfn}, {}) runs past the end of zone {name} at {end}",
                pfn.saturating_add(nr)
            ),
            format!("a range lies in one zone: use nr_pages ≤ {}", end - pfn),
        ));
    }
    Ok(())
}

/// `zone.cma_pageblocks` (or `zones[i].cma_pageblocks`, `prefix` the zone's path): whole
/// pageblocks (`cma_init_reserved_mem` wants the base and size aligned to
/// `CMA_MIN_ALIGNMENT_PAGES` = `pageblock_nr_pages`), inside the zone `[start, end)` when its end
/// is known, `zone.cma` set, and a booted zone (the area is reserved at boot).
pub(super) fn check_cma_pageblocks(
    prefix: &str,
    z: &ZoneSpec,
    end: Option<u64>,
    boot: bool,
) -> Res<()> {
    let Some(area) = z.cma_pageblocks else {
        return Ok(());
    };
    let p = |k: &str| join(&join(prefix, "cma_pageblocks"), k);
    let pb = crate::mm::PAGEBLOCK_NR_PAGES as u64;
    if !z.cma {
        return Err(ScenarioError::new(
            join(prefix, "cma_pageblocks"),
            "cma_pageblocks without cma",
            "MIGRATE_CMA exists only with CONFIG_CMA: add \"cma\": true to the zone",
        ));
    }
    if !boot {
        return Err(ScenarioError::new(
            join(prefix, "cma_pageblocks"),
            "cma_pageblocks works with init \"boot\" only",
            "the CMA area is reserved at boot: use \"init\": \"boot\"",
        ));
    }
    if area.start_pfn & (pb - 1) != 0 {
        return Err(ScenarioError::new(
            p("start_pfn"),
            format!("start_pfn {} is not a multiple of {pb}", area.start_pfn),
            format!("a CMA area is whole pageblocks: use a multiple of {pb}"),
        ));
    }
    if area.nr_pages == 0 || area.nr_pages & (pb - 1) != 0 {
        return Err(ScenarioError::new(
            p("nr_pages"),
            format!(
                "nr_pages {} is not a positive multiple of {pb}",
                area.nr_pages
            ),
            format!("a CMA area is whole pageblocks: use {pb}, {}, …", 2 * pb),
        ));
    }
    if area.start_pfn < z.start_pfn {
        return Err(ScenarioError::new(
            p("start_pfn"),
            format!(
                "start_pfn {} is below the zone's start_pfn {}",
                area.start_pfn, z.start_pfn
            ),
            "the CMA area lies inside the zone",
        ));
    }
    if let Some(end) = end {
        if area.start_pfn.saturating_add(area.nr_pages) > end {
            return Err(ScenarioError::new(
                p("nr_pages"),
                format!(
                    "the CMA area [{}, {}) runs past the end of the zone at {end}",
                    area.start_pfn,
                    area.start_pfn.saturating_add(area.nr_pages)
                ),
                format!(
                    "use nr_pages ≤ {}",
                    end.saturating_sub(area.start_pfn) / pb * pb
                ),
            ));
        }
    }
    Ok(())
}
