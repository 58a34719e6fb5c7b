//! Import, step 1: read a machine's `pagetypeinfo` (and `zoneinfo`) text into a checked
//! [`ProcImport`], every error pointing at the field to fix.

use super::import::{perr, plan_with, Placement, ProcImport, ZoneSize};
use crate::mm::*;
use crate::scenario::bounds::MAX_PCP_VALUE;
use crate::scenario::error::ScenarioError;
use crate::scenario::format::{Init, Scenario, ZoneSpec};

fn zerr(message: impl Into<String>, hint: impl Into<String>) -> ScenarioError {
    ScenarioError::new("init.zoneinfo", message, hint)
}

const PASTE_PTI: &str = "paste the whole, unedited output of `cat /proc/pagetypeinfo` (as root)";
const PASTE_ZI: &str = "paste the whole, unedited output of `cat /proc/zoneinfo`";

fn mt_from_kernel_name(name: &str) -> Option<MigrateType> {
    MigrateType::ALL
        .into_iter()
        .find(|mt| mt.kernel_name() == name)
}

/// A free-count cell: a number, or `>N` (the kernel's capped walk) read as N.
fn parse_count(tok: &str) -> Option<u64> {
    tok.strip_prefix('>').unwrap_or(tok).parse().ok()
}

/// The 1-based columns (in characters) of the tokens of `raw` split at whitespace and commas,
/// as [`split_node_line`] splits them (its tokens start at index 1, after `Node`): an error
/// names the line and the column of the token to fix.
pub(super) fn token_cols(raw: &str) -> Vec<usize> {
    let mut cols = Vec::new();
    let mut in_tok = false;
    for (i, c) in raw.chars().enumerate() {
        let sep = c.is_whitespace() || c == ',';
        if !sep && !in_tok {
            cols.push(i + 1);
        }
        in_tok = !sep;
    }
    cols
}

/// `line N, column C`, as every error about a spot of the pasted text starts.
pub(super) fn at(line: usize, col: usize) -> String {
    format!("line {line}, column {col}")
}

/// The (line, column) an import error names (`line N, column C: …`), to put the cursor there.
pub fn error_location(err: &ScenarioError) -> Option<(usize, usize)> {
    let rest = err.message.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(", column ")?;
    let (col, _) = rest.split_once(':')?;
    Some((line.parse().ok()?, col.parse().ok()?))
}

/// Splits `Node N, zone NAME ...` into (node, zone name, the rest's tokens).
pub(super) fn split_node_line(line: &str) -> Option<(u32, String, Vec<String>)> {
    let rest = line.strip_prefix("Node")?;
    let toks: Vec<String> = rest
        .replace(',', " ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if toks.len() < 3 || toks[1] != "zone" {
        return None;
    }
    let node = toks[0].parse().ok()?;
    Some((node, toks[2].clone(), toks[3..].to_vec()))
}

pub(super) struct FreeRow {
    pub(super) line: usize,
    /// Column of the migratetype name.
    mt_col: usize,
    pub(super) node: u32,
    pub(super) zone: String,
    pub(super) mt_name: String,
    pub(super) counts: Vec<u64>,
}

pub(super) struct BlockRow {
    line: usize,
    /// Column just past the row's last token (where a missing count would go) and the
    /// columns of its counts.
    end_col: usize,
    count_cols: Vec<usize>,
    pub(super) node: u32,
    pub(super) zone: String,
    pub(super) counts: Vec<u64>,
}

#[derive(PartialEq)]
enum Section {
    Start,
    Free,
    Blocks,
    Mixed,
}

pub(super) struct Pti {
    pub(super) free: Vec<FreeRow>,
    /// (line, names, their columns).
    pub(super) block_header: Option<(usize, Vec<String>, Vec<usize>)>,
    pub(super) blocks: Vec<BlockRow>,
}

pub(super) fn parse_pti_text(text: &str) -> Result<Pti, ScenarioError> {
    let mut pti = Pti {
        free: Vec::new(),
        block_header: None,
        blocks: Vec::new(),
    };
    let mut section = Section::Start;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        let cols = token_cols(raw);
        let lead = cols.first().copied().unwrap_or(1);
        let end_col = raw.trim_end().chars().count() + 1;
        // Column of token `k` (0-based, `Node` is 0), else the end of the line.
        let col = |k: usize| cols.get(k).copied().unwrap_or(end_col);
        if let Some(v) = line.strip_prefix("Page block order:") {
            let v = v.trim();
            if v != PAGEBLOCK_ORDER.to_string() {
                return Err(perr(
                    format!("{}: page block order {v}; the model has pageblock order 9 (x86_64, 4 KiB pages)", at(n, col(3))),
                    "use the file of an x86_64 machine with 4 KiB pages",
                ));
            }
        } else if let Some(v) = line.strip_prefix("Pages per block:") {
            let v = v.trim();
            if v != PAGEBLOCK_NR_PAGES.to_string() {
                return Err(perr(
                    format!("{}: {v} pages per block; the model has 512", at(n, col(3))),
                    "use the file of an x86_64 machine with 4 KiB pages",
                ));
            }
        } else if let Some(rest) = line.strip_prefix("Free pages count per migrate type at order") {
            let orders: Vec<&str> = rest.split_whitespace().collect();
            let want: Vec<String> = (0..NR_PAGE_ORDERS).map(|o| o.to_string()).collect();
            if orders != want {
                // The orders are the tokens after the 8 words of the heading.
                let k = (0..orders.len().max(want.len()))
                    .find(|&k| orders.get(k).copied() != want.get(k).map(String::as_str))
                    .unwrap_or(0);
                return Err(perr(
                    format!(
                        "{}: the table has orders {}; the model has orders 0 to 10 (MAX_PAGE_ORDER 10)",
                        at(n, col(8 + k)),
                        orders.join(" ")
                    ),
                    "use the file of a kernel with MAX_PAGE_ORDER 10 (x86_64)",
                ));
            }
            section = Section::Free;
        } else if let Some(rest) = line.strip_prefix("Number of blocks type") {
            let names: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
            // The names follow the 4 words `Number of blocks type`.
            let name_cols = (0..names.len()).map(|k| col(4 + k)).collect();
            pti.block_header = Some((n, names, name_cols));
            section = Section::Blocks;
        } else if line.starts_with("Number of mixed blocks") {
            section = Section::Mixed;
        } else if line.starts_with("Node") {
            let Some((node, zone, toks)) = split_node_line(line) else {
                return Err(perr(
                    format!("{}: cannot read {line:?}", at(n, lead)),
                    "expected `Node N, zone NAME, ...`; ".to_string() + PASTE_PTI,
                ));
            };
            if toks.first().map(String::as_str) == Some("type") {
                if section == Section::Blocks || section == Section::Mixed {
                    return Err(perr(
                        format!(
                            "{}: a free-count row after the pageblock table",
                            at(n, lead)
                        ),
                        PASTE_PTI,
                    ));
                }
                let Some(mt_name) = toks.get(1) else {
                    return Err(perr(
                        format!("{}: no migratetype after `type`", at(n, col(5))),
                        PASTE_PTI,
                    ));
                };
                // `Node`, N, `zone`, NAME, `type`, TYPE: the counts start at token 6.
                if let Some(k) = toks[2..].iter().position(|t| parse_count(t).is_none()) {
                    return Err(perr(
                        format!(
                            "{}: the free count {:?} is not a number",
                            at(n, col(6 + k)),
                            toks[2 + k]
                        ),
                        PASTE_PTI,
                    ));
                }
                let counts: Vec<u64> = toks[2..].iter().filter_map(|t| parse_count(t)).collect();
                if counts.len() != NR_PAGE_ORDERS {
                    return Err(perr(
                        format!(
                            "{}: {} free counts; the model has orders 0 to 10 (11 columns)",
                            at(n, col(6 + NR_PAGE_ORDERS.min(counts.len()))),
                            counts.len()
                        ),
                        "use the file of a kernel with MAX_PAGE_ORDER 10 (x86_64); ".to_string()
                            + PASTE_PTI,
                    ));
                }
                pti.free.push(FreeRow {
                    line: n,
                    mt_col: col(5),
                    node,
                    zone,
                    mt_name: mt_name.clone(),
                    counts,
                });
            } else {
                match section {
                    Section::Mixed => {}
                    Section::Blocks => {
                        // `Node`, N, `zone`, NAME: the counts start at token 4.
                        if let Some(k) = toks.iter().position(|t| t.parse::<u64>().is_err()) {
                            return Err(perr(
                                format!(
                                    "{}: the pageblock count {:?} is not a number",
                                    at(n, col(4 + k)),
                                    toks[k]
                                ),
                                PASTE_PTI,
                            ));
                        }
                        let counts: Vec<u64> = toks.iter().filter_map(|t| t.parse().ok()).collect();
                        pti.blocks.push(BlockRow {
                            line: n,
                            end_col,
                            count_cols: (0..counts.len()).map(|k| col(4 + k)).collect(),
                            node,
                            zone,
                            counts,
                        });
                    }
                    Section::Start | Section::Free => {
                        return Err(perr(
                            format!("{}: {line:?} is neither a free-count row (`..., type NAME ...`) nor under `Number of blocks type`", at(n, lead)),
                            PASTE_PTI,
                        ));
                    }
                }
            }
        }
        // Any other line (blank, a shell prompt, ...) carries nothing we read.
    }
    Ok(pti)
}

/// The first node (in file order) whose `pagetypeinfo` lists `zone`.
pub(super) fn pick_node(pti: &Pti, zone: &str) -> Result<u32, ScenarioError> {
    let first = pti
        .free
        .iter()
        .map(|r| (r.node, r.zone.as_str()))
        .chain(pti.blocks.iter().map(|r| (r.node, r.zone.as_str())))
        .find(|&(_, z)| z == zone);
    if let Some((node, _)) = first {
        return Ok(node);
    }
    let mut names: Vec<&str> = Vec::new();
    for r in &pti.free {
        if !names.contains(&r.zone.as_str()) {
            names.push(&r.zone);
        }
    }
    if names.is_empty() {
        return Err(perr(
            "no free-count rows (`Node N, zone NAME, type TYPE ...`) in the text",
            PASTE_PTI,
        ));
    }
    let hint = match names.iter().find(|n| n.eq_ignore_ascii_case(zone)) {
        Some(n) => format!("zone names are case-sensitive: use \"{n}\""),
        None => format!(
            "the text has zone{} {}; set init.zone to one of them",
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ),
    };
    Err(ScenarioError::new(
        "init.zone",
        format!("no zone {zone:?} in init.pagetypeinfo"),
        hint,
    ))
}

/// Reads the counts of one zone of one node: (free counts, pageblock counts).
#[allow(clippy::type_complexity)]
fn zone_counts(
    pti: &Pti,
    node: u32,
    zone: &str,
    cma: bool,
) -> Result<([[u64; NR_PAGE_ORDERS]; MT_SLOTS], [u64; MT_SLOTS]), ScenarioError> {
    let cma_hint = "set zone.cma to true: the text comes from a CONFIG_CMA kernel";
    let mut counts = [[0u64; NR_PAGE_ORDERS]; MT_SLOTS];
    let mut seen = [false; MT_SLOTS];
    for r in pti.free.iter().filter(|r| r.node == node && r.zone == zone) {
        let Some(mt) = mt_from_kernel_name(&r.mt_name) else {
            return Err(perr(
                format!(
                    "{}: unknown migratetype {:?}",
                    at(r.line, r.mt_col),
                    r.mt_name
                ),
                "the types are Unmovable, Movable, Reclaimable, HighAtomic, CMA and Isolate",
            ));
        };
        if mt == MigrateType::Cma && !cma {
            return Err(perr(
                format!(
                    "{}: the text has a CMA row but zone.cma is false",
                    at(r.line, r.mt_col)
                ),
                cma_hint,
            ));
        }
        if seen[mt.idx()] {
            return Err(perr(
                format!(
                    "{}: a second {} row for node {node}, zone {zone}",
                    at(r.line, r.mt_col),
                    mt.kernel_name()
                ),
                PASTE_PTI,
            ));
        }
        seen[mt.idx()] = true;
        counts[mt.idx()].copy_from_slice(&r.counts);
    }
    let Some((hline, header, hcols)) = &pti.block_header else {
        return Err(perr(
            "no `Number of blocks type` table in the text",
            "the pageblock counts are needed; ".to_string() + PASTE_PTI,
        ));
    };
    let mut cols = Vec::new();
    for (name, &hcol) in header.iter().zip(hcols) {
        let Some(mt) = mt_from_kernel_name(name) else {
            return Err(perr(
                format!(
                    "{}: unknown migratetype {name:?} in the pageblock table",
                    at(*hline, hcol)
                ),
                "the types are Unmovable, Movable, Reclaimable, HighAtomic, CMA and Isolate",
            ));
        };
        if mt == MigrateType::Cma && !cma {
            return Err(perr(
                format!(
                    "{}: the text has a CMA column but zone.cma is false",
                    at(*hline, hcol)
                ),
                cma_hint,
            ));
        }
        if cols.contains(&mt) {
            return Err(perr(
                format!(
                    "{}: the pageblock table lists {name} twice",
                    at(*hline, hcol)
                ),
                PASTE_PTI,
            ));
        }
        cols.push(mt);
    }
    let Some(row) = pti.blocks.iter().find(|r| r.node == node && r.zone == zone) else {
        return Err(perr(
            format!(
                "no pageblock counts for node {node}, zone {zone} under `Number of blocks type`"
            ),
            PASTE_PTI,
        ));
    };
    if row.counts.len() != cols.len() {
        return Err(perr(
            format!(
                "{}: {} pageblock counts under {} column names",
                at(
                    row.line,
                    row.count_cols
                        .get(cols.len())
                        .copied()
                        .unwrap_or(row.end_col)
                ),
                row.counts.len(),
                cols.len()
            ),
            PASTE_PTI,
        ));
    }
    let mut blocks = [0u64; MT_SLOTS];
    for (&mt, &c) in cols.iter().zip(&row.counts) {
        blocks[mt.idx()] = c;
    }
    {
        let mt = MigrateType::Isolate;
        let nblocks = blocks[mt.idx()];
        let nfree: u64 = counts[mt.idx()].iter().sum();
        let why =
            "v1 starts with no isolated pageblocks (isolation is transient: read the file again)";
        if nblocks != 0 {
            return Err(perr(
                format!("zone {zone} has {nblocks} {} pageblocks", mt.kernel_name()),
                format!("{why}; set the {} counts to 0", mt.kernel_name()),
            ));
        }
        if nfree != 0 {
            return Err(perr(
                format!("zone {zone} has {nfree} {} free blocks", mt.kernel_name()),
                format!("{why}; set the {} counts to 0", mt.kernel_name()),
            ));
        }
    }
    Ok((counts, blocks))
}

/// What `zoneinfo` says about one zone.
#[derive(Default)]
struct ZoneinfoZone {
    managed: Option<u64>,
    start_pfn: Option<u64>,
    spanned: Option<u64>,
    present: Option<u64>,
    batch: Option<i32>,
    high_min: Option<i32>,
    high_max: Option<i32>,
    /// (cpu, high) in listing order.
    highs: Vec<(u32, i32)>,
}

fn parse_zoneinfo(text: &str, node: u32, zone: &str) -> Result<ZoneinfoZone, ScenarioError> {
    let mut found = false;
    let mut inside = false;
    let mut zi = ZoneinfoZone::default();
    // (cpu, fields seen) of the CPU being read; only the first one gives batch/high_min/max.
    let mut cpu: Option<u32> = None;
    let mut cpus_seen = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        let cols = token_cols(raw);
        let lead = cols.first().copied().unwrap_or(1);
        let val_col = cols.get(1).copied().unwrap_or(lead);
        if line.starts_with("Node") {
            if inside {
                break;
            }
            if let Some((nd, z, _)) = split_node_line(line) {
                if nd == node && z == zone {
                    found = true;
                    inside = true;
                }
            }
            continue;
        }
        if !inside {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() != 2 {
            continue;
        }
        let int = |what: &str| -> Result<i64, ScenarioError> {
            toks[1].parse::<i64>().map_err(|_| {
                zerr(
                    format!("{}: {what} {:?} is not a number", at(n, val_col), toks[1]),
                    PASTE_ZI,
                )
            })
        };
        let pcp = |what: &str, min: i64| -> Result<i32, ScenarioError> {
            let v = int(what)?;
            if !(min..=i64::from(MAX_PCP_VALUE)).contains(&v) {
                return Err(zerr(
                    format!(
                        "{}: {what} {v} is out of range {min}..={MAX_PCP_VALUE}",
                        at(n, val_col)
                    ),
                    "fix the value, or override it with zone.pcp",
                ));
            }
            Ok(v as i32)
        };
        match toks[0] {
            "managed" => {
                let v = int("managed")?;
                zi.managed = Some(v.max(0) as u64);
            }
            "start_pfn:" => zi.start_pfn = Some(int("start_pfn")?.max(0) as u64),
            "spanned" => zi.spanned = Some(int("spanned")?.max(0) as u64),
            "present" => zi.present = Some(int("present")?.max(0) as u64),
            "cpu:" => {
                let c = int("cpu")?;
                if c < 0 {
                    return Err(zerr(format!("{}: cpu {c}", at(n, val_col)), PASTE_ZI));
                }
                cpu = Some(c as u32);
                cpus_seen += 1;
            }
            "high:" | "batch:" | "high_min:" | "high_max:" => {
                let Some(c) = cpu else {
                    return Err(zerr(
                        format!("{}: {} before any `cpu:` line", at(n, lead), toks[0]),
                        PASTE_ZI,
                    ));
                };
                let first = cpus_seen == 1;
                match toks[0] {
                    "high:" => zi.highs.push((c, pcp("high", 0)?)),
                    "batch:" if first => zi.batch = Some(pcp("batch", 1)?),
                    "high_min:" if first => zi.high_min = Some(pcp("high_min", 0)?),
                    "high_max:" if first => zi.high_max = Some(pcp("high_max", 0)?),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if !found {
        return Err(zerr(
            format!("no `Node {node}, zone {zone}` section in the text"),
            "use the zoneinfo of the machine the pagetypeinfo comes from, or leave out init.zoneinfo",
        ));
    }
    if zi.managed.is_none() {
        return Err(zerr(
            format!("node {node}, zone {zone} has no `managed` line"),
            PASTE_ZI,
        ));
    }
    Ok(zi)
}

/// Reads `init` from `/proc` (scenario contract, "`init` from `/proc`"): the `zone` of the
/// first node that has it in `pagetypeinfo`, the same node's zone in `zoneinfo` if given, the
/// size rule (`managed` > `zone_pages` > Σ pageblocks × 512, and the pageblock counts must sum to
/// ⌈size / 512⌉, via [`Scenario::resolve_proc_zone_pages`]) and every check of the layout
/// [`apply_import`](super::import::apply_import) will build. `cma` is `zone.cma`, `zone_pages` is
/// `zone.pages`.
pub fn parse_import(
    pagetypeinfo: &str,
    zoneinfo: Option<&str>,
    zone: &str,
    cma: bool,
    zone_pages: Option<u64>,
) -> Result<ProcImport, ScenarioError> {
    parse_import_up_to(
        pagetypeinfo,
        zoneinfo,
        zone,
        cma,
        zone_pages,
        MAX_ZONE_PAGES,
    )
}

/// [`parse_import`] of a zone of at most `max_pages` pages: [`MAX_ZONE_PAGES`] for the one
/// zone of a scenario, [`MAX_NODE_PAGES`] for a zone of an `init.zone` `"all"` import (a zone
/// of a node may be as large as the node, as in `zones`).
pub fn parse_import_up_to(
    pagetypeinfo: &str,
    zoneinfo: Option<&str>,
    zone: &str,
    cma: bool,
    zone_pages: Option<u64>,
    max_pages: u64,
) -> Result<ProcImport, ScenarioError> {
    let pti = parse_pti_text(pagetypeinfo)?;
    let node = pick_node(&pti, zone)?;
    let (counts, blocks) = zone_counts(&pti, node, zone, cma)?;
    let zi = match zoneinfo {
        Some(t) => Some(parse_zoneinfo(t, node, zone)?),
        None => None,
    };
    let managed = zi.as_ref().and_then(|z| z.managed);
    let pageblocks: u64 = blocks.iter().sum();
    // The size rule is `Scenario::resolve_proc_zone_pages`; ask it with a scenario of just these
    // fields.
    let probe = Scenario {
        zone: ZoneSpec {
            pages: zone_pages,
            cma,
            ..ZoneSpec::default()
        },
        init: Init::Proc {
            pagetypeinfo: String::new(),
            zoneinfo: zoneinfo.map(|_| String::new()),
            zone: zone.to_string(),
        },
        ..Scenario::default()
    };
    let contract = probe
        .resolve_proc_zone_pages_up_to(managed, pageblocks, max_pages)
        .map_err(|mut e| {
            // The usual cause on a real machine: pagetypeinfo counts the pageblocks over the
            // zone's present memory, while `managed` leaves out reserved pages.
            if e.path == "init.pagetypeinfo" && managed.is_some() && zone_pages.is_none() {
                e.hint = format!(
                    "{}; or leave out init.zoneinfo to size the zone from the pageblock counts \
                     ({pageblocks} × 512 = {} pages): /proc/pagetypeinfo counts the pageblocks of \
                     present memory, zoneinfo's managed leaves out reserved pages",
                    e.hint,
                    pageblocks * u64::from(PAGEBLOCK_NR_PAGES)
                );
            }
            e
        });
    // The fallback size (only when the size came from `managed`): the pageblock counts, as
    // without zoneinfo.
    let by_blocks = match managed {
        Some(m) if zone_pages.is_none() => {
            let no_zi = Scenario {
                init: Init::Proc {
                    pagetypeinfo: String::new(),
                    zoneinfo: None,
                    zone: zone.to_string(),
                },
                ..probe.clone()
            };
            no_zi
                .resolve_proc_zone_pages_up_to(None, pageblocks, max_pages)
                .ok()
                .filter(|&p| p != m)
                .map(|p| (p, ZoneSize::Pageblocks { managed: m }))
        }
        _ => None,
    };
    let mut sizes = Vec::new();
    let first_err = match contract {
        Ok(p) => {
            sizes.push((p, ZoneSize::Contract));
            None
        }
        Err(e) => Some(e),
    };
    sizes.extend(by_blocks);
    let mut initial_high = Vec::new();
    if let Some(zi) = &zi {
        for &(cpu, high) in &zi.highs {
            if cpu < MAX_CPUS {
                let c = cpu as usize;
                if initial_high.len() <= c {
                    initial_high.resize(c + 1, 0);
                }
                initial_high[c] = high;
            }
        }
    }
    let mut imp = ProcImport {
        pages: 0,
        counts,
        blocks,
        node,
        managed,
        batch: zi.as_ref().and_then(|z| z.batch),
        high_min: zi.as_ref().and_then(|z| z.high_min),
        high_max: zi.as_ref().and_then(|z| z.high_max),
        initial_high,
        size: ZoneSize::Contract,
        placement: Placement::Contract,
        start_pfn: zi.as_ref().and_then(|z| z.start_pfn),
        spanned: zi.as_ref().and_then(|z| z.spanned),
        present: zi.as_ref().and_then(|z| z.present),
    };
    // The contract's size and layout first (what imports today keeps its placement exactly),
    // then the fallbacks: dense placement, then the pageblock-count size. The first error is
    // the one reported when nothing fits.
    let mut err = first_err;
    for (pages, size) in sizes {
        for placement in [Placement::Contract, Placement::Dense] {
            imp.pages = pages;
            imp.size = size;
            match plan_with(&imp, placement) {
                Ok(_) => {
                    imp.placement = placement;
                    return Ok(imp);
                }
                Err(e) => {
                    err.get_or_insert(e);
                }
            }
        }
    }
    Err(err.expect("at least one size was tried or refused"))
}
