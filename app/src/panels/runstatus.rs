//! The run status strip (a long run's progress bar and Cancel, a refused scenario, a failed
//! run), fixed at the bottom of the window so it is seen from every panel, and the memory line
//! of the current run. See `crate::runjob`.

use leptos::prelude::*;

use crate::runjob::model::{format_bytes, memory_text, percent, progress_text};
use crate::runjob::{self, RunStatus};
use crate::state::AppState;

#[component]
pub fn RunStatusBar() -> impl IntoView {
    let state = AppState::get();
    let status = state.run_status;
    move || {
        match status.get() {
        RunStatus::Idle => ().into_any(),
        RunStatus::Running { name, done, total } => {
            let text = progress_text(done, total);
            let width = format!("width: {}%", percent(done, total));
            view! {
                <div class="run-status" data-testid="run-status" aria-live="polite">
                    <span class="run-status-label">"Running "{name}" in the background: "</span>
                    <div
                        class="run-progress"
                        role="progressbar"
                        data-testid="run-progress"
                        aria-label="Run progress (ops)"
                        aria-valuemin="0"
                        aria-valuemax=total.to_string()
                        aria-valuenow=done.min(total).to_string()
                        aria-valuetext=text.clone()
                    >
                        <div class="run-progress-fill" style=width></div>
                    </div>
                    <span class="run-progress-text" data-testid="run-progress-text">{text}</span>
                    <button
                        type="button"
                        data-testid="run-cancel"
                        title="Stop this run; the current run stays"
                        on:click=move |_| runjob::cancel(&state)
                    >
                        "Cancel"
                    </button>
                </div>
            }
            .into_any()
        }
        RunStatus::Receiving { name, bytes, done, total } => view! {
            <div class="run-status" role="status" data-testid="run-receiving">
                {format!("Loading the finished run of {name} ({} of events and op records)…", format_bytes(bytes))}
                {(total > 0).then(|| format!(" {}%", percent(done, total)))}
                <button
                    type="button"
                    data-testid="run-cancel"
                    title="Stop loading this run; the current run stays"
                    on:click=move |_| runjob::cancel(&state)
                >
                    "Cancel"
                </button>
            </div>
        }
        .into_any(),
        RunStatus::Refused(msg) => view! {
            <div class="run-status run-status-error" role="alert">
                <span data-testid="run-refused">{format!("Not run: {msg}. The current run stays.")}</span>
                <button
                    type="button"
                    data-testid="run-status-dismiss"
                    title="Hide this message"
                    on:click=move |_| status.set(RunStatus::Idle)
                >
                    "Dismiss"
                </button>
            </div>
        }
        .into_any(),
        RunStatus::Failed(msg) => view! {
            <div class="run-status run-status-error" role="alert">
                <span data-testid="run-error">{msg}</span>
                <button
                    type="button"
                    data-testid="run-status-dismiss"
                    title="Hide this message"
                    on:click=move |_| status.set(RunStatus::Idle)
                >
                    "Dismiss"
                </button>
            </div>
        }
        .into_any(),
    }
    }
}

/// The current run's memory line (`run-memory`), from the engine's accounting.
#[component]
pub fn RunMemoryLine() -> impl IntoView {
    let state = AppState::get();
    let trace_limit = runjob::limits().max_events * buddyscope::run::EVENT_BYTES as u64;
    let budget = crate::state::CHECKPOINT_BUDGET as u64;
    view! {
        <p class="muted small run-memory" data-testid="run-memory" title="What this run holds in memory: the event trace the timeline steps through, and the zone copies (checkpoints) long jumps restore">
            "Memory: "
            {move || state.with(|s| memory_text(s.memory, trace_limit, budget)).unwrap_or_default()}
        </p>
    }
}
