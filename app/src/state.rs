//! App state shared through context: the current run (a [`Session`]) and the UI signals.
//!
//! A run is a value ([`Session`]); the app holds one today and can hold two (before/after) later.
//! The engine is the source of truth: panels read the [`Timeline`] at the cursor and render it;
//! nothing here re-derives allocator state.
//!
//! The timeline is big and not `Clone`-cheap, so it lives in a [`StoredValue`]; the `version`
//! signal is bumped on every change of run or position, and every view that reads the session
//! tracks it through [`AppState::with`].

use buddyscope::builtin;
use buddyscope::runner::{run_valid, RunOptions};
use buddyscope::scenario::{parse_valid, Scenario, ScenarioError};
use buddyscope::timeline::Timeline;
use leptos::prelude::*;

/// One scenario run and a cursor over it.
pub struct Session {
    /// The scenario text that produced this run (the last good one).
    pub text: String,
    pub scenario: Scenario,
    pub timeline: Timeline,
}

impl Session {
    /// Parses, validates and runs `text`. Nothing is replaced if this fails.
    pub fn load(text: &str) -> Result<Session, ScenarioError> {
        let r = run_valid(
            parse_valid(text)?,
            &RunOptions {
                record: true,
                // Checkpoints for long scrubber jumps; keep the browser's memory modest.
                checkpoint_budget: 96 << 20,
                max_ops: None,
            },
        )?;
        Ok(Session {
            text: text.to_string(),
            scenario: r.scenario.clone(),
            timeline: Timeline::new(r),
        })
    }
}

/// Handles to everything the panels share. `Copy`: pass it around freely.
#[derive(Clone, Copy)]
pub struct AppState {
    session: StoredValue<Option<Session>, LocalStorage>,
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
    /// Presenter mode (see `crate::presenter`; `PresenterState` is its plain form).
    pub presenter: RwSignal<bool>,
    /// The screen is blanked (`B` / `.` in presenter mode).
    pub blank: RwSignal<bool>,
    /// The map follows the action outside presenter mode too.
    pub follow: RwSignal<bool>,
    /// The active tour stop (index into the scenario's `tour`); `None`: no tour playing.
    pub tour_stop: RwSignal<Option<usize>>,
}

impl AppState {
    /// Creates the state with the default built-in scenario loaded and provides it as context.
    pub fn provide() -> AppState {
        let b = builtin::default();
        let session = Session::load(b.json).ok();
        let st = AppState {
            session: StoredValue::new_local(session),
            version: RwSignal::new(0),
            scenario_id: RwSignal::new(b.id.to_string()),
            editor_text: RwSignal::new(b.json.to_string()),
            error: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(8.0),
            hover: RwSignal::new(None),
            presenter: RwSignal::new(false),
            blank: RwSignal::new(false),
            follow: RwSignal::new(false),
            tour_stop: RwSignal::new(None),
        };
        provide_context(st);
        st
    }

    /// The state from context (panics outside the app root: a programming error).
    pub fn get() -> AppState {
        expect_context::<AppState>()
    }

    /// Reads the session, tracking `version` (re-runs the caller's effect/view on change).
    pub fn with<R>(&self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.version.track();
        self.session.with_value(|s| s.as_ref().map(f))
    }

    /// Like [`with`](Self::with) without tracking (for event handlers).
    pub fn with_untracked<R>(&self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.session.with_value(|s| s.as_ref().map(f))
    }

    /// Moves the cursor and notifies the views.
    pub fn update(&self, f: impl FnOnce(&mut Timeline)) {
        self.session.update_value(|s| {
            if let Some(s) = s.as_mut() {
                f(&mut s.timeline)
            }
        });
        self.version.update(|v| *v += 1);
    }

    /// Loads a scenario text. On success the run replaces the current one (cursor at the
    /// start) and the error clears; on failure the error is set and the last good run stays.
    pub fn load_text(&self, text: &str, id: &str) -> Result<(), ScenarioError> {
        self.editor_text.set(text.to_string());
        match Session::load(text) {
            Ok(s) => {
                self.session.set_value(Some(s));
                self.scenario_id.set(id.to_string());
                self.error.set(None);
                self.playing.set(false);
                self.tour_stop.set(None);
                self.version.update(|v| *v += 1);
                Ok(())
            }
            Err(e) => {
                self.error.set(Some(e.clone()));
                Err(e)
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
        self.update(|t| t.step_forward());
    }
    pub fn step_back(&self) {
        self.update(|t| t.step_back());
    }
    pub fn op_forward(&self) {
        self.update(|t| t.op_forward());
    }
    pub fn op_back(&self) {
        self.update(|t| t.op_back());
    }
    pub fn jump_start(&self) {
        self.update(|t| t.seek(0));
    }
    pub fn jump_end(&self) {
        self.update(|t| {
            let n = t.len();
            t.seek(n)
        });
    }
    /// True when the cursor is at the end of the trace.
    pub fn at_end(&self) -> bool {
        self.with_untracked(|s| s.timeline.pos() >= s.timeline.len())
            .unwrap_or(true)
    }
}
