//! Bounded work, never a frozen page: every scenario the app is asked to run
//! is first costed without running it ([`plan`]); over the engine's limit it is refused with the
//! count and the limit, small runs run on the page as before, and long legal runs run in a Web
//! Worker with a progress bar and Cancel, so the page keeps responding.
//!
//! The worker is the page's own wasm: `www/run-worker.js` (a module worker, copied next to
//! `index.html`) dynamically imports the same wasm-bindgen glue the page loaded (its URL read
//! from the page, so `--public-url` sub-paths work), initialises it with the page's compiled
//! `WebAssembly.Module` (posted to it: nothing is fetched or compiled twice, no second wasm in
//! the bundle) and calls [`buddyscope_worker_run`]. `main` mounts nothing there (no `window`).
//! The result comes back as one transferred `ArrayBuffer` ([`transfer`]).

pub mod model;
pub mod transfer;

use std::cell::{Cell, RefCell};

use buddyscope::{
    run::{self, Cost},
    Limits, Run, ScenarioError, ValidScenario,
};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::{AppState, Session};

/// What the run status strip shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RunStatus {
    /// Nothing running or to report.
    #[default]
    Idle,
    /// A long run in the worker: `done` of `total` ops.
    Running { name: String, done: u64, total: u64 },
    /// The worker has finished; the page is reading its `bytes` of result, a slice per task
    /// (`done` of `total` records read).
    Receiving {
        name: String,
        bytes: u64,
        done: u64,
        total: u64,
    },
    /// The last scenario asked for was over the limit (the message gives the count, the limit
    /// and how to lower it); the previous run stays.
    Refused(String),
    /// The worker failed (an error or a panic in the engine, a worker that would not start);
    /// the previous run stays.
    Failed(String),
}

/// Where a scenario runs.
#[derive(Debug)]
pub enum Plan {
    /// Small: synchronously on the page, as before (no visible change).
    Now,
    /// Long but legal: in the worker, `total` ops.
    Worker { total: u64 },
    /// Over the limit: not run.
    Refuse(ScenarioError),
}

/// Above this many executed ops a run goes to the worker. Every built-in is far below it
/// (the largest runs a few hundred ops), so they keep running synchronously, as before.
pub const WORKER_MIN_OPS: u64 = 20_000;

/// Above this many pages touched ([`Cost::pages_touched`], an upper bound: a workload step
/// counts its largest order) a run goes to the worker too: a few ops over large ranges record as
/// many events as many small ops (a page freed page by page is about 7 events). The built-ins
/// touch at most about 1.5 Mi pages by this bound (`fragmented-sandbox`'s workload), and run on
/// the page as before.
pub const WORKER_MIN_PAGES: u128 = 16 << 20;

/// Why compare mode does not run a scenario that needs the worker (it runs both sides on the
/// page).
pub fn too_long_to_compare(ops: u64) -> ScenarioError {
    ScenarioError::new(
        "ops",
        format!(
            "compare mode runs both sides on the page, up to {WORKER_MIN_OPS} operations; this \
             scenario has {ops}"
        ),
        "compare a shorter run (fewer repeat times or workload steps)",
    )
}

/// The limits of the app's runs: it records the trace (the timeline needs it).
pub fn limits() -> Limits {
    Limits::recorded()
}

/// Costs `valid` without running it ([`run::estimate`]) and says where it runs.
pub fn plan(valid: &ValidScenario) -> Plan {
    plan_cost(&run::estimate(valid), &limits())
}

/// [`plan`] for a known cost.
pub fn plan_cost(cost: &Cost, limits: &Limits) -> Plan {
    if let Err(e) = run::check_limits(cost, limits) {
        return Plan::Refuse(e);
    }
    if cost.ops > u128::from(WORKER_MIN_OPS) || cost.pages_touched > WORKER_MIN_PAGES {
        Plan::Worker {
            total: cost.ops_u64(),
        }
    } else {
        Plan::Now
    }
}

/// Runs `valid` with the app's options and limits: the scenario's cost is checked first and a
/// recording run stops at the event cap (`progress` as in
/// [`buddyscope::execute_with_progress`]).
pub fn run_bounded(
    valid: ValidScenario,
    progress: buddyscope::run::Progress<'_>,
) -> Result<Run, ScenarioError> {
    let start = buddyscope::build(valid)?;
    buddyscope::execute_with_progress(start, &crate::state::run_options(), &limits(), progress)
}

// --- the worker side -----------------------------------------------------------------------

/// The worker's entry (called by `www/run-worker.js`): runs `text`, calling `progress(done,
/// total)` as it goes (the script throttles the messages), and returns `{bytes, run_ms,
/// encode_ms}`: the run encoded for the page ([`transfer`]) and what running and encoding took.
/// A panic posts `{type: "error", message}` before the instance traps.
#[wasm_bindgen]
pub fn buddyscope_worker_run(
    text: &str,
    progress: &js_sys::Function,
    debug_panic: bool,
) -> Result<js_sys::Object, JsError> {
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
    if debug_panic {
        panic!("debug panic requested by ?{DEBUG_WORKER_PANIC}");
    }
    let valid = buddyscope::parse_valid(text).map_err(|e| JsError::new(&e.to_string()))?;
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
    let t1 = js_sys::Date::now();
    let bytes = js_sys::Uint8Array::from(&transfer::encode_run(&run)[..]);
    let out = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&out, &k.into(), v).map(|_| ());
    set("bytes", &bytes)
        .and_then(|_| set("run_ms", &(t1 - t0).into()))
        .and_then(|_| set("encode_ms", &(js_sys::Date::now() - t1).into()))
        .map_err(|_| JsError::new("could not build the result"))?;
    Ok(out)
}

/// Query flag that makes the next worker run panic (the e2e test of the error path).
pub const DEBUG_WORKER_PANIC: &str = "debug-worker-panic";

// --- the page side -------------------------------------------------------------------------

/// The worker of the run in progress, and its handlers (kept alive as long as it is).
struct Job {
    generation: u64,
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
    static GENERATION: Cell<u64> = const { Cell::new(0) };
    static THEN: RefCell<Vec<Then>> = const { RefCell::new(Vec::new()) };
}

/// What waits for the run in the worker ([`when_loaded`]).
type Then = Box<dyn FnOnce(Result<(), String>)>;

/// True while a run is in the worker or being received from it: a scenario just loaded is not
/// the current run yet.
pub fn pending(state: &AppState) -> bool {
    matches!(
        state.run_status.get_untracked(),
        RunStatus::Running { .. } | RunStatus::Receiving { .. }
    )
}

/// Calls `f` once the scenario just loaded is the current run: now for a run on the page (or
/// none), or, for a run in the worker, right after it has replaced the current run (`Ok`), or
/// when it will not (`Err`: it failed, was cancelled or replaced; the previous run stays).
/// What a loader does after loading (a share link's position, an embed host's reply) goes
/// here, so it applies to the run it asked for and not to the one on screen meanwhile.
pub fn when_loaded(state: &AppState, f: impl FnOnce(Result<(), String>) + 'static) {
    if pending(state) {
        THEN.with(|t| t.borrow_mut().push(Box::new(f)));
    } else {
        f(Ok(()))
    }
}

/// Hands the worker run's outcome to everything waiting for it, in the order it was asked.
fn settle(result: Result<(), String>) {
    let waiting = THEN.with(|t| std::mem::take(&mut *t.borrow_mut()));
    for f in waiting {
        f(result.clone());
    }
}

fn current(generation: u64) -> bool {
    GENERATION.with(Cell::get) == generation
}

/// Ends the job of `generation` (the current one): later messages of its worker are ignored,
/// and the job is dropped after the running handler has returned (a closure must not be
/// dropped while it runs).
fn retire(generation: u64) {
    GENERATION.with(|g| g.set(generation + 1));
    if let Some(w) = JOB.with(|j| j.borrow().as_ref().map(|j| j.worker.clone())) {
        w.terminate();
    }
    set_timeout(
        move || {
            JOB.with(|j| {
                let mut j = j.borrow_mut();
                if j.as_ref().is_some_and(|j| j.generation == generation) {
                    *j = None;
                }
            })
        },
        std::time::Duration::ZERO,
    );
}

/// Stops the run in progress, if any (the worker is terminated; the previous run stays) and
/// clears the status strip.
pub fn cancel(state: &AppState) {
    GENERATION.with(|g| g.set(g.get() + 1));
    let job = JOB.with(|j| j.borrow_mut().take());
    drop(job);
    let was_pending = pending(state);
    state.run_status.set(RunStatus::Idle);
    if was_pending {
        settle(Err("the run was cancelled".to_string()));
    }
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

/// Starts `text` (validated: `scenario`, `total` ops) in a worker; when it finishes
/// the run replaces the current one (cursor at the start) under `id`. Until then, and if it is
/// cancelled or fails, the current run stays and stays usable.
pub fn start(state: AppState, text: &str, id: &str, scenario: ValidScenario, total: u64) {
    cancel(&state);
    let generation = GENERATION.with(Cell::get);
    let name = scenario.name.clone();
    state.run_status.set(RunStatus::Running {
        name: name.clone(),
        done: 0,
        total,
    });
    if let Err(e) = spawn(state, text, id, scenario, generation) {
        let msg = format!("The run could not start in a worker: {e}");
        state.run_status.set(RunStatus::Failed(msg.clone()));
        settle(Err(msg));
    }
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
    state: AppState,
    /// The job's generation: a cancel or a newer run stops the reading.
    generation: u64,
    text: String,
    id: String,
    valid: ValidScenario,
    /// The transferred bytes (a view: nothing copied yet).
    js: js_sys::Uint8Array,
    phase: Phase,
    worker_ms: [f64; 2],
    /// Page time per part and the longest single task, ms.
    copy_ms: f64,
    busy_ms: f64,
    longest_ms: f64,
    slices: u32,
    started: f64,
    /// Records (op records and events) in the run: the decoding's part of the progress.
    records: u64,
}

impl Receive {
    /// Shows `done` of the work: the run's records to decode, then its `ops` to replay.
    fn progress(&self, done: u64, ops: u64) {
        let total = self.records + ops;
        self.state.run_status.update(|s| {
            if let RunStatus::Receiving {
                done: d, total: t, ..
            } = s
            {
                *d = done;
                *t = total;
            }
        });
    }
}

/// One slice of reading a finished run, then the next in a new task; the last slice installs
/// the run (cursor at the start) and records what the hand-over cost
/// (`window.__buddyscope_transfer_*`, docs/app.md, "Long runs and limits").
fn receive(mut r: Box<Receive>) {
    // Cancelled or replaced meanwhile: retire bumped the generation once, anything else bumps
    // it again.
    if !current(r.generation + 1) {
        return;
    }
    let now = crate::browser::now_ms;
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
            r.copy_ms += now() - t0;
            if end < len {
                Ok(Phase::Copy { bytes, copied: end })
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
            let budget = crate::state::run_options().checkpoint_budget;
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
            let (run, times) = *done;
            let session = Session::from_run(&r.text, run);
            let t1 = now();
            r.state.run_status.set(RunStatus::Idle);
            r.state.install(session, &r.id);
            let block = now() - t0;
            r.busy_ms += block;
            r.longest_ms = r.longest_ms.max(block);
            r.slices += 1;
            let expose = crate::browser::expose;
            expose("__buddyscope_worker_run_ms", r.worker_ms[0]);
            expose("__buddyscope_transfer_encode_ms", r.worker_ms[1]);
            expose("__buddyscope_transfer_bytes", f64::from(r.js.length()));
            expose("__buddyscope_transfer_copy_ms", r.copy_ms);
            expose("__buddyscope_transfer_decode_ms", times.decode);
            expose("__buddyscope_transfer_build_ms", times.build);
            expose("__buddyscope_transfer_rebuild_ms", times.rebuild);
            expose("__buddyscope_transfer_timeline_ms", t1 - t0);
            expose("__buddyscope_transfer_page_ms", r.busy_ms);
            expose("__buddyscope_transfer_longest_task_ms", r.longest_ms);
            expose("__buddyscope_transfer_tasks", f64::from(r.slices));
            expose("__buddyscope_transfer_wall_ms", now() - r.started);
            settle(Ok(()));
            return;
        }
    };
    let block = now() - t0;
    r.busy_ms += block;
    r.longest_ms = r.longest_ms.max(block);
    r.slices += 1;
    match next {
        Ok(phase) => {
            r.phase = phase;
            set_timeout(move || receive(r), std::time::Duration::ZERO);
        }
        Err(e) => {
            r.state.run_status.set(RunStatus::Failed(e.clone()));
            settle(Err(e));
        }
    }
}

fn spawn(
    state: AppState,
    text: &str,
    id: &str,
    scenario: ValidScenario,
    generation: u64,
) -> Result<(), String> {
    let glue = glue_url().ok_or("the page's wasm-bindgen script was not found")?;
    let script = web_sys::Url::new_with_base("run-worker.js", &glue)
        .map_err(|e| format!("{e:?}"))?
        .href();
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&script, &opts).map_err(|e| format!("{e:?}"))?;

    let id = id.to_string();
    let text_owned = text.to_string();
    let mut scenario = Some(scenario);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if !current(generation) {
                return;
            }
            let data = ev.data();
            match get(&data, "type").as_string().as_deref() {
                Some("progress") => {
                    let done = get(&data, "done").as_f64().unwrap_or(0.0) as u64;
                    let total = get(&data, "total").as_f64().unwrap_or(0.0) as u64;
                    state.run_status.update(|s| {
                        if let RunStatus::Running {
                            done: d, total: t, ..
                        } = s
                        {
                            *d = done;
                            *t = total;
                        }
                    });
                }
                Some("done") => {
                    retire(generation);
                    let Some(valid) = scenario.take() else { return };
                    let js = js_sys::Uint8Array::new(&get(&data, "bytes"));
                    let worker_ms = [get(&data, "run_ms"), get(&data, "encode_ms")]
                        .map(|v| v.as_f64().unwrap_or(f64::NAN));
                    let name = match state.run_status.get_untracked() {
                        RunStatus::Running { name, .. } => name,
                        _ => String::new(),
                    };
                    state.run_status.set(RunStatus::Receiving {
                        name,
                        bytes: u64::from(js.length()),
                        done: 0,
                        total: 0,
                    });
                    let r = Box::new(Receive {
                        state,
                        generation,
                        text: text_owned.clone(),
                        id: id.clone(),
                        valid,
                        phase: Phase::Copy {
                            bytes: vec![0; js.length() as usize],
                            copied: 0,
                        },
                        js,
                        worker_ms,
                        copy_ms: 0.0,
                        busy_ms: 0.0,
                        longest_ms: 0.0,
                        slices: 0,
                        started: crate::browser::now_ms(),
                        records: 0,
                    });
                    // Say so before the page starts reading: let the message paint first.
                    set_timeout(move || receive(r), std::time::Duration::from_millis(40));
                }
                _ => {
                    retire(generation);
                    let msg = get(&data, "message")
                        .as_string()
                        .unwrap_or_else(|| "unknown error".to_string());
                    let msg = format!("The run failed: {msg}. The current run stays.");
                    state.run_status.set(RunStatus::Failed(msg.clone()));
                    settle(Err(msg));
                }
            }
        });
    let on_error =
        Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
            ev.prevent_default();
            if !current(generation) {
                return;
            }
            retire(generation);
            let msg = format!("The run worker failed: {}", ev.message());
            state.run_status.set(RunStatus::Failed(msg.clone()));
            settle(Err(msg));
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

    let msg = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&msg, &k.into(), v).map(|_| ());
    let debug_panic = crate::browser::query_param(DEBUG_WORKER_PANIC).is_some();
    set("glue", &glue.into())
        .and_then(|_| set("module", &wasm_bindgen::module()))
        .and_then(|_| set("text", &text.into()))
        .and_then(|_| set("debug_panic", &debug_panic.into()))
        .map_err(|e| format!("{e:?}"))?;
    worker.post_message(&msg).map_err(|e| format!("{e:?}"))?;
    JOB.with(|j| {
        *j.borrow_mut() = Some(Job {
            generation,
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use buddyscope::parse_valid;

    /// Nested repeats: `depth` levels of `times` around one alloc/free pair.
    fn nested(times: u64, depth: usize) -> String {
        let mut ops = r#"{"op": "alloc", "order": 0, "mt": "movable", "as": "x"}, {"op": "free", "ref": "x"}"#.to_string();
        for _ in 0..depth {
            ops = format!(r#"{{"op": "repeat", "times": {times}, "ops": [{ops}]}}"#);
        }
        format!(r#"{{"version": 1, "name": "nested", "ops": [{ops}]}}"#)
    }

    /// Every built-in runs on the page as before: no worker, no refusal.
    #[test]
    fn every_builtin_runs_now() {
        for b in buddyscope::builtin::ALL {
            let plan = plan(&parse_valid(b.json).unwrap());
            assert!(matches!(plan, Plan::Now), "{}: {plan:?}", b.id);
        }
    }

    /// 10^18 ops are refused with the count and the limit in the message.
    #[test]
    fn a_quintillion_ops_are_refused_with_the_count() {
        let text = nested(1_000_000, 3);
        let Plan::Refuse(e) = plan(&parse_valid(&text).unwrap()) else {
            panic!("not refused")
        };
        let msg = e.to_string();
        assert!(msg.contains("2000000000000000000 operations"), "{msg}");
        assert!(msg.contains(&limits().max_ops.to_string()), "{msg}");
    }

    /// Between the two: the worker, with the op count as the progress total.
    #[test]
    fn a_long_legal_run_goes_to_the_worker() {
        let text = nested(100_000, 1);
        match plan(&parse_valid(&text).unwrap()) {
            Plan::Worker { total } => assert_eq!(total, 200_000),
            p => panic!("{p:?}"),
        }
        let small = nested(10, 1);
        assert!(matches!(plan(&parse_valid(&small).unwrap()), Plan::Now));
    }

    /// A few ops over a huge range go to the worker too.
    #[test]
    fn many_pages_go_to_the_worker() {
        let cost = Cost {
            ops: 3,
            pages_touched: WORKER_MIN_PAGES + 1,
        };
        assert!(matches!(
            plan_cost(&cost, &limits()),
            Plan::Worker { total: 3 }
        ));
    }
}
