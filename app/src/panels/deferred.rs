//! The panels below the fold mount one frame after the first paint.
//!
//! Why: building every panel's DOM before the first frame was a third of the work between
//! `main()` and the memory map on screen (BENCHMARKS.md "First paint"), and none of the panels
//! below the fold (at 1366 × 900: page history, counters, charts, replay, scenario editor,
//! export, the exercise picker, saved work) is visible then. They mount in the task after the
//! frame that shows the map, so the first paint pays only for what is on screen.
//!
//! The app root carries `data-panels="first"` until then and `"all"` once they are mounted
//! (the e2e helper `openApp` waits for it).

use std::time::Duration;

use leptos::prelude::*;

/// A signal that turns true one frame after the first frame after mounting (the one that
/// shows the map) has been painted: the second animation callback queues a task, which runs
/// after that frame's paint. Waiting the extra frame lets whatever the first painted frame
/// queued (input, the first-paint probe of `e2e/bench/firstpaint.ts`) run before the mount.
pub fn after_first_paint() -> ReadSignal<bool> {
    let (ready, set_ready) = signal(false);
    request_animation_frame(move || {
        request_animation_frame(move || {
            set_timeout(
                move || {
                    set_ready.try_set(true);
                },
                Duration::ZERO,
            )
        })
    });
    ready
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
    }
}
