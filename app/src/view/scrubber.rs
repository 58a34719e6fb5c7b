//! The scrubber: a WAI-ARIA slider over event positions `0..=len`, with a tick per operation
//! boundary (drawn on a canvas) and the current operation's span shaded. Click or drag to
//! seek; with focus, the arrow keys step events, Shift+arrows and PageUp/PageDown step
//! operations, Home/End jump (the global shortcuts do it; they act on the same cursor).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use super::{op_label, DarkMode};
use crate::state::AppState;

#[component]
pub fn Scrubber() -> impl IntoView {
    let state = AppState::get();
    let dark = DarkMode::get();
    let track_ref = NodeRef::<leptos::html::Div>::new();
    let ticks_ref = NodeRef::<leptos::html::Canvas>::new();
    let dragging = RwSignal::new(false);
    let width = RwSignal::new(0u32);

    let measure = move || {
        if let Some(el) = track_ref.get_untracked() {
            let w = el.client_width().max(0) as u32;
            if width.get_untracked() != w {
                width.set(w);
            }
        }
    };
    Effect::new(move |_| {
        track_ref.track();
        measure();
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    let len = Memo::new(move |_| state.with(|s| s.timeline.len()).unwrap_or(0));
    let pos = Memo::new(move |_| state.with(|s| s.timeline.pos()).unwrap_or(0));
    // Op end positions: redraw the ticks only when the run or the width changes.
    let op_ends = Memo::new(move |_| {
        state
            .with(|s| s.timeline.run.ops.iter().map(|o| o.end).collect::<Vec<_>>())
            .unwrap_or_default()
    });

    Effect::new(move |_| {
        let w = width.get();
        let ends = op_ends.get();
        let n = len.get().max(1) as f64;
        let d = dark.get();
        let Some(c) = ticks_ref.get() else {
            return;
        };
        let h = 14u32;
        c.set_width(w.max(1));
        c.set_height(h);
        let Some(ctx) = c
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|x| x.dyn_into::<CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
        ctx.set_fill_style_str(if d { "#a3abb9" } else { "#555d6b" });
        // Thin out ticks closer than 2 px so thousands of ops stay legible.
        let mut last_x = -10.0f64;
        for e in ends {
            let x = (e as f64 / n * w as f64).round();
            if x - last_x >= 2.0 {
                ctx.fill_rect(x.min(w as f64 - 1.0), 0.0, 1.0, h as f64);
                last_x = x;
            }
        }
    });

    let seek_to_client_x = move |client_x: i32| {
        let Some(el) = track_ref.get_untracked() else {
            return;
        };
        let r = el.get_bounding_client_rect();
        if r.width() <= 0.0 {
            return;
        }
        let f = ((client_x as f64 - r.left()) / r.width()).clamp(0.0, 1.0);
        let target = (f * len.get_untracked() as f64).round() as u32;
        state.playing.set(false);
        if target != pos.get_untracked() {
            state.seek(target);
        }
    };

    let pct = move || {
        let n = len.get().max(1) as f64;
        100.0 * pos.get() as f64 / n
    };
    let op_band = move || {
        state
            .with(|s| {
                let tl = &s.timeline;
                let n = tl.len().max(1) as f64;
                tl.op_index().map(|i| {
                    let o = tl.op(i);
                    format!(
                        "left:{:.3}%;width:{:.3}%",
                        100.0 * o.start as f64 / n,
                        100.0 * (o.end - o.start) as f64 / n
                    )
                })
            })
            .flatten()
            .unwrap_or_else(|| "display:none".into())
    };
    let valuetext = move || {
        state
            .with(|s| {
                let tl = &s.timeline;
                let op = tl
                    .op_index()
                    .map(|i| {
                        format!(
                            ", op {} of {}: {}",
                            i + 1,
                            tl.run.ops.len(),
                            op_label(&tl.run, i)
                        )
                    })
                    .unwrap_or_default();
                format!("event {} of {}{op}", tl.pos(), tl.len())
            })
            .unwrap_or_default()
    };

    view! {
        <div
            class="scrubber"
            data-testid="scrubber"
            role="slider"
            tabindex="0"
            aria-label="Position in the event trace"
            aria-valuemin="0"
            aria-valuemax=move || len.get().to_string()
            aria-valuenow=move || pos.get().to_string()
            aria-valuetext=valuetext
            on:pointerdown=move |ev: web_sys::PointerEvent| {
                if ev.button() != 0 {
                    return;
                }
                dragging.set(true);
                if let Some(t) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                    let _ = t.set_pointer_capture(ev.pointer_id());
                    if let Some(h) = t.dyn_ref::<web_sys::HtmlElement>() {
                        let _ = h.focus();
                    }
                }
                seek_to_client_x(ev.client_x());
            }
            on:pointermove=move |ev: web_sys::PointerEvent| {
                if dragging.get_untracked() {
                    seek_to_client_x(ev.client_x());
                }
            }
            on:pointerup=move |_| dragging.set(false)
            on:pointercancel=move |_| dragging.set(false)
            on:keydown=move |ev: web_sys::KeyboardEvent| {
                // Up/Down act like Right/Left on a slider (the global shortcuts do the rest).
                match ev.key().as_str() {
                    "ArrowUp" => {
                        state.playing.set(false);
                        state.step_forward();
                        ev.prevent_default();
                    }
                    "ArrowDown" => {
                        state.playing.set(false);
                        state.step_back();
                        ev.prevent_default();
                    }
                    _ => {}
                }
            }
        >
            <div class="scrub-track" node_ref=track_ref>
                <div class="scrub-op" style=op_band></div>
                <div class="scrub-fill" style=move || format!("width:{:.3}%", pct())></div>
                <canvas class="scrub-ticks" node_ref=ticks_ref aria-hidden="true"></canvas>
                <div class="scrub-thumb" style=move || format!("left:{:.3}%", pct())></div>
            </div>
        </div>
    }
}
