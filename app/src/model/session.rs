//! A run and its cursor ([`Session`]), and what the app asks of the engine to make one: the run
//! options, the limits, where a scenario runs ([`plan`]) and the bounded run itself. Pure: the
//! engine's calls only, tested natively.

use buddyscope::mm::Kernel;
use buddyscope::run::replay::{
    self, Divergence, PredictReport, ReplayError, ReplayOptions, ReplaySummary,
};
use buddyscope::run::Timeline;
use buddyscope::run::{self, Cost, Limits};
use buddyscope::run::{CheckpointRebuild, Run, RunOptions};
use buddyscope::scenario::{parse_boot_start, Scenario, ScenarioError, ValidScenario};

/// Checkpoints for long scrubber jumps; keep the browser's memory modest.
pub const CHECKPOINT_BUDGET: usize = 96 << 20;

/// How the app runs a scenario, on the page or in the run worker (the same options in both).
pub fn run_options() -> RunOptions {
    RunOptions {
        record: true,
        checkpoint_budget: CHECKPOINT_BUDGET,
        max_ops: None,
    }
}

/// Which run a session is: a new number for every run the model installs, so views tell runs
/// apart (a run replaced by an identical one is still another run: its cursor starts over).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(pub u64);

/// One scenario run and a cursor over it.
pub struct Session {
    /// Set by the model when the session is installed.
    pub id: RunId,
    /// The scenario text that produced this run (the last good one; for a replayed trace, the
    /// start state's scenario as JSON).
    pub text: String,
    pub scenario: Scenario,
    pub timeline: Timeline,
    /// Set when the run is a replayed trace.
    pub replay: Option<ReplayInfo>,
    /// What the run holds in memory (the engine's accounting, taken once).
    pub memory: RunMemory,
}

/// What a replayed trace adds to its run: the engine's summary and divergences.
pub struct ReplayInfo {
    /// The trace file's name.
    pub file: String,
    pub summary: ReplaySummary,
    /// The listed divergences (`summary.divergence_count` counts them all).
    pub divergences: Vec<Divergence>,
    /// Who made each traced allocation (comm-pid, CPU, gfp, timestamp, line).
    pub allocs: buddyscope::run::replay::TracedAllocs,
    /// The trace's clock at each op record (the charts' time axis).
    pub times: buddyscope::run::replay::OpTimes,
    /// The prediction: at every `mm_page_alloc` the model chose a page itself first, then the
    /// kernel's was applied (the CLI's `replay --predict`).
    pub predict: Option<PredictReport>,
    /// Where each listed miss is on the scrubber (the end of its `mm_page_alloc`'s op record)
    /// and its index in `predict.misses`, ascending by position.
    pub miss_positions: Vec<(u32, usize)>,
    /// Which profile replayed the trace, and why ([`profile_note`]).
    pub profile: String,
}

/// The scrubber positions of the listed misses: the end of the op record of the
/// `mm_page_alloc` line each is about (one op record per trace line), ascending.
pub fn miss_positions(run: &Run, report: &PredictReport) -> Vec<(u32, usize)> {
    let by_line: std::collections::HashMap<u64, usize> = report
        .misses
        .iter()
        .enumerate()
        .map(|(i, m)| (m.line, i))
        .collect();
    let mut out: Vec<(u32, usize)> = run
        .ops
        .iter()
        .filter_map(|o| match &o.outcome {
            buddyscope::run::Outcome::Replayed { line, .. } => {
                by_line.get(line).map(|&i| (o.end, i))
            }
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out
}

/// What the start state says of its kernel: a node snapshot's release (`uname -r`).
pub fn named_release(start: &Scenario) -> Option<&str> {
    match &start.init {
        buddyscope::scenario::Init::NodeSnapshot(s) => s.kernel.as_deref(),
        _ => None,
    }
}

/// The profile a trace is replayed with, and the sentence that says why: the user's `chosen`
/// profile if any, else the one the start state's `release` names (`Kernel::from_uname`),
/// else the start state's own (`fallback`). A choice that disagrees with the release is said.
pub fn profile_note(
    release: Option<&str>,
    chosen: Option<Kernel>,
    fallback: Kernel,
) -> (Kernel, String) {
    let named = release.and_then(Kernel::from_uname);
    match (chosen, release) {
        (None, Some(r)) => match named {
            Some(k) => (k, format!("Profile {} — the snapshot says {r}", k.as_str())),
            None => (
                fallback,
                format!(
                    "Profile {} (the start state's) — the snapshot says {r}, which no profile \
                     matches ({})",
                    fallback.as_str(),
                    Kernel::choices()
                ),
            ),
        },
        (None, None) => (
            fallback,
            format!(
                "Profile {} (the start state's) — nothing named a kernel version",
                fallback.as_str()
            ),
        ),
        (Some(c), Some(r)) => {
            let why = match named {
                Some(k) if k == c => format!("the snapshot says {r} too"),
                Some(k) => format!("but the snapshot says {r}, which is profile {}", k.as_str()),
                None => format!("the snapshot says {r}, which no profile matches"),
            };
            (c, format!("Profile {}, as chosen — {why}", c.as_str()))
        }
        (Some(c), None) => (
            c,
            format!(
                "Profile {}, as chosen — nothing named a kernel version",
                c.as_str()
            ),
        ),
    }
}

/// Where a replayed trace starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceStart {
    /// The current scenario's kernel, zone and init (its ops are not run).
    #[default]
    Scenario,
    /// A default zone, booted.
    Boot,
    /// A start-state file the user opened (a scenario or a drgn snapshot):
    /// [`crate::model::Model::trace_start_file`].
    File,
}

/// What a run holds in memory, from the engine's accounting (`Run::trace_bytes`,
/// `Run::memory_bytes`), taken once when the run is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunMemory {
    /// The event trace (and its message texts).
    pub trace: u64,
    /// Everything the run holds: the trace, the checkpoints, the initial and final nodes and
    /// the op records.
    pub total: u64,
}

impl RunMemory {
    pub fn of(run: &Run) -> RunMemory {
        RunMemory {
            trace: run.trace_bytes() as u64,
            total: run.memory_bytes() as u64,
        }
    }
}

/// The run of a scenario without ops: its start state (`run::build`) as a run of no events,
/// assembled by the engine's recorder as a run with no ops is ([`CheckpointRebuild::into_run`]),
/// but without the runner, which the first frame does not need (its code is fetched later).
fn start_run(start: run::Start) -> Run {
    debug_assert!(start.scenario.ops.is_empty());
    let run::Start { scenario, engine } = start;
    let initial = engine.node().clone();
    CheckpointRebuild::new(&initial, CHECKPOINT_BUDGET).into_run(
        scenario,
        initial,
        engine.log,
        Vec::new(),
        Vec::new(),
        Vec::new(),
    )
}

impl Session {
    /// Parses, validates and runs `text` (tests; the app loads through the model's commands).
    #[cfg(test)]
    pub fn load(text: &str) -> Result<Session, ScenarioError> {
        Session::run(text, buddyscope::scenario::parse_valid(text)?)
    }

    /// `text`'s zone after `init` (which must be `"boot"`), its ops not run yet (nor its tour,
    /// whose stops are the ops'): the first frame shows the zone, the run follows
    /// ([`crate::model::Command::FinishFirstRun`]). Event 0 of the run is this zone. Neither
    /// the ops nor the tour are read: the engine's [`parse_boot_start`] links none of the
    /// ops' readers and checks, which arrive with the runner ([`crate::late`]).
    pub fn initial(text: &str) -> Result<Session, ScenarioError> {
        let start = parse_boot_start(text)?.expect("the default scenario starts at boot");
        let start = run::build_boot(start).expect("parse_boot_start reads only init \"boot\"");
        Ok(Session::from_run(text, start_run(start)))
    }

    /// One side of a compare pair: `text`'s scenario with the side's overrides.
    pub fn load_side(
        text: &str,
        pair: &buddyscope::scenario::ComparePair,
        side: buddyscope::scenario::Side,
    ) -> Result<Session, ScenarioError> {
        let base = crate::late::parse_valid(text)?.into_scenario();
        let valid = crate::late::validate(pair.side(side).apply(&base))?;
        // Compare mode runs both sides on the page: a run long enough for the worker is not
        // compared (it would freeze the page twice over).
        match plan(&valid) {
            Plan::Now => Session::run(text, valid),
            Plan::Refuse(e) => Err(e),
            Plan::Worker { total } => Err(too_long_to_compare(total)),
        }
    }

    /// Runs on the page, held to the app's limits like a worker run.
    pub fn run(text: &str, valid: ValidScenario) -> Result<Session, ScenarioError> {
        let run = run_bounded(valid, &mut |_, _| std::ops::ControlFlow::Continue(()))?;
        Ok(Session::from_run(text, run))
    }

    /// The session of a finished run of `text` (the run worker's result).
    pub fn from_run(text: &str, r: Run) -> Session {
        Session {
            id: RunId::default(),
            text: text.to_string(),
            scenario: Scenario::clone(&r.scenario),
            memory: RunMemory::of(&r),
            timeline: Timeline::new(r),
            replay: None,
        }
    }

    /// Replays `trace` from the start state of `start` (its ops are ignored) as a recorded run,
    /// with the engine's summary, the model's comparison and its prediction of every
    /// allocation, under the profile [`profile_note`] picks (`chosen`: the user's, if any).
    /// The app replays in the run worker ([`replay_trace`] over the file, in chunks); this is
    /// the same in one piece (tests).
    #[cfg(test)]
    pub fn load_trace(
        start: &Scenario,
        chosen: Option<Kernel>,
        trace: &str,
        file: &str,
    ) -> Result<Session, ReplayError> {
        let (start, profile) = replay_start(start, chosen, file);
        let (run, info) =
            replay_trace(&start, profile, file, &mut || trace.as_bytes(), &mut |_| {})?;
        Ok(Session::from_replay(run, info))
    }

    /// The session of a replayed trace.
    pub fn from_replay(run: Run, info: ReplayInfo) -> Session {
        Session {
            id: RunId::default(),
            text: run.scenario.to_json_pretty(),
            scenario: Scenario::clone(&run.scenario),
            replay: Some(info),
            memory: RunMemory::of(&run),
            timeline: Timeline::new(run),
        }
    }
}

/// The scenario a trace named `file` replays from: `start` without its ops, under the profile
/// [`profile_note`] picks, and that sentence.
pub fn replay_start(start: &Scenario, chosen: Option<Kernel>, file: &str) -> (Scenario, String) {
    let mut start = start.clone();
    let (kernel, profile) = profile_note(named_release(&start), chosen, start.kernel);
    start.kernel = kernel;
    start.ops.clear();
    start.name = format!("Replay of {file}");
    start.description = Some(format!(
        "The kmem trace {file}, replayed from this zone's start state (kernel, zone, init): \
         the model takes the traced pages."
    ));
    (start, profile)
}

/// Replays the trace `open()` reads (from its start each call: the model's comparison reads it
/// a second time) from `start` ([`replay_start`]) as a recorded run with the engine's
/// summary, divergences and prediction. `progress(events)` is the engine's (every 65536
/// trace events); a reader that fails stops the replay (the worker's, over the limits).
pub fn replay_trace<R: std::io::BufRead>(
    start: &Scenario,
    profile: String,
    file: &str,
    open: &mut dyn FnMut() -> R,
    progress: &mut dyn FnMut(u64),
) -> Result<(Run, ReplayInfo), ReplayError> {
    let opts = ReplayOptions {
        record: true,
        checkpoint_budget: CHECKPOINT_BUDGET,
        predict: true,
        ..ReplayOptions::default()
    };
    let r = replay::replay(start, open(), &opts, progress)?;
    let comparison = replay::reissue(start, open())?;
    let summary = replay::summary(&r, Some(&comparison));
    let info = ReplayInfo {
        file: file.to_string(),
        summary,
        divergences: r.divergences,
        allocs: r.allocs,
        times: r.times,
        miss_positions: r
            .predict
            .as_ref()
            .map(|p| miss_positions(&r.run, p))
            .unwrap_or_default(),
        predict: r.predict,
        profile,
    };
    Ok((r.run, info))
}

/// Why a recorded replay of `file` is over the app's limits of a recorded run (one op record per
/// trace event, [`limits`]), and how to replay it anyway; `None` within them. `more` says the
/// replay was stopped there (the counts are lower bounds).
pub fn replay_over_limits(
    file: &str,
    trace_events: u64,
    events: u64,
    more: bool,
) -> Option<String> {
    let l = limits();
    if trace_events <= l.max_ops && events <= l.max_events {
        return None;
    }
    let at_least = if more { "more than " } else { "" };
    let what = if trace_events > l.max_ops {
        format!(
            "{at_least}{trace_events} trace events, and the app records at most {} (one op record each)",
            l.max_ops
        )
    } else {
        format!(
            "{events} recorded events, and the app keeps at most {}",
            l.max_events
        )
    };
    Some(format!(
        "{file}: {what}. Replay a part of it (cut the trace between its buddyscope markers, or \
         a range of lines with sed -n), or replay it whole with the CLI without recording: \
         buddyscope replay {file} --no-trace"
    ))
}

// --- where a scenario runs -------------------------------------------------------------------

/// Where a scenario runs: every scenario the app is asked to run is first costed without
/// running it; over the engine's limit it is refused with the count and the limit, small runs
/// run on the page, long legal runs in the run worker (`crate::runjob`) with a progress bar and
/// Cancel, so the page keeps responding.
#[derive(Debug)]
pub enum Plan {
    /// Small: synchronously on the page.
    Now,
    /// Long but legal: in the worker, `total` ops.
    Worker { total: u64 },
    /// Over the limit: not run.
    Refuse(ScenarioError),
}

/// Above this many executed ops a run goes to the worker. Every built-in is far below it
/// (the largest runs a few hundred ops), so they run on the page.
pub const WORKER_MIN_OPS: u64 = 20_000;

/// Above this many pages touched ([`Cost::pages_touched`], an upper bound: a workload step
/// counts its largest order) a run goes to the worker too: a few ops over large ranges record as
/// many events as many small ops (a page freed page by page is about 7 events). The built-ins
/// touch at most about 1.5 Mi pages by this bound (`fragmented-sandbox`'s workload), and run on
/// the page.
pub const WORKER_MIN_PAGES: u128 = 16 << 20;

/// Why compare mode does not run a scenario that needs the worker (it runs both sides on the
/// page).
pub fn too_long_to_compare(ops: u64) -> ScenarioError {
    ScenarioError::new(
        "ops",
        format!(
            "compare mode runs both sides on the page, up to {WORKER_MIN_OPS} operations; this \
             scenario has {ops}"
        ),
        "compare a shorter run (fewer repeat times or workload steps)",
    )
}

/// The limits of the app's runs: it records the trace (the timeline needs it).
pub fn limits() -> Limits {
    Limits::recorded()
}

/// Costs `valid` without running it ([`limits::estimate`]) and says where it runs.
pub fn plan(valid: &ValidScenario) -> Plan {
    plan_cost(&run::estimate(valid), &limits())
}

/// [`plan`] for a known cost.
pub fn plan_cost(cost: &Cost, limits: &Limits) -> Plan {
    if let Err(e) = run::check_limits(cost, limits) {
        return Plan::Refuse(e);
    }
    if cost.ops > u128::from(WORKER_MIN_OPS) || cost.pages_touched > WORKER_MIN_PAGES {
        Plan::Worker {
            total: cost.ops_u64(),
        }
    } else {
        Plan::Now
    }
}

/// Runs `valid` with the app's options and limits: the scenario's cost is checked first and a
/// recording run stops at the event cap (`progress` as in [`buddyscope::run::Runner::progress`]).
///
/// In the browser the runner (the engine's every op path) is not in the first download: it is
/// in the wasm module `runner`, called through [`crate::late`].
pub fn run_bounded(
    valid: ValidScenario,
    progress: buddyscope::run::Progress<'_>,
) -> Result<Run, ScenarioError> {
    (crate::late::get().run)(valid, progress)
}

/// [`run_bounded`]'s work: the engine's runner with the app's options and limits.
pub fn execute_bounded(
    valid: ValidScenario,
    progress: buddyscope::run::Progress<'_>,
) -> Result<Run, ScenarioError> {
    buddyscope::run::Runner::new(valid)
        .options(&run_options())
        .limits(limits())
        .progress(progress)
        .run()
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// Nested repeats: `depth` levels of `times` around one alloc/free pair.
    pub fn nested(times: u64, depth: usize) -> String {
        let mut ops = r#"{"op": "alloc", "order": 0, "mt": "movable", "as": "x"}, {"op": "free", "ref": "x"}"#.to_string();
        for _ in 0..depth {
            ops = format!(r#"{{"op": "repeat", "times": {times}, "ops": [{ops}]}}"#);
        }
        format!(r#"{{"version": 1, "name": "nested", "ops": [{ops}]}}"#)
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::nested;
    use super::*;
    use buddyscope::scenario::parse_valid;

    /// The first frame's run of a scenario without ops, made without the runner, is the run
    /// the runner makes of it: every field, for every built-in's start state (booted, a node of
    /// zones, `/proc` imports, snapshots).
    #[test]
    fn the_start_run_is_the_runners_run_of_no_ops() {
        for b in buddyscope::scenario::builtin::ALL {
            let mut start = parse_valid(b.json()).unwrap().into_scenario();
            start.ops.clear();
            start.tour.clear();
            let valid = ValidScenario::new(start).unwrap();
            let want = execute_bounded(valid.clone(), &mut |_, _| {
                std::ops::ControlFlow::Continue(())
            })
            .unwrap();
            let got = start_run(run::build(valid));
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{}", b.id);
        }
    }

    /// The first frame's session of every built-in that starts at boot (the default does) is
    /// its start state as the full reader, the checks and [`run::build`] make it.
    #[test]
    fn the_initial_session_is_the_start_state_of_the_full_reader() {
        let default = buddyscope::scenario::builtin::default();
        assert!(matches!(
            parse_valid(default.json()).unwrap().init,
            buddyscope::scenario::Init::Boot
        ));
        for b in buddyscope::scenario::builtin::ALL {
            let mut start = parse_valid(b.json()).unwrap().into_scenario();
            if !matches!(start.init, buddyscope::scenario::Init::Boot) {
                continue;
            }
            start.ops.clear();
            start.tour.clear();
            let want = start_run(run::build(ValidScenario::new(start).unwrap()));
            let got = Session::initial(b.json()).unwrap();
            assert_eq!(got.text, b.json());
            assert_eq!(
                format!("{:?}", got.timeline.run),
                format!("{want:?}"),
                "{}",
                b.id
            );
        }
    }

    /// Every built-in runs on the page: no worker, no refusal.
    #[test]
    fn every_builtin_runs_now() {
        for b in buddyscope::scenario::builtin::ALL {
            let plan = plan(&parse_valid(b.json()).unwrap());
            assert!(matches!(plan, Plan::Now), "{}: {plan:?}", b.id);
        }
    }

    /// 10^18 ops are refused with the count and the limit in the message.
    #[test]
    fn a_quintillion_ops_are_refused_with_the_count() {
        let text = nested(1_000_000, 3);
        let Plan::Refuse(e) = plan(&parse_valid(&text).unwrap()) else {
            panic!("not refused")
        };
        let msg = e.to_string();
        assert!(msg.contains("2000000000000000000 operations"), "{msg}");
        assert!(msg.contains(&limits().max_ops.to_string()), "{msg}");
    }

    /// Between the two: the worker, with the op count as the progress total.
    #[test]
    fn a_long_legal_run_goes_to_the_worker() {
        let text = nested(100_000, 1);
        match plan(&parse_valid(&text).unwrap()) {
            Plan::Worker { total } => assert_eq!(total, 200_000),
            p => panic!("{p:?}"),
        }
        let small = nested(10, 1);
        assert!(matches!(plan(&parse_valid(&small).unwrap()), Plan::Now));
    }

    /// A few ops over a huge range go to the worker too.
    #[test]
    fn many_pages_go_to_the_worker() {
        let cost = Cost {
            ops: 3,
            pages_touched: WORKER_MIN_PAGES + 1,
        };
        assert!(matches!(
            plan_cost(&cost, &limits()),
            Plan::Worker { total: 3 }
        ));
    }

    /// The profile follows what the input names unless the user chose one; a choice that
    /// disagrees with the input, and an input that names nothing, are said.
    #[test]
    fn the_profile_and_why() {
        let r = Some("7.3.4+deb13-amd64");
        let n = |release, chosen| profile_note(release, chosen, Kernel::V7_2);
        assert_eq!(
            n(r, None),
            (
                Kernel::V7_3,
                "Profile v7.3 — the snapshot says 7.3.4+deb13-amd64".to_string()
            )
        );
        assert_eq!(
            n(None, None).1,
            "Profile v7.2 (the start state's) — nothing named a kernel version"
        );
        assert_eq!(
            n(Some("5.10.0-30-amd64"), None),
            (
                Kernel::V7_2,
                format!(
                    "Profile v7.2 (the start state's) — the snapshot says 5.10.0-30-amd64, which \
                     no profile matches ({})",
                    Kernel::choices()
                )
            )
        );
        assert_eq!(
            n(r, Some(Kernel::V6_12)),
            (
                Kernel::V6_12,
                "Profile v6.12, as chosen — but the snapshot says 7.3.4+deb13-amd64, which is \
                 profile v7.3"
                    .to_string()
            )
        );
        assert_eq!(
            n(r, Some(Kernel::V7_3)).1,
            "Profile v7.3, as chosen — the snapshot says 7.3.4+deb13-amd64 too"
        );
        assert_eq!(
            n(None, Some(Kernel::V6_18)).1,
            "Profile v6.18, as chosen — nothing named a kernel version"
        );
    }

    /// Over the recorded-run limits a replay says which limit, and how to replay anyway.
    #[test]
    fn a_replay_over_the_limits_says_how_to_fix_it() {
        let l = limits();
        assert_eq!(
            replay_over_limits("t.txt", l.max_ops, l.max_events, false),
            None
        );
        let m = replay_over_limits("t.txt", l.max_ops + 1, 0, true).unwrap();
        assert!(
            m.starts_with(&format!("t.txt: more than {} trace events", l.max_ops + 1)),
            "{m}"
        );
        assert!(m.contains(&format!("at most {}", l.max_ops)), "{m}");
        assert!(m.contains("buddyscope replay t.txt --no-trace"), "{m}");
        assert!(m.contains("cut the trace"), "{m}");
        let m = replay_over_limits("t.txt", 10, l.max_events + 1, false).unwrap();
        assert!(
            m.contains(&format!("{} recorded events", l.max_events + 1)),
            "{m}"
        );
    }

    /// The figures are the engine's: a run's trace is its events at 16 bytes, a call at 1 (and the
    /// message texts), and the total holds at least the trace and two node copies.
    #[test]
    fn run_memory_comes_from_the_engine() {
        let t = crate::testutil::timeline("fallback-claim");
        let m = RunMemory::of(&t.run);
        assert!(m.trace >= t.run.log.events.min_bytes() as u64, "{m:?}");
        assert!(
            m.total >= m.trace + 2 * u64::from(t.run.initial.active().pages()) * 16,
            "{m:?}"
        );
    }
}
