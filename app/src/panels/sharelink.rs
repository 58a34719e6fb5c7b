//! The share button (`share-link`) and the link it makes (`share-url`), and opening a link at
//! start-up. The codec is [`crate::share`]; this module only talks to the page.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::share::{self, CompareShare, ShareMode, SharePayload};
use crate::state::AppState;

/// The page's address without query or fragment: what a link is appended to. Works under any
/// sub-path the app is served from.
fn page_base() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    )
}

/// The payload describing what is on screen now.
pub fn current_payload(state: &AppState) -> Option<SharePayload> {
    let id = state.scenario_id.get_untracked();
    let compare = match (
        state.compare.get_untracked(),
        state.with_pair_untracked(|a, b| (a.timeline.pos(), b.timeline.pos())),
    ) {
        (Some(pair), Some((pos_a, pos_b))) => Some(CompareShare { pair, pos_a, pos_b }),
        _ => None,
    };
    state.with_untracked(|s| SharePayload {
        text: s.text.clone(),
        id,
        pos: s.timeline.pos(),
        mode: if compare.is_some() {
            ShareMode::Compare
        } else {
            ShareMode::Single
        },
        compare,
        presenter: state.presenter_state(),
    })
}

/// Applies a decoded link: loads its scenario and moves to its position.
pub fn apply(state: &AppState, p: &SharePayload) -> Result<(), String> {
    let id = match buddyscope::builtin::get(&p.id) {
        // The picker shows the built-in only if the text is still that built-in's.
        Some(b) if b.json == p.text => b.id,
        _ => "custom",
    };
    state.load_text(&p.text, id).map_err(|e| {
        if matches!(state.run_status.get_untracked(), crate::runjob::RunStatus::Refused(_)) {
            format!("The shared scenario was not run ({e}). The default scenario is shown instead.")
        } else {
            format!("The shared scenario does not load in this version ({e}). The default scenario is shown instead.")
        }
    })?;
    // A long run is still in the worker: the position (and the rest) is the new run's, so it
    // waits for it; restored on the run on screen meanwhile it would be lost when the new one
    // replaces it at event 0.
    if crate::runjob::pending(state) {
        let (st, p) = (*state, p.clone());
        crate::runjob::when_loaded(state, move |loaded| {
            if loaded.is_ok() {
                // A compare configuration of a worker run fails (compare runs on the page);
                // `compare_error` shows why.
                let _ = restore(&st, &p);
            }
        });
        return Ok(());
    }
    restore(state, p)
}

/// Moves the loaded run to the link's position, compare sides and presenter state.
fn restore(state: &AppState, p: &SharePayload) -> Result<(), String> {
    state.seek(p.pos);
    if let Some(c) = &p.compare {
        state.set_compare(Some(c.pair.clone()));
        if let Some(e) = state.compare_error.get_untracked() {
            return Err(format!(
                "The shared compare configuration does not run in this version ({e}). The default scenario is shown instead."
            ));
        }
        state.update_pair(|a, b| {
            a.seek(c.pos_a);
            b.seek(c.pos_b);
        });
    }
    state.set_presenter_state(&p.presenter);
    Ok(())
}

/// If the page was opened from a share link (`#s=…`), opens it: `None` without a link,
/// `Some(Err(message))` when the link cannot be opened (the default scenario is loaded).
pub fn open_from_location(state: &AppState) -> Option<Result<(), String>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let value = share::fragment_value(&hash)?;
    let result = share::decode(value)
        .map_err(|e| e.to_string())
        .and_then(|p| apply(state, &p));
    if result.is_err() {
        // Back to the default scenario, whatever a half-applied link did; a refusal (over the
        // run limits, `crate::runjob`) stays on screen with its count and limit.
        let status = state.run_status.get_untracked();
        state.set_compare(None);
        state.set_presenter_state(&Default::default());
        let _ = state.load_builtin(buddyscope::builtin::default().id);
        if matches!(status, crate::runjob::RunStatus::Refused(_)) {
            state.run_status.set(status);
        }
    }
    Some(result)
}

/// Copies `text` to the clipboard when the browser allows it (best effort: the link is also
/// shown selected in the field).
fn copy_to_clipboard(text: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(nav) = js_sys::Reflect::get(&w, &"navigator".into()) else {
        return;
    };
    let clip = js_sys::Reflect::get(&nav, &"clipboard".into()).ok();
    let Some(clip) = clip.filter(|c| !c.is_undefined()) else {
        return;
    };
    if let Ok(f) = js_sys::Reflect::get(&clip, &"writeText".into()) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            if let Ok(p) = f.call1(&clip, &text.into()) {
                if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
                    // A refusal (no permission, no focus) is fine: the field shows the link.
                    let ignore =
                        wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
                            |_| {},
                        );
                    let _ = p.catch(&ignore);
                    ignore.forget();
                }
            }
        }
    }
}

/// The header's share button and the link field it opens.
#[component]
pub fn ShareLink() -> impl IntoView {
    let state = AppState::get();
    let url = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    // The link describes one frame: once the position or run changes, it is stale.
    Effect::new(move |_| {
        state.version.track();
        url.set(None);
    });
    let make = move |_| {
        let Some(p) = current_payload(&state) else {
            return;
        };
        let link = share::link(&page_base(), &p);
        copy_to_clipboard(&link);
        url.set(Some(link));
        request_animation_frame(move || {
            if let Some(el) = input.get_untracked() {
                el.select();
            }
        });
    };
    view! {
        <div class="share">
            <button
                type="button"
                class="share-button"
                data-testid="share-link"
                title="Make a link to exactly this frame (scenario, position, compare and presenter state): opening it shows the same state"
                on:click=make
            >
                "Share"
            </button>
            <Show when=move || url.with(|u| u.is_some())>
                <div class="share-pop" role="group" aria-label="Share link">
                    <input
                        node_ref=input
                        type="text"
                        readonly
                        class="share-url"
                        data-testid="share-url"
                        aria-label="Link to this frame"
                        prop:value=move || url.get().unwrap_or_default()
                    />
                    <span class="share-meta">
                        {move || {
                            url.with(|u| u.as_ref().map(|u| format!("{} characters, copied if the browser allowed it", u.len())))
                        }}
                    </span>
                    <button type="button" class="share-close" aria-label="Close" on:click=move |_| url.set(None)>
                        "\u{d7}"
                    </button>
                </div>
            </Show>
        </div>
    }
}

/// The message shown when a share link could not be opened.
#[component]
pub fn ShareError(message: String) -> impl IntoView {
    let shown = RwSignal::new(true);
    view! {
        <Show when=move || shown.get()>
            <div class="share-error" role="alert" data-testid="share-error">
                <span>{message.clone()}</span>
                <button type="button" aria-label="Dismiss" on:click=move |_| shown.set(false)>
                    "\u{d7}"
                </button>
            </div>
        </Show>
    }
}
