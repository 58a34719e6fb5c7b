//! The app's state as plain data ([`Model`]), what can happen to it ([`Command`]) and one
//! [`update`] that applies a command and returns what the shell must do ([`Effect`]): run a
//! scenario in the worker, cancel it, write to local storage, fetch an exercise set, set the
//! presenter preferences, move the keyboard focus.
//!
//! No Leptos and no browser here: everything is tested natively (`tests.rs`). The shell
//! (`crate::shell`) holds the model, turns clicks, keys, host messages, timers and worker
//! messages into commands, performs the effects, and tells each view what changed (a run and
//! cursor per [`Slot`], a signal per field the views read).
//!
//! The runs are one [`Runs`] value: a single run, or compare mode's pair (side A, side B and the
//! single run they were made from, back on screen when compare mode ends). Every run the model
//! installs gets a new [`RunId`].

pub mod exercises;
pub mod lockstep;
pub mod route;
pub mod session;
pub mod tour;
pub mod work;

#[cfg(test)]
mod tests;

use buddyscope::mm::{Kernel, MigrateType};
use buddyscope::run::Timeline;
use buddyscope::scenario::builtin;
use buddyscope::scenario::{ComparePair, Side};
use buddyscope::scenario::{Scenario, ScenarioError, ValidScenario};

use crate::share::{CompareShare, PresenterState, ShareMode, SharePayload};
use exercises::{ExerciseCommand, Exercises};
use route::Route;
use session::{plan, Plan};
pub use session::{RunId, Session, TraceStart};
use work::{SavedCommand, SavedWork};

/// Where a view shows a run: the single view (in compare mode, the run the pair was made
/// from), or one side of compare mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Main,
    Side(Side),
}

impl Slot {
    pub const ALL: [Slot; 3] = [Slot::Main, Slot::Side(Side::A), Slot::Side(Side::B)];

    pub fn index(self) -> usize {
        match self {
            Slot::Main => 0,
            Slot::Side(Side::A) => 1,
            Slot::Side(Side::B) => 2,
        }
    }
}

/// Compare mode's runs: the same scenario under two configurations, and the single run they
/// were made from.
pub struct Pair {
    /// The single view's run (compare mode was opened over it; it comes back when compare mode
    /// ends, at the op the sides were at).
    pub base: Session,
    pub a: Session,
    pub b: Session,
    pub config: ComparePair,
}

/// The runs on screen: one, or compare mode's pair.
pub enum Runs {
    Single(Box<Session>),
    Pair(Box<Pair>),
}

/// A run in the worker: which one, so a late message of a cancelled one is ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobId(pub u64);

/// How a finished worker run came back to the page: its bytes and the tasks the page read them
/// in (each short, so the page kept responding).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Handover {
    pub bytes: u64,
    pub tasks: u32,
}

/// What the run status strip shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RunStatus {
    /// Nothing running or to report.
    #[default]
    Idle,
    /// A long run in the worker: `done` of `total` ops.
    Running { name: String, done: u64, total: u64 },
    /// A trace replaying in the worker, read from its file in chunks: `pass` 1 (the replay) or
    /// 2 (the model choosing its own pages), `bytes` of the file's `total` read in this pass,
    /// the `lines` read and trace `events` replayed so far.
    Replaying {
        name: String,
        pass: u8,
        bytes: u64,
        total: u64,
        lines: u64,
        events: u64,
    },
    /// The worker has finished; the page is reading its `bytes` of result, a slice per task
    /// (`done` of `total` records read).
    Receiving {
        name: String,
        bytes: u64,
        done: u64,
        total: u64,
    },
    /// The last scenario asked for was over the limit (the message gives the count, the limit
    /// and how to lower it); the previous run stays.
    Refused(String),
    /// The worker failed (an error or a panic in the engine, a worker that would not start);
    /// the previous run stays.
    Failed(String),
}

/// What waits for the scenario just loaded to be on screen (a long run is in the worker until
/// then): a share link's position, a saved position, an embed host's reply.
pub enum AfterLoad {
    /// The main run to this position.
    Seek(u32),
    /// A share link's position, compare sides and presenter state.
    Restore(Box<SharePayload>),
    /// Answer the shell's `token` ([`Effect::Loaded`]).
    Notify(u64),
}

/// The whole state of the app, as data.
pub struct Model {
    /// Always `Some` (taken apart only inside [`set_compare`]); read it with [`Model::runs`].
    runs: Option<Runs>,
    next_run: u64,
    /// The default scenario's ops are still to run, after the first paint
    /// ([`Command::FinishFirstRun`]): the run is the largest piece of the start, and the first
    /// frame needs only the zone. They are read then (the ops' reader is the runner's module's).
    first_run: bool,
    /// False until the first run is in or another run has replaced it.
    pub first_run_done: bool,
    /// The selected built-in scenario id, or `"custom"` after an edit or a file load.
    pub scenario_id: String,
    /// The editor's text (may be invalid; the run keeps the last good one).
    pub editor_text: String,
    /// The last validation or run error, shown at the editor; `None` after a good load.
    pub error: Option<ScenarioError>,
    /// Playback: advancing visible events at the preferred speed.
    pub playing: bool,
    /// The page clicked in the memory map (zone-relative index): the page history shows it.
    pub selected_page: Option<u32>,
    /// Why the last compare configuration could not run; `None` after a good one.
    pub compare_error: Option<String>,
    /// The start state of the next trace replayed.
    pub trace_start: TraceStart,
    /// The start-state file opened for [`TraceStart::File`]: its name and scenario.
    pub trace_start_file: Option<(String, Box<Scenario>)>,
    /// The profile the user chose for the next replay; `None`: the one the input names.
    pub trace_profile: Option<Kernel>,
    /// Why the last trace was not replayed (the error names the line); the last good run stays.
    pub trace_error: Option<String>,
    /// The active tour stop (index into the scenario's `tour`); `None`: no tour playing.
    pub tour_stop: Option<usize>,
    /// Why the asked-for stop is not shown (`?tour=` beyond the tour), in the tour bar.
    pub tour_notice: Option<String>,
    /// A long run in the worker, a refused scenario or a failed run.
    pub run_status: RunStatus,
    /// The worker run in progress and the id its scenario loads under.
    job: Option<(JobId, String)>,
    /// The worker's job is a trace replay: its failure is the trace's error.
    job_is_replay: bool,
    next_job: u64,
    /// What waits for the run in the worker.
    after_load: Vec<AfterLoad>,
    /// The last worker run's hand-over.
    pub handover: Option<Handover>,
    /// Why the last share link (the address's, or a host's) could not be opened.
    pub share_error: Option<String>,
    /// Why the last `/proc` import's scenario did not load (the import form shows it).
    pub import_error: Option<ScenarioError>,
    pub exercises: Exercises,
    pub saved: SavedWork,
}

/// Everything that can happen to the model.
pub enum Command {
    /// Start-up: what the address asks for (a plain address reopens the saved work).
    Open(Box<Route>),
    /// Runs the default scenario's ops if they have not run yet (a no-op after that).
    FinishFirstRun,
    /// A scenario text (the editor, a file, a `/proc` import, a host), under a built-in id or
    /// `"custom"`: costed, then run on the page, in the worker, or refused.
    Load {
        text: String,
        id: String,
    },
    /// A built-in scenario by id.
    LoadBuiltin(String),
    /// Like [`Command::Load`], but a text that does not load leaves the editor as it was (the
    /// `/proc` import writes the scenario, which is only shown when it runs).
    Import {
        text: String,
    },
    /// A share link (an embed host's `load`): its scenario, position, compare and presenter
    /// state.
    Share(Box<SharePayload>),
    TraceStart(TraceStart),
    /// A start-state file was read ([`buddyscope::scenario::parse_start_state`]): it becomes
    /// the start state ([`TraceStart::File`]), or the error is shown and nothing changes.
    TraceStartFile(Result<(String, Box<Scenario>), String>),
    /// The profile of the next replay (`None`: the one the input names).
    TraceProfile(Option<Kernel>),
    /// A trace file was opened (its `name` and size in `bytes`; the shell holds the file): it
    /// replays in the worker from the chosen start state, or the error says why not.
    ReplayFile {
        name: String,
        bytes: u64,
    },
    /// The replay worker's progress ([`RunStatus::Replaying`]).
    ReplayProgress {
        job: JobId,
        pass: u8,
        bytes: u64,
        total: u64,
        lines: u64,
        events: u64,
    },
    /// The replay's next (or previous) prediction miss after (before) the cursor.
    NextMiss,
    PrevMiss,
    /// The worker's progress: `done` of `total` ops.
    WorkerProgress {
        job: JobId,
        done: u64,
        total: u64,
    },
    /// The worker has finished: the page reads its `bytes`.
    WorkerReceiving {
        job: JobId,
        bytes: u64,
    },
    /// Reading the finished run: `done` of `total` records.
    ReceiveProgress {
        job: JobId,
        done: u64,
        total: u64,
    },
    /// The worker's run is read: it replaces the current run.
    WorkerDone {
        job: JobId,
        session: Box<Session>,
        handover: Handover,
    },
    /// The worker failed or would not start; the current run stays.
    WorkerFailed {
        job: JobId,
        message: String,
    },
    /// Stops the run in progress (the current run stays) and clears the status strip.
    Cancel,
    /// Hides a refusal or a failure.
    DismissStatus,
    /// Replaces the editor's text (typing; nothing runs).
    Edit(String),
    /// The cursor: each stops playback. In compare mode the steps move both sides
    /// ([`lockstep`]); a seek moves the main run.
    Seek(u32),
    /// The scrubber: the event at this fraction of the run.
    SeekFraction(f64),
    StepForward,
    StepBack,
    OpForward,
    OpBack,
    JumpStart,
    JumpEnd,
    /// Playback: `n` visible events forward, stopping at the end.
    Advance(u32),
    /// A zone tab: the zone a slot's panels show.
    ShowZone {
        slot: Slot,
        zone: usize,
    },
    Play,
    Pause,
    TogglePlay,
    /// Compare mode with this pair, or off (`None`), at the same op.
    SetCompare(Option<ComparePair>),
    /// One side's kernel or rmqueue_mode memory changed: both sides run again, at the same op.
    ChangeSide {
        side: Side,
        change: SideChange,
    },
    /// Presenter mode on (starts the tour, if any and none is active) or off (ends the tour).
    Present(bool),
    TourGo(usize),
    TourNext,
    TourPrev,
    TourEnd,
    /// A click on a page of a slot's map: an exercise's page answer, else the page history's page.
    ClickPage {
        slot: Slot,
        page: u32,
    },
    /// The page history's page (typed pfn), or none.
    SelectPage(Option<u32>),
    /// A click on a free list: an exercise's list answer.
    ClickList {
        order: u8,
        mt: MigrateType,
    },
    Exercise(ExerciseCommand),
    Saved(SavedCommand),
    /// Answers `token` ([`Effect::Loaded`]) once the scenario just loaded is on screen.
    WhenLoaded(u64),
}

/// One compare side's knob.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SideChange {
    Kernel(Kernel),
    ModeMemory(bool),
}

/// What the shell must do after an update.
pub enum Effect {
    /// Run `text` (validated: `valid`) in the worker; its messages come back as
    /// `Worker*` commands with `job`.
    StartWorker {
        job: JobId,
        text: String,
        valid: Box<ValidScenario>,
    },
    /// Replay the trace file the shell holds (`file`: its name) in the worker from `valid`
    /// (its scenario: [`session::replay_start`]'s); its messages come back as `ReplayProgress`
    /// and `Worker*` commands with `job`.
    StartReplay {
        job: JobId,
        file: String,
        valid: Box<ValidScenario>,
        profile: String,
    },
    /// Terminate the worker run in progress (and stop reading its result).
    CancelWorker,
    /// The scenario loaded before [`Command::WhenLoaded`]`(token)` is on screen, or will not be.
    Loaded {
        token: u64,
        result: Result<(), String>,
    },
    /// Presenter mode on or off, the map following the action or not (a share link, `?tour=`,
    /// `?present`); off also un-blanks.
    Presenter { on: bool, follow: Option<bool> },
    /// A write to the saved work; on success the shell reads the store again and reports it
    /// ([`SavedCommand::Listing`], with `status`), on refusal [`SavedCommand::Refused`].
    Store {
        write: work::StoreWrite,
        status: Option<String>,
    },
    /// Fetch an exercise set; the reply comes back as [`ExerciseCommand::Fetched`].
    FetchSet(String),
    /// Parse, check and resolve an exercise set's text (every exercise's scenario runs once);
    /// the set comes back as [`ExerciseCommand::Opened`].
    OpenSet { text: String, source: String },
    /// Play an exercise's reveal over `ms` milliseconds ([`ExerciseCommand::RevealFrame`]), or
    /// at once under reduced motion ([`ExerciseCommand::FinishReveal`]).
    Reveal { ms: f64 },
    /// Stop the reveal's timer.
    StopReveal,
    /// Move the keyboard focus (after the views have rendered).
    Focus(Focus),
}

/// Where [`Effect::Focus`] moves the focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The exercise panel into view, if it is out of sight (it has moved beside the map).
    ExercisePanel,
    /// The question's text, so it is read out and Tab reaches the answer next.
    Question,
    /// "Next question", or the result on the last question.
    Result,
}

impl Model {
    /// The default built-in scenario's zone, its run pending
    /// ([`Command::FinishFirstRun`]).
    pub fn new() -> Model {
        let b = builtin::default();
        let session = Session::initial(b.json()).expect("the default built-in scenario loads");
        let mut m = Model {
            runs: Some(Runs::Single(Box::new(session))),
            next_run: 0,
            first_run: true,
            first_run_done: false,
            scenario_id: b.id.to_string(),
            editor_text: b.json().to_string(),
            error: None,
            playing: false,
            selected_page: None,
            compare_error: None,
            trace_start: TraceStart::Scenario,
            trace_start_file: None,
            trace_profile: None,
            trace_error: None,
            tour_stop: None,
            tour_notice: None,
            run_status: RunStatus::Idle,
            job: None,
            job_is_replay: false,
            next_job: 0,
            after_load: Vec::new(),
            handover: None,
            share_error: None,
            import_error: None,
            exercises: Exercises::default(),
            saved: SavedWork::default(),
        };
        let id = m.new_run_id();
        m.main_mut().id = id;
        m
    }

    fn new_run_id(&mut self) -> RunId {
        self.next_run += 1;
        RunId(self.next_run)
    }

    pub fn runs(&self) -> &Runs {
        self.runs
            .as_ref()
            .expect("the runs are in place between updates")
    }

    fn runs_mut(&mut self) -> &mut Runs {
        self.runs
            .as_mut()
            .expect("the runs are in place between updates")
    }

    /// The single view's run (in compare mode, the run the pair was made from).
    pub fn main(&self) -> &Session {
        match self.runs() {
            Runs::Single(s) => s,
            Runs::Pair(p) => &p.base,
        }
    }

    pub fn main_mut(&mut self) -> &mut Session {
        match self.runs_mut() {
            Runs::Single(s) => s,
            Runs::Pair(p) => &mut p.base,
        }
    }

    /// Compare mode's pair, if on.
    pub fn pair(&self) -> Option<&Pair> {
        match self.runs() {
            Runs::Pair(p) => Some(p),
            Runs::Single(_) => None,
        }
    }

    /// True when compare mode shows two runs.
    pub fn comparing(&self) -> bool {
        self.pair().is_some()
    }

    /// The compare configuration in effect; `None` is the single view.
    pub fn compare(&self) -> Option<&ComparePair> {
        self.pair().map(|p| &p.config)
    }

    /// The run a slot shows (`None` for a side outside compare mode).
    pub fn session(&self, slot: Slot) -> Option<&Session> {
        match (slot, self.runs()) {
            (Slot::Main, _) => Some(self.main()),
            (Slot::Side(Side::A), Runs::Pair(p)) => Some(&p.a),
            (Slot::Side(Side::B), Runs::Pair(p)) => Some(&p.b),
            (Slot::Side(_), Runs::Single(_)) => None,
        }
    }

    fn session_mut(&mut self, slot: Slot) -> Option<&mut Session> {
        if slot == Slot::Main {
            return Some(self.main_mut());
        }
        match (slot, self.runs_mut()) {
            (Slot::Main, _) => None,
            (Slot::Side(Side::A), Runs::Pair(p)) => Some(&mut p.a),
            (Slot::Side(Side::B), Runs::Pair(p)) => Some(&mut p.b),
            (Slot::Side(_), Runs::Single(_)) => None,
        }
    }

    /// Both sides' timelines (compare mode).
    fn sides_mut(&mut self) -> Option<(&mut Timeline, &mut Timeline)> {
        match self.runs_mut() {
            Runs::Pair(p) => Some((&mut p.a.timeline, &mut p.b.timeline)),
            Runs::Single(_) => None,
        }
    }

    /// True while a run is in the worker or being received from it: a scenario just loaded is
    /// not the current run yet.
    pub fn pending(&self) -> bool {
        matches!(
            self.run_status,
            RunStatus::Running { .. } | RunStatus::Receiving { .. }
        )
    }

    /// True when the cursor is at the end of the run (both sides' in compare mode).
    pub fn at_end(&self) -> bool {
        match self.runs() {
            Runs::Pair(p) => lockstep::at_end(&p.a.timeline, &p.b.timeline),
            Runs::Single(s) => s.timeline.pos() >= s.timeline.len(),
        }
    }

    /// The scenario's own pair (or `v7.1` vs `v7.2`) for the main run.
    pub fn default_pair(&self) -> ComparePair {
        ComparePair::default_for(&self.main().scenario)
    }

    /// The payload of a share link of what is on screen now, with the presenter preferences.
    pub fn share_payload(&self, presenter: bool, follow: bool) -> SharePayload {
        let main = self.main();
        let compare = self.pair().map(|p| CompareShare {
            pair: p.config.clone(),
            pos_a: p.a.timeline.pos(),
            pos_b: p.b.timeline.pos(),
        });
        SharePayload {
            text: main.text.clone(),
            id: self.scenario_id.clone(),
            pos: main.timeline.pos(),
            mode: if compare.is_some() {
                ShareMode::Compare
            } else {
                ShareMode::Single
            },
            compare,
            presenter: PresenterState {
                presenter,
                tour_stop: self.tour_stop.map(|i| i as u32),
                follow,
            },
        }
    }
}

impl Default for Model {
    fn default() -> Self {
        Model::new()
    }
}

/// Applies `cmd` to the model; returns what the shell must do, in order.
pub fn update(m: &mut Model, cmd: Command) -> Vec<Effect> {
    let mut fx = Vec::new();
    if reads_the_run(&cmd) {
        finish_first_run(m);
    }
    match cmd {
        Command::Open(route) => route::open(m, *route, &mut fx),
        Command::FinishFirstRun => finish_first_run(m),
        Command::Load { text, id } => {
            let _ = load_text(m, &text, &id, &mut fx);
        }
        Command::LoadBuiltin(id) => {
            let _ = load_builtin(m, &id, &mut fx);
        }
        Command::Import { text } => {
            let (editor, editor_error) = (m.editor_text.clone(), m.error.clone());
            match load_text(m, &text, "custom", &mut fx) {
                Ok(()) => m.import_error = None,
                Err(e) => {
                    // The paste, not the editor, was wrong: the editor keeps what it had.
                    m.editor_text = editor;
                    m.error = editor_error;
                    m.import_error = Some(e);
                }
            }
        }
        Command::Share(p) => m.share_error = apply_share(m, &p, &mut fx).err(),
        Command::TraceStart(t) => m.trace_start = t,
        Command::TraceStartFile(f) => match f {
            Ok(f) => {
                m.trace_start_file = Some(f);
                m.trace_start = TraceStart::File;
                m.trace_error = None;
            }
            Err(e) => m.trace_error = Some(e),
        },
        Command::TraceProfile(k) => m.trace_profile = k,
        Command::ReplayFile { name, bytes } => start_replay(m, name, bytes, &mut fx),
        Command::ReplayProgress {
            job,
            pass,
            bytes,
            total,
            lines,
            events,
        } => {
            if current_job(m, job) {
                if let RunStatus::Replaying { name, .. } = &m.run_status {
                    m.run_status = RunStatus::Replaying {
                        name: name.clone(),
                        pass,
                        bytes,
                        total,
                        lines,
                        events,
                    };
                }
            }
        }
        Command::NextMiss => miss_jump(m, true),
        Command::PrevMiss => miss_jump(m, false),
        Command::WorkerProgress { job, done, total } => {
            if current_job(m, job) {
                if let RunStatus::Running {
                    done: d, total: t, ..
                } = &mut m.run_status
                {
                    *d = done;
                    *t = total;
                }
            }
        }
        Command::WorkerReceiving { job, bytes } => {
            if current_job(m, job) {
                let name = match &m.run_status {
                    RunStatus::Running { name, .. } | RunStatus::Replaying { name, .. } => {
                        name.clone()
                    }
                    _ => String::new(),
                };
                m.run_status = RunStatus::Receiving {
                    name,
                    bytes,
                    done: 0,
                    total: 0,
                };
            }
        }
        Command::ReceiveProgress { job, done, total } => {
            if current_job(m, job) {
                if let RunStatus::Receiving {
                    done: d, total: t, ..
                } = &mut m.run_status
                {
                    *d = done;
                    *t = total;
                }
            }
        }
        Command::WorkerDone {
            job,
            session,
            handover,
        } => {
            if let Some((_, id)) = m.job.take_if(|(j, _)| *j == job) {
                m.run_status = RunStatus::Idle;
                m.handover = Some(handover);
                if std::mem::take(&mut m.job_is_replay) {
                    m.trace_error = None;
                }
                install(m, *session, &id);
                settle(m, Ok(()), &mut fx);
            }
        }
        Command::WorkerFailed { job, message } => {
            if m.job.take_if(|(j, _)| *j == job).is_some() {
                if std::mem::take(&mut m.job_is_replay) {
                    // The trace's error, at the trace's panel; the last good run stays.
                    m.run_status = RunStatus::Idle;
                    m.trace_error = Some(message);
                } else {
                    m.run_status = RunStatus::Failed(message.clone());
                    settle(m, Err(message), &mut fx);
                }
            }
        }
        Command::Cancel => cancel(m, &mut fx),
        Command::DismissStatus => m.run_status = RunStatus::Idle,
        Command::Edit(text) => m.editor_text = text,
        Command::Seek(pos) => {
            m.playing = false;
            m.main_mut().timeline.seek(pos);
        }
        Command::SeekFraction(f) => {
            m.playing = false;
            let t = &mut m.main_mut().timeline;
            let target = (f.clamp(0.0, 1.0) * f64::from(t.len())).round() as u32;
            if target != t.pos() {
                t.seek(target);
            }
        }
        Command::StepForward => stepping(m, lockstep::step_forward, Timeline::step_forward),
        Command::StepBack => stepping(m, lockstep::step_back, Timeline::step_back),
        Command::OpForward => stepping(m, lockstep::op_forward, Timeline::op_forward),
        Command::OpBack => stepping(m, lockstep::op_back, Timeline::op_back),
        Command::JumpStart => stepping(
            m,
            |a, b| {
                a.seek(0);
                b.seek(0);
            },
            |t| t.seek(0),
        ),
        Command::JumpEnd => stepping(
            m,
            |a, b| {
                a.seek(a.len());
                b.seek(b.len());
            },
            |t| t.seek(t.len()),
        ),
        Command::Advance(n) => {
            advance(m, n);
            if m.at_end() {
                m.playing = false;
            }
        }
        Command::ShowZone { slot, zone } => {
            if let Some(s) = m.session_mut(slot) {
                s.timeline.set_view_zone(Some(zone));
            }
        }
        Command::Play => play(m),
        Command::Pause => m.playing = false,
        Command::TogglePlay => {
            if m.playing {
                m.playing = false;
            } else {
                play(m);
            }
        }
        Command::SetCompare(pair) => switch_compare(m, pair),
        Command::ChangeSide { side, change } => change_side(m, side, change),
        Command::Present(on) => tour::present(m, on),
        Command::TourGo(i) => tour::go(m, i),
        Command::TourNext => tour::next(m),
        Command::TourPrev => tour::prev(m),
        Command::TourEnd => m.tour_stop = None,
        Command::ClickPage { slot, page } => {
            let pfn = m.session(slot).map(|s| s.timeline.zone().abs_pfn(page));
            if !pfn.is_some_and(|pfn| exercises::take_page(m, pfn)) {
                m.selected_page = Some(page);
            }
        }
        Command::SelectPage(page) => m.selected_page = page,
        Command::ClickList { order, mt } => {
            exercises::take_list(m, order, mt);
        }
        Command::Exercise(c) => exercises::update(m, c, &mut fx),
        Command::Saved(c) => work::update(m, c, &mut fx),
        Command::WhenLoaded(token) => when_loaded(m, AfterLoad::Notify(token), &mut fx),
    }
    fx
}

/// Commands that read or move the run: the default scenario's first run is finished before
/// them, so none sees the zone without its run (a key pressed during the first frame, a tour,
/// a host's command). Loads replace it instead; the start-up's `Open` finishes it only where
/// it reads the run.
fn reads_the_run(cmd: &Command) -> bool {
    !matches!(
        cmd,
        Command::Open(_)
            | Command::FinishFirstRun
            | Command::Load { .. }
            | Command::LoadBuiltin(_)
            | Command::Import { .. }
            | Command::Share(_)
            | Command::TraceStart(_)
            | Command::TraceStartFile(_)
            | Command::TraceProfile(_)
            | Command::WorkerProgress { .. }
            | Command::ReplayProgress { .. }
            | Command::WorkerReceiving { .. }
            | Command::ReceiveProgress { .. }
            | Command::WorkerDone { .. }
            | Command::WorkerFailed { .. }
            | Command::Cancel
            | Command::DismissStatus
            | Command::Edit(_)
            | Command::Pause
            | Command::Saved(_)
            | Command::WhenLoaded(_)
    )
}

/// The main run to its replay's next (`forward`) or previous listed prediction miss, if any;
/// stops playback.
fn miss_jump(m: &mut Model, forward: bool) {
    let s = m.main_mut();
    let Some(r) = &s.replay else { return };
    let pos = s.timeline.pos();
    let at = &r.miss_positions;
    let target = if forward {
        at.get(at.partition_point(|p| p.0 <= pos)).map(|p| p.0)
    } else {
        at.partition_point(|p| p.0 < pos)
            .checked_sub(1)
            .map(|i| at[i].0)
    };
    if let Some(t) = target {
        s.timeline.seek(t);
        m.playing = false;
    }
}

/// Runs the default scenario's ops now if they have not run yet.
pub(crate) fn finish_first_run(m: &mut Model) {
    if !std::mem::take(&mut m.first_run) {
        return;
    }
    let text = m.main().text.clone();
    match crate::late::parse_valid(&text).and_then(|valid| Session::run(&text, valid)) {
        Ok(s) => {
            let id = m.new_run_id();
            *m.main_mut() = Session { id, ..s };
        }
        // A built-in that does not run is a bug (the engine's tests run every one): the zone
        // stays on screen with the error at the editor.
        Err(e) => m.error = Some(e),
    }
    m.first_run_done = true;
}

/// Another run replaces the first one before it ran: it never runs.
fn skip_first_run(m: &mut Model) {
    if std::mem::take(&mut m.first_run) {
        m.first_run_done = true;
    }
}

/// The id a scenario text loads under: the built-in's, if the text is still that built-in's.
pub(crate) fn builtin_id<'a>(id: &'a str, text: &str) -> &'a str {
    match builtin::get(id) {
        Some(b) if b.json() == text => id,
        _ => "custom",
    }
}

/// Loads a scenario text. It is costed first ([`plan`]): over the limit it is refused
/// (`run_status`), a long run starts in the worker (it replaces the current run when it
/// finishes), a small one runs now and replaces the current run (cursor at the start). On
/// failure the error is set; in every case but success the last good run stays.
pub(crate) fn load_text(
    m: &mut Model,
    text: &str,
    id: &str,
    fx: &mut Vec<Effect>,
) -> Result<(), ScenarioError> {
    m.editor_text = text.to_string();
    let valid = match crate::late::parse_valid(text) {
        Ok(v) => v,
        Err(e) => {
            m.error = Some(e.clone());
            return Err(e);
        }
    };
    match plan(&valid) {
        Plan::Refuse(e) => {
            cancel(m, fx);
            m.error = None;
            m.run_status = RunStatus::Refused(e.to_string());
            return Err(e);
        }
        Plan::Worker { total } => {
            m.error = None;
            start_worker(m, text, id, valid, total, fx);
            return Ok(());
        }
        Plan::Now => {}
    }
    match Session::run(text, valid) {
        Ok(s) => {
            cancel(m, fx);
            install(m, s, id);
            Ok(())
        }
        Err(e) => {
            m.error = Some(e.clone());
            Err(e)
        }
    }
}

/// Loads a built-in scenario by id.
pub(crate) fn load_builtin(
    m: &mut Model,
    id: &str,
    fx: &mut Vec<Effect>,
) -> Result<(), ScenarioError> {
    match builtin::get(id) {
        Some(b) => load_text(m, b.json(), b.id, fx),
        None => Err(no_builtin(id)),
    }
}

/// Why a built-in scenario id loads nothing.
pub fn no_builtin(id: &str) -> ScenarioError {
    ScenarioError::new(
        "",
        format!("no built-in scenario {id:?}"),
        "pick one from the list",
    )
}

/// Makes `s` the current run under `id`, cursor at the start. Compare mode stays on, with the
/// new scenario's own pair.
fn install(m: &mut Model, s: Session, id: &str) {
    skip_first_run(m);
    let sid = m.new_run_id();
    *m.main_mut() = Session { id: sid, ..s };
    m.scenario_id = id.to_string();
    m.error = None;
    m.playing = false;
    m.selected_page = None;
    m.tour_stop = None;
    if m.comparing() {
        let pair = m.default_pair();
        set_compare(m, Some(pair));
    }
}

/// An [`Effect::Store`] of `entry` under `key` (its `saved_at` is stamped by the shell).
fn store_put(key: String, entry: crate::saved::Entry, status: Option<String>) -> Effect {
    Effect::Store {
        write: work::StoreWrite::Put { key, entry },
        status,
    }
}

// --- the worker ------------------------------------------------------------------------------

fn current_job(m: &Model, job: JobId) -> bool {
    m.job.as_ref().is_some_and(|(j, _)| *j == job)
}

/// Starts `text` in the worker; when it finishes the run replaces the current one (cursor at
/// the start) under `id`. Until then, and if it is cancelled or fails, the current run stays.
fn start_worker(
    m: &mut Model,
    text: &str,
    id: &str,
    valid: ValidScenario,
    total: u64,
    fx: &mut Vec<Effect>,
) {
    cancel(m, fx);
    m.next_job += 1;
    let job = JobId(m.next_job);
    m.job = Some((job, id.to_string()));
    m.run_status = RunStatus::Running {
        name: valid.name.clone(),
        done: 0,
        total,
    };
    fx.push(Effect::StartWorker {
        job,
        text: text.to_string(),
        valid: Box::new(valid),
    });
}

/// Replays the trace file `name` (`bytes` long) in the worker from the chosen start state and
/// profile; the current run stays until it is in. Without a start state, the error says so.
fn start_replay(m: &mut Model, name: String, bytes: u64, fx: &mut Vec<Effect>) {
    let start = match m.trace_start {
        TraceStart::Boot => Some(Scenario::default()),
        TraceStart::Scenario => Some(m.main().scenario.clone()),
        TraceStart::File => m.trace_start_file.as_ref().map(|f| Scenario::clone(&f.1)),
    };
    let Some(start) = start else {
        m.trace_error = Some(format!(
            "{name}: no start-state file is open: open one (a scenario or a drgn snapshot) first"
        ));
        return;
    };
    let (scenario, profile) = session::replay_start(&start, m.trace_profile, &name);
    let valid = match crate::late::validate(scenario) {
        Ok(v) => v,
        Err(e) => {
            m.trace_error = Some(format!("{name}: {e}"));
            return;
        }
    };
    cancel(m, fx);
    m.next_job += 1;
    let job = JobId(m.next_job);
    m.job = Some((job, "custom".to_string()));
    m.job_is_replay = true;
    m.trace_error = None;
    m.run_status = RunStatus::Replaying {
        name: name.clone(),
        pass: 1,
        bytes: 0,
        total: bytes,
        lines: 0,
        events: 0,
    };
    fx.push(Effect::StartReplay {
        job,
        file: name,
        valid: Box::new(valid),
        profile,
    });
}

/// Stops the run in progress, if any (the previous run stays), and clears the status strip.
fn cancel(m: &mut Model, fx: &mut Vec<Effect>) {
    let was_pending = m.pending();
    m.job_is_replay = false;
    if m.job.take().is_some() {
        fx.push(Effect::CancelWorker);
    }
    m.run_status = RunStatus::Idle;
    if was_pending {
        settle(m, Err("the run was cancelled".to_string()), fx);
    }
}

/// `a` now if the scenario just loaded is on screen (a run on the page, or none), else once the
/// worker's run has replaced the current run (or will not).
pub(crate) fn when_loaded(m: &mut Model, a: AfterLoad, fx: &mut Vec<Effect>) {
    if m.pending() {
        m.after_load.push(a);
    } else {
        after_load(m, a, Ok(()), fx);
    }
}

/// Hands the worker run's outcome to everything waiting for it, in the order it was asked.
fn settle(m: &mut Model, result: Result<(), String>, fx: &mut Vec<Effect>) {
    for a in std::mem::take(&mut m.after_load) {
        after_load(m, a, result.clone(), fx);
    }
}

fn after_load(m: &mut Model, a: AfterLoad, result: Result<(), String>, fx: &mut Vec<Effect>) {
    match a {
        AfterLoad::Seek(pos) => {
            if result.is_ok() {
                m.main_mut().timeline.seek(pos);
            }
        }
        AfterLoad::Restore(p) => {
            if result.is_ok() {
                // A compare configuration of a worker run fails (compare runs on the page);
                // `compare_error` shows why.
                let _ = restore_share(m, &p, fx);
            }
        }
        AfterLoad::Notify(token) => fx.push(Effect::Loaded { token, result }),
    }
}

// --- share links ---------------------------------------------------------------------------

/// Applies a decoded link: loads its scenario and moves to its position (once the run is on
/// screen, for a long run in the worker).
pub(crate) fn apply_share(
    m: &mut Model,
    p: &SharePayload,
    fx: &mut Vec<Effect>,
) -> Result<(), String> {
    let id = builtin_id(&p.id, &p.text);
    load_text(m, &p.text, id, fx).map_err(|e| {
        if matches!(m.run_status, RunStatus::Refused(_)) {
            format!("The shared scenario was not run ({e}). The default scenario is shown instead.")
        } else {
            format!("The shared scenario does not load in this version ({e}). The default scenario is shown instead.")
        }
    })?;
    // A long run is still in the worker: the position (and the rest) is the new run's, so it
    // waits for it; restored on the run on screen meanwhile it would be lost when the new one
    // replaces it at event 0.
    if m.pending() {
        m.after_load.push(AfterLoad::Restore(Box::new(p.clone())));
        return Ok(());
    }
    restore_share(m, p, fx)
}

/// Moves the loaded run to the link's position, compare sides and presenter state.
fn restore_share(m: &mut Model, p: &SharePayload, fx: &mut Vec<Effect>) -> Result<(), String> {
    m.main_mut().timeline.seek(p.pos);
    if let Some(c) = &p.compare {
        set_compare(m, Some(c.pair.clone()));
        if let Some(e) = &m.compare_error {
            return Err(format!(
                "The shared compare configuration does not run in this version ({e}). The default scenario is shown instead."
            ));
        }
        if let Some((a, b)) = m.sides_mut() {
            a.seek(c.pos_a);
            b.seek(c.pos_b);
        }
    }
    tour::restore_presenter(m, &p.presenter, fx);
    Ok(())
}

/// A link that could not be opened: back to the default scenario, whatever a half-applied link
/// did; a refusal (over the run limits) stays on screen with its count and limit.
pub(crate) fn share_failed(m: &mut Model, fx: &mut Vec<Effect>) {
    let status = m.run_status.clone();
    set_compare(m, None);
    tour::restore_presenter(m, &PresenterState::default(), fx);
    let _ = load_builtin(m, builtin::default().id, fx);
    if matches!(status, RunStatus::Refused(_)) {
        m.run_status = status;
    }
}

// --- the cursor ----------------------------------------------------------------------------

/// A user's step: playback stops; both sides move in compare mode, else the main run.
fn stepping(m: &mut Model, pair: fn(&mut Timeline, &mut Timeline), one: fn(&mut Timeline)) {
    m.playing = false;
    match m.sides_mut() {
        Some((a, b)) => pair(a, b),
        None => one(&mut m.main_mut().timeline),
    }
}

/// `n` event steps forward (playback), stopping at the end; both sides in compare mode.
fn advance(m: &mut Model, n: u32) {
    match m.sides_mut() {
        Some((a, b)) => lockstep::advance(a, b, n),
        None => {
            let tl = &mut m.main_mut().timeline;
            for _ in 0..n {
                if tl.pos() >= tl.len() {
                    break;
                }
                tl.step_forward();
            }
        }
    }
}

/// Playback on; from the end it starts over.
fn play(m: &mut Model) {
    if m.at_end() {
        stepping(
            m,
            |a, b| {
                a.seek(0);
                b.seek(0);
            },
            |t| t.seek(0),
        );
    }
    m.playing = true;
}

// --- compare mode --------------------------------------------------------------------------

/// Turns compare mode on with `pair` (both sides run from the main run's text, cursors at the
/// start) or off with `None`. On failure compare mode stays off and `compare_error` says why.
pub(crate) fn set_compare(m: &mut Model, pair: Option<ComparePair>) {
    m.playing = false;
    let base = match m
        .runs
        .take()
        .expect("the runs are in place between updates")
    {
        Runs::Single(s) => *s,
        Runs::Pair(p) => p.base,
    };
    let Some(config) = pair else {
        m.runs = Some(Runs::Single(Box::new(base)));
        m.compare_error = None;
        return;
    };
    let sides = Session::load_side(&base.text, &config, Side::A)
        .and_then(|a| Ok((a, Session::load_side(&base.text, &config, Side::B)?)));
    match sides {
        Ok((a, b)) => {
            let (ida, idb) = (m.new_run_id(), m.new_run_id());
            m.runs = Some(Runs::Pair(Box::new(Pair {
                base,
                a: Session { id: ida, ..a },
                b: Session { id: idb, ..b },
                config,
            })));
            m.compare_error = None;
        }
        Err(e) => {
            m.runs = Some(Runs::Single(Box::new(base)));
            m.compare_error = Some(e.to_string());
        }
    }
}

/// Compare mode on or off, keeping the op position (the single view's finished ops become
/// both sides' and back); a tour stop on screen stays on screen (its event too).
fn switch_compare(m: &mut Model, pair: Option<ComparePair>) {
    let k = match m.pair() {
        Some(p) => p.a.timeline.ops_done().min(p.b.timeline.ops_done()),
        None => m.main().timeline.ops_done(),
    };
    let stop = tour::here(m);
    set_compare(m, pair);
    match m.sides_mut() {
        Some((a, b)) => lockstep::seek_ops(a, b, k),
        None => lockstep::seek_ops_one(&mut m.main_mut().timeline, k),
    }
    if let Some(i) = stop {
        tour::go(m, i);
    }
}

/// Changes one side of the pair in effect and runs both again, keeping the op position.
fn change_side(m: &mut Model, side: Side, change: SideChange) {
    let Some(p) = m.pair() else {
        return;
    };
    let mut config = p.config.clone();
    let ops = p.a.timeline.ops_done();
    let s = config.side_mut(side);
    match change {
        SideChange::Kernel(k) => s.kernel = Some(k),
        SideChange::ModeMemory(on) => s.rmqueue_mode_memory = Some(on),
    }
    s.label = s.auto_label(&m.main().scenario);
    set_compare(m, Some(config));
    for _ in 0..ops {
        stepping(m, lockstep::op_forward, Timeline::op_forward);
    }
}
