//! Charts drawn with plotters on `<canvas>` elements: free pages per order over the ops, the
//! fragmentation indices at the cursor, and the cost of each top-level op (before/after).
//!
//! Chart data changes once per op: the charts show the state after the ops completed at the
//! cursor ([`Timeline::ops_done`](buddyscope::timeline::Timeline::ops_done)) and redraw only when that number, the run, the theme or the
//! size changes — never once per event.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use buddyscope::metrics::{fragmentation_index_of, unusable_free_index_of};
use buddyscope::runner::Run;
use buddyscope::zone::Stats;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::AppState;

const ORDERS: usize = 11;
/// At most this many groups in the cost chart.
const MAX_GROUPS: usize = 12;
/// At most this many points per line in the free-pages chart.
const MAX_POINTS: usize = 1200;

/// Colours read from the page's CSS custom properties (so the charts follow the theme).
#[derive(Clone, Copy)]
struct Palette {
    bg: RGBColor,
    fg: RGBColor,
    muted: RGBColor,
    grid: RGBColor,
    accent: RGBColor,
    dark: bool,
    series: [RGBColor; 4],
}

fn parse_hex(s: &str) -> Option<RGBColor> {
    let h = s.trim().strip_prefix('#')?;
    let v = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    match h.len() {
        6 => Some(RGBColor(v(0)?, v(2)?, v(4)?)),
        3 => {
            let c = |i: usize| u8::from_str_radix(&h[i..i + 1], 16).ok().map(|x| x * 17);
            Some(RGBColor(c(0)?, c(1)?, c(2)?))
        }
        _ => None,
    }
}

fn palette() -> Palette {
    let get = |style: &Option<web_sys::CssStyleDeclaration>, name: &str, fallback: RGBColor| {
        style
            .as_ref()
            .and_then(|s| s.get_property_value(name).ok())
            .and_then(|v| parse_hex(&v))
            .unwrap_or(fallback)
    };
    let style = web_sys::window().and_then(|w| {
        let el = w.document()?.document_element()?;
        w.get_computed_style(&el).ok().flatten()
    });
    let bg = get(&style, "--surface", RGBColor(255, 255, 255));
    let dark = (bg.0 as u32 + bg.1 as u32 + bg.2 as u32) < 384;
    Palette {
        bg,
        fg: get(&style, "--fg", RGBColor(27, 30, 36)),
        muted: get(&style, "--fg-muted", RGBColor(85, 93, 107)),
        grid: get(&style, "--border", RGBColor(212, 217, 226)),
        accent: get(&style, "--accent", RGBColor(36, 86, 184)),
        dark,
        series: [
            get(&style, "--mt-unmovable", RGBColor(194, 65, 12)),
            get(&style, "--mt-movable", RGBColor(29, 111, 214)),
            get(&style, "--mt-reclaimable", RGBColor(21, 128, 61)),
            get(&style, "--mt-highatomic", RGBColor(147, 51, 234)),
        ],
    }
}

/// Colour of an order: purple (order 0) through blue, green, yellow to red (order 10).
pub fn order_css(order: usize, dark: bool) -> String {
    let hue = 270.0 - order as f64 * 27.0;
    let light = if dark { 62.0 } else { 44.0 };
    format!("hsl({hue:.0}, 75%, {light:.0}%)")
}

fn order_color(order: usize, dark: bool) -> HSLColor {
    let hue = (270.0 - order as f64 * 27.0) / 360.0;
    HSLColor(hue, 0.75, if dark { 0.62 } else { 0.44 })
}

/// `log10(1 + v)`: free-page counts and costs span five orders of magnitude.
fn log1p10(v: u64) -> f64 {
    (1.0 + v as f64).log10()
}

/// Axis labels for a log10 axis: 1, 10, 100, 1k, 10k, ...
fn pow10_label(v: f64) -> String {
    if (v - v.round()).abs() > 1e-6 || v < 0.0 {
        return String::new();
    }
    match v.round() as u32 {
        0 => "0".into(),
        1 => "10".into(),
        2 => "100".into(),
        3 => "1k".into(),
        4 => "10k".into(),
        5 => "100k".into(),
        6 => "1M".into(),
        n => format!("1e{n}"),
    }
}

/// One bar group of the cost chart: the ops under one top-level op definition `ops[N]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CostGroup {
    pub path: String,
    pub label: String,
    pub note: Option<String>,
    pub cost: Stats,
    /// Index of the last op record in this group.
    pub last_op: usize,
}

/// The metrics the cost chart compares (per-page vs chunked shows in these four).
pub const COST_METRICS: [&str; 4] = ["zone_lock", "pcp_ops", "freelist_ops", "pages_prepared"];

fn cost_values(s: &Stats) -> [u64; 4] {
    COST_METRICS.map(|m| s.get(m).expect("a counter of Stats::DEFS"))
}

/// `ops[3].ops[0]` → `ops[3]`.
fn top_path(path: &str) -> &str {
    match path.find(']') {
        Some(i) => &path[..=i],
        None => path,
    }
}

/// Sums the op costs per top-level op (`ops[N]`), in order of first execution.
pub fn cost_groups(run: &Run) -> (Vec<CostGroup>, usize) {
    let mut groups: Vec<CostGroup> = Vec::new();
    for (i, rec) in run.ops.iter().enumerate() {
        let def = &run.op_defs[rec.def as usize];
        let top = top_path(&def.path);
        let at = match groups.iter().position(|g| g.path == top) {
            Some(at) => at,
            None => {
                let top_def = run.op_defs.iter().find(|d| d.path == top).unwrap_or(def);
                groups.push(CostGroup {
                    path: top.to_string(),
                    label: top_def.summary.clone(),
                    note: top_def.note.clone(),
                    cost: Stats::default(),
                    last_op: i,
                });
                groups.len() - 1
            }
        };
        groups[at].cost += rec.cost;
        groups[at].last_op = i;
    }
    let total = groups.len();
    groups.truncate(MAX_GROUPS);
    (groups, total)
}

/// Canvas size in device pixels (set from the CSS size); `None` while hidden.
fn fit(canvas: &web_sys::HtmlCanvasElement) -> Option<(u32, u32, f64)> {
    let w = canvas.client_width();
    let h = canvas.client_height();
    if w <= 0 || h <= 0 {
        return None;
    }
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .clamp(1.0, 3.0);
    let (pw, ph) = ((w as f64 * dpr) as u32, (h as f64 * dpr) as u32);
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    Some((pw, ph, dpr))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn font(px: f64, k: f64, color: RGBColor) -> TextStyle<'static> {
    ("sans-serif", px * k).into_font().color(&color)
}

fn draw_free_pages(
    canvas: web_sys::HtmlCanvasElement,
    run: &Run,
    done: usize,
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit(&canvas) else {
        return Ok(());
    };
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let n = run.ops.len();
    // State i = after i ops (0 = the initial state).
    let state = |i: usize| -> &[u64; ORDERS] {
        if i == 0 {
            run.initial.nr_free()
        } else {
            &run.ops[i - 1].nr_free_after
        }
    };
    let stride = n.div_ceil(MAX_POINTS).max(1);
    let mut xs: Vec<usize> = (0..=n).step_by(stride).collect();
    if xs.last() != Some(&n) {
        xs.push(n);
    }
    let ymax = (0..=n)
        .step_by(stride)
        .chain(std::iter::once(n))
        .flat_map(|i| state(i).iter().enumerate().map(|(o, &c)| c << o))
        .max()
        .unwrap_or(1);
    let ytop = log1p10(ymax).ceil().max(1.0);
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * k) as i32)
        .margin_right((18.0 * k) as i32)
        .x_label_area_size((26.0 * k) as i32)
        .y_label_area_size((40.0 * k) as i32)
        .build_cartesian_2d(0f64..(n.max(1)) as f64, 0f64..ytop)?;
    let yfmt = |v: &f64| pow10_label(*v);
    let xfmt = |v: &f64| format!("{v:.0}");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_labels(ytop as usize + 1)
        .x_labels(6)
        .y_label_formatter(&yfmt)
        .x_label_formatter(&xfmt)
        .max_light_lines(0)
        .bold_line_style(p.grid.stroke_width(1))
        .axis_style(p.muted.stroke_width(1))
        .label_style(font(12.0, k, p.muted))
        .draw()?;
    for o in 0..ORDERS {
        let pts: Vec<(f64, f64)> = xs
            .iter()
            .map(|&i| (i as f64, log1p10(state(i)[o] << o)))
            .collect();
        let w = if o == ORDERS - 1 || o == 0 { 2.5 } else { 1.8 };
        chart.draw_series(std::iter::once(PathElement::new(
            pts,
            order_color(o, p.dark).stroke_width((w * k).round().max(1.0) as u32),
        )))?;
    }
    // The cursor.
    let x = done as f64;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x, 0.0), (x, ytop)],
        p.fg.stroke_width((2.0 * k) as u32),
    )))?;
    let top = chart.backend_coord(&(x, ytop));
    let anchor = if done * 2 > n {
        Pos::new(HPos::Right, VPos::Top)
    } else {
        Pos::new(HPos::Left, VPos::Top)
    };
    let dx = if done * 2 > n { -4.0 * k } else { 4.0 * k };
    root.draw(&Text::new(
        format!("after {done} op{}", if done == 1 { "" } else { "s" }),
        (top.0 + dx as i32, top.1 + (2.0 * k) as i32),
        font(12.0, k, p.fg).pos(anchor),
    ))?;
    root.present()?;
    Ok(())
}

fn draw_fragmentation(
    canvas: web_sys::HtmlCanvasElement,
    nr_free: &[u64; ORDERS],
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit(&canvas) else {
        return Ok(());
    };
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * k) as i32)
        .x_label_area_size((26.0 * k) as i32)
        .y_label_area_size((40.0 * k) as i32)
        .build_cartesian_2d(-0.5f64..(ORDERS as f64 - 0.5), 0f64..1.0)?;
    let xfmt = |v: &f64| {
        if (v - v.round()).abs() < 1e-6 && *v >= 0.0 {
            format!("{v:.0}")
        } else {
            String::new()
        }
    };
    let yfmt = |v: &f64| format!("{v:.1}");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(ORDERS)
        .y_labels(6)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .max_light_lines(0)
        .bold_line_style(p.grid.stroke_width(1))
        .axis_style(p.muted.stroke_width(1))
        .label_style(font(12.0, k, p.muted))
        .draw()?;
    for o in 0..ORDERS {
        let x = o as f64;
        let unusable = unusable_free_index_of(nr_free, o as u8) as f64 / 1000.0;
        let frag = fragmentation_index_of(nr_free, o as u8);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.38, 0.0), (x - 0.02, unusable)],
            p.series[1].filled(),
        )))?;
        if frag >= 0 {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x + 0.02, 0.0), (x + 0.38, frag as f64 / 1000.0)],
                p.series[0].filled(),
            )))?;
        } else {
            // A free block of this order exists: the request would not fail.
            let c = chart.backend_coord(&(x + 0.2, 0.0));
            root.draw(&Text::new(
                "✓",
                (c.0, c.1 - (3.0 * k) as i32),
                font(12.0, k, p.series[2]).pos(Pos::new(HPos::Center, VPos::Bottom)),
            ))?;
        }
    }
    root.present()?;
    Ok(())
}

fn draw_cost(
    canvas: web_sys::HtmlCanvasElement,
    groups: &[CostGroup],
    done: usize,
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit(&canvas) else {
        return Ok(());
    };
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let g = groups.len().max(1);
    let ymax = groups
        .iter()
        .flat_map(|g| cost_values(&g.cost))
        .max()
        .unwrap_or(1);
    let ytop = log1p10(ymax).ceil().max(1.0);
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * k) as i32)
        .margin_top((16.0 * k) as i32)
        .x_label_area_size((22.0 * k) as i32)
        .y_label_area_size((40.0 * k) as i32)
        .build_cartesian_2d(-0.5f64..(g as f64 - 0.5), 0f64..ytop)?;
    let yfmt = |v: &f64| pow10_label(*v);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(ytop as usize + 1)
        .y_label_formatter(&yfmt)
        .max_light_lines(0)
        .bold_line_style(p.grid.stroke_width(1))
        .axis_style(p.muted.stroke_width(1))
        .label_style(font(12.0, k, p.muted))
        .draw()?;
    let bw = 0.8 / COST_METRICS.len() as f64;
    for (gi, grp) in groups.iter().enumerate() {
        let x0 = gi as f64 - 0.4;
        let running = done <= grp.last_op && (gi == 0 || done > groups[gi - 1].last_op);
        for (mi, v) in cost_values(&grp.cost).into_iter().enumerate() {
            let l = x0 + mi as f64 * bw;
            let h = log1p10(v);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(l + 0.01, 0.0), (l + bw - 0.01, h)],
                p.series[mi].filled(),
            )))?;
            if g <= 6 {
                let c = chart.backend_coord(&(l + bw / 2.0, h));
                root.draw(&Text::new(
                    compact(v),
                    (c.0, c.1 - (2.0 * k) as i32),
                    font(10.0, k, p.fg).pos(Pos::new(HPos::Center, VPos::Bottom)),
                ))?;
            }
        }
        let c = chart.backend_coord(&(gi as f64, 0.0));
        let color = if running { p.accent } else { p.fg };
        root.draw(&Text::new(
            grp.path.clone(),
            (c.0, c.1 + (5.0 * k) as i32),
            font(12.0, k, color).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    root.present()?;
    Ok(())
}

/// 16450 → `16k`, 8192 → `8.2k`.
fn compact(v: u64) -> String {
    match v {
        0..=999 => v.to_string(),
        1000..=9_999 => format!("{:.1}k", v as f64 / 1000.0),
        10_000..=999_999 => format!("{}k", v / 1000),
        _ => format!("{:.1}M", v as f64 / 1e6),
    }
}

fn text_hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// A counter bumped when `<html data-theme>` or the system colour scheme changes.
fn theme_tick() -> ReadSignal<u32> {
    let (tick, set_tick) = signal(0u32);
    let bump = move || set_tick.update(|t| *t = t.wrapping_add(1));
    if let Some(w) = web_sys::window() {
        let cb = Closure::<dyn FnMut()>::new(bump);
        if let (Some(el), Ok(obs)) = (
            w.document().and_then(|d| d.document_element()),
            web_sys::MutationObserver::new(cb.as_ref().unchecked_ref()),
        ) {
            let opts = web_sys::MutationObserverInit::new();
            opts.set_attributes(true);
            opts.set_attribute_filter(&js_sys::Array::of1(&"data-theme".into()));
            let _ = obs.observe_with_options(&el, &opts);
        }
        cb.forget();
        if let Ok(Some(mq)) = w.match_media("(prefers-color-scheme: dark)") {
            let cb = Closure::<dyn FnMut()>::new(bump);
            let _ = mq.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
            cb.forget();
        }
    }
    tick
}

#[component]
pub fn ChartsPanel() -> impl IntoView {
    let state = AppState::get();
    let free_ref = NodeRef::<Canvas>::new();
    let frag_ref = NodeRef::<Canvas>::new();
    let cost_ref = NodeRef::<Canvas>::new();
    // Changes once per op (or run), not per event.
    let key = Memo::new(move |_| {
        state.with(|s| {
            (
                text_hash(&s.text),
                s.timeline.run.ops.len(),
                s.timeline.ops_done(),
            )
        })
    });
    let groups = Memo::new(move |_| {
        key.track();
        state
            .with_untracked(|s| cost_groups(&s.timeline.run))
            .unwrap_or_default()
    });
    let theme = theme_tick();
    let (size, set_size) = signal(0u32);
    let resize = window_event_listener(leptos::ev::resize, move |_| set_size.update(|s| *s += 1));
    on_cleanup(move || resize.remove());

    Effect::new(move |_| {
        let Some((_, _, done)) = key.get() else {
            return;
        };
        theme.track();
        size.track();
        let (grps, _) = groups.get();
        let p = palette();
        state.with_untracked(|s| {
            let run = &s.timeline.run;
            let nr_free = if done == 0 {
                *run.initial.nr_free()
            } else {
                run.ops[done - 1].nr_free_after
            };
            if let Some(c) = free_ref.get() {
                let _ = draw_free_pages(c, run, done, &p);
            }
            if let Some(c) = frag_ref.get() {
                let _ = draw_fragmentation(c, &nr_free, &p);
            }
            if let Some(c) = cost_ref.get() {
                let _ = draw_cost(c, &grps, done, &p);
            }
        });
    });

    let dark = Memo::new(move |_| {
        theme.track();
        palette().dark
    });
    let legend_orders = move || {
        let d = dark.get();
        (0..ORDERS)
            .map(|o| {
                view! {
                    <li>
                        <span class="bs-swatch" style=format!("background:{}", order_css(o, d))></span>
                        {o.to_string()}
                    </li>
                }
            })
            .collect_view()
    };

    view! {
        <section class="bs-panel bs-charts" data-testid="charts" aria-labelledby="bs-charts-h">
            <h2 id="bs-charts-h">"Charts"</h2>
            <div class="bs-chart-grid">
            <figure class="bs-chart">
                <figcaption>"Free pages per order (log scale) over the ops done"</figcaption>
                <canvas
                    node_ref=free_ref
                    data-testid="chart-free-pages"
                    role="img"
                    aria-label="Line chart: free pages in the buddy per order after each op, with a line at the cursor"
                ></canvas>
                <ol class="bs-chart-legend" aria-label="Orders">
                    <li class="bs-muted">"order"</li>
                    {legend_orders}
                </ol>
            </figure>
            <figure class="bs-chart">
                <figcaption>"Fragmentation by order, after the ops done"</figcaption>
                <canvas
                    node_ref=frag_ref
                    data-testid="chart-fragmentation"
                    role="img"
                    aria-label="Bar chart: unusable free index and fragmentation index per order"
                ></canvas>
                <ul class="bs-chart-legend">
                    <li title="Share of free memory in blocks too small for this order: 0 = all of it is usable, 1 = none of it">
                        <span class="bs-swatch bs-s1"></span>"unusable free index"
                    </li>
                    <li title="Only when no block of this order is free: does the request fail for lack of memory (near 0) or because free memory is fragmented (near 1)?">
                        <span class="bs-swatch bs-s0"></span>"fragmentation index"
                    </li>
                    <li title="A free block of this order exists: the request would succeed">"✓ a block is free"</li>
                </ul>
            </figure>
            <figure class="bs-chart">
                <figcaption>"Cost of each top-level op (log scale)"</figcaption>
                <canvas
                    node_ref=cost_ref
                    data-testid="chart-cost"
                    role="img"
                    aria-label="Bar chart: zone lock, pcp list, free list operations and pages prepared per top-level op"
                ></canvas>
                <ul class="bs-chart-legend">
                    {COST_METRICS
                        .iter()
                        .enumerate()
                        .map(|(i, m)| view! {
                            <li title=super::counters::explain(m)>
                                <span class=format!("bs-swatch bs-s{i}")></span>
                                {*m}
                            </li>
                        })
                        .collect_view()}
                </ul>
                <ol class="bs-cost-groups" data-testid="chart-cost-groups">
                    {move || {
                        let (grps, total) = groups.get();
                        let more = (total > grps.len())
                            .then(|| view! { <li class="bs-muted">{format!("… and {} more", total - grps.len())}</li> });
                        let items = grps
                            .into_iter()
                            .map(|g| {
                                view! {
                                    <li>
                                        <code>{g.path}</code>" "{g.label}
                                        {g.note.map(|n| view! { <span class="bs-muted">" — "{n}</span> })}
                                    </li>
                                }
                            })
                            .collect_view();
                        view! { {items}{more} }
                    }}
                </ol>
            </figure>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Session;

    #[test]
    fn cost_groups_split_the_seed_into_per_page_drain_and_chunked() {
        let s = Session::load(buddyscope::builtin::default().json).unwrap();
        let (groups, total) = cost_groups(&s.timeline.run);
        assert_eq!(total, 3);
        let paths: Vec<&str> = groups.iter().map(|g| g.path.as_str()).collect();
        assert_eq!(paths, ["ops[0]", "ops[1]", "ops[2]"]);
        // Per page puts every page on the pcp list; chunked one chunk per iteration.
        assert!(groups[0].cost.pcp_ops > 100 * groups[2].cost.pcp_ops);
        assert_eq!(groups[0].cost.pages_prepared, groups[2].cost.pages_prepared);
        let sum: u64 = groups.iter().map(|g| g.cost.pcp_ops).sum();
        assert_eq!(sum, s.timeline.run.final_zone.stats().pcp_ops);
        assert_eq!(groups[2].last_op, s.timeline.run.ops.len() - 1);
    }

    #[test]
    fn helpers() {
        assert_eq!(top_path("ops[3].ops[0]"), "ops[3]");
        assert_eq!(pow10_label(3.0), "1k");
        assert_eq!(pow10_label(2.5), "");
        assert_eq!(compact(16450), "16k");
        assert_eq!(compact(8192), "8.2k");
        assert_eq!(parse_hex("#1d6fd6"), Some(RGBColor(0x1d, 0x6f, 0xd6)));
        assert_eq!(parse_hex(" #fff"), Some(RGBColor(255, 255, 255)));
        assert_eq!(parse_hex("rgb(1,2,3)"), None);
    }
}
