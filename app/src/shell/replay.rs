//! Replaying a kernel trace file: read it, say so for a frame, replay it on the page
//! ([`Session::load_trace`], the engine's replay and its comparison) and hand the run to the
//! model ([`Command::Replay`]). A 40 000-line trace takes a fraction of a second.

use std::time::Duration;

use buddyscope::scenario::Scenario;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Shell;
use crate::model::{Command, Session, TraceStart};

/// Reads `file` as text, shows "Replaying …" for a frame, then replays it.
pub fn read_trace(shell: Shell, file: web_sys::File) {
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let name = file.name();
    shell.dispatch(Command::TraceStatus(Some(format!("Reading {name}…"))));
    let r = reader.clone();
    let onload = Closure::once(move |_: web_sys::Event| {
        let Some(text) = r.result().ok().and_then(|v| v.as_string()) else {
            shell.dispatch(Command::TraceStatus(None));
            shell.dispatch(Command::Replay(Err(format!("{name}: not a text file"))));
            return;
        };
        let lines = text.lines().count();
        shell.dispatch(Command::TraceStatus(Some(format!(
            "Replaying {name}: {lines} lines…"
        ))));
        // Let the message paint before the replay blocks the main thread.
        request_animation_frame(move || {
            set_timeout(
                move || {
                    replay(shell, &text, &name);
                    shell.dispatch(Command::TraceStatus(None));
                },
                Duration::ZERO,
            );
        });
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// Replays `trace` from the chosen start state. On success the replay replaces the current run
/// (cursor at the start); on failure the error names the line and the last good run stays.
fn replay(shell: Shell, trace: &str, file: &str) {
    // The start state is the run's scenario, not the first frame's zone.
    shell.dispatch(Command::FinishFirstRun);
    let (start, chosen) = shell.read(|m| {
        let start = match m.trace_start {
            TraceStart::Boot => Some(Scenario::default()),
            TraceStart::Scenario => Some(m.main().scenario.clone()),
            TraceStart::File => m.trace_start_file.as_ref().map(|f| Scenario::clone(&f.1)),
        };
        (start, m.trace_profile)
    });
    let Some(start) = start else {
        shell.dispatch(Command::Replay(Err(format!(
            "{file}: no start-state file is open: open one (a scenario or a drgn snapshot) first"
        ))));
        return;
    };
    let result = Session::load_trace(&start, chosen, trace, file)
        .map(Box::new)
        .map_err(|e| format!("{file}: {e}"));
    shell.dispatch(Command::Replay(result));
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
