//! Trace replay: open an ftrace kmem trace (pick or drop) with a start state, play
//! it as an ordinary run in every panel, its divergences listed (each a button that seeks to
//! it; the scrubber marks them too) and the engine's [`ReplaySummary`] shown: events,
//! allocations per order and migratetype, fallbacks, re-typed pageblocks, the fragmentation
//! index over time for the trace and for the model choosing its own pages.
//!
//! Every number is the engine's (`buddyscope::run::replay::summary`); this module only renders. The
//! trace is replayed in one go on the main thread, after a "Replaying …" message has been
//! painted (a worker is out of scope): a 40 000-line trace takes a fraction of a second.

use buddyscope::mm::NR_PAGE_ORDERS;
use buddyscope::run::replay::FragPoint;
use buddyscope::run::replay::{Divergence, ReplaySummary};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use super::charts::{fit, font, palette, DrawResult, Palette};
use super::frame::PanelFrame;
use crate::model::{Command, TraceStart};
use crate::shell::replay::read_trace;
use crate::shell::View;
use crate::theme::ThemeState;

/// The scrubber position of a divergence: just after its `# warning` event.
pub fn divergence_pos(d: &Divergence) -> u32 {
    d.event + 1
}

/// Scrubber markers of the listed divergences: (position, tooltip), ascending.
pub fn divergence_markers(divergences: &[Divergence]) -> Vec<(u32, String)> {
    divergences
        .iter()
        .map(|d| (divergence_pos(d), d.to_string()))
        .collect()
}

/// Open a trace: the file input, the drop zone and the start-state choice.
#[component]
pub fn TraceOpenPanel() -> impl IntoView {
    let view = View::here();
    let shell = view.shell;
    let over = RwSignal::new(false);
    view! {
        <PanelFrame
            key="trace-open"
            title="Replay a kernel trace"
            help="An ftrace kmem trace (/sys/kernel/tracing/trace or trace-cmd report): the model takes the traced pages; every disagreement is a divergence."
        >
            <div
                class=move || if over.get() { "trace-drop over" } else { "trace-drop" }
                data-testid="trace-drop"
                on:dragover=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    over.set(true);
                }
                on:dragleave=move |_| over.set(false)
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    over.set(false);
                    if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                        read_trace(shell, f);
                    }
                }
            >
                <label class="field">
                    <span>"Start from"</span>
                    <select
                        data-testid="trace-start"
                        on:change=move |ev| {
                            shell.dispatch(Command::TraceStart(if event_target_value(&ev) == "boot" {
                                TraceStart::Boot
                            } else {
                                TraceStart::Scenario
                            }));
                        }
                    >
                        <option value="scenario" selected=true>"the current scenario's zone"</option>
                        <option value="boot">"boot defaults (1 GiB zone, 1 CPU)"</option>
                    </select>
                </label>
                <label class="file-button">
                    <span>"Open trace…"</span>
                    <input
                        type="file"
                        accept=".txt,.trace,.dat,text/plain"
                        data-testid="trace-open"
                        on:change=move |ev| {
                            if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                if let Some(f) = input.files().and_then(|f| f.get(0)) {
                                    read_trace(shell, f);
                                }
                                // Picking the same file again fires `change` again.
                                input.set_value("");
                            }
                        }
                    />
                </label>
                <span class="muted small">"or drop a trace file here"</span>
            </div>
            <Show when=move || view.shell.ui.trace_status.with(|s| s.is_some())>
                <p class="trace-status" data-testid="trace-status" role="status">
                    {move || view.shell.ui.trace_status.get().unwrap_or_default()}
                </p>
            </Show>
            <Show when=move || view.shell.ui.trace_error.with(|s| s.is_some())>
                <div class="editor-error" data-testid="trace-error" role="alert">
                    <p><strong>"Not replayed: "</strong>{move || view.shell.ui.trace_error.get().unwrap_or_default()}</p>
                    <p class="muted small">"The last good run stays on screen."</p>
                </div>
            </Show>
        </PanelFrame>
    }
}

/// The divergences of the replayed trace, each a button that seeks to it.
#[component]
pub fn DivergencesPanel() -> impl IntoView {
    let view = View::here();
    let list = Memo::new(move |_| {
        view.with_run(|s| {
            s.replay
                .as_ref()
                .map(|r| (r.summary.divergence_count, r.divergences.clone()))
        })
        .flatten()
    });
    let sub = Signal::derive(move || {
        list.with(|l| l.as_ref().map(|(n, _)| format!("{n}")).unwrap_or_default())
    });
    view! {
        <Show when=move || list.with(|l| l.is_some())>
            <PanelFrame key="replay-divergences" title="Divergences" testid="replay-divergences" sub=sub
                help="Where the trace and the model disagree. Click one to go there.">
                {move || {
                    list.with(|l| {
                        let Some((count, ds)) = l else { return ().into_any() };
                        if ds.is_empty() {
                            return view! { <p class="muted" data-testid="replay-no-divergence">"None: the model accepts every traced event."</p> }.into_any();
                        }
                        let more = count.saturating_sub(ds.len() as u64);
                        view! {
                            <ol class="divergence-list">
                                {ds.iter().map(|d| {
                                    let pos = divergence_pos(d);
                                    view! {
                                        <li>
                                            <button
                                                type="button"
                                                class="divergence"
                                                data-testid="replay-divergence"
                                                title=format!("Go to event {pos}")
                                                on:click=move |_| {
                                                    view.dispatch(Command::Seek(pos));
                                                }
                                            >
                                                <span class="divergence-line">{format!("line {}", d.line)}</span>
                                                " "<code>{d.kind.as_str()}</code>": "{d.message.clone()}
                                            </button>
                                        </li>
                                    }
                                }).collect_view()}
                            </ol>
                            {(more > 0).then(|| view! { <p class="muted small">{format!("… {more} more not listed")}</p> })}
                        }
                        .into_any()
                    })
                }}
            </PanelFrame>
        </Show>
    }
}

/// One row per migratetype name, one column per order: the allocations table.
fn alloc_rows(s: &ReplaySummary) -> Vec<(String, [u64; NR_PAGE_ORDERS])> {
    let mut rows: Vec<(String, [u64; NR_PAGE_ORDERS])> = Vec::new();
    for a in &s.allocations {
        let i = match rows.iter().position(|r| r.0 == a.migratetype) {
            Some(i) => i,
            None => {
                rows.push((a.migratetype.clone(), [0; NR_PAGE_ORDERS]));
                rows.len() - 1
            }
        };
        rows[i].1[a.order as usize] += a.count;
    }
    rows
}

fn draw_frag(
    canvas: web_sys::HtmlCanvasElement,
    trace: &[FragPoint],
    model: Option<&[FragPoint]>,
    order: usize,
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit(&canvas) else {
        return Ok(());
    };
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let xmax = trace
        .iter()
        .chain(model.unwrap_or(&[]))
        .map(|f| f.line)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * k) as i32)
        .margin_right((14.0 * k) as i32)
        .x_label_area_size((24.0 * k) as i32)
        .y_label_area_size((40.0 * k) as i32)
        .build_cartesian_2d(0f64..xmax, -1.05f64..1.05)?;
    let yfmt = |v: &f64| format!("{v:.1}");
    let xfmt = |v: &f64| format!("{v:.0}");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_labels(5)
        .x_labels(5)
        .y_label_formatter(&yfmt)
        .x_label_formatter(&xfmt)
        .max_light_lines(0)
        .bold_line_style(p.grid.stroke_width(1))
        .axis_style(p.muted.stroke_width(1))
        .label_style(font(11.0, k, p.muted))
        .draw()?;
    // A step line: the index holds until the next sampled event.
    let steps = |pts: &[FragPoint]| -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(pts.len() * 2);
        for (i, f) in pts.iter().enumerate() {
            let y = f.index[order] as f64 / 1000.0;
            if i > 0 {
                out.push((f.line as f64, out.last().map_or(y, |l: &(f64, f64)| l.1)));
            }
            out.push((f.line as f64, y));
        }
        if let Some(&(_, y)) = out.last() {
            out.push((xmax, y));
        }
        out
    };
    let w = (2.0 * k).round().max(1.0) as u32;
    if let Some(m) = model {
        chart.draw_series(std::iter::once(PathElement::new(
            steps(m),
            p.series[1].stroke_width(w),
        )))?;
    }
    chart.draw_series(std::iter::once(PathElement::new(
        steps(trace),
        p.series[0].stroke_width(w),
    )))?;
    root.present()?;
    Ok(())
}

/// The engine's summary of the replayed trace.
#[component]
pub fn ReplaySummaryPanel() -> impl IntoView {
    let view = View::here();
    let summary = Memo::new(move |_| {
        view.with_run(|s| {
            s.replay
                .as_ref()
                .map(|r| (r.file.clone(), r.summary.clone()))
        })
        .flatten()
    });
    let order = RwSignal::new(NR_PAGE_ORDERS - 2);
    let canvas = NodeRef::<Canvas>::new();
    let dark = ThemeState::dark();
    Effect::new(move |_| {
        let p = palette(dark.get());
        let o = order.get();
        summary.with(|s| {
            if let (Some((_, s)), Some(c)) = (s, canvas.get()) {
                let model = s.model.as_ref().map(|m| m.fragmentation.as_slice());
                let _ = draw_frag(c, &s.fragmentation, model, o, &p);
            }
        });
    });
    let sub = Signal::derive(move || {
        summary.with(|s| s.as_ref().map(|s| s.0.clone()).unwrap_or_default())
    });
    let body = move || {
        summary.with(|s| {
            let Some((_, s)) = s else { return ().into_any() };
            let rows = alloc_rows(s);
            let allocs: u64 = s.allocations.iter().map(|a| a.count).sum();
            let model = s.model.as_ref().map(|m| {
                let first = match &m.first_difference {
                    None => "none: the model makes the trace's choices".to_string(),
                    Some(d) => {
                        let pfn = |p: Option<u64>| p.map_or("failed".to_string(), |p| format!("pfn {p:#x}"));
                        format!("line {}: order-{} {}: trace {}, model {}", d.line, d.order, d.migratetype, pfn(d.traced), pfn(d.model))
                    }
                };
                view! {
                    <p data-testid="replay-model">
                        <strong>"Model choosing its own pages: "</strong>
                        {format!("{} requests, {} differing; first difference: {first}", m.requests, m.differing)}
                    </p>
                }
            });
            view! {
                <dl class="replay-counts">
                    <dt>"trace events"</dt><dd data-testid="replay-events">{s.trace_events}</dd>
                    <dt>"lines"</dt><dd>{format!("{} ({} skipped)", s.lines, s.skipped_lines)}</dd>
                    <dt>"divergences"</dt><dd data-testid="replay-divergence-count">{s.divergence_count}</dd>
                    <dt>"allocations"</dt><dd>{format!("{allocs} ({} failed)", s.failed_allocations)}</dd>
                    <dt>"frees"</dt><dd>{s.frees}</dd>
                </dl>
                <div class="table-scroll">
                <table class="replay-allocs" data-testid="replay-allocations">
                    <caption>"Allocations per order and migratetype"</caption>
                    <thead><tr><th scope="col">"type"</th>{(0..NR_PAGE_ORDERS).map(|o| view! { <th scope="col">{o}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {rows.into_iter().map(|(mt, counts)| view! {
                            <tr><th scope="row">{mt}</th>{counts.iter().map(|c| view! { <td>{if *c == 0 { String::new() } else { c.to_string() }}</td> }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
                </div>
                <h3 class="replay-h">"Fallbacks"</h3>
                {if s.fallbacks.is_empty() {
                    view! { <p class="muted small">"none"</p> }.into_any()
                } else {
                    view! {
                        <ul class="replay-fallbacks" data-testid="replay-fallbacks">
                            {s.fallbacks.iter().map(|f| view! {
                                <li>{format!("{} → {} {}: {}", f.from, f.to, if f.claim { "claim" } else { "steal" }, f.count)}</li>
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }}
                <h3 class="replay-h">{format!("Pageblocks that changed type: {}", s.pageblocks_changed.len())}</h3>
                <ul class="replay-pageblocks" data-testid="replay-pageblocks">
                    {s.pageblocks_changed.iter().take(32).map(|p| view! {
                        <li><code>{format!("{:#x}", p.pfn)}</code>{format!(" {} → {}", p.from, p.to)}</li>
                    }).collect_view()}
                </ul>
                {model}
            }
            .into_any()
        })
    };
    view! {
        <Show when=move || summary.with(|s| s.is_some())>
            <PanelFrame key="replay-summary" title="Replay summary" testid="replay-summary" sub=sub>
                {body}
                <figure class="chart replay-chart">
                    <figcaption>
                        "Fragmentation index of order "
                        <select
                            data-testid="replay-frag-order"
                            aria-label="Order"
                            on:change=move |ev| {
                                if let Ok(o) = event_target_value(&ev).parse::<usize>() {
                                    order.set(o.min(NR_PAGE_ORDERS - 1));
                                }
                            }
                        >
                            {(0..NR_PAGE_ORDERS).map(|o| view! { <option value=o.to_string() selected=o == NR_PAGE_ORDERS - 2>{o}</option> }).collect_view()}
                        </select>
                        " over the trace lines (−1: a free block of that order exists)"
                    </figcaption>
                    <canvas node_ref=canvas data-testid="replay-frag-chart" role="img"
                        aria-label="Line chart: fragmentation index over the trace, traced run and model"></canvas>
                    <ul class="chart-legend">
                        <li><span class="mini-swatch series-0"></span>"trace"</li>
                        <li><span class="mini-swatch series-1"></span>"model choosing its own pages"</li>
                    </ul>
                </figure>
            </PanelFrame>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use buddyscope::run::replay::{replay_text, ReplayOptions};
    use buddyscope::run::Runner;
    use buddyscope::scenario::ValidScenario;

    #[test]
    fn markers_sit_after_each_divergence_event_and_rows_group_by_type() {
        let s = buddyscope::scenario::parse(
            buddyscope::scenario::builtin::get("fallback-claim")
                .unwrap()
                .json,
        )
        .unwrap();
        let r = Runner::new(ValidScenario::new(s.clone()).unwrap())
            .run()
            .unwrap();
        let mut trace = buddyscope::explain::trace_text(&r);
        // A second allocation of the first traced block: one divergence.
        let first = trace
            .lines()
            .find(|l| l.starts_with("mm_page_alloc:"))
            .unwrap()
            .to_string();
        trace.push_str(&first);
        trace.push('\n');
        let rep = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
        assert_eq!(rep.divergence_count, 1);
        let m = divergence_markers(&rep.divergences);
        assert_eq!(m.len(), 1);
        let t = crate::model::Session::load_trace(&s, &trace, "t")
            .unwrap()
            .timeline;
        assert!(m[0].0 <= t.len() && m[0].1.contains("alloc_of_allocated"));
        let sum = buddyscope::run::replay::summary(&rep, None);
        let rows = alloc_rows(&sum);
        let total: u64 = rows.iter().flat_map(|r| r.1).sum();
        assert_eq!(total, sum.allocations.iter().map(|a| a.count).sum::<u64>());
        assert!(rows.iter().any(|r| r.0 == "Unmovable" && r.1[0] > 0));
    }
}
