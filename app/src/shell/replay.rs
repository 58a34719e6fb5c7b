//! Replaying a kernel trace file: the file is kept here while the model says where it replays
//! from ([`Command::ReplayFile`]), then the run worker replays it, reading it in chunks
//! ([`crate::runjob::start_replay`]): the page keeps responding however long the trace, with a
//! progress bar and Cancel. A start-state file is read here too.

use std::cell::RefCell;

use buddyscope::scenario::ValidScenario;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Shell;
use crate::model::{Command, JobId};

thread_local! {
    /// The trace file opened last, until its replay starts.
    static TRACE_FILE: RefCell<Option<web_sys::File>> = const { RefCell::new(None) };
}

/// A trace file was opened (picked or dropped): the model starts its replay.
pub fn read_trace(shell: Shell, file: web_sys::File) {
    let name = file.name();
    let bytes = file.size() as u64;
    TRACE_FILE.with(|f| *f.borrow_mut() = Some(file));
    shell.dispatch(Command::ReplayFile { name, bytes });
}

/// Starts the replay of the trace file opened last ([`crate::model::Effect::StartReplay`]).
pub fn start(shell: Shell, job: JobId, file: String, valid: ValidScenario, profile: String) {
    match TRACE_FILE.with(|f| f.borrow_mut().take()) {
        Some(f) => crate::runjob::start_replay(shell, job, f, valid, profile),
        None => shell.dispatch(Command::WorkerFailed {
            job,
            message: format!("{file}: the file is no longer open"),
        }),
    }
}

/// Reads a start-state file (a scenario, or a drgn snapshot as `tools/drgn/snapshot.py` writes
/// it) and makes it the next replay's start state.
pub fn read_start_state(shell: Shell, file: web_sys::File) {
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let name = file.name();
    let r = reader.clone();
    let onload = Closure::once(move |_: web_sys::Event| {
        let result = match r.result().ok().and_then(|v| v.as_string()) {
            Some(text) => {
                buddyscope::scenario::parse_start_state(&text, &name).map(|s| (name, Box::new(s)))
            }
            None => Err(format!("{name}: not a text file")),
        };
        shell.dispatch(Command::TraceStartFile(result));
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// Replays a lab capture from the build ([`crate::captures`]): its before snapshot becomes the
/// start state and its trace, cut at the lab's snapshot markers, replays as a file would.
pub fn open_capture(shell: Shell, capture: crate::captures::Capture) {
    leptos::task::spawn_local(async move {
        match fetch_capture(capture).await {
            Ok((title, start, trace)) => {
                shell.dispatch(Command::TraceStartFile(Ok((
                    format!("{} snapshot-before.json", capture.dir),
                    Box::new(start),
                ))));
                let parts = js_sys::Array::of1(&JsValue::from_str(&trace));
                match web_sys::File::new_with_str_sequence(&parts, &title) {
                    Ok(f) => read_trace(shell, f),
                    Err(_) => shell.dispatch(Command::TraceStartFile(Err(format!(
                        "{}: the trace could not be handed to the replay",
                        capture.dir
                    )))),
                }
            }
            Err(e) => shell.dispatch(Command::TraceStartFile(Err(e))),
        }
    });
}

/// The capture's title, its before snapshot as a start state, and its trace cut at the markers
/// (a window of a longer capture has none: its trace is replayed whole).
async fn fetch_capture(
    c: crate::captures::Capture,
) -> Result<(String, buddyscope::scenario::Scenario, String), String> {
    let capture_json = fetch_text(&c.url("capture.json")).await?;
    let title = c.title(&capture_json)?;
    let snapshot = fetch_text(&c.url("snapshot-before.json")).await?;
    let start = buddyscope::scenario::parse_start_state(&snapshot, "snapshot-before.json")?;
    let trace = fetch_text(&c.url("trace.txt")).await?;
    if crate::captures::Capture::is_window(&capture_json) {
        return Ok((title, start, trace));
    }
    let cut = buddyscope::replay::cut_at_markers(
        &trace,
        Some(crate::captures::BEFORE),
        Some(crate::captures::AFTER),
    )
    .map_err(|e| format!("{}: trace.txt: {e:?}", c.dir))?;
    Ok((title, start, cut))
}

async fn fetch_text(url: &str) -> Result<String, String> {
    let w = web_sys::window().ok_or("no window")?;
    let resp = wasm_bindgen_futures::JsFuture::from(w.fetch_with_str(url))
        .await
        .map_err(|_| format!("{url}: network error"))?;
    let resp: web_sys::Response = resp
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let text = resp.text().map_err(|_| format!("{url}: cannot be read"))?;
    wasm_bindgen_futures::JsFuture::from(text)
        .await
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| format!("{url}: not text"))
}
