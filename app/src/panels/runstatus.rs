//! The run status strip (a long run's progress bar and Cancel, a refused scenario, a failed
//! run), fixed at the bottom of the window so it is seen from every panel, and the memory line
//! of the current run. See `crate::runjob`. What they say are pure functions of numbers, tested
//! natively.

use leptos::prelude::*;

use crate::model::session::{limits, RunMemory, CHECKPOINT_BUDGET};
use crate::model::{Command, RunStatus};
use crate::shell::{Shell, View};

/// A byte count for people: `512 B`, `4.0 KiB`, `12.3 MiB`, `1.50 GiB`.
pub fn format_bytes(n: u64) -> String {
    const K: f64 = 1024.0;
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < K * K {
        format!("{:.1} KiB", f / K)
    } else if f < K * K * K {
        format!("{:.1} MiB", f / (K * K))
    } else {
        format!("{:.2} GiB", f / (K * K * K))
    }
}

/// An integer with thousands separators: `1,234,567`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whole percent of `done` in `total`, 0..=100 (100 for an empty run).
pub fn percent(done: u64, total: u64) -> u32 {
    if total == 0 {
        return 100;
    }
    ((done.min(total) as u128 * 100) / total as u128) as u32
}

/// The progress bar's text and `aria-valuetext`: `12,345 of 1,000,000 ops (1%)`.
pub fn progress_text(done: u64, total: u64) -> String {
    format!(
        "{} of {} ops ({}%)",
        group(done.min(total)),
        group(total),
        percent(done, total)
    )
}

/// A replay's progress: `12.0 MiB of 160.0 MiB (7%) · 123,456 lines · 65,536 events`, and in
/// the second pass (the model choosing its own pages) `second pass: 12.0 MiB of …`.
pub fn replay_progress_text(pass: u8, bytes: u64, total: u64, lines: u64, events: u64) -> String {
    let read = format!(
        "{} of {} ({}%)",
        format_bytes(bytes.min(total)),
        format_bytes(total),
        percent(bytes, total)
    );
    if pass >= 2 {
        format!("second pass, the model choosing its own pages: {read}")
    } else {
        format!("{read} · {} lines · {} events", group(lines), group(events))
    }
}

/// The memory line of a run with its limits, e.g. `trace 4.0 MiB (limit 384.0 MiB) ·
/// checkpoints and op records 21.0 MiB (checkpoints limit 96.0 MiB) · total 25.0 MiB`.
pub fn memory_text(m: RunMemory, trace_limit: u64, checkpoint_budget: u64) -> String {
    format!(
        "trace {} (limit {}) · checkpoints and op records {} (checkpoints limit {}) · total {}",
        format_bytes(m.trace),
        format_bytes(trace_limit),
        format_bytes(m.total.saturating_sub(m.trace)),
        format_bytes(checkpoint_budget),
        format_bytes(m.total)
    )
}

/// A job in the worker: its label, a progress bar at `now` of `max` and Cancel.
fn progress_strip(
    shell: Shell,
    label: String,
    aria_label: &'static str,
    (now, max): (u64, u64),
    text: String,
    cancel_title: &'static str,
) -> AnyView {
    let width = format!("width: {}%", percent(now, max));
    view! {
        <div class="run-status" data-testid="run-status" aria-live="polite">
            <span class="run-status-label">{label}</span>
            <div
                class="run-progress"
                role="progressbar"
                data-testid="run-progress"
                aria-label=aria_label
                aria-valuemin="0"
                aria-valuemax=max.to_string()
                aria-valuenow=now.to_string()
                aria-valuetext=text.clone()
            >
                <div class="run-progress-fill" style=width></div>
            </div>
            <span class="run-progress-text" data-testid="run-progress-text">{text}</span>
            <button
                type="button"
                data-testid="run-cancel"
                title=cancel_title
                on:click=move |_| shell.dispatch(Command::Cancel)
            >
                "Cancel"
            </button>
        </div>
    }
    .into_any()
}

#[component]
pub fn RunStatusBar() -> impl IntoView {
    let shell = Shell::get();
    let status = shell.ui.run_status;
    move || {
        match status.get() {
        RunStatus::Idle => ().into_any(),
        RunStatus::Running { name, done, total } => progress_strip(
            shell,
            format!("Running {name} in the background: "),
            "Run progress (ops)",
            (done.min(total), total),
            progress_text(done, total),
            "Stop this run; the current run stays",
        ),
        RunStatus::Replaying { name, pass, bytes, total, lines, events } => {
            // Two passes over the file: the bar covers both.
            let (done, all) = (u64::from(pass.saturating_sub(1)) * total + bytes.min(total), 2 * total);
            progress_strip(
                shell,
                format!("Replaying {name} in the background: "),
                "Replay progress (bytes of the trace file read, two passes)",
                (done, all),
                replay_progress_text(pass, bytes, total, lines, events),
                "Stop this replay; the current run stays",
            )
        }
        RunStatus::Receiving { name, bytes, done, total } => view! {
            <div class="run-status" role="status" data-testid="run-receiving">
                {format!("Loading the finished run of {name} ({} of events and op records)…", format_bytes(bytes))}
                {(total > 0).then(|| format!(" {}%", percent(done, total)))}
                <button
                    type="button"
                    data-testid="run-cancel"
                    title="Stop loading this run; the current run stays"
                    on:click=move |_| shell.dispatch(Command::Cancel)
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
                    on:click=move |_| shell.dispatch(Command::DismissStatus)
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
                    on:click=move |_| shell.dispatch(Command::DismissStatus)
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
    let view = View::here();
    let trace_limit = limits().max_events * buddyscope::run::EVENT_BYTES as u64;
    let budget = CHECKPOINT_BUDGET as u64;
    // The last worker run's hand-over (its bytes, and the tasks the page read them in), for
    // tools and tests: the page never reads a long run in one blocking task.
    let handover = view.shell.ui.handover;
    view! {
        <p
            class="muted small run-memory"
            data-testid="run-memory"
            data-transfer-bytes=move || handover.get().map(|h| h.bytes.to_string())
            data-transfer-tasks=move || handover.get().map(|h| h.tasks.to_string())
            title="What this run holds in memory: the event trace the timeline steps through, and the node copies (checkpoints) long jumps restore"
        >
            "Memory: "
            {move || view.with_run(|s| memory_text(s.memory, trace_limit, budget)).unwrap_or_default()}
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_like_people_write_them() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(4096), "4.0 KiB");
        assert_eq!(format_bytes(12_897_485), "12.3 MiB");
        assert_eq!(format_bytes(3 << 29), "1.50 GiB");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn progress_says_ops_done_of_total() {
        assert_eq!(progress_text(0, 1_000_000), "0 of 1,000,000 ops (0%)");
        assert_eq!(
            progress_text(12_345, 1_000_000),
            "12,345 of 1,000,000 ops (1%)"
        );
        assert_eq!(
            progress_text(1_000_000, 1_000_000),
            "1,000,000 of 1,000,000 ops (100%)"
        );
        // Never more than the total, never a division by zero, no overflow near u64::MAX.
        assert_eq!(progress_text(7, 5), "5 of 5 ops (100%)");
        assert_eq!(percent(0, 0), 100);
        assert_eq!(percent(u64::MAX / 2, u64::MAX), 49);
    }

    #[test]
    fn memory_line_names_both_parts_and_the_limits() {
        let m = RunMemory {
            trace: 4 << 20,
            total: 25 << 20,
        };
        assert_eq!(
            memory_text(m, 384 << 20, 96 << 20),
            "trace 4.0 MiB (limit 384.0 MiB) · checkpoints and op records 21.0 MiB \
             (checkpoints limit 96.0 MiB) · total 25.0 MiB"
        );
    }
}
