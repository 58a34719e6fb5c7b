//! The default scenario's run and the panels below the fold come after the first paint.
//!
//! The first frame shows the default scenario's zone after `init` (event 0 of its run): the
//! run itself (`Session::run`, the largest piece of the start) follows in the task after the
//! frame that shows the map ([`AppState::finish_first_run`]; anything that reads or moves the
//! run before then runs it first). The root carries `data-run="initial"` until the run is in
//! (or another run replaced it) and `"done"` after.
//!
//! Why: building every panel's DOM before the first frame was a third of the work between
//! `main()` and the memory map on screen (BENCHMARKS.md "First paint"), and none of the panels
//! below the fold (at 1366 × 900: page history, counters, charts, replay, scenario editor,
//! export, the exercise picker, saved work) is visible then. They mount in the task after the
//! frame that shows the map and the task of the run, so the first paint pays only for what is
//! on screen, and they are built once, with the run.
//!
//! The app root carries `data-panels="first"` until then and `"all"` once they are mounted
//! (the e2e helper `openApp` waits for it: the run is in by then too).

use std::time::Duration;

use leptos::prelude::*;

use crate::state::AppState;

/// Runs the first run one frame after the first frame after mounting (the one that shows the
/// map) has been painted, and returns a signal that turns true in the task after that: the
/// second animation callback queues a task, which runs after that frame's paint. Waiting the
/// extra frame lets whatever the first painted frame queued (input, the first-paint probe of
/// `e2e/bench/firstpaint.ts`) run first; the panels' own task lets the frame with the run
/// paint before they are built.
pub fn after_first_paint(state: AppState) -> ReadSignal<bool> {
    let (ready, set_ready) = signal(false);
    request_animation_frame(move || {
        request_animation_frame(move || {
            set_timeout(
                move || {
                    state.finish_first_run();
                    set_timeout(
                        move || {
                            set_ready.try_set(true);
                        },
                        Duration::ZERO,
                    )
                },
                Duration::ZERO,
            )
        })
    });
    ready
}

/// The root's `data-run` value: `"initial"` while the first frame's zone waits for its run,
/// `"done"` after.
pub fn run_marker(done: bool) -> &'static str {
    if done {
        "done"
    } else {
        "initial"
    }
}

/// The root's `data-panels` value: `"first"` before the deferred panels mount, `"all"` after.
pub fn marker(ready: bool) -> &'static str {
    if ready {
        "all"
    } else {
        "first"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_names_the_mounted_set() {
        assert_eq!(marker(false), "first");
        assert_eq!(marker(true), "all");
        assert_eq!(run_marker(false), "initial");
        assert_eq!(run_marker(true), "done");
    }
}
