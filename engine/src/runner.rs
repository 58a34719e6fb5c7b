//! Running a scenario: names and scopes, the semantics of each op as the scenario contract pins
//! them, per-operation cost figures, and checkpoints for the timeline.

use crate::events::*;
use crate::ops::{VmArea, VMALLOC_GFP};
use crate::page_alloc::Engine;
use crate::pseudocode::Step;
use crate::scenario::{DrainTarget, Init, Op, Scenario, ScenarioError, Scopes};
use crate::setup::{self, ZoneParams};
use crate::types::gfp::*;
use crate::types::*;
use crate::zone::*;
use serde::{Deserialize, Serialize};

/// Who holds a page: one record per allocation (owner ids index `Run::owners`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerInfo {
    /// Index into `Run::op_defs` of the op that allocated it.
    pub def: u32,
    /// Allocation migratetype as requested.
    pub mt: MigrateType,
    /// 1-based sequence within a workload op (0 otherwise).
    pub seq: u32,
}

/// One op as written in the scenario (repeat bodies appear once).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpDef {
    /// JSON path, e.g. `ops[2].ops[0]`.
    pub path: String,
    /// The `"op"` tag.
    pub op: String,
    pub name: Option<String>,
    pub note: Option<String>,
    /// Short human summary, e.g. `alloc order 9 movable as thp`.
    pub summary: String,
}

/// One executed operation (a repeat body runs once per iteration; a workload once per step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpRecord {
    pub def: u32,
    /// Iteration indices of the enclosing repeats, outermost first.
    pub iteration: Vec<u32>,
    /// Events `[start, end)` of this op.
    pub start: u32,
    pub end: u32,
    /// Cost counters of this op alone.
    pub cost: Stats,
    /// Distinct pageblocks holding the pages this op obtained (alloc, vmalloc).
    pub pageblocks_touched: u32,
    /// What the op did, in words (failure, pfn obtained, refused ...).
    pub outcome: String,
    /// `nr_free[order]` after the op: enough for the free-pages and fragmentation-index charts
    /// over time (both indices depend only on these counts).
    pub nr_free_after: [u64; NR_PAGE_ORDERS],
}

/// A finished run: everything the CLI prints and the timeline steps through.
#[derive(Clone, Debug)]
pub struct Run {
    pub scenario: Scenario,
    /// State before the first op (after `init`).
    pub initial: Zone,
    pub log: EventLog,
    pub ops: Vec<OpRecord>,
    pub op_defs: Vec<OpDef>,
    pub owners: Vec<OwnerInfo>,
    pub final_zone: Zone,
    /// `(event index, state before that event)`, ascending; index 0 is `initial`.
    pub checkpoints: Vec<(u32, Zone)>,
    /// Named allocations still visible at the top level, with their state.
    pub names: Vec<(String, String)>,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Record the event trace (the CLI's `trace` format and the UI need it).
    pub record: bool,
    /// Memory the checkpoints may use, in bytes (0: no checkpoints but the initial state).
    pub checkpoint_budget: usize,
    /// Stop after this many executed ops (op records): the state a stepper shows after that
    /// many "operation forward" steps. `None`: run everything.
    pub max_ops: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            record: true,
            checkpoint_budget: 256 << 20,
            max_ops: None,
        }
    }
}

/// A named allocation at run time.
#[derive(Clone, Debug)]
enum Handle {
    Alloc {
        pfn: u32,
        order: u8,
        split: bool,
        owner: u32,
        cpu: usize,
    },
    Contig {
        pfn: u32,
        nr: u32,
        owner: u32,
    },
    Vmalloc {
        area: VmArea,
        owner: u32,
        freed: bool,
    },
    /// The allocation failed (`NULL`).
    Failed,
}

/// Bytes a zone clone costs (per-page arrays dominate: 16 bytes a page).
fn zone_bytes(z: &Zone) -> usize {
    z.pages() as usize * 16 + z.pageblock.len() + 4096
}

/// Zone parameters of a scenario after defaults (and the `/proc` import's size and pcp).
pub fn zone_params(s: &Scenario, pages: u64) -> ZoneParams {
    let mut p = ZoneParams::new(pages as u32);
    p.name = s.zone.name.clone();
    p.kernel = s.kernel;
    p.start_pfn = s.zone.start_pfn;
    p.cpus = s.zone.cpus;
    p.cma = s.zone.cma;
    p.rmqueue_mode_memory = s.zone.rmqueue_mode_memory;
    p.batch = s.zone.pcp.batch;
    p.high_min = s.zone.pcp.high_min;
    p.high_max = s.zone.pcp.high_max;
    p.min_free_kbytes = s.zone.min_free_kbytes;
    p
}

/// Builds the start state of a scenario (`init`), validating what depends on it.
pub fn init_engine(s: &Scenario) -> Result<Engine, ScenarioError> {
    match &s.init {
        Init::Boot => {
            let pages = s.zone.pages.unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
            crate::scenario::validate_with_zone_pages(s, pages)?;
            Ok(setup::boot_engine(&zone_params(s, pages)))
        }
        Init::Proc {
            pagetypeinfo,
            zoneinfo,
            zone,
        } => {
            let imp = crate::procfs::parse_import(
                pagetypeinfo,
                zoneinfo.as_deref(),
                zone,
                s.zone.cma,
                s.zone.pages,
            )?;
            crate::scenario::validate_with_zone_pages(s, imp.pages)?;
            let mut p = zone_params(s, imp.pages);
            // Precedence: zone.pcp > init.zoneinfo > computed.
            p.batch = p.batch.or(imp.batch);
            p.high_min = p.high_min.or(imp.high_min);
            p.high_max = p.high_max.or(imp.high_max);
            p.initial_high = imp.initial_high.clone();
            let mut e = Engine::new(setup::new_zone(&p));
            e.recording = false;
            crate::procfs::apply_import(&mut e, &imp)?;
            e.recording = true;
            e.zone.stats = Stats::default();
            Ok(e)
        }
        Init::Snapshot(snap) => {
            crate::snapshot::check_zone(snap, &s.zone)?;
            crate::scenario::validate_with_zone_pages(s, snap.pages)?;
            let mut p = zone_params(s, snap.pages);
            p.start_pfn = snap.start_pfn;
            p.name = snap.zone.clone();
            let mut e = Engine::new(setup::new_zone(&p));
            crate::snapshot::apply(&mut e, snap);
            Ok(e)
        }
    }
}

/// Parses, validates and runs a scenario.
pub fn run_text(text: &str, opts: &RunOptions) -> Result<Run, ScenarioError> {
    let s = crate::scenario::parse(text)?;
    run(&s, opts)
}

/// Runs a validated scenario: nothing runs unless `init` is usable.
pub fn run(s: &Scenario, opts: &RunOptions) -> Result<Run, ScenarioError> {
    let mut engine = init_engine(s)?;
    engine.recording = opts.record;
    let initial = engine.zone.clone();
    let mut r = Runner {
        s,
        engine,
        ops: Vec::new(),
        op_defs: Vec::new(),
        owners: Vec::new(),
        handles: Vec::new(),
        scopes: Scopes::new(),
        iteration: Vec::new(),
        checkpoints: vec![(0, initial.clone())],
        interval: 0,
        max_checkpoints: 0,
        last_checkpoint: 0,
        record: opts.record,
        max_ops: opts.max_ops.unwrap_or(usize::MAX),
    };
    r.max_checkpoints = (opts.checkpoint_budget / zone_bytes(&initial)).max(1);
    r.interval = 2048;
    r.define_ops(&s.ops, "ops");
    let mut next_def = 0u32;
    r.run_ops(&s.ops, &mut next_def);
    let names = r
        .scopes
        .visible()
        .into_iter()
        .map(|(n, &h)| (n.to_string(), r.describe(h)))
        .collect();
    let final_zone = r.engine.zone.clone();
    Ok(Run {
        scenario: s.clone(),
        initial,
        log: r.engine.log,
        ops: r.ops,
        op_defs: r.op_defs,
        owners: r.owners,
        final_zone,
        checkpoints: r.checkpoints,
        names,
    })
}

struct Runner<'a> {
    s: &'a Scenario,
    engine: Engine,
    ops: Vec<OpRecord>,
    op_defs: Vec<OpDef>,
    owners: Vec<OwnerInfo>,
    handles: Vec<Handle>,
    scopes: Scopes<usize>,
    iteration: Vec<u32>,
    checkpoints: Vec<(u32, Zone)>,
    interval: usize,
    max_checkpoints: usize,
    last_checkpoint: usize,
    record: bool,
    max_ops: usize,
}

fn mt_gfp(mt: MigrateType) -> u32 {
    match mt {
        MigrateType::Movable => GFP_HIGHUSER_MOVABLE,
        MigrateType::Reclaimable => GFP_KERNEL | __GFP_RECLAIMABLE,
        _ => GFP_KERNEL,
    }
}

/// The gfp of an `alloc` op (scenario-format.md, "request" table).
pub fn alloc_gfp(mt: MigrateType, highatomic: bool) -> u32 {
    if highatomic {
        GFP_ATOMIC
            | match mt {
                MigrateType::Movable => __GFP_MOVABLE,
                MigrateType::Reclaimable => __GFP_RECLAIMABLE,
                _ => 0,
            }
    } else {
        mt_gfp(mt)
    }
}

impl Runner<'_> {
    /// Flattens the op tree into `op_defs` (pre-order, the order `run_ops` walks it).
    fn define_ops(&mut self, ops: &[Op], path: &str) {
        for (i, op) in ops.iter().enumerate() {
            let p = format!("{path}[{i}]");
            self.op_defs.push(OpDef {
                path: p.clone(),
                op: op.op_name().to_string(),
                name: op.binding().map(|(n, _)| n.to_string()),
                note: op.note().map(str::to_string),
                summary: summarize(op),
            });
            if let Op::Repeat { ops, .. } = op {
                self.define_ops(ops, &format!("{p}.ops"));
            }
        }
    }

    fn new_owner(&mut self, def: u32, mt: MigrateType, seq: u32) -> u32 {
        self.owners.push(OwnerInfo { def, mt, seq });
        (self.owners.len() - 1) as u32
    }

    fn describe(&self, h: usize) -> String {
        match &self.handles[h] {
            Handle::Alloc {
                pfn, order, split, ..
            } => format!(
                "order-{order} block at pfn {:#x}{}",
                self.engine.zone.abs_pfn(*pfn),
                if *split { " (split)" } else { "" }
            ),
            Handle::Contig { pfn, nr, .. } => {
                format!("{nr} pages at pfn {:#x}", self.engine.zone.abs_pfn(*pfn))
            }
            Handle::Vmalloc { area, freed, .. } => format!(
                "vmalloc area of {} pages{}",
                area.pages.len(),
                if *freed { " (freed)" } else { "" }
            ),
            Handle::Failed => "failed allocation".into(),
        }
    }

    fn run_ops(&mut self, ops: &[Op], next_def: &mut u32) {
        for op in ops {
            if self.ops.len() >= self.max_ops {
                return;
            }
            let def = *next_def;
            *next_def += 1;
            match op {
                Op::Repeat {
                    times, ops: body, ..
                } => {
                    let body_start = *next_def;
                    let mut body_end = body_start;
                    for it in 0..*times {
                        if self.ops.len() >= self.max_ops {
                            break;
                        }
                        let mut d = body_start;
                        self.iteration.push(it as u32);
                        self.scopes.push();
                        self.run_ops(body, &mut d);
                        self.scopes.pop();
                        self.iteration.pop();
                        body_end = d;
                    }
                    if *times == 0 {
                        body_end = body_start + count_defs(body);
                    }
                    *next_def = body_end;
                }
                Op::Workload { .. } => self.run_workload(op, def),
                _ => self.run_leaf(op, def),
            }
        }
    }

    fn begin(&mut self, def: u32) -> (u32, Stats) {
        if let Some(n) = self.op_defs[def as usize].note.clone() {
            self.engine.message(Step::OpNote, MsgLevel::Note, n);
        }
        (self.engine.log.events.len() as u32, self.engine.zone.stats)
    }

    fn end(&mut self, def: u32, start: (u32, Stats), touched: u32, outcome: String) {
        let cost = stats_diff(&self.engine.zone.stats, &start.1);
        self.ops.push(OpRecord {
            def,
            iteration: self.iteration.clone(),
            start: start.0,
            end: self.engine.log.events.len() as u32,
            cost,
            pageblocks_touched: touched,
            outcome,
            nr_free_after: self.engine.zone.nr_free,
        });
        self.maybe_checkpoint();
    }

    /// Keeps a checkpoint every `interval` events; when over budget, drops every other one
    /// and doubles the interval (a rewind ring that thins out instead of forgetting the past).
    fn maybe_checkpoint(&mut self) {
        if !self.record {
            return;
        }
        let n = self.engine.log.events.len();
        if n - self.last_checkpoint < self.interval {
            return;
        }
        self.checkpoints.push((n as u32, self.engine.zone.clone()));
        self.last_checkpoint = n;
        if self.checkpoints.len() > self.max_checkpoints {
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.interval *= 2;
        }
    }

    fn warn(&mut self, text: String) -> String {
        self.engine
            .message(Step::OpWarning, MsgLevel::Warning, text.clone());
        text
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes.lookup(name).copied()
    }

    fn bind(&mut self, op: &Op, h: Handle) -> usize {
        self.handles.push(h);
        let idx = self.handles.len() - 1;
        if let Some((name, _)) = op.binding() {
            // Validation guarantees a name is bound once per scope.
            let _ = self.scopes.bind(name, idx);
        }
        idx
    }

    /// Pages `[pfn, pfn+n)` that `owner` still holds.
    fn held(&self, pfn: u32, n: u32, owner: u32) -> Vec<u32> {
        let z = &self.engine.zone;
        (pfn..pfn + n)
            .filter(|&p| {
                z.kind[p as usize] == PK_OTHER
                    && z.owner[p as usize] == owner
                    && z.refcount[p as usize] >= 1
            })
            .collect()
    }

    /// The part of a vmalloc area still held by `owner` (array order kept).
    fn held_area(&self, area: &VmArea, owner: u32) -> VmArea {
        let z = &self.engine.zone;
        let keep = |p: &u32| {
            z.kind[*p as usize] == PK_OTHER
                && z.owner[*p as usize] == owner
                && z.refcount[*p as usize] == 1
        };
        VmArea {
            pages: area.pages.iter().copied().filter(keep).collect(),
            array: area
                .array
                .as_ref()
                .map(|a| Box::new(self.held_area(a, owner))),
            attempts: Vec::new(),
        }
    }

    fn run_leaf(&mut self, op: &Op, def: u32) {
        let start = self.begin(def);
        let cpu = op.cpu() as usize;
        let mut touched = 0;
        let outcome = match op {
            Op::Alloc {
                order,
                mt,
                highatomic,
                ..
            } => {
                let owner = self.new_owner(def, *mt, 0);
                let gfp = alloc_gfp(*mt, *highatomic);
                let lru = *mt == MigrateType::Movable;
                match self.engine.alloc_pages(gfp, *order, cpu, owner, lru) {
                    Some(pfn) => {
                        self.bind(
                            op,
                            Handle::Alloc {
                                pfn,
                                order: *order,
                                split: false,
                                owner,
                                cpu,
                            },
                        );
                        touched = 1;
                        format!(
                            "order-{order} block at pfn {:#x}",
                            self.engine.zone.abs_pfn(pfn)
                        )
                    }
                    None => {
                        self.bind(op, Handle::Failed);
                        self.engine.message(
                            Step::OpFailure,
                            MsgLevel::Failure,
                            format!("alloc order {order} failed"),
                        );
                        "failed".into()
                    }
                }
            }
            Op::Split { ref_name, .. } => {
                match self.lookup(ref_name).map(|h| (h, self.handles[h].clone())) {
                    Some((
                        h,
                        Handle::Alloc {
                            pfn,
                            order,
                            split,
                            owner,
                            cpu: c,
                        },
                    )) => {
                        if self.held(pfn, 1, owner).is_empty() {
                            self.warn(format!("split {ref_name}: already freed, skipped"))
                        } else if split || order == 0 {
                            "nothing to split".into()
                        } else {
                            self.engine.split_page(pfn, order);
                            self.handles[h] = Handle::Alloc {
                                pfn,
                                order,
                                split: true,
                                owner,
                                cpu: c,
                            };
                            format!("{} order-0 pages", 1u32 << order)
                        }
                    }
                    _ => self.warn(format!("split {ref_name}: the allocation failed, skipped")),
                }
            }
            Op::Free { ref_name, page, .. } => self.op_free(ref_name, *page, cpu),
            Op::AllocContigRange { pfn, nr_pages, .. } => {
                let owner = self.new_owner(def, MigrateType::Movable, 0);
                let rel = (*pfn - self.engine.zone.cfg.start_pfn) as u32;
                let n = *nr_pages as u32;
                if self.engine.alloc_contig_range(rel, n, owner) {
                    self.bind(
                        op,
                        Handle::Contig {
                            pfn: rel,
                            nr: n,
                            owner,
                        },
                    );
                    touched = pageblocks_of(rel..rel + n);
                    format!("{n} pages at pfn {pfn:#x}")
                } else {
                    self.bind(op, Handle::Failed);
                    "failed: range in use".into()
                }
            }
            Op::FreeContigRange {
                ref_name,
                pfn,
                nr_pages,
                method,
                ..
            } => {
                let method = self.s.free_contig_range_method(*method);
                self.op_free_contig_range(ref_name.as_deref(), *pfn, *nr_pages, method, cpu)
            }
            Op::Vmalloc {
                pages, strategy, ..
            } => {
                let strategy = self.s.vmalloc_strategy(*strategy);
                let owner = self.new_owner(def, MigrateType::Unmovable, 0);
                let (area, ok) = self.engine.vmalloc(
                    u32::try_from(*pages).unwrap_or(u32::MAX),
                    strategy,
                    cpu,
                    owner,
                    VMALLOC_GFP,
                );
                let orders: Vec<String> = area
                    .attempts
                    .iter()
                    .filter(|a| a.0 > 0 || !a.1)
                    .map(|&(o, okk)| {
                        if okk {
                            o.to_string()
                        } else {
                            format!("{o}✗")
                        }
                    })
                    .collect();
                touched = pageblocks_of(area.all_pages().into_iter());
                if ok {
                    let out = format!(
                        "{} pages; large orders [{}], {} order-0",
                        area.pages.len(),
                        orders.join(", "),
                        area.attempts.iter().filter(|a| a.0 == 0 && a.1).count()
                    );
                    self.bind(
                        op,
                        Handle::Vmalloc {
                            area,
                            owner,
                            freed: false,
                        },
                    );
                    out
                } else {
                    let method = self.s.vfree_method(None);
                    let when = if self.s.kernel == Kernel::V6_18 {
                        "immediately"
                    } else {
                        "deferred"
                    };
                    self.engine.message(
                        Step::OpFailure,
                        MsgLevel::Failure,
                        format!(
                            "vmalloc of {pages} pages failed after {} pages; area freed ({when})",
                            area.pages.len()
                        ),
                    );
                    self.engine.vfree(&area, method, cpu);
                    self.bind(op, Handle::Failed);
                    "failed".into()
                }
            }
            Op::Vfree {
                ref_name, method, ..
            } => {
                let method = self.s.vfree_method(*method);
                match self.lookup(ref_name) {
                    Some(h) => match self.handles[h].clone() {
                        Handle::Vmalloc {
                            area,
                            owner,
                            freed: false,
                        } => {
                            // Pages a pfn-based free_contig_range already released are no
                            // longer the area's (the contract leaves this undefined): free only
                            // what the area still holds, never a page twice.
                            let held = self.held_area(&area, owner);
                            if held.pages.len()
                                + held.array.as_ref().map_or(0, |a| a.all_pages().len())
                                < area.all_pages().len()
                            {
                                self.warn(format!(
                                    "vfree {ref_name}: some pages were already freed by pfn; only the pages still held are freed"
                                ));
                            }
                            self.engine.vfree(&held, method, cpu);
                            self.handles[h] = Handle::Vmalloc {
                                area,
                                owner,
                                freed: true,
                            };
                            "freed".into()
                        }
                        Handle::Vmalloc { .. } => {
                            self.warn(format!("vfree {ref_name}: already freed, skipped"))
                        }
                        _ => self.warn(format!("vfree {ref_name}: the allocation failed, skipped")),
                    },
                    None => self.warn(format!("vfree {ref_name}: unknown name")),
                }
            }
            Op::Drain { cpu: target, .. } => {
                match target {
                    DrainTarget::Cpu(c) => self.engine.drain_pages_zone(*c as usize),
                    DrainTarget::All => {
                        for c in 0..self.engine.zone.pcp.len() {
                            if self.engine.zone.pcp[c].count != 0 {
                                self.engine.drain_pages_zone(c);
                            }
                        }
                    }
                }
                "drained".into()
            }
            Op::Repeat { .. } | Op::Workload { .. } => unreachable!("handled by run_ops"),
        };
        self.end(def, start, touched, outcome);
    }

    fn op_free(&mut self, name: &str, page: Option<u64>, cpu: usize) -> String {
        let Some(h) = self.lookup(name) else {
            return self.warn(format!("free {name}: unknown name"));
        };
        match self.handles[h].clone() {
            Handle::Failed => self.warn(format!("free {name}: the allocation failed, skipped")),
            Handle::Vmalloc { .. } => self.warn(format!("free {name}: use vfree for a vmalloc")),
            Handle::Alloc {
                pfn,
                order,
                split,
                owner,
                ..
            } => {
                let n = 1u32 << order;
                if let Some(i) = page {
                    if !split && order > 0 {
                        return self.warn(format!(
                            "free {name} page {i}: the order-{order} block is not split; refused"
                        ));
                    }
                    if i >= n as u64 {
                        return self.warn(format!(
                            "free {name} page {i}: beyond the {n}-page allocation; refused"
                        ));
                    }
                    let p = pfn + i as u32;
                    if self.held(p, 1, owner).is_empty() {
                        return self.warn(format!("free {name} page {i}: already freed; refused"));
                    }
                    self.engine.free_pages(p, 0, cpu);
                    return format!("page {i} freed");
                }
                if split {
                    let held = self.held(pfn, n, owner);
                    if held.is_empty() {
                        return self.warn(format!("free {name}: already freed, skipped"));
                    }
                    for &p in &held {
                        self.engine.free_pages(p, 0, cpu);
                    }
                    format!("{} pages freed one by one", held.len())
                } else {
                    if self.held(pfn, 1, owner).is_empty() {
                        return self.warn(format!("free {name}: already freed, skipped"));
                    }
                    self.engine.free_pages(pfn, order, cpu);
                    format!("order-{order} block freed")
                }
            }
            Handle::Contig { pfn, nr, owner } => {
                if let Some(i) = page {
                    if i >= nr as u64 {
                        return self.warn(format!(
                            "free {name} page {i}: beyond the {nr}-page range; refused"
                        ));
                    }
                    let p = pfn + i as u32;
                    if self.held(p, 1, owner).is_empty() {
                        return self.warn(format!("free {name} page {i}: already freed; refused"));
                    }
                    self.engine.free_pages(p, 0, cpu);
                    return format!("page {i} freed");
                }
                let held = self.held(pfn, nr, owner);
                if held.is_empty() {
                    return self.warn(format!("free {name}: already freed, skipped"));
                }
                for &p in &held {
                    self.engine.free_pages(p, 0, cpu);
                }
                format!("{} pages freed one by one", held.len())
            }
        }
    }

    fn op_free_contig_range(
        &mut self,
        name: Option<&str>,
        pfn: Option<u64>,
        nr: Option<u64>,
        method: FreeMethod,
        cpu: usize,
    ) -> String {
        let (start, n) = match name {
            Some(name) => match self.lookup(name).map(|h| self.handles[h].clone()) {
                Some(Handle::Alloc {
                    pfn,
                    order,
                    split,
                    owner,
                    ..
                }) => {
                    // A name counts as freed once all its pages are: skip, never free pages
                    // that have been handed to someone else since.
                    if self.held(pfn, 1 << order, owner).is_empty() {
                        return self
                            .warn(format!("free_contig_range {name}: already freed, skipped"));
                    }
                    if !split && order > 0 {
                        return self.warn(format!(
                            "free_contig_range {name}: order-{order} block is not split (tail pages have refcount 0); refused"
                        ));
                    }
                    (pfn, 1u32 << order)
                }
                Some(Handle::Contig { pfn, nr, owner }) => {
                    if self.held(pfn, nr, owner).is_empty() {
                        return self
                            .warn(format!("free_contig_range {name}: already freed, skipped"));
                    }
                    (pfn, nr)
                }
                Some(Handle::Failed) => {
                    return self.warn(format!(
                        "free_contig_range {name}: the allocation failed, skipped"
                    ))
                }
                _ => return self.warn(format!("free_contig_range {name}: not a page range")),
            },
            None => {
                let p = pfn.unwrap_or(0) - self.engine.zone.cfg.start_pfn;
                (p as u32, nr.unwrap_or(0) as u32)
            }
        };
        let z = &self.engine.zone;
        // The contract's refusal rule is the refcount: the head of an unsplit block has
        // refcount 1, so freeing it alone by pfn goes ahead (its tails stay allocated, as the
        // kernel's `__free_page` of such a head would leave them).
        if let Some(bad) = (start..start + n)
            .find(|&p| z.refcount[p as usize] != 1 || z.kind[p as usize] != PK_OTHER)
        {
            return self.warn(format!(
                "free_contig_range: page {:#x} does not have refcount 1 (freed, never allocated, or part of an unsplit block); refused, nothing freed",
                z.abs_pfn(bad)
            ));
        }
        match method {
            FreeMethod::PerPage => self.engine.free_contig_range_per_page(start, n, cpu),
            FreeMethod::Chunked => self.engine.free_contig_range_chunked(start, n, cpu),
        }
        format!(
            "{n} pages freed ({})",
            if method == FreeMethod::Chunked {
                "chunked"
            } else {
                "page by page"
            }
        )
    }

    /// `workload`: a seeded alloc/free mix (implementation-defined stream, stable per seed
    /// within a build). Each step is its own op record so the UI can step through it.
    fn run_workload(&mut self, op: &Op, def: u32) {
        let Op::Workload {
            seed,
            steps,
            order_weights,
            mt_weights,
            free_probability,
            ..
        } = op
        else {
            return;
        };
        let cpu = op.cpu() as usize;
        if let Some(n) = self.op_defs[def as usize].note.clone() {
            self.engine.message(Step::OpNote, MsgLevel::Note, n);
        }
        let mut rng = SplitMix64(*seed);
        let mut live: Vec<(u32, u8)> = Vec::new();
        let mts = [
            MigrateType::Unmovable,
            MigrateType::Movable,
            MigrateType::Reclaimable,
        ];
        let mw: Vec<f64> = mts.iter().map(|&m| mt_weights.get(m)).collect();
        for i in 0..*steps {
            if self.ops.len() >= self.max_ops {
                return;
            }
            let start = self.begin_quiet();
            let outcome;
            let mut touched = 0;
            if !live.is_empty() && rng.next_f64() < *free_probability {
                let k = (rng.next_u64() % live.len() as u64) as usize;
                let (pfn, order) = live.swap_remove(k);
                self.engine.free_pages(pfn, order, cpu);
                outcome = format!(
                    "step {}: free order-{order} at {:#x}",
                    i + 1,
                    self.engine.zone.abs_pfn(pfn)
                );
            } else {
                let order = pick(&mut rng, order_weights) as u8;
                let mt = mts[pick(&mut rng, &mw)];
                let owner = self.new_owner(def, mt, (i + 1) as u32);
                match self.engine.alloc_pages(
                    mt_gfp(mt),
                    order,
                    cpu,
                    owner,
                    mt == MigrateType::Movable,
                ) {
                    Some(p) => {
                        live.push((p, order));
                        touched = 1;
                        outcome = format!(
                            "step {}: alloc order-{order} {} at {:#x}",
                            i + 1,
                            mt.slug(),
                            self.engine.zone.abs_pfn(p)
                        );
                    }
                    None => {
                        outcome =
                            format!("step {}: alloc order-{order} {} failed", i + 1, mt.slug())
                    }
                }
            }
            self.end(def, start, touched, outcome);
        }
    }

    fn begin_quiet(&mut self) -> (u32, Stats) {
        (self.engine.log.events.len() as u32, self.engine.zone.stats)
    }
}

fn count_defs(ops: &[Op]) -> u32 {
    ops.iter()
        .map(|o| match o {
            Op::Repeat { ops, .. } => 1 + count_defs(ops),
            _ => 1,
        })
        .sum()
}

fn pageblocks_of(pages: impl Iterator<Item = u32>) -> u32 {
    let mut v: Vec<u32> = pages.map(|p| p >> PAGEBLOCK_ORDER).collect();
    v.sort_unstable();
    v.dedup();
    v.len() as u32
}

fn pick(rng: &mut SplitMix64, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = rng.next_f64() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// `splitmix64`: a small deterministic PRNG (no dependency, identical on every target).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `a - b`, field by field.
pub fn stats_diff(a: &Stats, b: &Stats) -> Stats {
    Stats {
        zone_lock: a.zone_lock - b.zone_lock,
        pcp_lock: a.pcp_lock - b.pcp_lock,
        freelist_ops: a.freelist_ops - b.freelist_ops,
        pcp_ops: a.pcp_ops - b.pcp_ops,
        pages_prepared: a.pages_prepared - b.pages_prepared,
        fallback_probes: a.fallback_probes - b.fallback_probes,
        pageblocks_claimed: a.pageblocks_claimed - b.pageblocks_claimed,
        claims_refused: a.claims_refused - b.claims_refused,
        pages_stolen: a.pages_stolen - b.pages_stolen,
        merges: a.merges - b.merges,
        splits: a.splits - b.splits,
        pcp_refills: a.pcp_refills - b.pcp_refills,
        pcp_drains: a.pcp_drains - b.pcp_drains,
        watermark_checks: a.watermark_checks - b.watermark_checks,
        watermark_failures: a.watermark_failures - b.watermark_failures,
    }
}

/// A one-line summary of an op as written.
pub fn summarize(op: &Op) -> String {
    let name = |n: &Option<String>| n.as_ref().map(|n| format!(" as {n}")).unwrap_or_default();
    match op {
        Op::Alloc {
            order,
            mt,
            highatomic,
            as_name,
            ..
        } => format!(
            "alloc order {order} {}{}{}",
            mt.slug(),
            if *highatomic { " (GFP_ATOMIC)" } else { "" },
            name(as_name)
        ),
        Op::Free { ref_name, page, .. } => match page {
            Some(p) => format!("free {ref_name} page {p}"),
            None => format!("free {ref_name}"),
        },
        Op::Split { ref_name, .. } => format!("split_page {ref_name}"),
        Op::AllocContigRange {
            pfn,
            nr_pages,
            as_name,
            ..
        } => {
            format!("alloc_contig_range {pfn:#x} +{nr_pages}{}", name(as_name))
        }
        Op::FreeContigRange {
            ref_name,
            pfn,
            nr_pages,
            method,
            frozen,
            ..
        } => {
            let what = match ref_name {
                Some(r) => r.clone(),
                None => format!("{:#x} +{}", pfn.unwrap_or(0), nr_pages.unwrap_or(0)),
            };
            let m = match method {
                Some(FreeMethod::PerPage) => " (per page)",
                Some(FreeMethod::Chunked) => " (chunked)",
                None => "",
            };
            format!(
                "{}free_contig_range {what}{m}",
                if *frozen { "__frozen " } else { "" }
            )
        }
        Op::Vmalloc {
            pages,
            strategy,
            as_name,
            ..
        } => format!(
            "vmalloc {} KB{}{}",
            pages * 4,
            match strategy {
                Some(VmallocStrategy::Bulk) => " (bulk)",
                Some(VmallocStrategy::LargeOrder) => " (large order)",
                None => "",
            },
            name(as_name)
        ),
        Op::Vfree { ref_name, .. } => format!("vfree {ref_name}"),
        Op::Drain { cpu, .. } => match cpu {
            DrainTarget::Cpu(c) => format!("drain cpu {c}"),
            DrainTarget::All => "drain all".into(),
        },
        Op::Repeat { times, .. } => format!("repeat ×{times}"),
        Op::Workload { steps, seed, .. } => format!("workload {steps} steps (seed {seed})"),
    }
}
