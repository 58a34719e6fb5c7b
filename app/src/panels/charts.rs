//! Charts drawn with plotters on `<canvas>` elements: free pages per order over the ops, the
//! fragmentation indices at the cursor, and the cost of each top-level op (before/after).
//!
//! Chart data changes once per op: the charts show the state after the ops completed at the
//! cursor ([`Timeline::ops_done`]) and redraw only when that number, the run, the theme or the size
//! changes — never once per event. What they show is [`view_model`]; the drawing code only
//! scales it to pixels.

use buddyscope::mm::Stats;
use buddyscope::mm::NR_PAGE_ORDERS;
use buddyscope::mm::{fragmentation_index_of, unusable_free_index_of};
use buddyscope::run::Run;
use buddyscope::run::Timeline;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;

use super::frame::PanelFrame;
use super::onscreen;
use crate::model::RunId;
use crate::shell::View;
use crate::theme::{self, ThemeState};

const ORDERS: usize = NR_PAGE_ORDERS;
/// At most this many groups in the cost chart.
const MAX_GROUPS: usize = 12;
/// At most this many points per line in the free-pages chart.
const MAX_POINTS: usize = 1200;

/// The chart colours: the theme's palette as plotters colours.
#[derive(Clone, Copy)]
pub(crate) struct Palette {
    pub(crate) bg: RGBColor,
    pub(crate) fg: RGBColor,
    pub(crate) muted: RGBColor,
    pub(crate) grid: RGBColor,
    pub(crate) accent: RGBColor,
    pub(crate) dark: bool,
    /// The first four migratetype colours: one per bar series.
    pub(crate) series: [RGBColor; 4],
}

fn rgb(c: theme::Rgba) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

pub(crate) fn palette(dark: bool) -> Palette {
    let p = theme::palette(dark);
    Palette {
        bg: rgb(p.bg),
        fg: rgb(p.fg),
        muted: rgb(p.fg_muted),
        grid: rgb(p.border),
        accent: rgb(p.accent),
        dark,
        series: std::array::from_fn(|i| rgb(p.mt[i])),
    }
}

/// Colour of an order in the legend (CSS).
fn order_css(order: usize, dark: bool) -> String {
    let (h, s, l) = theme::order_hsl(order, dark);
    format!("hsl({h:.0}, {:.0}%, {:.0}%)", s * 100.0, l * 100.0)
}

/// The line pattern of an order, `(dash, gap)` in CSS pixels (`None`: solid). Neighbouring
/// orders differ in pattern as well as colour, and every line ends in its order number, so
/// colour is never the only way to tell the lines apart.
pub(crate) fn order_dash(order: usize) -> Option<(f64, f64)> {
    match order % 3 {
        0 => None,
        1 => Some((7.0, 4.0)),
        _ => Some((2.0, 3.0)),
    }
}

/// The legend's sample of an order's line: an SVG `stroke-dasharray`.
fn order_dasharray(order: usize) -> String {
    order_dash(order)
        .map(|(d, g)| format!("{d} {g}"))
        .unwrap_or_else(|| "none".into())
}

fn order_color(order: usize, dark: bool) -> HSLColor {
    let (h, s, l) = theme::order_hsl(order, dark);
    HSLColor(h / 360.0, s, l)
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

/// The tooltip of a cost metric: the engine's explanation of the counter.
fn help(metric: &str) -> &'static str {
    Stats::def(metric).map(|d| d.help).unwrap_or_default()
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

/// `nr_free` after `i` ops (0: the initial state).
pub fn nr_free_after(run: &Run, i: usize) -> &[u64; ORDERS] {
    if i == 0 {
        run.initial.active().nr_free()
    } else {
        &run.ops[i - 1].nr_free_after
    }
}

/// `nr_free` of zone `zone` of the node after `i` ops: the zone tab picked
/// ([`Timeline::view_zone`]); `None`, or a node of one zone, is the zone the engine is in
/// between ops (the highest), as [`nr_free_after`].
pub fn nr_free_after_in(run: &Run, i: usize, zone: Option<usize>) -> &[u64; ORDERS] {
    match zone {
        Some(z) if z < run.initial.nr_zones() => {
            if i == 0 {
                run.initial.zone(z).nr_free()
            } else {
                run.ops[i - 1]
                    .nr_free_after_zones
                    .get(z)
                    .unwrap_or(&run.ops[i - 1].nr_free_after)
            }
        }
        _ => nr_free_after(run, i),
    }
}

/// The zone the charts show on a node of several zones (the picked tab, else the highest),
/// by name; `None` on a node of one zone.
pub fn chart_zone_name(t: &Timeline) -> Option<String> {
    let node = &t.run.initial;
    node.several_zones().then(|| {
        let z = t
            .view_zone()
            .filter(|&z| z < node.nr_zones())
            .unwrap_or(node.nr_zones() - 1);
        node.zone(z).cfg().name.clone()
    })
}

/// What the three charts show at the cursor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartsModel {
    /// Ops completed: the free-pages chart's cursor line.
    pub done: usize,
    /// `nr_free` after those ops (the fragmentation chart's input).
    pub nr_free: [u64; ORDERS],
    /// Per order: the unusable free index (0..=1), and the fragmentation index (0..=1) or
    /// `None` when a block of that order is free (the request would succeed).
    pub fragmentation: [(f64, Option<f64>); ORDERS],
    /// The cost chart's groups (at most [`MAX_GROUPS`]) and how many there are in all.
    pub groups: Vec<CostGroup>,
    pub total_groups: usize,
}

pub fn view_model(t: &Timeline) -> ChartsModel {
    let run = &t.run;
    let done = t.ops_done();
    let nr_free = *nr_free_after_in(run, done, t.view_zone());
    let (groups, total_groups) = cost_groups(run);
    ChartsModel {
        done,
        nr_free,
        fragmentation: std::array::from_fn(|o| {
            let frag = fragmentation_index_of(&nr_free, o as u8);
            (
                unusable_free_index_of(&nr_free, o as u8) as f64 / 1000.0,
                (frag >= 0).then(|| frag as f64 / 1000.0),
            )
        }),
        groups,
        total_groups,
    }
}

/// Canvas size in device pixels (set from the CSS size); `None` while hidden.
pub(crate) fn fit(canvas: &web_sys::HtmlCanvasElement) -> Option<(u32, u32, f64)> {
    let w = canvas.client_width().max(0) as u32;
    let h = canvas.client_height().max(0) as u32;
    fit_to(canvas, (w, h))
}

/// Like [`fit`], from a CSS size measured by an observer ([`super::onscreen`]) instead of
/// `clientWidth`/`clientHeight`, which would force a layout in the middle of a frame.
pub(crate) fn fit_to(
    canvas: &web_sys::HtmlCanvasElement,
    (w, h): (u32, u32),
) -> Option<(u32, u32, f64)> {
    if w == 0 || h == 0 {
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

pub(crate) type DrawResult = Result<(), Box<dyn std::error::Error>>;

pub(crate) fn font(px: f64, k: f64, color: RGBColor) -> TextStyle<'static> {
    ("sans-serif", px * k).into_font().color(&color)
}

/// Where the free-pages chart's axes are on its canvas (device pixels): what the cursor, drawn
/// per op over the cached lines, needs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FreeAxes {
    /// Backend x of op 0 and of op `n` (the range's end), and y of the top and the bottom.
    x0: f64,
    x1: f64,
    top: f64,
    bottom: f64,
    /// The range's end: `max(n, 1)` ops.
    span: f64,
}

impl FreeAxes {
    fn x(&self, done: usize) -> f64 {
        self.x0 + (self.x1 - self.x0) * done as f64 / self.span
    }
}

/// The free-pages chart without its cursor (axes, the eleven lines and their labels): it changes
/// only with the run, the theme and the size, so it is drawn once into an offscreen canvas and
/// each op only copies it and draws the cursor ([`draw_free_cursor`]).
fn draw_free_layer(
    canvas: web_sys::HtmlCanvasElement,
    run: &Run,
    zone: Option<usize>,
    p: &Palette,
    k: f64,
) -> Result<FreeAxes, Box<dyn std::error::Error>> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&p.bg)?;
    let n = run.ops.len();
    // State i = after i ops (0 = the initial state).
    let state = |i: usize| nr_free_after_in(run, i, zone);
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
    let span = n.max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * k) as i32)
        .margin_right((26.0 * k) as i32)
        .x_label_area_size((26.0 * k) as i32)
        .y_label_area_size((40.0 * k) as i32)
        .build_cartesian_2d(0f64..span, 0f64..ytop)?;
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
    // Where each line ends: its order number goes there.
    let mut ends: Vec<(usize, (i32, i32))> = Vec::with_capacity(ORDERS);
    for o in 0..ORDERS {
        let pts: Vec<(f64, f64)> = xs
            .iter()
            .map(|&i| (i as f64, log1p10(state(i)[o] << o)))
            .collect();
        let w = if o == ORDERS - 1 || o == 0 { 2.5 } else { 1.8 };
        let style = order_color(o, p.dark).stroke_width((w * k).round().max(1.0) as u32);
        if let Some(&last) = pts.last() {
            ends.push((o, chart.backend_coord(&last)));
        }
        match order_dash(o) {
            None => {
                chart.draw_series(std::iter::once(PathElement::new(pts, style)))?;
            }
            Some((dash, gap)) => {
                chart.draw_series(std::iter::once(DashedPathElement::new(
                    pts,
                    (dash * k).round().max(1.0) as i32,
                    (gap * k).round().max(1.0) as i32,
                    style,
                )))?;
            }
        }
    }
    // Labels at the right end, pushed apart where lines end close together.
    ends.sort_by_key(|&(_, (_, y))| y);
    let gap = (11.0 * k) as i32;
    let mut last_y = i32::MIN / 2;
    for (o, (x, y)) in ends {
        let y = y.max(last_y + gap);
        last_y = y;
        root.draw(&Text::new(
            o.to_string(),
            (x + (3.0 * k) as i32, y),
            font(10.0, k, p.fg).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    root.present()?;
    let (x0, bottom) = chart.backend_coord(&(0.0, 0.0));
    let (x1, top) = chart.backend_coord(&(span, ytop));
    Ok(FreeAxes {
        x0: x0 as f64,
        x1: x1 as f64,
        top: top as f64,
        bottom: bottom as f64,
        span,
    })
}

fn css_rgb(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// The cached lines and the cursor at `done` ops: a copy and a few strokes.
fn draw_free_cursor(
    canvas: &web_sys::HtmlCanvasElement,
    layer: &web_sys::HtmlCanvasElement,
    axes: &FreeAxes,
    n: usize,
    done: usize,
    p: &Palette,
    k: f64,
) -> DrawResult {
    use wasm_bindgen::JsCast;
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        .ok_or("no 2d context")?;
    ctx.draw_image_with_html_canvas_element(layer, 0.0, 0.0)
        .map_err(|_| "drawImage failed")?;
    let x = axes.x(done).round();
    let fg = css_rgb(p.fg);
    ctx.set_stroke_style_str(&fg);
    ctx.set_line_width((2.0 * k).floor().max(1.0));
    ctx.begin_path();
    ctx.move_to(x, axes.top);
    ctx.line_to(x, axes.bottom);
    ctx.stroke();
    let right = done * 2 > n;
    let dx = if right { -4.0 * k } else { 4.0 * k };
    ctx.set_fill_style_str(&fg);
    ctx.set_font(&format!("{}px sans-serif", 12.0 * k));
    ctx.set_text_align(if right { "end" } else { "start" });
    ctx.set_text_baseline("top");
    ctx.fill_text(
        &format!("after {done} op{}", if done == 1 { "" } else { "s" }),
        x + dx.trunc(),
        axes.top + (2.0 * k).trunc(),
    )
    .map_err(|_| "fillText failed")?;
    Ok(())
}

/// The free-pages chart's offscreen layer and what it was drawn for.
struct FreeLayer {
    /// Run identity, zone shown, theme, device-pixel size.
    key: (RunId, Option<usize>, bool, u32, u32),
    canvas: web_sys::HtmlCanvasElement,
    axes: FreeAxes,
}

/// Draws the free-pages chart at `done` ops, redrawing the cached layer only when its key
/// changed.
#[allow(clippy::too_many_arguments)]
fn draw_free_pages(
    canvas: &web_sys::HtmlCanvasElement,
    size: (u32, u32),
    run: &Run,
    run_key: RunId,
    zone: Option<usize>,
    done: usize,
    p: &Palette,
    cache: &mut Option<FreeLayer>,
) -> DrawResult {
    let Some((pw, ph, k)) = fit_to(canvas, size) else {
        return Ok(());
    };
    let key = (run_key, zone, p.dark, pw, ph);
    if cache.as_ref().is_none_or(|c| c.key != key) {
        let layer = match cache.take() {
            Some(c) => c.canvas,
            None => web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.create_element("canvas").ok())
                .and_then(|e| {
                    use wasm_bindgen::JsCast;
                    e.dyn_into::<web_sys::HtmlCanvasElement>().ok()
                })
                .ok_or("no canvas")?,
        };
        layer.set_width(pw);
        layer.set_height(ph);
        let axes = draw_free_layer(layer.clone(), run, zone, p, k)?;
        *cache = Some(FreeLayer {
            key,
            canvas: layer,
            axes,
        });
    }
    let c = cache.as_ref().expect("drawn above");
    draw_free_cursor(canvas, &c.canvas, &c.axes, run.ops.len(), done, p, k)
}

fn draw_fragmentation(
    canvas: web_sys::HtmlCanvasElement,
    size: (u32, u32),
    fragmentation: &[(f64, Option<f64>); ORDERS],
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit_to(&canvas, size) else {
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
    for (o, &(unusable, frag)) in fragmentation.iter().enumerate() {
        let x = o as f64;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.38, 0.0), (x - 0.02, unusable)],
            p.series[1].filled(),
        )))?;
        if let Some(frag) = frag {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x + 0.02, 0.0), (x + 0.38, frag)],
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
    size: (u32, u32),
    groups: &[CostGroup],
    done: usize,
    p: &Palette,
) -> DrawResult {
    let Some((_, _, k)) = fit_to(&canvas, size) else {
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
        let running = running_group(groups, done) == Some(gi);
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

/// The group whose ops the cursor is in or about to start (its label is highlighted).
fn running_group(groups: &[CostGroup], done: usize) -> Option<usize> {
    (0..groups.len())
        .find(|&gi| done <= groups[gi].last_op && (gi == 0 || done > groups[gi - 1].last_op))
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

#[component]
pub fn ChartsPanel() -> impl IntoView {
    let view = View::here();
    let free_ref = NodeRef::<Canvas>::new();
    let frag_ref = NodeRef::<Canvas>::new();
    let cost_ref = NodeRef::<Canvas>::new();
    let free_seen = onscreen::observe(free_ref);
    let frag_seen = onscreen::observe(frag_ref);
    let cost_seen = onscreen::observe(cost_ref);
    // The run's identity: the lines and the cost groups change only with it.
    let run_key = Memo::new(move |_| view.shell.run_id(view.slot).unwrap_or_default());
    // Changes once per op, not per event.
    let done = Memo::new(move |_| view.with(|s| s.timeline.ops_done()).unwrap_or_default());
    // A node of several zones: the zone tab picked (the charts follow it, as the map does).
    let zone = Memo::new(move |_| view.with(|s| s.timeline.view_zone()).flatten());
    let zone_name = Memo::new(move |_| view.with(|s| chart_zone_name(&s.timeline)).flatten());
    let groups = Memo::new(move |_| {
        // Read, not just track: a memo only subscribes to its own sources once it has run.
        run_key.get();
        view.untracked(|s| cost_groups(&s.timeline.run))
            .unwrap_or_default()
    });
    // The cost chart changes with the op only where the running group changes.
    let running = Memo::new(move |_| {
        let d = done.get();
        groups.with(|(g, _)| running_group(g, d))
    });
    let dark = ThemeState::dark();
    let free_layer = StoredValue::new_local(None::<FreeLayer>);

    // Each chart repaints when what it shows changes: at once when on screen, else once the
    // cursor rests (`onscreen::Seen::schedule`); its size comes from an observer, so drawing
    // never forces a layout.
    Effect::new(move |_| {
        let (size, d) = (free_seen.size.get(), dark.get());
        run_key.track();
        done.track();
        zone.track();
        let Some(c) = free_ref.get() else { return };
        free_seen.schedule(move || {
            let p = palette(d);
            let rk = run_key.get_untracked();
            view.untracked(|s| {
                free_layer.update_value(|cache| {
                    let _ = draw_free_pages(
                        &c,
                        size,
                        &s.timeline.run,
                        rk,
                        s.timeline.view_zone(),
                        s.timeline.ops_done(),
                        &p,
                        cache,
                    );
                })
            });
        });
    });
    Effect::new(move |_| {
        let (size, d) = (frag_seen.size.get(), dark.get());
        run_key.track();
        done.track();
        zone.track();
        let Some(c) = frag_ref.get() else { return };
        frag_seen.schedule(move || {
            if let Some(m) = view.untracked(|s| view_model(&s.timeline)) {
                let _ = draw_fragmentation(c, size, &m.fragmentation, &palette(d));
            }
        });
    });
    Effect::new(move |_| {
        let (size, d) = (cost_seen.size.get(), dark.get());
        groups.track();
        running.track();
        let Some(c) = cost_ref.get() else { return };
        cost_seen.schedule(move || {
            let d_done = done.get_untracked();
            groups.with_untracked(|(g, _)| {
                let _ = draw_cost(c, size, g, d_done, &palette(d));
            });
        });
    });

    let legend_orders = move || {
        let d = dark.get();
        (0..ORDERS)
            .map(|o| {
                view! {
                    <li>
                        <svg class="line-sample" width="24" height="10" viewBox="0 0 24 10" aria-hidden="true">
                            <line
                                x1="0"
                                y1="5"
                                x2="24"
                                y2="5"
                                stroke=order_css(o, d)
                                stroke-width="2.5"
                                stroke-dasharray=order_dasharray(o)
                            ></line>
                        </svg>
                        {o.to_string()}
                    </li>
                }
            })
            .collect_view()
    };

    view! {
        <PanelFrame key="charts" title="Charts" testid="charts">
            <div class="chart-grid">
            <figure class="chart">
                <figcaption>
                    "Free pages per order (log scale) over the ops done"
                    {move || zone_name.get().map(|z| format!(", zone {z}"))}
                </figcaption>
                <canvas
                    node_ref=free_ref
                    data-testid="chart-free-pages"
                    data-zone=move || zone_name.get()
                    role="img"
                    aria-label="Line chart: free pages in the buddy per order after each op, with a line at the cursor"
                ></canvas>
                <ol class="chart-legend" aria-label="Orders">
                    <li class="muted">"order"</li>
                    {legend_orders}
                </ol>
            </figure>
            <figure class="chart">
                <figcaption>
                    "Fragmentation by order, after the ops done"
                    {move || zone_name.get().map(|z| format!(", zone {z}"))}
                </figcaption>
                <canvas
                    node_ref=frag_ref
                    data-testid="chart-fragmentation"
                    data-zone=move || zone_name.get()
                    role="img"
                    aria-label="Bar chart: unusable free index and fragmentation index per order"
                ></canvas>
                <ul class="chart-legend">
                    <li title="Share of free memory in blocks too small for this order: 0 = all of it is usable, 1 = none of it">
                        <span class="mini-swatch series-1"></span>"unusable free index (left bar)"
                    </li>
                    <li title="Only when no block of this order is free: does the request fail for lack of memory (near 0) or because free memory is fragmented (near 1)?">
                        <span class="mini-swatch series-0"></span>"fragmentation index (right bar)"
                    </li>
                    <li title="A free block of this order exists: the request would succeed">"✓ a block is free"</li>
                </ul>
            </figure>
            <figure class="chart">
                <figcaption>"Cost of each top-level op (log scale)"</figcaption>
                <canvas
                    node_ref=cost_ref
                    data-testid="chart-cost"
                    role="img"
                    aria-label="Bar chart: zone lock, pcp list, free list operations and pages prepared per top-level op"
                ></canvas>
                <ol class="chart-legend" aria-label="Bars of each op, left to right">
                    <li class="muted">"bars, left to right:"</li>
                    {COST_METRICS
                        .iter()
                        .enumerate()
                        .map(|(i, m)| view! {
                            <li title=help(m)>
                                <span class=format!("mini-swatch series-{i}")></span>
                                {format!("{}. {m}", i + 1)}
                            </li>
                        })
                        .collect_view()}
                </ol>
                <ol class="cost-groups" data-testid="chart-cost-groups">
                    {move || {
                        let (grps, total) = groups.get();
                        let more = (total > grps.len())
                            .then(|| view! { <li class="muted">{format!("… and {} more", total - grps.len())}</li> });
                        let items = grps
                            .into_iter()
                            .map(|g| {
                                view! {
                                    <li>
                                        <code>{g.path}</code>" "{g.label}
                                        {g.note.map(|n| view! { <span class="muted">" — "{n}</span> })}
                                    </li>
                                }
                            })
                            .collect_view();
                        view! { {items}{more} }
                    }}
                </ol>
            </figure>
            </div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Session;

    #[test]
    fn cost_groups_split_the_seed_into_per_page_drain_and_chunked() {
        let s = Session::load(buddyscope::scenario::builtin::default().json()).unwrap();
        let (groups, total) = cost_groups(&s.timeline.run);
        assert_eq!(total, 3);
        let paths: Vec<&str> = groups.iter().map(|g| g.path.as_str()).collect();
        assert_eq!(paths, ["ops[0]", "ops[1]", "ops[2]"]);
        // Per page puts every page on the pcp list; chunked one chunk per iteration.
        assert!(groups[0].cost.pcp_ops > 100 * groups[2].cost.pcp_ops);
        assert_eq!(groups[0].cost.pages_prepared, groups[2].cost.pages_prepared);
        let sum: u64 = groups.iter().map(|g| g.cost.pcp_ops).sum();
        assert_eq!(sum, s.timeline.run.stats.pcp_ops);
        assert_eq!(groups[2].last_op, s.timeline.run.ops.len() - 1);
    }

    /// Neighbouring orders never share a line pattern (colour is not the only channel).
    #[test]
    fn neighbouring_orders_differ_in_pattern() {
        for o in 1..ORDERS {
            assert_ne!(order_dash(o), order_dash(o - 1), "orders {} and {o}", o - 1);
            assert_ne!(order_dasharray(o), order_dasharray(o - 1));
        }
        assert_eq!(order_dasharray(0), "none");
    }

    #[test]
    fn helpers() {
        assert_eq!(top_path("ops[3].ops[0]"), "ops[3]");
        assert_eq!(pow10_label(3.0), "1k");
        assert_eq!(pow10_label(2.5), "");
        assert_eq!(compact(16450), "16k");
        assert_eq!(compact(8192), "8.2k");
    }

    #[test]
    fn the_model_is_the_state_after_the_ops_done() {
        let mut t = crate::testutil::timeline("fallback-steal");
        assert_eq!(&view_model(&t).nr_free, t.zone().nr_free());
        while t.pos() < t.len() {
            t.step_forward();
            let m = view_model(&t);
            let done = t.ops_done();
            assert_eq!(m.done, done);
            // At an op boundary the chart's state is the zone's.
            if done > 0 && t.run.ops[done - 1].end == t.pos() {
                assert_eq!(&m.nr_free, t.zone().nr_free(), "at {}", t.pos());
            }
            for (o, &(unusable, frag)) in m.fragmentation.iter().enumerate() {
                assert!((0.0..=1.0).contains(&unusable));
                // The fragmentation index is defined only when no block of the order is free.
                let free_at_or_above: u64 = m.nr_free[o..].iter().sum();
                assert_eq!(frag.is_none(), free_at_or_above > 0, "order {o}");
            }
        }
        assert_eq!(&view_model(&t).nr_free, t.run.final_node.active().nr_free());
    }

    /// A node of several zones: the charts follow the zone tab, like the map and the free
    /// lists; without a pick they show the highest zone (where the engine is between ops).
    #[test]
    fn the_charts_follow_the_zone_tab() {
        let mut t = crate::testutil::timeline("dma32-machine");
        assert_eq!(chart_zone_name(&t).as_deref(), Some("Normal"));
        let ends: Vec<u32> = t.run.ops.iter().map(|o| o.end).collect();
        let mut differ = false;
        for zone in [None, Some(0), Some(1)] {
            t.set_view_zone(zone);
            t.seek(0);
            let z = zone.unwrap_or(1);
            assert_eq!(&view_model(&t).nr_free, t.node().zone(z).nr_free());
            for &end in &ends {
                t.seek(end);
                let m = view_model(&t);
                assert_eq!(&m.nr_free, t.node().zone(z).nr_free(), "zone {z} at {end}");
                differ |= zone == Some(0) && m.nr_free != t.run.ops[m.done - 1].nr_free_after;
            }
        }
        assert!(differ, "DMA32's counts are not Normal's");
        t.set_view_zone(Some(0));
        assert_eq!(chart_zone_name(&t).as_deref(), Some("DMA32"));
        let one = crate::testutil::timeline("fallback-claim");
        assert_eq!(chart_zone_name(&one), None);
        assert_eq!(
            nr_free_after_in(&one.run, 1, Some(0)),
            nr_free_after(&one.run, 1)
        );
    }

    #[test]
    fn cost_metrics_are_engine_counters() {
        for m in COST_METRICS {
            assert!(Stats::def(m).is_some(), "{m}");
            assert!(help(m).len() > 20);
        }
    }
}
