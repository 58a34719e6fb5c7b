//! The exercise panel: predict, then reveal. A set opens from the shipped sets, a file or a URL
//! (`?exercises=<set id>` or `?exercises=<url>`); the run is put at each question's position
//! (the engine's `asked_at`), the student answers (a choice, a number, a page clicked on the
//! map, a free list clicked in the free-list table), the engine judges it
//! ([`crate::exercise::judge`]), the step plays to `reveal_to` (animated, or at once under
//! `prefers-reduced-motion: reduce`), and the result shows with the engine's explanation.
//! Progress is saved per set ([`SavedStore::put_progress`]).

use buddyscope::{
    explain::exercises::{builtin_sets, Answer, AnswerKind, Expected, ScenarioError},
    MigrateType,
};
use leptos::leptos_dom::helpers::IntervalHandle;
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::PanelFrame;
use crate::browser::now_ms;
use crate::exercise::{self, judge, list_words, next_unanswered, parse_number, OpenSet};
use crate::panels::saved::SavedStore;
use crate::saved::{self, Progress};
use crate::state::AppState;

/// Where the current question is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the answer, the run at `asked_at`.
    Asking,
    /// The answer is in; the step is playing towards `reveal_to`.
    Revealing,
    /// The run is at `reveal_to`; the result shows.
    Revealed,
}

/// The reveal plays at this pace (ms per event), at most [`REVEAL_MAX_MS`] in all.
const REVEAL_MS_PER_EVENT: f64 = 120.0;
const REVEAL_MAX_MS: f64 = 1200.0;

/// The exercise mode's state, shared through context (the map and the free-list table answer
/// click questions through it).
#[derive(Clone, Copy)]
pub struct ExerciseCtl {
    state: AppState,
    store: Option<SavedStore>,
    set: StoredValue<Option<Rc<OpenSet>>, LocalStorage>,
    /// Bumped when a set opens or closes.
    pub rev: RwSignal<u64>,
    /// Answers and the current question; `None` without an open set.
    pub progress: RwSignal<Option<Progress>>,
    pub phase: RwSignal<Phase>,
    /// The answer picked (choice, click) but not submitted yet.
    pub pending: RwSignal<Option<Answer>>,
    /// The number field's text.
    pub number: RwSignal<String>,
    /// The pfn field's text (the keyboard's way to answer a page question).
    pub pfn: RwSignal<String>,
    /// Why the last set did not open (or why an answer is missing); the current set stays.
    pub error: RwSignal<Option<ScenarioError>>,
    pub note: RwSignal<Option<String>>,
    /// "Fetching …" while a URL loads.
    pub loading: RwSignal<Option<String>>,
    /// Why `?exercises=` opened nothing, shown at the top of the page.
    pub banner: RwSignal<Option<String>>,
    anim: StoredValue<Option<IntervalHandle>, LocalStorage>,
    /// Where the reveal that is playing ends.
    reveal_to: StoredValue<Option<u32>, LocalStorage>,
}

fn reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
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

impl ExerciseCtl {
    pub fn provide(state: AppState, store: Option<SavedStore>) -> ExerciseCtl {
        let ctl = ExerciseCtl {
            state,
            store,
            set: StoredValue::new_local(None),
            rev: RwSignal::new(0),
            progress: RwSignal::new(None),
            phase: RwSignal::new(Phase::Asking),
            pending: RwSignal::new(None),
            number: RwSignal::new(String::new()),
            pfn: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            note: RwSignal::new(None),
            loading: RwSignal::new(None),
            banner: RwSignal::new(None),
            anim: StoredValue::new_local(None),
            reveal_to: StoredValue::new_local(None),
        };
        provide_context(ctl);
        ctl
    }

    pub fn get() -> Option<ExerciseCtl> {
        use_context::<ExerciseCtl>()
    }

    /// Reads the open set (tracking `rev`).
    pub fn with_set<R>(&self, f: impl FnOnce(&OpenSet) -> R) -> Option<R> {
        self.rev.track();
        self.set.with_value(|s| s.as_deref().map(f))
    }

    fn with_set_untracked<R>(&self, f: impl FnOnce(&OpenSet) -> R) -> Option<R> {
        self.set.with_value(|s| s.as_deref().map(f))
    }

    pub fn is_open(&self) -> bool {
        self.rev.track();
        self.set.with_value(Option::is_some)
    }

    /// The current question's index.
    pub fn current(&self) -> Option<usize> {
        self.progress.with(|p| p.as_ref().map(|p| p.current))
    }

    /// The progress key of the open set (the last position remembers it).
    pub fn progress_key(&self) -> Option<String> {
        self.progress
            .with_untracked(|p| p.as_ref().map(|p| saved::progress_key(&p.set_id)))
    }

    /// Parses, resolves and opens a set; on failure the error names the field and whatever
    /// was open stays.
    pub fn open_text(&self, text: &str, source: &str) {
        self.loading.set(None);
        let opened = match OpenSet::open(text, source) {
            Ok(o) => o,
            Err(e) => {
                self.error.set(Some(e));
                return;
            }
        };
        self.error.set(None);
        self.note.set(None);
        self.stop_anim();
        // Exercises run in the single view.
        if self.state.compare.get_untracked().is_some() {
            self.state.set_compare(None);
        }
        let saved = self.store.and_then(|s| s.progress(&opened.set.id));
        let p = opened.progress(saved);
        let at = next_unanswered(&p, p.current);
        self.set.set_value(Some(Rc::new(opened)));
        self.progress.set(Some(p));
        self.rev.update(|r| *r += 1);
        self.go(at);
        // The panel has moved beside the map (opened from the picker at the bottom): bring it
        // into view if it is out of sight.
        request_animation_frame(|| {
            let Some(w) = web_sys::window() else { return };
            let h = w
                .inner_height()
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0);
            let panel = w
                .document()
                .and_then(|d| d.get_element_by_id("exercises-panel"));
            if let Some(el) = panel {
                let top = el.get_bounding_client_rect().top();
                if top < 0.0 || top > h {
                    el.scroll_into_view_with_bool(true);
                }
            }
        });
    }

    /// Opens a shipped set by id.
    pub fn open_builtin(&self, id: &str) -> bool {
        match builtin_sets().iter().find(|b| b.id == id) {
            Some(b) => {
                self.open_text(b.json, b.id);
                true
            }
            None => false,
        }
    }

    pub fn close(&self) {
        self.stop_anim();
        self.set.set_value(None);
        self.progress.set(None);
        self.pending.set(None);
        self.phase.set(Phase::Asking);
        self.note.set(None);
        self.rev.update(|r| *r += 1);
    }

    fn save(&self) {
        let (Some(store), Some(p)) = (self.store, self.progress.get_untracked()) else {
            return;
        };
        let title = self
            .with_set_untracked(|s| s.set.title.clone())
            .unwrap_or_default();
        store.put_progress(&title, p);
    }

    /// Puts question `i`'s exercise scenario on screen unless it is there already (the user
    /// may have opened another scenario meanwhile); returns the question's `(asked_at,
    /// reveal_to)`.
    fn load_question(&self, i: usize) -> Option<(u32, u32)> {
        let (text, id, asked_at, reveal_to) = self
            .with_set_untracked(|s| {
                let e = s.exercise_of(i)?;
                let (_, q) = s.question(i)?;
                let (text, id) = s.scenario_text(e);
                Some((text, id, q.asked_at, q.reveal_to))
            })
            .flatten()?;
        let st = self.state;
        st.playing.set(false);
        if st.with_untracked(|s| s.text != text).unwrap_or(true)
            && st.load_text(&text, &id).is_err()
        {
            return None;
        }
        Some((asked_at, reveal_to))
    }

    /// Shows question `i`: its exercise's scenario loaded (if another one is on screen), the
    /// run at the question (or, if it was answered, at its reveal).
    pub fn go(&self, i: usize) {
        self.stop_anim();
        let Some((asked_at, reveal_to)) = self.load_question(i) else {
            return;
        };
        let st = self.state;
        let answered = self
            .progress
            .with_untracked(|p| p.as_ref().and_then(|p| p.answers.get(i).cloned()).flatten());
        self.pending.set(None);
        self.number.set(String::new());
        self.pfn.set(String::new());
        self.note.set(None);
        if answered.is_some() {
            st.seek(reveal_to);
            self.phase.set(Phase::Revealed);
        } else {
            st.seek(asked_at);
            self.phase.set(Phase::Asking);
        }
        self.progress.update(|p| {
            if let Some(p) = p {
                p.current = i;
            }
        });
        self.save();
    }

    /// [`go`](Self::go) from the Previous/Next buttons: the keyboard focus (whose button was
    /// just re-rendered) moves to the new question's text, so it is read out and Tab reaches
    /// the answer next.
    pub fn go_focus(&self, i: usize) {
        self.go(i);
        request_animation_frame(|| {
            let target = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("exercise-q"))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(el) = target {
                let _ = el.focus();
            }
        });
    }

    /// The kind of answer the current question wants, while it is being asked.
    pub fn asking(&self) -> Option<AnswerKind> {
        if self.phase.get() != Phase::Asking {
            return None;
        }
        let i = self.current()?;
        self.with_set(|s| s.question(i).map(|(_, q)| exercise::kind(q)))
            .flatten()
    }

    /// A click on the map: the answer to a page question (absolute pfn). False when no page
    /// question is being asked (the click then does what it always does).
    pub fn take_page(&self, pfn: u64) -> bool {
        if self.asking_untracked() != Some(AnswerKind::Page) {
            return false;
        }
        self.pending.set(Some(Answer::Page(pfn)));
        self.pfn.set(format!("{pfn:#x}"));
        self.note.set(None);
        true
    }

    /// A click on a free-list cell: the answer to a list question.
    pub fn take_list(&self, order: u8, mt: MigrateType) -> bool {
        if self.asking_untracked() != Some(AnswerKind::List) {
            return false;
        }
        self.pending.set(Some(Answer::List { order, mt }));
        self.note.set(None);
        true
    }

    fn asking_untracked(&self) -> Option<AnswerKind> {
        untrack(|| self.asking())
    }

    /// The answer as given so far (a typed number or pfn is read here).
    fn answer(&self) -> Option<Answer> {
        match self.asking_untracked()? {
            AnswerKind::Number => parse_number(&self.number.get_untracked()).map(Answer::Number),
            AnswerKind::Page => self
                .pending
                .get_untracked()
                .or_else(|| parse_number(&self.pfn.get_untracked()).map(Answer::Page)),
            AnswerKind::Choice | AnswerKind::List => self.pending.get_untracked(),
        }
    }

    /// Judges the answer with the engine, saves it and plays the step to the reveal.
    pub fn submit(&self) {
        let Some(i) = untrack(|| self.current()) else {
            return;
        };
        let Some(kind) = self.asking_untracked() else {
            return;
        };
        let Some(answer) = self.answer() else {
            self.note.set(Some(
                match kind {
                    AnswerKind::Choice => "Pick one of the answers first.",
                    AnswerKind::Number => "Type a number first (decimal, or hex with 0x).",
                    AnswerKind::Page => "Click a page on the memory map first (or type its pfn).",
                    AnswerKind::List => "Click a free list in the free-list table first.",
                }
                .to_string(),
            ));
            return;
        };
        let Some(judged) = self
            .with_set_untracked(|s| s.question(i).map(|(_, q)| judge(q, &answer)))
            .flatten()
        else {
            return;
        };
        let Some((asked_at, reveal_to)) = self.load_question(i) else {
            return;
        };
        self.note.set(None);
        self.progress.update(|p| {
            if let Some(a) = p.as_mut().and_then(|p| p.answers.get_mut(i)) {
                *a = Some(judged);
            }
        });
        self.save();
        self.reveal(asked_at, reveal_to);
    }

    /// The reveal is over: the result shows, and the keyboard focus (left on the disabled
    /// Submit button or answer field) moves to "Next question", or to the result on the last.
    fn revealed(&self) {
        self.phase.set(Phase::Revealed);
        let ctl = *self;
        // After the result has rendered.
        request_animation_frame(move || {
            if ctl.phase.get_untracked() != Phase::Revealed {
                return;
            }
            let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
                return;
            };
            let target = doc
                .query_selector("[data-testid=exercise-next]:not([disabled])")
                .ok()
                .flatten()
                .or_else(|| {
                    doc.query_selector("[data-testid=exercise-result]")
                        .ok()
                        .flatten()
                });
            if let Some(el) = target.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                let _ = el.focus();
            }
        });
    }

    /// Ends a reveal that is playing: the run at its end, the result shown.
    pub fn finish_reveal(&self) {
        if self.phase.get_untracked() != Phase::Revealing {
            return;
        }
        self.stop_anim();
        if let Some(to) = self.reveal_to.get_value() {
            self.state.seek(to);
        }
        self.revealed();
    }

    fn stop_anim(&self) {
        if let Some(h) = self.anim.get_value() {
            h.clear();
            self.anim.set_value(None);
        }
    }

    /// Plays `from` → `to` over a short time (at once under reduced motion), then shows the
    /// result.
    fn reveal(&self, from: u32, to: u32) {
        let st = self.state;
        st.playing.set(false);
        st.seek(from);
        let n = to.saturating_sub(from);
        if n == 0 || reduced_motion() {
            st.seek(to);
            self.revealed();
            return;
        }
        self.phase.set(Phase::Revealing);
        self.reveal_to.set_value(Some(to));
        let total = (f64::from(n) * REVEAL_MS_PER_EVENT).min(REVEAL_MAX_MS);
        let t0 = now_ms();
        let ctl = *self;
        let h = set_interval_with_handle(
            move || {
                let f = ((now_ms() - t0) / total).clamp(0.0, 1.0);
                let pos = from + (f64::from(n) * f).floor() as u32;
                let cur = st.with_untracked(|s| s.timeline.pos()).unwrap_or(pos);
                if pos > cur {
                    st.advance(pos - cur);
                }
                if f >= 1.0 {
                    ctl.stop_anim();
                    st.seek(to);
                    ctl.revealed();
                }
            },
            Duration::from_millis(16),
        )
        .ok();
        self.anim.set_value(h);
    }

    /// Opens `?exercises=<set id>` or `?exercises=<url>`.
    pub fn open_param(&self, value: &str) {
        let value = js_sys::decode_uri_component(value)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| value.to_string());
        if self.open_builtin(&value) {
            return;
        }
        match unknown_set_id(&value) {
            // Not an address: a mistyped set id, said at the top of the page (where the user
            // looks), not as a failed fetch at the bottom.
            Some(e) => {
                self.banner.set(Some(format!("{} {}", e.message, e.hint)));
                self.error.set(Some(e));
            }
            None => self.open_url(&value),
        }
    }

    /// Fetches a set from a URL and opens it.
    pub fn open_url(&self, url: &str) {
        let url = url.trim().to_string();
        if url.is_empty() {
            return;
        }
        let Some(w) = web_sys::window() else { return };
        self.loading.set(Some(format!("Fetching {url}\u{2026}")));
        let ctl = *self;
        let fail = move |url: String, why: String| {
            ctl.loading.set(None);
            ctl.error.set(Some(ScenarioError::new(
                "",
                format!("could not fetch the exercise set {url}: {why}"),
                "check the address; the server must allow this page to read it (CORS)",
            )));
        };
        let u1 = url.clone();
        let u1_fetch = url.clone();
        let on_text =
            Closure::<dyn FnMut(JsValue)>::new(move |text: JsValue| match text.as_string() {
                Some(t) => ctl.open_text(&t, &u1),
                None => fail(u1.clone(), "the reply is not text".to_string()),
            });
        let u3 = url.clone();
        let on_error = Rc::new(Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
            let why = e
                .as_string()
                .or_else(|| {
                    e.dyn_ref::<js_sys::Error>()
                        .map(|e| String::from(e.message()))
                })
                .unwrap_or_else(|| "network error".to_string());
            fail(u3.clone(), why);
        }));
        let on_error2 = on_error.clone();
        let on_response = Closure::<dyn FnMut(JsValue)>::new(move |r: JsValue| {
            let Ok(resp) = r.dyn_into::<web_sys::Response>() else {
                fail(url.clone(), "not a response".to_string());
                return;
            };
            if !resp.ok() {
                fail(url.clone(), format!("HTTP {}", resp.status()));
                return;
            }
            match resp.text() {
                Ok(p) => {
                    let _ = p.then2(&on_text, &on_error2);
                }
                Err(_) => fail(url.clone(), "the reply cannot be read".to_string()),
            }
        });
        let _ = w.fetch_with_str(&u1_fetch).then2(&on_response, &on_error);
        // One fetch per click or page load: the closures live as long as the page.
        on_response.forget();
    }
}

/// Reads a picked file and opens it as a set.
fn open_file(ctl: ExerciseCtl, input: web_sys::HtmlInputElement) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r = reader.clone();
    let name = file.name();
    let onload = Closure::once(move |_: web_sys::Event| {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            ctl.open_text(&text, &name);
        }
        // Picking the same file again fires `change` again.
        input.set_value("");
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// The titles of the shipped sets with their question counts, for the picker.
fn shipped() -> Vec<(&'static str, String)> {
    builtin_sets()
        .iter()
        .map(|b| {
            let title = buddyscope::explain::exercises::parse_exercise_set(b.json)
                .map(|s| format!("{} ({} questions)", s.title, s.question_count()))
                .unwrap_or_else(|_| b.id.to_string());
            (b.id, title)
        })
        .collect()
}

#[component]
fn SetPicker() -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    let url = RwSignal::new(String::new());
    let sets = shipped();
    view! {
        <div class="ex-pick">
            <label class="field">
                <span>"Exercise set"</span>
                <select
                    data-testid="exercise-set"
                    prop:value=move || {
                        ctl.progress.with(|p| p.as_ref().map(|p| p.set_id.clone())).unwrap_or_default()
                    }
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        if !id.is_empty() {
                            ctl.open_builtin(&id);
                        }
                    }
                >
                    <option value="">"Choose a set\u{2026}"</option>
                    {sets
                        .into_iter()
                        .map(|(id, title)| view! { <option value=id>{title}</option> })
                        .collect_view()}
                </select>
            </label>
            <label class="file-button">
                <span>"Open file\u{2026}"</span>
                <input
                    type="file"
                    accept=".json,application/json"
                    data-testid="exercise-file"
                    aria-label="Open an exercise set from a file"
                    on:change=move |ev| {
                        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            open_file(ctl, input);
                        }
                    }
                />
            </label>
            <form
                class="ex-url"
                on:submit=move |ev| {
                    ev.prevent_default();
                    ctl.open_url(&url.get_untracked());
                }
            >
                <input
                    // Text, not `url`: a relative address is fine to fetch.
                    type="text"
                    inputmode="url"
                    data-testid="exercise-url"
                    aria-label="Exercise set URL"
                    placeholder="https://\u{2026}/set.json"
                    prop:value=move || url.get()
                    on:input=move |ev| url.set(event_target_value(&ev))
                />
                <button type="submit" data-testid="exercise-url-open">"Open URL"</button>
            </form>
        </div>
    }
    .into_any()
}

#[component]
fn SetError() -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    view! {
        <Show when=move || ctl.error.with(Option::is_some)>
            <div class="editor-error" data-testid="exercise-error" role="alert">
                {move || {
                    ctl.error.get().map(|e| {
                        view! {
                            <p>
                                <strong>"\u{26a0} Exercise set not opened: "</strong>
                                {(!e.path.is_empty()).then(|| view! { <code class="editor-error-path">{e.path.clone()}</code>": " })}
                                <span>{e.message.clone()}</span>
                            </p>
                            {(!e.hint.is_empty()).then(|| view! { <p class="editor-error-hint">"Hint: "{e.hint.clone()}</p> })}
                            <p class="muted small">"What was open stays open."</p>
                        }
                    })
                }}
            </div>
        </Show>
    }
    .into_any()
}

/// The answer area of the current question.
#[component]
fn AnswerArea(i: usize) -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    let Some((kind, labels)) = ctl
        .with_set_untracked(|s| {
            s.question(i).map(|(_, q)| {
                let labels = match &q.expected {
                    Expected::Choice { labels, .. } => labels.clone(),
                    _ => Vec::new(),
                };
                (exercise::kind(q), labels)
            })
        })
        .flatten()
    else {
        return ().into_any();
    };
    let asking = move || ctl.phase.get() == Phase::Asking;
    let pending_words = move || {
        let a = ctl.pending.get()?;
        Some(match a {
            Answer::Page(p) => format!("pfn {p:#x}"),
            Answer::List { order, mt } => list_words(order, mt),
            _ => return None,
        })
    };
    let body = match kind {
        AnswerKind::Choice => view! {
            <div class="ex-choices" role="radiogroup" aria-labelledby="exercise-q">
                {labels
                    .into_iter()
                    .enumerate()
                    .map(|(n, label)| {
                        view! {
                            <label class="ex-choice">
                                <input
                                    type="radio"
                                    name="exercise-choice"
                                    data-testid=format!("exercise-choice-{n}")
                                    prop:checked=move || ctl.pending.get() == Some(Answer::Choice(n))
                                    disabled=move || !asking()
                                    on:change=move |_| ctl.pending.set(Some(Answer::Choice(n)))
                                />
                                <span>{label}</span>
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
        }
        .into_any(),
        AnswerKind::Number => view! {
            <label class="field ex-number">
                <span>"Your answer"</span>
                <input
                    type="text"
                    inputmode="numeric"
                    autocomplete="off"
                    data-testid="exercise-answer"
                    aria-describedby="exercise-q"
                    disabled=move || !asking()
                    prop:value=move || ctl.number.get()
                    on:input=move |ev| ctl.number.set(event_target_value(&ev))
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            ctl.submit();
                        }
                    }
                />
            </label>
        }
        .into_any(),
        AnswerKind::Page => view! {
            <p class="ex-how">"Click a page on the memory map, or type its pfn:"</p>
            <label class="field ex-number">
                <span>"pfn"</span>
                <input
                    type="text"
                    autocomplete="off"
                    data-testid="exercise-pfn"
                    placeholder="0x\u{2026}"
                    disabled=move || !asking()
                    prop:value=move || ctl.pfn.get()
                    on:input=move |ev| {
                        ctl.pending.set(None);
                        ctl.pfn.set(event_target_value(&ev));
                    }
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            ctl.submit();
                        }
                    }
                />
            </label>
        }
        .into_any(),
        AnswerKind::List => view! {
            <p class="ex-how">
                "Click a free list in the free-list table (or Tab to a cell and press Enter)."
            </p>
        }
        .into_any(),
    };
    view! {
        {body}
        <p class="ex-pending" data-testid="exercise-pending">
            {move || pending_words().map(|w| format!("Your answer: {w}"))}
        </p>
    }
    .into_any()
}

/// The result of question `i` once revealed: right or wrong in words and an icon, the engine's
/// answer and explanation.
#[component]
fn ResultView(i: usize) -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    let given = ctl
        .progress
        .with_untracked(|p| p.as_ref().and_then(|p| p.answers.get(i).cloned()).flatten());
    let Some((answer_text, summary, lines, more)) = ctl
        .with_set_untracked(|s| {
            s.question(i).map(|(_, q)| {
                (
                    q.answer_text.clone(),
                    q.summary.clone(),
                    q.explanation.clone(),
                    q.explanation_more,
                )
            })
        })
        .flatten()
    else {
        return ().into_any();
    };
    let Some(given) = given else {
        return ().into_any();
    };
    let (icon, verdict, class) = if given.correct {
        ("\u{2714}", "Right", "ex-result right")
    } else {
        ("\u{2718}", "Wrong", "ex-result wrong")
    };
    view! {
        <div class=class data-testid="exercise-result" data-correct=given.correct.to_string() tabindex="-1">
            <p class="ex-verdict">
                <span class="ex-icon" aria-hidden="true">{icon}</span>
                <strong>{verdict}</strong>
                {format!(" \u{2014} your answer: {}. The answer: {answer_text}.", given.given)}
            </p>
            <p class="ex-summary">{summary}</p>
            <ol class="ex-explain" aria-label="What the kernel did">
                {lines
                    .into_iter()
                    .map(|l| {
                        view! {
                            <li>
                                <span class="ex-narration">{l.narration}</span>
                                <code class="ex-code">{format!("{}: {}", l.function, l.code.trim())}</code>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            {(more > 0).then(|| view! { <p class="muted small">{format!("\u{2026} and {more} more event(s) of this step.")}</p> })}
        </div>
    }
    .into_any()
}

#[component]
fn QuestionCard() -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    // Keyed by the question: the card (and its live region) is rebuilt only when it changes.
    let cur = Memo::new(move |_| ctl.current());
    let head = Memo::new(move |_| {
        let i = cur.get()?;
        ctl.with_set(|s| {
            let (ex, q) = s.question(i)?;
            let first_of_exercise = s.order.get(i).is_some_and(|&(_, qi)| qi == 0);
            Some((
                (i, s.len()),
                s.set.title.clone(),
                s.source.clone(),
                format!("Question {} / {}", i + 1, s.len()),
                ex.title.clone(),
                first_of_exercise.then(|| ex.intro.clone()).flatten(),
                q.prompt.clone(),
                format!("{} \u{2014} asked at event {}", q.next_op, q.asked_at),
            ))
        })
        .flatten()
    });
    let score = move || {
        ctl.progress
            .with(|p| p.as_ref().map(Progress::score_text))
            .unwrap_or_default()
    };
    view! {
        {move || {
            let ((i, n), set_title, source, counter, ex_title, intro, prompt, at) = head.get()?;
            Some(view! {
                <div class="ex-head">
                    <strong class="ex-set-title" title=format!("from {source}")>{set_title}</strong>
                    <span class="ex-counter" data-testid="exercise-counter">{counter}</span>
                    <span class="ex-score-box">
                        "Score: "<span data-testid="exercise-score">{score}</span>
                    </span>
                    <button type="button" class="icon-btn" data-testid="exercise-close" on:click=move |_| ctl.close()>
                        "Close set"
                    </button>
                </div>
                <h3 class="ex-title">{ex_title}</h3>
                {intro.map(|t| view! { <p class="ex-intro">{t}</p> })}
                <p class="ex-question" id="exercise-q" data-testid="exercise-question" tabindex="-1">{prompt}</p>
                <p class="muted small ex-at">{at}</p>
                <AnswerArea i=i/>
                <Show when=move || ctl.note.with(Option::is_some)>
                    <p class="ex-note" role="alert">{move || ctl.note.get()}</p>
                </Show>
                <div class="ex-actions">
                    <button
                        type="button"
                        class="primary"
                        data-testid="exercise-submit"
                        disabled=move || ctl.phase.get() != Phase::Asking
                        on:click=move |_| ctl.submit()
                    >
                        "Submit"
                    </button>
                    <button
                        type="button"
                        data-testid="exercise-prev"
                        disabled=move || i == 0
                        on:click=move |_| ctl.go_focus(i.saturating_sub(1))
                    >
                        "Previous question"
                    </button>
                    <button
                        type="button"
                        data-testid="exercise-next"
                        disabled=move || { i + 1 >= n || ctl.phase.get() == Phase::Revealing }
                        on:click=move |_| ctl.go_focus(i + 1)
                    >
                        "Next question"
                    </button>
                </div>
                <div class="ex-live" role="status" aria-live="polite">
                    {move || match ctl.phase.get() {
                        Phase::Asking => None,
                        // The verdict at once (the engine judged it on Submit); the step plays
                        // to show why, and Skip ends it.
                        Phase::Revealing => {
                            let correct = ctl
                                .progress
                                .with_untracked(|p| p.as_ref().and_then(|p| p.answers.get(i).cloned()).flatten())
                                .map(|a| a.correct);
                            let verdict = match correct {
                                Some(true) => "\u{2714} Right \u{2014} playing the step to show why\u{2026}",
                                Some(false) => "\u{2718} Wrong \u{2014} playing the step to show why\u{2026}",
                                None => "Playing the step\u{2026}",
                            };
                            Some(view! {
                                <p class="ex-verdict-early" data-testid="exercise-verdict-early" data-correct=correct.map(|c| c.to_string())>
                                    {verdict}
                                    " "
                                    <button type="button" data-testid="exercise-skip-reveal" on:click=move |_| ctl.finish_reveal()>"Skip"</button>
                                </p>
                            }.into_any())
                        }
                        Phase::Revealed => Some(view! { <ResultView i=i/> }.into_any()),
                    }}
                </div>
            })
        }}
    }
    .into_any()
}

#[component]
pub fn ExercisePanel() -> impl IntoView {
    let Some(ctl) = ExerciseCtl::get() else {
        return ().into_any();
    };
    let sub = Signal::derive(move || {
        ctl.progress
            .with(|p| p.as_ref().map(|p| format!("score {}", p.score_text())))
            .unwrap_or_default()
    });
    view! {
        <PanelFrame
            key="exercises"
            title="Exercises"
            testid="exercise-panel"
            sub=sub
            help="Predict, then reveal: answer each question before the step plays. The engine computes every answer."
        >
            <SetPicker/>
            <SetError/>
            {move || ctl.loading.get().map(|m| view! { <p class="muted small" role="status">{m}</p> })}
            <Show when=move || ctl.is_open()>
                <QuestionCard/>
            </Show>
        </PanelFrame>
    }
    .into_any()
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
