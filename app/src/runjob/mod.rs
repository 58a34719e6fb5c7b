//! The run worker: long legal runs (the model's [`crate::model::session::plan`] says which) run
//! in a Web Worker with a progress bar and Cancel, so the page keeps responding.
//!
//! The worker is the page's own wasm: `www/run-worker.js` (a module worker, copied next to
//! `index.html`) dynamically imports the same wasm-bindgen glue the page loaded (its URL read
//! from the page, so `--public-url` sub-paths work), initialises it with the page's compiled
//! `WebAssembly.Module` (posted to it: nothing is fetched or compiled twice, no second wasm in
//! the bundle) and calls [`buddyscope_worker_run`]. `main` mounts nothing there (no `window`).
//! The result comes back as one transferred `ArrayBuffer` ([`transfer`]).

pub mod transfer;

use std::cell::{Cell, RefCell};

use buddyscope::run::Run;
use buddyscope::scenario::ValidScenario;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::model::session::{run_bounded, run_options, ReplayInfo, Session};
use crate::model::{Command, Handover, JobId};
use crate::shell::Shell;

// --- the worker side -----------------------------------------------------------------------

/// The worker's entry (called by `www/run-worker.js`): runs `text`, calling `progress(done,
/// total)` as it goes (the script throttles the messages), and resolves to `{bytes}`: the run
/// encoded for the page ([`transfer`], in its own wasm module: only a worker fetches it); a
/// build with the `bench` feature adds `run_ms` and `encode_ms`, what running and encoding
/// took. A panic posts `{type: "error", message}` before the instance traps.
#[wasm_bindgen]
pub async fn buddyscope_worker_run(
    text: String,
    progress: js_sys::Function,
    debug_panic: bool,
) -> Result<js_sys::Object, JsError> {
    post_panics();
    if debug_panic {
        panic!("debug panic requested by ?{DEBUG_WORKER_PANIC}");
    }
    crate::shell::runner::load().await;
    let valid = crate::late::parse_valid(&text).map_err(|e| JsError::new(&e.to_string()))?;
    #[cfg(feature = "bench")]
    let t0 = js_sys::Date::now();
    let run = run_bounded(valid, &mut |done, total| {
        let _ = progress.call2(
            &JsValue::NULL,
            &(done as f64).into(),
            &(total as f64).into(),
        );
        std::ops::ControlFlow::Continue(())
    })
    .map_err(|e| JsError::new(&e.to_string()))?;
    #[cfg(feature = "bench")]
    let t1 = js_sys::Date::now();
    let bytes = js_sys::Uint8Array::from(&encode(run).await[..]);
    let out = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&out, &k.into(), v).map(|_| ());
    let done = set("bytes", &bytes);
    #[cfg(feature = "bench")]
    let done = done
        .and_then(|_| set("run_ms", &(t1 - t0).into()))
        .and_then(|_| set("encode_ms", &(js_sys::Date::now() - t1).into()));
    done.map_err(|_| JsError::new("could not build the result"))?;
    Ok(out)
}

/// A panic in the worker posts `{type: "error", message}` before the instance traps.
fn post_panics() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &"error".into());
        let text = format!(
            "the engine panicked: {}",
            crate::panic_banner::panic_message(info)
        );
        let _ = js_sys::Reflect::set(&msg, &"message".into(), &text.into());
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = scope.post_message(&msg);
    }));
}

/// The run's bytes for the page: a split point, so the encoder is fetched by the worker only.
#[leptos::wasm_split::wasm_split(encode, wasm_split_path = ::leptos::wasm_split)]
fn encode(run: Run) -> Vec<u8> {
    transfer::encode_run(&run)
}

/// The replay worker's entry (called by `www/run-worker.js`): replays the trace `file` from
/// the scenario `start` (JSON: [`crate::model::session::replay_start`]'s) under `profile` (its
/// sentence), reading the file in chunks ([`chunks::FileChunks`]) and calling
/// `progress(pass, bytes, total, lines, events)` as it goes; resolves to `{bytes}` like
/// [`buddyscope_worker_run`]. Over the app's limits of a recorded run it stops and fails with
/// what to do instead.
#[wasm_bindgen]
pub async fn buddyscope_worker_replay(
    file: web_sys::File,
    start: String,
    profile: String,
    progress: js_sys::Function,
) -> Result<js_sys::Object, JsError> {
    post_panics();
    let bytes = replay_in_worker(ReplayJob {
        file,
        start,
        profile,
        progress,
    })
    .await
    .map_err(|e| JsError::new(&e))?;
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"bytes".into(), &js_sys::Uint8Array::from(&bytes[..]))
        .map_err(|_| JsError::new("could not build the result"))?;
    Ok(out)
}

/// What [`buddyscope_worker_replay`] was given.
struct ReplayJob {
    file: web_sys::File,
    start: String,
    profile: String,
    progress: js_sys::Function,
}

/// The replay and its encoding: a split point, so the replay's code is fetched by the worker
/// only.
#[leptos::wasm_split::wasm_split(replay_worker, wasm_split_path = ::leptos::wasm_split)]
fn replay_in_worker(job: ReplayJob) -> Result<Vec<u8>, String> {
    use std::cell::Cell;
    use std::rc::Rc;
    let ReplayJob {
        file,
        start,
        profile,
        progress,
    } = job;
    let name = file.name();
    let scenario = buddyscope::scenario::parse(&start).map_err(|e| format!("{name}: {e}"))?;
    let events = Rc::new(Cell::new(0u64));
    let over = Rc::new(Cell::new(false));
    let report: chunks::Report = {
        let events = events.clone();
        Rc::new(move |pass: u8, bytes: f64, total: f64, lines: u64| {
            let args = js_sys::Array::of5(
                &f64::from(pass).into(),
                &bytes.into(),
                &total.into(),
                &(lines as f64).into(),
                &(events.get() as f64).into(),
            );
            let _ = progress.apply(&JsValue::NULL, &args);
        })
    };
    let mut pass = 0u8;
    let max_ops = crate::model::session::limits().max_ops;
    let result = crate::model::session::replay_trace(
        &scenario,
        profile,
        &name,
        &mut || {
            pass += 1;
            chunks::FileChunks::new(file.clone(), pass, report.clone(), over.clone())
        },
        &mut |n| {
            events.set(n);
            if n > max_ops {
                // The reader stops at its next chunk.
                over.set(true);
            }
        },
    );
    let over_limits = |events: u64, recorded: u64, more: bool| {
        crate::model::session::replay_over_limits(&name, events, recorded, more)
    };
    let (run, info) = match result {
        Ok(r) => r,
        Err(_) if over.get() => {
            return Err(over_limits(events.get(), 0, true).unwrap_or_default());
        }
        Err(e) => return Err(format!("{name}: {e}")),
    };
    if let Some(e) = over_limits(
        info.summary.trace_events,
        run.log.events.len() as u64,
        false,
    ) {
        return Err(e);
    }
    Ok(transfer::encode_replay(&run, &info))
}

/// The trace file read in chunks in the worker, as the engine's streaming replay reads it.
mod chunks {
    use std::cell::Cell;
    use std::io::{BufRead, Read};
    use std::rc::Rc;

    /// Progress of a pass: (pass, bytes read, file size, lines read).
    pub type Report = Rc<dyn Fn(u8, f64, f64, u64)>;

    /// Bytes read per chunk: a few per second of replay, so the progress moves smoothly.
    const CHUNK: f64 = (1 << 20) as f64;

    /// A `BufRead` over a `File`: each chunk is a `Blob.slice` read synchronously
    /// (`FileReaderSync`, a worker's), so the whole file is never in memory.
    pub struct FileChunks {
        file: web_sys::File,
        reader: Option<web_sys::FileReaderSync>,
        pass: u8,
        pos: f64,
        size: f64,
        buf: Vec<u8>,
        at: usize,
        lines: u64,
        report: Report,
        /// Set when the replay is over the app's limits: the next chunk is an error.
        stop: Rc<Cell<bool>>,
    }

    impl FileChunks {
        pub fn new(file: web_sys::File, pass: u8, report: Report, stop: Rc<Cell<bool>>) -> Self {
            let size = file.size();
            report(pass, 0.0, size, 0);
            FileChunks {
                file,
                reader: web_sys::FileReaderSync::new().ok(),
                pass,
                pos: 0.0,
                size,
                buf: Vec::new(),
                at: 0,
                lines: 0,
                report,
                stop,
            }
        }
    }

    impl Read for FileChunks {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = {
                let b = self.fill_buf()?;
                let n = b.len().min(out.len());
                out[..n].copy_from_slice(&b[..n]);
                n
            };
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for FileChunks {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            if self.at == self.buf.len() && self.pos < self.size {
                if self.stop.get() {
                    return Err(std::io::Error::other("over the app's limits"));
                }
                let end = (self.pos + CHUNK).min(self.size);
                let reader = self
                    .reader
                    .as_ref()
                    .ok_or_else(|| std::io::Error::other("FileReaderSync is not available"))?;
                let chunk = self
                    .file
                    .slice_with_f64_and_f64(self.pos, end)
                    .and_then(|b| reader.read_as_array_buffer(&b))
                    .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
                self.buf = js_sys::Uint8Array::new(&chunk).to_vec();
                self.at = 0;
                self.pos = end;
                self.lines += self.buf.iter().filter(|&&b| b == b'\n').count() as u64;
                (self.report)(self.pass, self.pos, self.size, self.lines);
            }
            Ok(&self.buf[self.at..])
        }

        fn consume(&mut self, amt: usize) {
            self.at = (self.at + amt).min(self.buf.len());
        }
    }
}

/// Query flag that makes the next worker run panic (the e2e test of the error path).
pub const DEBUG_WORKER_PANIC: &str = "debug-worker-panic";

// --- the page side -------------------------------------------------------------------------

/// The worker of the run in progress, and its handlers (kept alive as long as it is).
struct Worker {
    job: JobId,
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    /// The job whose messages and result the page takes; `None` once it is cancelled.
    static CURRENT: Cell<Option<JobId>> = const { Cell::new(None) };
}

fn current(job: JobId) -> bool {
    CURRENT.with(Cell::get) == Some(job)
}

/// The worker of `job` has said its last word (its result, or an error): it is terminated,
/// later messages are ignored, and it is dropped after the running handler has returned (a
/// closure must not be dropped while it runs).
fn retire(job: JobId) {
    if let Some(w) = WORKER.with(|j| j.borrow().as_ref().map(|j| j.worker.clone())) {
        w.terminate();
    }
    set_timeout(
        move || {
            WORKER.with(|j| {
                let mut j = j.borrow_mut();
                if j.as_ref().is_some_and(|j| j.job == job) {
                    *j = None;
                }
            })
        },
        std::time::Duration::ZERO,
    );
}

/// Stops the run in progress, if any: the worker is terminated and a result being read is
/// dropped ([`crate::model::Effect::CancelWorker`]).
pub fn cancel() {
    CURRENT.with(|c| c.set(None));
    let w = WORKER.with(|j| j.borrow_mut().take());
    drop(w);
}

/// The URL of the wasm-bindgen glue the page loaded: trunk's `<link rel="modulepreload">`, or
/// the `import … from '…'` of its inline loader.
fn glue_url() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    if let Ok(Some(link)) = doc.query_selector("link[rel=modulepreload][href$='.js']") {
        if let Some(href) = link.get_attribute("href") {
            return absolute(&href, &doc);
        }
    }
    let script = doc.query_selector("script[type=module]").ok()??;
    let text = script.text_content().unwrap_or_default();
    let url = text.split(" from '").nth(1)?.split('\'').next()?;
    if url.ends_with(".js") {
        return absolute(url, &doc);
    }
    None
}

fn absolute(url: &str, doc: &web_sys::Document) -> Option<String> {
    let base = doc.base_uri().ok()??;
    web_sys::Url::new_with_base(url, &base)
        .ok()
        .map(|u| u.href())
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Starts `text` (validated: `valid`) in a worker as `job` ([`crate::model::Effect::StartWorker`]):
/// its progress, its result and its failure come back as commands.
pub fn start(shell: Shell, job: JobId, text: String, valid: ValidScenario) {
    cancel();
    CURRENT.with(|c| c.set(Some(job)));
    let debug_panic = crate::browser::query_param(DEBUG_WORKER_PANIC).is_some();
    let msg = [
        ("text", JsValue::from(text.as_str())),
        ("debug_panic", debug_panic.into()),
    ];
    if let Err(e) = spawn(shell, job, &msg, Pending::Run { text, valid }) {
        let message = format!("The run could not start in a worker: {e}");
        shell.dispatch(Command::WorkerFailed { job, message });
    }
}

/// Replays the trace `file` in a worker as `job` from `valid` (the replay's scenario) under
/// `profile` ([`crate::model::Effect::StartReplay`]): the worker reads the file in chunks;
/// its progress, its result and its failure come back as commands.
pub fn start_replay(
    shell: Shell,
    job: JobId,
    file: web_sys::File,
    valid: ValidScenario,
    profile: String,
) {
    cancel();
    CURRENT.with(|c| c.set(Some(job)));
    let msg = [
        ("kind", JsValue::from("replay")),
        ("file", file.into()),
        ("start", crate::late::scenario_json(&valid).into()),
        ("profile", profile.into()),
    ];
    if let Err(e) = spawn(shell, job, &msg, Pending::Replay { valid }) {
        let message = format!("The replay could not start in a worker: {e}");
        shell.dispatch(Command::WorkerFailed { job, message });
    }
}

/// What the page keeps of a job until its result is in.
enum Pending {
    /// A scenario run: its text and validated scenario.
    Run { text: String, valid: ValidScenario },
    /// A trace replay: its scenario.
    Replay { valid: ValidScenario },
}

/// Work per task while the page reads a finished run: short enough that input, painting and
/// the progress text get their turn between slices, long enough not to stretch the hand-over.
const RECEIVE_SLICE_MS: f64 = 10.0;

/// Bytes copied from the worker's `ArrayBuffer` into wasm memory per task.
const RECEIVE_COPY_SLICE: u32 = 4 << 20;

/// What the page does next with a finished worker run.
enum Phase {
    /// Copying the transferred bytes into wasm memory, `copied` so far.
    Copy { bytes: Vec<u8>, copied: u32 },
    /// Decoding records ([`transfer::RunDecoder`]).
    Decode(transfer::RunDecoder),
    /// Every record read: building the initial zone.
    Rebuild(transfer::RunDecoder),
    /// Rebuilding the zone states from the events ([`transfer::Rebuilding`]).
    Replay(Box<transfer::Rebuilding>),
    /// Building the timeline and installing the run.
    Install(Box<(Run, transfer::DecodeTimes)>),
}

/// A finished worker run the page is reading, one slice per task ([`receive`]): no single task
/// blocks the page for the whole hand-over (docs/app.md, "Long runs and limits").
struct Receive {
    shell: Shell,
    job: JobId,
    text: String,
    valid: ValidScenario,
    /// A replay: the bytes start with what the replay adds ([`transfer::encode_replay`]),
    /// read into `replay` once copied.
    is_replay: bool,
    replay: Option<Box<ReplayInfo>>,
    /// The transferred bytes (a view: nothing copied yet).
    js: js_sys::Uint8Array,
    phase: Phase,
    /// Tasks so far.
    slices: u32,
    /// Records (op records and events) in the run: the decoding's part of the progress.
    records: u64,
    #[cfg(feature = "bench")]
    times: bench_times::Times,
}

impl Receive {
    /// Shows `done` of the work: the run's records to decode, then its `ops` to replay.
    fn progress(&self, done: u64, ops: u64) {
        self.shell.dispatch(Command::ReceiveProgress {
            job: self.job,
            done,
            total: self.records + ops,
        });
    }
}

/// Starts reading a finished run ([`receive`]): a split point, so the decoder is not in the
/// first download.
#[leptos::wasm_split::wasm_split(receive, wasm_split_path = ::leptos::wasm_split)]
fn read_result(r: Box<Receive>) {
    receive(r)
}

/// One slice of reading a finished run, then the next in a new task; the last slice installs
/// the run (cursor at the start).
fn receive(mut r: Box<Receive>) {
    // Cancelled or replaced meanwhile.
    if !current(r.job) {
        return;
    }
    let now = crate::browser::now_ms;
    #[cfg(feature = "bench")]
    let t0 = now();
    let phase = std::mem::replace(
        &mut r.phase,
        Phase::Copy {
            bytes: Vec::new(),
            copied: 0,
        },
    );
    let next = match phase {
        Phase::Copy { mut bytes, copied } => {
            let len = bytes.len() as u32;
            let end = copied.saturating_add(RECEIVE_COPY_SLICE).min(len);
            r.js.subarray(copied, end)
                .copy_to(&mut bytes[copied as usize..end as usize]);
            #[cfg(feature = "bench")]
            {
                r.times.copy_ms += now() - t0;
            }
            if end < len {
                Ok(Phase::Copy { bytes, copied: end })
            } else if r.is_replay {
                transfer::split_replay(bytes).and_then(|(info, rest)| {
                    r.replay = Some(Box::new(info));
                    transfer::RunDecoder::new(rest).map(Phase::Decode)
                })
            } else {
                transfer::RunDecoder::new(bytes).map(Phase::Decode)
            }
        }
        Phase::Decode(mut d) => d.decode_for(RECEIVE_SLICE_MS, now).map(|all| {
            r.records = d.total();
            r.progress(d.done(), d.ops());
            if all {
                Phase::Rebuild(d)
            } else {
                Phase::Decode(d)
            }
        }),
        Phase::Rebuild(d) => {
            let budget = run_options().checkpoint_budget;
            d.rebuild(r.valid.clone(), budget, now)
                .map(|z| Phase::Replay(Box::new(z)))
        }
        Phase::Replay(mut z) => {
            let all = z.step_for(RECEIVE_SLICE_MS, now);
            let (done, ops) = z.progress();
            r.progress(r.records + done, ops);
            Ok(if all {
                Phase::Install(Box::new(z.finish()))
            } else {
                Phase::Replay(z)
            })
        }
        Phase::Install(done) => {
            let (mut run, _times) = *done;
            let session = match r.replay.take() {
                Some(mut info) => {
                    // A replay's op records are its trace lines, not the scenario's ops.
                    run.op_defs = buddyscope::run::replay::op_defs();
                    if let Some(p) = &info.predict {
                        info.miss_positions = crate::model::session::miss_positions(&run, p);
                    }
                    Session::from_replay(run, *info)
                }
                None => Session::from_run(&r.text, run),
            };
            #[cfg(feature = "bench")]
            let t1 = now();
            r.slices += 1;
            let handover = Handover {
                bytes: u64::from(r.js.length()),
                tasks: r.slices,
            };
            #[cfg(feature = "bench")]
            r.times.expose(&_times, now() - t0, t1 - t0, handover);
            CURRENT.with(|c| c.set(None));
            r.shell.dispatch(Command::WorkerDone {
                job: r.job,
                session: Box::new(session),
                handover,
            });
            return;
        }
    };
    r.slices += 1;
    #[cfg(feature = "bench")]
    r.times.task(now() - t0);
    match next {
        Ok(phase) => {
            r.phase = phase;
            set_timeout(move || receive(r), std::time::Duration::ZERO);
        }
        Err(message) => {
            CURRENT.with(|c| c.set(None));
            r.shell.dispatch(Command::WorkerFailed {
                job: r.job,
                message,
            });
        }
    }
}

fn spawn(
    shell: Shell,
    job: JobId,
    fields: &[(&str, JsValue)],
    pending: Pending,
) -> Result<(), String> {
    let glue = glue_url().ok_or("the page's wasm-bindgen script was not found")?;
    let script = web_sys::Url::new_with_base("run-worker.js", &glue)
        .map_err(|e| format!("{e:?}"))?
        .href();
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&script, &opts).map_err(|e| format!("{e:?}"))?;

    let msg = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&msg, &k.into(), v).map(|_| ());
    set("glue", &glue.into())
        .and_then(|_| set("module", &wasm_bindgen::module()))
        .map_err(|e| format!("{e:?}"))?;
    for (k, v) in fields {
        set(k, v).map_err(|e| format!("{e:?}"))?;
    }
    let is_replay = matches!(pending, Pending::Replay { .. });
    let mut pending = Some(pending);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if !current(job) {
                return;
            }
            let data = ev.data();
            match get(&data, "type").as_string().as_deref() {
                Some("progress") => {
                    let done = get(&data, "done").as_f64().unwrap_or(0.0) as u64;
                    let total = get(&data, "total").as_f64().unwrap_or(0.0) as u64;
                    shell.dispatch(Command::WorkerProgress { job, done, total });
                }
                Some("replay-progress") => {
                    let n = |k: &str| get(&data, k).as_f64().unwrap_or(0.0) as u64;
                    shell.dispatch(Command::ReplayProgress {
                        job,
                        pass: n("pass") as u8,
                        bytes: n("bytes"),
                        total: n("total"),
                        lines: n("lines"),
                        events: n("events"),
                    });
                }
                Some("done") => {
                    retire(job);
                    let (text, valid) = match pending.take() {
                        Some(Pending::Run { text, valid }) => (text, valid),
                        Some(Pending::Replay { valid }) => (String::new(), valid),
                        None => return,
                    };
                    let js = js_sys::Uint8Array::new(&get(&data, "bytes"));
                    shell.dispatch(Command::WorkerReceiving {
                        job,
                        bytes: u64::from(js.length()),
                    });
                    let r = Box::new(Receive {
                        shell,
                        job,
                        text,
                        valid,
                        is_replay,
                        replay: None,
                        phase: Phase::Copy {
                            bytes: vec![0; js.length() as usize],
                            copied: 0,
                        },
                        js,
                        slices: 0,
                        records: 0,
                        #[cfg(feature = "bench")]
                        times: bench_times::Times::new(&data),
                    });
                    // Say so before the page starts reading: let the message paint first. The
                    // reading's code (the decoder, the checkpoint rebuild) is its own wasm
                    // module, fetched with the first long run.
                    set_timeout(
                        move || leptos::task::spawn_local(read_result(r)),
                        std::time::Duration::from_millis(40),
                    );
                }
                _ => {
                    retire(job);
                    CURRENT.with(|c| c.set(None));
                    let msg = get(&data, "message")
                        .as_string()
                        .unwrap_or_else(|| "unknown error".to_string());
                    // A replay's error names the trace and its line (the trace panel shows it).
                    let message = if is_replay {
                        msg
                    } else {
                        format!("The run failed: {msg}. The current run stays.")
                    };
                    shell.dispatch(Command::WorkerFailed { job, message });
                }
            }
        });
    let on_error =
        Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
            ev.prevent_default();
            if !current(job) {
                return;
            }
            retire(job);
            CURRENT.with(|c| c.set(None));
            let message = format!("The run worker failed: {}", ev.message());
            shell.dispatch(Command::WorkerFailed { job, message });
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    worker.post_message(&msg).map_err(|e| format!("{e:?}"))?;
    WORKER.with(|j| {
        *j.borrow_mut() = Some(Worker {
            job,
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

/// The hand-over's timings on `window` (`__buddyscope_worker_run_ms`,
/// `__buddyscope_transfer_*`) for the benchmark (BENCHMARKS.md, "Worker hand-over"): only in a
/// build with the `bench` feature.
#[cfg(feature = "bench")]
mod bench_times {
    use super::get;
    use crate::browser::{expose, now_ms};
    use crate::model::Handover;

    pub struct Times {
        worker_ms: [f64; 2],
        pub copy_ms: f64,
        busy_ms: f64,
        longest_ms: f64,
        started: f64,
    }

    impl Times {
        /// The worker's own figures from its `done` message.
        pub fn new(data: &wasm_bindgen::JsValue) -> Times {
            Times {
                worker_ms: [get(data, "run_ms"), get(data, "encode_ms")]
                    .map(|v| v.as_f64().unwrap_or(f64::NAN)),
                copy_ms: 0.0,
                busy_ms: 0.0,
                longest_ms: 0.0,
                started: now_ms(),
            }
        }

        /// A task of `ms`.
        pub fn task(&mut self, ms: f64) {
            self.busy_ms += ms;
            self.longest_ms = self.longest_ms.max(ms);
        }

        /// The last task (`ms`, of it `timeline_ms` building the timeline): every figure.
        pub fn expose(
            &mut self,
            t: &super::transfer::DecodeTimes,
            ms: f64,
            timeline_ms: f64,
            h: Handover,
        ) {
            self.task(ms);
            expose("__buddyscope_worker_run_ms", self.worker_ms[0]);
            expose("__buddyscope_transfer_encode_ms", self.worker_ms[1]);
            expose("__buddyscope_transfer_bytes", h.bytes as f64);
            expose("__buddyscope_transfer_copy_ms", self.copy_ms);
            expose("__buddyscope_transfer_decode_ms", t.decode);
            expose("__buddyscope_transfer_build_ms", t.build);
            expose("__buddyscope_transfer_rebuild_ms", t.rebuild);
            expose("__buddyscope_transfer_timeline_ms", timeline_ms);
            expose("__buddyscope_transfer_page_ms", self.busy_ms);
            expose("__buddyscope_transfer_longest_task_ms", self.longest_ms);
            expose("__buddyscope_transfer_tasks", f64::from(h.tasks));
            expose("__buddyscope_transfer_wall_ms", now_ms() - self.started);
        }
    }
}
