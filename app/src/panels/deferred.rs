//! The default scenario's run and the panels below the fold come after the first paint, and
//! the panels' code arrives then.
//!
//! The first frame shows the default scenario's zone after `init` (event 0 of its run, made
//! without the runner): the run itself (`Session::run`, the largest piece of the start) follows
//! in the task after the frame that shows the map, once the runner's wasm module is in
//! ([`crate::late`]; [`crate::model::Command::FinishFirstRun`]; anything that reads or moves
//! the run before then runs it first). The root carries `data-run="initial"` until the run is in
//! (or another run replaced it) and `"done"` after.
//!
//! Why: building every panel's DOM before the first frame was a third of the work between
//! `main()` and the memory map on screen (BENCHMARKS.md "First paint"), and none of the panels
//! below the fold (at 1366 × 900: per-CPU lists, page history, counters, charts, replay,
//! scenario editor, export, the exercise picker, saved work) is visible then. They mount in the
//! task after the frame that shows the map and the task of the run, so the first paint pays
//! only for what is on screen, and they are built once, with the run.
//!
//! Their code is not in the first download either: the functions that build them are split
//! points (`#[wasm_split(deferred)]`), which the post-build splitter (scripts/wasm-split.sh)
//! moves with everything only they use into a second wasm module, fetched when first called.
//!
//! The app root carries `data-panels="first"` until then and `"all"` once they are mounted
//! (the e2e helper `openApp` waits for it: the run is in by then too).
use std::future::Future;
use std::time::Duration;

use leptos::prelude::*;
use leptos::wasm_split::wasm_split;

use crate::model::Command;
use crate::panels::charts::ChartsPanel;
use crate::panels::counters::CountersPanel;
use crate::panels::exercises::ExercisePanel;
use crate::panels::export::ExportPanel;
use crate::panels::fallback::FallbackMatrixPanel;
use crate::panels::history::PageHistoryPanel;
use crate::panels::overtime::OverTimePanel;
use crate::panels::pcp::PcpPanel;
use crate::panels::pollution::PollutionPanel;
use crate::panels::procimport::ProcImportPanel;
use crate::panels::replay::{
    DivergencesPanel, PredictionPanel, ReplaySummaryPanel, TraceOpenPanel,
};
use crate::panels::saved::SavedPanel;
use crate::panels::scenario::ScenarioPanel;
use crate::panels::sidebyside::CompareView;
use crate::panels::whereis::WhereIsPanel;
use crate::shell::Shell;

/// The panels below the fold: when they may mount, and how many split-off views are still on
/// their way (a view counts from the moment it is asked for until the task after it mounted).
#[derive(Clone, Copy)]
pub struct Deferred {
    ready: ReadSignal<bool>,
    // Trails `ready` by a task: by then the views that `ready` mounts have been asked for.
    settled: ReadSignal<bool>,
    loading: RwSignal<u32>,
}

impl Deferred {
    /// Runs the first run one frame after the first frame after mounting (the one that shows
    /// the map) has been painted, and turns `ready` true in the task after that: the second
    /// animation callback queues a task, which runs after that frame's paint. Waiting the extra
    /// frame lets whatever the first painted frame queued (input, the first-paint probe of
    /// `e2e/bench/firstpaint.ts`) run first; the panels' own task lets the frame with the run
    /// paint before they are built.
    pub fn after_first_paint(shell: Shell) -> Self {
        let (ready, set_ready) = signal(false);
        let (settled, set_settled) = signal(false);
        request_animation_frame(move || {
            request_animation_frame(move || {
                set_timeout(
                    move || {
                        // The runner's module is asked for only now, so that fetching and
                        // compiling it takes nothing from the first frame; the run waits for it.
                        leptos::task::spawn_local(async move {
                            shell.runner_ready().await;
                            shell.dispatch(Command::FinishFirstRun);
                            set_timeout(
                                move || {
                                    set_ready.try_set(true);
                                    set_timeout(
                                        move || {
                                            set_settled.try_set(true);
                                        },
                                        Duration::ZERO,
                                    );
                                },
                                Duration::ZERO,
                            )
                        })
                    },
                    Duration::ZERO,
                )
            })
        });
        Self {
            ready,
            settled,
            loading: RwSignal::new(0),
        }
    }

    /// True once the panels below the fold may mount.
    pub fn ready(self) -> bool {
        self.ready.get()
    }

    /// The root's `data-panels` value: `"all"` once they are mounted, with their code.
    pub fn marker(self) -> &'static str {
        marker(self.settled.get() && self.loading.get() == 0)
    }

    /// Mounts the view a split-off function builds once its wasm module has arrived (nothing
    /// until then).
    pub fn mount(self, view: impl Future<Output = AnyView> + Send + 'static) -> impl IntoView {
        self.loading.update(|n| *n += 1);
        // Counted down when the view has mounted, or when it is dropped unmounted.
        let pending = Pending(self.loading);
        Suspend::new(async move {
            let view = view.await;
            set_timeout(move || drop(pending), Duration::ZERO);
            view
        })
    }
}

struct Pending(RwSignal<u32>);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.try_update(|n| *n = n.saturating_sub(1));
    }
}

/// The panels at the bottom of the grid: counters, charts, a series over time, the fallback matrix, mixed pageblocks, /proc import, trace replay, export,
/// the exercise picker and saved work.
#[wasm_split(deferred, wasm_split_path = ::leptos::wasm_split)]
pub fn bottom_panels(shell: Shell) -> AnyView {
    let open = Memo::new(move |_| shell.ui.exercise.with(|x| x.open));
    view! {
        <CountersPanel/>
        <ChartsPanel/>
        <OverTimePanel/>
        <FallbackMatrixPanel/>
        <PollutionPanel/>
        <div class="col-replay">
            <ProcImportPanel/>
            <TraceOpenPanel/>
            <DivergencesPanel/>
            <PredictionPanel/>
            <ReplaySummaryPanel/>
        </div>
        <ExportPanel/>
        <Show when=move || !open.get()>
            <ExercisePanel/>
        </Show>
        <SavedPanel/>
    }
    .into_any()
}

/// The scenario picker and editor (at the top of the grid, below the fold).
#[wasm_split(deferred, wasm_split_path = ::leptos::wasm_split)]
pub fn scenario_panel() -> AnyView {
    view! { <ScenarioPanel/> }.into_any()
}

/// The per-CPU lists and the page history under the map: below the fold at 1366 × 900 (the
/// map panel ends near the bottom of the first screen), ~80 elements the first layout need not
/// lay out.
#[wasm_split(deferred, wasm_split_path = ::leptos::wasm_split)]
pub fn below_map_panels() -> AnyView {
    view! {
        <PcpPanel/>
        <PageHistoryPanel/>
        <WhereIsPanel/>
    }
    .into_any()
}

/// An open exercise set's question, beside the map (in the same module as the set picker).
#[wasm_split(deferred, wasm_split_path = ::leptos::wasm_split)]
pub fn exercise_panel() -> AnyView {
    view! { <ExercisePanel/> }.into_any()
}

/// Compare mode's two sides and the scenario panel under them: the wasm module `compare`,
/// fetched when compare mode is first opened.
#[wasm_split(compare, wasm_split_path = ::leptos::wasm_split)]
pub fn compare_view() -> AnyView {
    view! {
        <CompareView/>
        // Not a second <main> (compare mode's is the two sides): a labelled region.
        <section class="layout compare-below" aria-label="Scenario">
            <ScenarioPanel/>
        </section>
    }
    .into_any()
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
fn marker(mounted: bool) -> &'static str {
    if mounted {
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
