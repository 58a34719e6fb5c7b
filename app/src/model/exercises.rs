//! Exercise mode: predict, then reveal. A set opens from the shipped sets, a file or a URL; the
//! run is put at each question's position (the engine's `asked_at`), the student answers (a
//! choice, a number, a page clicked on the map, a free list clicked in the free-list table),
//! the engine judges it ([`crate::exercise::judge`]), the step plays to `reveal_to` (the shell
//! animates it, or jumps under `prefers-reduced-motion: reduce`), and the result shows with the
//! engine's explanation. Progress is saved per set.

use buddyscope::explain::exercises::{builtin_sets, Answer, AnswerKind, ScenarioError};
use buddyscope::mm::MigrateType;

use super::{Effect, Focus, Model};
use crate::exercise::{self, judge, next_unanswered, parse_number, OpenSet};
use crate::saved::{self, Entry, Progress, Saved};

/// Where the current question is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the answer, the run at `asked_at`.
    #[default]
    Asking,
    /// The answer is in; the step is playing towards `reveal_to`.
    Revealing,
    /// The run is at `reveal_to`; the result shows.
    Revealed,
}

/// The reveal plays at this pace (ms per event), at most [`REVEAL_MAX_MS`] in all.
pub const REVEAL_MS_PER_EVENT: f64 = 120.0;
pub const REVEAL_MAX_MS: f64 = 1200.0;

/// Exercise mode's state.
#[derive(Default)]
pub struct Exercises {
    /// The open set.
    pub set: Option<OpenSet>,
    /// Counts the sets opened and closed: what shows the set's questions follows it.
    pub rev: u64,
    /// Answers and the current question; `None` without an open set.
    pub progress: Option<Progress>,
    pub phase: Phase,
    /// The answer picked (choice, click) but not submitted yet.
    pub pending: Option<Answer>,
    /// The number field's text.
    pub number: String,
    /// The pfn field's text (the keyboard's way to answer a page question).
    pub pfn: String,
    /// Why the last set did not open; the current set stays.
    pub error: Option<ScenarioError>,
    /// Why an answer is missing.
    pub note: Option<String>,
    /// "Fetching …" while a URL loads.
    pub loading: Option<String>,
    /// Why `?exercises=` opened nothing, shown at the top of the page.
    pub banner: Option<String>,
    /// The reveal that is playing: from, to.
    reveal: Option<(u32, u32)>,
    /// What the address asks for after the set it opens (`?tour=`, `?present`): applied once
    /// the set is open.
    pub(super) then: Option<super::tour::Ask>,
}

/// What the views show of exercise mode (one value: a change re-renders the exercise panel,
/// which shows most of it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExerciseView {
    /// Counts the sets opened and closed.
    pub rev: u64,
    pub open: bool,
    pub progress: Option<Progress>,
    pub phase: Phase,
    pub pending: Option<Answer>,
    pub number: String,
    pub pfn: String,
    pub error: Option<ScenarioError>,
    pub note: Option<String>,
    pub loading: Option<String>,
    pub banner: Option<String>,
    /// The answer the current question wants, while it is asked (the map and the free-list
    /// table take clicks as answers then).
    pub asking: Option<AnswerKind>,
}

impl Exercises {
    pub fn view(&self) -> ExerciseView {
        ExerciseView {
            rev: self.rev,
            open: self.set.is_some(),
            progress: self.progress.clone(),
            phase: self.phase,
            pending: self.pending,
            number: self.number.clone(),
            pfn: self.pfn.clone(),
            error: self.error.clone(),
            note: self.note.clone(),
            loading: self.loading.clone(),
            banner: self.banner.clone(),
            asking: self.asking(),
        }
    }

    /// The current question's index.
    pub fn current(&self) -> Option<usize> {
        self.progress.as_ref().map(|p| p.current)
    }

    /// The kind of answer the current question wants, while it is being asked.
    pub fn asking(&self) -> Option<AnswerKind> {
        if self.phase != Phase::Asking {
            return None;
        }
        let i = self.current()?;
        self.set
            .as_ref()?
            .question(i)
            .map(|(_, q)| exercise::kind(q))
    }

    /// The progress key of the open set (the last position remembers it).
    pub fn progress_key(&self) -> Option<String> {
        self.progress
            .as_ref()
            .map(|p| saved::progress_key(&p.set_id))
    }

    /// The answer as given so far (a typed number or pfn is read here).
    fn answer(&self) -> Option<Answer> {
        match self.asking()? {
            AnswerKind::Number => parse_number(&self.number).map(Answer::Number),
            AnswerKind::Page => self
                .pending
                .or_else(|| parse_number(&self.pfn).map(Answer::Page)),
            AnswerKind::Choice | AnswerKind::List => self.pending,
        }
    }
}

/// What the exercise panel, the map and the free-list table ask of exercise mode.
pub enum ExerciseCommand {
    /// A set's text from a file: parsed, checked and resolved by the shell
    /// ([`Effect::OpenSet`]), then opened ([`ExerciseCommand::Opened`]).
    OpenText {
        text: String,
        source: String,
    },
    /// A set parsed, checked and resolved (every exercise's scenario run once), or why not.
    Opened(Result<Box<OpenSet>, ScenarioError>),
    /// A shipped set by id.
    OpenBuiltin(String),
    /// A set at a URL: fetched ([`Effect::FetchSet`]), then opened.
    OpenUrl(String),
    /// The fetch's reply: the text, or why not.
    Fetched {
        url: String,
        result: Result<String, String>,
    },
    Close,
    /// Question `i` (the Previous/Next buttons): its exercise's scenario loaded (if another one
    /// is on screen), the run at the question (or, if it was answered, at its reveal), the
    /// focus on the question.
    GoFocus(usize),
    /// A choice picked.
    Choose(usize),
    /// The number field's text.
    Number(String),
    /// The pfn field's text (replaces a page clicked).
    Pfn(String),
    /// Judges the answer with the engine, saves it and plays the step to the reveal.
    Submit,
    /// The reveal's timer: this fraction of it has played.
    RevealFrame(f64),
    /// Ends a reveal that is playing: the run at its end, the result shown.
    FinishReveal,
    DismissBanner,
}

pub(super) fn update(m: &mut Model, c: ExerciseCommand, fx: &mut Vec<Effect>) {
    match c {
        ExerciseCommand::OpenText { text, source } => open_text(m, &text, &source, fx),
        ExerciseCommand::Opened(result) => opened(m, result, fx),
        ExerciseCommand::OpenBuiltin(id) => {
            open_builtin(m, &id, fx);
        }
        ExerciseCommand::OpenUrl(url) => open_url(m, &url, fx),
        ExerciseCommand::Fetched { url, result } => match result {
            Ok(text) => open_text(m, &text, &url, fx),
            Err(why) => {
                m.exercises.loading = None;
                m.exercises.error = Some(ScenarioError::new(
                    "",
                    format!("could not fetch the exercise set {url}: {why}"),
                    "check the address; the server must allow this page to read it (CORS)",
                ));
            }
        },
        ExerciseCommand::Close => {
            stop_reveal(m, fx);
            let x = &mut m.exercises;
            x.set = None;
            x.progress = None;
            x.pending = None;
            x.phase = Phase::Asking;
            x.note = None;
            x.rev += 1;
        }
        ExerciseCommand::GoFocus(i) => {
            go(m, i, fx);
            fx.push(Effect::Focus(Focus::Question));
        }
        ExerciseCommand::Choose(n) => m.exercises.pending = Some(Answer::Choice(n)),
        ExerciseCommand::Number(t) => m.exercises.number = t,
        ExerciseCommand::Pfn(t) => {
            m.exercises.pending = None;
            m.exercises.pfn = t;
        }
        ExerciseCommand::Submit => submit(m, fx),
        ExerciseCommand::RevealFrame(f) => reveal_frame(m, f, fx),
        ExerciseCommand::FinishReveal => finish_reveal(m, fx),
        ExerciseCommand::DismissBanner => m.exercises.banner = None,
    }
}

/// `?exercises=<v>` that is neither a built-in set nor an address (no `/`, `:` or `.`): a
/// mistyped id. The error names the closest set ("did you mean") and lists them all.
pub fn unknown_set_id(v: &str) -> Option<ScenarioError> {
    let v = v.trim();
    if v.is_empty() || v.contains(['/', ':', '.']) {
        return None;
    }
    let ids: Vec<&str> = builtin_sets().iter().map(|b| b.id).collect();
    if ids.contains(&v) {
        return None;
    }
    let all = ids.join(", ");
    let hint = match buddyscope::scenario::suggest(v, ids.iter().copied()) {
        Some(s) => format!("Did you mean \u{201c}{s}\u{201d} (?exercises={s})? The sets: {all}."),
        None => format!("The sets: {all}; or give the address of a set file."),
    };
    Some(ScenarioError::new(
        "",
        format!("?exercises={v}: there is no exercise set \u{201c}{v}\u{201d}."),
        hint,
    ))
}

/// Opens `?exercises=<set id>` or `?exercises=<url>` (decoded).
pub(super) fn open_param(m: &mut Model, v: &str, fx: &mut Vec<Effect>) {
    if open_builtin(m, v, fx) {
        return;
    }
    match unknown_set_id(v) {
        // Not an address: a mistyped set id, said at the top of the page (where the user
        // looks), not as a failed fetch at the bottom.
        Some(e) => {
            m.exercises.banner = Some(format!("{} {}", e.message, e.hint));
            m.exercises.error = Some(e);
        }
        None => open_url(m, v, fx),
    }
}

fn open_builtin(m: &mut Model, id: &str, fx: &mut Vec<Effect>) -> bool {
    match builtin_sets().iter().find(|b| b.id == id) {
        Some(b) => {
            open_text(m, b.json(), b.id, fx);
            true
        }
        None => false,
    }
}

fn open_url(m: &mut Model, url: &str, fx: &mut Vec<Effect>) {
    let url = url.trim();
    if url.is_empty() {
        return;
    }
    m.exercises.loading = Some(format!("Fetching {url}\u{2026}"));
    fx.push(Effect::FetchSet(url.to_string()));
}

/// Opens a set's text: the shell parses, checks and resolves it ([`Effect::OpenSet`]; every
/// exercise's scenario runs once, in its own wasm module) and hands it back as
/// [`ExerciseCommand::Opened`].
pub(super) fn open_text(m: &mut Model, text: &str, source: &str, fx: &mut Vec<Effect>) {
    m.exercises.loading = None;
    fx.push(Effect::OpenSet {
        text: text.to_string(),
        source: source.to_string(),
    });
}

/// A set parsed and resolved: it opens at its first unanswered question (its saved progress
/// applies); on failure the error names the field and whatever was open stays. Then what the
/// address asked for after the set (`?tour=`, `?present`) applies.
fn opened(m: &mut Model, result: Result<Box<OpenSet>, ScenarioError>, fx: &mut Vec<Effect>) {
    match result {
        Err(e) => m.exercises.error = Some(e),
        Ok(opened) => {
            m.exercises.error = None;
            m.exercises.note = None;
            stop_reveal(m, fx);
            // Exercises run in the single view.
            if m.comparing() {
                super::set_compare(m, None);
            }
            let saved = m.saved.progress(&opened.set.id);
            let p = opened.progress(saved);
            let at = next_unanswered(&p, p.current);
            m.exercises.set = Some(*opened);
            m.exercises.progress = Some(p);
            m.exercises.rev += 1;
            go(m, at, fx);
            fx.push(Effect::Focus(Focus::ExercisePanel));
        }
    }
    if let Some(then) = m.exercises.then.take() {
        super::tour::open_ask(m, &then, fx);
    }
}

/// Puts question `i`'s exercise scenario on screen unless it is there already (the user may
/// have opened another scenario meanwhile); returns the question's `(asked_at, reveal_to)`.
fn load_question(m: &mut Model, i: usize, fx: &mut Vec<Effect>) -> Option<(u32, u32)> {
    let set = m.exercises.set.as_ref()?;
    let e = set.exercise_of(i)?;
    let (_, q) = set.question(i)?;
    let (asked_at, reveal_to) = (q.asked_at, q.reveal_to);
    let (text, id) = set.scenario_text(e);
    m.playing = false;
    if m.main().text != text && super::load_text(m, &text, &id, fx).is_err() {
        return None;
    }
    Some((asked_at, reveal_to))
}

fn go(m: &mut Model, i: usize, fx: &mut Vec<Effect>) {
    stop_reveal(m, fx);
    let Some((asked_at, reveal_to)) = load_question(m, i, fx) else {
        return;
    };
    let x = &mut m.exercises;
    let answered = x
        .progress
        .as_ref()
        .and_then(|p| p.answers.get(i).cloned())
        .flatten();
    x.pending = None;
    x.number.clear();
    x.pfn.clear();
    x.note = None;
    let to = if answered.is_some() {
        x.phase = Phase::Revealed;
        reveal_to
    } else {
        x.phase = Phase::Asking;
        asked_at
    };
    if let Some(p) = &mut x.progress {
        p.current = i;
    }
    m.main_mut().timeline.seek(to);
    save(m, fx);
}

/// A click on the map: the answer to a page question (absolute pfn). False when no page
/// question is being asked (the click then does what it always does).
pub(super) fn take_page(m: &mut Model, pfn: u64) -> bool {
    let x = &mut m.exercises;
    if x.asking() != Some(AnswerKind::Page) {
        return false;
    }
    x.pending = Some(Answer::Page(pfn));
    x.pfn = format!("{pfn:#x}");
    x.note = None;
    true
}

/// A click on a free-list cell: the answer to a list question.
pub(super) fn take_list(m: &mut Model, order: u8, mt: MigrateType) -> bool {
    let x = &mut m.exercises;
    if x.asking() != Some(AnswerKind::List) {
        return false;
    }
    x.pending = Some(Answer::List { order, mt });
    x.note = None;
    true
}

fn submit(m: &mut Model, fx: &mut Vec<Effect>) {
    let x = &m.exercises;
    let (Some(i), Some(kind)) = (x.current(), x.asking()) else {
        return;
    };
    let Some(answer) = x.answer() else {
        m.exercises.note = Some(
            match kind {
                AnswerKind::Choice => "Pick one of the answers first.",
                AnswerKind::Number => "Type a number first (decimal, or hex with 0x).",
                AnswerKind::Page => "Click a page on the memory map first (or type its pfn).",
                AnswerKind::List => "Click a free list in the free-list table first.",
            }
            .to_string(),
        );
        return;
    };
    let Some(judged) = x
        .set
        .as_ref()
        .and_then(|s| s.question(i).map(|(_, q)| judge(q, &answer)))
    else {
        return;
    };
    let Some((asked_at, reveal_to)) = load_question(m, i, fx) else {
        return;
    };
    let x = &mut m.exercises;
    x.note = None;
    if let Some(a) = x.progress.as_mut().and_then(|p| p.answers.get_mut(i)) {
        *a = Some(judged);
    }
    save(m, fx);
    reveal(m, asked_at, reveal_to, fx);
}

/// Plays `from` → `to` over a short time (the shell's timer, or at once under reduced motion),
/// then shows the result.
fn reveal(m: &mut Model, from: u32, to: u32, fx: &mut Vec<Effect>) {
    m.playing = false;
    m.main_mut().timeline.seek(from);
    let n = to.saturating_sub(from);
    if n == 0 {
        m.main_mut().timeline.seek(to);
        revealed(m, fx);
        return;
    }
    m.exercises.phase = Phase::Revealing;
    m.exercises.reveal = Some((from, to));
    fx.push(Effect::Reveal {
        ms: (f64::from(n) * REVEAL_MS_PER_EVENT).min(REVEAL_MAX_MS),
    });
}

fn reveal_frame(m: &mut Model, f: f64, fx: &mut Vec<Effect>) {
    let Some((from, to)) = m
        .exercises
        .reveal
        .filter(|_| m.exercises.phase == Phase::Revealing)
    else {
        return;
    };
    let f = f.clamp(0.0, 1.0);
    let pos = from + (f64::from(to - from) * f).floor() as u32;
    let t = &mut m.main_mut().timeline;
    // As playback does: that many steps forward, stopping at the end.
    for _ in 0..pos.saturating_sub(t.pos()) {
        if t.pos() >= t.len() {
            break;
        }
        t.step_forward();
    }
    if f >= 1.0 {
        stop_reveal(m, fx);
        m.main_mut().timeline.seek(to);
        revealed(m, fx);
    }
}

fn finish_reveal(m: &mut Model, fx: &mut Vec<Effect>) {
    if m.exercises.phase != Phase::Revealing {
        return;
    }
    let to = m.exercises.reveal.map(|(_, to)| to);
    stop_reveal(m, fx);
    if let Some(to) = to {
        m.main_mut().timeline.seek(to);
    }
    revealed(m, fx);
}

/// The reveal is over: the result shows, and the keyboard focus (left on the disabled Submit
/// button or answer field) moves to "Next question", or to the result on the last.
fn revealed(m: &mut Model, fx: &mut Vec<Effect>) {
    m.exercises.phase = Phase::Revealed;
    fx.push(Effect::Focus(Focus::Result));
}

fn stop_reveal(m: &mut Model, fx: &mut Vec<Effect>) {
    if m.exercises.reveal.take().is_some() {
        fx.push(Effect::StopReveal);
    }
}

/// Saves the open set's progress (not in the embedded view, which leaves saved work alone).
fn save(m: &mut Model, fx: &mut Vec<Effect>) {
    let (Some(p), Some(set)) = (&m.exercises.progress, &m.exercises.set) else {
        return;
    };
    if !m.saved.enabled {
        return;
    }
    let entry = Entry::new(set.set.title.clone(), "", Saved::Progress(p.clone()));
    fx.push(super::store_put(
        saved::progress_key(&p.set_id),
        entry,
        None,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_set_id_says_did_you_mean() {
        let e = unknown_set_id("split-and-merg").expect("an error");
        assert!(
            e.message
                .contains("no exercise set \u{201c}split-and-merg\u{201d}"),
            "{e}"
        );
        assert!(
            e.hint
                .starts_with("Did you mean \u{201c}split-and-merge\u{201d}"),
            "{e}"
        );
        assert!(unknown_set_id("split-and-merge").is_none());
        // Addresses are fetched, not taken for ids.
        assert!(unknown_set_id("sets/mine.json").is_none());
        assert!(unknown_set_id("https://example.org/x").is_none());
        let e = unknown_set_id("zzzzzzzz").expect("an error");
        assert!(e.hint.starts_with("The sets: "), "{e}");
    }
}
