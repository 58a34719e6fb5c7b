//! A run over time, charted: one series at a time (free pages per order, the kernel's two
//! extfrag indexes per order, mixed pageblocks by type, fallbacks per op or per second) against
//! the ops done, or for a replay of a trace with timestamps, the trace's clock in seconds. The
//! engine computes the states ([`over_time`]: what `buddyscope run|replay --format
//! <series>_over_time` prints) and the CSV export is its text; this module only picks the lines
//! and [`draw`] scales them to pixels. The PNG export is the canvas (`toBlob`).

use buddyscope::explain::overtime::{over_time, thousandths, OverTime, Series};
use buddyscope::mm::{fragmentation_index_of, unusable_free_index_of, NR_PAGE_ORDERS};
use buddyscope::run::replay::OpTimes;
use buddyscope::MigrateType;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

use super::charts::{fit_to, font, order_dash, palette, DrawResult, Palette};
use super::export::{download_png, download_text, file_base, ExportFile};
use super::frame::PanelFrame;
use super::onscreen;
use crate::shell::View;
use crate::theme::{self, ThemeState};

/// What the x axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Ops done (a replay: trace events applied).
    Ops,
    /// The trace's clock, in seconds (a replay of a trace with timestamps).
    Seconds,
}

/// One line of the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Its label at the line's end and in the legend ("order 3", "Movable", "steals").
    pub name: String,
    /// An order (its colour and dash), else a migratetype's colour slot.
    pub order: Option<usize>,
    pub mt: Option<MigrateType>,
    /// `(x, y)` per kept state; `None` breaks the line (an extfrag index where a block of the
    /// order is free: the kernel prints -1.000 there).
    pub points: Vec<(f64, Option<f64>)>,
}

/// The chart of one series of one zone.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartModel {
    pub series: Series,
    pub axis: Axis,
    /// The x axis's words, the y axis's words.
    pub x_label: String,
    pub y_label: &'static str,
    /// The y range (`log`: the values are log10(1 + v)).
    pub y_max: f64,
    pub log: bool,
    pub x_max: f64,
    pub lines: Vec<Line>,
    /// Where the cursor is on the x axis (the state after the ops done).
    pub cursor: f64,
    /// The zone charted.
    pub zone: String,
    /// The text alternative: the series at the cursor, in words.
    pub summary: String,
}

/// The series' menu label.
pub fn series_label(s: Series) -> &'static str {
    match s {
        Series::FreePages => "free pages per order",
        Series::UnusableIndex => "unusable free space index per order",
        Series::ExtfragIndex => "fragmentation index per order",
        Series::MixedPageblocks => "mixed pageblocks",
        Series::Fallbacks => "fallbacks (claims, steals)",
    }
}

/// The x of a state: its ops, or its time in seconds from the trace's first timestamp.
fn x_of(ot: &OverTime, axis: Axis, ops: u32, time_ns: Option<u64>) -> f64 {
    match (axis, time_ns, ot.points.first().and_then(|p| p.time_ns)) {
        (Axis::Seconds, Some(t), Some(t0)) => (t.saturating_sub(t0)) as f64 / 1e9,
        _ => f64::from(ops),
    }
}

/// The chart of `series` for zone `zone` (node index) of `ot`, the cursor after `done` ops
/// (`times`: a replay's clock, for the cursor on the seconds axis).
pub fn view_model(
    ot: &OverTime,
    series: Series,
    zone: usize,
    axis: Axis,
    done: usize,
    times: Option<&OpTimes>,
) -> ChartModel {
    let axis = if ot.timed { axis } else { Axis::Ops };
    let zi = zone.min(ot.zones.len().saturating_sub(1));
    let xs: Vec<f64> = ot
        .points
        .iter()
        .map(|p| x_of(ot, axis, p.ops, p.time_ns))
        .collect();
    let orders = |f: &dyn Fn(&[u64; NR_PAGE_ORDERS], usize) -> Option<f64>| -> Vec<Line> {
        (0..NR_PAGE_ORDERS)
            .map(|o| Line {
                name: format!("order {o}"),
                order: Some(o),
                mt: None,
                points: ot
                    .points
                    .iter()
                    .zip(&xs)
                    .map(|(p, &x)| (x, f(&p.nr_free[zi.min(p.nr_free.len() - 1)], o)))
                    .collect(),
            })
            .collect()
    };
    let (lines, y_label, log) = match series {
        Series::FreePages => (
            orders(&|nr, o| Some(((nr[o] << o) as f64 + 1.0).log10())),
            "free pages (log scale)",
            true,
        ),
        Series::UnusableIndex => (
            orders(&|nr, o| Some(unusable_free_index_of(nr, o as u8) as f64 / 1000.0)),
            "unusable_index",
            false,
        ),
        Series::ExtfragIndex => (
            orders(&|nr, o| {
                let v = fragmentation_index_of(nr, o as u8);
                (v >= 0).then(|| v as f64 / 1000.0)
            }),
            "extfrag_index (gaps: a block of the order is free)",
            false,
        ),
        Series::MixedPageblocks => {
            let mut lines = vec![Line {
                name: "all".into(),
                order: None,
                mt: None,
                points: ot
                    .points
                    .iter()
                    .zip(&xs)
                    .map(|(p, &x)| (x, Some(f64::from(p.mixed[zi].iter().sum::<u32>()))))
                    .collect(),
            }];
            for &t in &ot.types {
                if ot.points.iter().any(|p| p.mixed[zi][t.idx()] > 0) {
                    lines.push(Line {
                        name: t.kernel_name().into(),
                        order: None,
                        mt: Some(t),
                        points: ot
                            .points
                            .iter()
                            .zip(&xs)
                            .map(|(p, &x)| (x, Some(f64::from(p.mixed[zi][t.idx()]))))
                            .collect(),
                    });
                }
            }
            (lines, "mixed pageblocks", false)
        }
        Series::Fallbacks => {
            let per = if axis == Axis::Seconds {
                "per second"
            } else if ot.replay {
                "per trace event"
            } else {
                "per op"
            };
            let rate = |which: fn(&(u64, u64)) -> u64| -> Vec<(f64, Option<f64>)> {
                ot.points
                    .iter()
                    .enumerate()
                    .zip(&xs)
                    .map(|((i, p), &x)| {
                        let r = if i == 0 {
                            Some(0.0)
                        } else {
                            let prev = &ot.points[i - 1];
                            let w = if axis == Axis::Seconds {
                                x - xs[i - 1]
                            } else {
                                f64::from(p.ops - prev.ops)
                            };
                            let d = which(&p.fallbacks[zi]) - which(&prev.fallbacks[zi]);
                            (w > 0.0).then(|| d as f64 / w)
                        };
                        (x, r)
                    })
                    .collect()
            };
            let lines = vec![
                Line {
                    name: format!("claims {per}"),
                    order: None,
                    mt: Some(MigrateType::Unmovable),
                    points: rate(|f| f.0),
                },
                Line {
                    name: format!("steals {per}"),
                    order: None,
                    mt: Some(MigrateType::Movable),
                    points: rate(|f| f.1),
                },
            ];
            (lines, "fallbacks (mm_page_alloc_extfrag)", false)
        }
    };
    let y_top = lines
        .iter()
        .flat_map(|l| l.points.iter().filter_map(|p| p.1))
        .fold(0.0f64, f64::max);
    let y_max = match series {
        Series::UnusableIndex | Series::ExtfragIndex => 1.0,
        _ => (y_top * 1.1).max(1.0),
    };
    let x_max = xs.last().copied().unwrap_or(0.0).max(1e-9);
    let cursor = match axis {
        Axis::Seconds => {
            let t = times.and_then(|t| t.at_state(done));
            x_of(ot, axis, done as u32, t)
        }
        Axis::Ops => done as f64,
    };
    let x_label = match axis {
        Axis::Seconds => "seconds since the trace's first event".to_string(),
        Axis::Ops if ot.replay => "trace events applied".to_string(),
        Axis::Ops => "ops done".to_string(),
    };
    let zone_name = ot.zones.get(zi).cloned().unwrap_or_default();
    let summary = summary_at(ot, series, zi, done);
    ChartModel {
        series,
        axis,
        x_label,
        y_label,
        y_max,
        log,
        x_max,
        lines,
        cursor,
        zone: zone_name,
        summary,
    }
}

/// The series' values in the kept state at or before `done` ops, in words.
fn summary_at(ot: &OverTime, series: Series, zi: usize, done: usize) -> String {
    let Some(p) = ot.points.iter().rev().find(|p| p.ops as usize <= done) else {
        return String::new();
    };
    let nr = &p.nr_free[zi.min(p.nr_free.len() - 1)];
    let per_order = |f: &dyn Fn(usize) -> String| {
        (0..NR_PAGE_ORDERS)
            .map(|o| format!("{o}: {}", f(o)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let what = match series {
        Series::FreePages => per_order(&|o| (nr[o] << o).to_string()),
        Series::UnusableIndex => per_order(&|o| thousandths(unusable_free_index_of(nr, o as u8))),
        Series::ExtfragIndex => per_order(&|o| thousandths(fragmentation_index_of(nr, o as u8))),
        Series::MixedPageblocks => {
            let m = &p.mixed[zi];
            let by: Vec<String> = ot
                .types
                .iter()
                .filter(|t| m[t.idx()] > 0)
                .map(|t| format!("{} {}", m[t.idx()], t.kernel_name()))
                .collect();
            let n: u32 = m.iter().sum();
            if by.is_empty() {
                format!("{n} mixed")
            } else {
                format!("{n} mixed ({})", by.join(", "))
            }
        }
        Series::Fallbacks => {
            let (c, s) = p.fallbacks[zi];
            format!("{c} claims and {s} steals so far")
        }
    };
    format!(
        "After {} {}: {}",
        p.ops,
        if ot.replay { "trace events" } else { "ops" },
        what
    )
}

fn line_color(l: &Line, dark: bool) -> RGBColor {
    let p = theme::palette(dark);
    if let Some(o) = l.order {
        let (h, s, lum) = theme::order_hsl(o, dark);
        let (r, g, b) = HSLColor(h / 360.0, s, lum).to_backend_color().rgb;
        return RGBColor(r, g, b);
    }
    match l.mt {
        Some(mt) => {
            let c = p.mt[mt.idx().min(p.mt.len() - 1)];
            RGBColor(c[0], c[1], c[2])
        }
        None => RGBColor(p.fg[0], p.fg[1], p.fg[2]),
    }
}

/// Draws the chart on `canvas`.
fn draw(
    canvas: web_sys::HtmlCanvasElement,
    size: (u32, u32),
    m: &ChartModel,
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit_to(&canvas, size) else {
        return Ok(());
    };
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let mut chart = ChartBuilder::on(&root)
        .margin((10.0 * k) as i32)
        .x_label_area_size((34.0 * k) as i32)
        .y_label_area_size((48.0 * k) as i32)
        .build_cartesian_2d(0f64..m.x_max, 0f64..m.y_max)?;
    let log = m.log;
    let index = matches!(m.series, Series::UnusableIndex | Series::ExtfragIndex);
    let yfmt = move |v: &f64| {
        if log {
            let n = 10f64.powf(*v) - 1.0;
            if n >= 1000.0 {
                format!("{:.0}k", n / 1000.0)
            } else {
                format!("{n:.0}")
            }
        } else if index {
            format!("{v:.2}")
        } else if (v - v.round()).abs() < 1e-9 {
            // Counts: whole numbers only.
            format!("{v:.0}")
        } else {
            String::new()
        }
    };
    let seconds = m.axis == Axis::Seconds;
    let xfmt = move |v: &f64| {
        if seconds {
            format!("{v:.3}")
        } else {
            format!("{v:.0}")
        }
    };
    chart
        .configure_mesh()
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .x_desc(m.x_label.as_str())
        .max_light_lines(0)
        .bold_line_style(p.grid.stroke_width(1))
        .axis_style(p.muted.stroke_width(1))
        .label_style(font(12.0, k, p.muted))
        .axis_desc_style(font(12.0, k, p.muted))
        .draw()?;
    for l in &m.lines {
        let color = line_color(l, p.dark);
        // The total ("all") is wider, so a type's line drawn over it leaves it visible.
        let width = if l.order.is_none() && l.mt.is_none() {
            5.0
        } else {
            2.0
        };
        let style = color.stroke_width((width * k) as u32);
        // Each unbroken stretch is a path; an order's dash tells neighbours apart.
        let mut run: Vec<(f64, f64)> = Vec::new();
        let mut flush = |run: &mut Vec<(f64, f64)>| -> DrawResult {
            if run.len() == 1 {
                chart.draw_series(std::iter::once(Circle::new(
                    run[0],
                    (2.0 * k) as i32,
                    style.filled(),
                )))?;
            } else if run.len() > 1 {
                match l.order.and_then(order_dash) {
                    Some((d, g)) => {
                        chart.draw_series(std::iter::once(
                            plotters::element::DashedPathElement::new(
                                run.clone(),
                                (d * k) as u32,
                                (g * k) as u32,
                                style,
                            ),
                        ))?;
                    }
                    None => {
                        chart.draw_series(std::iter::once(PathElement::new(run.clone(), style)))?;
                    }
                }
            }
            run.clear();
            Ok(())
        };
        for &(x, y) in &l.points {
            match y {
                Some(y) => run.push((x, y)),
                None => flush(&mut run)?,
            }
        }
        flush(&mut run)?;
    }
    // The cursor.
    let c = m.cursor.clamp(0.0, m.x_max);
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(c, 0.0), (c, m.y_max)],
        p.accent.stroke_width((2.0 * k) as u32),
    )))?;
    root.present()?;
    Ok(())
}

#[component]
pub fn OverTimePanel() -> impl IntoView {
    let view = View::here();
    let canvas_ref = NodeRef::<Canvas>::new();
    let seen = onscreen::observe(canvas_ref);
    let series = RwSignal::new(Series::MixedPageblocks);
    let axis = RwSignal::new(Axis::Ops);
    let status = RwSignal::new(String::new());
    let dark = ThemeState::dark();
    let run_key = Memo::new(move |_| view.shell.run_id(view.slot).unwrap_or_default());
    // The states change only with the run: one pass over its events per run.
    let states = Memo::new(move |_| {
        // Read, not just track: a memo subscribes to its sources only once it has run.
        let _ = run_key.get();
        view.untracked(|s| over_time(&s.timeline.run, s.replay.as_ref().map(|r| &r.times)))
    });
    let done = Memo::new(move |_| view.with(|s| s.timeline.ops_done()).unwrap_or_default());
    let zone = Memo::new(move |_| {
        view.with(|s| {
            s.timeline
                .view_zone()
                .unwrap_or_else(|| s.timeline.node().active_index())
        })
        .unwrap_or_default()
    });
    let timed = Memo::new(move |_| states.with(|o| o.as_ref().is_some_and(|o| o.timed)));
    let model = Memo::new(move |_| {
        let (se, ax, d, z) = (series.get(), axis.get(), done.get(), zone.get());
        states.with(|o| {
            let o = o.as_ref()?;
            view.untracked(|s| view_model(o, se, z, ax, d, s.replay.as_ref().map(|r| &r.times)))
        })
    });
    Effect::new(move |_| {
        let (size, d) = (seen.size.get(), dark.get());
        model.track();
        let Some(c) = canvas_ref.get() else { return };
        seen.schedule(move || {
            model.with_untracked(|m| {
                if let Some(m) = m {
                    let _ = draw(c, size, m, &palette(d));
                }
            });
        });
    });
    let stem = move || {
        let id = view.shell.ui.scenario_id.get_untracked();
        view.untracked(|s| file_base(&s.timeline, &id))
            .unwrap_or_default()
    };
    let export_csv = move |_| {
        let se = series.get_untracked();
        let Some(text) = states.with_untracked(|o| o.as_ref().map(|o| o.csv(se))) else {
            return;
        };
        let f = ExportFile {
            name: format!("{}-{}.csv", stem(), se.format_name()),
            text,
        };
        download_text(&f);
        status.set(format!("Saved {} ({} bytes).", f.name, f.text.len()));
    };
    let export_png = move |_| {
        let Some(c) = canvas_ref.get_untracked() else {
            return;
        };
        let se = series.get_untracked();
        let name = format!("{}-{}.png", stem(), se.format_name());
        let n = name.clone();
        download_png(&c, name, move |b| {
            status.set(format!("Saved {n} ({b} bytes)."))
        });
    };
    let legend = move || {
        let d = dark.get();
        model.with(|m| {
            m.as_ref()
                .map(|m| {
                    m.lines
                        .iter()
                        .map(|l| {
                            let c = line_color(l, d);
                            let dash = l
                                .order
                                .and_then(order_dash)
                                .map(|(a, b)| format!("{a} {b}"))
                                .unwrap_or_else(|| "none".into());
                            view! {
                                <li>
                                    <svg class="line-sample" width="24" height="10" viewBox="0 0 24 10" aria-hidden="true">
                                        <line x1="0" y1="5" x2="24" y2="5"
                                            stroke=format!("rgb({},{},{})", c.0, c.1, c.2)
                                            stroke-width="2.5" stroke-dasharray=dash></line>
                                    </svg>
                                    {l.name.clone()}
                                </li>
                            }
                        })
                        .collect_view()
                })
        })
    };
    let on_series = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(s) = Series::ALL.iter().find(|s| s.format_name() == v) {
            series.set(*s);
        }
    };
    let on_axis = move |ev: leptos::ev::Event| {
        axis.set(if event_target_value(&ev) == "seconds" {
            Axis::Seconds
        } else {
            Axis::Ops
        });
    };
    let caption = move || {
        model.with(|m| {
            m.as_ref().map(|m| {
                format!(
                    "{} over time, zone {} (x: {})",
                    series_label(m.series),
                    m.zone,
                    m.x_label
                )
            })
        })
    };
    view! {
        <PanelFrame
            key="overtime"
            title="Over time"
            testid="overtime"
            help="One series of the run after every op (a replay: every trace event, against the trace's clock if it has timestamps), at most 2048 states evenly thinned. CSV is what buddyscope run|replay --format <series>_over_time prints."
        >
            <div class="overtime-controls">
                <label>
                    "Series "
                    <select data-testid="overtime-series" on:change=on_series>
                        {Series::ALL
                            .iter()
                            .map(|s| {
                                let sel = *s == Series::MixedPageblocks;
                                view! { <option value=s.format_name() selected=sel>{series_label(*s)}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    "x axis "
                    <select data-testid="overtime-axis" on:change=on_axis prop:disabled=move || !timed.get()>
                        <option value="ops">"ops / trace events"</option>
                        <option value="seconds">"seconds (trace clock)"</option>
                    </select>
                </label>
                <button type="button" data-testid="overtime-csv" on:click=export_csv>"Export CSV"</button>
                <button type="button" data-testid="overtime-png" on:click=export_png>"Export PNG"</button>
            </div>
            <figure class="chart overtime-chart">
                <figcaption data-testid="overtime-caption">{caption}</figcaption>
                <canvas
                    node_ref=canvas_ref
                    data-testid="overtime-canvas"
                    role="img"
                    aria-label=move || model.with(|m| m.as_ref().map(|m| m.summary.clone()).unwrap_or_default())
                ></canvas>
                <ul class="chart-legend" aria-label="Lines">{legend}</ul>
            </figure>
            <p class="muted" data-testid="overtime-summary" aria-live="polite">
                {move || model.with(|m| m.as_ref().map(|m| m.summary.clone()))}
            </p>
            <p class="muted" data-testid="overtime-status" role="status">{move || status.get()}</p>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    fn states(id: &str) -> OverTime {
        let t = timeline(id);
        over_time(&t.run, None)
    }

    /// fallback-steal on the ops axis: the mixed-pageblock line is 0 up to op 34 and 1 (the
    /// Movable pageblock 15) from the first Unmovable allocation on; the steals line is 30 per
    /// op at op 35 and 0 elsewhere; the cursor is the ops done.
    #[test]
    fn mixed_pageblocks_and_fallbacks_of_fallback_steal() {
        let o = states("fallback-steal");
        let m = view_model(&o, Series::MixedPageblocks, 0, Axis::Seconds, 36, None);
        assert_eq!(m.axis, Axis::Ops, "a scenario has no clock");
        assert_eq!(m.x_label, "ops done");
        assert_eq!(m.cursor, 36.0);
        let names: Vec<&str> = m.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["all", "Movable"]);
        for l in &m.lines {
            for &(x, y) in &l.points {
                assert_eq!(
                    y,
                    Some(if x >= 35.0 { 1.0 } else { 0.0 }),
                    "{} at {x}",
                    l.name
                );
            }
        }
        assert_eq!(m.summary, "After 36 ops: 1 mixed (1 Movable)");
        let f = view_model(&o, Series::Fallbacks, 0, Axis::Ops, 0, None);
        assert_eq!(f.lines[1].name, "steals per op");
        for &(x, y) in &f.lines[1].points {
            assert_eq!(y, Some(if x == 35.0 { 30.0 } else { 0.0 }), "at {x}");
        }
        assert!(f.lines[0].points.iter().all(|p| p.1 == Some(0.0)));
        assert_eq!(f.summary, "After 0 ops: 0 claims and 0 steals so far");
    }

    /// The extfrag index breaks its line where a block of the order is free (the kernel's
    /// -1.000) and is the engine's value elsewhere: after the drain (34 ops), orders 0–6 have
    /// none and order 7 reads 0.438.
    #[test]
    fn the_extfrag_index_line_has_gaps_where_a_block_is_free() {
        let o = states("fallback-steal");
        let m = view_model(&o, Series::ExtfragIndex, 0, Axis::Ops, 34, None);
        assert_eq!(m.lines.len(), NR_PAGE_ORDERS);
        let at = |order: usize| {
            m.lines[order]
                .points
                .iter()
                .find(|p| p.0 == 34.0)
                .unwrap()
                .1
        };
        for order in 0..=6 {
            assert_eq!(at(order), None, "order {order}");
        }
        assert_eq!(at(7), Some(0.438));
        assert!(
            m.summary.starts_with("After 34 ops: 0: -1.000,"),
            "{}",
            m.summary
        );
        assert!(m
            .summary
            .ends_with("7: 0.438, 8: 0.688, 9: 0.813, 10: 0.875"));
        let fp = view_model(&o, Series::FreePages, 0, Axis::Ops, 34, None);
        assert!(fp.log);
        let p = fp.lines[6]
            .points
            .iter()
            .find(|p| p.0 == 34.0)
            .unwrap()
            .1
            .unwrap();
        assert!((p - 1025f64.log10()).abs() < 1e-12);
    }

    /// A replay of a trace with timestamps: x in seconds from the first event, the fallbacks
    /// per second, the cursor at the clock of the state after the ops done.
    #[test]
    fn a_timed_replay_is_charted_against_the_trace_clock() {
        use buddyscope::run::replay::{replay_text, ReplayOptions};
        let b = buddyscope::scenario::builtin::get("fallback-steal").unwrap();
        let s = buddyscope::scenario::parse(b.json()).unwrap();
        let t = timeline("fallback-steal");
        let mut trace = String::new();
        // The engine's trace has no timestamps: give each line one, 1 ms apart.
        for (i, l) in buddyscope::trace_text(&t.run).lines().enumerate() {
            if l.starts_with('#') || l.is_empty() {
                continue;
            }
            trace.push_str(&format!(
                "  t-1 [000] ..... {}.{:06}: {l}\n",
                100 + i / 1000,
                (i % 1000) * 1000
            ));
        }
        let r = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
        let o = over_time(&r.run, Some(&r.times));
        assert!(o.timed && o.replay);
        let m = view_model(&o, Series::Fallbacks, 0, Axis::Seconds, 3, Some(&r.times));
        assert_eq!(m.axis, Axis::Seconds);
        assert_eq!(m.lines[1].name, "steals per second");
        assert_eq!(m.lines[0].points[0].0, 0.0);
        let t0 = r.times.at_state(0).unwrap();
        let t3 = r.times.at_state(3).unwrap();
        assert_eq!(m.cursor, (t3 - t0) as f64 / 1e9);
        // 30 steals in all, each a 1 ms interval somewhere: the rates integrate to 30.
        let total: f64 = m.lines[1]
            .points
            .windows(2)
            .map(|w| w[1].1.unwrap_or(0.0) * (w[1].0 - w[0].0))
            .sum();
        assert!((total - 30.0).abs() < 1e-6, "{total}");
    }
}
