//! Compare mode's views: the toggle, the two sides (the single view's panels, each reading its
//! side's run through [`SideRun`] context), the shared position, and the counter table with
//! B/A beside the kernel's measurement from the seed thread. The logic is in [`crate::compare`].

use buddyscope::{scenario::ratio, ComparePair, Kernel, Side};
use leptos::context::Provider;
use leptos::prelude::*;

use super::counters::CountersPanel;
use super::freelists::FreeListsPanel;
use super::memmap::MemoryMapPanel;
use super::narration::NarrationBar;
use super::pcp::PcpPanel;
use super::zonetabs::ZoneTabs;
use crate::compare::{position_text, progress, ratio_text, rows};
use crate::state::{AppState, SideRun};

/// `compare-toggle`: compare mode on (the scenario's own pair) and off.
#[component]
pub fn CompareToggle() -> impl IntoView {
    let state = AppState::get();
    let on = Memo::new(move |_| state.compare.with(Option::is_some));
    view! {
        <button
            type="button"
            class="compare-toggle"
            data-testid="compare-toggle"
            aria-pressed=move || on.get().to_string()
            title="Run the scenario under two configurations side by side (before / after)"
            on:click=move |_| {
                if on.get_untracked() {
                    state.switch_compare(None);
                } else {
                    state.switch_compare(state.default_pair());
                }
            }
        >
            {move || if on.get() { "Compare: on" } else { "Compare: off" }}
        </button>
        {move || {
            state
                .compare_error
                .get()
                .map(|e| view! { <span class="compare-error" role="alert" data-testid="compare-error">{e}</span> })
        }}
    }
}

/// Changes one side of the pair in effect and re-runs both, keeping the op position.
fn change_side(state: AppState, side: Side, f: impl FnOnce(&mut buddyscope::CompareSide)) {
    let Some(mut pair) = state.compare.get_untracked() else {
        return;
    };
    let Some(base) = state.with_untracked(|s| s.scenario.clone()) else {
        return;
    };
    let ops = state.with_pair(|a, _| a.timeline.ops_done()).unwrap_or(0);
    let s = pair.side_mut(side);
    f(s);
    s.label = s.auto_label(&base);
    state.set_compare(Some(pair));
    for _ in 0..ops {
        state.op_forward();
    }
}

/// The head of one side: its label, its kernel and knob, how far it is into the op.
#[component]
fn SideHead(side: Side) -> impl IntoView {
    let state = AppState::get();
    let viewed = AppState::viewed();
    let key = side.as_str();
    let pair = move || state.compare.get();
    let base = move || state.with(|s| (s.scenario.kernel, s.scenario.zone.rmqueue_mode_memory));
    let label = move || {
        pair()
            .map(|p| p.side(side).label.clone())
            .unwrap_or_default()
    };
    let kernel = move || {
        let k = pair().and_then(|p| p.side(side).kernel);
        k.or_else(|| base().map(|b| b.0))
            .map(Kernel::as_str)
            .unwrap_or_default()
    };
    let mm = move || {
        pair()
            .and_then(|p| p.side(side).rmqueue_mode_memory)
            .or_else(|| base().map(|b| b.1))
            .unwrap_or(true)
    };
    let prog = move || {
        viewed
            .with(|s| progress(&s.timeline).text())
            .unwrap_or_default()
    };
    view! {
        <div class="side-head">
            <span class="side-letter">{key.to_uppercase()}</span>
            <strong class="side-label" data-testid="side-label">{label}</strong>
            <label class="side-knob">
                "kernel "
                <select
                    data-testid=format!("compare-kernel-{key}")
                    aria-label=format!("Side {} kernel profile", key.to_uppercase())
                    prop:value=kernel
                    on:change=move |ev| {
                        if let Some(k) = Kernel::parse(&event_target_value(&ev)) {
                            change_side(state, side, |s| s.kernel = Some(k));
                        }
                    }
                >
                    {Kernel::ALL
                        .iter()
                        .map(|k| view! { <option value=k.as_str()>{k.as_str()}</option> })
                        .collect_view()}
                </select>
            </label>
            <label class="side-knob" title="zone.rmqueue_mode_memory: remember the rmqueue_mode that worked (the fallback patch)">
                <input
                    type="checkbox"
                    data-testid=format!("compare-mm-{key}")
                    prop:checked=mm
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        change_side(state, side, |s| s.rmqueue_mode_memory = Some(on));
                    }
                />
                " rmqueue_mode memory"
            </label>
            <span class="side-progress" data-testid="side-progress">{prog}</span>
        </div>
    }
}

/// One side: the single view's panels over that side's run.
#[component]
fn SideView(side: Side) -> impl IntoView {
    view! {
        <Provider value=SideRun(side)>
            <section
                class="compare-side"
                data-testid=format!("side-{}", side.as_str())
                aria-label=format!("Side {}", side.as_str().to_uppercase())
            >
                <SideHead side=side/>
                <NarrationBar/>
                <ZoneTabs/>
                <MemoryMapPanel/>
                <FreeListsPanel/>
                <PcpPanel/>
                <CountersPanel/>
            </section>
        </Provider>
    }
}

/// The counters of both sides with B/A, and the kernel's measurement from the thread.
#[component]
fn CompareTable() -> impl IntoView {
    let state = AppState::get();
    let model = Memo::new(move |_| {
        state
            .with_pair(|a, b| rows(&a.timeline, &b.timeline))
            .unwrap_or_default()
    });
    let labels = move || {
        state
            .compare
            .get()
            .map(|p: ComparePair| (p.a.label, p.b.label))
            .unwrap_or_default()
    };
    let measured = move || {
        state
            .with(|s| s.scenario.compare.as_ref().and_then(|c| c.measured.clone()))
            .flatten()
    };
    view! {
        <section class="panel compare-table-panel" data-testid="compare-table" aria-label="What the model counts">
            <div class="panel-head">
                <h2>"What the model counts"</h2>
                <span class="panel-sub">"cumulative at the cursor; B/A"</span>
            </div>
            <div class="compare-tables">
                <table class="compare-counters">
                    <thead>
                        <tr>
                            <th scope="col">"counter"</th>
                            <th scope="col" title=move || labels().0>"A"</th>
                            <th scope="col" title=move || labels().1>"B"</th>
                            <th scope="col">"B/A"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            model
                                .get()
                                .into_iter()
                                .map(|r| {
                                    view! {
                                        <tr class:differs=r.a != r.b>
                                            <th scope="row" title=r.help>{r.label}</th>
                                            <td data-testid=format!("compare-a-{}", r.name)>{r.a}</td>
                                            <td data-testid=format!("compare-b-{}", r.name)>{r.b}</td>
                                            <td data-testid=format!("compare-ratio-{}", r.name)>{ratio_text(r.ratio)}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
                // Presenter mode shows only the rows that differ: with none, say so rather than
                // leave an empty table on the screen.
                <Show when=move || model.with(|rows| rows.iter().all(|r| r.a == r.b))>
                    <p class="compare-alike" data-testid="compare-alike">
                        "A and B count alike up to here."
                    </p>
                </Show>
                {move || {
                    measured()
                        .map(|m| {
                            view! {
                                <div class="compare-measured" data-testid="compare-measured">
                                    <h3>"The kernel's measurement from the thread"</h3>
                                    <p class="measured-note">
                                        "Timed on real hardware, not by this model: the counters explain the difference, the model does not predict time."
                                    </p>
                                    <table>
                                        <thead>
                                            <tr>
                                                <th scope="col">"measured"</th>
                                                <th scope="col">"A (before)"</th>
                                                <th scope="col">"B (after)"</th>
                                                <th scope="col">"B/A"</th>
                                            </tr>
                                        </thead>
                                        <tbody>
                                            {m
                                                .rows
                                                .into_iter()
                                                .map(|r| {
                                                    view! {
                                                        <tr>
                                                            <th scope="row">{r.label}</th>
                                                            <td>{format!("{} {}", r.a, r.unit)}</td>
                                                            <td>{format!("{} {}", r.b, r.unit)}</td>
                                                            <td>{ratio_text(ratio(r.a, r.b))}</td>
                                                        </tr>
                                                    }
                                                })
                                                .collect_view()}
                                        </tbody>
                                    </table>
                                    <p class="measured-source">{format!("Source: {}", m.source)}</p>
                                </div>
                            }
                        })
                }}
            </div>
        </section>
    }
}

/// Compare mode's body: the shared position, the two sides, the table.
#[component]
pub fn CompareView() -> impl IntoView {
    let state = AppState::get();
    let pos = move || {
        state
            .with_pair(|a, b| position_text(&a.timeline, &b.timeline))
            .unwrap_or_default()
    };
    view! {
        <div class="compare-view" data-testid="compare-view">
            <div class="timebar compare-timebar" role="region" aria-label="Position">
                <div class="position" data-testid="compare-position">{pos}</div>
                <span class="compare-rule">
                    "Op steps move both sides to the same op end; event steps advance each side inside the op, and the side that finishes first waits at its end."
                </span>
            </div>
            <div class="compare-body">
                <main class="compare-sides" id=super::skip::MAIN_ID tabindex="-1">
                    <SideView side=Side::A/>
                    <SideView side=Side::B/>
                </main>
                <CompareTable/>
            </div>
        </div>
    }
}
