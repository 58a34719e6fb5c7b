//! Performing the model's [`Effect`]s: the worker, local storage, a fetch, the presenter
//! preferences, the exercise reveal's timer and the keyboard focus.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use leptos::leptos_dom::helpers::IntervalHandle;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Shell;
use crate::browser::now_ms;
use crate::model::exercises::ExerciseCommand;
use crate::model::{Command, Effect, Focus};

type Waiting = Box<dyn FnOnce(Result<(), String>)>;

thread_local! {
    static WAITING: RefCell<HashMap<u64, Waiting>> = RefCell::new(HashMap::new());
    static NEXT_TOKEN: Cell<u64> = const { Cell::new(0) };
    static REVEAL: RefCell<Option<IntervalHandle>> = const { RefCell::new(None) };
}

/// Registers `f` for [`Effect::Loaded`]; returns its token.
pub(super) fn wait(f: impl FnOnce(Result<(), String>) + 'static) -> u64 {
    let token = NEXT_TOKEN.with(|t| {
        t.set(t.get() + 1);
        t.get()
    });
    WAITING.with(|w| w.borrow_mut().insert(token, Box::new(f)));
    token
}

pub(super) fn perform(shell: Shell, e: Effect) {
    match e {
        Effect::StartWorker { job, text, valid } => crate::runjob::start(shell, job, text, *valid),
        Effect::StartReplay {
            job,
            file,
            valid,
            profile,
        } => crate::shell::replay::start(shell, job, file, *valid, profile),
        Effect::CancelWorker => crate::runjob::cancel(),
        Effect::Loaded { token, result } => {
            if let Some(f) = WAITING.with(|w| w.borrow_mut().remove(&token)) {
                f(result);
            }
        }
        Effect::Presenter { on, follow } => shell.prefs.set_presenter(on, follow),
        Effect::Store { write, status } => super::storage::write(shell, write, status),
        Effect::FetchSet(url) => fetch_set(shell, url),
        Effect::OpenSet { text, source } => leptos::task::spawn_local(async move {
            let set = open_set(text, source).await;
            shell.dispatch(Command::Exercise(ExerciseCommand::Opened(set)));
        }),
        Effect::Reveal { ms } => reveal(shell, ms),
        Effect::StopReveal => stop_reveal(),
        Effect::Focus(f) => focus(f),
    }
}

/// Parses, checks and resolves an exercise set: a split point, so the engine's exercise reader
/// and resolver are fetched with the first set opened, not in the first download.
#[leptos::wasm_split::wasm_split(exercises, wasm_split_path = ::leptos::wasm_split)]
fn open_set(
    text: String,
    source: String,
) -> Result<Box<crate::exercise::OpenSet>, buddyscope::explain::exercises::ScenarioError> {
    crate::exercise::OpenSet::open(&text, &source).map(Box::new)
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

/// Plays an exercise's reveal over `ms` (a frame every 16 ms), or at once under reduced motion.
fn reveal(shell: Shell, ms: f64) {
    stop_reveal();
    if reduced_motion() {
        shell.dispatch(Command::Exercise(ExerciseCommand::FinishReveal));
        return;
    }
    let t0 = now_ms();
    let h = set_interval_with_handle(
        move || {
            let f = ((now_ms() - t0) / ms).clamp(0.0, 1.0);
            shell.dispatch(Command::Exercise(ExerciseCommand::RevealFrame(f)));
        },
        Duration::from_millis(16),
    )
    .ok();
    REVEAL.with(|r| *r.borrow_mut() = h);
}

fn stop_reveal() {
    if let Some(h) = REVEAL.with(|r| r.borrow_mut().take()) {
        h.clear();
    }
}

/// Moves the focus once the views have rendered (the next animation frame).
fn focus(f: Focus) {
    request_animation_frame(move || {
        let Some(w) = web_sys::window() else { return };
        let Some(doc) = w.document() else { return };
        match f {
            // The panel has moved beside the map (opened from the picker at the bottom): bring
            // it into view if it is out of sight.
            Focus::ExercisePanel => {
                let h = w
                    .inner_height()
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0);
                if let Some(el) = doc.get_element_by_id("exercises-panel") {
                    let top = el.get_bounding_client_rect().top();
                    if top < 0.0 || top > h {
                        el.scroll_into_view_with_bool(true);
                    }
                }
            }
            Focus::Question => {
                if let Some(el) = doc
                    .get_element_by_id("exercise-q")
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = el.focus();
                }
            }
            Focus::Result => {
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
            }
        }
    });
}

/// Fetches an exercise set; the text (or why not) comes back as
/// [`ExerciseCommand::Fetched`].
fn fetch_set(shell: Shell, url: String) {
    let Some(w) = web_sys::window() else { return };
    let reply = move |url: String, result: Result<String, String>| {
        shell.dispatch(Command::Exercise(ExerciseCommand::Fetched { url, result }))
    };
    let u1 = url.clone();
    let on_text = Closure::<dyn FnMut(JsValue)>::new(move |text: JsValue| {
        reply(
            u1.clone(),
            text.as_string()
                .ok_or_else(|| "the reply is not text".to_string()),
        )
    });
    let u2 = url.clone();
    let on_error = Rc::new(Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        let why = e
            .as_string()
            .or_else(|| {
                e.dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| "network error".to_string());
        reply(u2.clone(), Err(why));
    }));
    let on_error2 = on_error.clone();
    let u3 = url.clone();
    let on_response = Closure::<dyn FnMut(JsValue)>::new(move |r: JsValue| {
        let Ok(resp) = r.dyn_into::<web_sys::Response>() else {
            reply(u3.clone(), Err("not a response".to_string()));
            return;
        };
        if !resp.ok() {
            reply(u3.clone(), Err(format!("HTTP {}", resp.status())));
            return;
        }
        match resp.text() {
            Ok(p) => {
                let _ = p.then2(&on_text, &on_error2);
            }
            Err(_) => reply(u3.clone(), Err("the reply cannot be read".to_string())),
        }
    });
    let _ = w.fetch_with_str(&url).then2(&on_response, &on_error);
    // One fetch per click or page load: the closures live as long as the page.
    on_response.forget();
}
