//! Compare mode's views: the toggle, the two sides side by side (the single view's panels,
//! each reading its side's run through [`SideSlot`] context), the shared position, and the
//! counter table with B/A beside the kernel's measurement from the seed thread. The stepping
//! rule is the model's ([`crate::model::lockstep`]).

use buddyscope::mm::Kernel;
use buddyscope::run::Timeline;
use buddyscope::scenario::{ratio, ComparePair, Side};
use leptos::context::Provider;
use leptos::prelude::*;

use super::counters::{self, CountersPanel};
use super::freelists::FreeListsPanel;
use super::memmap::MemoryMapPanel;
use super::narration::NarrationBar;
use super::pcp::PcpPanel;
use super::zonetabs::ZoneTabs;
use crate::model::lockstep::{position_text, progress};
use crate::model::{Command, SideChange, Slot};
use crate::shell::{Shell, SideSlot, View};

/// One counter with both sides' values.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    pub name: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub a: i64,
    pub b: i64,
    pub ratio: Option<f64>,
}

/// The counter table: the single view's counters of both sides, and B/A.
pub fn rows(a: &Timeline, b: &Timeline) -> Vec<CompareRow> {
    let (ma, mb) = (counters::view_model(a), counters::view_model(b));
    ma.rows
        .iter()
        .zip(mb.rows.iter())
        .map(|(x, y)| CompareRow {
            name: x.name,
            label: x.label,
            help: x.help,
            a: x.value,
            b: y.value,
            ratio: ratio(x.value as f64, y.value as f64),
        })
        .collect()
}

/// B/A as printed: three significant digits, `—` without a ratio.
pub fn ratio_text(r: Option<f64>) -> String {
    match r {
        None => "\u{2014}".to_string(),
        Some(0.0) => "0".to_string(),
        Some(r) if r >= 100.0 => format!("{r:.0}"),
        Some(r) if r >= 10.0 => format!("{r:.1}"),
        Some(r) if r >= 1.0 => format!("{r:.2}"),
        // Below 1 the digits start after the zeros: 0.250, 0.0312, 0.000495 (9 / 18174).
        Some(r) => {
            let decimals = (2.0 - r.log10().floor()).clamp(3.0, 12.0) as usize;
            format!("{r:.decimals$}")
        }
    }
}

/// `compare-toggle`: compare mode on (the scenario's own pair) and off.
#[component]
pub fn CompareToggle() -> impl IntoView {
    let shell = Shell::get();
    let on = Memo::new(move |_| shell.ui.compare.with(Option::is_some));
    view! {
        <button
            type="button"
            class="compare-toggle"
            data-testid="compare-toggle"
            aria-pressed=move || on.get().to_string()
            title="Run the scenario under two configurations side by side (before / after)"
            on:click=move |_| {
                let pair = (!on.get_untracked()).then(|| shell.read(|m| m.default_pair()));
                shell.dispatch(Command::SetCompare(pair));
            }
        >
            {move || if on.get() { "Compare: on" } else { "Compare: off" }}
        </button>
        {move || {
            shell
                .ui
                .compare_error
                .get()
                .map(|e| view! { <span class="compare-error" role="alert" data-testid="compare-error">{e}</span> })
        }}
    }
}

/// The head of one side: its label, its kernel and knob, how far it is into the op.
#[component]
fn SideHead(side: Side) -> impl IntoView {
    let shell = Shell::get();
    let main = View {
        shell,
        slot: Slot::Main,
    };
    let viewed = View {
        shell,
        slot: Slot::Side(side),
    };
    let key = side.as_str();
    let pair = move || shell.ui.compare.get();
    let base = Memo::new(move |_| {
        main.with_run(|s| (s.scenario.kernel, s.scenario.zone.rmqueue_mode_memory))
    });
    let label = move || {
        pair()
            .map(|p| p.side(side).label.clone())
            .unwrap_or_default()
    };
    let kernel = move || {
        let k = pair().and_then(|p| p.side(side).kernel);
        k.or_else(|| base.get().map(|b| b.0))
            .map(Kernel::as_str)
            .unwrap_or_default()
    };
    let mm = move || {
        pair()
            .and_then(|p| p.side(side).rmqueue_mode_memory)
            .or_else(|| base.get().map(|b| b.1))
            .unwrap_or(true)
    };
    let prog = move || {
        viewed
            .with(|s| progress(&s.timeline).text())
            .unwrap_or_default()
    };
    let change = move |change| shell.dispatch(Command::ChangeSide { side, change });
    view! {
        <div class="side-head">
            <span class="side-letter">{key.to_ascii_uppercase()}</span>
            <strong class="side-label" data-testid="side-label">{label}</strong>
            <label class="side-knob">
                "kernel "
                <select
                    data-testid=format!("compare-kernel-{key}")
                    aria-label=format!("Side {} kernel profile", key.to_ascii_uppercase())
                    prop:value=kernel
                    on:change=move |ev| {
                        if let Some(k) = Kernel::parse(&event_target_value(&ev)) {
                            change(SideChange::Kernel(k));
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
                        change(SideChange::ModeMemory(on));
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
        <Provider value=SideSlot(side)>
            <section
                class="compare-side"
                data-testid=format!("side-{}", side.as_str())
                aria-label=format!("Side {}", side.as_str().to_ascii_uppercase())
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
    let shell = Shell::get();
    let model = Memo::new(move |_| {
        shell.cursor(Slot::Side(Side::A));
        shell.cursor(Slot::Side(Side::B));
        shell
            .read(|m| m.pair().map(|p| rows(&p.a.timeline, &p.b.timeline)))
            .unwrap_or_default()
    });
    let main = View {
        shell,
        slot: Slot::Main,
    };
    let labels = move || {
        shell
            .ui
            .compare
            .get()
            .map(|p: ComparePair| (p.a.label, p.b.label))
            .unwrap_or_default()
    };
    let measured = move || {
        main.with_run(|s| s.scenario.compare.as_ref().and_then(|c| c.measured.clone()))
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
    let shell = Shell::get();
    let pos = move || {
        shell.cursor(Slot::Side(Side::A));
        shell.cursor(Slot::Side(Side::B));
        shell
            .read(|m| {
                m.pair()
                    .map(|p| position_text(&p.a.timeline, &p.b.timeline))
            })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lockstep::op_forward;
    use crate::testutil::compare_sides as sides;

    #[test]
    fn the_table_has_both_values_and_b_over_a() {
        let (mut a, mut b) = sides("free-contig-range-thp");
        op_forward(&mut a, &mut b);
        op_forward(&mut a, &mut b);
        op_forward(&mut a, &mut b);
        let rows = rows(&a, &b);
        let pcp = rows.iter().find(|r| r.name == "pcp_ops").expect("pcp_ops");
        assert!(pcp.a >= 512, "{pcp:?}");
        assert_eq!(pcp.ratio, Some(pcp.b as f64 / pcp.a as f64));
        assert!(pcp.ratio.unwrap() < 0.1);
        assert_eq!(ratio_text(Some(0.25)), "0.250");
        assert_eq!(ratio_text(Some(12.34)), "12.3");
        assert_eq!(ratio_text(None), "\u{2014}");
        assert_eq!(ratio_text(Some(1.0)), "1.00");
        assert_eq!(ratio_text(Some(9.0 / 18174.0)), "0.000495");
        assert_eq!(ratio_text(Some(0.03125)), "0.0312");
        assert_eq!(ratio_text(Some(0.999)), "0.999");
    }
}
