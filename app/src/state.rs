//! App state shared through context: the current run (a [`Session`]) and the UI signals.
//!
//! A run is a value ([`Session`]); the app holds one today and can hold two (before/after) later.
//! The engine is the source of truth: panels read the [`Timeline`] at the cursor and render it;
//! nothing here re-derives allocator state.
//!
//! The timeline is big and not `Clone`-cheap, so it lives in a [`StoredValue`]; the `version`
//! signal is bumped on every change of run or position, and every view that reads the session
//! tracks it through [`AppState::with`].

use buddyscope::{
    builtin, parse_valid,
    replay::{self, Divergence, ReplayError, ReplayOptions, ReplaySummary},
    ComparePair, Run, RunOptions, Scenario, ScenarioError, Side, Timeline, ValidScenario,
};
use leptos::prelude::*;

/// Checkpoints for long scrubber jumps; keep the browser's memory modest.
pub const CHECKPOINT_BUDGET: usize = 96 << 20;
use crate::compare;
use crate::runjob::model::RunMemory;
use crate::runjob::{self, Plan, RunStatus};

/// How the app runs a scenario, on the page or in the run worker (the same options in both).
pub fn run_options() -> RunOptions {
    RunOptions {
        record: true,
        checkpoint_budget: CHECKPOINT_BUDGET,
        max_ops: None,
    }
}

/// One scenario run and a cursor over it.
pub struct Session {
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
    pub allocs: buddyscope::replay::TracedAllocs,
}

/// Where a replayed trace starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceStart {
    /// The current scenario's kernel, zone and init (its ops are not run).
    Scenario,
    /// A default zone, booted.
    Boot,
}

impl Session {
    /// Parses, validates and runs `text` (the panels' tests; the app loads through
    /// [`AppState::load_text`] and [`Session::initial`]).
    #[cfg(test)]
    pub fn load(text: &str) -> Result<Session, ScenarioError> {
        Session::run(text, parse_valid(text)?)
    }

    /// `text`'s zone after `init`, its ops not run yet (nor its tour, whose stops are the ops'),
    /// and the scenario to run: the first frame shows the zone, the run follows
    /// ([`AppState::finish_first_run`]). Event 0 of the run is this zone.
    pub fn initial(text: &str) -> Result<(Session, ValidScenario), ScenarioError> {
        let valid = parse_valid(text)?;
        let mut start = Scenario::clone(&valid);
        start.ops.clear();
        start.tour.clear();
        let first = Session::run(text, ValidScenario::new(start)?)?;
        Ok((first, valid))
    }

    /// One side of a compare pair: `text`'s scenario with the side's overrides.
    pub fn load_side(text: &str, pair: &ComparePair, side: Side) -> Result<Session, ScenarioError> {
        let base = parse_valid(text)?.into_scenario();
        let valid = ValidScenario::new(pair.side(side).apply(&base))?;
        // Compare mode runs both sides on the page: a run long enough for the worker is not
        // compared (it would freeze the page twice over).
        match runjob::plan(&valid) {
            Plan::Now => Session::run(text, valid),
            Plan::Refuse(e) => Err(e),
            Plan::Worker { total } => Err(runjob::too_long_to_compare(total)),
        }
    }

    /// Runs on the page, held to the app's limits like a worker run (`crate::runjob`).
    fn run(text: &str, valid: ValidScenario) -> Result<Session, ScenarioError> {
        let run = runjob::run_bounded(valid, &mut |_, _| std::ops::ControlFlow::Continue(()))?;
        Ok(Session::from_run(text, run))
    }

    /// The session of a finished run of `text` (the run worker's result, see `crate::runjob`).
    pub fn from_run(text: &str, r: Run) -> Session {
        Session {
            text: text.to_string(),
            scenario: r.scenario.clone(),
            memory: RunMemory::of(&r),
            timeline: Timeline::new(r),
            replay: None,
        }
    }

    /// Replays `trace` from the start state of `start` (its ops are ignored) as a recorded run,
    /// with the engine's summary and the model's comparison. Nothing is replaced if this fails.
    pub fn load_trace(start: &Scenario, trace: &str, file: &str) -> Result<Session, ReplayError> {
        let mut start = start.clone();
        start.ops.clear();
        start.name = format!("Replay of {file}");
        start.description = Some(format!(
            "The kmem trace {file}, replayed from this zone's start state (kernel, zone, init): \
             the model takes the traced pages."
        ));
        let opts = ReplayOptions {
            record: true,
            checkpoint_budget: CHECKPOINT_BUDGET,
            ..ReplayOptions::default()
        };
        let r = replay::replay_text(&start, trace, &opts)?;
        let comparison = replay::reissue(&start, trace.as_bytes())?;
        let summary = replay::summary(&r, Some(&comparison));
        Ok(Session {
            text: r.run.scenario.to_json_pretty(),
            scenario: r.run.scenario.clone(),
            replay: Some(ReplayInfo {
                file: file.to_string(),
                summary,
                divergences: r.divergences,
                allocs: r.allocs,
            }),
            memory: RunMemory::of(&r.run),
            timeline: Timeline::new(r.run),
        })
    }
}

/// Context for the panels of one compare side: inside it, [`AppState::viewed`] reads that
/// side's run, so the single view's panels serve both sides unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideRun(pub Side);

/// The default scenario's run, not run yet (see [`AppState::finish_first_run`]).
struct FirstRun {
    text: &'static str,
    valid: ValidScenario,
}

/// Handles to everything the panels share. `Copy`: pass it around freely.
#[derive(Clone, Copy)]
pub struct AppState {
    session: StoredValue<Option<Session>, LocalStorage>,
    /// The single view's run, also in a compare side's view (where `session` is the side's):
    /// where the first run goes.
    single: StoredValue<Option<Session>, LocalStorage>,
    /// The default scenario's ops, run after the first paint: the run is the largest piece of
    /// the start (BENCHMARKS.md "First paint"), and the first frame needs only the zone.
    first_run: StoredValue<Option<FirstRun>, LocalStorage>,
    /// False until the first run is in or another run has replaced it (the root's `data-run`).
    pub first_run_done: RwSignal<bool>,
    /// Compare mode's runs, side A and side B (`None` in the single view).
    side_a: StoredValue<Option<Session>, LocalStorage>,
    side_b: StoredValue<Option<Session>, LocalStorage>,
    /// The compare configuration in effect; `None` is the single view. Set it with
    /// [`AppState::set_compare`] (which runs the sides); share links read it.
    pub compare: RwSignal<Option<ComparePair>>,
    /// Why the last compare configuration could not run (a bad `?compare=`, a side that fails
    /// validation); `None` after a good one.
    pub compare_error: RwSignal<Option<String>>,
    /// Bumped whenever the run or the cursor changes.
    pub version: RwSignal<u64>,
    /// The selected built-in scenario id, or `"custom"` after an edit or a file load.
    pub scenario_id: RwSignal<String>,
    /// The editor's text (may be invalid; the session keeps the last good run).
    pub editor_text: RwSignal<String>,
    /// The last validation or run error, shown at the editor; `None` after a good load.
    pub error: RwSignal<Option<ScenarioError>>,
    /// Playback: advancing one visible event per tick.
    pub playing: RwSignal<bool>,
    /// Playback speed in visible events per second (exponential steps in the UI).
    pub speed: RwSignal<f64>,
    /// The page under the pointer in the memory map (zone-relative index).
    pub hover: RwSignal<Option<u32>>,
    /// The start state of the next trace opened.
    pub trace_start: RwSignal<TraceStart>,
    /// "Replaying …" while a trace is read, then `None`.
    pub trace_status: RwSignal<Option<String>>,
    /// Why the last trace opened was not replayed (the error names the line); the last good
    /// run stays.
    pub trace_error: RwSignal<Option<String>>,
    /// The page clicked in the memory map (zone-relative index): the page history shows it.
    pub selected_page: RwSignal<Option<u32>>,
    /// Presenter mode (see `crate::presenter`; `PresenterState` is its plain form).
    pub presenter: RwSignal<bool>,
    /// The screen is blanked (`B` / `.` in presenter mode).
    pub blank: RwSignal<bool>,
    /// The map follows the action outside presenter mode too.
    pub follow: RwSignal<bool>,
    /// The active tour stop (index into the scenario's `tour`); `None`: no tour playing.
    pub tour_stop: RwSignal<Option<usize>>,
    /// Why the asked-for stop is not shown (`?tour=` beyond the tour), in the tour bar.
    pub tour_notice: RwSignal<Option<String>>,
    /// A long run in the worker, a refused scenario or a failed run (`crate::runjob`).
    pub run_status: RwSignal<RunStatus>,
}

impl AppState {
    /// Creates the state with the default built-in scenario's zone loaded, its run pending
    /// ([`finish_first_run`](Self::finish_first_run)), and provides it as context.
    pub fn provide() -> AppState {
        let b = builtin::default();
        let (session, first_run) = match Session::initial(b.json) {
            Ok((s, valid)) => (
                Some(s),
                Some(FirstRun {
                    text: b.json,
                    valid,
                }),
            ),
            Err(_) => (None, None),
        };
        let session = StoredValue::new_local(session);
        let st = AppState {
            session,
            single: session,
            first_run_done: RwSignal::new(first_run.is_none()),
            first_run: StoredValue::new_local(first_run),
            side_a: StoredValue::new_local(None),
            side_b: StoredValue::new_local(None),
            compare: RwSignal::new(None),
            compare_error: RwSignal::new(None),
            version: RwSignal::new(0),
            scenario_id: RwSignal::new(b.id.to_string()),
            editor_text: RwSignal::new(b.json.to_string()),
            error: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(8.0),
            hover: RwSignal::new(None),
            trace_start: RwSignal::new(TraceStart::Scenario),
            trace_status: RwSignal::new(None),
            trace_error: RwSignal::new(None),
            selected_page: RwSignal::new(None),
            presenter: RwSignal::new(false),
            blank: RwSignal::new(false),
            follow: RwSignal::new(false),
            tour_stop: RwSignal::new(None),
            tour_notice: RwSignal::new(None),
            run_status: RwSignal::new(RunStatus::Idle),
        };
        provide_context(st);
        st
    }

    /// The state from context (panics outside the app root: a programming error).
    pub fn get() -> AppState {
        expect_context::<AppState>()
    }

    /// The state as a panel sees it: inside a compare side ([`SideRun`] in context) its
    /// session is that side's run; elsewhere the single run. Call it in a component body.
    pub fn viewed() -> AppState {
        let st = AppState::get();
        match use_context::<SideRun>() {
            Some(SideRun(Side::A)) => AppState {
                session: st.side_a,
                ..st
            },
            Some(SideRun(Side::B)) => AppState {
                session: st.side_b,
                ..st
            },
            None => st,
        }
    }

    /// True when compare mode shows two runs.
    pub fn comparing(&self) -> bool {
        self.side_a.with_value(Option::is_some) && self.side_b.with_value(Option::is_some)
    }

    /// Reads both sides (tracking `version`); `None` outside compare mode.
    pub fn with_pair<R>(&self, f: impl FnOnce(&Session, &Session) -> R) -> Option<R> {
        self.version.track();
        self.with_pair_untracked(f)
    }

    /// Like [`with_pair`](Self::with_pair) without tracking (for event handlers).
    pub fn with_pair_untracked<R>(&self, f: impl FnOnce(&Session, &Session) -> R) -> Option<R> {
        self.side_a.with_value(|a| {
            self.side_b
                .with_value(|b| Some(f(a.as_ref()?, b.as_ref()?)))
        })
    }

    /// Moves both sides' cursors (compare mode) and notifies the views; does nothing outside
    /// compare mode. With [`with_pair_untracked`](Self::with_pair_untracked), what a share link
    /// needs to read and restore the two positions.
    pub fn update_pair(&self, f: impl FnOnce(&mut Timeline, &mut Timeline)) {
        self.side_a.update_value(|a| {
            self.side_b.update_value(|b| {
                if let (Some(a), Some(b)) = (a.as_mut(), b.as_mut()) {
                    f(&mut a.timeline, &mut b.timeline)
                }
            })
        });
        self.version.update(|v| *v += 1);
    }

    /// Turns compare mode on with `pair` (both sides run from the current scenario text, cursors
    /// at the start) or off with `None`. On failure compare mode stays off and
    /// `compare_error` says why.
    pub fn set_compare(&self, pair: Option<ComparePair>) {
        self.playing.set(false);
        let text = self.with_untracked(|s| s.text.clone());
        let runs = match (&pair, text) {
            (Some(p), Some(text)) => Session::load_side(&text, p, Side::A)
                .and_then(|a| Ok((a, Session::load_side(&text, p, Side::B)?)))
                .map(Some)
                .map_err(|e| e.to_string()),
            _ => Ok(None),
        };
        match runs {
            Ok(Some((a, b))) => {
                self.side_a.set_value(Some(a));
                self.side_b.set_value(Some(b));
                self.compare.set(pair);
                self.compare_error.set(None);
            }
            Ok(None) => {
                self.side_a.set_value(None);
                self.side_b.set_value(None);
                self.compare.set(None);
                self.compare_error.set(None);
            }
            Err(e) => {
                self.side_a.set_value(None);
                self.side_b.set_value(None);
                self.compare.set(None);
                self.compare_error.set(Some(e));
            }
        }
        self.version.update(|v| *v += 1);
    }

    /// Compare mode on or off, keeping the op position (the single view's finished ops become
    /// both sides' and back). `None` turns it off.
    pub fn switch_compare(&self, pair: Option<ComparePair>) {
        let k = if self.comparing() {
            self.with_pair_untracked(|a, b| a.timeline.ops_done().min(b.timeline.ops_done()))
        } else {
            self.with_untracked(|s| s.timeline.ops_done())
        }
        .unwrap_or(0);
        // A tour stop on screen stays on screen (its event too), on both sides or the one.
        let stop = untrack(|| self.tour_here());
        self.set_compare(pair);
        if self.comparing() {
            self.update_pair(|a, b| compare::seek_ops(a, b, k));
        } else {
            self.update(|t| compare::seek_ops_one(t, k));
        }
        if let Some(i) = stop {
            self.tour_go(i);
        }
    }

    /// The scenario's own pair (or `v7.1` vs `v7.2`) for the loaded scenario.
    pub fn default_pair(&self) -> Option<ComparePair> {
        self.with_untracked(|s| ComparePair::default_for(&s.scenario))
    }

    /// Reads the session, tracking `version` (re-runs the caller's effect/view on change).
    /// Before the first run is in, the views show its zone at event 0.
    pub fn with<R>(&self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.version.track();
        self.session.with_value(|s| s.as_ref().map(f))
    }

    /// Like [`with`](Self::with) without tracking (for event handlers). The first run is
    /// finished first: what a handler reads (the length, the ops, the tour) is the run's.
    pub fn with_untracked<R>(&self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.finish_first_run();
        self.session.with_value(|s| s.as_ref().map(f))
    }

    /// Runs the default scenario's ops now if they have not run yet (a no-op after that).
    /// Called one frame after the first paint (`panels::deferred`), and before anything reads
    /// or moves the run (input during that frame, a link's position, a tour, an embed host):
    /// none of them sees the zone without its run.
    pub fn finish_first_run(&self) {
        if self.first_run.with_value(Option::is_none) {
            return;
        }
        // Nested in a read of the run (a view reading it twice): not now, the next call runs it.
        if self.single.try_update_value(|_| ()).is_none() {
            return;
        }
        let Some(FirstRun { text, valid }) =
            self.first_run.try_update_value(Option::take).flatten()
        else {
            return;
        };
        match Session::run(text, valid) {
            Ok(s) => {
                self.single.set_value(Some(s));
                self.version.update(|v| *v += 1);
            }
            // A built-in that does not run is a bug (the engine's tests run every one): the zone
            // stays on screen with the error at the editor.
            Err(e) => self.error.set(Some(e)),
        }
        self.first_run_done.set(true);
    }

    /// Another run replaces the first one before it ran: it never runs.
    fn skip_first_run(&self) {
        if self.first_run.with_value(Option::is_some) {
            self.first_run.set_value(None);
            self.first_run_done.set(true);
        }
    }

    /// Moves the cursor and notifies the views.
    pub fn update(&self, f: impl FnOnce(&mut Timeline)) {
        self.finish_first_run();
        self.session.update_value(|s| {
            if let Some(s) = s.as_mut() {
                f(&mut s.timeline)
            }
        });
        self.version.update(|v| *v += 1);
    }

    /// Loads a scenario text. It is costed first ([`runjob::plan`]): over the limit it is
    /// refused (`run_status`), a long run starts in the worker (it replaces the current run when
    /// it finishes), a small one runs now and replaces the current run (cursor at the start)
    /// and the error clears. On failure the error is set; in every case but success the last
    /// good run stays.
    pub fn load_text(&self, text: &str, id: &str) -> Result<(), ScenarioError> {
        self.editor_text.set(text.to_string());
        let valid = match parse_valid(text) {
            Ok(v) => v,
            Err(e) => {
                self.error.set(Some(e.clone()));
                return Err(e);
            }
        };
        match runjob::plan(&valid) {
            Plan::Refuse(e) => {
                runjob::cancel(self);
                self.error.set(None);
                self.run_status.set(RunStatus::Refused(e.to_string()));
                return Err(e);
            }
            Plan::Worker { total } => {
                self.error.set(None);
                runjob::start(*self, text, id, valid, total);
                return Ok(());
            }
            Plan::Now => {}
        }
        match Session::run(text, valid) {
            Ok(s) => {
                runjob::cancel(self);
                self.install(s, id);
                Ok(())
            }
            Err(e) => {
                self.error.set(Some(e.clone()));
                Err(e)
            }
        }
    }

    /// Makes `s` the current run under `id`, cursor at the start.
    pub fn install(&self, s: Session, id: &str) {
        self.skip_first_run();
        self.session.set_value(Some(s));
        self.scenario_id.set(id.to_string());
        self.error.set(None);
        self.playing.set(false);
        self.selected_page.set(None);
        self.tour_stop.set(None);
        self.version.update(|v| *v += 1);
        // Compare mode stays on with the new scenario's own pair.
        if self.compare.get_untracked().is_some() {
            self.set_compare(self.default_pair());
        }
    }

    /// Replays a trace from the chosen start state. On success the replay replaces the current
    /// run (cursor at the start); on failure `trace_error` names the line and the last good
    /// run stays.
    pub fn load_trace(&self, trace: &str, file: &str) -> Result<(), String> {
        let start = match self.trace_start.get_untracked() {
            TraceStart::Boot => Scenario::default(),
            TraceStart::Scenario => self
                .with_untracked(|s| s.scenario.clone())
                .unwrap_or_default(),
        };
        match Session::load_trace(&start, trace, file) {
            Ok(s) => {
                // A long run still in the worker would replace the replay when it finishes.
                runjob::cancel(self);
                self.skip_first_run();
                self.session.set_value(Some(s));
                self.scenario_id.set("custom".to_string());
                self.trace_error.set(None);
                self.playing.set(false);
                self.version.update(|v| *v += 1);
                Ok(())
            }
            Err(e) => {
                let msg = format!("{file}: {e}");
                self.trace_error.set(Some(msg.clone()));
                Err(msg)
            }
        }
    }

    /// Loads a built-in scenario by id.
    pub fn load_builtin(&self, id: &str) -> Result<(), ScenarioError> {
        match builtin::get(id) {
            Some(b) => self.load_text(b.json, b.id),
            None => Err(ScenarioError::new(
                "",
                format!("no built-in scenario {id:?}"),
                "pick one from the list",
            )),
        }
    }

    pub fn seek(&self, pos: u32) {
        self.update(|t| t.seek(pos));
    }
    pub fn step_forward(&self) {
        if self.comparing() {
            return self.update_pair(compare::step_forward);
        }
        self.update(|t| t.step_forward());
    }
    pub fn step_back(&self) {
        if self.comparing() {
            return self.update_pair(compare::step_back);
        }
        self.update(|t| t.step_back());
    }
    pub fn op_forward(&self) {
        if self.comparing() {
            return self.update_pair(compare::op_forward);
        }
        self.update(|t| t.op_forward());
    }
    pub fn op_back(&self) {
        if self.comparing() {
            return self.update_pair(compare::op_back);
        }
        self.update(|t| t.op_back());
    }
    pub fn jump_start(&self) {
        if self.comparing() {
            return self.update_pair(|a, b| {
                a.seek(0);
                b.seek(0);
            });
        }
        self.update(|t| t.seek(0));
    }
    pub fn jump_end(&self) {
        if self.comparing() {
            return self.update_pair(|a, b| {
                a.seek(a.len());
                b.seek(b.len());
            });
        }
        self.update(|t| {
            let n = t.len();
            t.seek(n)
        });
    }
    /// `n` event steps forward (playback), stopping at the end; both sides in compare mode.
    pub fn advance(&self, n: u32) {
        if self.comparing() {
            return self.update_pair(|a, b| compare::advance(a, b, n));
        }
        self.update(|tl| {
            for _ in 0..n {
                if tl.pos() >= tl.len() {
                    break;
                }
                tl.step_forward();
            }
        });
    }
    /// True when the cursor is at the end of the trace (both sides' in compare mode).
    pub fn at_end(&self) -> bool {
        if self.comparing() {
            return self.side_a.with_value(|a| {
                self.side_b.with_value(|b| match (a, b) {
                    (Some(a), Some(b)) => compare::at_end(&a.timeline, &b.timeline),
                    _ => true,
                })
            });
        }
        self.with_untracked(|s| s.timeline.pos() >= s.timeline.len())
            .unwrap_or(true)
    }
}
