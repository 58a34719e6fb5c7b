//! Running a scenario: the [`Runner`] (the one way to run one: limits, progress, counters only),
//! the walk of its program with names bound to allocations, the [`Recorder`] that assembles
//! every [`Run`] (a replay's too), per-operation cost figures, and checkpoints for the timeline.
//! A run is the pipeline's last stage; the ops' own semantics are in `ops.rs`.

mod ops;

use crate::mm::gfp::*;
use crate::mm::Engine;
use crate::mm::EventLog;
use crate::mm::Step;
use crate::mm::Trace;
use crate::mm::VmArea;
use crate::mm::*;
use crate::run::limits::Limits;
pub use crate::run::outcome::Outcome;
use crate::run::setup::{self, Start};
use crate::scenario::{Op, OpDef, OpId, Program, Scenario, ScenarioError, ValidScenario, Visit};
use serde::{Deserialize, Serialize};

/// The state before event `at`, kept so that a timeline can jump there without replaying from
/// the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The events applied: the state is the one after events `[0, at)`.
    pub at: u32,
    /// The node.
    pub node: Node,
    /// The run's cost counters.
    pub stats: Stats,
}

/// Who holds a page: one record per allocation (owner ids index `Run::owners`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerInfo {
    /// Index into `Run::op_defs` of the op that allocated it (its [`OpId`]).
    pub def: OpId,
    /// Allocation migratetype as requested.
    pub mt: MigrateType,
    /// 1-based sequence within a workload op (0 otherwise).
    pub seq: u32,
}

/// One executed operation (a repeat body runs once per iteration; a workload once per step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpRecord {
    /// Index into [`Run::op_defs`] (the op's [`OpId`] in its program).
    pub def: OpId,
    /// Iteration indices of the enclosing repeats, outermost first.
    pub iteration: Vec<u32>,
    /// Events `[start, end)` of this op.
    pub start: u32,
    /// One past its last event.
    pub end: u32,
    /// Cost counters of this op alone.
    pub cost: Stats,
    /// Distinct pageblocks holding the pages this op obtained (alloc, vmalloc).
    pub pageblocks_touched: u32,
    /// What the op did (failure, pfn obtained, refused ...); `Display` prints it in words.
    pub outcome: Outcome,
    /// `nr_free[order]` after the op: enough for the free-pages and fragmentation-index charts
    /// over time (both indices depend only on these counts).
    pub nr_free_after: [u64; NR_PAGE_ORDERS],
    /// On a node of several zones, each zone's `nr_free` after the op, in pfn order (the app's
    /// charts follow the zone tab); empty on a node of one zone (`nr_free_after` is its).
    #[serde(default)]
    pub nr_free_after_zones: Vec<[u64; NR_PAGE_ORDERS]>,
    /// Pages handled per zone / pcp lock hold during this op ([`crate::mm::locks`]).
    #[serde(default)]
    pub lock_holds: crate::mm::LockHolds,
}

/// A finished run: everything the CLI prints and the timeline steps through.
#[derive(Clone, Debug)]
pub struct Run {
    /// The scenario run, validated (its [`ValidScenario::program`] numbers the ops as
    /// `op_defs` does; a replay's has no ops).
    pub scenario: ValidScenario,
    /// State before the first op (after `init`); the cost counters start at zero there.
    pub initial: Node,
    /// The recorded events.
    pub log: EventLog,
    /// One record per executed op (thinned in a counters-only run).
    pub ops: Vec<OpRecord>,
    /// The ops as written, one per op of the document (its program's [`Program::defs`]; a
    /// replay's: one per traced event type).
    pub op_defs: Vec<OpDef>,
    /// Who holds pages, by owner id.
    pub owners: Vec<OwnerInfo>,
    /// The node after the last op.
    pub final_node: Node,
    /// The run's cost counters after the last op.
    pub stats: Stats,
    /// The state before some events, ascending; the first is `initial`, at event 0.
    pub checkpoints: Vec<Checkpoint>,
    /// Named allocations still visible at the top level, with their state.
    pub names: Vec<(String, String)>,
    /// Pages handled per zone / pcp lock hold over all the ops ([`crate::mm::locks`]).
    pub lock_holds: crate::mm::LockHolds,
    /// Op records a counters-only run did not keep ([`Runner::counters_only`] keeps the first
    /// and the last [`COUNTERS_ONLY_KEPT_OPS`]); 0 for every other run. The executed ops are
    /// `ops.len() + ops_omitted`.
    pub ops_omitted: u64,
    /// The `compact_zone`s of the log, indexed on first use ([`Run::compactions`]).
    pub(crate) compactions: std::sync::OnceLock<Vec<CompactionSpan>>,
}

/// One `compact_zone` of a run's log: the events of its `mm_compaction_begin` and
/// `mm_compaction_end` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionSpan {
    /// The event of the `mm_compaction_begin`.
    pub begin: u32,
    /// The event of the `mm_compaction_end`; `None` if the log stops inside the compaction.
    pub end: Option<u32>,
}

impl Run {
    /// The `compact_zone`s of the log in order, found by one walk of the events the first time
    /// they are asked for (the map asks on every render).
    pub fn compactions(&self) -> &[CompactionSpan] {
        self.compactions.get_or_init(|| {
            let mut spans: Vec<CompactionSpan> = Vec::new();
            for (i, e) in self.log.events.iter().enumerate() {
                match e.kind() {
                    EventKind::Annotation(Annotation::Trace(Tracepoint::MmCompactionBegin {
                        ..
                    })) => spans.push(CompactionSpan {
                        begin: i as u32,
                        end: None,
                    }),
                    EventKind::Annotation(Annotation::Trace(Tracepoint::MmCompactionEnd {
                        ..
                    })) => {
                        if let Some(s) = spans.last_mut().filter(|s| s.end.is_none()) {
                            s.end = Some(i as u32);
                        }
                    }
                    _ => {}
                }
            }
            spans
        })
    }

    /// The migratetype an owner allocated with: a run's allocation, or a filler owner of the
    /// `/proc` import (its pageblock's type); `None` for `NO_OWNER` and a pcp head's CPU.
    pub fn owner_mt(&self, owner: u32) -> Option<MigrateType> {
        self.owners
            .get(owner as usize)
            .map(|i| i.mt)
            .or_else(|| crate::mm::filler_owner_mt(owner))
    }

    /// Words for an owner id: the allocating op's summary (which names its `as`) and sequence number, or
    /// what a `/proc` import filler stands for.
    pub fn owner_label(&self, owner: u32) -> String {
        if let Some(mt) = crate::mm::filler_owner_mt(owner) {
            return format!(
                "imported from /proc ({} pageblock filler)",
                mt.kernel_name()
            );
        }
        match self.owners.get(owner as usize) {
            Some(o) => {
                let def = &self.op_defs[o.def as usize];
                let mut s = def.summary.clone();
                if o.seq > 0 {
                    s.push_str(&format!(" #{}", o.seq));
                }
                s
            }
            None => format!("owner {owner}"),
        }
    }

    /// The memory the run holds, in bytes, from the capacities of its vectors (what is
    /// allocated, not only what is used): the event trace and its messages, the op records,
    /// op definitions and owners, the checkpoints and the initial and final nodes. The
    /// scenario text and the `names` summary are left out (small, fixed by the document).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let events = self.log.events.heap_bytes();
        let messages = self.log.messages.capacity() * size_of::<String>()
            + self
                .log
                .messages
                .iter()
                .map(String::capacity)
                .sum::<usize>();
        let ops = self.ops.capacity() * size_of::<OpRecord>()
            + self
                .ops
                .iter()
                .map(|o| {
                    o.iteration.capacity() * 4
                        + o.nr_free_after_zones.capacity() * 8 * crate::mm::NR_PAGE_ORDERS
                        + outcome_heap(&o.outcome)
                })
                .sum::<usize>();
        let defs = self.op_defs.capacity() * size_of::<OpDef>()
            + self
                .op_defs
                .iter()
                .map(|d| {
                    d.path.capacity()
                        + d.op.capacity()
                        + d.summary.capacity()
                        + d.name.as_ref().map_or(0, String::capacity)
                        + d.note.as_ref().map_or(0, String::capacity)
                })
                .sum::<usize>();
        let owners = self.owners.capacity() * size_of::<OwnerInfo>();
        let node = size_of::<Node>();
        let checkpoints = self.checkpoints.capacity() * size_of::<Checkpoint>()
            + self
                .checkpoints
                .iter()
                .map(|c| c.node.heap_bytes())
                .sum::<usize>();
        let zones = 2 * node + self.initial.heap_bytes() + self.final_node.heap_bytes();
        events + messages + ops + defs + owners + checkpoints + zones
    }

    /// Bytes of the event trace alone (events and messages), the part
    /// [`Limits::max_events`](crate::run::limits::Limits::max_events) bounds.
    pub fn trace_bytes(&self) -> usize {
        self.log.events.heap_bytes()
            + self.log.messages.capacity() * std::mem::size_of::<String>()
            + self
                .log
                .messages
                .iter()
                .map(String::capacity)
                .sum::<usize>()
    }
}

fn outcome_heap(o: &Outcome) -> usize {
    match o {
        Outcome::Vmalloc { large, .. } => large.capacity() * 2,
        Outcome::Skipped(t) => t.capacity(),
        _ => 0,
    }
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
        pfn: ZonePfn,
        order: u8,
        split: bool,
        owner: u32,
        cpu: usize,
    },
    Contig {
        pfn: ZonePfn,
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

/// Bytes a node clone costs (per-page arrays dominate: 16 bytes a page), every zone's.
fn node_bytes(node: &Node) -> usize {
    node.zones()
        .iter()
        .map(|z| z.pages() as usize * 16 + z.pageblock.len() + 4096)
        .sum()
}

/// The timeline's rewind ring, filled while a run (or a trace replay) records: a node copy
/// every `interval` events; over the memory budget it drops every other one and doubles the
/// interval, so it thins out instead of forgetting the past (the timeline replays forwards
/// from the nearest copy, never from the start).
pub(crate) struct Checkpoints {
    list: Vec<Checkpoint>,
    interval: usize,
    max: usize,
    last: usize,
}

impl Checkpoints {
    /// The ring with `initial` (and the counters `stats`) at event 0, sized for `budget` bytes.
    ///
    /// The first interval grows with the zone being worked on: a copy costs one clone of every
    /// page's state, so
    /// one every `pages / 16` events adds at most 16 page copies per event, where a fixed 2048
    /// made a 1 GiB zone (262,144 pages) copy 128 pages per event — three quarters of the
    /// default scenario's run time, before the app's first paint. A jump then replays at most
    /// `pages / 16` events from its checkpoint (16,384 at 1 GiB: about a millisecond).
    pub(crate) fn new(initial: &Node, stats: &Stats, budget: usize) -> Checkpoints {
        Checkpoints {
            list: vec![Checkpoint {
                at: 0,
                node: initial.clone(),
                stats: *stats,
            }],
            interval: (initial.active().pages() as usize / 16).max(2048),
            max: (budget / node_bytes(initial)).max(1),
            last: 0,
        }
    }

    /// Keeps `node` and `stats` as the state before event `n` if `interval` events have passed.
    pub(crate) fn maybe_take(&mut self, n: usize, node: &Node, stats: &Stats) {
        if n - self.last < self.interval {
            return;
        }
        if self.max <= 1 {
            // A copy over the budget (a 64 GiB node against the default 256 MiB): the ring
            // keeps the initial state only, so taking and thinning a copy would change nothing
            // but cost a clone of the whole node.
            return;
        }
        self.list.push(Checkpoint {
            at: n as u32,
            node: node.clone(),
            stats: *stats,
        });
        self.last = n;
        if self.list.len() > self.max {
            let mut i = 0;
            self.list.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.interval *= 2;
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Checkpoint> {
        self.list
    }
}

/// What a run records as it goes, and the one place a [`Run`] is assembled: the runner's and a
/// trace replay's. The op records (the first and last [`COUNTERS_ONLY_KEPT_OPS`] only, when
/// thinned), who holds pages ([`OwnerInfo`], by owner id), the checkpoints (node copies with
/// the counters); the events are the engine's log, handed over at [`Recorder::finish`].
pub(crate) struct Recorder {
    initial: Node,
    op_defs: Vec<OpDef>,
    ops: Vec<OpRecord>,
    thin: Option<Thinned>,
    /// Who holds pages, by owner id.
    pub(crate) owners: Vec<OwnerInfo>,
    checkpoints: Checkpoints,
}

/// The op records of a counters-only run: the first `keep`, then a ring of the last `keep`.
struct Thinned {
    keep: usize,
    tail: std::collections::VecDeque<OpRecord>,
    omitted: u64,
}

impl Recorder {
    /// A recorder of a run from `initial` (with the counters `stats` there) whose ops are
    /// `op_defs`, keeping checkpoints within `checkpoint_budget` bytes.
    pub(crate) fn new(
        initial: Node,
        stats: &Stats,
        op_defs: Vec<OpDef>,
        checkpoint_budget: usize,
    ) -> Recorder {
        Recorder {
            checkpoints: Checkpoints::new(&initial, stats, checkpoint_budget),
            initial,
            op_defs,
            ops: Vec::new(),
            thin: None,
            owners: Vec::new(),
        }
    }

    /// Keeps only the first and the last `keep` op records (the others are counted).
    pub(crate) fn thinned(mut self, keep: usize) -> Recorder {
        self.thin = Some(Thinned {
            keep,
            tail: std::collections::VecDeque::with_capacity(keep),
            omitted: 0,
        });
        self
    }

    /// The ops as written.
    pub(crate) fn op_defs(&self) -> &[OpDef] {
        &self.op_defs
    }

    /// A new owner: an allocation by op `def` (`seq`: its step in a workload, else 0).
    pub(crate) fn owner(&mut self, def: OpId, mt: MigrateType, seq: u32) -> u32 {
        self.owners.push(OwnerInfo { def, mt, seq });
        (self.owners.len() - 1) as u32
    }

    /// An executed op's record.
    pub(crate) fn record(&mut self, rec: OpRecord) {
        match &mut self.thin {
            Some(t) if self.ops.len() >= t.keep => {
                if t.tail.len() == t.keep {
                    t.tail.pop_front();
                    t.omitted += 1;
                }
                t.tail.push_back(rec);
            }
            _ => self.ops.push(rec),
        }
    }

    /// Keeps `node` and the counters `stats` as the state before event `events` if the
    /// interval has passed.
    pub(crate) fn checkpoint(&mut self, events: usize, node: &Node, stats: &Stats) {
        self.checkpoints.maybe_take(events, node, stats);
    }

    /// The run: `scenario`, the events (`log`), the node and the counters after them, the
    /// names still bound and the lock holds, with what was recorded.
    pub(crate) fn finish(
        self,
        scenario: ValidScenario,
        log: EventLog,
        final_node: Node,
        stats: Stats,
        names: Vec<(String, String)>,
        lock_holds: crate::mm::LockHolds,
    ) -> Run {
        let mut ops = self.ops;
        let mut ops_omitted = 0;
        if let Some(t) = self.thin {
            ops.extend(t.tail);
            ops_omitted = t.omitted;
        }
        Run {
            scenario,
            initial: self.initial,
            log,
            ops,
            op_defs: self.op_defs,
            owners: self.owners,
            final_node,
            stats,
            checkpoints: self.checkpoints.into_vec(),
            names,
            lock_holds,
            ops_omitted,
            compactions: std::sync::OnceLock::new(),
        }
    }
}

/// The checkpoints, the final node and the counters of a recorded run, rebuilt from its start
/// state, events and op records exactly as a [`Runner`] took them (after an op, once `interval`
/// events have passed, thinned over `budget`). For a run computed elsewhere: the app's run
/// worker sends the events and records, not the node copies (megabytes each), and the page
/// replays them once.
pub fn rebuild_checkpoints(
    initial: &Node,
    events: &Trace,
    ops: &[OpRecord],
    budget: usize,
) -> Rebuilt {
    let mut r = CheckpointRebuild::new(initial, budget);
    r.step(events, ops, usize::MAX);
    r.finish(events)
}

/// [`rebuild_checkpoints`] a few ops at a time, so that a page can rebuild a long run between
/// frames: [`CheckpointRebuild::step`] until it returns true, then
/// [`CheckpointRebuild::finish`]. The same events, ops and budget give the same checkpoints.
pub struct CheckpointRebuild {
    ring: Checkpoints,
    node: Node,
    stats: Stats,
    /// Events applied so far.
    applied: usize,
    /// Op records done so far.
    ops_done: usize,
}

impl CheckpointRebuild {
    /// A rebuild from `initial` (counters at zero, as every run starts), keeping checkpoints
    /// within `budget` bytes.
    pub fn new(initial: &Node, budget: usize) -> CheckpointRebuild {
        CheckpointRebuild {
            ring: Checkpoints::new(initial, &Stats::default(), budget),
            node: initial.clone(),
            stats: Stats::default(),
            applied: 0,
            ops_done: 0,
        }
    }

    /// Applies the events of up to `max_ops` more ops, taking checkpoints after them as the
    /// run did; true when every op is done.
    pub fn step(&mut self, events: &Trace, ops: &[OpRecord], max_ops: usize) -> bool {
        let last = ops.len().min(self.ops_done.saturating_add(max_ops));
        for op in &ops[self.ops_done..last] {
            let end = (op.end as usize).min(events.len());
            for ev in events.range(self.applied.min(end)..end) {
                self.node.apply(ev);
                self.stats.apply(ev);
            }
            self.applied = self.applied.max(end);
            self.ring.maybe_take(self.applied, &self.node, &self.stats);
        }
        self.ops_done = last;
        last == ops.len()
    }

    /// Op records done so far.
    pub fn ops_done(&self) -> usize {
        self.ops_done
    }

    /// The checkpoints, the final node and the counters (the events after the last op applied
    /// too).
    pub fn finish(mut self, events: &Trace) -> Rebuilt {
        self.apply_rest(events);
        Rebuilt {
            checkpoints: self.ring.into_vec(),
            final_node: self.node,
            stats: self.stats,
        }
    }

    fn apply_rest(&mut self, events: &Trace) {
        for ev in events.range(self.applied.min(events.len())..events.len()) {
            self.node.apply(ev);
            self.stats.apply(ev);
        }
    }

    /// The recorded run of `scenario` computed elsewhere, once [`CheckpointRebuild::step`]
    /// has returned true: its start node, events, op records (every one kept), owners and
    /// names, with the checkpoints, final node and counters rebuilt here; assembled by the
    /// [`Recorder`] as a run made here is.
    pub fn into_run(
        mut self,
        scenario: ValidScenario,
        initial: Node,
        log: EventLog,
        ops: Vec<OpRecord>,
        owners: Vec<OwnerInfo>,
        names: Vec<(String, String)>,
    ) -> Run {
        self.apply_rest(&log.events);
        // Every op kept: the run's lock holds are the sum of its ops'.
        let lock_holds = ops.iter().map(|o| o.lock_holds).sum();
        let rec = Recorder {
            initial,
            op_defs: scenario.program().defs().to_vec(),
            ops,
            thin: None,
            owners,
            checkpoints: self.ring,
        };
        rec.finish(scenario, log, self.node, self.stats, names, lock_holds)
    }
}

/// What [`rebuild_checkpoints`] and [`CheckpointRebuild::finish`] give: the [`Run`] fields that
/// replaying the events rebuilds.
#[derive(Clone, Debug)]
pub struct Rebuilt {
    /// [`Run::checkpoints`].
    pub checkpoints: Vec<Checkpoint>,
    /// [`Run::final_node`].
    pub final_node: Node,
    /// [`Run::stats`].
    pub stats: Stats,
}

/// Op records a counters-only run keeps at each end: enough for `--format summary`, which
/// prints every op of a run of at most 60 and the first and last 20 of a longer one.
pub const COUNTERS_ONLY_KEPT_OPS: usize = 30;

/// The progress callback is called after every this many executed ops.
pub const PROGRESS_EVERY: u64 = 1024;

/// The progress callback of [`Runner::progress`]: `(ops done, ops in the whole run)`;
/// `ControlFlow::Break` cancels the run.
pub type Progress<'p> = &'p mut dyn FnMut(u64, u64) -> std::ops::ControlFlow<()>;

/// The one way to run a scenario: a validated scenario (or its start state) and how to run it,
/// then [`Runner::run`].
///
/// ```
/// # use buddyscope::{parse_valid, Limits, run::Runner};
/// let s = parse_valid(r#"{"version": 1, "ops": [{"op": "alloc", "order": 3}]}"#).unwrap();
/// let run = Runner::new(s).limits(Limits::recorded()).run().unwrap();
/// assert_eq!(run.ops.len(), 1);
/// ```
///
/// Without [`Runner::limits`] nothing bounds the run; with them, the scenario's cost
/// ([`crate::run::estimate`]) is checked first (nothing runs over them) and a recording run
/// stops with an error once its trace passes `max_events`. [`Runner::progress`] is called
/// every [`PROGRESS_EVERY`] ops and cancels the run with an error
/// ([`crate::run::is_cancelled`]) when it returns `Break`.
pub struct Runner<'p> {
    start: Start,
    opts: RunOptions,
    limits: Option<Limits>,
    progress: Option<Progress<'p>>,
    counters_only: bool,
}

impl Runner<'static> {
    /// A run of `scenario` from the start state its `init` builds ([`setup::build`]), with
    /// [`RunOptions::default`].
    pub fn new(scenario: ValidScenario) -> Runner<'static> {
        Runner::from_start(setup::build(scenario))
    }

    /// A run from a start state already built.
    pub fn from_start(start: Start) -> Runner<'static> {
        Runner {
            start,
            opts: RunOptions::default(),
            limits: None,
            progress: None,
            counters_only: false,
        }
    }
}

impl<'p> Runner<'p> {
    /// Records or not, the checkpoints' budget, where to stop.
    pub fn options(mut self, opts: &RunOptions) -> Self {
        self.opts = opts.clone();
        self
    }

    /// The limits the run is held to.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// Calls `progress(done, total)` every [`PROGRESS_EVERY`] ops (`total`: the ops of the
    /// whole run, or the options' `max_ops` if fewer); `Break` cancels the run.
    pub fn progress<'q>(self, progress: Progress<'q>) -> Runner<'q> {
        Runner {
            start: self.start,
            opts: self.opts,
            limits: self.limits,
            progress: Some(progress),
            counters_only: self.counters_only,
        }
    }

    /// A counters-only run (`buddyscope run --no-trace`, the app's "counters only"): no event
    /// trace and no checkpoints, and only the first and last [`COUNTERS_ONLY_KEPT_OPS`] op
    /// records (the others are counted in [`Run::ops_omitted`]), so memory does not grow with
    /// the run. The end state, the totals and `--format summary` are those of a recorded run.
    /// The options' `record` and `checkpoint_budget` are ignored.
    pub fn counters_only(mut self) -> Self {
        self.counters_only = true;
        self
    }

    /// Runs the ops on the start state.
    pub fn run(self) -> Result<Run, ScenarioError> {
        let Runner {
            start,
            mut opts,
            limits,
            progress,
            counters_only,
        } = self;
        if let Some(limits) = &limits {
            crate::run::limits::check_limits(
                &crate::run::limits::estimate(&start.scenario),
                limits,
            )?;
        }
        if counters_only {
            opts.record = false;
            opts.checkpoint_budget = 0;
        }
        let bound = (limits.is_some() || progress.is_some()).then(|| Bound {
            max_events: limits.map(|l| l.max_events),
            total: u64::try_from(start.scenario.program().executed_ops())
                .unwrap_or(u64::MAX)
                .min(opts.max_ops.map_or(u64::MAX, |m| m as u64)),
            progress,
        });
        execute(
            start,
            &opts,
            bound,
            counters_only.then_some(COUNTERS_ONLY_KEPT_OPS),
        )
    }
}

/// The event cap and the progress callback of a bounded run.
struct Bound<'p> {
    /// The event cap of a recording run ([`Limits::max_events`]).
    max_events: Option<u64>,
    /// The ops of the whole run, for the progress callback.
    total: u64,
    progress: Option<Progress<'p>>,
}

fn execute(
    start: Start,
    opts: &RunOptions,
    bound: Option<Bound<'_>>,
    thin: Option<usize>,
) -> Result<Run, ScenarioError> {
    let Start {
        scenario,
        mut engine,
    } = start;
    let s: &Scenario = &scenario;
    let program = scenario.program();
    engine.recording = opts.record;
    // Holds of boot and init are not the scenario's.
    engine.reset_holds();
    debug_assert_eq!(
        *engine.stats(),
        Stats::default(),
        "setup resets the counters"
    );
    let mut rec = Recorder::new(
        engine.node().clone(),
        engine.stats(),
        program.defs().to_vec(),
        opts.checkpoint_budget,
    );
    if let Some(keep) = thin {
        rec = rec.thinned(keep);
    }
    let mut r = Exec {
        s,
        program,
        engine,
        rec,
        handles: Vec::new(),
        handle_zones: Vec::new(),
        named: vec![None; program.len()],
        def: 0,
        iteration: Vec::new(),
        record: opts.record,
        max_ops: opts.max_ops.unwrap_or(usize::MAX),
        ops_done: 0,
        bound,
        stop: None,
        extra_refs: std::collections::BTreeMap::new(),
        moved: Default::default(),
        origin: Default::default(),
        cma: s
            .node_zones()
            .iter()
            .find_map(|z| z.cma_pageblocks)
            .map(|a| crate::mm::CmaArea::new(a.start_pfn, a.nr_pages)),
    };
    r.run_program();
    if let Some(e) = r.stop.take() {
        return Err(e);
    }
    // The names still bound at the end: the top level's (every repeat's scope has ended).
    let mut names: Vec<(String, String)> = (0..program.len() as OpId)
        .filter(|&id| program.depth(id) == 0)
        .filter_map(|id| {
            let name = program.defs()[id as usize].name.as_ref()?;
            let h = r.named[id as usize]?;
            Some((name.clone(), r.describe(h)))
        })
        .collect();
    names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let Exec { engine, rec, .. } = r;
    let lock_holds = engine.run_holds();
    let stats = *engine.stats();
    Ok(rec.finish(scenario, engine.log, engine.node, stats, names, lock_holds))
}

/// A run in progress: the engine, the recorder, and the allocations the ops' names hold.
struct Exec<'a, 'p> {
    s: &'a Scenario,
    program: &'a Program,
    engine: Engine,
    rec: Recorder,
    handles: Vec<Handle>,
    /// The node index of the zone each handle's pages are in (`page_zone`), by handle.
    handle_zones: Vec<u8>,
    /// By op: the handle of the allocation its last run in the current scope bound to its
    /// name (`as`); a `ref` reads the one of the op its program binds it to.
    named: Vec<Option<usize>>,
    /// The op being run.
    def: OpId,
    iteration: Vec<u32>,
    record: bool,
    max_ops: usize,
    /// Executed ops so far (op records made, kept or not).
    ops_done: usize,
    bound: Option<Bound<'p>>,
    /// Why a bounded run stopped early (cancelled, event cap).
    stop: Option<ScenarioError>,
    /// References `get_page` ops took and `put_page` ops have not dropped yet, per page: what
    /// a `put_page` may drop (never the owner's own reference). Keyed by absolute pfn (a node
    /// of several zones).
    extra_refs: std::collections::BTreeMap<Pfn, u32>,
    /// Pages `alloc_contig_range` migrated: `(owner, pfn it was allocated at)` → `(zone, pfn)`
    /// now, so a later `free`/`split` of the allocation acts on the page where it lives now
    /// (on a node of several zones, maybe in another zone: its allocation's zone is the
    /// handle's, `handle_zones`).
    moved: std::collections::HashMap<(u32, ZonePfn), (u8, ZonePfn)>,
    /// The reverse of `moved`: `(owner, zone now, pfn now)` → `(zone, pfn)` it was allocated
    /// at.
    origin: std::collections::HashMap<(u32, u8, ZonePfn), (u8, ZonePfn)>,
    /// The CMA area `cma_alloc` and `cma_release` work on (`zone.cma_pageblocks`).
    cma: Option<crate::mm::CmaArea>,
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

impl Exec<'_, '_> {
    fn new_owner(&mut self, def: OpId, mt: MigrateType, seq: u32) -> u32 {
        self.rec.owner(def, mt, seq)
    }

    fn describe(&self, h: usize) -> String {
        let zone = self.engine.node().zone(self.handle_zones[h] as usize);
        match &self.handles[h] {
            Handle::Alloc {
                pfn,
                order,
                split,
                owner,
                ..
            } => {
                let (z, p) = self.page(self.handle_zones[h] as usize, *owner, *pfn);
                format!(
                    "order-{order} block at pfn {:#x}{}",
                    self.engine.node().zone(z).abs_pfn(p),
                    if *split { " (split)" } else { "" }
                )
            }
            Handle::Contig { pfn, nr, .. } => {
                format!("{nr} pages at pfn {:#x}", zone.abs_pfn(*pfn))
            }
            Handle::Vmalloc { area, freed, .. } => format!(
                "vmalloc area of {} pages{}",
                area.pages.len(),
                if *freed { " (freed)" } else { "" }
            ),
            Handle::Failed => "failed allocation".into(),
        }
    }

    /// The program in run order: a `repeat`'s body once per iteration, each iteration a new
    /// scope (the names its ops bound are forgotten when the next begins), until the run ends
    /// or stops at `max_ops`.
    fn run_program(&mut self) {
        let program = self.program;
        for visit in program.run_order() {
            if self.ops_done >= self.max_ops {
                return;
            }
            match visit {
                Visit::Op(def, op) => {
                    self.def = def;
                    match op {
                        Op::Repeat { .. } => {}
                        Op::Workload { .. } => self.run_workload(op, def),
                        _ => self.run_leaf(op, def),
                    }
                }
                Visit::Enter { repeat, iteration } => {
                    self.iteration.push(iteration as u32);
                    let body = program.body(repeat);
                    self.named[body.start as usize..body.end as usize].fill(None);
                }
                Visit::Leave { .. } => {
                    self.iteration.pop();
                }
            }
        }
    }

    fn begin(&mut self, def: OpId) -> (u32, Stats) {
        if let Some(n) = self.rec.op_defs()[def as usize].note.clone() {
            self.engine.message(Step::OpNote, MsgLevel::Note, n);
        }
        // Holds between ops are the run's, not this op's.
        self.engine.take_op_holds();
        (self.engine.log.events.len() as u32, *self.engine.stats())
    }

    fn end(&mut self, def: OpId, start: (u32, Stats), touched: u32, outcome: Outcome) {
        // A node of several zones: every op ends back in the home zone, so the state between
        // ops does not depend on where the last op worked.
        let home = self.engine.node().home_index();
        self.engine.select_zone(Step::OpNote, home);
        let cost = self.engine.stats().diff(&start.1);
        let rec = OpRecord {
            def,
            iteration: self.iteration.clone(),
            start: start.0,
            end: self.engine.log.events.len() as u32,
            cost,
            pageblocks_touched: touched,
            outcome,
            nr_free_after: self.engine.zone().nr_free,
            nr_free_after_zones: if self.engine.node().several_zones() {
                self.engine
                    .node()
                    .zones()
                    .iter()
                    .map(|z| *z.nr_free())
                    .collect()
            } else {
                Vec::new()
            },
            lock_holds: self.engine.take_op_holds(),
        };
        self.rec.record(rec);
        self.ops_done += 1;
        self.maybe_checkpoint();
        if self.bound.is_some() {
            self.check_bound();
        }
    }

    /// The event cap of a recording run and the progress callback; stops the run (every op
    /// loop checks `max_ops`) with the reason in `stop`.
    fn check_bound(&mut self) {
        let Some(b) = &mut self.bound else { return };
        let done = self.ops_done as u64;
        let events = self.engine.log.events.len();
        match b.max_events {
            Some(cap) if self.record && events as u64 > cap => {
                self.stop = Some(crate::run::limits::event_cap_error(events, done, cap));
            }
            _ if done.is_multiple_of(PROGRESS_EVERY)
                && b.progress
                    .as_mut()
                    .is_some_and(|p| p(done, b.total).is_break()) =>
            {
                self.stop = Some(crate::run::limits::cancelled_error(done, b.total));
            }
            _ => {}
        }
        if self.stop.is_some() {
            self.max_ops = 0;
        }
    }

    fn maybe_checkpoint(&mut self) {
        if self.record {
            self.rec.checkpoint(
                self.engine.log.events.len(),
                &self.engine.node,
                &self.engine.stats,
            );
        }
    }

    fn warn(&mut self, text: String) -> Outcome {
        self.engine
            .message(Step::OpWarning, MsgLevel::Warning, text.clone());
        Outcome::Skipped(text)
    }

    /// The allocation the running op's `ref` names: the one its name's op bound last in a
    /// scope this op sees (validation resolved the name to that op).
    fn lookup(&self) -> Option<usize> {
        self.program
            .target(self.def)
            .and_then(|t| self.named[t as usize])
    }

    fn bind(&mut self, op: &Op, h: Handle) -> usize {
        self.handles.push(h);
        self.handle_zones
            .push(self.engine.node().active_index() as u8);
        let idx = self.handles.len() - 1;
        if op.binding().is_some() {
            self.named[self.def as usize] = Some(idx);
        }
        idx
    }

    /// `page_zone()` of a handle's pages: work in the zone that holds them.
    fn enter_zone_of(&mut self, h: usize) {
        let z = self.handle_zones[h] as usize;
        self.engine.select_zone(Step::PageZone, z);
    }

    /// Where page `p` of `owner`'s allocation (made in zone `hz` of the node) lives now, as
    /// `(zone, index in it)`: it moves when migrated, maybe to another zone.
    fn page(&self, hz: usize, owner: u32, p: ZonePfn) -> (usize, ZonePfn) {
        self.moved
            .get(&(owner, p))
            .map_or((hz, p), |&(z, q)| (z as usize, q))
    }

    /// [`Runner::page`] if the page there is still page `p` of the allocation: a page the
    /// owner freed may be where another of its pages migrated to since (then it is the other
    /// one's, and `None`).
    fn owned_page(&self, hz: usize, owner: u32, p: ZonePfn) -> Option<(usize, ZonePfn)> {
        let at = self.page(hz, owner, p);
        if self.origin.is_empty() {
            // Nothing migrated: every page is where it was allocated (the common, fast case).
            return Some(at);
        }
        let whose = self
            .origin
            .get(&(owner, at.0 as u8, at.1))
            .map_or((hz as u8, at.1), |&o| o);
        (whose == (hz as u8, p)).then_some(at)
    }

    /// [`Runner::page`], and work in the zone that holds the page now (`page_zone`).
    fn enter_page(&mut self, hz: usize, owner: u32, p: ZonePfn) -> ZonePfn {
        let (z, q) = self.page(hz, owner, p);
        self.engine.select_zone(Step::PageZone, z);
        q
    }

    /// `__free_pages(page, 0)` of each page, each in its own zone.
    fn free_each(&mut self, pages: &[(usize, ZonePfn)], cpu: usize) {
        for &(z, p) in pages {
            self.engine.select_zone(Step::PageZone, z);
            self.engine.free_pages(p, 0, cpu);
        }
    }

    /// Records a migration: every page of the block follows its owner.
    fn follow(&mut self, m: &crate::mm::Migration) {
        for i in 0..1u32 << m.order {
            let (from, to) = (m.from + i, m.to + i);
            // A page not moved before is where it was allocated, in the range's zone.
            let (hz, orig) = self
                .origin
                .remove(&(m.owner, m.from_zone, from))
                .unwrap_or((m.from_zone, from));
            if (hz, orig) == (m.to_zone, to) {
                self.moved.remove(&(m.owner, orig));
            } else {
                self.moved.insert((m.owner, orig), (m.to_zone, to));
                self.origin.insert((m.owner, m.to_zone, to), (hz, orig));
            }
        }
    }

    /// Pages of `[pfn, pfn+n)` (as allocated in zone `hz`; where they live now, as `(zone,
    /// index)`) that `owner` still holds.
    fn held(&self, hz: usize, pfn: ZonePfn, n: u32, owner: u32) -> Vec<(usize, ZonePfn)> {
        (pfn..pfn + n)
            .filter_map(|p| self.owned_page(hz, owner, p))
            .filter(|&(zi, p)| {
                let z = self.engine.node().zone(zi);
                z.mem_map[p as usize].kind == PageKind::Other
                    && z.mem_map[p as usize].owner == owner
                    && z.mem_map[p as usize].refcount >= 1
            })
            .collect()
    }

    /// The part of a vmalloc area still held by `owner` (array order kept).
    fn held_area(&self, area: &VmArea, owner: u32) -> VmArea {
        let node = self.engine.node();
        let keep = |i: usize| {
            // Each page in its own zone (a node of several zones).
            let (z, p) = (node.zone(area.zone_of(i)), area.pages[i] as usize);
            z.mem_map[p].kind == PageKind::Other
                && z.mem_map[p].owner == owner
                && z.mem_map[p].refcount == 1
        };
        let kept: Vec<usize> = (0..area.pages.len()).filter(|&i| keep(i)).collect();
        VmArea {
            pages: kept.iter().map(|&i| area.pages[i]).collect(),
            zones: if area.zones.is_empty() {
                Vec::new()
            } else {
                kept.iter().map(|&i| area.zones[i]).collect()
            },
            array: area
                .array
                .as_ref()
                .map(|a| Box::new(self.held_area(a, owner))),
            attempts: Vec::new(),
        }
    }

    fn begin_quiet(&mut self) -> (u32, Stats) {
        (self.engine.log.events.len() as u32, *self.engine.stats())
    }
}

/// Distinct pageblocks of pages given as `(zone index in the node, index in the zone)`.
fn pageblocks_of_zoned(pages: impl Iterator<Item = (usize, ZonePfn)>) -> u32 {
    let mut v: Vec<(usize, u32)> = pages.map(|(z, p)| (z, p >> PAGEBLOCK_ORDER)).collect();
    v.sort_unstable();
    v.dedup();
    v.len() as u32
}

fn pageblocks_of(pages: impl Iterator<Item = ZonePfn>) -> u32 {
    let mut v: Vec<u32> = pages.map(|p| p >> PAGEBLOCK_ORDER).collect();
    v.sort_unstable();
    v.dedup();
    v.len() as u32
}
