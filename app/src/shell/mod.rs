//! The Leptos shell around the model: one context ([`Shell`]) holding the [`Model`] in a
//! `StoredValue`, [`Shell::dispatch`] (runs [`update`] and performs the [`Effect`]s), and the
//! signals the views read:
//!
//! - per [`Slot`] (the single view, compare's side A and side B) its run and cursor
//!   ([`Cursor`]), and which run it shows: a panel reads its slot's run through [`View`] and
//!   re-renders when that slot's cursor (or only its run) changes, never on another slot's;
//! - per field a view shows (the editor's text, playback, the run status, the tour stop, the
//!   exercise's phase, the saved listing, …) one signal in [`Ui`], set only when the value
//!   changes.
//!
//! Nothing but [`Shell::dispatch`] changes the model.

pub mod effects;
pub mod keys;
pub mod player;
pub mod replay;
pub mod runner;
pub mod storage;
pub mod view;

use std::borrow::Cow;

use buddyscope::explain::exercises::ScenarioError;
use buddyscope::scenario::ComparePair;
use leptos::prelude::*;

use crate::model::exercises::ExerciseView;
use crate::model::work::SavedWork;
use crate::model::{update, Command, Handover, Model, RunId, RunStatus, Slot};
use crate::prefs::Prefs;
pub use view::{SideSlot, View};

/// Where a slot is: which run, the cursor, the zone picked (a node of several zones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub run: RunId,
    pub pos: u32,
    pub zone: Option<usize>,
}

macro_rules! mirrors {
    (
        $($(#[$doc:meta])* $name:ident: $ty:ty = $get:expr;)*
    ) => {
        /// The model's fields the views read, one signal each.
        #[derive(Clone, Copy)]
        pub struct Ui {
            $($(#[$doc])* pub $name: ReadSignal<$ty>,)*
        }

        #[derive(Clone, Copy)]
        struct UiWrite {
            $($name: WriteSignal<$ty>,)*
        }

        fn ui_signals(model: &Model) -> (Ui, UiWrite) {
            $(let $name = signal::<$ty>(Mirror::get(&$get, model).into_owned());)*
            (Ui { $($name: $name.0,)* }, UiWrite { $($name: $name.1,)* })
        }

        /// Sets the signals whose value changed (compared in place: nothing is cloned unless
        /// it changed).
        fn ui_sync(ui: &Ui, w: &UiWrite, model: &Model) {
            $({
                let v = Mirror::get(&$get, model);
                if ui.$name.with_untracked(|old| *old != *v) {
                    w.$name.set(v.into_owned());
                }
            })*
        }
    };
}

/// How a mirrored value is read from the model: a field by reference, a derived value by
/// value.
trait Mirror<T: Clone> {
    fn get<'a>(&self, m: &'a Model) -> Cow<'a, T>;
}

/// A field, by reference.
struct Field<F>(F);
/// A derived value, computed.
struct Derived<F>(F);

fn field<T, F: for<'a> Fn(&'a Model) -> &'a T>(f: F) -> Field<F> {
    Field(f)
}

fn derived<T, F: Fn(&Model) -> T>(f: F) -> Derived<F> {
    Derived(f)
}

impl<T: Clone, F: for<'a> Fn(&'a Model) -> &'a T> Mirror<T> for Field<F> {
    fn get<'a>(&self, m: &'a Model) -> Cow<'a, T> {
        Cow::Borrowed((self.0)(m))
    }
}

impl<T: Clone, F: Fn(&Model) -> T> Mirror<T> for Derived<F> {
    fn get<'a>(&self, m: &'a Model) -> Cow<'a, T> {
        Cow::Owned((self.0)(m))
    }
}

mirrors! {
    /// False until the default scenario's run is in (or another replaced it).
    first_run_done: bool = field(|m| &m.first_run_done);
    scenario_id: String = field(|m| &m.scenario_id);
    editor_text: String = field(|m| &m.editor_text);
    error: Option<ScenarioError> = field(|m| &m.error);
    playing: bool = field(|m| &m.playing);
    selected_page: Option<u32> = field(|m| &m.selected_page);
    /// The compare configuration in effect; `None` is the single view.
    compare: Option<ComparePair> = derived(|m| m.compare().cloned());
    compare_error: Option<String> = field(|m| &m.compare_error);
    trace_start: crate::model::TraceStart = field(|m| &m.trace_start);
    /// The name of the start-state file opened for a replay.
    trace_start_file: Option<String> = derived(|m| m.trace_start_file.as_ref().map(|f| f.0.clone()));
    trace_error: Option<String> = field(|m| &m.trace_error);
    tour_stop: Option<usize> = field(|m| &m.tour_stop);
    /// The stop on screen (the active stop while the cursor is at it).
    tour_here: Option<usize> = derived(crate::model::tour::here);
    tour_notice: Option<String> = field(|m| &m.tour_notice);
    run_status: RunStatus = field(|m| &m.run_status);
    handover: Option<Handover> = field(|m| &m.handover);
    share_error: Option<String> = field(|m| &m.share_error);
    import_error: Option<ScenarioError> = field(|m| &m.import_error);
    /// Exercise mode as the views show it.
    exercise: ExerciseView = derived(|m| m.exercises.view());
    /// The saved work the page knows.
    saved: SavedWork = field(|m| &m.saved);
}

/// The shell's context. `Copy`: pass it around freely.
#[derive(Clone, Copy)]
pub struct Shell {
    model: StoredValue<Model, LocalStorage>,
    cursors: [RwSignal<Option<Cursor>>; 3],
    runs: [Memo<Option<RunId>>; 3],
    pub ui: Ui,
    ui_write: UiWrite,
    /// The UI preferences (their own context too): effects set presenter mode and follow.
    pub prefs: Prefs,
    /// The page under the pointer in the memory map (zone-relative index): the tooltip.
    pub hover: RwSignal<Option<u32>>,
    /// What was asked before the runner's module arrived ([`runner`]): commands dispatched
    /// and [`Shell::after_runner`]'s calls, in order.
    waiting: StoredValue<Vec<Box<dyn FnOnce()>>, LocalStorage>,
}

impl Shell {
    /// The model with the default scenario's zone (its run pending), provided as context.
    pub fn provide(prefs: Prefs) -> Shell {
        let model = Model::new();
        let (ui, ui_write) = ui_signals(&model);
        let cursors = Slot::ALL.map(|s| RwSignal::new(cursor(&model, s)));
        let runs = cursors.map(|c| Memo::new(move |_| c.with(|c| c.map(|c| c.run))));
        let shell = Shell {
            model: StoredValue::new_local(model),
            cursors,
            runs,
            ui,
            ui_write,
            prefs,
            hover: RwSignal::new(None),
            waiting: StoredValue::new_local(Vec::new()),
        };
        provide_context(shell);
        shell
    }

    /// Resolves once the runner is in ([`runner::load`]) and what waited for it has run.
    pub async fn runner_ready(self) {
        runner::load().await;
        let waiting = self
            .waiting
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        for f in waiting {
            f();
        }
    }

    /// Calls `f` now if the runner's module is in ([`runner`], [`crate::late`]), else once it
    /// is, in order with the commands that wait for it.
    pub fn after_runner(self, f: impl FnOnce() + 'static) {
        if crate::late::installed() {
            f();
        } else {
            self.waiting.update_value(|w| w.push(Box::new(f)));
        }
    }

    /// The shell from context (panics outside the app root: a programming error).
    pub fn get() -> Shell {
        expect_context::<Shell>()
    }

    /// Applies `cmd`, tells the views what changed, then performs the effects (which may
    /// dispatch more commands).
    pub fn dispatch(self, cmd: Command) {
        // Until the runner's module is in, commands wait (any of them may run a scenario),
        // in order: the first frame needs none of them (`Shell::runner_ready`).
        if !crate::late::installed() {
            self.waiting
                .update_value(|w| w.push(Box::new(move || self.dispatch(cmd))));
            return;
        }
        let Some(effects) = self.model.try_update_value(|m| update(m, cmd)) else {
            // Only a dispatch from inside a read of the model gets here: a bug.
            leptos::logging::error!(
                "buddyscope: a command was dispatched while the model was read"
            );
            return;
        };
        self.model.with_value(|m| {
            for s in Slot::ALL {
                let c = cursor(m, s);
                let sig = self.cursors[s.index()];
                if sig.get_untracked() != c {
                    sig.set(c);
                }
            }
            ui_sync(&self.ui, &self.ui_write, m);
        });
        for e in effects {
            effects::perform(self, e);
        }
    }

    /// Reads the model without tracking anything (event handlers, effects).
    pub fn read<R>(self, f: impl FnOnce(&Model) -> R) -> R {
        self.model.with_value(f)
    }

    /// A slot's run and cursor, tracked.
    pub fn cursor(self, slot: Slot) -> Option<Cursor> {
        self.cursors[slot.index()].get()
    }

    /// Which run a slot shows, tracked (not its cursor).
    pub fn run_id(self, slot: Slot) -> Option<RunId> {
        self.runs[slot.index()].get()
    }

    /// Calls `f` once the scenario just loaded is on screen (at once for a run on the page, or
    /// once a worker run has replaced the current one), or with why it will not be.
    pub fn when_loaded(self, f: impl FnOnce(Result<(), String>) + 'static) {
        let token = effects::wait(f);
        self.dispatch(Command::WhenLoaded(token));
    }
}

fn cursor(m: &Model, slot: Slot) -> Option<Cursor> {
    m.session(slot).map(|s| Cursor {
        run: s.id,
        pos: s.timeline.pos(),
        zone: s.timeline.view_zone(),
    })
}
