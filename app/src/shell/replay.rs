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
