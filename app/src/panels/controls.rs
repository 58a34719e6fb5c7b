//! Stepping controls: buttons, play/pause at a speed, the position readout and the keyboard
//! shortcuts (scoped: never while typing in an input, textarea, select or contenteditable; Space
//! on a focused button presses that button instead of play/pause).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use buddyscope::Timeline;

use super::op_label;
use crate::browser::now_ms;
use crate::state::AppState;

/// Speeds offered, events per second.
pub const SPEEDS: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/// Starts/stops playback with `state.playing`: one update per animation frame (as many events
/// as the speed asks for since the last frame), so a frame never carries two updates and the
/// panels' work lands just before the browser paints (an interval timer could fire twice per
/// frame, or between frames, and drop frames at 60 fps).
pub(crate) fn install_player(state: AppState) {
    // Bumped on every start and stop: a frame callback of an earlier playback does nothing.
    let generation = StoredValue::new_local(0u64);
    Effect::new(move |_| {
        let playing = state.playing.get();
        let g = generation.get_value().wrapping_add(1);
        generation.set_value(g);
        if !playing {
            return;
        }
        if state.at_end() {
            // Play from the end starts over.
            state.jump_start();
        }
        let player = Player {
            state,
            generation,
            ticket: g,
            last: now_ms(),
            carry: 0.0,
        };
        request_animation_frame(move || player.frame());
    });
}

/// One playback in progress.
struct Player {
    state: AppState,
    generation: StoredValue<u64, LocalStorage>,
    ticket: u64,
    /// When the last frame advanced, and the fraction of an event owed since.
    last: f64,
    carry: f64,
}

impl Player {
    fn frame(mut self) {
        if self.generation.try_get_value() != Some(self.ticket) {
            return;
        }
        let t = now_ms();
        let dt = (t - self.last).max(0.0) / 1000.0;
        self.last = t;
        let want = self.carry + dt * self.state.speed.get_untracked();
        let n = want.floor() as u32;
        self.carry = want - n as f64;
        if n > 0 {
            self.state.advance(n);
        }
        if self.state.at_end() {
            self.state.playing.set(false);
            return;
        }
        request_animation_frame(move || self.frame());
    }
}

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

/// Global keyboard shortcuts.
pub(crate) fn install_keys(state: AppState) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.default_prevented() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        if typing_target(&ev) {
            return;
        }
        let shift = ev.shift_key();
        let nav = |f: &dyn Fn()| {
            state.playing.set(false);
            f();
        };
        match ev.key().as_str() {
            "ArrowRight" if shift => nav(&|| state.op_forward()),
            "ArrowLeft" if shift => nav(&|| state.op_back()),
            "ArrowRight" => nav(&|| state.step_forward()),
            "ArrowLeft" => nav(&|| state.step_back()),
            "PageDown" => nav(&|| state.op_forward()),
            "PageUp" => nav(&|| state.op_back()),
            "Home" => nav(&|| state.jump_start()),
            "End" => nav(&|| state.jump_end()),
            // Space on a focused button presses that button (keyboard users step with it).
            " " | "Spacebar" if activates_on_space(&ev) => return,
            " " | "Spacebar" => state.playing.update(|p| *p = !*p),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

#[component]
pub fn Controls() -> impl IntoView {
    let state = AppState::get();
    install_player(state);
    install_keys(state);
    let stop = move || state.playing.set(false);

    let btn =
        move |id: &'static str, label: &'static str, title: &'static str, f: fn(&AppState)| {
            view! {
                <button
                    type="button"
                    class="ctl"
                    data-testid=id
                    title=title
                    aria-label=title
                    on:click=move |_| {
                        stop();
                        f(&state);
                    }
                >
                    {label}
                </button>
            }
        };

    view! {
        <div class="controls" role="toolbar" aria-label="Stepping">
            {btn("jump-start", "\u{21e4}", "Jump to the start (Home)", |s| s.jump_start())}
            {btn("op-back", "\u{25c0}\u{25c0}", "Previous operation (Shift+\u{2190}, PageUp)", |s| s.op_back())}
            {btn("step-back", "\u{2759}\u{25c0}", "Previous event (\u{2190})", |s| s.step_back())}
            <button
                type="button"
                class="ctl play"
                data-testid="play"
                aria-pressed=move || state.playing.get().to_string()
                title="Play / pause (Space)"
                aria-label=move || if state.playing.get() { "Pause (Space)" } else { "Play (Space)" }
                on:click=move |_| state.playing.update(|p| *p = !*p)
            >
                {move || if state.playing.get() { "\u{275a}\u{275a}" } else { "\u{25b6}" }}
            </button>
            {btn("step-forward", "\u{25b6}\u{2759}", "Next event (\u{2192})", |s| s.step_forward())}
            {btn("op-forward", "\u{25b6}\u{25b6}", "Next operation (Shift+\u{2192}, PageDown)", |s| s.op_forward())}
            {btn("jump-end", "\u{21e5}", "Jump to the end (End)", |s| s.jump_end())}
            <label class="speed">
                <span class="speed-label">"speed"</span>
                <select
                    data-testid="speed"
                    aria-label="Playback speed, events per second"
                    prop:value=move || (state.speed.get() as u32).to_string()
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                            state.speed.set(v);
                        }
                    }
                >
                    {SPEEDS
                        .iter()
                        .map(|&s| view! { <option value=s.to_string()>{format!("{s}/s")}</option> })
                        .collect_view()}
                </select>
            </label>
        </div>
    }
}

/// The position readout: "event i / n · op k / m: summary".
pub fn position_text(t: &Timeline) -> String {
    let ops = t.run.ops.len();
    let op = match t.op_index() {
        Some(_) if t.pos() == 0 => format!("before op 1 / {ops}"),
        Some(i) => format!("op {} / {ops}: {}", i + 1, op_label(&t.run, i)),
        None => "no ops".to_string(),
    };
    format!("event {} / {} \u{b7} {op}", t.pos(), t.len())
}

#[component]
pub fn Position() -> impl IntoView {
    let state = AppState::get();
    let text = move || {
        // The first frame's zone has no ops yet: say they are coming (panels::deferred).
        if !state.first_run_done.get() {
            return "event 0 \u{b7} running the scenario\u{2026}".to_string();
        }
        state
            .with(|s| position_text(&s.timeline))
            .unwrap_or_default()
    };
    view! { <div class="position" data-testid="position">{text}</div> }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::testutil::timeline;

    #[test]
    fn position_names_the_event_and_the_op() {
        let mut t = timeline("free-contig-range-thp");
        let n = t.run.ops.len();
        assert_eq!(
            position_text(&t),
            format!("event 0 / {} \u{b7} before op 1 / {n}", t.len())
        );
        t.op_forward();
        let want = format!(
            "event {} / {} \u{b7} op 1 / {n}: {}",
            t.pos(),
            t.len(),
            op_label(&t.run, 0)
        );
        assert_eq!(position_text(&t), want);
    }
}
