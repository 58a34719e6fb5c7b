//! Export for slides: PNG of the current frame (the memory map alone, or the whole panel set
//! composed on a canvas by [`snapshot`](super::snapshot)), a WebM recording of a played range,
//! and the state as `/proc/buddyinfo` / `/proc/pagetypeinfo` text and the trace as text —
//! all downloads. The texts are the engine's own formatters ([`procfs`], [`trace_text_upto`]),
//! so an export at op boundary K equals `buddyscope run … --format … --ops K`.
//!
//! Recording: `MediaRecorder` on `canvas.captureStream(RECORDING_FPS)` of a frame canvas (a
//! caption over the map). The range `[from, to]` is played stop by stop as "step one event"
//! does; each stop is shown for `1 / speed` s, so the video lasts `stops / speed` seconds.

use std::cell::RefCell;
use std::rc::Rc;

use buddyscope::explain::trace_text_upto;
use buddyscope::run::Timeline;
use buddyscope::scenario::procfs;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::controls::SPEEDS;
use super::frame::PanelFrame;
use super::slide::{self, Draw, Heading, Slide};
use super::{counters, freelists, narration, pcp};
use crate::browser::now_ms;
use crate::model::Command;
use crate::shell::View;
use crate::theme::{self, ThemeState};

/// The recording's frame rate (frames per second asked of `captureStream`).
pub const RECORDING_FPS: u32 = 30;
/// Longest recording offered, in seconds.
pub const MAX_RECORDING_S: f64 = 600.0;

/// A file to download.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportFile {
    pub name: String,
    pub text: String,
}

/// The text exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextExport {
    Buddyinfo,
    Pagetypeinfo,
    /// The trace up to the cursor, or of the whole run.
    Trace {
        whole: bool,
    },
}

/// `op3` at the end of op 3 (what `--ops 3` shows), `ev1234` elsewhere.
pub fn position_tag(t: &Timeline) -> String {
    let k = t.ops_done();
    let at_op_end = t.pos() == 0 && k == 0 || k > 0 && t.op(k - 1).end == t.pos();
    if at_op_end {
        format!("op{k}")
    } else {
        format!("ev{}", t.pos())
    }
}

/// The start of every export's file name: the built-in's id, or for a custom run (an edited
/// scenario, an imported machine, a replay) its name in lower case (`your-machine-zone-normal`),
/// then the position tag; a run without ops (an imported state) has no position to name.
pub fn file_stem(t: &Timeline, id: &str) -> String {
    let base = file_base(t, id);
    if t.run.ops.is_empty() {
        base
    } else {
        format!("{base}-{}", position_tag(t))
    }
}

/// [`file_stem`] without the position.
pub fn file_base(t: &Timeline, id: &str) -> String {
    if id == "custom" {
        let mut slug = String::new();
        for c in t.run.scenario.name.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
            if slug.len() >= 48 {
                break;
            }
        }
        let slug = slug.trim_end_matches('-').to_string();
        if slug.is_empty() {
            "custom".to_string()
        } else {
            slug
        }
    } else {
        id.to_string()
    }
}

/// Why an export would be an empty file (the trace of a run with no events up to the cursor),
/// said instead of saving 0 bytes.
pub fn empty_export(t: &Timeline, what: TextExport) -> Option<String> {
    let TextExport::Trace { whole } = what else {
        return None;
    };
    let end = if whole { t.len() } else { t.pos() };
    if !trace_text_upto(&t.run, end).is_empty() {
        return None;
    }
    Some(if t.run.ops.is_empty() {
        "Nothing to save: this run has no operations, so it has no trace (a loaded state has no history). /proc/buddyinfo and /proc/pagetypeinfo export its state.".to_string()
    } else {
        "Nothing to save: no event has happened before the cursor. Step forward, or tick \u{201c}whole run\u{201d}.".to_string()
    })
}

/// The engine's text for an export, at the cursor.
pub fn text_export(t: &Timeline, id: &str, what: TextExport) -> ExportFile {
    // The node, every zone of it, as the kernel's /proc files and the CLI print it.
    let node = t.node();
    let (stem, base) = (file_stem(t, id), file_base(t, id));
    match what {
        TextExport::Buddyinfo => ExportFile {
            name: format!("{stem}-buddyinfo.txt"),
            text: procfs::buddyinfo(node),
        },
        TextExport::Pagetypeinfo => ExportFile {
            name: format!("{stem}-pagetypeinfo.txt"),
            text: procfs::pagetypeinfo(node),
        },
        TextExport::Trace { whole: true } => ExportFile {
            name: format!("{base}-trace.txt"),
            text: trace_text_upto(&t.run, t.len()),
        },
        TextExport::Trace { whole: false } => ExportFile {
            name: format!("{stem}-trace.txt"),
            text: trace_text_upto(&t.run, t.pos()),
        },
    }
}

/// What a recording plays: the positions shown, one after the other, each for `1 / speed` s.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordingPlan {
    pub stops: Vec<u32>,
    /// Stops per second (the app's "events per second").
    pub speed: f64,
}

impl RecordingPlan {
    /// From `from` to `to` (clamped to the run) the way "step one event" moves: `from`, each
    /// visible event after it, and `to` last.
    pub fn new(t: &Timeline, from: u32, to: u32, speed: f64) -> RecordingPlan {
        let to = to.min(t.len());
        let from = from.min(to);
        let mut stops = vec![from];
        let vis = t.visible();
        let first = vis.partition_point(|&v| v < from);
        for &v in &vis[first..] {
            if v + 1 >= to {
                break;
            }
            stops.push(v + 1);
        }
        if to > from {
            stops.push(to);
        }
        RecordingPlan {
            stops,
            speed: speed.max(0.1),
        }
    }

    /// The video's length.
    pub fn duration_s(&self) -> f64 {
        self.stops.len() as f64 / self.speed
    }

    /// The stop to show `elapsed` seconds in.
    pub fn stop_at(&self, elapsed_s: f64) -> usize {
        ((elapsed_s * self.speed).floor().max(0.0) as usize).min(self.stops.len() - 1)
    }
}

// --- the browser side -------------------------------------------------------------------------

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// The memory map's canvas.
fn map_canvas() -> Option<HtmlCanvasElement> {
    document()?
        .query_selector("[data-testid=\"memory-map\"]")
        .ok()??
        .dyn_into()
        .ok()
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok()??.dyn_into().ok()
}

/// Replays a display list on `canvas` (resized to it), the map drawn from `map`.
fn paint(canvas: &HtmlCanvasElement, s: &Slide, map: &HtmlCanvasElement) {
    if canvas.width() != s.w {
        canvas.set_width(s.w);
    }
    if canvas.height() != s.h {
        canvas.set_height(s.h);
    }
    let Some(ctx) = context(canvas) else {
        return;
    };
    ctx.set_text_baseline("top");
    for d in &s.draws {
        match d {
            Draw::Rect { x, y, w, h, color } => {
                ctx.set_fill_style_str(&theme::css(*color));
                ctx.fill_rect(*x, *y, *w, *h);
            }
            Draw::Text {
                x,
                y,
                px,
                bold,
                color,
                text,
            } => {
                ctx.set_fill_style_str(&theme::css(*color));
                ctx.set_font(&format!(
                    "{}{px}px \"DejaVu Sans Mono\", \"Liberation Mono\", monospace",
                    if *bold { "bold " } else { "" }
                ));
                let _ = ctx.fill_text(text, *x, *y);
            }
            Draw::Map { x, y, w, h } => {
                // Cells are pixels: keep them crisp at 1:1, smooth when scaled down.
                ctx.set_image_smoothing_enabled(*w < map.width() as f64);
                let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(map, *x, *y, *w, *h);
            }
        }
    }
}

/// Downloads a Blob under `name` through a temporary `<a download>`.
fn download_blob(blob: &web_sys::Blob, name: &str) {
    let Some(doc) = document() else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Some(a) = doc
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        let _ = a.set_attribute("hidden", "");
        if let Some(body) = doc.body() {
            let _ = body.append_child(&a);
            a.click();
            a.remove();
        }
    }
    // Revoke once the browser has surely fetched it.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
}

pub(crate) fn download_text(f: &ExportFile) {
    let parts = js_sys::Array::of1(&JsValue::from_str(&f.text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("text/plain;charset=utf-8");
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) {
        download_blob(&blob, &f.name);
    }
}

/// `canvas.toBlob("image/png")` and download; `done` gets the byte size (0 on failure).
pub(crate) fn download_png(
    canvas: &HtmlCanvasElement,
    name: String,
    done: impl FnOnce(f64) + 'static,
) {
    let cb = Closure::once_into_js(move |b: JsValue| match b.dyn_into::<web_sys::Blob>() {
        Ok(blob) => {
            download_blob(&blob, &name);
            done(blob.size());
        }
        Err(_) => done(0.0),
    });
    if canvas.to_blob(cb.unchecked_ref()).is_err() {
        leptos::logging::warn!("toBlob failed");
    }
}

/// The heading of a frame at the cursor.
fn heading(t: &Timeline) -> Heading {
    let ops = t.run.ops.len();
    Heading {
        title: t.run.scenario.name.clone(),
        position: format!(
            "kernel {} \u{b7} event {} / {} \u{b7} {} of {ops} ops done",
            t.run.scenario.kernel.as_str(),
            t.pos(),
            t.len(),
            t.ops_done()
        ),
    }
}

/// A recording in progress.
struct Recording {
    plan: RecordingPlan,
    canvas: HtmlCanvasElement,
    map: HtmlCanvasElement,
    recorder: web_sys::MediaRecorder,
    t0: f64,
    /// `now_ms()` of the previous tick and the smoothed tick interval (ms).
    last_tick: f64,
    tick_ms: f64,
    shown: usize,
    stopped: bool,
}

fn supported_webm() -> &'static str {
    [
        "video/webm;codecs=vp8",
        "video/webm;codecs=vp9",
        "video/webm",
    ]
    .into_iter()
    .find(|t| web_sys::MediaRecorder::is_type_supported(t))
    .unwrap_or("video/webm")
}

/// Draws the recording frame of the cursor (the map canvas shows the cursor: its effect ran
/// after the last seek, one animation frame ago).
fn draw_recording_frame(view: View, rec: &Recording, dark: bool) {
    let snap = view.untracked(|s| {
        let t = &s.timeline;
        slide::recording_frame(
            &heading(t),
            &narration::view_model(t),
            (rec.map.width(), rec.map.height()),
            theme::palette(dark),
        )
    });
    if let Some(snap) = snap {
        // The canvas keeps the size it had when the stream started.
        let fixed = Slide {
            w: rec.canvas.width(),
            h: rec.canvas.height(),
            draws: snap.draws,
        };
        paint(&rec.canvas, &fixed, &rec.map);
    }
}

fn tick(view: View, rec: Rc<RefCell<Recording>>, dark: bool) {
    {
        let r = rec.borrow();
        if r.stopped {
            return;
        }
        draw_recording_frame(view, &r, dark);
    }
    let now = now_ms();
    let mut r = rec.borrow_mut();
    let elapsed = (now - r.t0) / 1000.0;
    // The mean time between ticks, to see the end coming.
    if r.last_tick > 0.0 {
        r.tick_ms = 0.8 * r.tick_ms + 0.2 * (now - r.last_tick);
    }
    r.last_tick = now;
    let remaining_ms = (r.plan.duration_s() - elapsed) * 1000.0;
    let k = r.plan.stop_at(elapsed);
    if remaining_ms <= r.tick_ms {
        // The next tick would come after the end: show the last stop now and draw its final
        // frame by a timer at the end time itself (the video's last timestamp is its length).
        r.stopped = true;
        let last = r.plan.stops.len() - 1;
        let p = r.plan.stops[last];
        let seek = r.shown != last;
        r.shown = last;
        drop(r);
        if seek {
            view.dispatch(Command::Seek(p));
        }
        set_timeout(
            move || finish(view, rec, dark),
            std::time::Duration::from_millis(remaining_ms.max(0.0) as u64),
        );
        return;
    }
    if k != r.shown {
        r.shown = k;
        let p = r.plan.stops[k];
        drop(r);
        view.dispatch(Command::Seek(p));
    } else {
        drop(r);
    }
    request_animation_frame(move || tick(view, rec, dark));
}

/// At the end time: draws the final frame and pauses the recorder half a frame later, so the
/// last frame captured (the canvas is captured at up to [`RECORDING_FPS`] even when unchanged)
/// is within one frame of the end; stops it a little later (a pause is queued behind the frames
/// already handed to the encoder, so none of them is lost).
fn finish(view: View, rec: Rc<RefCell<Recording>>, dark: bool) {
    draw_recording_frame(view, &rec.borrow(), dark);
    set_timeout(
        move || {
            let _ = rec.borrow().recorder.pause();
            set_timeout(
                move || {
                    let _ = rec.borrow().recorder.stop();
                },
                std::time::Duration::from_millis(400),
            );
        },
        std::time::Duration::from_millis(u64::from(500 / RECORDING_FPS)),
    );
}

/// Plays `plan` into a WebM on `canvas` and downloads it as `name`; `status` reports.
fn record(
    view: View,
    plan: RecordingPlan,
    canvas: HtmlCanvasElement,
    name: String,
    dark: bool,
    status: RwSignal<String>,
    busy: RwSignal<bool>,
) -> Result<(), String> {
    let map = map_canvas().ok_or("no memory map")?;
    view.dispatch(Command::Seek(plan.stops[0]));
    // Size the frame canvas before the stream starts; it keeps that size.
    let first = view
        .untracked(|s| {
            slide::recording_frame(
                &heading(&s.timeline),
                &narration::view_model(&s.timeline),
                (map.width(), map.height()),
                theme::palette(dark),
            )
        })
        .ok_or("no run")?;
    canvas.set_width(first.w);
    canvas.set_height(first.h);
    let stream = canvas
        .capture_stream_with_frame_request_rate(RECORDING_FPS as f64)
        .map_err(|e| format!("captureStream: {e:?}"))?;
    let mime = supported_webm();
    let opts = web_sys::MediaRecorderOptions::new();
    opts.set_mime_type(mime);
    opts.set_video_bits_per_second(2_500_000);
    let recorder =
        web_sys::MediaRecorder::new_with_media_stream_and_media_recorder_options(&stream, &opts)
            .map_err(|e| format!("MediaRecorder: {e:?}"))?;
    let chunks = js_sys::Array::new();
    let ch = chunks.clone();
    let on_data = Closure::<dyn FnMut(web_sys::BlobEvent)>::new(move |ev: web_sys::BlobEvent| {
        if let Some(b) = ev.data() {
            if b.size() > 0.0 {
                ch.push(&b);
            }
        }
    });
    recorder.set_ondataavailable(Some(on_data.as_ref().unchecked_ref()));
    on_data.forget();
    let duration = plan.duration_s();
    let on_stop = Closure::once_into_js(move |_: JsValue| {
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("video/webm");
        match web_sys::Blob::new_with_blob_sequence_and_options(&chunks, &opts) {
            Ok(blob) => {
                download_blob(&blob, &name);
                status.set(format!(
                    "Recorded {name}: {:.2} s at {RECORDING_FPS} fps, {} bytes.",
                    duration,
                    blob.size()
                ));
            }
            Err(_) => status.set("The recording could not be assembled.".to_string()),
        }
        busy.set(false);
    });
    recorder.set_onstop(Some(on_stop.unchecked_ref()));
    let rec = Rc::new(RefCell::new(Recording {
        plan,
        canvas,
        map,
        recorder,
        t0: 0.0,
        last_tick: 0.0,
        tick_ms: 1000.0 / 60.0,
        shown: 0,
        stopped: false,
    }));
    busy.set(true);
    status.set(format!(
        "Recording {duration:.2} s at {RECORDING_FPS} fps\u{2026}"
    ));
    // Once the recorder has started (and the map shows the first stop), the first frame is
    // drawn and the clock starts: the video's first frame is time 0.
    let r2 = rec.clone();
    let on_start = Closure::once_into_js(move |_: JsValue| {
        request_animation_frame(move || {
            r2.borrow_mut().t0 = now_ms();
            tick(view, r2, dark);
        });
    });
    rec.borrow()
        .recorder
        .set_onstart(Some(on_start.unchecked_ref()));
    request_animation_frame(move || {
        let r = rec.borrow();
        draw_recording_frame(view, &r, dark);
        if let Err(e) = r.recorder.start() {
            status.set(format!("MediaRecorder.start failed: {e:?}"));
            busy.set(false);
        }
    });
    Ok(())
}

#[component]
pub fn ExportPanel() -> impl IntoView {
    let view = View::here();
    let dark = ThemeState::dark();
    let status = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let whole_trace = RwSignal::new(false);
    let from = RwSignal::new(0u32);
    let to = RwSignal::new(0u32);
    let speed = RwSignal::new(16u32);
    let rec_ref = NodeRef::<leptos::html::Canvas>::new();
    let len = Memo::new(move |_| view.with_run(|s| s.timeline.len()).unwrap_or(0));
    // A new run: record its first op by default.
    let run_key = Memo::new(move |_| view.shell.run_id(view.slot));
    Effect::new(move |_| {
        let _ = run_key.get();
        from.set(0);
        to.set(
            view.untracked(|s| {
                s.timeline
                    .run
                    .ops
                    .first()
                    .map(|o| o.end)
                    .unwrap_or(s.timeline.len())
            })
            .unwrap_or(0),
        );
    });
    let id = move || view.shell.ui.scenario_id.get_untracked();

    let text = move |what: TextExport| {
        if let Some(Some(why)) = view.untracked(|s| empty_export(&s.timeline, what)) {
            status.set(why);
            return;
        }
        if let Some(f) = view.untracked(|s| text_export(&s.timeline, &id(), what)) {
            download_text(&f);
            status.set(format!("Saved {} ({} bytes).", f.name, f.text.len()));
        }
    };
    // The images' and the recording's names start as the texts' do (`file_stem`).
    let stem = move || {
        view.untracked(|s| file_stem(&s.timeline, &id()))
            .unwrap_or_default()
    };
    let png_map = move |_| {
        let Some(map) = map_canvas() else { return };
        let name = format!("{}-map.png", stem());
        let n = name.clone();
        download_png(&map, name, move |b| {
            status.set(format!("Saved {n} ({b} bytes)."))
        });
    };
    let png_all = move |_| {
        let Some(map) = map_canvas() else { return };
        let snap = view.untracked(|s| {
            let t = &s.timeline;
            slide::panel_set(
                &heading(t),
                &narration::view_model(t),
                &freelists::view_model(t),
                &pcp::view_model(t),
                &counters::view_model(t),
                (map.width(), map.height()),
                theme::palette(dark.get_untracked()),
            )
        });
        let Some(snap) = snap else { return };
        let Some(canvas) = document()
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
        else {
            return;
        };
        paint(&canvas, &snap, &map);
        let name = format!("{}-panels.png", stem());
        let n = name.clone();
        download_png(&canvas, name, move |b| {
            status.set(format!("Saved {n} ({b} bytes)."))
        });
    };
    let plan = Memo::new(move |_| {
        let (f, t, sp) = (from.get(), to.get(), speed.get());
        view.with_run(|s| RecordingPlan::new(&s.timeline, f, t, sp as f64))
    });
    let plan_text = move || {
        plan.with(|p| match p {
            Some(p) => format!(
                "{} stops \u{d7} 1/{} s = {:.2} s of video at {RECORDING_FPS} fps",
                p.stops.len(),
                p.speed,
                p.duration_s()
            ),
            None => String::new(),
        })
    };
    let webm = move |_| {
        let Some(p) = plan.get_untracked() else {
            return;
        };
        let Some(canvas) = rec_ref.get_untracked() else {
            return;
        };
        if p.duration_s() > MAX_RECORDING_S {
            status.set(format!(
                "{:.0} s is too long to record (at most {MAX_RECORDING_S:.0} s): shorten the range or raise the speed.",
                p.duration_s()
            ));
            return;
        }
        let name = format!(
            "{}-ev{}-{}-{}eps.webm",
            view.untracked(|s| file_base(&s.timeline, &id()))
                .unwrap_or_default(),
            p.stops[0],
            p.stops[p.stops.len() - 1],
            p.speed
        );
        let canvas: HtmlCanvasElement = canvas.clone();
        if let Err(e) = record(view, p, canvas, name, dark.get_untracked(), status, busy) {
            status.set(format!("Recording failed: {e}"));
            busy.set(false);
        }
    };
    let num = move |sig: RwSignal<u32>| {
        move |ev: leptos::ev::Event| {
            if let Ok(v) = event_target_value(&ev).trim().parse::<u32>() {
                sig.set(v.min(len.get_untracked()));
            }
        }
    };
    let here = move || view.untracked(|s| s.timeline.pos()).unwrap_or(0);

    view! {
        <PanelFrame
            key="export"
            title="Export"
            testid="export"
            help="Download the current frame as PNG, a played range as WebM video, the state as /proc text and the trace as text."
        >
            <div class="export-body">
                <div class="export-row" role="group" aria-label="Images of the current frame">
                    <span class="export-label">"PNG"</span>
                    <button type="button" data-testid="export-png-map" on:click=png_map>"Memory map"</button>
                    <button type="button" data-testid="export-png-all" on:click=png_all>"All panels"</button>
                </div>
                <div class="export-row" role="group" aria-label="Text at the cursor">
                    <span class="export-label">"Text"</span>
                    <button type="button" data-testid="export-buddyinfo"
                        on:click=move |_| text(TextExport::Buddyinfo)>"/proc/buddyinfo"</button>
                    <button type="button" data-testid="export-pagetypeinfo"
                        on:click=move |_| text(TextExport::Pagetypeinfo)>"/proc/pagetypeinfo"</button>
                    <button type="button" data-testid="export-trace"
                        on:click=move |_| text(TextExport::Trace { whole: whole_trace.get_untracked() })>"Trace"</button>
                    <label class="export-check">
                        <input type="checkbox" data-testid="export-trace-whole"
                            prop:checked=move || whole_trace.get()
                            on:change=move |ev| whole_trace.set(event_target_checked(&ev))/>
                        "whole run (else up to the cursor)"
                    </label>
                </div>
                <div class="export-row export-video" role="group" aria-label="Video of a played range">
                    <span class="export-label">"WebM"</span>
                    <label>"from event "
                        <input type="number" min="0" data-testid="export-webm-from"
                            prop:max=move || len.get().to_string()
                            prop:value=move || from.get().to_string() on:change=num(from)/>
                    </label>
                    <button type="button" class="mini" data-testid="export-webm-from-cursor"
                        title="Start at the cursor" on:click=move |_| from.set(here())>"cursor"</button>
                    <label>" to "
                        <input type="number" min="0" data-testid="export-webm-to"
                            prop:max=move || len.get().to_string()
                            prop:value=move || to.get().to_string() on:change=num(to)/>
                    </label>
                    <button type="button" class="mini" data-testid="export-webm-to-cursor"
                        title="End at the cursor" on:click=move |_| to.set(here())>"cursor"</button>
                    <label>" at "
                        <select data-testid="export-webm-speed"
                            prop:value=move || speed.get().to_string()
                            on:change=move |ev| {
                                if let Ok(v) = event_target_value(&ev).parse() { speed.set(v) }
                            }>
                            {SPEEDS.iter().map(|&s| view! { <option value=s.to_string()>{format!("{s} events/s")}</option> }).collect_view()}
                        </select>
                    </label>
                    <button type="button" data-testid="export-webm"
                        disabled=move || busy.get()
                        on:click=webm>{move || if busy.get() { "Recording\u{2026}" } else { "Record WebM" }}</button>
                </div>
                <p class="export-plan" data-testid="export-webm-plan"
                    data-duration=move || plan.with(|p| p.as_ref().map(|p| p.duration_s().to_string()).unwrap_or_default())
                    data-fps=RECORDING_FPS.to_string()>
                    {plan_text}
                </p>
                <p class="export-status" data-testid="export-status" aria-live="polite">{move || status.get()}</p>
                <canvas class="export-recording" data-testid="export-recording-canvas" node_ref=rec_ref
                    class:active=move || busy.get()
                    aria-label="The frame being recorded"></canvas>
            </div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;
    use buddyscope::run::{RunOptions, Runner};
    use buddyscope::scenario::parse_valid;

    /// At the end of op K the exports are what the CLI prints with `--ops K` (the CLI runs
    /// K ops and formats its final zone with the same functions).
    /// An imported machine (a custom run of no ops) is named after itself, with no position;
    /// its trace is empty, and says so instead of saving 0 bytes.
    #[test]
    fn a_custom_run_is_named_after_itself_and_an_empty_trace_is_refused() {
        let text = r#"{"version": 1, "name": "Your machine: zone Normal", "ops": []}"#;
        let t = Timeline::new(Runner::new(parse_valid(text).unwrap()).run().unwrap());
        assert_eq!(file_stem(&t, "custom"), "your-machine-zone-normal");
        let f = text_export(&t, "custom", TextExport::Buddyinfo);
        assert_eq!(f.name, "your-machine-zone-normal-buddyinfo.txt");
        assert!(!f.text.is_empty());
        for whole in [false, true] {
            let why = empty_export(&t, TextExport::Trace { whole }).expect("refused");
            assert!(why.contains("no operations"), "{why}");
        }
        assert_eq!(empty_export(&t, TextExport::Buddyinfo), None);
        let mut t = timeline("fallback-claim");
        assert_eq!(file_stem(&t, "fallback-claim"), "fallback-claim-op0");
        assert!(empty_export(&t, TextExport::Trace { whole: false }).is_some());
        assert_eq!(empty_export(&t, TextExport::Trace { whole: true }), None);
        t.op_forward();
        assert_eq!(empty_export(&t, TextExport::Trace { whole: false }), None);
    }

    #[test]
    fn text_exports_equal_the_cli_at_op_boundaries() {
        for id in ["pcp-overflow-2cpu", "fallback-claim"] {
            let b = buddyscope::scenario::builtin::get(id).unwrap();
            let mut t = timeline(id);
            let n = t.run.ops.len();
            for k in [1, 3, n] {
                t.seek(t.op(k - 1).end);
                assert_eq!(position_tag(&t), format!("op{k}"));
                let cli = Runner::new(parse_valid(b.json()).unwrap())
                    .options(&RunOptions {
                        record: true,
                        checkpoint_budget: 0,
                        max_ops: Some(k),
                    })
                    .run()
                    .unwrap();
                let bi = text_export(&t, id, TextExport::Buddyinfo);
                assert_eq!(bi.text, procfs::buddyinfo(&cli.final_node), "{id} K={k}");
                assert_eq!(bi.name, format!("{id}-op{k}-buddyinfo.txt"));
                assert_eq!(
                    text_export(&t, id, TextExport::Pagetypeinfo).text,
                    procfs::pagetypeinfo(&cli.final_node)
                );
                assert_eq!(
                    text_export(&t, id, TextExport::Trace { whole: false }).text,
                    buddyscope::explain::trace_text(&cli)
                );
            }
            assert_eq!(
                text_export(&t, id, TextExport::Trace { whole: true }).text,
                buddyscope::explain::trace_text(&t.run)
            );
            t.seek(t.op(0).end + 1);
            assert!(position_tag(&t).starts_with("ev"));
        }
    }

    /// The plan's stops are the positions "step one event" visits, `to` last; the duration is
    /// stops / speed.
    #[test]
    fn a_recording_plays_the_stepping_stops() {
        let mut t = timeline("fallback-claim");
        let to = t.op(1).end;
        let p = RecordingPlan::new(&t, 0, to, 16.0);
        let mut walked = vec![0];
        while t.pos() < to {
            t.step_forward();
            walked.push(t.pos().min(to));
        }
        assert_eq!(p.stops, walked);
        assert!((p.duration_s() - walked.len() as f64 / 16.0).abs() < 1e-9);
        assert_eq!(p.stop_at(0.0), 0);
        assert_eq!(p.stop_at(1.0 / 16.0), 1);
        assert_eq!(p.stop_at(1e9), p.stops.len() - 1);
        // Degenerate ranges: one stop.
        assert_eq!(RecordingPlan::new(&t, 5, 5, 4.0).stops, vec![5]);
        assert_eq!(RecordingPlan::new(&t, 9, 3, 4.0).stops, vec![3]);
    }
}
