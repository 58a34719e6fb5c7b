//! What a pasted `/proc` text holds and what its import made of it: the zones found (to pick
//! one), the chosen zone's pageblocks per migratetype and free pages per order, and what the
//! import assumed (size rule, placement, the fallbacks used). The app's import form and the
//! CLI's notes read it; the import itself stays [`parse_import`] + [`apply_import`](super::import::apply_import).

use serde::Serialize;

use super::import::Placement;
use super::import::ZoneSize;
use super::parse::{at, parse_import, parse_pti_text, split_node_line, token_cols};
use crate::mm::*;
use crate::scenario::error::ScenarioError;
use crate::scenario::format::{Init, Scenario};

/// One zone of one node in a pasted `pagetypeinfo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PasteZone {
    /// The node.
    pub node: u32,
    /// The zone's name.
    pub zone: String,
    /// Σ of its row under `Number of blocks type` (0 if it has none).
    pub pageblocks: u64,
    /// Σ free blocks × 2^order over its free-count rows (`>100000` read as 100000).
    pub free_pages: u64,
}

/// The zones of a pasted `pagetypeinfo`, in file order, and whether it comes from a CONFIG_CMA
/// kernel (a CMA row or column: the scenario then needs `zone.cma`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PasteScan {
    /// The zones.
    pub zones: Vec<PasteZone>,
    /// The kernel has `CONFIG_CMA`.
    pub cma: bool,
}

impl PasteScan {
    /// The zone to import by default: `Normal` if the text has one (the zone most allocations
    /// come from), else the one with the most pageblocks.
    pub fn default_zone(&self) -> Option<&str> {
        self.zones
            .iter()
            .find(|z| z.zone == "Normal")
            .or_else(|| self.zones.iter().max_by_key(|z| z.pageblocks))
            .map(|z| z.zone.as_str())
    }

    /// The distinct zone names, in file order (the model imports the first node that has one).
    pub fn zone_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for z in &self.zones {
            if !names.contains(&z.zone.as_str()) {
                names.push(&z.zone);
            }
        }
        names
    }
}

/// Reads the zones of a pasted `pagetypeinfo` (what the app fills its zone `<select>` with as
/// the user types). The errors are [`parse_import`]'s for the text itself (line and column).
pub fn scan_pagetypeinfo(text: &str) -> Result<PasteScan, ScenarioError> {
    let pti = parse_pti_text(text)?;
    let mut zones: Vec<PasteZone> = Vec::new();
    let mut cma = false;
    for r in &pti.free {
        cma |= r.mt_name == MigrateType::Cma.kernel_name();
        let pages: u64 = r
            .counts
            .iter()
            .enumerate()
            .map(|(o, &c)| c.saturating_mul(1 << o))
            .sum();
        match zones
            .iter_mut()
            .find(|z| z.node == r.node && z.zone == r.zone)
        {
            Some(z) => z.free_pages += pages,
            None => zones.push(PasteZone {
                node: r.node,
                zone: r.zone.clone(),
                pageblocks: 0,
                free_pages: pages,
            }),
        }
    }
    for r in &pti.blocks {
        let n: u64 = r.counts.iter().sum();
        match zones
            .iter_mut()
            .find(|z| z.node == r.node && z.zone == r.zone)
        {
            Some(z) => z.pageblocks += n,
            None => zones.push(PasteZone {
                node: r.node,
                zone: r.zone.clone(),
                pageblocks: n,
                free_pages: 0,
            }),
        }
    }
    if let Some((_, names, _)) = &pti.block_header {
        cma |= names.iter().any(|n| n == MigrateType::Cma.kernel_name());
    }
    Ok(PasteScan { zones, cma })
}

/// What [`import_summary`] reports: the import of one zone, and what it assumed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Every zone of the paste (the user picks one; the model holds one zone).
    pub zones: Vec<PasteZone>,
    /// The imported zone and the node it was read from.
    pub zone: String,
    /// The node it was read from.
    pub node: u32,
    /// The model zone's size, and `zoneinfo`'s `managed` when given.
    pub pages: u64,
    /// `zoneinfo`'s `managed`, when given.
    pub managed: Option<u64>,
    /// Pageblocks per migratetype (kernel name, count), the model's types in kernel order.
    pub pageblocks: Vec<(String, u64)>,
    /// Free blocks and free pages per order 0..=10, all migratetypes.
    pub free_blocks: [u64; NR_PAGE_ORDERS],
    /// Free pages per order, all migratetypes.
    pub free_pages: [u64; NR_PAGE_ORDERS],
    /// Where the size came from.
    pub size: ZoneSize,
    /// How the free blocks are placed.
    pub placement: Placement,
    /// The CPUs `zoneinfo` lists for the zone (highest `cpu:` + 1, at most `MAX_CPUS`); 0
    /// without `zoneinfo`. The contract does not take `zone.cpus` from it; a caller may.
    pub zoneinfo_cpus: u32,
    /// What every import assumes (the contract), one sentence each.
    pub assumed: Vec<String>,
    /// The fallbacks this import needed ([`super::import::ProcImport::fallbacks`]); empty when the
    /// contract's size rule and layout held.
    pub fallbacks: Vec<String>,
}

/// Imports `zone` the way `init` does ([`parse_import`], same arguments) and summarizes it.
pub fn import_summary(
    pagetypeinfo: &str,
    zoneinfo: Option<&str>,
    zone: &str,
    cma: bool,
    zone_pages: Option<u64>,
) -> Result<ImportSummary, ScenarioError> {
    let scan = scan_pagetypeinfo(pagetypeinfo)?;
    let imp = parse_import(pagetypeinfo, zoneinfo, zone, cma, zone_pages)?;
    let types: Vec<MigrateType> = MigrateType::ALL
        .into_iter()
        .filter(|&t| cma || t != MigrateType::Cma)
        .collect();
    let mut free_blocks = [0u64; NR_PAGE_ORDERS];
    let mut free_pages = [0u64; NR_PAGE_ORDERS];
    for (o, (b, p)) in free_blocks.iter_mut().zip(&mut free_pages).enumerate() {
        *b = types.iter().map(|t| imp.counts[t.idx()][o]).sum();
        *p = *b << o;
    }
    let size_rule = match imp.size {
        ZoneSize::Pageblocks { .. } => "the pageblock counts × 512 (fallback)".to_string(),
        ZoneSize::Contract => match (imp.managed, zone_pages) {
            (Some(m), _) => format!("zoneinfo's managed ({m})"),
            (None, Some(_)) => "zone.pages".to_string(),
            (None, None) => "the pageblock counts × 512 (no zoneinfo)".to_string(),
        },
    };
    let placement = match imp.placement {
        Placement::Contract => "the contract's layout (2^(o+1)-page cells)",
        Placement::Dense => "dense (fallback)",
    };
    let assumed = vec![
        format!("zone size {} pages, from {size_rule}", imp.pages),
        format!("placement: {placement}; it reproduces the counts, not the machine's placement"),
        "every page not free is allocated, owned by its pageblock's type; pcp lists empty"
            .to_string(),
        format!("read from node {}, shown as Node 0", imp.node),
    ];
    let mut assumed = assumed;
    assumed.extend(imp.placement_notes());
    Ok(ImportSummary {
        zones: scan.zones,
        zone: zone.to_string(),
        node: imp.node,
        pages: imp.pages,
        managed: imp.managed,
        pageblocks: types
            .iter()
            .map(|t| (t.kernel_name().to_string(), imp.blocks[t.idx()]))
            .collect(),
        free_blocks,
        free_pages,
        size: imp.size,
        placement: imp.placement,
        zoneinfo_cpus: imp.initial_high.len() as u32,
        assumed,
        fallbacks: imp.fallbacks(),
    })
}

/// [`import_summary`] of a scenario's `init` from `/proc`; `None` for another `init`.
pub fn summary_of(s: &Scenario) -> Option<Result<ImportSummary, ScenarioError>> {
    let Init::Proc {
        pagetypeinfo,
        zoneinfo,
        zone,
    } = &s.init
    else {
        return None;
    };
    Some(import_summary(
        pagetypeinfo,
        zoneinfo.as_deref(),
        zone,
        s.zone.cma,
        s.zone.pages,
    ))
}

/// Cross-checks a pasted `/proc/buddyinfo` against the summary's free blocks per order (read
/// at another moment, so a busy machine differs a little): one sentence per difference, empty
/// when they agree. A line that is not `Node N, zone NAME` + 11 numbers is an error (path
/// `buddyinfo`, with line and column).
pub fn buddyinfo_mismatches(
    buddyinfo: &str,
    sum: &ImportSummary,
) -> Result<Vec<String>, ScenarioError> {
    let berr = |m: String| {
        ScenarioError::new(
            "buddyinfo",
            m,
            "paste the whole, unedited output of `cat /proc/buddyinfo`",
        )
    };
    let mut row = None;
    for (i, raw) in buddyinfo.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let cols = token_cols(raw);
        let lead = cols.first().copied().unwrap_or(1);
        let Some((node, zone, toks)) = split_node_line(line) else {
            return Err(berr(format!(
                "{}: cannot read {line:?} (expected `Node N, zone NAME` and 11 counts)",
                at(i + 1, lead)
            )));
        };
        if let Some(k) = toks.iter().position(|t| t.parse::<u64>().is_err()) {
            return Err(berr(format!(
                "{}: the free count {:?} is not a number",
                at(i + 1, cols.get(4 + k).copied().unwrap_or(lead)),
                toks[k]
            )));
        }
        if toks.len() != NR_PAGE_ORDERS {
            return Err(berr(format!(
                "{}: {} free counts; the model has orders 0 to 10 (11 columns)",
                at(i + 1, lead),
                toks.len()
            )));
        }
        if node == sum.node && zone == sum.zone && row.is_none() {
            row = Some(
                toks.iter()
                    .filter_map(|t| t.parse::<u64>().ok())
                    .collect::<Vec<_>>(),
            );
        }
    }
    let Some(row) = row else {
        return Ok(vec![format!(
            "buddyinfo has no line for node {}, zone {}",
            sum.node, sum.zone
        )]);
    };
    Ok(row
        .iter()
        .zip(&sum.free_blocks)
        .enumerate()
        .filter(|(_, (b, p))| b != p)
        .map(|(o, (b, p))| {
            format!(
                "order {o}: buddyinfo has {b} free blocks, pagetypeinfo {p}{}",
                if *p >= super::write::PAGETYPEINFO_FREECOUNT_CAP {
                    " (pagetypeinfo stops counting at 100000)"
                } else {
                    " (the files were read at different moments?)"
                }
            )
        })
        .collect())
}

/// `zone.cma` for an `init` from `/proc`: a `pagetypeinfo` with a CMA free-count row or a CMA
/// column under `Number of blocks type` comes from a CONFIG_CMA kernel (`migratetype_names[]`
/// has "CMA" only then, and `pagetypeinfo_showfree_print` prints a row for every migratetype),
/// one with free-count rows and no CMA row from a kernel without it. `explicit` is what the
/// scenario (or `--init …,cma=`) says, if it says it; a setting the text contradicts is an
/// error at `path`. A text with no rows at all says nothing: `explicit`, else false.
pub fn resolve_cma(
    pagetypeinfo: &str,
    explicit: Option<bool>,
    path: &str,
) -> Result<bool, ScenarioError> {
    let Ok(pti) = parse_pti_text(pagetypeinfo) else {
        // The import reports the text's own error, with its line and column.
        return Ok(explicit.unwrap_or(false));
    };
    let row = pti
        .free
        .iter()
        .find(|r| r.mt_name == MigrateType::Cma.kernel_name())
        .map(|r| r.line);
    let column = pti.block_header.as_ref().and_then(|(line, names, _)| {
        names
            .iter()
            .any(|n| n == MigrateType::Cma.kernel_name())
            .then_some(*line)
    });
    let said = match (row.or(column), pti.free.is_empty()) {
        (Some(line), _) => Some((true, line)),
        (None, false) => Some((false, pti.free[0].line)),
        (None, true) => None,
    };
    match (said, explicit) {
        (None, e) => Ok(e.unwrap_or(false)),
        (Some((text, _)), None) => Ok(text),
        (Some((text, _)), Some(e)) if text == e => Ok(e),
        (Some((true, line)), Some(_)) => Err(ScenarioError::new(
            path,
            format!(
                "cma is false, but init.pagetypeinfo line {line} lists the CMA migratetype: \
                 the text comes from a CONFIG_CMA kernel"
            ),
            "leave cma out (it is read from the text) or set it to true",
        )),
        (Some((false, line)), Some(_)) => Err(ScenarioError::new(
            path,
            format!(
                "cma is true, but init.pagetypeinfo has no CMA row (its free counts start at \
                 line {line}): a CONFIG_CMA kernel prints one for every zone"
            ),
            "leave cma out (it is read from the text) or set it to false",
        )),
    }
}
