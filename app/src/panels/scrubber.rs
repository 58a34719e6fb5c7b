//! The scrubber: a WAI-ARIA slider over event positions `0..=len`, with a tick per operation
//! boundary (drawn on a canvas) and the current operation's span shaded. Click or drag to
//! seek; with focus, the arrow keys step events, Shift+arrows and PageUp/PageDown step
//! operations, Home/End jump (the global shortcuts do it; they act on the same cursor).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

use buddyscope::Timeline;

use super::{op_label, tracked_width};
use crate::model::Command;
use crate::shell::View;
use crate::theme::{self, ThemeState};

/// The slider's state at the cursor (the tick marks are [`markers`], per run).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScrubberModel {
    pub len: u32,
    pub pos: u32,
    /// Events `[start, end)` of the current op, shaded.
    pub op_span: Option<(u32, u32)>,
    /// `aria-valuetext`: "event i of n, op k of m: summary".
    pub valuetext: String,
}

pub fn view_model(t: &Timeline) -> ScrubberModel {
    let op = t
        .op_index()
        .map(|i| {
            format!(
                ", op {} of {}: {}",
                i + 1,
                t.run.ops.len(),
                op_label(&t.run, i)
            )
        })
        .unwrap_or_default();
    ScrubberModel {
        len: t.len(),
        pos: t.pos(),
        op_span: t.op_index().map(|i| (t.op(i).start, t.op(i).end)),
        valuetext: format!("event {} of {}{op}", t.pos(), t.len()),
    }
}

/// The tick marks: the event position where each op ends.
pub fn markers(t: &Timeline) -> Vec<u32> {
    t.run.ops.iter().map(|o| o.end).collect()
}

/// Pixel columns of the ticks on a track `width` pixels wide, thinned so no two are closer
/// than 2 px (thousands of ops stay legible).
pub fn tick_columns(ends: &[u32], len: u32, width: u32) -> Vec<u32> {
    let n = len.max(1) as f64;
    let mut out: Vec<u32> = Vec::new();
    let mut last_x = -10.0f64;
    for &e in ends {
        let x = (e as f64 / n * width as f64).round();
        if x - last_x >= 2.0 {
            out.push((x.min(width as f64 - 1.0)).max(0.0) as u32);
            last_x = x;
        }
    }
    out
}

#[component]
pub fn Scrubber() -> impl IntoView {
    let view = View::here();
    let dark = ThemeState::dark();
    let track_ref = NodeRef::<leptos::html::Div>::new();
    let ticks_ref = NodeRef::<leptos::html::Canvas>::new();
    let dragging = RwSignal::new(false);
    let width = tracked_width(track_ref, |w| w.max(0) as u32);

    let model = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    let len = Memo::new(move |_| model.with(|m| m.len));
    let pos = Memo::new(move |_| model.with(|m| m.pos));
    // A replayed trace's divergences: (position, tooltip).
    let divergences = Memo::new(move |_| {
        view.with_run(|s| {
            s.replay
                .as_ref()
                .map(|r| super::replay::divergence_markers(&r.divergences))
        })
        .flatten()
        .unwrap_or_default()
    });
    // A replayed trace's prediction misses: (position, tooltip).
    let misses = Memo::new(move |_| {
        view.with_run(|s| {
            s.replay
                .as_ref()
                .map(|r| super::replay::miss_markers(r, s.timeline.len()))
        })
        .flatten()
        .unwrap_or_default()
    });
    // Op end positions: redraw the ticks only when the run or the width changes.
    let op_ends = Memo::new(move |_| view.with_run(|s| markers(&s.timeline)).unwrap_or_default());

    Effect::new(move |_| {
        let w = width.get();
        let d = dark.get();
        let cols = op_ends.with(|ends| tick_columns(ends, len.get(), w));
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
        ctx.set_fill_style_str(&theme::css(theme::palette(d).fg_muted));
        for x in cols {
            ctx.fill_rect(x as f64, 0.0, 1.0, h as f64);
        }
    });

    // A click before the first run is in (panels::deferred) seeks in the run, not the zone: the
    // model finishes it first.
    let seek_to_client_x = move |client_x: i32| {
        let Some(el) = track_ref.get_untracked() else {
            return;
        };
        let r = el.get_bounding_client_rect();
        if r.width() <= 0.0 {
            return;
        }
        let f = ((client_x as f64 - r.left()) / r.width()).clamp(0.0, 1.0);
        view.dispatch(Command::SeekFraction(f));
    };

    let pct = move || {
        let n = len.get().max(1) as f64;
        100.0 * pos.get() as f64 / n
    };
    let op_band = move || {
        model.with(|m| match m.op_span {
            Some((start, end)) => {
                let n = m.len.max(1) as f64;
                format!(
                    "left:{:.3}%;width:{:.3}%",
                    100.0 * start as f64 / n,
                    100.0 * (end - start) as f64 / n
                )
            }
            None => "display:none".into(),
        })
    };
    let valuetext = move || model.with(|m| m.valuetext.clone());

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
                    // focus() brings the style and layout up to date first: skip it when the
                    // slider already has the focus (every click of a scrub after the first).
                    let focused = document().active_element().is_some_and(|a| a == t);
                    if let (false, Some(h)) = (focused, t.dyn_ref::<web_sys::HtmlElement>()) {
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
                        view.dispatch(Command::StepForward);
                        ev.prevent_default();
                    }
                    "ArrowDown" => {
                        view.dispatch(Command::StepBack);
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
                {move || {
                    let n = len.get().max(1) as f64;
                    divergences.with(|ds| {
                        ds.iter()
                            .map(|(at, tip)| {
                                view! {
                                    <div
                                        class="scrub-divergence"
                                        data-testid="scrub-divergence"
                                        title=tip.clone()
                                        style=format!("left:{:.3}%", 100.0 * *at as f64 / n)
                                    ></div>
                                }
                            })
                            .collect_view()
                    })
                }}
                {move || {
                    let n = len.get().max(1) as f64;
                    misses.with(|ms| {
                        ms.iter()
                            .map(|(at, tip)| {
                                view! {
                                    <div
                                        class="scrub-miss"
                                        data-testid="scrub-miss"
                                        title=tip.clone()
                                        style=format!("left:{:.3}%", 100.0 * *at as f64 / n)
                                    ></div>
                                }
                            })
                            .collect_view()
                    })
                }}
                <div class="scrub-thumb" style=move || format!("left:{:.3}%", pct())></div>
            </div>
        </div>
        // The markers' legend, outside the slider (a slider's content is not read out).
        <Show when=move || divergences.with(|d| !d.is_empty()) || misses.with(|m| !m.is_empty())>
                <ul class="chart-legend scrub-legend" data-testid="scrub-legend">
                    <Show when=move || divergences.with(|d| !d.is_empty())>
                        <li><span class="mini-swatch scrub-divergence-swatch"></span>"divergence"</li>
                    </Show>
                    <Show when=move || misses.with(|m| !m.is_empty())>
                        <li><span class="mini-swatch scrub-miss-swatch"></span>"prediction miss (M / Shift+M)"</li>
                    </Show>
                </ul>
            </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    #[test]
    fn the_shaded_span_is_the_current_op_and_ticks_are_op_ends() {
        let mut t = timeline("free-contig-range-thp");
        let ends = markers(&t);
        assert_eq!(ends.len(), t.run.ops.len());
        assert_eq!(*ends.last().unwrap(), t.len());
        assert!(ends.windows(2).all(|w| w[0] <= w[1]));
        for _ in 0..5 {
            t.op_forward();
            let m = view_model(&t);
            let (s, e) = m.op_span.unwrap();
            assert!(s < e && e == m.pos && ends.contains(&e));
            assert!(m
                .valuetext
                .starts_with(&format!("event {} of {}, op ", m.pos, m.len)));
        }
        // Thinned: never two ticks in one 2-px band; the last op end is at the right edge.
        let cols = tick_columns(&ends, t.len(), 300);
        assert!(cols.windows(2).all(|w| w[1] > w[0]));
        assert_eq!(cols.last(), Some(&299));
        assert!(cols.len() <= 150);
    }
}
