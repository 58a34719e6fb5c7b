//! Forced-transition replay (kernel-model.md §9, "Replay model"): a trace records outcomes, so
//! each event moves exactly the traced block, through the engine's primitives
//! (`del_from_free_list`, `expand`, `__free_one_page`, pcp add/del), and every disagreement
//! with the model becomes a [`Divergence`] (and a `# warning:` message event), never a panic.
//!
//! Inferences the trace forces (the kernel does not trace these steps):
//! * `mm_page_alloc_zone_locked` with `percpu_refill=1`, and a fallback (`mm_page_alloc_extfrag`)
//!   of a pcp order and type, put the block at the tail of the event CPU's pcp list
//!   (`rmqueue_bulk`); the later `mm_page_alloc` takes it from there. Other buddy takes are
//!   handed straight to the caller.
//! * A free of a block that a refill put on a pcp list and no `mm_page_alloc` took: the
//!   untraced `alloc_pages_bulk` loop handed it out.
//! * A drain or allocation of a pcp block of order > 0 that the model holds as smaller pieces,
//!   all freed through `mm_page_free`: the pieces are one `FPI_PREPARED` chunk (7.2's chunked
//!   `free_contig_range` prepares and traces every page as order 0, then frees the chunk).
//! * On a profile whose `vfree` frees through `free_pages_bulk` (7.2, 7.3): a run of order-0
//!   `mm_page_free` lines on one CPU, of ascending contiguous pfns with nothing between them, is
//!   one `__free_contig_range` call. `__free_contig_range_common` traces each page as it
//!   prepares it (`free_pages_prepare(page, 0)`), then `free_prepared_contig_range` frees the
//!   run as its naturally aligned chunks (`__free_frozen_pages(.., FPI_PREPARED)`: orders 0-3
//!   to the pcp at that order, larger ones to the buddy), none of them traced. When the run
//!   ends, its pages are refiled as those chunks. Only for lines with a timestamp (a kernel's
//!   trace): the engine's own trace prints the chunks (`# free_prepared_contig_range:` lines).
//! * A partial claim (`change_ownership=1`, `fallback_order < pageblock_order`) prints
//!   `mm_page_alloc_zone_locked` before `mm_page_alloc_extfrag`; the replay looks one event
//!   ahead and re-types the pageblock first, as `try_to_claim_block` did.
//!
//! Lines without a `[cpu]` column (the engine's own trace) replay on CPU 0.

use super::order::{Window, REORDER_WINDOW};
use super::parse::{
    CompactionLine, PcpCommitLine, TraceEvent, TraceLine, TraceParseError, TraceReader,
    SKIPPED_UNREAD,
};
use super::predict::{Chosen, PredictReport, Predictor, Request};
use super::tally::Tally;
use crate::mm::Step;
use crate::mm::*;
use crate::mm::{pcp_allowed_order, Engine, FPI_NONE};
use crate::run::outcome::Outcome;
use crate::run::runner::{OpRecord, OwnerInfo, Recorder, Run};
use crate::scenario::{OpDef, Scenario, ScenarioError};
use serde::Serialize;
use std::collections::HashMap;
use std::collections::HashSet;
use std::fmt;
use std::io::BufRead;

/// How to replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// Record the event log, op records and checkpoints (the timeline and `--format trace`
    /// need them; the `/proc` formats and the summary do not).
    pub record: bool,
    /// Memory the checkpoints may use, in bytes.
    pub checkpoint_budget: usize,
    /// Divergences kept in [`Replay::divergences`] (and prediction misses kept in
    /// [`PredictReport::misses`]); all are counted.
    pub max_listed: usize,
    /// Predict every `mm_page_alloc` before applying it ([`super::predict`]).
    pub predict: bool,
    /// The trace has the lab's `free_one_page` kprobe lines (docs/model-decisions.md row 38):
    /// they decide every free from the first line on. Without it the replay learns it at the
    /// first probe line it sees ahead of a free, and the frees before are inferred: on a
    /// probed 7.2.13 capture the first probe line came 61,000 lines in, after softirq frees
    /// that the inferences sent to the buddy and the kernel had put on the pcp.
    /// `buddyscope replay` sets it when the trace file has such a line.
    pub free_one_page_probed: bool,
    /// The trace has the lab's pcp commit kprobe lines (`free_frozen_page_commit`, 6.12's
    /// `free_unref_page_commit`; docs/model-decisions.md row 42): they decide every free from
    /// the first line on, once the reader knows the `struct page` array. `buddyscope replay`
    /// sets it when the trace file has such a line.
    pub pcp_commit_probed: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            record: true,
            checkpoint_budget: 256 << 20,
            max_listed: 10_000,
            predict: false,
            free_one_page_probed: false,
            pcp_commit_probed: false,
        }
    }
}

/// What kind of disagreement between the trace and the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DivergenceKind {
    /// A pfn (or a block's end) outside the zone.
    PfnOutsideZone,
    /// A `[cpu]` the zone does not have (the event replays on CPU 0).
    CpuOutsideZone,
    /// A pfn not aligned to its order.
    Misaligned,
    /// `mm_page_alloc` of a block the model has allocated.
    AllocOfAllocated,
    /// `mm_page_free` of a block the model has (partly) free.
    FreeOfFree,
    /// `mm_page_alloc_zone_locked` / `mm_page_alloc_extfrag` of a block the model does not have
    /// free in the buddy.
    NotFreeInBuddy,
    /// The traced free list (migratetype) is not the one the model has the block on.
    ListMismatch,
    /// `mm_page_alloc_extfrag` while the model had a block of the requested type: the model
    /// would not have fallen back.
    FallbackNotPredicted,
    /// `mm_page_pcpu_drain` of a block that is on no pcp list in the model.
    DrainNotOnPcp,
    /// `mm_page_pcpu_drain`'s migratetype is not the model's pageblock type.
    DrainMigratetype,
    /// `mm_page_alloc` took a block from another CPU's pcp list than the traced CPU.
    PcpOtherCpu,
}

impl DivergenceKind {
    /// Every kind, in the order the totals list them.
    pub const ALL: [DivergenceKind; 11] = [
        DivergenceKind::PfnOutsideZone,
        DivergenceKind::CpuOutsideZone,
        DivergenceKind::Misaligned,
        DivergenceKind::AllocOfAllocated,
        DivergenceKind::FreeOfFree,
        DivergenceKind::NotFreeInBuddy,
        DivergenceKind::ListMismatch,
        DivergenceKind::FallbackNotPredicted,
        DivergenceKind::DrainNotOnPcp,
        DivergenceKind::DrainMigratetype,
        DivergenceKind::PcpOtherCpu,
    ];

    fn idx(self) -> usize {
        Self::ALL
            .iter()
            .position(|&k| k == self)
            .expect("every kind is in ALL")
    }

    /// The kind's name in the CLI's output (`list_mismatch`).
    pub fn as_str(self) -> &'static str {
        match self {
            DivergenceKind::PfnOutsideZone => "pfn_outside_zone",
            DivergenceKind::CpuOutsideZone => "cpu_outside_zone",
            DivergenceKind::Misaligned => "misaligned",
            DivergenceKind::AllocOfAllocated => "alloc_of_allocated",
            DivergenceKind::FreeOfFree => "free_of_free",
            DivergenceKind::NotFreeInBuddy => "not_free_in_buddy",
            DivergenceKind::ListMismatch => "list_mismatch",
            DivergenceKind::FallbackNotPredicted => "fallback_not_predicted",
            DivergenceKind::DrainNotOnPcp => "drain_not_on_pcp",
            DivergenceKind::DrainMigratetype => "drain_migratetype",
            DivergenceKind::PcpOtherCpu => "pcp_other_cpu",
        }
    }
}

/// One disagreement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Divergence {
    /// 1-based line of the trace.
    pub line: u64,
    /// Index of its message event in the run's log (0 when the log is not recorded).
    pub event: u32,
    /// What kind.
    pub kind: DivergenceKind,
    /// What, in words.
    pub message: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: {}: {}",
            self.line,
            self.kind.as_str(),
            self.message
        )
    }
}

/// The number of divergences of one kind (every one counted, listed or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct KindCount {
    /// The kind.
    pub kind: DivergenceKind,
    /// Divergences of it.
    pub count: u64,
}

/// The non-zero totals by kind, in [`DivergenceKind::ALL`] order.
fn kind_counts(by_kind: &[u64; 11]) -> Vec<KindCount> {
    DivergenceKind::ALL
        .iter()
        .zip(by_kind)
        .filter(|(_, &n)| n != 0)
        .map(|(&kind, &count)| KindCount { kind, count })
        .collect()
}

/// A finished replay.
#[derive(Clone, Debug)]
pub struct Replay {
    /// An ordinary run: one op record per trace event when recorded.
    pub run: Run,
    /// Every divergence, counted.
    pub divergence_count: u64,
    /// Every divergence counted by kind (the non-zero kinds; complete even when the list is
    /// capped).
    pub divergences_by_kind: Vec<KindCount>,
    /// The first [`ReplayOptions::max_listed`] divergences.
    pub divergences: Vec<Divergence>,
    /// Trace events applied (§9 event lines).
    pub trace_events: u64,
    /// Lines read, and lines skipped (comments, other events, headers).
    pub lines: u64,
    /// Lines skipped (comments, other events, headers).
    pub skipped_lines: u64,
    /// Counts and the `nr_free[]` series for [`super::summary::summary`].
    pub tally: Tally,
    /// Lines applied in timestamp order before a line above them in the file, and lines
    /// whose timestamp is before one already applied (out of order by more than the window).
    pub reordered_lines: u64,
    /// Lines whose timestamp is before one already applied.
    pub late_lines: u64,
    /// With [`ReplayOptions::predict`]: how well the model predicted the kernel's choices.
    pub predict: Option<PredictReport>,
    /// Who made each traced allocation the model applied (the `mm_page_alloc` line's
    /// common fields), by owner id.
    pub allocs: TracedAllocs,
    /// The trace's clock at each op record (recorded replays only): what the charts' time axis
    /// reads.
    pub times: OpTimes,
}

/// The trace timestamp of each op record of a recorded replay (one op per trace event): the
/// latest timestamp applied so far, so the clock never runs backwards over a line applied late
/// (`order.rs`); a line without one keeps the clock where it was. A trace without timestamps
/// (the engine's own) has none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct OpTimes {
    /// Nanoseconds per op record, [`OpTimes::NONE`] before the first timestamp.
    ns: Vec<u64>,
}

impl OpTimes {
    const NONE: u64 = u64::MAX;

    /// Op records counted.
    pub fn len(&self) -> usize {
        self.ns.len()
    }

    /// No op record at all.
    pub fn is_empty(&self) -> bool {
        self.ns.is_empty()
    }

    /// The trace had timestamps.
    pub fn any(&self) -> bool {
        self.ns.last().is_some_and(|&t| t != Self::NONE)
    }

    /// The clock at op record `i` (the event's own timestamp, or the latest before it).
    pub fn of_op(&self, i: usize) -> Option<u64> {
        self.ns.get(i).copied().filter(|&t| t != Self::NONE)
    }

    /// The clock of the state after `k` ops: op `k - 1`'s, and for the state before the first
    /// op, the first timestamp of the trace.
    pub fn at_state(&self, k: usize) -> Option<u64> {
        if k == 0 {
            self.ns.iter().copied().find(|&t| t != Self::NONE)
        } else {
            self.of_op(k - 1)
        }
    }

    /// Adds the next op record's line timestamp.
    pub(crate) fn push(&mut self, ts_ns: Option<u64>) {
        let prev = self.ns.last().copied().unwrap_or(Self::NONE);
        let t = match (ts_ns, prev) {
            (Some(t), Self::NONE) => t,
            (Some(t), p) => t.max(p),
            (None, p) => p,
        };
        self.ns.push(t);
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.ns.capacity() * std::mem::size_of::<u64>()
    }
}

/// One applied `mm_page_alloc`: the line's common fields and request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TracedAlloc {
    /// The owner id the allocation holds its pages with (`Run::owners`).
    pub owner: u32,
    /// 1-based line number of the `mm_page_alloc` line.
    pub line: u64,
    /// Index into [`TracedAllocs::tasks`] of its `comm-pid`, when the line has the column.
    pub task: Option<u32>,
    /// The CPU, when the line has the column.
    pub cpu: Option<u32>,
    pub(crate) ts_ns: Option<u64>,
    /// The gfp flags.
    pub gfp: u32,
    /// The order.
    pub order: u8,
    /// The traced `migratetype=`.
    pub mt: MigrateType,
    /// The traced pfn (the kernel's page).
    pub pfn: u64,
}

/// The traced allocations of a replay, ascending by owner, with their tasks interned (a
/// trace names a few tasks many times).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TracedAllocs {
    pub(crate) tasks: Vec<String>,
    /// Ascending by owner.
    pub allocs: Vec<TracedAlloc>,
    #[serde(skip)]
    task_ids: HashMap<String, u32>,
}

impl TracedAllocs {
    /// The allocation holding pages as `owner`, if a traced `mm_page_alloc` made it.
    pub fn by_owner(&self, owner: u32) -> Option<&TracedAlloc> {
        self.allocs
            .binary_search_by_key(&owner, |a| a.owner)
            .ok()
            .map(|i| &self.allocs[i])
    }

    /// The `comm-pid` of an allocation, if the line had it.
    pub fn task(&self, a: &TracedAlloc) -> Option<&str> {
        a.task.map(|i| self.tasks[i as usize].as_str())
    }

    fn push(&mut self, owner: u32, tl: &TraceLine, mt: MigrateType) {
        let TraceEvent::Alloc {
            order,
            gfp,
            pfn: Some(pfn),
            ..
        } = tl.event
        else {
            return;
        };
        let task = tl.task.as_ref().map(|t| match self.task_ids.get(t) {
            Some(&i) => i,
            None => {
                let i = self.tasks.len() as u32;
                self.tasks.push(t.clone());
                self.task_ids.insert(t.clone(), i);
                i
            }
        });
        self.allocs.push(TracedAlloc {
            owner,
            line: tl.line,
            task,
            cpu: tl.cpu,
            ts_ns: tl.ts_ns,
            gfp,
            order,
            mt,
            pfn,
        });
    }
}

/// Why a replay could not run at all.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// The start state (the scenario's `zone`/`init`) is unusable.
    Scenario(ScenarioError),
    /// A line the importer rejects.
    Parse(TraceParseError),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Scenario(e) => write!(f, "{e}"),
            ReplayError::Parse(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Replays a trace held in memory (tests, the app).
pub fn replay_text(s: &Scenario, text: &str, opts: &ReplayOptions) -> Result<Replay, ReplayError> {
    replay(s, text.as_bytes(), opts, &mut |_| {})
}

/// Replays a trace from the start state of `s` (its `kernel`, `zone` and `init`; its ops are
/// ignored). `progress(events)` is called every 65536 events and at the end.
pub fn replay<R: BufRead>(
    s: &Scenario,
    trace: R,
    opts: &ReplayOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Replay, ReplayError> {
    let start = crate::run::setup::start_replay(s).map_err(ReplayError::Scenario)?;
    let scenario = start.scenario;
    let mut engine = start.engine;
    engine.recording = opts.record;
    let initial = engine.node().clone();
    let zones = initial
        .zones()
        .iter()
        .map(|z| ZoneState::new(z.pages() as usize))
        .collect();
    let rec = Recorder::new(initial, engine.stats(), op_defs(), opts.checkpoint_budget);
    let mut r = Replayer {
        e: engine,
        opts: opts.clone(),
        zones,
        rec,
        divergence_count: 0,
        by_kind: [0; 11],
        divergences: Vec::new(),
        line: 0,
        tally: Tally::default(),
        predictor: opts.predict.then(|| Predictor::new(opts.max_listed)),
        predicted: HashSet::new(),
        chosen: HashMap::new(),
        predicted_fell_back: HashSet::new(),
        allocs: TracedAllocs::default(),
        times: OpTimes::default(),
        chunked_frees: s.kernel.default_free_method() == FreeMethod::Chunked,
        free_runs: HashMap::new(),
        pcp_holder: Vec::new(),
        probed: opts.free_one_page_probed,
        commit_probed: opts.pcp_commit_probed,
        task_cpu: HashMap::new(),
        task_commit: Vec::new(),
        compacting: HashSet::new(),
        compact_cc: HashMap::new(),
        kcompactd: HashSet::new(),
        daemon_scanned: HashMap::new(),
        kcompactd_do_work: false,
        direct_compact: HashMap::new(),
    };
    r.index_initial_pcp();
    let mut reader = TraceReader::new(trace);
    let mut count = 0u64;
    let (reordered_lines, late_lines) = {
        let mut it = Window::new(reader.by_ref());
        while let Some(item) = it.next() {
            let tl = item.map_err(ReplayError::Parse)?;
            r.step(tl, &mut it);
            count += 1;
            if count.is_multiple_of(65536) {
                progress(count);
            }
        }
        (it.reordered, it.late)
    };
    for pid in r.direct_compact.keys().copied().collect::<Vec<_>>() {
        r.end_direct_compact(pid);
    }
    progress(count);
    Ok(Replay {
        run: r.rec.finish(
            scenario,
            r.e.log,
            r.e.node,
            r.e.stats,
            Vec::new(),
            Default::default(),
        ),
        divergence_count: r.divergence_count,
        divergences_by_kind: kind_counts(&r.by_kind),
        divergences: r.divergences,
        trace_events: count,
        lines: reader.lines(),
        skipped_lines: reader.skipped,
        tally: r.tally,
        reordered_lines,
        late_lines,
        predict: r.predictor.map(Predictor::finish),
        allocs: r.allocs,
        times: r.times,
    })
}

/// The op definitions of a replay: one per event type (`OpRecord::def` indexes them), and
/// the untraced `alloc_pages_bulk` the replay infers (an owner's `def`, never an op's).
const EVENT_NAMES: [&str; 11] = [
    "mm_page_alloc",
    "mm_page_free",
    "mm_page_alloc_zone_locked",
    "mm_page_pcpu_drain",
    "mm_page_alloc_extfrag",
    "free_prepared_contig_range",
    "alloc_contig_range",
    "set_migratetype_isolate",
    "unset_migratetype_isolate",
    "alloc_pages_bulk",
    "mm_compaction",
];

/// The owner `def` of pages an untraced `alloc_pages_bulk` handed out.
const DEF_ALLOC_PAGES_BULK: u32 = 9;

/// The `def` of an `mm_compaction_*` line, and the owner `def` of the free blocks an
/// `mm_compaction_isolate_freepages` line took (compaction's migration targets, or blocks
/// `release_free_list` frees later).
const DEF_COMPACTION: u32 = 10;

/// The op definitions of every replay's run ([`crate::run::Run::op_defs`]): a run rebuilt from
/// its events elsewhere (the app's worker hand-over) gets them here.
pub fn op_defs() -> Vec<OpDef> {
    EVENT_NAMES
        .iter()
        .map(|&n| OpDef {
            path: format!("trace:{n}"),
            op: n.to_string(),
            name: None,
            note: None,
            summary: format!("traced {n}"),
        })
        .collect()
}

fn def_of(e: &TraceEvent) -> u32 {
    match e {
        TraceEvent::Alloc { .. } => 0,
        TraceEvent::Free { .. } => 1,
        TraceEvent::ZoneLocked { .. } => 2,
        TraceEvent::PcpuDrain { .. } => 3,
        TraceEvent::Extfrag { .. } => 4,
        TraceEvent::Chunk { .. } => 5,
        TraceEvent::ContigAlloc { .. } => 6,
        TraceEvent::Isolate { .. } => 7,
        TraceEvent::Unisolate { .. } => 8,
        TraceEvent::Compaction(_) => DEF_COMPACTION,
    }
}

/// How a block came onto a pcp list.
const ORIGIN_NONE: u8 = 0;
/// `rmqueue_bulk` (a refill): an untraced bulk allocation may take it.
const ORIGIN_REFILL: u8 = 1;
/// `mm_page_free`: a piece of a possible `FPI_PREPARED` chunk.
const ORIGIN_FREED: u8 = 2;

struct Replayer {
    e: Engine,
    opts: ReplayOptions,
    /// What the replay knows of each zone of the node beyond the engine's state, by node index;
    /// [`Replayer::zs`] is the zone being worked on's.
    zones: Vec<ZoneState>,
    /// The op records (one a trace line), owners and checkpoints.
    rec: Recorder,
    divergence_count: u64,
    /// `divergence_count` by kind ([`DivergenceKind::ALL`] order).
    by_kind: [u64; 11],
    divergences: Vec<Divergence>,
    line: u64,
    tally: Tally,
    /// With `--predict`: the predictions, and the `mm_page_alloc` lines already predicted at
    /// the first line of their allocation.
    predictor: Option<Predictor>,
    predicted: HashSet<u64>,
    /// The tasks with a [`Replayer::chosen`] choice whose allocation traced
    /// `mm_page_alloc_extfrag`.
    predicted_fell_back: HashSet<Option<u32>>,
    /// With `--predict`, per task: the model's choice for the allocation whose direct
    /// compaction began (its first `mm_compaction_try_to_compact_pages` line), scored at the
    /// task's next `mm_page_alloc`.
    chosen: HashMap<Option<u32>, Chosen>,
    allocs: TracedAllocs,
    times: OpTimes,
    /// The profile frees contiguous runs in chunks (`FreeMethod::Chunked`): infer them.
    chunked_frees: bool,
    /// Per CPU and task (pid): the run of order-0 frees its last line extended, while the
    /// task's next line on that CPU continues it.
    free_runs: HashMap<(usize, u32), FreeRun>,
    /// Per CPU: the task (pid) the trace shows holding that CPU's pcp lock
    /// ([`Replayer::pcp_held_by_interrupted_task`]).
    pcp_holder: Vec<Option<PcpHolder>>,
    /// The trace has the lab's `free_one_page` kprobe lines (one was read): every free that
    /// reached the buddy without the pcp says so ([`Replayer::probed_free_one_page`]).
    probed: bool,
    /// The trace has the lab's pcp commit kprobe lines: every free that reached a pcp list
    /// says so ([`Replayer::probed_pcp_commit`]).
    commit_probed: bool,
    /// Per task (pid, not the idle tasks' 0): the CPU of its last line (an interrupt's line
    /// names the task it interrupted, which runs on that CPU).
    task_cpu: HashMap<u32, usize>,
    /// Per CPU: the task (pid) whose commit probe line was that CPU's last task-context line,
    /// and the zone of its page: the task was then inside `free_frozen_page_commit` with that
    /// zone's pcp lock held ([`Replayer::commit_missed`]).
    task_commit: Vec<Option<(u32, usize)>>,
    /// The tasks (pid; `None` in the engine's own trace) between an `mm_compaction_begin` and
    /// its `mm_compaction_end`: their `mm_compaction_isolate_freepages` lines are the free
    /// scanner's.
    compacting: HashSet<Option<u32>>,
    /// Per task: what its lines show of its `compact_control`, for `fast_isolate_freepages`.
    compact_cc: HashMap<Option<u32>, TracedCompactControl>,
    /// The tasks that wrote `mm_compaction_kcompactd_wake` or `_sleep`: kcompactd threads
    /// (only kcompactd writes them), whose compactions count `compact_daemon_*_scanned`.
    kcompactd: HashSet<u32>,
    /// Per task: the pages its compactions' scanners scanned (migrate, free) that are not
    /// counted as kcompactd's yet (a kcompactd thread may compact before its first own line).
    daemon_scanned: HashMap<Option<u32>, (u64, u64)>,
    /// The engine's own trace (no task column): between an `mm_compaction_kcompactd_wake` and
    /// the `mm_compaction_kcompactd_sleep` after it, the compactions are `kcompactd_do_work`'s.
    kcompactd_do_work: bool,
    /// Per task: the direct compaction its last `mm_compaction_try_to_compact_pages` began,
    /// until its next allocation line or direct compaction says how it ended.
    direct_compact: HashMap<Option<u32>, DirectCompact>,
}

/// What a task's lines show of one `__alloc_pages_direct_compact`: `try_to_compact_pages`'
/// result over its zones and the `compaction_defer_reset` lines after it.
#[derive(Clone, Copy, Debug)]
struct DirectCompact {
    /// `rc`: the max of the zones' results (`COMPACT_SKIPPED` to start).
    rc: CompactResult,
    /// The task's last line of it: `try_to_compact_pages` or a zone's end line with
    /// `COMPACT_SUCCESS` (then a `compaction_defer_reset` is `try_to_compact_pages`' own, for
    /// the zone that succeeded); otherwise a reset is the allocation's.
    reset_follows_zone_success: bool,
    /// `compaction_defer_reset(zone, order, false)`: a zone succeeded, the loop stopped.
    zone_reset: bool,
    /// `compaction_defer_reset(zone, order, true)`: the page was captured or allocated.
    page_reset: bool,
}

/// The fields of a compaction's `compact_control` that `fast_isolate_freepages` reads, as far
/// as the task's `mm_compaction_*` lines show them (absolute pfns).
#[derive(Clone, Copy, Debug, Default)]
struct TracedCompactControl {
    /// `cc->order`: `mm_compaction_try_to_compact_pages` or `mm_compaction_finished`.
    order: Option<u8>,
    /// `cc->search_order` after the last fast search (`None`: the order, as
    /// `compact_zone_order` sets it).
    search_order: Option<i32>,
    /// `cc->fast_search_fail` as the fast searches left it.
    fast_search_fail: u32,
    /// `cc->migrate_pfn`: the begin line's, then the end of each isolate_migratepages range.
    migrate_pfn: u64,
    /// `cc->nr_migratepages`: the last isolate_migratepages line's `nr_taken`.
    nr_migratepages: u64,
    /// `zone_end` of the begin line.
    zone_end: u64,
    /// `cc->free_pfn`: the begin line's, then where the free scanner's lines leave it.
    free_pfn: u64,
    /// `mm_compaction_try_to_compact_pages`' priority and whether the request is movable
    /// (`None`: not a direct compaction).
    direct: Option<(u8, bool)>,
}

/// How far past a run of frees the replay looks for a folio batch's `mm_page_free_batched`
/// lines (`free_unref_folios` commits one folio batch: a few dozen folios).
const FOLIO_BATCH_LOOKAHEAD: usize = 64;

/// How far past a free the replay looks for its folio's `mm_page_free_batched` line: the
/// commit loop of a batch of 31 folios, with the drains of `free_frozen_page_commit` and the
/// other CPUs' lines between (rm's batch of 0x19fe7a on the 7.3.4 fragment capture: 275
/// lines).
const FOLIO_BATCH_COMMIT_LOOKAHEAD: usize = 1024;

/// The task that holds a CPU's pcp lock of one zone, as its lines show.
#[derive(Clone, Copy)]
struct PcpHolder {
    pid: u32,
    /// The zone (index in the node) whose pcp it holds.
    zone: usize,
    /// Shown by an `mm_page_free_batched` line: `free_unref_folios`' commit loop, which holds
    /// the lock only while the task's next line on that CPU is another batch line of the zone.
    batch: bool,
}

/// A run of order-0 `mm_page_free` lines of ascending contiguous pfns on one CPU (absolute
/// pfns `start..end`), in one zone of the node.
#[derive(Clone, Copy, Debug)]
struct FreeRun {
    zone: usize,
    start: u64,
    end: u64,
    /// A page of the run was last allocated alone (`Replayer::single`).
    singles: bool,
    /// Who held the run's last page before its free.
    owner: u32,
}

/// What the replay knows of one zone beyond the engine's state (per-page arrays indexed by the
/// zone's own pfns).
struct ZoneState {
    /// Per page: how the pcp block headed here got onto its list.
    origin: Vec<u8>,
    /// Per page: its last traced allocation was an order-0 `mm_page_alloc` of it alone (not a
    /// page of a larger block, nor a page the untraced `alloc_pages_bulk` handed out).
    single: Vec<bool>,
    /// Per page: the pcp list index of the pcp block headed here.
    pindex: Vec<u8>,
    /// Blocks taken from the buddy for the caller, awaiting their `mm_page_alloc`.
    in_flight: HashMap<u32, u8>,
    /// A partial claim already applied ahead of its `mm_page_alloc_extfrag` (zone pfn).
    pre_claimed: Option<u32>,
}

impl ZoneState {
    /// Nothing known yet of a zone of `pages` pages.
    fn new(pages: usize) -> ZoneState {
        ZoneState {
            origin: vec![0; pages],
            single: vec![false; pages],
            pindex: vec![0; pages],
            in_flight: HashMap::new(),
            pre_claimed: None,
        }
    }
}

type Lookahead<'a, R> = Window<&'a mut TraceReader<R>>;

impl Replayer {
    /// The blocks on the pcp lists at the start came from refills. Works in each zone in turn
    /// (a recorded switch into each, on a node of several zones) and back in the home zone.
    fn index_initial_pcp(&mut self) {
        let home = self.e.node().home_index();
        for z in 0..self.e.node().nr_zones() {
            self.enter_zone(z);
            for cpu in 0..self.e.zone().pcp.len() {
                for pi in 0..NR_PCP_LISTS {
                    for p in self.e.zone().pcp_list_pfns(cpu, pi) {
                        let zs = self.zs();
                        zs.pindex[p as usize] = pi as u8;
                        zs.origin[p as usize] = ORIGIN_REFILL;
                    }
                }
            }
        }
        self.enter_zone(home);
    }

    /// What the replay knows of the zone being worked on.
    fn zs(&mut self) -> &mut ZoneState {
        &mut self.zones[self.e.node().active_index()]
    }

    /// [`Replayer::zs`], to read.
    fn zs_ref(&self) -> &ZoneState {
        &self.zones[self.e.node().active_index()]
    }

    /// Works in zone `i` of the node from now on (a recorded `ZoneSwitch`; nothing on a node
    /// of one zone).
    fn enter_zone(&mut self, i: usize) {
        self.e.select_zone(Step::PageZone, i);
    }

    /// `page_zone(pfn)`: work in the zone of the node that holds `pfn` (a trace line names no
    /// zone, its pfn does). A pfn in no zone stays where it is, to diverge there.
    fn enter_zone_of(&mut self, pfn: u64) {
        if let Some(i) = self.e.node().zone_index_of(pfn) {
            self.enter_zone(i);
        }
    }

    fn mt(&self, n: u8) -> MigrateType {
        match n {
            4 if self.e.zone().cfg.cma => MigrateType::Cma,
            4 | 5 => MigrateType::Isolate,
            n => MigrateType::from_idx(n as usize),
        }
    }

    fn diverge(&mut self, kind: DivergenceKind, message: String) {
        self.divergence_count += 1;
        self.by_kind[kind.idx()] += 1;
        let event = self.e.log.events.len() as u32;
        self.e.message(
            Step::ReplayDivergence,
            MsgLevel::Warning,
            format!("replay line {}: {}: {}", self.line, kind.as_str(), message),
        );
        if self.divergences.len() < self.opts.max_listed {
            self.divergences.push(Divergence {
                line: self.line,
                event: if self.opts.record { event } else { 0 },
                kind,
                message,
            });
        }
    }

    fn abs(&self, p: u32) -> u64 {
        self.e.zone().abs_pfn(p)
    }

    /// The zone index of a traced block (working in its zone from now on), or a divergence.
    fn block(&mut self, pfn: u64, order: u8) -> Option<u32> {
        self.enter_zone_of(pfn);
        let z = self.e.zone();
        let start = z.cfg.start_pfn;
        if pfn < start || pfn + (1u64 << order) > start + z.pages() as u64 {
            self.diverge(
                DivergenceKind::PfnOutsideZone,
                format!("pfn {pfn:#x} order {order} is outside the zone"),
            );
            return None;
        }
        let p = (pfn - start) as u32;
        if p & ((1 << order) - 1) != 0 {
            self.diverge(
                DivergenceKind::Misaligned,
                format!("pfn {pfn:#x} is not aligned to order {order}"),
            );
            return None;
        }
        Some(p)
    }

    fn cpu(&mut self, cpu: Option<u32>) -> (usize, bool) {
        match cpu {
            None => (0, false),
            Some(c) if (c as usize) < self.e.zone().pcp.len() => (c as usize, true),
            Some(c) => {
                self.diverge(
                    DivergenceKind::CpuOutsideZone,
                    format!(
                        "CPU {c}: the zone has {} CPU(s); replayed on CPU 0",
                        self.e.zone().pcp.len()
                    ),
                );
                (0, false)
            }
        }
    }

    fn step<R: BufRead>(&mut self, tl: TraceLine, ahead: &mut Lookahead<'_, R>) {
        self.line = tl.line;
        if self.predictor.is_some() {
            self.maybe_predict(&tl, ahead);
        }
        let start = (self.e.log.events.len() as u32, *self.e.stats());
        let def = def_of(&tl.event);
        self.tally.count(&tl.event);
        let owners_before = self.rec.owners.len();
        self.probed |= !tl.free_one_page.is_empty();
        self.commit_probed |= tl.pcp_commit.iter().any(|c| c.pfn.is_some());
        for c in &tl.pcp_commit {
            self.pcp_commit(c);
            self.note_task_commit(c);
        }
        self.note_batch_holders(&tl);
        let outcome = self.apply(&tl, ahead);
        let cpu = tl
            .cpu
            .filter(|&c| (c as usize) < self.e.zone().pcp.len())
            .unwrap_or(0) as usize;
        self.note_pcp_holder(&tl, cpu);
        if tl.in_irq != Some(true) {
            if let Some(t) = self.task_commit.get_mut(cpu) {
                *t = None;
            }
        }
        if let (Some(pid), Some(c)) = (tl.pid.filter(|&p| p != 0), tl.cpu) {
            self.task_cpu.insert(pid, c as usize);
        }
        // The owners this line created: an applied mm_page_alloc's (def 0) is who allocated.
        for o in owners_before..self.rec.owners.len() {
            if self.rec.owners[o].def == 0 {
                let mt = self.rec.owners[o].mt;
                self.allocs.push(o as u32, &tl, mt);
            }
        }
        // As a run's ops do, every traced event ends in the home (highest) zone.
        let home = self.e.node().home_index();
        self.enter_zone(home);
        self.tally.nr_free.push(tl.line, self.e.zone().nr_free());
        if self.opts.record {
            self.rec.record(OpRecord {
                def,
                iteration: Vec::new(),
                start: start.0,
                end: self.e.log.events.len() as u32,
                cost: self.e.stats().diff(&start.1),
                pageblocks_touched: 0,
                lock_holds: Default::default(),
                outcome: Outcome::Replayed {
                    line: tl.line,
                    what: outcome,
                },
                nr_free_after: self.e.zone().nr_free,
                nr_free_after_zones: if self.e.node().several_zones() {
                    self.e.node().zones().iter().map(|z| *z.nr_free()).collect()
                } else {
                    Vec::new()
                },
            });
            self.times.push(tl.ts_ns);
            self.maybe_checkpoint();
        }
    }

    fn maybe_checkpoint(&mut self) {
        self.rec
            .checkpoint(self.e.log.events.len(), &self.e.node, &self.e.stats);
    }

    fn apply<R: BufRead>(&mut self, tl: &TraceLine, ahead: &mut Lookahead<'_, R>) -> String {
        let (cpu, cpu_known) = self.cpu(tl.cpu);
        match tl.event {
            TraceEvent::Alloc {
                pfn,
                order,
                mt,
                gfp,
            } => {
                // The allocation that ran a direct compaction returns: it ended before.
                self.end_direct_compact(tl.pid);
                let cpu = self.alloc_take_cpu(tl).unwrap_or(cpu);
                self.alloc(pfn, order, self.mt(mt), gfp, cpu, cpu_known)
            }
            TraceEvent::Free { pfn, order } => {
                let single = self.traced_single_page(pfn);
                let owner = self.owner_of(pfn);
                let probed = self.probed_free_one_page(tl, pfn, order, ahead);
                let committed = self.probed_pcp_commit(tl, pfn, order, ahead);
                let (commit_cpu, to_buddy) = match self.batch_commit_cpu(tl, pfn, ahead) {
                    _ if probed == Some(true) => (cpu, true),
                    Some(c) => (c, false),
                    // A trace with the commit probe says every free that reached a pcp list;
                    // but a page of a vfree's contiguous range is committed as part of its
                    // chunk, after the range's last free ([`Replayer::contig_run`] decides).
                    None if committed == Some(false) && !self.contig_range_candidate(tl, order) => {
                        (cpu, !self.commit_missed(tl, pfn, cpu, ahead))
                    }
                    None if committed.is_some() => (cpu, false),
                    // A probed trace says every free that went to the buddy.
                    None if probed.is_some() => (cpu, false),
                    None => (cpu, self.pcp_held_by_interrupted_task(tl, pfn, cpu, ahead)),
                };
                let what = self.free(pfn, order, commit_cpu, to_buddy);
                self.contig_run(tl, &what, single, owner, cpu, ahead);
                what
            }
            TraceEvent::ZoneLocked {
                pfn,
                order,
                mt,
                percpu_refill,
            } => {
                let mt = self.mt(mt);
                // A partial claim traces its __rmqueue_smallest before its extfrag line.
                if let Some(TraceLine {
                    event:
                        TraceEvent::Extfrag {
                            pfn: xpfn,
                            alloc_order,
                            fallback_order,
                            alloc_mt,
                            fallback_mt,
                            change_ownership: true,
                        },
                    ..
                }) = ahead.peek(0)
                {
                    if *xpfn == pfn && *fallback_order < PAGEBLOCK_ORDER {
                        let ao = *alloc_order;
                        let (am, fm) = (self.mt(*alloc_mt), self.mt(*fallback_mt));
                        if let Some(p) = self.block(pfn, order) {
                            self.partial_claim(p, ao, am, fm);
                            self.zs().pre_claimed = Some(p);
                        }
                    }
                }
                self.zone_locked(pfn, order, mt, percpu_refill, cpu)
            }
            TraceEvent::PcpuDrain { pfn, order, mt } => self.drain(pfn, order, mt, cpu),
            TraceEvent::Extfrag {
                pfn,
                alloc_order,
                fallback_order,
                alloc_mt,
                fallback_mt,
                change_ownership,
            } if self.compacting.contains(&tl.pid)
                && tl.in_irq != Some(true)
                && alloc_order == fallback_order =>
            {
                // compaction_capture (mm/page_alloc.c) traces the extfrag of the block it
                // captures inside __free_one_page, before the free's own line: the block is
                // not free yet in the replay, and the allocation's mm_page_alloc takes it.
                let Some(p) = self.block(pfn, alloc_order) else {
                    return "skipped".into();
                };
                self.trace(
                    Step::TraceExtfrag,
                    Tracepoint::MmPageAllocExtfrag {
                        pfn: p,
                        alloc_order,
                        fallback_order,
                        alloc_mt: self.mt(alloc_mt),
                        fallback_mt: self.mt(fallback_mt),
                        change_ownership,
                    },
                );
                format!("compaction_capture: the order-{alloc_order} block at pfn {pfn:#x} is captured for the allocation")
            }
            TraceEvent::Extfrag {
                pfn,
                alloc_order,
                fallback_order,
                alloc_mt,
                fallback_mt,
                change_ownership,
            } => self.extfrag(
                pfn,
                alloc_order,
                fallback_order,
                self.mt(alloc_mt),
                self.mt(fallback_mt),
                change_ownership,
                cpu,
            ),
            TraceEvent::Chunk { pfn, order } => self.chunk(pfn, order, cpu),
            TraceEvent::ContigAlloc { pfn, nr } => self.contig_alloc(pfn, nr),
            TraceEvent::Isolate { pfn } => self.isolate(pfn, true),
            TraceEvent::Unisolate { pfn } => self.isolate(pfn, false),
            TraceEvent::Compaction(c) => self.compaction(c, tl.pid),
        }
    }

    // ------------------------------------------------------------------ prediction

    /// Before the first line of an allocation (its refill or fallback lines, else its
    /// `mm_page_alloc`): predict that allocation from the state the kernel chose from.
    ///
    /// An allocation that compacts is predicted at its direct compaction's first line
    /// (`mm_compaction_try_to_compact_pages`), from the state before any of its compaction
    /// passes: the model runs the whole slow path (its passes, the pageblock skip bits and
    /// restart points they leave for the next pass, the capture) from the state the kernel's
    /// slow path started from. The kernel's own passes are then replayed from their lines,
    /// and the choice is scored at the task's `mm_page_alloc`.
    fn maybe_predict<R: BufRead>(&mut self, tl: &TraceLine, ahead: &mut Lookahead<'_, R>) {
        if let TraceEvent::Compaction(CompactionLine::TryToCompactPages { order, gfp, .. }) =
            tl.event
        {
            if !self.chosen.contains_key(&tl.pid) {
                let req = Request {
                    line: tl.line,
                    cpu: self.request_cpu(tl),
                    order,
                    mt: self.e.gfp_migratetype(gfp) as u8,
                    gfp,
                    pfn: None,
                    fell_back: false,
                };
                let p = self.predictor.as_mut().expect("predicting");
                let c = p.choose(&mut self.e, &req);
                self.chosen.insert(tl.pid, c);
            }
            return;
        }
        if self.chosen.contains_key(&tl.pid) {
            match tl.event {
                TraceEvent::Alloc {
                    pfn,
                    order,
                    mt,
                    gfp,
                } => {
                    let c = self.chosen.remove(&tl.pid).expect("checked");
                    let fell_back = self.predicted_fell_back.remove(&tl.pid);
                    let req = Request {
                        line: tl.line,
                        cpu: self.request_cpu(tl),
                        order,
                        mt,
                        gfp,
                        pfn,
                        fell_back,
                    };
                    let p = self.predictor.as_mut().expect("predicting");
                    p.score(&mut self.e, &req, c);
                }
                TraceEvent::Extfrag { .. } => {
                    // compaction_capture traces the extfrag of the block it takes.
                    self.predicted_fell_back.insert(tl.pid);
                }
                _ => {}
            }
            return;
        }
        let mut fell_back = matches!(tl.event, TraceEvent::Extfrag { .. });
        let alloc = match tl.event {
            TraceEvent::Alloc { .. } => Some(tl.clone()),
            TraceEvent::ZoneLocked { .. } | TraceEvent::Extfrag { .. } => {
                // The CPU's next line that is not one of these ends the allocation: an
                // mm_page_alloc, or something else (alloc_pages_bulk traces no mm_page_alloc).
                let mut found = None;
                for k in 0..REORDER_WINDOW {
                    let Some(l) = ahead.peek(k) else { break };
                    if l.cpu != tl.cpu {
                        continue;
                    }
                    match l.event {
                        TraceEvent::ZoneLocked { .. } => continue,
                        TraceEvent::Extfrag { .. } => fell_back = true,
                        TraceEvent::Alloc { .. } => {
                            found = Some(l.clone());
                            break;
                        }
                        _ => break,
                    }
                }
                found
            }
            _ => None,
        };
        let Some(a) = alloc else { return };
        if !self.predicted.insert(a.line) {
            if a.line == tl.line {
                // Reached: predicted at its first line.
                self.predicted.remove(&a.line);
            }
            return;
        }
        if a.line == tl.line {
            self.predicted.remove(&a.line);
        }
        let TraceEvent::Alloc {
            pfn,
            order,
            mt,
            gfp,
        } = a.event
        else {
            unreachable!("an mm_page_alloc")
        };
        let cpu = match (a.line == tl.line).then(|| self.alloc_take_cpu(&a)) {
            Some(Some(c)) => c,
            _ => a
                .cpu
                .filter(|&c| (c as usize) < self.e.zone().pcp.len())
                .unwrap_or(0) as usize,
        };
        let req = Request {
            line: a.line,
            cpu,
            order,
            mt,
            gfp,
            pfn,
            fell_back,
        };
        let p = self.predictor.as_mut().expect("predicting");
        p.predict(&mut self.e, &req);
    }

    /// The CPU a request is predicted on: an `mm_page_alloc`'s take CPU, else the line's CPU
    /// (CPU 0 when the zone has no such CPU).
    fn request_cpu(&self, tl: &TraceLine) -> usize {
        let take = match tl.event {
            TraceEvent::Alloc { .. } => self.alloc_take_cpu(tl),
            _ => None,
        };
        take.unwrap_or_else(|| {
            tl.cpu
                .filter(|&c| (c as usize) < self.e.zone().pcp.len())
                .unwrap_or(0) as usize
        })
    }

    // ------------------------------------------------------------------ helpers

    fn pcp_add(&mut self, step: Step, cpu: usize, p: u32, order: u8, mt: MigrateType, end: End) {
        let pi = order_to_pindex(mt, order);
        self.e.emit(
            step,
            Mutation::PcpAdd {
                cpu: cpu as u8,
                pindex: pi as u8,
                pfn: p,
                end,
            },
        );
        self.zs().pindex[p as usize] = pi as u8;
    }

    fn pcp_del(&mut self, step: Step, p: u32) {
        let cpu = self.e.zone().mem_map[p as usize].owner as u8;
        let prev = self.e.zone().mem_map[p as usize].prev;
        self.e.emit(
            step,
            Mutation::PcpDel {
                cpu,
                pindex: self.zs_ref().pindex[p as usize],
                pfn: p,
                prev,
            },
        );
        self.zs().origin[p as usize] = ORIGIN_NONE;
    }

    /// Is `(p, order)` the head of a pcp block of that order?
    fn on_pcp(&self, p: u32, order: u8) -> bool {
        let z = self.e.zone();
        z.mem_map[p as usize].kind == PageKind::Pcp && z.mem_map[p as usize].order == order
    }

    /// The pcp pieces, all put there by `mm_page_free`, that exactly tile `(p, order)`.
    fn freed_pieces(&self, p: u32, order: u8) -> Option<Vec<u32>> {
        if order == 0 {
            return None;
        }
        let z = self.e.zone();
        let end = p + (1 << order);
        let mut v = Vec::new();
        let mut q = p;
        while q < end {
            let o = z.mem_map[q as usize].order;
            if z.mem_map[q as usize].kind != PageKind::Pcp
                || self.zs_ref().origin[q as usize] != ORIGIN_FREED
                || q + (1 << o) > end
            {
                return None;
            }
            v.push(q);
            q += 1 << o;
        }
        Some(v)
    }

    /// Takes `(p, order)` off the pcp, whole or as its freed pieces. False if it is not there.
    fn take_pcp(&mut self, step: Step, p: u32, order: u8) -> bool {
        if self.on_pcp(p, order) {
            self.pcp_del(step, p);
            return true;
        }
        match self.freed_pieces(p, order) {
            Some(v) => {
                for q in v {
                    self.pcp_del(step, q);
                }
                true
            }
            None => false,
        }
    }

    /// An order-0 `mm_page_alloc` took `p` from its CPU's pcp list, but the model has blocks
    /// above it. `__rmqueue_pcplist` takes `list_first_entry`, and frees and refills only add
    /// lines the replay applies, so those blocks left the list's head untraced before it:
    /// `alloc_pages_bulk_noprof`, which calls `__rmqueue_pcplist` under the pcp lock and traces
    /// no `mm_page_alloc` (v6.12.117 mm/page_alloc.c:4761-4785, v7.2.13 :5250-5274). They are
    /// handed out now, as one bulk allocation, so that a later `mm_page_free` of them frees
    /// pages the model holds.
    fn untraced_bulk_take_above(&mut self, p: u32) {
        let z = self.e.zone();
        let (cpu, pi) = (
            z.mem_map[p as usize].owner as usize,
            self.zs_ref().pindex[p as usize] as usize,
        );
        let above: Vec<u32> = z
            .list_iter(&z.pcp[cpu].lists[pi])
            .take_while(|&q| q != p)
            .collect();
        if above.is_empty() {
            return;
        }
        self.tally.untraced_bulk_takes += 1;
        self.tally.untraced_bulk_pages += above.len() as u64;
        let owner = self.rec.owners.len() as u32;
        let mt = self.e.zone().pageblock_mt(p);
        self.rec.owners.push(OwnerInfo {
            def: DEF_ALLOC_PAGES_BULK,
            mt,
            seq: 0,
        });
        for q in above {
            self.pcp_del(Step::PcplistTakeFront, q);
            self.e.emit(
                Step::BulkPrep,
                Mutation::PrepNewPage {
                    pfn: q,
                    order: 0,
                    owner,
                    lru: false,
                },
            );
            self.zs().single[q as usize] = false;
        }
    }

    /// An order-0 `mm_page_free` of `p`, which a free put on a pcp list and no `mm_page_alloc`
    /// took since: `alloc_pages_bulk_noprof` took it untraced from the head of that list, when
    /// the list held another block too. A bulk call asks for at least two pages ("Use the
    /// single page allocator for one page": one left goes to `__alloc_pages_noprof`, traced,
    /// v6.12.117 mm/page_alloc.c:4691, v7.2.13 :5183), so a page alone on its list is taken
    /// with a refill the trace shows (`rmqueue_bulk`), never on its own: a second free of a
    /// page alone on its list stays a `free_of_free` divergence.
    fn untraced_bulk_take_of_freed(&mut self, p: u32) -> bool {
        let z = self.e.zone();
        if !self.on_pcp(p, 0) || self.zs_ref().origin[p as usize] != ORIGIN_FREED {
            return false;
        }
        let (cpu, pi) = (
            z.mem_map[p as usize].owner as usize,
            self.zs_ref().pindex[p as usize] as usize,
        );
        if z.pcp[cpu].lists[pi].len < 2 {
            return false;
        }
        self.tally.untraced_bulk_takes += 1;
        self.tally.untraced_bulk_pages += 1;
        self.pcp_del(Step::PcplistTakeFront, p);
        true
    }

    /// The kernel takes `(p, order)` from the buddy, where the model has its pages on pcp
    /// lists, put there by traced frees, or handed out by an inferred untraced bulk take of such
    /// pages. Drains are traced, so those frees went straight to the buddy: `free_one_page`
    /// when `pcp_spin_trylock` fails, as it does for a free in irq context on a CPU whose
    /// task holds its pcp lock (the lock does not disable irqs; v7.2.13 mm/page_alloc.c
    /// `__free_frozen_pages` :2977-2985, `free_unref_folios` :3064-3068; v6.12.117
    /// `free_unref_page` :2758-2764). They are moved there now, merging as `__free_one_page`
    /// does, before the take. Nothing happens unless every page of the block is such a page
    /// or free in the buddy.
    fn freed_straight_to_the_buddy(&mut self, p: u32, order: u8) {
        let end = p + (1u32 << order);
        if end > self.e.zone().pages() {
            return;
        }
        let mut pieces = Vec::new();
        let mut q = p;
        while q < end {
            match self.e.free_block_containing(q) {
                // Already in the buddy (a drained page, or a buddy of the others).
                Some((h, o, false)) => {
                    q = h + (1 << o);
                    continue;
                }
                // On a pcp list, freed there: the whole pcp block went to the buddy.
                Some((h, o, true)) if self.zs_ref().origin[h as usize] == ORIGIN_FREED => {
                    pieces.push((h, o, true));
                    q = h + (1 << o);
                    continue;
                }
                _ => {}
            }
            if self.held_by_inferred_bulk(q) {
                pieces.push((q, 0, false));
                q += 1;
            } else {
                return;
            }
        }
        self.tally.freed_straight_to_buddy += pieces.len() as u64;
        for (q, o, on_pcp) in pieces {
            if on_pcp {
                self.pcp_del(Step::PcplistTakeFront, q);
            } else {
                self.e.put_page(q, 0);
            }
            self.e.free_one_page(q, o, FPI_NONE);
        }
    }

    /// Is the order-0 page `p` held by an untraced `alloc_pages_bulk` the replay inferred?
    fn held_by_inferred_bulk(&self, p: u32) -> bool {
        let z = self.e.zone();
        z.mem_map[p as usize].kind == PageKind::Other
            && z.mem_map[p as usize].refcount == 1
            && self
                .rec
                .owners
                .get(z.mem_map[p as usize].owner as usize)
                .is_some_and(|o| o.def == DEF_ALLOC_PAGES_BULK)
    }

    /// Before a free: the block must be held (head refcount 1), as `put_page` expects. A tail
    /// page of a larger allocation means the owner split it (`split_page`, untraced); a block
    /// nobody holds in the model was handed out untraced (the bulk loop): `prep_new_page`.
    fn ensure_held(&mut self, p: u32, order: u8) {
        let z = self.e.zone();
        let owner = z.mem_map[p as usize].owner;
        if owner != NO_OWNER {
            // The allocation holding p: the largest aligned block with a held head, unsplit
            // tails, all of this owner.
            let alloc = (0..=MAX_PAGE_ORDER)
                .map(|o| (p & !((1u32 << o) - 1), o))
                // Owning the whole block is monotone in the order: stop at the first miss.
                .take_while(|&(h, o)| {
                    h + (1 << o) <= z.pages()
                        && z.mem_map[h as usize..(h + (1 << o)) as usize]
                            .iter()
                            .all(|q| q.owner == owner)
                })
                .filter(|&(h, o)| {
                    z.mem_map[h as usize].refcount == 1
                        && z.mem_map[h as usize + 1..(h + (1 << o)) as usize]
                            .iter()
                            .all(|q| q.refcount == 0)
                })
                .last();
            if let Some((h, o)) = alloc {
                if o > order {
                    self.e.split_page(h, o);
                }
            }
            if self.e.zone().mem_map[p as usize].refcount == 1 {
                return;
            }
        }
        let mt = self.e.zone().pageblock_mt(p);
        let owner = self.rec.owners.len() as u32;
        self.rec.owners.push(OwnerInfo { def: 1, mt, seq: 0 });
        self.e.emit(
            Step::PrepNewPage,
            Mutation::PrepNewPage {
                pfn: p,
                order,
                owner,
                lru: mt == MigrateType::Movable,
            },
        );
    }

    /// Does any page of `(p, order)` lie in a free block (buddy or pcp)?
    fn any_free(&self, p: u32, order: u8) -> bool {
        let z = self.e.zone();
        self.e.free_block_containing(p).is_some()
            || (p + 1..p + (1 << order)).any(|q| z.mem_map[q as usize].kind != PageKind::Other)
    }

    /// Removes `(p, order)` from the buddy block that contains it, splitting that block the way
    /// `expand` does (the halves not holding `p` go to the head of the block's list). Returns
    /// the list it was on.
    fn take_from_buddy(&mut self, step: Step, p: u32, order: u8) -> Option<MigrateType> {
        if self
            .e
            .free_block_containing(p)
            .is_none_or(|(_, o, on_pcp)| on_pcp || o < order)
        {
            self.freed_straight_to_the_buddy(p, order);
        }
        let (head, o, on_pcp) = self.e.free_block_containing(p)?;
        if on_pcp || o < order {
            return None;
        }
        let lmt = self.e.zone().list_mt_of(head);
        self.e.del_from_free_list(step, head, o, lmt);
        if head == p {
            self.e.expand(p, order, o, lmt);
        } else {
            let (mut cur, mut co) = (head, o);
            while co > order {
                co -= 1;
                let half = 1u32 << co;
                let (keep, give) = if p >= cur + half {
                    (cur + half, cur)
                } else {
                    (cur, cur + half)
                };
                self.e
                    .add_to_free_list(Step::ExpandAddUpper, give, co, lmt, false);
                cur = keep;
            }
        }
        self.e
            .account_freepages(Step::ExpandAccount, -(1i64 << order), lmt);
        Some(lmt)
    }

    /// After a buddy take for an allocation of `(order, mt)`: a pcp order and type goes to the
    /// tail of the CPU's pcp list (`rmqueue_bulk`), anything else to the caller.
    fn deliver(&mut self, p: u32, order: u8, mt: MigrateType, cpu: usize) -> &'static str {
        if pcp_allowed_order(order) && mt.idx() < MIGRATE_PCPTYPES {
            self.pcp_add(Step::BulkAddTail, cpu, p, order, mt, End::Tail);
            self.zs().origin[p as usize] = ORIGIN_REFILL;
            "to the pcp"
        } else {
            self.zs().in_flight.insert(p, order);
            "to the caller"
        }
    }

    fn trace(&mut self, step: Step, t: Tracepoint) {
        self.e.emit(step, t);
    }

    /// The model would have found a block on the requested type's own lists.
    fn check_fallback(&mut self, order: u8, mt: MigrateType) {
        let z = self.e.zone();
        if let Some(o) = (order..=MAX_PAGE_ORDER).find(|&o| z.free_list(o, mt).len > 0) {
            self.diverge(
                DivergenceKind::FallbackNotPredicted,
                format!(
                    "fallback for an order-{order} {} request, but the model has an order-{o} {} block free",
                    mt.kernel_name(),
                    mt.kernel_name()
                ),
            );
        }
    }

    fn check_list(&mut self, p: u32, want: MigrateType, what: &str) {
        if let Some((head, _, false)) = self.e.free_block_containing(p) {
            let have = self.e.zone().list_mt_of(head);
            if have != want {
                self.diverge(
                    DivergenceKind::ListMismatch,
                    format!(
                        "{what} at pfn {:#x} from the {} list, but the model has it on the {} list",
                        self.abs(p),
                        want.kernel_name(),
                        have.kernel_name()
                    ),
                );
            }
        }
    }

    fn not_free(&mut self, p: u32, order: u8, what: &str) {
        let where_ = if self.any_free(p, order) {
            "on a pcp list"
        } else {
            "allocated"
        };
        self.diverge(
            DivergenceKind::NotFreeInBuddy,
            format!(
                "{what} takes the order-{order} block at pfn {:#x} from the buddy, but the model has it {where_}",
                self.abs(p)
            ),
        );
    }

    // ------------------------------------------------------------------ events

    fn alloc(
        &mut self,
        pfn: Option<u64>,
        order: u8,
        mt: MigrateType,
        gfp: u32,
        cpu: usize,
        cpu_known: bool,
    ) -> String {
        let Some(pfn) = pfn else {
            self.trace(
                Step::TraceMmPageAlloc,
                Tracepoint::MmPageAlloc {
                    pfn: None,
                    order,
                    mt,
                    gfp,
                },
            );
            return format!("order-{order} allocation failed");
        };
        let Some(p) = self.block(pfn, order) else {
            return "skipped".into();
        };
        let how = if self.zs_ref().in_flight.get(&p) == Some(&order) {
            self.zs().in_flight.remove(&p);
            "from the buddy"
        } else if self.on_pcp(p, order) || self.freed_pieces(p, order).is_some() {
            let owner_cpu = self.e.zone().mem_map[p as usize].owner as usize;
            if cpu_known && owner_cpu != cpu {
                self.diverge(
                    DivergenceKind::PcpOtherCpu,
                    format!(
                        "pfn {pfn:#x} is on CPU {owner_cpu}'s pcp list, the trace allocates it on CPU {cpu}"
                    ),
                );
            } else if order == 0
                && self.on_pcp(p, 0)
                && self.zs_ref().pindex[p as usize] as usize == order_to_pindex(mt, 0)
            {
                self.untraced_bulk_take_above(p);
            }
            self.take_pcp(Step::PcplistTakeFront, p, order);
            "from the pcp"
        } else if self.take_from_buddy(Step::SmallestTake, p, order).is_some() {
            "from the buddy (untraced take)"
        } else if order == 0 && self.held_by_inferred_bulk(p) {
            // The inferred untraced take was wrong for this page: it was still on the list, and
            // this allocation took it (the model's list order differed, or the allocation was
            // traced after another's: `trace_mm_page_alloc` runs after `get_page_from_freelist`
            // returns, preemptible). The traced allocation holds it now.
            self.e.put_page(p, 0);
            "from the pcp (not taken by the untraced alloc_pages_bulk after all)"
        } else {
            self.diverge(
                DivergenceKind::AllocOfAllocated,
                format!("order-{order} block at pfn {pfn:#x} is allocated in the model"),
            );
            self.trace(
                Step::TraceMmPageAlloc,
                Tracepoint::MmPageAlloc {
                    pfn: Some(p),
                    order,
                    mt,
                    gfp,
                },
            );
            return "diverged".into();
        };
        let owner = self.rec.owners.len() as u32;
        self.rec.owners.push(OwnerInfo { def: 0, mt, seq: 0 });
        self.e.emit(
            Step::PrepNewPage,
            Mutation::PrepNewPage {
                pfn: p,
                order,
                owner,
                lru: mt == MigrateType::Movable,
            },
        );
        self.trace(
            Step::TraceMmPageAlloc,
            Tracepoint::MmPageAlloc {
                pfn: Some(p),
                order,
                mt,
                gfp,
            },
        );
        self.zs().single[p as usize..(p + (1 << order)) as usize].fill(order == 0);
        format!("order-{order} block at pfn {pfn:#x} allocated {how}")
    }

    /// An `mm_page_free` in irq context on a CPU whose interrupted task holds that CPU's pcp
    /// lock of the page's zone: `pcp_spin_trylock(zone->per_cpu_pageset)` fails and the block
    /// goes straight to the buddy (`free_one_page`; v7.2.13 mm/page_alloc.c
    /// `__free_frozen_pages` :2977-2985, v6.12.117 `free_unref_page` :2757-2764). The trace
    /// shows the lock held from a task's `rmqueue_bulk` lines (`mm_page_alloc_zone_locked` with
    /// `percpu_refill=1`: `__rmqueue_pcplist` refills under the pcp lock, which
    /// `rmqueue_pcplist` or `alloc_pages_bulk` drops after the take) or `free_pcppages_bulk`
    /// lines (`mm_page_pcpu_drain`: every caller holds the pcp lock around it) to its next
    /// line: the interrupt that was pending while the zone lock kept irqs off comes in at the
    /// zone lock's `spin_unlock_irqrestore`, before `rmqueue_bulk` or `free_pcppages_bulk`
    /// returns, with the pcp lock still held (v6.12.117 `free_pcppages_bulk` :1235-1268,
    /// `free_unref_page_commit` :2711-2712; v7.2.13 `free_pcppages_bulk` :1475 (the zone lock
    /// a guard released at its return), `free_frozen_page_commit` :2886-2894, where the lock
    /// is dropped only after that). That is after a drain's last line too, and in
    /// `free_unref_folios`' commit. The lock is the page's zone's: an interrupt's free of a page
    /// of another zone takes the other zone's pcp lock (the fragment captures: of the frees in
    /// softirq after a task's drain lines whose fate later lines show, every one of the
    /// drained zone went to the buddy, 91 on 6.12.117, 180 on 7.2.13, 152 on 7.3.4, and every
    /// one of the other zone to the pcp, 88 on 7.2.13, 50 on 7.3.4). The interrupt's own lines
    /// tell when the lock was free after all: an `mm_page_pcpu_drain` of that zone among them
    /// is `free_pcppages_bulk` under that CPU's pcp lock (its frees reached the pcp, which then
    /// went over `high`): the task had dropped the lock before the interrupt came.
    fn pcp_held_by_interrupted_task<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        pfn: u64,
        cpu: usize,
        ahead: &mut Lookahead<'_, R>,
    ) -> bool {
        let Some(holder) = self.pcp_holder.get(cpu).copied().flatten() else {
            return false;
        };
        let zone = self.e.node().zone_index_of(pfn);
        if tl.in_irq != Some(true) || tl.pid != Some(holder.pid) || zone != Some(holder.zone) {
            return false;
        }
        if holder.batch {
            return self.folio_batch_goes_on(tl, cpu, holder.zone, ahead);
        }
        for k in 0..FOLIO_BATCH_LOOKAHEAD {
            let Some(l) = ahead.peek(k) else { break };
            if l.cpu.map(|c| c as usize) != Some(cpu) {
                continue;
            }
            if l.in_irq != Some(true) || l.pid != tl.pid {
                return true;
            }
            if let TraceEvent::PcpuDrain { pfn: d, .. } = l.event {
                if self.e.node().zone_index_of(d) == zone {
                    self.pcp_holder[cpu] = None;
                    return false;
                }
            }
        }
        true
    }

    /// An interrupt's free on `cpu` after an `mm_page_free_batched` line of the task it
    /// interrupted, in the zone `zone`: is the task still in `free_unref_folios`' commit loop
    /// with that zone's pcp lock held? It is when the task's next line on that CPU, after the
    /// interrupt's own lines, is another batch line of the zone (the loop goes from one
    /// folio's `trace_mm_page_free_batched` and `free_frozen_page_commit` to the next folio's
    /// without dropping the lock while the zone stays the same) or a drain line of the zone
    /// (the commit's `free_pcppages_bulk`, under the lock). Any other line of the task ends
    /// the batch (the last commit may have been followed by `pcp_spin_unlock`): not held. The
    /// interrupt's own batch line or drain line of that zone says its trylock succeeded.
    fn folio_batch_goes_on<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        cpu: usize,
        zone: usize,
        ahead: &mut Lookahead<'_, R>,
    ) -> bool {
        let node = self.e.node();
        for k in 0..FOLIO_BATCH_COMMIT_LOOKAHEAD {
            let Some(l) = ahead.peek(k) else { break };
            if let Some(b) = l
                .batched
                .iter()
                .find(|b| b.cpu.map(|c| c as usize) == Some(cpu))
            {
                return b.pid == tl.pid
                    && b.in_irq == Some(false)
                    && node.zone_index_of(b.pfn) == Some(zone);
            }
            if l.cpu.map(|c| c as usize) != Some(cpu) {
                continue;
            }
            let drain_of_zone = matches!(l.event, TraceEvent::PcpuDrain { pfn, .. }
                if node.zone_index_of(pfn) == Some(zone));
            if l.in_irq == Some(true) && l.pid == tl.pid {
                if drain_of_zone {
                    self.pcp_holder[cpu] = None;
                    return false;
                }
                continue;
            }
            return l.pid == tl.pid && l.in_irq == Some(false) && drain_of_zone;
        }
        false
    }

    /// The CPU an allocation took its page on, when it was not the CPU of its `mm_page_alloc`
    /// line: `rmqueue_pcplist` pins the task to its CPU only from `pcp_spin_trylock` to
    /// `pcp_spin_unlock`, and `trace_mm_page_alloc` runs after `get_page_from_freelist`
    /// returns, preemptible, so a task that migrated between the two took the page from the
    /// pcp list of the CPU it ran on and traced it on the other. Read so when the page is on a
    /// pcp list of another CPU than the line's and the task's previous line ran on that CPU.
    fn alloc_take_cpu(&self, tl: &TraceLine) -> Option<usize> {
        let TraceEvent::Alloc {
            pfn: Some(pfn),
            order,
            ..
        } = tl.event
        else {
            return None;
        };
        let prev = *self.task_cpu.get(&tl.pid.filter(|&p| p != 0)?)?;
        let line_cpu = tl.cpu? as usize;
        if prev == line_cpu || prev >= self.e.zone().pcp.len() {
            return None;
        }
        // Read in the page's zone without entering it (the prediction runs in the home zone).
        let z = &self.e.node().zones()[self.e.node().zone_index_of(pfn)?];
        let start = z.cfg.start_pfn;
        if pfn < start || pfn >= start + z.pages() as u64 {
            return None;
        }
        let page = &z.mem_map[(pfn - start) as usize];
        (page.kind == PageKind::Pcp && page.order == order && page.owner as usize == prev)
            .then_some(prev)
    }

    /// The CPU a folio batch's free was committed on, when it was not the CPU of its
    /// `mm_page_free` line. `free_unref_folios` traces every folio's free in its first loop
    /// (`__free_pages_prepare`, preemptible: no lock held), then in its second loop takes
    /// `pcp_spin_trylock` of the CPU it runs on then (`pcpu_task_pin` + `this_cpu_ptr`) and
    /// traces `mm_page_free_batched` under that lock just before `free_frozen_page_commit`:
    /// a task that migrated between the loops frees on one CPU and commits on the other. The
    /// batch line of the same pfn, task and context that follows the free (before the task's
    /// next line that is neither a free nor a drain, and before that pfn's next free) names
    /// the CPU. No batch
    /// line: not a folio batch, or its folio went to the buddy (`free_one_page`), as before.
    fn batch_commit_cpu<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        pfn: u64,
        ahead: &mut Lookahead<'_, R>,
    ) -> Option<usize> {
        let pid = tl.pid?;
        let ncpu = self.e.zone().pcp.len();
        let cpu = tl.cpu?;
        for k in 0..FOLIO_BATCH_COMMIT_LOOKAHEAD {
            let l = ahead.peek(k)?;
            if let Some(b) = l
                .batched
                .iter()
                .find(|b| b.pfn == pfn && b.pid == Some(pid) && b.in_irq == tl.in_irq)
            {
                let c = b.cpu?;
                return (c != cpu && (c as usize) < ncpu).then_some(c as usize);
            }
            if ends_free_window(l, tl, pfn) {
                return None;
            }
        }
        None
    }

    /// Before a line: the `mm_page_free_batched` lines in task context that came before it
    /// (`free_unref_folios` traces each under the pcp lock of the folio's zone, on the CPU
    /// whose lock it holds) make their task that CPU's holder, for
    /// [`Replayer::folio_batch_goes_on`] to confirm.
    fn note_batch_holders(&mut self, tl: &TraceLine) {
        for b in &tl.batched {
            let (Some(pid), Some(cpu), Some(false)) = (b.pid, b.cpu, b.in_irq) else {
                continue;
            };
            let cpu = cpu as usize;
            if cpu >= self.e.zone().pcp.len() {
                continue;
            }
            if self.pcp_holder.len() <= cpu {
                self.pcp_holder.resize(cpu + 1, None);
            }
            self.pcp_holder[cpu] = self.e.node().zone_index_of(b.pfn).map(|zone| PcpHolder {
                pid,
                zone,
                batch: true,
            });
        }
    }

    /// On a trace with the lab's `free_one_page` kprobe: whether the free `tl` of the block at
    /// `pfn` went through `free_one_page` (`Some(true)`: its probe line follows, from the same
    /// task and context, before that pfn's next free and before the task's next line other
    /// than a free or a drain; `free_unref_folios` sends an isolated or trylock-failed folio
    /// there from its commit loop, after other folios' lines), or reached a pcp list
    /// (`Some(false)`: no such line). `None`: no probe line read yet, the trace is not probed
    /// and the inferences of [`Replayer::pcp_held_by_interrupted_task`] (its refill, drain
    /// and folio-batch windows) decide. The probe fires at `free_one_page`'s entry, which
    /// every free that bypasses the pcp calls: v6.12.117 mm/page_alloc.c :1295 (callers
    /// `free_unref_page` :2750, :2763, `free_unref_folios` :2791, :2827, :2840,
    /// `__free_pages_ok` :1315); v7.2.13 :1542 (`__free_pages_ok` :1585,
    /// `__free_frozen_pages` :2964, :2984, `free_unref_folios` :3020, :3055, :3066); v7.3.4
    /// :1557 (:1600, :2986, :3003, :3039, :3074, :3085).
    fn probed_free_one_page<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        pfn: u64,
        order: u8,
        ahead: &mut Lookahead<'_, R>,
    ) -> Option<bool> {
        let pid = tl.pid;
        for k in 0..FOLIO_BATCH_COMMIT_LOOKAHEAD {
            let Some(l) = ahead.peek(k) else { break };
            if !l.free_one_page.is_empty() {
                self.probed = true;
            }
            if l.free_one_page
                .iter()
                .any(|f| f.pfn == pfn && f.order == order && f.pid == pid && f.in_irq == tl.in_irq)
            {
                return Some(true);
            }
            if ends_free_window(l, tl, pfn) {
                break;
            }
        }
        self.probed.then_some(false)
    }

    /// On a trace with the lab's pcp commit kprobe: whether the free `tl` of the block at `pfn`
    /// reached a pcp list (`Some(true)`: its commit line follows, from the same task and
    /// context, before that pfn's next free and before the task's next line other than a free
    /// or a drain: `free_unref_folios` commits each folio after every folio's `mm_page_free`)
    /// or not (`Some(false)`: the buddy, through `free_one_page`). `None`: no commit line
    /// read yet, or one in the window whose page the reader cannot map to a pfn yet (the
    /// `struct page` array is learned from the first commit lines); then the other evidence
    /// and the inferences decide. Every path that puts a freed page on a pcp list calls the
    /// probed function under the pcp lock: v7.2.13 mm/page_alloc.c `free_frozen_page_commit`
    /// :2832 (callers `__free_frozen_pages` :2979, `free_unref_folios` :3081), v7.3.4 :2854
    /// (:2998, :3100), v6.12.117 `free_unref_page_commit` :2673 (`free_unref_page` :2760,
    /// `free_unref_folios` :2855); the other pcp `list_add` is `rmqueue_bulk`'s refill, traced
    /// by `mm_page_alloc_zone_locked`.
    fn probed_pcp_commit<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        pfn: u64,
        order: u8,
        ahead: &mut Lookahead<'_, R>,
    ) -> Option<bool> {
        let pid = tl.pid;
        for k in 0..FOLIO_BATCH_COMMIT_LOOKAHEAD {
            let Some(l) = ahead.peek(k) else { break };
            for c in &l.pcp_commit {
                if c.pid != pid || c.in_irq != tl.in_irq || c.order != order {
                    continue;
                }
                match c.pfn {
                    Some(f) if f == pfn => return Some(true),
                    Some(_) => self.commit_probed = true,
                    None => return None,
                }
            }
            // An interrupt commits its free before it returns: a task line on its CPU ends it.
            let irq_returned = tl.in_irq == Some(true) && l.cpu == tl.cpu && l.in_irq != Some(true);
            if irq_returned || ends_free_window(l, tl, pfn) {
                break;
            }
            if k + 1 == FOLIO_BATCH_COMMIT_LOOKAHEAD {
                // Not seen to the end: a folio batch's commit loop can come later than this
                // (6.12.117 fragment: rm-973's batch line and commit of 0x116363 1,881 lines
                // after its free, other CPUs' lines between).
                return None;
            }
        }
        self.commit_probed.then_some(false)
    }

    /// A commit probe line in task context: its task is inside the commit function, with the
    /// pcp lock of its page's zone held, until its next task-context line on that CPU.
    fn note_task_commit(&mut self, c: &PcpCommitLine) {
        let (Some(pfn), Some(cpu), Some(pid), Some(false)) = (c.pfn, c.cpu, c.pid, c.in_irq) else {
            return;
        };
        let Some(zone) = self.e.node().zone_index_of(pfn) else {
            return;
        };
        let cpu = cpu as usize;
        if self.task_commit.len() <= cpu {
            self.task_commit.resize(cpu + 1, None);
        }
        self.task_commit[cpu] = Some((pid, zone));
    }

    /// An interrupt's pcp-order free with no commit line, on a trace with the commit probe:
    /// was its commit missed rather than its trylock failed? Kprobes do not nest: a kprobe hit
    /// while another kprobe's handler runs on the CPU is counted missed, not traced
    /// (`kprobe_ftrace_handler`, arch/x86/kernel/kprobes/ftrace.c: `kprobe_running()` →
    /// `kprobes_inc_nmissed_count`). An interrupt that comes while the task it interrupted runs
    /// the commit probe's handler finds that task holding the pcp lock of one zone (the commit
    /// runs under it): a free of that zone fails its `pcp_spin_trylock` and goes to the buddy,
    /// a free of another zone takes that zone's lock and commits, unseen. So: the interrupted
    /// task's commit line is next to the interrupt's lines on that CPU (its last task-context
    /// line before them, or its first after them), and names a page of another zone. Seen on
    /// the 7.2.13 fragment capture with the commit probe alone: softirq frees of Normal pages
    /// inside rm-1130's DMA32 folio commits, 90 misses in `kprobe_profile`, each page later
    /// allocated from the pcp.
    fn commit_missed<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        pfn: u64,
        cpu: usize,
        ahead: &mut Lookahead<'_, R>,
    ) -> bool {
        let (Some(true), Some(pid)) = (tl.in_irq, tl.pid) else {
            return false;
        };
        let Some(zone) = self.e.node().zone_index_of(pfn) else {
            return false;
        };
        let mut task_zone = match self.task_commit.get(cpu).copied().flatten() {
            Some((p, z)) if p == pid => Some(z),
            _ => None,
        };
        if task_zone.is_none() {
            // the task's commit line right after the interrupt's lines
            for k in 0..FOLIO_BATCH_LOOKAHEAD {
                let Some(l) = ahead.peek(k) else { break };
                if l.cpu.map(|c| c as usize) != Some(cpu) {
                    continue;
                }
                let commit = l
                    .pcp_commit
                    .iter()
                    .find(|c| c.in_irq == Some(false) && c.cpu.map(|c| c as usize) == Some(cpu));
                if let Some(c) = commit {
                    if c.pid == Some(pid) {
                        task_zone = c.pfn.and_then(|f| self.e.node().zone_index_of(f));
                    }
                    break;
                }
                if l.in_irq != Some(true) || l.pid != Some(pid) {
                    break;
                }
            }
        }
        task_zone.is_some_and(|z| z != zone)
    }

    /// Can the free `tl` be a page of a vfree's contiguous range (`free_pages_bulk` →
    /// `__free_contig_range_common`, 7.2+): an order-0 free in preemptible task context on a
    /// profile with chunked frees. Its own pfn and order have no commit line: the range is
    /// freed in chunks (`free_prepared_contig_range` → `__free_frozen_pages(FPI_PREPARED)`,
    /// v7.2.13 mm/page_alloc.c :6902-6925), each committed as one block after the range's
    /// last `mm_page_free`.
    fn contig_range_candidate(&self, tl: &TraceLine, order: u8) -> bool {
        self.chunked_frees
            && order == 0
            && tl.in_irq != Some(true)
            && tl.preemptible == Some(true)
            && tl.ts_ns.is_some()
    }

    /// After a line in task context on `cpu`: the task holds the CPU's pcp lock of the line's
    /// zone from its `rmqueue_bulk` or `free_pcppages_bulk` lines on, until its next line.
    fn note_pcp_holder(&mut self, tl: &TraceLine, cpu: usize) {
        if tl.in_irq == Some(true) {
            return;
        }
        if self.pcp_holder.len() <= cpu {
            self.pcp_holder.resize(cpu + 1, None);
        }
        let pfn = match tl.event {
            TraceEvent::ZoneLocked {
                pfn,
                percpu_refill: true,
                ..
            }
            | TraceEvent::PcpuDrain { pfn, .. } => pfn,
            _ => {
                self.pcp_holder[cpu] = None;
                return;
            }
        };
        self.pcp_holder[cpu] = match (tl.pid, self.e.node().zone_index_of(pfn)) {
            (Some(pid), Some(zone)) => Some(PcpHolder {
                pid,
                zone,
                batch: false,
            }),
            _ => None,
        };
    }

    /// A line of the lab's pcp commit probe: the page was put at the head of its CPU's pcp
    /// list then. `free_frozen_page_commit` (6.12: `free_unref_page_commit`) runs with the pcp
    /// lock held, after the free's `trace_mm_page_free` (`__free_pages_prepare`, unlocked): an
    /// interrupt that comes between the two puts its own pages on the list first, so the
    /// free's page lands above them, against the trace's order of the `mm_page_free` lines
    /// (v7.2.13 mm/page_alloc.c `__free_pages_prepare` :1326, `__free_frozen_pages` :2977-2979,
    /// `free_frozen_page_commit` :2832, its `list_add` :2851; v7.3.4 :2998, :2854;
    /// v6.12.117 `free_unref_page` :2756-2760, `free_unref_page_commit` :2673). The replay put
    /// the page on the list at its `mm_page_free` line; the commit line moves it to the head
    /// of the list of the line's CPU, where the kernel's `list_add` put it. A page the model
    /// does not have on a pcp list as a traced free (a divergence, or a free the replay sent to
    /// the buddy) is left alone.
    fn pcp_commit(&mut self, c: &PcpCommitLine) {
        let Some(pfn) = c.pfn else { return };
        if !pcp_allowed_order(c.order) {
            return;
        }
        self.enter_zone_of(pfn);
        let z = self.e.zone();
        let start = z.cfg.start_pfn;
        if pfn < start || pfn + (1u64 << c.order) > start + z.pages() as u64 {
            return;
        }
        let p = (pfn - start) as u32;
        if !self.on_pcp(p, c.order) || self.zs_ref().origin[p as usize] != ORIGIN_FREED {
            return;
        }
        let Some(cpu) = c.cpu.map(|c| c as usize).filter(|&c| c < z.pcp.len()) else {
            return;
        };
        let pi = self.zs_ref().pindex[p as usize] as usize;
        let owner = z.mem_map[p as usize].owner as usize;
        if owner == cpu && z.pcp[cpu].lists[pi].head == p {
            return;
        }
        self.pcp_del(Step::CommitAddHead, p);
        self.pcp_add(
            Step::CommitAddHead,
            cpu,
            p,
            c.order,
            pindex_to_mt(pi),
            End::Head,
        );
        self.zs().origin[p as usize] = ORIGIN_FREED;
    }

    fn free(&mut self, pfn: u64, order: u8, cpu: usize, to_buddy: bool) -> String {
        let Some(p) = self.block(pfn, order) else {
            return "skipped".into();
        };
        if order > MAX_PAGE_ORDER {
            return self.free_gigantic(p, order);
        }
        if self.on_pcp(p, order) && self.zs_ref().origin[p as usize] == ORIGIN_REFILL {
            // Handed out by the untraced alloc_pages_bulk loop.
            self.pcp_del(Step::PcplistTakeFront, p);
        } else if order == 0 && self.untraced_bulk_take_of_freed(p) {
            // As above, for a page a free had put on the list.
        } else if self.zs_ref().in_flight.get(&p) == Some(&order) {
            self.zs().in_flight.remove(&p);
        } else if self.any_free(p, order) {
            self.diverge(
                DivergenceKind::FreeOfFree,
                format!("order-{order} block at pfn {pfn:#x} is already free in the model"),
            );
            return "diverged".into();
        }
        self.ensure_held(p, order);
        self.e.put_page(p, order);
        self.trace(
            Step::TraceMmPageFree,
            Tracepoint::MmPageFree { pfn: p, order },
        );
        let mut mt = self.e.zone().pageblock_mt(p);
        if pcp_allowed_order(order) && mt != MigrateType::Isolate && !to_buddy {
            if mt.idx() >= MIGRATE_PCPTYPES {
                mt = MigrateType::Movable;
            }
            self.pcp_add(Step::CommitAddHead, cpu, p, order, mt, End::Head);
            self.zs().origin[p as usize] = ORIGIN_FREED;
            format!("order-{order} block at pfn {pfn:#x} freed to the pcp")
        } else {
            self.e.free_one_page(p, order, FPI_NONE);
            if to_buddy && pcp_allowed_order(order) {
                self.tally.freed_straight_to_buddy += 1;
                format!("order-{order} block at pfn {pfn:#x} freed to the buddy (pcp_spin_trylock failed: the interrupted task holds the pcp lock)")
            } else {
                format!("order-{order} block at pfn {pfn:#x} freed to the buddy")
            }
        }
    }

    /// After an `mm_page_free` on a profile with the chunked `__free_contig_range`: extends the
    /// current run of order-0 frees, and when the next line does not continue it, refiles the
    /// run's pages as `free_prepared_contig_range`'s chunks (see the module comment).
    fn contig_run<R: BufRead>(
        &mut self,
        tl: &TraceLine,
        what: &str,
        single: bool,
        owner: u32,
        cpu: usize,
        ahead: &mut Lookahead<'_, R>,
    ) {
        let TraceEvent::Free { pfn, order: 0 } = tl.event else {
            return;
        };
        if !self.chunked_frees || tl.ts_ns.is_none() {
            return;
        }
        // An interrupt's line leaves the runs of the tasks it interrupted alone (each task's
        // run on a CPU is its own: a task that preempts another may free its own run).
        if tl.in_irq == Some(true) {
            return;
        }
        let key = (cpu, tl.pid.unwrap_or(u32::MAX));
        // free_pages_bulk runs in sleepable process context only (it calls cond_resched):
        // frees under a lock are single frees, whatever their pfns.
        if tl.preemptible != Some(true) || !what.ends_with("freed to the pcp") {
            self.free_runs.remove(&key);
            return;
        }
        let zone = self.e.node().active_index();
        let run = match self.free_runs.get(&key).copied() {
            Some(r) if r.zone == zone && r.end == pfn => FreeRun {
                end: pfn + 1,
                singles: r.singles || single,
                owner,
                ..r
            },
            _ => FreeRun {
                zone,
                start: pfn,
                end: pfn + 1,
                singles: single,
                owner,
            },
        };
        // The task's next line on this CPU: any line of the task between (a trace_marker
        // write, another event) means the loop was not one __free_contig_range_common. Event
        // lines of other CPUs, of other tasks on this CPU (the task was preempted) and of
        // interrupts on this CPU may come between, but no line the importer skips, whose CPU
        // and task it does not read.
        // Another task's lines between are the task preempted inside the loop, or two
        // vfree calls of areas whose pages happen to be adjacent (a kernel stack freed after
        // another): only a page of the same allocation as the last (the same owner: one
        // large-order block vm_area_alloc_pages split) tells the loop went on.
        let mut continues = false;
        let mut other_tasks = false;
        // The lines from this one to the one peeked, skipped ones included: only other CPUs'
        // `mm_page_free_batched` lines (a folio batch freed meanwhile) may be among the skipped.
        let mut lines_between = tl.line;
        let mut skipped_here = false;
        for k in 0..FOLIO_BATCH_LOOKAHEAD {
            let Some(l) = ahead.peek(k) else { break };
            lines_between += 1 + u64::from(l.skipped_before);
            skipped_here |= l.skipped_cpus & (SKIPPED_UNREAD | 1 << cpu.min(62)) != 0;
            let other_cpu = l.cpu.is_some() && l.cpu.map(|c| c as usize) != Some(cpu);
            // An interrupt's line names the task it interrupted: another pid (ksoftirqd, the
            // idle task) means this task was switched out.
            let other_task = l.pid.is_some() && tl.pid.is_some() && l.pid != tl.pid;
            if other_cpu || (l.in_irq == Some(true) && !other_task) {
                continue;
            }
            if other_task {
                other_tasks = true;
                continue;
            }
            continues = matches!(
                l,
                TraceLine { event: TraceEvent::Free { pfn: next, order: 0 }, cpu: Some(_), ts_ns: Some(_), preemptible: Some(true), line, .. }
                    if *next == run.end && *line == lines_between && !skipped_here
            );
            break;
        }
        if continues && other_tasks {
            continues = run.owner != NO_OWNER && self.owner_of(run.end) == run.owner;
        }
        if continues && run.owner != NO_OWNER {
            let next = self.owner_of(run.end);
            continues = next == NO_OWNER || next == run.owner || self.one_area(run.owner, next);
        }
        if continues {
            self.free_runs.insert(key, run);
            return;
        }
        self.free_runs.remove(&key);
        // The engine's own trace prints the chunks itself. A folio batch (`free_unref_folios`)
        // traces every page's free, then commits each with mm_page_free_batched: the lines
        // after the run, up to the first that is not another free on this CPU, tell.
        // Another task's batch (its frees and mm_page_free_batched lines, interleaved) says
        // nothing about this one's.
        let mut not_a_range = false;
        for k in 0..FOLIO_BATCH_LOOKAHEAD {
            match ahead.peek(k) {
                Some(TraceLine {
                    event: TraceEvent::Chunk { .. },
                    ..
                }) => not_a_range = true,
                Some(l)
                    if l.after_batched
                        && (l.batched_by.is_none()
                            || tl.pid.is_none()
                            || l.batched_by == tl.pid) =>
                {
                    not_a_range = true
                }
                Some(TraceLine {
                    event: TraceEvent::Free { .. },
                    cpu: c,
                    ..
                }) if c.map(|c| c as usize) == Some(cpu) => continue,
                Some(l) if l.pid.is_some() && tl.pid.is_some() && l.pid != tl.pid => continue,
                _ => {}
            }
            break;
        }
        if run.end - run.start < 2 || not_a_range || run.singles {
            return;
        }
        for (p, o) in contig_chunks(run.start, run.end - run.start) {
            self.chunk(p, o, cpu);
        }
    }

    /// Can the page held by `next` follow the page held by `prev` in one vmalloc area's
    /// `pages` array? `vm_area_alloc_pages` takes an area's large chunks in one loop, each
    /// `min(max_attempt_order, ilog2(nr_remaining))` (v7.2.13 mm/vmalloc.c:3668-3710), so their
    /// orders fall strictly, except at the MAX_PAGE_ORDER cap. Two split chunks of one order
    /// below the cap are two areas, each freed by its own `free_pages_bulk`, even when their
    /// pages are adjacent and their frees traced back to back. A page of unknown or order-0
    /// provenance (the bulk or fallback loop) says nothing.
    fn one_area(&self, prev: u32, next: u32) -> bool {
        match (self.allocs.by_owner(prev), self.allocs.by_owner(next)) {
            (Some(a), Some(b)) if a.order > 0 && b.order > 0 => {
                b.order < a.order || (a.order == b.order && a.order == MAX_PAGE_ORDER)
            }
            _ => true,
        }
    }

    /// Was the page at `pfn` last handed out alone, by a traced order-0 `mm_page_alloc`?
    /// vmalloc's pages come from a larger allocation it split (`split_page`) or from the
    /// untraced `alloc_pages_bulk`: a run holding such a page is single frees that happen to
    /// be adjacent (pipe buffers, slab pages), not a vfree.
    /// The owner holding the page at `pfn` (`NO_OWNER` when none, or outside the node).
    fn owner_of(&mut self, pfn: u64) -> u32 {
        self.enter_zone_of(pfn);
        let z = self.e.zone();
        let start = z.cfg.start_pfn;
        if pfn < start || pfn >= start + z.pages() as u64 {
            return NO_OWNER;
        }
        let q = (pfn - start) as usize;
        if z.mem_map[q].kind == PageKind::Pcp {
            return NO_OWNER; // a pcp page's owner field is its CPU
        }
        z.mem_map[q].owner
    }

    fn traced_single_page(&mut self, pfn: u64) -> bool {
        self.enter_zone_of(pfn);
        let start = self.e.zone().cfg.start_pfn;
        pfn >= start && self.zs_ref().single.get((pfn - start) as usize) == Some(&true)
    }

    /// `mm_page_free` of a gigantic folio (order above MAX_PAGE_ORDER): `__free_pages_ok` →
    /// `free_one_page` → `split_large_buddy`, which frees it in pageblock_order chunks, each
    /// with its own pageblock's migratetype, and `__free_one_page` merges them up to
    /// MAX_PAGE_ORDER (v7.2.13 mm/page_alloc.c:1510-1586). Never through the pcp.
    ///
    /// The buddy never hands out such a block: it came from `alloc_contig_pages` /
    /// `alloc_contig_frozen_range`, whose takes (`isolate_freepages_range`) trace nothing in
    /// kmem. Pages of the folio the model still has free are therefore taken as that untraced
    /// allocation took them (pcp blocks first, as its `drain_all_pages`), before the free.
    fn free_gigantic(&mut self, p: u32, order: u8) -> String {
        let (first, end) = (p, p + (1u32 << order));
        let pfn = self.abs(p);
        let mut took = 0u64;
        let mut q = first;
        while q < end {
            match self.e.free_block_containing(q) {
                Some((head, o, true)) => {
                    self.pcp_del(Step::PcplistTakeFront, head);
                    took += 1 << o;
                    q = head + (1 << o);
                }
                Some((head, o, false)) => {
                    let mt = self.e.zone().list_mt_of(head);
                    self.e
                        .del_from_free_list(Step::AllocContigTake, head, o, mt);
                    self.e
                        .account_freepages(Step::AllocContigTake, -(1i64 << o), mt);
                    took += 1 << o;
                    q = head + (1 << o);
                }
                None => q += 1,
            }
        }
        // The folio is the caller's: each page given back by its own put (the undo restores
        // every page's owner and count).
        for q in first..end {
            if self.e.zone().mem_map[q as usize].refcount != 0 {
                self.e.put_page(q, 0);
            }
        }
        self.trace(
            Step::TraceMmPageFree,
            Tracepoint::MmPageFree { pfn: p, order },
        );
        self.e.free_one_page(p, order, FPI_NONE);
        let untraced = if took > 0 {
            format!(" ({took} of its pages free in the model: taken by the untraced alloc_contig_range first)")
        } else {
            String::new()
        };
        format!(
            "order-{order} folio at pfn {pfn:#x} freed to the buddy in pageblock chunks{untraced}"
        )
    }

    fn zone_locked(
        &mut self,
        pfn: u64,
        order: u8,
        mt: MigrateType,
        percpu_refill: bool,
        cpu: usize,
    ) -> String {
        let Some(p) = self.block(pfn, order) else {
            return "skipped".into();
        };
        self.check_list(p, mt, "__rmqueue_smallest");
        if self.take_from_buddy(Step::SmallestTake, p, order).is_none() {
            self.not_free(p, order, "mm_page_alloc_zone_locked");
            return "diverged".into();
        }
        self.trace(
            Step::TraceZoneLocked,
            Tracepoint::MmPageAllocZoneLocked {
                pfn: p,
                order,
                mt,
                percpu_refill,
            },
        );
        // rmqueue_bulk's CMA blocks: __rmqueue_smallest traces them with percpu_refill=0 (CMA is
        // not a pcp migratetype) but rmqueue_bulk puts them on the Movable pcp list with the
        // rest of the batch. (A pcp-order CMA take for the caller, a failed pcp trylock, then
        // waits on the pcp for its mm_page_alloc, which takes it from there all the same.)
        let cma_refill = !percpu_refill && mt == MigrateType::Cma && pcp_allowed_order(order);
        let to = if percpu_refill || cma_refill {
            let list_mt = if cma_refill { MigrateType::Movable } else { mt };
            self.pcp_add(Step::BulkAddTail, cpu, p, order, list_mt, End::Tail);
            self.zs().origin[p as usize] = ORIGIN_REFILL;
            "to the pcp"
        } else {
            self.zs().in_flight.insert(p, order);
            "to the caller"
        };
        format!("order-{order} block at pfn {pfn:#x} taken from the buddy {to}")
    }

    fn drain(&mut self, pfn: u64, order: u8, mt: u8, _cpu: usize) -> String {
        let Some(p) = self.block(pfn, order) else {
            return "skipped".into();
        };
        if !self.take_pcp(Step::BulkFreeTakeTail, p, order) {
            self.diverge(
                DivergenceKind::DrainNotOnPcp,
                format!("order-{order} block at pfn {pfn:#x} is on no pcp list in the model"),
            );
            return "diverged".into();
        }
        let pb_mt = self.e.zone().pageblock_mt(p);
        if pb_mt.kernel_number(self.e.zone().cfg.cma) != mt as u32 {
            self.diverge(
                DivergenceKind::DrainMigratetype,
                format!(
                    "drain of pfn {pfn:#x} as migratetype {mt}, the model's pageblock is {}",
                    pb_mt.kernel_name()
                ),
            );
        }
        self.e.__free_one_page(p, order, pb_mt, FPI_NONE);
        self.trace(
            Step::TracePcpuDrain,
            Tracepoint::MmPagePcpuDrain {
                pfn: p,
                order,
                mt: pb_mt,
            },
        );
        format!("order-{order} block at pfn {pfn:#x} drained to the buddy")
    }

    /// `try_to_claim_block` for a partial pageblock: its free blocks move to `to`, the
    /// pageblock is re-typed.
    fn partial_claim(&mut self, p: u32, alloc_order: u8, to: MigrateType, from: MigrateType) {
        self.check_fallback(alloc_order, to);
        let start = p & !(PAGEBLOCK_NR_PAGES - 1);
        let end = (start + PAGEBLOCK_NR_PAGES).min(self.e.zone().pages());
        let (free, movable) = self.e.count_free_and_movable(start, end);
        self.e
            .__move_freepages_block(Step::ClaimMoveFree, start, end, from, to);
        self.e
            .set_pageblock_migratetype(Step::ClaimPartialRetype, start >> PAGEBLOCK_ORDER, to);
        self.e.emit(
            Step::ClaimPartialRetype,
            Annotation::Claimed {
                pfn: start,
                order: PAGEBLOCK_ORDER,
                from,
                to,
                pageblocks: 1,
                free,
                alike: if to == MigrateType::Movable {
                    movable
                } else {
                    0
                },
            },
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn extfrag(
        &mut self,
        pfn: u64,
        alloc_order: u8,
        fallback_order: u8,
        alloc_mt: MigrateType,
        fallback_mt: MigrateType,
        change_ownership: bool,
        cpu: usize,
    ) -> String {
        let t = |p| Tracepoint::MmPageAllocExtfrag {
            pfn: p,
            alloc_order,
            fallback_order,
            alloc_mt,
            fallback_mt,
            change_ownership,
        };
        let Some(p) = self.block(pfn, alloc_order) else {
            return "skipped".into();
        };
        if self.zs().pre_claimed.take() == Some(p) {
            self.trace(Step::TraceExtfrag, t(p));
            return format!(
                "pageblock at pfn {pfn:#x} claimed {} → {}",
                fallback_mt.kernel_name(),
                alloc_mt.kernel_name()
            );
        }
        self.check_fallback(alloc_order, alloc_mt);
        if change_ownership && fallback_order >= PAGEBLOCK_ORDER {
            // Whole pageblock(s): the block leaves its list, is re-typed, then expanded.
            if self.block(pfn, fallback_order).is_none() {
                return "skipped".into();
            }
            self.check_list(p, fallback_mt, "claim");
            let Some(from) = self.take_from_buddy(Step::ClaimWholeDel, p, fallback_order) else {
                self.not_free(p, fallback_order, "mm_page_alloc_extfrag");
                return "diverged".into();
            };
            let first = p >> PAGEBLOCK_ORDER;
            let n = 1u32 << (fallback_order - PAGEBLOCK_ORDER);
            for pb in first..(first + n).min(self.e.zone().nr_pageblocks()) {
                self.e
                    .set_pageblock_migratetype(Step::ClaimWholeRetype, pb, alloc_mt);
            }
            self.e.emit(
                Step::ClaimWholeRetype,
                Annotation::Claimed {
                    pfn: p,
                    order: fallback_order,
                    from,
                    to: alloc_mt,
                    pageblocks: n,
                    free: 1 << fallback_order,
                    alike: 0,
                },
            );
            let added = self.e.expand(p, alloc_order, fallback_order, alloc_mt);
            self.e
                .account_freepages(Step::ExpandAccount, added as i64, alloc_mt);
            self.trace(Step::TraceExtfrag, t(p));
            let to = self.deliver(p, alloc_order, alloc_mt, cpu);
            return format!(
                "{} whole pageblock(s) at pfn {pfn:#x} claimed {} → {}, order-{alloc_order} block {to}",
                n,
                from.kernel_name(),
                alloc_mt.kernel_name()
            );
        }
        if change_ownership {
            // A partial claim without its zone_locked line: claim, then take.
            self.partial_claim(p, alloc_order, alloc_mt, fallback_mt);
            self.zs().pre_claimed = None;
            if self
                .take_from_buddy(Step::SmallestTake, p, alloc_order)
                .is_none()
            {
                self.not_free(p, alloc_order, "mm_page_alloc_extfrag");
                return "diverged".into();
            }
            self.trace(Step::TraceExtfrag, t(p));
            let to = self.deliver(p, alloc_order, alloc_mt, cpu);
            return format!("pageblock at pfn {pfn:#x} claimed, order-{alloc_order} block {to}");
        }
        // Steal: the remainder stays on the foreign type's lists.
        self.check_list(p, fallback_mt, "steal");
        let Some(from) = self.take_from_buddy(Step::StealTake, p, alloc_order) else {
            self.not_free(p, alloc_order, "mm_page_alloc_extfrag");
            return "diverged".into();
        };
        self.e.emit(
            Step::StealTake,
            Annotation::Stolen {
                pfn: p,
                order: fallback_order,
                alloc_order,
                from,
            },
        );
        self.trace(Step::StealTraceExtfrag, t(p));
        let to = self.deliver(p, alloc_order, alloc_mt, cpu);
        format!(
            "order-{alloc_order} block at pfn {pfn:#x} stolen from {}, {to}",
            from.kernel_name()
        )
    }

    /// An `FPI_PREPARED` chunk: its pages were traced (and placed on the pcp) as order 0;
    /// they go back as one block, the way `__free_frozen_pages` frees the chunk.
    fn chunk(&mut self, pfn: u64, order: u8, cpu: usize) -> String {
        let Some(p) = self.block(pfn, order) else {
            return "skipped".into();
        };
        if self.e.zone().pageblock_mt(p) == MigrateType::Isolate
            && (p..p + (1u32 << order)).all(|q| {
                matches!(self.e.zone().block_containing(q), Some((h, _, false)) if self.e.zone().list_mt_of(h) == MigrateType::Isolate)
            })
        {
            // An isolated pageblock: each traced mm_page_free already went to the Isolate
            // lists through free_one_page, where the chunk's pages merged as the chunk would.
            return format!("chunk pfn {pfn:#x} order {order}: already on the Isolate lists");
        }
        let pieces = if order == 0 {
            (self.on_pcp(p, 0) && self.zs_ref().origin[p as usize] == ORIGIN_FREED).then(|| vec![p])
        } else {
            self.freed_pieces(p, order)
        };
        let Some(pieces) = pieces else {
            self.diverge(
                DivergenceKind::FreeOfFree,
                format!(
                    "chunk pfn {pfn:#x} order {order}: its pages were not all just freed by mm_page_free"
                ),
            );
            return "diverged".into();
        };
        for q in pieces {
            self.pcp_del(Step::ContigChunk, q);
        }
        self.e
            .emit(Step::ContigChunk, Annotation::Chunk { pfn: p, order });
        let mut mt = self.e.zone().pageblock_mt(p);
        if pcp_allowed_order(order) && mt != MigrateType::Isolate {
            if mt.idx() >= MIGRATE_PCPTYPES {
                mt = MigrateType::Movable;
            }
            self.pcp_add(Step::CommitAddHead, cpu, p, order, mt, End::Head);
            self.zs().origin[p as usize] = ORIGIN_FREED;
            format!("chunk pfn {pfn:#x} order {order} to the pcp")
        } else {
            self.e.free_one_page(p, order, FPI_NONE);
            format!("chunk pfn {pfn:#x} order {order} to the buddy")
        }
    }

    /// `set_migratetype_isolate` / `unset_migratetype_isolate` of the pageblock at `pfn`, as
    /// the engine does them (free blocks to or from the Isolate lists, `split_large_buddy`).
    fn isolate(&mut self, pfn: u64, isolate: bool) -> String {
        self.enter_zone_of(pfn);
        let z = self.e.zone();
        let start = z.cfg.start_pfn;
        if pfn < start || pfn >= start + z.pages() as u64 {
            self.diverge(
                DivergenceKind::PfnOutsideZone,
                format!("pageblock at pfn {pfn:#x} is outside the zone"),
            );
            return "skipped".into();
        }
        let pb = ((pfn - start) as u32) >> PAGEBLOCK_ORDER;
        if isolate {
            self.e.replay_isolate_pageblock(pb);
            format!("pageblock at pfn {pfn:#x} isolated")
        } else {
            self.e.replay_unisolate_pageblock(pb);
            format!("pageblock at pfn {pfn:#x} no longer isolated")
        }
    }

    /// An `mm_compaction_*` line, in the zone it names (by pfn, or by name): the tracepoint
    /// again, and for `mm_compaction_isolate_freepages` the free blocks taken off the buddy
    /// (`__isolate_free_page` traces no `mm_page_alloc`). What compaction does with them shows
    /// in the lines that follow: the migrated sources' `mm_page_free`, the unused blocks'
    /// `mm_page_free` from `release_free_list`, a captured block's `mm_page_alloc`.
    fn compaction(&mut self, c: CompactionLine, pid: Option<u32>) -> String {
        // A line of a zone the node does not have, or a pfn outside its zone: a divergence,
        // the line is not applied.
        let outside = |r: &mut Replayer, what: String| {
            r.diverge(DivergenceKind::PfnOutsideZone, what);
            "skipped".to_string()
        };
        // The zone a line names by `zone_idx` (entered), or the divergence's text.
        let by_name = |r: &mut Replayer, zone: u8, line: &str| -> Result<(), String> {
            let i = (0..r.e.node().nr_zones())
                .find(|&i| r.e.node().zone(i).zone_type().idx() == zone as usize);
            match i {
                Some(i) => {
                    r.enter_zone(i);
                    Ok(())
                }
                None => Err(outside(
                    r,
                    format!(
                        "{line} names zone {}, which the node does not have",
                        ZoneType::ALL[zone as usize].name()
                    ),
                )),
            }
        };
        // Zone pfns of absolute ones in the zone of the first (entered).
        let rel = |r: &mut Replayer, pfns: &[u64]| -> Option<Vec<ZonePfn>> {
            r.enter_zone_of(pfns[0]);
            let z = r.e.zone();
            let (start, end) = (z.cfg.start_pfn, z.cfg.start_pfn + z.pages() as u64);
            pfns.iter()
                .map(|&p| (start..=end).contains(&p).then(|| (p - start) as ZonePfn))
                .collect()
        };
        match c {
            CompactionLine::Begin {
                zone_start,
                migrate_pfn,
                free_pfn,
                zone_end,
                sync,
            } => {
                let Some(v) = rel(self, &[zone_start, migrate_pfn, free_pfn, zone_end]) else {
                    return outside(self, format!("mm_compaction_begin of zone {zone_start:#x} ~ {zone_end:#x} is not a zone of the node"));
                };
                self.compacting.insert(pid);
                // compact_zone_order sets search_order to the order, fast_search_fail to 0.
                let cc = self.compact_cc.entry(pid).or_default();
                *cc = TracedCompactControl {
                    order: cc.order,
                    direct: cc.direct,
                    migrate_pfn,
                    free_pfn,
                    zone_end,
                    ..Default::default()
                };
                self.trace(
                    Step::CompactBegin,
                    Tracepoint::MmCompactionBegin {
                        migrate_pfn: v[1],
                        free_pfn: v[2],
                        sync,
                    },
                );
                format!("compact_zone begins: migrate scanner at {migrate_pfn:#x}, free scanner at {free_pfn:#x}")
            }
            CompactionLine::End {
                zone_start,
                migrate_pfn,
                free_pfn,
                zone_end,
                sync,
                status,
            } => {
                let Some(v) = rel(self, &[zone_start, migrate_pfn, free_pfn, zone_end]) else {
                    return outside(self, format!("mm_compaction_end of zone {zone_start:#x} ~ {zone_end:#x} is not a zone of the node"));
                };
                self.compacting.remove(&pid);
                if let Some(d) = self.direct_compact.get_mut(&pid) {
                    d.rc = d.rc.max(status);
                    d.reset_follows_zone_success = status == CompactResult::Success;
                }
                let daemon = match pid {
                    Some(p) => self.kcompactd.contains(&p),
                    None => self.kcompactd_do_work,
                };
                if daemon || pid.is_none() {
                    let (m, f) = self.daemon_scanned.remove(&pid).unwrap_or_default();
                    if daemon {
                        self.e.replay_kcompactd_scanned(m, f);
                    }
                }
                self.trace(
                    Step::CompactEnd,
                    Tracepoint::MmCompactionEnd {
                        migrate_pfn: v[1],
                        free_pfn: v[2],
                        sync,
                        status,
                    },
                );
                format!("compact_zone ends: {}", status.as_str())
            }
            CompactionLine::IsolateMigratepages {
                start,
                end,
                nr_scanned,
                nr_taken,
            } => {
                let Some(v) = rel(self, &[start, end]) else {
                    return outside(self, format!("mm_compaction_isolate_migratepages range {start:#x} ~ {end:#x} is outside the zone"));
                };
                self.fast_find_migrateblock(pid, start);
                self.daemon_scan(pid, nr_scanned, 0);
                if let Some(cc) = self.compact_cc.get_mut(&pid) {
                    cc.migrate_pfn = end;
                    cc.nr_migratepages = nr_taken;
                }
                self.trace(
                    Step::IsolateMigrateBlock,
                    Tracepoint::MmCompactionIsolateMigratepages {
                        start: v[0],
                        end: v[1],
                        nr_scanned: nr_scanned as u16,
                        nr_taken: nr_taken as u16,
                    },
                );
                format!("{nr_taken} pages isolated for migration in {start:#x} ~ {end:#x}")
            }
            CompactionLine::IsolateFreepages {
                start,
                end,
                nr_scanned,
                nr_taken,
            } => {
                let Some(v) = rel(self, &[start, end]) else {
                    return outside(self, format!("mm_compaction_isolate_freepages range {start:#x} ~ {end:#x} is outside the zone"));
                };
                // alloc_contig_range's isolate_freepages_range traces the same line for the
                // range it takes (replayed from its own lines); only compact_zone's free
                // scanner takes targets here.
                let tp = Tracepoint::MmCompactionIsolateFreepages {
                    start: v[0],
                    end: v[1],
                    nr_scanned: nr_scanned as u16,
                    nr_taken: nr_taken as u16,
                };
                if !self.compacting.contains(&pid) {
                    self.trace(Step::IsolateFreeTrace, tp);
                    return format!(
                        "isolate_freepages_range: {nr_taken} pages in {start:#x} ~ {end:#x}"
                    );
                }
                let owner = self.rec.owners.len() as u32;
                self.rec.owners.push(OwnerInfo {
                    def: DEF_COMPACTION,
                    mt: MigrateType::Movable,
                    seq: 0,
                });
                let (_, taken) = self
                    .e
                    .replay_isolate_freepages_block(v[0], v[1], nr_scanned, nr_taken, owner);
                if let Some(cc) = self.compact_cc.get_mut(&pid) {
                    cc.free_pfn = end;
                }
                self.daemon_scan(pid, 0, nr_scanned);
                self.trace(Step::IsolateFreeTrace, tp);
                if taken != nr_taken {
                    self.diverge(
                        DivergenceKind::NotFreeInBuddy,
                        format!("isolate_freepages_block took {nr_taken} free pages in {start:#x} ~ {end:#x}, the model's walk of the range took {taken}"),
                    );
                }
                format!("{taken} free pages in {start:#x} ~ {end:#x} isolated as migration targets")
            }
            CompactionLine::FastIsolateFreepages {
                min_pfn,
                free_pfn,
                nr_scanned,
                nr_taken,
            } => {
                self.daemon_scan(pid, 0, nr_scanned);
                self.fast_isolate_freepages(pid, min_pfn, free_pfn, nr_scanned, nr_taken)
            }
            CompactionLine::Migratepages {
                nr_migrated,
                nr_failed,
            } => {
                self.trace(
                    Step::CompactMigrated,
                    Tracepoint::MmCompactionMigratepages {
                        nr_migrated: nr_migrated as u32,
                        nr_failed: nr_failed as u32,
                    },
                );
                format!("{nr_migrated} pages migrated, {nr_failed} failed")
            }
            CompactionLine::TryToCompactPages { order, gfp, prio } => {
                self.end_direct_compact(pid);
                self.direct_compact.insert(
                    pid,
                    DirectCompact {
                        rc: CompactResult::Skipped,
                        reset_follows_zone_success: true,
                        zone_reset: false,
                        page_reset: false,
                    },
                );
                let movable = self.e.gfp_migratetype(gfp) == MigrateType::Movable;
                let cc = self.compact_cc.entry(pid).or_default();
                cc.order = Some(order);
                cc.direct = Some((prio, movable));
                self.trace(
                    Step::TryToCompactPages,
                    Tracepoint::MmCompactionTryToCompactPages { order, gfp, prio },
                );
                format!("direct compaction for order {order} at priority {prio}")
            }
            CompactionLine::Suitable { zone, order, ret } => {
                if let Err(skipped) = by_name(self, zone, "mm_compaction_suitable") {
                    return skipped;
                }
                if let Some(d) = self.direct_compact.get_mut(&pid) {
                    // A zone compaction_suitable skips (or one that goes on to its lines).
                    d.rc = d.rc.max(CompactResult::Skipped);
                    d.reset_follows_zone_success = false;
                }
                self.trace(
                    Step::CompactSuitable,
                    Tracepoint::MmCompactionSuitable {
                        zone_type: zone,
                        order,
                        ret,
                    },
                );
                format!("compaction_suitable for order {order}: {}", ret.as_str())
            }
            CompactionLine::Finished { zone, order, ret } => {
                if let Err(skipped) = by_name(self, zone, "mm_compaction_finished") {
                    return skipped;
                }
                let cc = self.compact_cc.entry(pid).or_default();
                cc.order = (order > 0).then_some(order as u8);
                self.trace(
                    Step::CompactFinished,
                    Tracepoint::MmCompactionFinished {
                        zone_type: zone,
                        order,
                        ret,
                    },
                );
                format!("compact_finished: {}", ret.as_str())
            }
            CompactionLine::KcompactdWake { point, order, zone } => {
                let tp = Tracepoint::MmCompactionKcompactdWake {
                    point,
                    order,
                    zone_type: zone,
                };
                if point == KcompactdWakePoint::WakeupKcompactd {
                    // kswapd's (or the proactiveness sysctl's) wakeup: no page state.
                    self.trace(Step::WakeupKcompactdTrace, tp);
                    return format!("wakeup_kcompactd: kcompactd woken for order {order}");
                }
                self.trace(Step::KcompactdWake, tp);
                self.e.replay_kcompactd_wake();
                self.kcompactd_thread(pid);
                if pid.is_none() {
                    self.kcompactd_do_work = true;
                }
                format!("kcompactd_do_work for order {order} (compact_daemon_wake)")
            }
            // The slow path's retry decisions (include/trace/events/oom.h): they change no
            // state; the replay keeps them in its trace.
            CompactionLine::CompactRetry {
                order,
                prio,
                feedback,
                retries,
                max_retries,
                ret,
            } => {
                self.trace(
                    Step::ShouldCompactRetry,
                    Tracepoint::CompactRetry {
                        order,
                        prio,
                        feedback,
                        retries,
                        max_retries,
                        ret,
                    },
                );
                format!(
                    "should_compact_retry for order {order} after a compaction that {}: {}",
                    match feedback {
                        CompactFeedback::Failed => "failed",
                        CompactFeedback::Withdrawn => "withdrew",
                        CompactFeedback::Progress => "made progress",
                    },
                    if ret { "retry" } else { "no retry" }
                )
            }
            CompactionLine::ReclaimRetryZone {
                zone,
                reclaimable,
                available,
                check,
            } => {
                // The line's zone is the event's.
                if let Err(skipped) = by_name(self, zone, "reclaim_retry_zone") {
                    return skipped;
                }
                self.trace(
                    Step::ShouldReclaimRetry,
                    Tracepoint::ReclaimRetryZone {
                        reclaimable,
                        available,
                        check,
                    },
                );
                format!(
                    "should_reclaim_retry: order-{} watermark with {available} available pages {}",
                    { check.order },
                    if check.wmark_check {
                        "holds: retry"
                    } else {
                        "fails"
                    }
                )
            }
            CompactionLine::KcompactdSleep { nid } => {
                self.trace(
                    Step::KcompactdSleep,
                    Tracepoint::MmCompactionKcompactdSleep { nid },
                );
                self.kcompactd_thread(pid);
                self.kcompactd_do_work = false;
                "kcompactd goes back to sleep".to_string()
            }
            CompactionLine::Defer {
                point,
                zone,
                order,
                state,
            } => {
                if let Err(skipped) = by_name(self, zone, point.tracepoint()) {
                    return skipped;
                }
                let step = match point {
                    DeferPoint::Deferred => Step::CompactionDeferred,
                    DeferPoint::DeferCompaction => Step::DeferCompaction,
                    DeferPoint::DeferReset => Step::CompactDeferReset,
                };
                if let Some(d) = self.direct_compact.get_mut(&pid) {
                    match point {
                        DeferPoint::Deferred => {
                            d.rc = d.rc.max(CompactResult::Deferred);
                            d.reset_follows_zone_success = false;
                        }
                        DeferPoint::DeferReset
                            if !d.zone_reset && !d.page_reset && d.reset_follows_zone_success =>
                        {
                            d.zone_reset = true;
                            d.rc = CompactResult::Success;
                            d.reset_follows_zone_success = false;
                        }
                        DeferPoint::DeferReset => d.page_reset = true,
                        DeferPoint::DeferCompaction => {}
                    }
                }
                // The zone's deferral state is what the line prints.
                self.e.replay_set_compact_defer(step, state);
                self.trace(
                    step,
                    Tracepoint::MmCompactionDefer {
                        point,
                        zone_type: zone,
                        order,
                        state,
                    },
                );
                format!("{}: order {order}", point.tracepoint())
            }
        }
    }

    /// The end of a task's `__alloc_pages_direct_compact` (v7.3.4 mm/page_alloc.c:4155-4245;
    /// v6.12.117 :3750-3803), counted as the kernel does: nothing when `try_to_compact_pages`
    /// was skipped in every zone (7.2+: or deferred), else `COMPACTSTALL`, then
    /// `COMPACTSUCCESS` when the page was captured or allocated (its
    /// `compaction_defer_reset(zone, order, true)` line), `COMPACTFAIL` otherwise. The lines say
    /// the result: a zone's `mm_compaction_end` status, `mm_compaction_deferred`, a
    /// `mm_compaction_suitable` that skipped it; a `compaction_defer_reset` right after
    /// `try_to_compact_pages` or after a zone's `success` end is the zone's (`COMPACT_SUCCESS`,
    /// the loop stops), any other is the allocation's. (One ambiguity is read as the likelier:
    /// a later zone whose watermark already held, with no line but that reset, and the
    /// allocation failing after it, would be read as an allocation that succeeded.)
    fn end_direct_compact(&mut self, pid: Option<u32>) {
        let Some(d) = self.direct_compact.remove(&pid) else {
            return;
        };
        let gives_up = d.rc == CompactResult::Skipped
            || (d.rc == CompactResult::Deferred
                && self
                    .e
                    .zone()
                    .cfg
                    .kernel
                    .direct_compact_deferred_is_skipped());
        if !gives_up {
            self.e.replay_direct_compact_counted(d.page_reset);
        }
    }

    /// Pages a compaction's scanner line says it scanned (`nr_scanned`), kept for the task
    /// until it is known whether it is kcompactd (`compact_daemon_*_scanned`).
    fn daemon_scan(&mut self, pid: Option<u32>, migrate: u64, free: u64) {
        if self.compacting.contains(&pid) {
            let d = self.daemon_scanned.entry(pid).or_default();
            d.0 += migrate;
            d.1 += free;
        }
    }

    /// The task of a `mm_compaction_kcompactd_wake` or `_sleep` line is a kcompactd thread:
    /// the compactions it ran before are counted as the daemon's now.
    fn kcompactd_thread(&mut self, pid: Option<u32>) {
        let Some(p) = pid else { return };
        if self.kcompactd.insert(p) && !self.compacting.contains(&pid) {
            if let Some((m, f)) = self.daemon_scanned.remove(&pid) {
                self.e.replay_kcompactd_scanned(m, f);
            }
        }
    }

    /// An `mm_compaction_fast_isolate_freepages` line: the search is run on the model's free
    /// lists with the task's `compact_control` as its lines show it (the window's `min_pfn`
    /// checks the migrate scanner's position); the fields no line shows (`fast_search_fail`,
    /// which `fast_find_migrateblock` also moves, the search order, whether the scan was
    /// starting) are tried in turn until the search scans and takes what the line says. The
    /// block it takes leaves the buddy (no `mm_page_alloc` shows it).
    fn fast_isolate_freepages(
        &mut self,
        pid: Option<u32>,
        min_pfn: u64,
        free_pfn: u64,
        nr_scanned: u64,
        nr_taken: u64,
    ) -> String {
        self.enter_zone_of(free_pfn);
        let z = self.e.zone();
        let (start, end) = (z.cfg.start_pfn, z.cfg.start_pfn + z.pages() as u64);
        // Bit 63: the window wrapped (the free scanner below the migration scanner).
        let wrapped = min_pfn >> 63 != 0;
        let low_min = min_pfn & !(1 << 63);
        if !(start..=end).contains(&low_min) || !(start..=end).contains(&free_pfn) {
            self.diverge(
                DivergenceKind::PfnOutsideZone,
                format!("mm_compaction_fast_isolate_freepages range {min_pfn:#x} ~ {free_pfn:#x} is outside the zone"),
            );
            return "skipped".into();
        }
        let tp = Tracepoint::MmCompactionFastIsolateFreepages {
            start: (low_min - start) as ZonePfn,
            end: (free_pfn - start) as ZonePfn,
            nr_scanned: nr_scanned as u16,
            nr_taken: nr_taken as u16,
            wrapped,
        };
        let cc = self.compact_cc.get(&pid).copied().unwrap_or_default();
        let pb = PAGEBLOCK_NR_PAGES as u64;
        // The migrate scanner as traced, unless the window says otherwise: min_pfn is
        // pageblock_start_pfn(free_pfn - distance / 2), so twice the window is a distance
        // that gives it.
        let min_of =
            |migrate: u64| free_pfn.wrapping_sub(free_pfn.wrapping_sub(migrate) / 2) & !(pb - 1);
        let migrate_pfns = [
            cc.migrate_pfn,
            free_pfn.wrapping_sub(free_pfn.wrapping_sub(min_pfn).wrapping_mul(2)),
        ];
        // The order taken is below cc->order: with no order traced, every order above it.
        let taken_order = (nr_taken > 0).then(|| nr_taken.trailing_zeros() as u8);
        let orders: Vec<u8> = match cc.order {
            Some(o) => vec![o],
            None => (taken_order.map_or(1, |t| t + 1)..NR_PAGE_ORDERS as u8).collect(),
        };
        let init_free_pfn = cc.zone_end.saturating_sub(1) & !(pb - 1);
        let mut candidates = Vec::new();
        for &migrate_pfn in migrate_pfns.iter().filter(|&&m| min_of(m) == min_pfn) {
            for &order in &orders {
                let first = cc.search_order.unwrap_or(i32::from(order));
                let search_orders = std::iter::once(first)
                    .chain((0..i32::from(order)).rev().filter(|&s| s != first));
                for search_order in search_orders {
                    let fails = std::iter::once(cc.fast_search_fail)
                        .chain((0..=6).filter(|&f| f != cc.fast_search_fail));
                    for fast_search_fail in fails {
                        let starts = [free_pfn >= init_free_pfn, free_pfn < init_free_pfn];
                        for scan_start in starts {
                            candidates.push(FastSearch {
                                order,
                                search_order,
                                fast_search_fail,
                                scan_start,
                                free_pfn,
                                migrate_pfn,
                                nr_freepages: 0,
                                nr_migratepages: cc.nr_migratepages as u32,
                            });
                        }
                    }
                }
            }
        }
        let owner = self.rec.owners.len() as u32;
        self.rec.owners.push(OwnerInfo {
            def: DEF_COMPACTION,
            mt: MigrateType::Movable,
            seq: 0,
        });
        let found = self
            .e
            .replay_fast_isolate_freepages(&candidates, nr_scanned, nr_taken, owner);
        self.trace(Step::FastIsolateTrace, tp);
        let Some((fs, found)) = found else {
            self.diverge(
                DivergenceKind::NotFreeInBuddy,
                format!("fast_isolate_freepages scanned {nr_scanned} and took {nr_taken} pages in {min_pfn:#x} ~ {free_pfn:#x}: no search of the model's free lists does"),
            );
            return "not reproduced".into();
        };
        if let Some(cc) = self.compact_cc.get_mut(&pid) {
            cc.free_pfn = free_pfn;
            cc.search_order = Some(found.search_order);
            cc.fast_search_fail = if found.page.is_none() {
                found.fast_search_fail + 1
            } else {
                found.fast_search_fail
            };
            cc.order = Some(fs.order);
        }
        match found.taken {
            Some((p, order)) => format!(
                "fast_isolate_freepages took the order-{order} block at {:#x} (the search scanned {nr_scanned} in {min_pfn:#x} ~ {free_pfn:#x})",
                p as u64 + start
            ),
            None => format!("fast_isolate_freepages took nothing in {min_pfn:#x} ~ {free_pfn:#x}"),
        }
    }

    /// Before an `mm_compaction_isolate_migratepages` line at `start`: `isolate_migratepages`
    /// first ran `fast_find_migrateblock` (v7.3.4 mm/compaction.c:1969-2083), which has no line
    /// of its own but turns the free lists it looks at (`move_freelist_tail`), so a later fast
    /// search finds them as the kernel did. Whether it searches, its `limit` and `high_pfn` are
    /// the engine's ([`fast_find_migrateblock_runs`], [`fast_find_migrateblock_window`]) with
    /// the task's `compact_control` as its lines show it: `finish_pageblock`, which no line
    /// shows, is set only in the zone's first pageblock (`last_migrated_pfn` is 0 there or in
    /// that pageblock) or inside a pageblock, where the search does not run anyway. Its walk is
    /// the engine's; the skip bits it reads are not in the replayed model, so they are read
    /// from where the line starts: a block of the pageblock the line scans is the one found, a
    /// block elsewhere below `high_pfn` was passed over as skipped (a start inside a pageblock
    /// is `reinit_migrate_pfn`'s restart: nothing was found).
    fn fast_find_migrateblock(&mut self, pid: Option<u32>, start: u64) {
        let Some(cc) = self.compact_cc.get(&pid).copied() else {
            return;
        };
        let Some(order) = cc.order else {
            return;
        };
        let pb = PAGEBLOCK_NR_PAGES as u64;
        let zone_start = self.e.zone().cfg.start_pfn;
        let migrate = cc.migrate_pfn;
        // COMPACT_PRIO_SYNC_FULL ignores the skip hints.
        let sync_full = matches!(cc.direct, Some((0, _)));
        let direct_not_movable = matches!(cc.direct, Some((_, false)));
        let kernel = self.e.zone().cfg.kernel;
        if !fast_find_migrateblock_runs(
            kernel,
            order,
            sync_full || migrate < pb,
            migrate,
            zone_start,
            direct_not_movable,
        ) {
            return;
        }
        let (limit, high_pfn) =
            fast_find_migrateblock_window(cc.fast_search_fail, migrate, cc.free_pfn, zone_start);
        // A block found puts the scanner at its pageblock's start (:2062-2064); a start inside
        // a pageblock is reinit_migrate_pfn's restart at the lowest block found before
        // (`fast_start_pfn`, :1953-1962, :2079-2082): nothing was found then.
        let target = (start == zone_start || start.is_multiple_of(pb)).then_some(start & !(pb - 1));
        let skipped = move |z: &Zone, p: ZonePfn| Some(z.abs_pfn(p) & !(pb - 1)) != target;
        let found = self
            .e
            .fast_find_migrateblock_walk(order, limit, high_pfn, &skipped);
        if let Some(cc) = self.compact_cc.get_mut(&pid) {
            cc.fast_search_fail = if found.is_some() {
                0
            } else {
                cc.fast_search_fail + 1
            };
        }
    }

    /// `alloc_contig_range`: every page of the range leaves the buddy (the parts of
    /// overlapping blocks outside the range stay free), then the range is allocated.
    fn contig_alloc(&mut self, pfn: u64, nr: u64) -> String {
        self.enter_zone_of(pfn);
        let z = self.e.zone();
        let start = z.cfg.start_pfn;
        if nr == 0 || pfn < start || pfn + nr > start + z.pages() as u64 {
            self.diverge(
                DivergenceKind::PfnOutsideZone,
                format!("alloc_contig_range of {nr} pages from pfn {pfn:#x} leaves the zone"),
            );
            return "skipped".into();
        }
        let (first, end) = ((pfn - start) as u32, (pfn - start + nr) as u32);
        if self.e.zone().pageblock_mt(first) == MigrateType::Isolate {
            // The engine's own trace: the range was isolated (hints above), so
            // isolate_freepages_range takes the free blocks from find_large_buddy(first) on;
            // the head and tail come back as traced frees.
            self.e.replay_take_isolated(first, end);
            self.own_contig_range(first, nr as u32);
            return format!(
                "{nr} isolated pages from pfn {pfn:#x} allocated by alloc_contig_range"
            );
        }
        // As alloc_contig_range takes the range: whole blocks off their lists, the parts of
        // overlapping blocks outside the range back as aligned chunks at the list tails.
        let mut q = first;
        while q < end {
            let Some((head, o, false)) = self.e.free_block_containing(q) else {
                self.diverge(
                    DivergenceKind::AllocOfAllocated,
                    format!(
                        "alloc_contig_range: page {:#x} is not free in the buddy in the model",
                        self.abs(q)
                    ),
                );
                q += 1;
                continue;
            };
            let mt = self.e.zone().list_mt_of(head);
            self.e
                .del_from_free_list(Step::AllocContigTake, head, o, mt);
            self.e
                .account_freepages(Step::AllocContigTake, -(1i64 << o), mt);
            let bend = head + (1 << o);
            let outside = [
                (head, first.max(head).min(bend)),
                (end.min(bend).max(head), bend),
            ];
            for (a, b) in outside {
                if b > a {
                    for (c, co) in contig_chunks(self.abs(a), (b - a) as u64) {
                        let c = (c - start) as u32;
                        let cmt = self.e.zone().pageblock_mt(c);
                        self.e
                            .add_to_free_list(Step::AllocContigGiveBack, c, co, cmt, true);
                        self.e
                            .account_freepages(Step::AllocContigGiveBack, 1i64 << co, cmt);
                    }
                }
            }
            q = bend;
        }
        let p = (pfn - start) as u32;
        self.own_contig_range(p, nr as u32);
        format!("{nr} pages from pfn {pfn:#x} allocated by alloc_contig_range")
    }

    /// The traced range now belongs to a new owner (as the CLI's `alloc_contig_range` op).
    fn own_contig_range(&mut self, pfn: ZonePfn, nr: u32) {
        let owner = self.rec.owners.len() as u32;
        self.rec.owners.push(OwnerInfo {
            def: 6,
            mt: MigrateType::Movable,
            seq: 0,
        });
        self.e.emit(
            Step::AllocContigAlloc,
            Mutation::ContigAlloc { pfn, nr, owner },
        );
    }
}
/// `kind N, kind M, …`: the totals by kind on one line.
pub fn by_kind_text(by_kind: &[KindCount]) -> String {
    by_kind
        .iter()
        .map(|k| format!("{} {}", k.kind.as_str(), k.count))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the line `l`, read ahead of the free `tl` of the block at `pfn`, closes the window
/// in which that free's own later lines (its batch line, its probe lines) come: the pfn's next
/// free, or the task's next line in the same context that is neither a free nor a drain
/// (`free_unref_folios` traces every folio's free first, then commits each folio, with
/// `free_frozen_page_commit`'s drains between the commits).
fn ends_free_window(l: &TraceLine, tl: &TraceLine, pfn: u64) -> bool {
    match l.event {
        TraceEvent::Free { pfn: f, .. } => f == pfn,
        TraceEvent::PcpuDrain { .. } => false,
        _ => l.pid == tl.pid && l.in_irq == tl.in_irq,
    }
}
