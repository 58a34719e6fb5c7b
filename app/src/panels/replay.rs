//! Trace replay: open an ftrace kmem trace (pick or drop) with a start state, play
//! it as an ordinary run in every panel, its divergences listed (each a button that seeks to
//! it; the scrubber marks them too) and the engine's [`ReplaySummary`] shown: events,
//! allocations per order and migratetype, fallbacks, re-typed pageblocks, the fragmentation
//! index over time for the trace and for the model choosing its own pages. The replay predicts
//! (`buddyscope replay --predict`): [`PredictionPanel`] shows the rates, and the kernel's page
//! against the model's at the cursor's `mm_page_alloc`; the scrubber marks each listed miss.
//!
//! Every number is the engine's (`buddyscope::run::replay::summary`); this module only renders. The
//! trace replays in the run worker, read from its file in chunks (`crate::runjob`), with its
//! progress and Cancel in the run status strip.

use buddyscope::mm::{EventKind, Mutation, NR_PAGE_ORDERS};
use buddyscope::run::replay::{migratetype_name, FragPoint};
use buddyscope::run::replay::{Divergence, ReplaySummary};
use buddyscope::run::{Outcome, Timeline};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use super::charts::{fit, font, palette, DrawResult, Palette};
use super::frame::PanelFrame;
use crate::captures::captures;
use crate::model::session::ReplayInfo;
use crate::model::{Command, TraceStart};
use crate::shell::replay::{open_capture, read_start_state, read_trace};
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

/// The prediction at the cursor's `mm_page_alloc`: the kernel's page and the model's.
#[derive(Clone, Debug, PartialEq)]
pub struct AtAlloc {
    /// The `mm_page_alloc` line.
    pub line: u64,
    /// The kernel's page: "pfn 0x104090, order 0, Movable", or "failed".
    pub actual: String,
    /// The model's: "pfn 0x1040a8, order 0", "the same page", or "failed".
    pub predicted: String,
    /// Where each was, in the engine's words (a miss only): the kernel's page, the model's.
    pub kernel_where: Option<String>,
    pub model_where: Option<String>,
    /// The model chose the kernel's page (or both failed); `None`: not known (a miss beyond
    /// the listed ones).
    pub exact: Option<bool>,
    /// The miss's cause: "not_free_in_model ((earlier untraced step)): the kernel's page …".
    pub cause: Option<String>,
}

/// The prediction panel's model: the rates as the CLI's summary prints them, the misses by
/// cause, and the prediction at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictionModel {
    /// "68 allocations, 59 exact (86.76 %), 59 same order and list (86.76 %), 9 misses".
    pub rates: String,
    pub allocations: u64,
    pub exact: u64,
    pub same_order_and_list: u64,
    pub misses: u64,
    /// Misses listed (and marked on the scrubber).
    pub listed: usize,
    /// (cause, kernel function, count), most frequent first.
    pub by_cause: Vec<(String, String, u64)>,
    /// The op at the cursor is an `mm_page_alloc`: its prediction.
    pub at: Option<AtAlloc>,
    /// The listed misses before and after the cursor.
    pub prev: Option<u32>,
    pub next: Option<u32>,
}

/// Most miss markers drawn on the scrubber: beyond it, one per 1/`MAX_MISS_MARKERS` of the
/// track (the first miss there), so a real trace's thousands of misses stay a few hundred
/// elements.
pub const MAX_MISS_MARKERS: u64 = 1000;

/// The scrubber markers of the listed misses in a run of `len` events: (position, tooltip),
/// ascending, thinned to [`MAX_MISS_MARKERS`].
pub fn miss_markers(r: &ReplayInfo, len: u32) -> Vec<(u32, String)> {
    let Some(p) = &r.predict else {
        return Vec::new();
    };
    let thin = r.miss_positions.len() as u64 > MAX_MISS_MARKERS;
    let bucket = |pos: u32| u64::from(pos) * MAX_MISS_MARKERS / u64::from(len.max(1));
    let mut last = None;
    r.miss_positions
        .iter()
        .filter(|&&(pos, _)| !thin || last.replace(bucket(pos)) != Some(bucket(pos)))
        .map(|&(pos, i)| {
            let m = &p.misses[i];
            (pos, format!("miss: {m} ({})", m.cause))
        })
        .collect()
}

fn pfn_text(p: Option<u64>) -> String {
    p.map_or("failed".to_string(), |p| format!("pfn {p:#x}"))
}

/// The prediction panel's model for replay `r` at the cursor of `t`; `None` without prediction.
pub fn prediction_view(r: &ReplayInfo, t: &Timeline) -> Option<PredictionModel> {
    let p = r.predict.as_ref()?;
    let pos = t.pos();
    let at_pos = r.miss_positions.partition_point(|m| m.0 <= pos);
    let prev = r.miss_positions.partition_point(|m| m.0 < pos);
    let cma = t.run.initial.active().cfg().cma;
    let at = t.op_index().and_then(|i| {
        let op = t.op(i);
        // Only once the cursor is at (or inside) the op: before it, the op is about to start.
        if op.def != 0 || pos <= op.start {
            return None;
        }
        let Outcome::Replayed { line, what } = &op.outcome else {
            return None;
        };
        let line = *line;
        if let Some(&(_, mi)) = r.miss_positions.iter().find(|m| m.0 == op.end) {
            let m = &p.misses[mi];
            let (kw, mw) = match m.detail.rsplit_once("; ") {
                Some((k, w)) => (k.to_string(), w.to_string()),
                None => (m.detail.clone(), String::new()),
            };
            return Some(AtAlloc {
                line,
                actual: match m.want_pfn {
                    Some(_) => format!(
                        "{}, order {}, {}",
                        pfn_text(m.want_pfn),
                        m.order,
                        migratetype_name(m.migratetype, cma)
                    ),
                    None => "failed".to_string(),
                },
                predicted: match m.got_pfn {
                    Some(_) => format!("{}, order {}", pfn_text(m.got_pfn), m.order),
                    None => "failed".to_string(),
                },
                kernel_where: Some(kw),
                model_where: (!mw.is_empty()).then_some(mw),
                exact: Some(false),
                cause: Some(format!(
                    "{} ({}): {}",
                    m.cause,
                    m.cause.kernel_fn(),
                    m.cause.explain()
                )),
            });
        }
        // Not a listed miss: the traced allocation the op applied (its owner's record).
        let traced = t
            .run
            .log
            .events
            .range(op.start as usize..op.end as usize)
            .find_map(|ev| match ev.kind() {
                EventKind::Mutation(Mutation::PrepNewPage { owner, .. }) => {
                    r.allocs.by_owner(owner)
                }
                _ => None,
            });
        let all_listed = p.misses.len() as u64 >= p.miss_count;
        Some(match traced {
            Some(a) if all_listed => AtAlloc {
                line,
                actual: format!(
                    "pfn {:#x}, order {}, {}",
                    a.pfn,
                    a.order,
                    a.mt.kernel_name()
                ),
                predicted: "the same page".to_string(),
                kernel_where: None,
                model_where: None,
                exact: Some(true),
                cause: None,
            },
            None if all_listed && what.ends_with("allocation failed") => AtAlloc {
                line,
                actual: "failed".to_string(),
                predicted: "failed too".to_string(),
                kernel_where: None,
                model_where: None,
                exact: Some(true),
                cause: None,
            },
            _ => AtAlloc {
                line,
                actual: traced.map_or_else(
                    || what.clone(),
                    |a| {
                        format!(
                            "pfn {:#x}, order {}, {}",
                            a.pfn,
                            a.order,
                            a.mt.kernel_name()
                        )
                    },
                ),
                predicted: format!(
                    "not known: only the first {} misses are listed",
                    p.misses.len()
                ),
                kernel_where: None,
                model_where: None,
                exact: None,
                cause: None,
            },
        })
    });
    Some(PredictionModel {
        rates: p.rates_text(),
        allocations: p.allocations,
        exact: p.exact,
        same_order_and_list: p.same_order_and_list,
        misses: p.miss_count,
        listed: p.misses.len(),
        by_cause: p
            .by_cause
            .iter()
            .map(|c| (c.cause.to_string(), c.kernel_fn.to_string(), c.count))
            .collect(),
        at,
        prev: prev.checked_sub(1).map(|i| r.miss_positions[i].0),
        next: r.miss_positions.get(at_pos).map(|m| m.0),
    })
}

/// Open a trace: the file input, the drop zone and the start-state choice.
#[component]
pub fn TraceOpenPanel() -> impl IntoView {
    let view = View::here();
    let shell = view.shell;
    let over = RwSignal::new(false);
    let capture_select = NodeRef::<leptos::html::Select>::new();
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
                            shell.dispatch(Command::TraceStart(match event_target_value(&ev).as_str() {
                                "boot" => TraceStart::Boot,
                                "file" => TraceStart::File,
                                _ => TraceStart::Scenario,
                            }));
                        }
                    >
                        <option value="scenario" selected=move || view.shell.ui.trace_start.get() == TraceStart::Scenario>"the current scenario's zone"</option>
                        <option value="boot" selected=move || view.shell.ui.trace_start.get() == TraceStart::Boot>"boot defaults (1 GiB zone, 1 CPU)"</option>
                        <option value="file" selected=move || view.shell.ui.trace_start.get() == TraceStart::File>
                            {move || view.shell.ui.trace_start_file.get().map_or_else(|| "a start-state file (open one)".to_string(), |f| format!("the file {f}"))}
                        </option>
                    </select>
                </label>
                <label class="file-button">
                    <span>"Open start state…"</span>
                    <input
                        type="file"
                        accept=".json,application/json"
                        data-testid="trace-start-file"
                        title="A scenario, or a drgn snapshot (tools/drgn/snapshot.py; gunzip a lab capture's snapshot-before.json.gz first)"
                        on:change=move |ev| {
                            if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                if let Some(f) = input.files().and_then(|f| f.get(0)) {
                                    read_start_state(shell, f);
                                }
                                input.set_value("");
                            }
                        }
                    />
                </label>
                <label class="field">
                    <span>"Profile"</span>
                    <select
                        data-testid="trace-profile"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            shell.dispatch(Command::TraceProfile(buddyscope::Kernel::parse(&v)));
                        }
                    >
                        <option value="auto" selected=true>"the one the input names"</option>
                        {buddyscope::Kernel::ALL.iter().map(|k| view! { <option value=k.as_str()>{k.as_str()}</option> }).collect_view()}
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
            <div class="trace-captures">
                <label class="field">
                    <span>"Or a real kernel"</span>
                    <select data-testid="trace-capture" node_ref=capture_select>
                        {captures().into_iter().enumerate().map(|(i, c)| view! {
                            <option value=i.to_string() title=c.what>{format!("{} — {}", c.dir, c.what)}</option>
                        }).collect_view()}
                    </select>
                </label>
                <button
                    data-testid="trace-capture-replay"
                    title="Replays the lab's capture of Debian's kernel from its drgn snapshot, cut at the snapshot markers, as `buddyscope replay trace.txt --scenario snapshot-before.json --from-marker … --to-marker …` does"
                    on:click=move |_| {
                        let i = capture_select
                            .get()
                            .and_then(|s| s.value().parse::<usize>().ok())
                            .unwrap_or(0);
                        if let Some(c) = captures().get(i).copied() {
                            open_capture(shell, c);
                        }
                    }
                >
                    "Replay it"
                </button>
            </div>
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

/// The prediction: the rates, the misses by cause, the prediction at the cursor's
/// `mm_page_alloc`, and buttons (keys M and Shift+M) to the next and previous miss.
#[component]
pub fn PredictionPanel() -> impl IntoView {
    let view = View::here();
    let model = Memo::new(move |_| {
        view.with(|s| {
            s.replay
                .as_ref()
                .and_then(|r| prediction_view(r, &s.timeline))
        })
        .flatten()
    });
    let sub = Signal::derive(move || {
        model.with(|m| {
            m.as_ref()
                .map(|m| format!("{} of {} exact", m.exact, m.allocations))
                .unwrap_or_default()
        })
    });
    let body = move || {
        model.with(|m| {
            let Some(m) = m else { return ().into_any() };
            let at = match &m.at {
                None => view! {
                    <p class="muted small" data-testid="predict-at-none">"The cursor is not at an mm_page_alloc: step to one, or jump to a miss."</p>
                }
                .into_any(),
                Some(a) => {
                    let verdict = match a.exact {
                        Some(true) => "exact",
                        Some(false) => "miss",
                        None => "not listed",
                    };
                    view! {
                        <dl class="replay-counts predict-at" data-testid="predict-at" data-verdict=verdict>
                            <dt>"line"</dt><dd data-testid="predict-line">{a.line}</dd>
                            <dt>"kernel"</dt><dd data-testid="predict-actual">{a.actual.clone()}</dd>
                            <dt>"model"</dt><dd data-testid="predict-model">{a.predicted.clone()}</dd>
                            {a.kernel_where.clone().map(|w| view! { <dt>"kernel's page"</dt><dd>{w}</dd> })}
                            {a.model_where.clone().map(|w| view! { <dt>"model's page"</dt><dd>{w}</dd> })}
                            {a.cause.clone().map(|c| view! { <dt>"cause"</dt><dd data-testid="predict-cause">{c}</dd> })}
                        </dl>
                    }
                    .into_any()
                }
            };
            let (prev, next) = (m.prev, m.next);
            view! {
                <p data-testid="predict-rates">{m.rates.clone()}</p>
                {((m.listed as u64) < m.misses).then(|| view! {
                    <p class="muted small">{format!("The first {} misses are listed and marked on the scrubber.", m.listed)}</p>
                })}
                <ul class="replay-fallbacks" data-testid="predict-causes">
                    {m.by_cause.iter().map(|(c, f, n)| view! { <li><code>{c.clone()}</code>{format!(" ({f}): {n}")}</li> }).collect_view()}
                </ul>
                <div class="predict-nav">
                    <button type="button" data-testid="predict-prev" disabled=prev.is_none()
                        title="Previous miss (Shift+M)"
                        on:click=move |_| view.dispatch(Command::PrevMiss)>"◀ previous miss"</button>
                    <button type="button" data-testid="predict-next" disabled=next.is_none()
                        title="Next miss (M)"
                        on:click=move |_| view.dispatch(Command::NextMiss)>"next miss ▶"</button>
                </div>
                {at}
            }
            .into_any()
        })
    };
    view! {
        <Show when=move || model.with(|m| m.is_some())>
            <PanelFrame key="replay-predict" title="Prediction" testid="replay-predict" sub=sub
                help="At every mm_page_alloc the model first chose a page itself from its state (the traced order, gfp flags and CPU), then the kernel's page was applied: buddyscope replay --predict.">
                {body}
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
                .map(|r| (r.file.clone(), r.summary.clone(), r.profile.clone()))
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
            if let (Some((_, s, _)), Some(c)) = (s, canvas.get()) {
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
            let Some((_, s, profile)) = s else { return ().into_any() };
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
                <p class="replay-profile" data-testid="replay-profile">{profile.clone()}</p>
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
pub(crate) mod tests {
    use super::*;
    use buddyscope::run::replay::{replay_text, ReplayOptions};
    use buddyscope::run::Runner;
    use buddyscope::scenario::ValidScenario;

    /// A lab capture of a real kernel (the one the e2e test opens), read as a user opens it.
    pub(crate) fn lab_capture(version: &str, workload: &str) -> (String, buddyscope::Scenario) {
        let dir = format!(
            "{}/../engine/tests/fixtures/lab/{version}/{workload}",
            env!("CARGO_MANIFEST_DIR")
        );
        let trace = std::fs::read_to_string(format!("{dir}/trace.txt")).unwrap();
        let out = std::process::Command::new("gzip")
            .arg("-dc")
            .arg(format!("{dir}/snapshot-before.json.gz"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let snap = String::from_utf8(out.stdout).unwrap();
        let start = buddyscope::scenario::parse_start_state(&snap, "snapshot-before.json").unwrap();
        (trace, start)
    }

    /// The panel's rates and misses are the engine's `replay --predict` for the same files; at a
    /// miss it shows both pages and the cause, at another allocation the kernel's page, exact.
    #[test]
    fn the_prediction_of_a_lab_capture_is_the_clis() {
        let (trace, start) = lab_capture("7.3.4", "idle");
        let s = crate::model::Session::load_trace(&start, None, &trace, "trace.txt").unwrap();
        let r = s.replay.as_ref().unwrap();
        let cli = replay_text(
            &start,
            &trace,
            &ReplayOptions {
                record: false,
                checkpoint_budget: 0,
                predict: true,
                ..ReplayOptions::default()
            },
        )
        .unwrap()
        .predict
        .unwrap();
        let mut t = s.timeline;
        let m = prediction_view(r, &t).unwrap();
        assert_eq!(m.rates, cli.rates_text());
        assert_eq!(
            (m.allocations, m.exact, m.same_order_and_list, m.misses),
            (
                cli.allocations,
                cli.exact,
                cli.same_order_and_list,
                cli.miss_count
            )
        );
        assert!(m.misses > 0 && m.exact > 0, "{}", m.rates);
        assert_eq!(m.at, None, "event 0 is before every allocation");
        assert_eq!(m.prev, None);
        // One marker per listed miss, ascending, each the end of its mm_page_alloc's op.
        let marks = miss_markers(r, t.len());
        assert_eq!(marks.len(), cli.misses.len());
        assert!(marks.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(m.next, Some(marks[0].0));
        t.seek(marks[0].0);
        let first = &cli.misses[0];
        let m = prediction_view(r, &t).unwrap();
        let at = m.at.unwrap();
        assert_eq!(at.line, first.line);
        assert_eq!(at.exact, Some(false));
        assert!(
            at.actual.starts_with(&format!(
                "pfn {:#x}, order {}",
                first.want_pfn.unwrap(),
                first.order
            )),
            "{}",
            at.actual
        );
        assert_eq!(
            at.predicted,
            format!("pfn {:#x}, order {}", first.got_pfn.unwrap(), first.order)
        );
        assert!(at.cause.unwrap().starts_with(first.cause.as_str()));
        assert!(at.model_where.unwrap().starts_with("the model "));
        assert_eq!(m.prev, None);
        assert_eq!(m.next, marks.get(1).map(|p| p.0));
        // An allocation the model got right: the kernel's page, the same.
        let exact = t
            .run
            .ops
            .iter()
            .find(|o| {
                o.def == 0
                    && matches!(&o.outcome, Outcome::Replayed { line, what } if what.contains(" allocated ") && cli.misses.iter().all(|x| x.line != *line))
            })
            .unwrap()
            .end;
        t.seek(exact);
        let at = prediction_view(r, &t).unwrap().at.unwrap();
        assert_eq!(at.exact, Some(true));
        assert_eq!(at.predicted, "the same page");
        assert!(at.actual.starts_with("pfn 0x"), "{}", at.actual);
        // The snapshot named its kernel: its profile replayed it.
        assert_eq!(
            r.profile,
            "Profile v7.3 — the snapshot says 7.3.4+deb13-amd64"
        );
    }

    /// Thousands of misses are thinned to at most one marker per 1/1000 of the track, the
    /// first miss of each kept.
    #[test]
    fn many_misses_are_thinned_on_the_scrubber() {
        let mut trace = String::new();
        for i in 0..3000u64 {
            let p = 0x1000 + (i * 7) % 50_000;
            trace.push_str(&format!("mm_page_alloc: page=0xffffea0000000000 pfn={p:#x} order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\nmm_page_free: page=0xffffea0000000000 pfn={p:#x} order=0\n"));
        }
        let s =
            crate::model::Session::load_trace(&buddyscope::Scenario::default(), None, &trace, "t")
                .unwrap();
        let r = s.replay.as_ref().unwrap();
        assert!(r.miss_positions.len() as u64 > MAX_MISS_MARKERS);
        let marks = miss_markers(r, s.timeline.len());
        assert!(
            marks.len() as u64 <= MAX_MISS_MARKERS && marks.len() > 100,
            "{}",
            marks.len()
        );
        assert_eq!(marks[0].0, r.miss_positions[0].0);
        assert!(marks.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn markers_sit_after_each_divergence_event_and_rows_group_by_type() {
        let s = buddyscope::scenario::parse(
            buddyscope::scenario::builtin::get("fallback-claim")
                .unwrap()
                .json(),
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
        let t = crate::model::Session::load_trace(&s, None, &trace, "t")
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
