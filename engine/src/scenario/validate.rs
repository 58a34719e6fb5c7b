//! Step 3 of [`super::valid::parse`]: every check the contract makes "before anything runs" (ranges,
//! CPUs, names, pfn ranges), on the typed value.

use std::collections::HashMap;

use serde_json::Value;

use super::bounds::{
    check_alloc_mt, check_compaction_proactiveness, check_cpus, check_min_free_kbytes, check_order,
    check_pcp, check_version, check_zone_pages, MAX_CAPTION_CHARS, MAX_PFN, MAX_REPEAT_DEPTH,
    MAX_TOUR_STOPS, ZONE_START_ALIGN,
};
use super::error::{join, Res, ScenarioError};
use super::format::{
    BindKind, CompareSide, DrainTarget, Init, MtWeights, Op, Scenario, ScenarioCompare, ZoneSpec,
};
use super::program::{OpId, Program, Visit};
use super::scopes::Scopes;
use super::zone_snapshot::Snapshot;
use crate::mm::{MIN_ZONE_PAGES, NR_PAGE_ORDERS};

/// The static checks: at most [`MAX_TOUR_STOPS`], non-blank captions of at most
/// [`MAX_CAPTION_CHARS`], positions strictly ascending (a tour moves forward).
fn check_tour(s: &Scenario) -> Res<()> {
    if s.tour.len() > MAX_TOUR_STOPS {
        return Err(ScenarioError::new(
            format!("tour[{MAX_TOUR_STOPS}]"),
            format!(
                "a tour has at most {MAX_TOUR_STOPS} stops, this one has {}",
                s.tour.len()
            ),
            "keep the few stops that tell the story",
        ));
    }
    for (i, stop) in s.tour.iter().enumerate() {
        let cap = stop.caption.trim();
        if cap.is_empty() {
            return Err(ScenarioError::new(
                format!("tour[{i}].caption"),
                "the caption is empty",
                "say what the audience should see at this stop",
            ));
        }
        let n = stop.caption.chars().count();
        if n > MAX_CAPTION_CHARS {
            return Err(ScenarioError::new(
                format!("tour[{i}].caption"),
                format!("the caption has {n} characters, more than {MAX_CAPTION_CHARS}"),
                "shorten it, or split it over two stops",
            ));
        }
        if i > 0 && stop.key() <= s.tour[i - 1].key() {
            let (op, ev) = s.tour[i - 1].key();
            return Err(ScenarioError::new(
                format!("tour[{i}].op"),
                format!("stop {} is not after stop {i} (op {op}, event {ev})", i + 1),
                "order the stops by position: op ascending, then event",
            ));
        }
    }
    Ok(())
}

/// The checks against the scenario's `zone`: its size and start (if given) and CPUs.
fn check_snapshot_zone(snap: &Snapshot, zone: &ZoneSpec) -> Res<()> {
    if let Some(pages) = zone.pages.filter(|&p| p != snap.pages) {
        return Err(ScenarioError::new(
            "zone.pages",
            format!(
                "zone.pages is {pages} but init.snapshot.pages is {}",
                snap.pages
            ),
            "remove zone.pages: the snapshot gives the size",
        ));
    }
    if zone.start_pfn != 0 && zone.start_pfn != snap.start_pfn {
        return Err(ScenarioError::new(
            "zone.start_pfn",
            format!(
                "zone.start_pfn is {:#x} but init.snapshot.start_pfn is {:#x}",
                zone.start_pfn, snap.start_pfn
            ),
            "remove zone.start_pfn: the snapshot gives the start",
        ));
    }
    if let Some((i, l)) = snap
        .pcp
        .iter()
        .enumerate()
        .find(|(_, l)| l.cpu >= zone.cpus)
    {
        return Err(ScenarioError::new(
            format!("init.snapshot.pcp[{i}].cpu"),
            format!("CPU {}, but the zone has {} CPU(s)", l.cpu, zone.cpus),
            "set zone.cpus to the machine's number of CPUs",
        ));
    }
    Ok(())
}

/// The static checks of `compare` (the typed half; shapes are checked while reading).
fn check_compare(c: &ScenarioCompare) -> Res<()> {
    for (side, path) in [(&c.a, "compare.a"), (&c.b, "compare.b")] {
        if side.label.trim().is_empty() {
            return Err(ScenarioError::new(
                format!("{path}.label"),
                "the label is empty",
                "name the side, e.g. \"v7.1: page by page\"",
            ));
        }
    }
    let same = |x: &CompareSide, y: &CompareSide| {
        x.kernel == y.kernel
            && x.rmqueue_mode_memory == y.rmqueue_mode_memory
            && x.pcp == y.pcp
            && x.compaction_proactiveness == y.compaction_proactiveness
            && x.profile_methods == y.profile_methods
    };
    if same(&c.a, &c.b) {
        return Err(ScenarioError::new(
            "compare.b",
            "sides a and b have the same overrides: they would run the same thing",
            "give b another kernel, rmqueue_mode_memory, pcp or compaction_proactiveness than a",
        ));
    }
    if let Some(m) = &c.measured {
        if m.rows.is_empty() {
            return Err(ScenarioError::new(
                "compare.measured.rows",
                "no rows",
                "give at least one {\"label\", \"a\", \"b\", \"unit\"} row, or drop measured",
            ));
        }
        for (i, r) in m.rows.iter().enumerate() {
            for (v, k) in [(r.a, "a"), (r.b, "b")] {
                if !v.is_finite() || v < 0.0 {
                    return Err(ScenarioError::new(
                        format!("compare.measured.rows[{i}].{k}"),
                        format!("{k} is {v}"),
                        "a measurement is a non-negative number",
                    ));
                }
            }
        }
    }
    Ok(())
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
    /// The op that binds it.
    def: OpId,
}

struct Checker {
    cpus: u32,
    start_pfn: u64,
    /// One past the zone's last pfn, if the size is known.
    end_pfn: Option<u64>,
    scopes: Scopes<StaticBinding>,
    /// A node of several zones: each zone's `[start, end)` pfns and name (empty for one zone,
    /// whose range is `start_pfn..end_pfn`).
    node: Vec<(u64, u64, String)>,
    /// The zone names an `alloc`'s `zone` may give.
    zone_names: Vec<String>,
    /// `init.zone` `"all"`: a node whose zones and pfns the `/proc` text gives only at build
    /// (`node` is empty until then, and the pfn ranges wait for it).
    import_all: bool,
    /// Names whose `repeat` scope has ended, and where they were bound: only for the hint of a
    /// `ref` that reaches into a finished scope.
    ended: HashMap<String, String>,
    /// The sizes of the CMA areas the zones declare (`cma_pageblocks.nr_pages`), in pfn order.
    cma_areas: Vec<u64>,
    /// By op: the op that binds the name its `ref` names.
    targets: Vec<Option<OpId>>,
}

/// Every check of the contract on `s`, whose ops `program` numbers, with the zone size `size`
/// (and where it comes from) when it is known; the names the ops' `ref`s resolve to, by op.
pub(super) fn check_scenario(
    s: &Scenario,
    program: &Program,
    size: Option<(u64, &str)>,
) -> Res<Vec<Option<OpId>>> {
    check_scenario_in(s, program, size, None)
}

/// [`check_scenario`]; with `imported`, the zones (`[start, end)`, name) an `init.zone` `"all"`
/// import (or a node snapshot) lays out, so the ops' pfn ranges are checked against them as
/// against `zones`.
pub(super) fn check_scenario_in(
    s: &Scenario,
    program: &Program,
    size: Option<(u64, &str)>,
    imported: Option<Vec<(u64, u64, String)>>,
) -> Res<Vec<Option<OpId>>> {
    let (node, import_all) = check_start(s, size)?;
    let node = match imported {
        Some(zones) if import_all => zones,
        _ => node,
    };
    let z = &s.zone;
    let mut checker = Checker {
        cpus: s.node_zones()[0].cpus,
        start_pfn: z.start_pfn,
        end_pfn: size.map(|(p, _)| z.start_pfn + p),
        scopes: Scopes::new(),
        zone_names: if import_all {
            ["DMA", "DMA32", "Normal"].map(String::from).to_vec()
        } else {
            s.node_zones().iter().map(|z| z.name.clone()).collect()
        },
        node,
        import_all,
        ended: HashMap::new(),
        cma_areas: s
            .node_zones()
            .iter()
            .filter_map(|z| z.cma_pageblocks.map(|a| a.nr_pages))
            .collect(),
        targets: vec![None; program.len()],
    };
    for visit in program.walk() {
        match visit {
            Visit::Op(id, op) => {
                let path = &program.defs()[id as usize].path;
                checker.op(id, op, path, program.depth(id))?;
            }
            Visit::Enter { .. } => checker.scopes.push(),
            Visit::Leave { .. } => {
                if let Some(frame) = checker.scopes.pop() {
                    for (name, b) in frame {
                        checker.ended.insert(name, b.at);
                    }
                }
            }
        }
    }
    check_tour(s)?;
    Ok(checker.targets)
}

/// The zones of a node as `[start, end)` pfns and a name.
type ZoneRanges = Vec<(u64, u64, String)>;

/// The checks of everything but the ops and the tour: the version, `compare`, the zone or zones
/// and `init`; the zones' `[start, end)` pfns and names (`zones::check_node`) and whether
/// `init.zone` is `"all"`.
fn check_start(s: &Scenario, size: Option<(u64, &str)>) -> Res<(ZoneRanges, bool)> {
    check_version(u64::from(s.version))?;
    if let Some(c) = &s.compare {
        check_compare(c)?;
    }
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
    if let Some(v) = z.compaction_proactiveness {
        check_compaction_proactiveness("zone.compaction_proactiveness", u64::from(v))?;
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
    if let Init::Snapshot(snap) = &s.init {
        // The snapshot gives the zone's size, start and CPUs; `zone` may only agree.
        check_snapshot_zone(snap, z)?;
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
    super::zones::check_cma_pageblocks(
        "zone",
        z,
        size.map(|(p, _)| z.start_pfn + p).or_else(|| {
            matches!(s.init, Init::Boot)
                .then(|| z.start_pfn + z.pages.unwrap_or(super::bounds::DEFAULT_ZONE_PAGES))
        }),
        matches!(s.init, Init::Boot),
    )?;
    let node = super::zones::check_node(s)?;
    let import_all = super::zones::check_import_all(s)?;
    Ok((node, import_all))
}

/// Every check of a scenario without ops or tour whose `init` is `"boot"` (its zone size is the
/// one written): what [`check_scenario`] checks of it, without the ops' checks
/// ([`super::parse_boot_start`]).
pub(super) fn check_boot_start(s: &Scenario) -> Res<()> {
    debug_assert!(s.ops.is_empty() && s.tour.is_empty() && matches!(s.init, Init::Boot));
    check_start(s, s.static_zone_pages().map(|p| (p, "zone.pages"))).map(drop)
}

impl Checker {
    /// Op `id` at `path`, inside `depth` repeats; a `repeat`'s body is checked by the walk
    /// that follows it, in a scope of its own.
    fn op(&mut self, id: OpId, op: &Op, path: &str, depth: usize) -> Res<()> {
        if let Some(cpu) = op.cpu_field() {
            self.cpu(&join(path, "cpu"), cpu)?;
        }
        match op {
            Op::Alloc {
                order, mt, zone, ..
            } => {
                check_order(&join(path, "order"), u64::from(*order))?;
                check_alloc_mt(&join(path, "mt"), *mt)?;
                if let Some(name) = zone {
                    super::zones::check_alloc_zone(&join(path, "zone"), name, &self.zone_names)?;
                }
            }
            Op::Free { .. }
            | Op::Split { .. }
            | Op::Vfree { .. }
            | Op::GetPage { .. }
            | Op::PutPage { .. }
            | Op::CmaRelease { .. } => {}
            Op::CmaAlloc {
                nr_pages, align, ..
            } => {
                if let Some(a) = align {
                    check_order(&join(path, "align"), u64::from(*a))?;
                }
                self.cma_alloc(path, *nr_pages)?;
            }
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
            // Its cpu is checked with every op's.
            Op::CompactMemory { .. } => {}
            // wakeup_kcompactd returns at once for order 0 (mm/compaction.c:3166).
            Op::Kcompactd { order: Some(o), .. } => {
                check_order(&join(path, "order"), u64::from(*o))?;
                if *o == 0 {
                    return Err(ScenarioError::new(
                        join(path, "order"),
                        "wakeup_kcompactd ignores order 0: kcompactd is never woken for it",
                        "use an order 1..=10, or leave order out for the timeout wakeup (proactive compaction)",
                    ));
                }
            }
            Op::Kcompactd { order: None, .. } => {}
            Op::Compact { order, zone, .. } => {
                check_order(&join(path, "order"), u64::from(*order))?;
                if let Some(name) = zone {
                    if !self.zone_names.iter().any(|z| z == name) {
                        return Err(ScenarioError::new(
                            join(path, "zone"),
                            format!("zone {name:?} is not a zone of this scenario"),
                            format!(
                                "use one of {} (the zone to compact)",
                                self.zone_names
                                    .iter()
                                    .map(|z| format!("\"{z}\""))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    }
                }
            }
            Op::Drain { cpu, .. } | Op::Tick { cpu, .. } => {
                if let DrainTarget::Cpu(c) = cpu {
                    self.cpu(&join(path, "cpu"), *c)?;
                }
            }
            Op::Repeat { .. } => {
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
            self.targets[id as usize] =
                Some(self.resolve(&join(path, "ref"), op.op_name(), name, accepts)?);
        }
        if let Some((name, kind)) = op.binding() {
            self.bind(id, path, name, kind)?;
        }
        Ok(())
    }

    /// `cma_alloc` needs the scenario's one CMA area, and asks 1..=its size pages
    /// (`cma_range_alloc` fails at once when `count` exceeds the bitmap).
    fn cma_alloc(&self, path: &str, nr: u64) -> Res<()> {
        let size = match self.cma_areas.as_slice() {
            [] => {
                return Err(ScenarioError::new(
                    path,
                    "cma_alloc without a CMA area",
                    "declare one: \"cma\": true and \"cma_pageblocks\": {\"start_pfn\": P, \"nr_pages\": N} in the zone",
                ))
            }
            [size] => *size,
            more => {
                return Err(ScenarioError::new(
                    path,
                    format!("cma_alloc with {} CMA areas", more.len()),
                    "the model has one CMA area: keep cma_pageblocks in one zone",
                ))
            }
        };
        let nr_path = join(path, "nr_pages");
        if nr == 0 {
            return Err(ScenarioError::new(
                nr_path,
                "nr_pages is 0",
                "use nr_pages ≥ 1",
            ));
        }
        if nr > size {
            return Err(ScenarioError::new(
                nr_path,
                format!("cma_alloc of {nr} pages from a CMA area of {size} pages"),
                format!("use nr_pages ≤ {size}, or a larger zone.cma_pageblocks"),
            ));
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
        if !self.node.is_empty() {
            return super::zones::check_node_range(path, pfn, nr, &self.node);
        }
        if self.import_all {
            // The zones' pfns come from the /proc text: checked once validation has read it
            // (`layout::Layout::resolve`).
            return Ok(());
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

    /// The op that binds `name` where a `ref` at `path` names it.
    fn resolve(&self, path: &str, op: &str, name: &str, accepts: &[BindKind]) -> Res<OpId> {
        let wanted: Vec<&str> = accepts.iter().map(|k| k.with_article()).collect();
        let wanted = wanted.join(" or ");
        match self.scopes.lookup(name) {
            Some(b) if accepts.contains(&b.kind) => Ok(b.def),
            Some(b) => Err(ScenarioError::new(
                path,
                format!(
                    "`{name}` names {} ({}); {op} takes {wanted}",
                    b.kind.with_article(),
                    b.at
                ),
                if matches!(op, "get_page" | "put_page") {
                    format!(
                        "ref the name of {wanted}: a third party holds a reference only on a page \
                         with its own refcount (an order-0 alloc, a split_page'd alloc, a page of \
                         an alloc_contig_range); a vmalloc area's pages are the area's"
                    )
                } else {
                    format!("ref the name of {wanted}")
                },
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

    fn bind(&mut self, def: OpId, op_path: &str, name: &str, kind: BindKind) -> Res<()> {
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
            def,
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
