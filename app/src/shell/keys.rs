//! The keyboard: the stepping shortcuts and presenter mode's keys, never while typing in an
//! input, textarea, select or contenteditable; Space on a focused button presses that button
//! instead of play/pause.
//!
//! | key | |
//! |---|---|
//! | ← / → | previous / next event |
//! | Shift+← / Shift+→, PageUp / PageDown | previous / next operation (in presenter mode with a tour: previous / next stop) |
//! | Home / End | start / end |
//! | Space | play / pause |
//! | `P` | presenter mode on / off |
//! | `B`, `.` | blank the screen (presenter mode) |
//! | `F` | full screen (presenter mode) |
//! | `T` | start / leave the scenario's tour (presenter mode) |
//! | Escape | un-blank, else leave presenter mode |

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Shell;
use crate::model::Command;

/// True if the key event comes from a place where keys mean text (or a select's own keys).
pub fn typing_target(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    let tag = el.tag_name().to_ascii_lowercase();
    matches!(tag.as_str(), "input" | "textarea" | "select") || el.is_content_editable()
}

/// True if Space/Enter on the event's target already mean "press this" (a button, a link, a
/// summary, a checkbox-like role): Space then operates the focused control, not play/pause.
pub fn activates_on_space(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return false;
    };
    let tag = el.tag_name().to_ascii_lowercase();
    let role = el.get_attribute("role").unwrap_or_default();
    matches!(tag.as_str(), "button" | "a" | "summary")
        || matches!(
            role.as_str(),
            "button" | "link" | "checkbox" | "switch" | "menuitem" | "tab" | "option"
        )
}

/// The stepping shortcuts (the app root and the embedded view).
pub fn install_stepping(shell: Shell) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.default_prevented() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        if typing_target(&ev) {
            return;
        }
        let shift = ev.shift_key();
        let cmd = match ev.key().as_str() {
            "ArrowRight" if shift => Command::OpForward,
            "ArrowLeft" if shift => Command::OpBack,
            "ArrowRight" => Command::StepForward,
            "ArrowLeft" => Command::StepBack,
            "PageDown" => Command::OpForward,
            "PageUp" => Command::OpBack,
            "Home" => Command::JumpStart,
            "End" => Command::JumpEnd,
            // A replay's prediction misses (the prediction panel's buttons).
            "m" => Command::NextMiss,
            "M" => Command::PrevMiss,
            // Space on a focused button presses that button (keyboard users step with it).
            " " | "Spacebar" if activates_on_space(&ev) => return,
            " " | "Spacebar" => Command::TogglePlay,
            _ => return,
        };
        shell.dispatch(cmd);
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

/// Presenter mode on or off (the `P` key, the header's button): the preference and the tour.
pub fn set_presenter(shell: Shell, on: bool) {
    shell.prefs.set_presenter(on, None);
    shell.dispatch(Command::Present(on));
}

/// `document.documentElement.requestFullscreen()` or `document.exitFullscreen()`. The promise's
/// rejection (headless browsers, no user gesture, an iframe without `allowfullscreen`) is
/// caught: full screen is a nicety, never an error.
fn toggle_fullscreen() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (target, method): (JsValue, &str) = if doc.fullscreen_element().is_some() {
        (doc.clone().into(), "exitFullscreen")
    } else {
        match doc.document_element() {
            Some(el) => (el.into(), "requestFullscreen"),
            None => return,
        }
    };
    let Ok(f) = js_sys::Reflect::get(&target, &method.into()) else {
        return;
    };
    let Some(f) = f.dyn_ref::<js_sys::Function>() else {
        return;
    };
    if let Ok(p) = f.call0(&target) {
        if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
            let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
            let _ = p.catch(&ignore);
            ignore.forget();
        }
    }
}

/// The presenter keys, listened to in the capture phase so they are seen (and, when handled,
/// `preventDefault`ed) before the stepping shortcuts.
pub fn install_presenter(shell: Shell) {
    let prefs = shell.prefs;
    let cb =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |ev: web_sys::KeyboardEvent| {
            if ev.default_prevented() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            if typing_target(&ev) {
                return;
            }
            let presenting = prefs.presenter.get_untracked();
            let touring = shell.ui.tour_stop.get_untracked().is_some();
            match ev.key().as_str() {
                "p" | "P" => set_presenter(shell, !presenting),
                "b" | "B" | "." if presenting => prefs.blank.update(|b| *b = !*b),
                "f" | "F" if presenting => toggle_fullscreen(),
                "t" | "T" if presenting => shell.dispatch(if touring {
                    Command::TourEnd
                } else {
                    Command::TourGo(0)
                }),
                "PageDown" if presenting && touring => shell.dispatch(Command::TourNext),
                "PageUp" if presenting && touring => shell.dispatch(Command::TourPrev),
                "Escape" if presenting => {
                    if prefs.blank.get_untracked() {
                        prefs.blank.set(false);
                    } else {
                        set_presenter(shell, false);
                    }
                }
                _ => return,
            }
            ev.prevent_default();
        });
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback_and_bool(
            "keydown",
            cb.as_ref().unchecked_ref(),
            true,
        );
    }
    // The app root lives as long as the page.
    cb.forget();
}
