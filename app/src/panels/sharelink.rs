//! The share button (`share-link`) and the link it makes (`share-url`), and the message of a link
//! that could not be opened. The codec is [`crate::share`]; opening a link is the model's
//! ([`crate::model::route`]).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::model::{Command, Slot};
use crate::share;
use crate::shell::Shell;

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

/// The link to what is on screen now: a split point, so the link's encoder (deflate, base64)
/// is fetched with the first click of Share, not in the first download.
#[leptos::wasm_split::wasm_split(share, wasm_split_path = ::leptos::wasm_split)]
fn make_link(shell: Shell) -> String {
    // The link is of the run, not the first frame's zone.
    shell.dispatch(Command::FinishFirstRun);
    let prefs = shell.prefs;
    let p = shell.read(|m| {
        m.share_payload(
            prefs.presenter.get_untracked(),
            prefs.follow.get_untracked(),
        )
    });
    share::link(&page_base(), &p)
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
    let shell = Shell::get();
    let url = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    // The link describes one frame: once a position or a run changes, it is stale.
    Effect::new(move |_| {
        for s in Slot::ALL {
            shell.cursor(s);
        }
        url.set(None);
    });
    let make = move |_| {
        leptos::task::spawn_local(async move {
            let link = make_link(shell).await;
            copy_to_clipboard(&link);
            url.set(Some(link));
            request_animation_frame(move || {
                if let Some(el) = input.get_untracked() {
                    el.select();
                }
            });
        })
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
