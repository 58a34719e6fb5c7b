//! The memory map: every page of the zone a cell on one `<canvas>`, drawn from a pixel buffer
//! with `putImageData` (never a DOM node per page).
//!
//! Pages are grouped by pageblock (512 pages) into tiles of 32 × 16 cells, framed in the
//! pageblock's migratetype colour (thicker for the rarer types). A cell's colour says what the
//! engine reports for the page: free in the buddy allocator (lighter for bigger blocks), on a
//! pcp list (yellow, hatched), allocated (a tone per op definition, dotted if the allocation's
//! type differs from its pageblock's), taken out of the buddy by compaction's free scanner
//! (`cc->freepages`, green, hatched the other way in the free scanner's colour) or reserved;
//! pages the current event touched are vermilion. While a `compact_zone` is under way, the page each of its scanners looks at next
//! is ringed (the migration scanner's and the free scanner's colours, named in the legend with
//! their pfns); at a `migrate_pages` step the folio's source and target are ringed and joined
//! by an arrow, and the legend names both pfns. Zoomed out below a pixel per page (the pageblock level, which "Fit" picks for
//! zones of 2 GiB and more), a tile is 8 × 4 pixels, each the dominant state of 4 × 4 pages.
//!
//! Repainting (see `mapdraw`): the canvas is the visible window of the map, at device pixels
//! (CSS size × `devicePixelRatio`), kept in place by `position: sticky` over a spacer as big as
//! the map; scrolling repaints the window. A small cursor move repaints only the visible tiles
//! of the pageblocks the events between the old and the new cursor touched (events carry pfn
//! and order); a new run, a zoom, a scroll or a theme change repaints the window.

use buddyscope::mm::filler_owner_mt;
use buddyscope::mm::Zone;
use buddyscope::mm::{MigrateType, PAGEBLOCK_NR_PAGES};
use buddyscope::run::op_touched_pageblocks;
use buddyscope::run::Timeline;
use leptos::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use super::follow::{follow_frame, tiles_rect, FollowFrame};
use super::frame::PanelFrame;
use super::mapdraw::{
    isolated_block, isolated_free, isolated_pages, mark_pages, migration_at, migration_legend,
    mix_bars, paint_overview, paint_view, scanner_legend, scanner_marks, tile_visible, Geom,
    MapCache, MigrationLegend, MigrationMark, RunKey, ScannerLegend, ScannerMarks, Scene, ViewRect,
    FIT_HEIGHT, PB_LEVEL, ZOOMS,
};
use super::{pfn_hex, tracked_width};
use crate::model::{Command, Session};
use crate::shell::View;
use crate::theme::{self as palette, frame_width, ThemeState};

/// What the renderer last drew.
#[derive(Default)]
struct Renderer {
    cache: MapCache,
    /// The geometry drawn: the layout, or in the follow view the layout at its zoom.
    geom: Option<Geom>,
    /// The layout (what the spacer, the overview and the zoom controls go by).
    base: Option<Geom>,
    /// The follow view drawn, if following.
    follow: Option<FollowFrame>,
    view: ViewRect,
    run_key: RunKey,
    dark: bool,
    /// The highlighted pages drawn (the current event's).
    hl: Option<(u32, u32)>,
    /// Compaction's scanner markers drawn.
    scanners: Option<ScannerMarks>,
    /// The migration drawn (its arrow crosses tiles: drawn and cleared by full repaints).
    migration: Option<MigrationMark>,
    /// The canvas's pixels (the visible window), reused between full repaints.
    buf: Vec<u8>,
    /// One tile's pixels.
    scratch: Vec<u8>,
    /// What the last render painted (`data-paint`): the whole window or only the tiles that
    /// changed.
    painted: Option<bool>,
    #[cfg(feature = "bench")]
    first_paint_done: bool,
    /// (following, presenting) at the last render: the boxes are measured again on a change.
    mode: Option<(bool, bool)>,
    /// The mixed-pageblock overlay drawn.
    mix: bool,
}

/// What a render is asked to show: the zoom level, the box it lays out in, and the window.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Frame {
    zoom: u32,
    avail_css: u32,
    dark: bool,
    dpr: f64,
    /// The window's top left in CSS pixels of the map, and its size.
    origin_css: (f64, f64),
    view_css: (u32, u32),
    follow: Option<FollowAsk>,
    /// The mixed-pageblock overlay is on.
    mix: bool,
}

/// Following: the pageblocks to show (none before the first op) and the visible box of the map
/// (CSS pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
struct FollowAsk {
    span: Option<(u32, u32)>,
    viewport: (u32, u32),
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
}

fn put_image(ctx: &CanvasRenderingContext2d, data: &[u8], w: u32, h: u32, x: u32, y: u32) {
    if let Ok(img) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(data), w, h) {
        let _ = ctx.put_image_data(&img, x as f64, y as f64);
    }
}

fn put_tile(
    ctx: &CanvasRenderingContext2d,
    tile: &[u8],
    g: &Geom,
    (tx, ty): (u32, u32),
    v: ViewRect,
) {
    let x0 = tx.max(v.x);
    let x1 = (tx + g.tile_w).min(v.x + v.w);
    let y0 = ty.max(v.y);
    let y1 = (ty + g.tile_h).min(v.y + v.h);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    if let Ok(img) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(tile), g.tile_w, g.tile_h)
    {
        let _ = ctx.put_image_data_with_dirty_x_and_dirty_y_and_dirty_width_and_dirty_height(
            &img,
            f64::from(tx) - f64::from(v.x),
            f64::from(ty) - f64::from(v.y),
            f64::from(x0 - tx),
            f64::from(y0 - ty),
            f64::from(x1 - x0),
            f64::from(y1 - y0),
        );
    }
}

/// Sets an inline style length in CSS pixels.
fn set_px(el: &web_sys::HtmlElement, prop: &str, v: f64) {
    let _ = el.style().set_property(prop, &format!("{v}px"));
}

impl Renderer {
    /// Draws the session at its cursor: the window `f` asks for, at device resolution.
    /// Returns `(full, resized)`: a full repaint of the window; the map's or the window's size
    /// changed (the layout around it must be measured again).
    fn render(
        &mut self,
        canvas: &HtmlCanvasElement,
        spacer: Option<web_sys::HtmlElement>,
        s: &Session,
        f: Frame,
    ) -> (bool, bool) {
        let tl = &s.timeline;
        let z = tl.zone();
        let base = Geom::new(z.pages(), f.zoom, f.dpr, f.avail_css);
        let key = s.id;
        let Some(ctx) = context(canvas) else {
            return (false, false);
        };
        let dirty = self.cache.sync(key, tl);
        // The window: the visible box (or a first guess before layout), inside the map.
        let (vw_css, vh_css) = match f.view_css {
            (w, h) if w > 0 && h > 0 => (w, h),
            _ => (base.tiles().w, FIT_HEIGHT),
        };
        let dev = |css: u32| ((f64::from(css) * base.dpr).round() as u32).max(1);
        // Following: the layout at the follow view's own cell size (sharp, never a CSS scale
        // of the bitmap) and its window around the focus, the size of the visible box.
        let follow = f.follow.map(|FollowAsk { span, viewport }| {
            let vp = match viewport {
                (w, h) if w > 0 && h > 0 => (w, h),
                _ => (vw_css, vh_css),
            };
            follow_frame(&base, span, (dev(vp.0), dev(vp.1)))
        });
        let (g, v) = match follow {
            Some(ff) => (ff.geom, ff.view),
            None => {
                let (vw, vh) = (dev(vw_css).min(base.w), dev(vh_css).min(base.h));
                let at = |o: f64, room: u32| ((o * base.dpr).round().max(0.0) as u32).min(room);
                let v = ViewRect {
                    x: at(f.origin_css.0, base.w - vw),
                    y: at(f.origin_css.1, base.h - vh),
                    w: vw,
                    h: vh,
                };
                (base, v)
            }
        };
        let hl = tl.current().and_then(|e| e.kind().touched_pages());
        let scanners = scanner_marks(tl);
        let migration = migration_at(tl);
        let pal = palette::palette(f.dark);
        // The overlay's marks: a scan of the zone's pages at the cursor, only while it is on.
        let bars = f
            .mix
            .then(|| mix_bars(&tl.run, tl.node(), super::history::shown_zone(tl)));
        if let Some(b) = &bars {
            let marks: Vec<String> = b
                .iter()
                .enumerate()
                .filter_map(|(pb, m)| m.map(|m| format!("{pb}:{}:{}", m.mt.kernel_name(), m.pages)))
                .collect();
            let marks = marks.join(" ");
            if canvas.get_attribute("data-mixed").as_deref() != Some(marks.as_str()) {
                let _ = canvas.set_attribute("data-mixed", &marks);
            }
        } else if self.mix {
            let _ = canvas.remove_attribute("data-mixed");
        }
        let scene = Scene {
            zone: z,
            cache: &self.cache,
            hl,
            scanners,
            migration,
            pal,
            mix: bars.as_deref(),
        };
        let resized = self.geom != Some(g) || (self.view.w, self.view.h) != (v.w, v.h);
        let mut full = self.geom != Some(g)
            || self.view != v
            || self.run_key != key
            || self.dark != f.dark
            || self.mix != f.mix
            || migration.is_some()
            || self.migration != migration
            || canvas.width() != v.w
            || canvas.height() != v.h;
        let mut tiles = Vec::new();
        match (&dirty, full) {
            (None, _) => full = true,
            (Some(_), true) => {}
            (Some(d), false) => {
                let nb = g.nb();
                let mut seen = vec![false; nb as usize];
                for &pb in d {
                    mark_pages(&mut seen, &mut tiles, pb * PAGEBLOCK_NR_PAGES, 1, nb);
                }
                if self.hl != hl {
                    for (s0, n) in [self.hl, hl].into_iter().flatten() {
                        mark_pages(&mut seen, &mut tiles, s0, n, nb);
                    }
                }
                if self.scanners != scanners {
                    for m in [self.scanners, scanners].into_iter().flatten() {
                        for page in m.pages(z.pages()) {
                            mark_pages(&mut seen, &mut tiles, page, 1, nb);
                        }
                    }
                }
                tiles.retain(|&pb| tile_visible(&g, v, pb));
                // Many tiles: one putImageData of the window is cheaper.
                full = tiles.len() > 256;
            }
        }
        if full {
            if canvas.width() != v.w {
                canvas.set_width(v.w);
            }
            if canvas.height() != v.h {
                canvas.set_height(v.h);
            }
            set_px(canvas, "width", g.css(v.w));
            set_px(canvas, "height", g.css(v.h));
            // The spacer keeps the layout's size (the follow view zooms inside its box).
            if let Some(sp) = &spacer {
                set_px(sp, "width", base.css(base.w));
                set_px(sp, "height", base.css(base.h.saturating_sub(v.h)));
            }
            paint_view(&mut self.buf, &mut self.scratch, &g, v, &scene);
            put_image(&ctx, &self.buf, v.w, v.h, 0, 0);
            // The window's top left in CSS pixels of the map drawn, for tests and tools
            // (hover maps `offsetX + x` through the data-* geometry).
            let _ = canvas.set_attribute("data-view", &format!("{},{}", g.css(v.x), g.css(v.y)));
        } else {
            for pb in tiles {
                scene.paint(&mut self.scratch, &g, pb);
                put_tile(&ctx, &self.scratch, &g, g.tile_origin(pb), v);
            }
        }
        if self.geom != Some(g) {
            // The geometry in CSS pixels, for tests and tools that map pages to pixels.
            for (k, val) in [
                ("data-cell", g.css_cell()),
                ("data-pad", g.css(g.pad)),
                ("data-tile-w", g.css(g.tile_w)),
                ("data-tile-h", g.css(g.tile_h)),
                ("data-per-row", f64::from(g.per_row)),
                ("data-dpr", g.dpr),
            ] {
                let _ = canvas.set_attribute(k, &val.to_string());
            }
            let lod = if g.group == 1 { "pages" } else { "pageblocks" };
            let _ = canvas.set_attribute("data-lod", lod);
        }
        // Only when it changes (another zone or run): an attribute write is a DOM mutation.
        let start_pfn = z.cfg().start_pfn.to_string();
        if canvas.get_attribute("data-start-pfn").as_deref() != Some(start_pfn.as_str()) {
            let _ = canvas.set_attribute("data-start-pfn", &start_pfn);
        }
        self.geom = Some(g);
        self.base = Some(base);
        self.follow = follow;
        self.view = v;
        self.run_key = key;
        self.dark = f.dark;
        self.mix = f.mix;
        self.hl = hl;
        self.scanners = scanners;
        self.migration = migration;
        (full, resized)
    }

    /// The zone page under CSS offset `(x, y)` of the canvas.
    fn page_at(&self, x: i32, y: i32) -> Option<u32> {
        let g = self.geom?;
        let dev = |o: i32, v0: u32| (f64::from(o) * g.dpr).floor() as i64 + i64::from(v0);
        g.page_at(dev(x, self.view.x), dev(y, self.view.y))
    }

    /// The window's top left in CSS pixels of the map.
    fn origin_css(&self) -> (f64, f64) {
        self.geom
            .map(|g| (g.css(self.view.x), g.css(self.view.y)))
            .unwrap_or_default()
    }

    /// Following: the canvas's offset in the visible box (CSS pixels, whole device pixels).
    fn follow_shift_css(&self) -> (f64, f64) {
        match (self.follow, self.geom) {
            (Some(ff), Some(g)) => (g.css(ff.offset.0), g.css(ff.offset.1)),
            _ => (0.0, 0.0),
        }
    }
}

/// The tooltip's lines for page `idx` (empty beyond the zone).
pub fn tooltip(tl: &Timeline, idx: u32) -> Vec<String> {
    let z = tl.zone();
    let run = &tl.run;
    if idx >= z.pages() {
        return Vec::new();
    }
    let pb = idx / PAGEBLOCK_NR_PAGES;
    let pbmt = z.pb_mt(pb);
    let mut out = vec![
        format!("pfn {}", pfn_hex(z, idx)),
        format!("pageblock {pb}: {}", pbmt.kernel_name()),
    ];
    match z.block_containing(idx) {
        Some((head, order, false)) => out.push(format!(
            "free: order-{order} block at {} ({} pages)",
            pfn_hex(z, head),
            1u32 << order
        )),
        Some((head, order, true)) => out.push(format!(
            "on the pcp of CPU {}: order-{order} block at {}",
            z.page_owner(head),
            pfn_hex(z, head)
        )),
        None => {
            let owner = z.page_owner(idx);
            if let Some((head, order)) = isolated_block(&isolated_free(tl), idx) {
                out.push(format!(
                    "isolated by compaction's free scanner: order-{order} block at {} on cc->freepages",
                    pfn_hex(z, head)
                ));
                out.push(
                    "__isolate_free_page took it off the buddy lists as a migration target: compaction_alloc hands it to a migrating folio, release_free_list frees it if unused"
                        .to_string(),
                );
            } else if let Some(fmt) = filler_owner_mt(owner) {
                out.push(format!(
                    "allocated (imported from /proc, {} pageblock filler)",
                    fmt.kernel_name()
                ));
            } else if let Some(o) = run.owners.get(owner as usize) {
                let def = &run.op_defs[o.def as usize];
                let mut line = format!("allocated by: {}", def.summary);
                if let Some(n) = &def.name {
                    line.push_str(&format!(" \u{201c}{n}\u{201d}"));
                }
                if o.seq > 0 {
                    line.push_str(&format!(" #{}", o.seq));
                }
                out.push(line);
                if o.mt != pbmt && pbmt != MigrateType::Isolate {
                    out.push(format!(
                        "\u{2022} a {} allocation in a {} pageblock",
                        o.mt.kernel_name(),
                        pbmt.kernel_name()
                    ));
                }
            } else if owner == buddyscope::mm::NO_OWNER && z.page_refcount(idx) > 0 {
                // Its allocation freed it while a get_page reference held it.
                out.push(
                    "held only by get_page references: the last put_page frees it".to_string(),
                );
            } else {
                out.push("reserved: not free, no recorded owner".to_string());
            }
            out.push(format!("refcount {}", z.page_refcount(idx)));
        }
    }
    if let Some((s0, n)) = tl.current().and_then(|e| e.kind().touched_pages()) {
        if idx >= s0 && idx - s0 < n {
            out.push("touched by the current event".to_string());
        }
    }
    out
}

#[component]
pub fn MemoryMapPanel() -> impl IntoView {
    let view = View::here();
    let shell = view.shell;
    let dark = ThemeState::dark();
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let spacer_ref = NodeRef::<leptos::html::Div>::new();
    let scroll_ref = NodeRef::<leptos::html::Div>::new();
    let renderer = StoredValue::new_local(Renderer::default());
    // Zoom: None = fit the zone; Some(level of ZOOMS).
    let zoom = RwSignal::new(None::<u32>);
    // The mixed-pageblock overlay.
    let mixed = RwSignal::new(false);
    // The scroll box's inner width (a little under its client width), at least 40 px.
    let avail = tracked_width(scroll_ref, |w| (w.max(0) as u32).saturating_sub(4).max(40));
    let dpr = device_pixel_ratio();
    let tip_at = RwSignal::new((0i32, 0i32));
    // Follow the action: always in presenter mode, on request (the Follow button) elsewhere.
    let following = Memo::new(move |_| shell.prefs.presenter.get() || shell.prefs.follow.get());
    // The current op (none before the first event: the whole zone), keyed by the run, so the
    // span below is computed once per op, not on every step inside it.
    let op_key = Memo::new(move |_| {
        view.with(|s| {
            let t = &s.timeline;
            let op = if t.pos() == 0 { None } else { t.op_index() };
            (s.id, op)
        })
    });
    // The pageblocks the current op touches.
    let span = Memo::new(move |_| {
        if !following.get() {
            return None;
        }
        let op = op_key.get()?.1?;
        view.untracked(|s| op_touched_pageblocks(&s.timeline.run, op))
            .flatten()
    });
    let drawn = RwSignal::new(None::<Geom>);
    // Compaction's scanners at the cursor, for the legend.
    let scanners = Memo::new(move |_| view.with(|s| scanner_legend(&s.timeline)).flatten());
    // The migration at the cursor, for the legend.
    let migration = Memo::new(move |_| view.with(|s| migration_legend(&s.timeline)).flatten());
    // The visible box of the map (`map-inner`), which presenter mode makes shorter than the canvas.
    let inner_ref = NodeRef::<leptos::html::Div>::new();
    let viewport = RwSignal::new((0u32, 0u32));
    // The scroll box: scroll offsets and client size (CSS pixels), the window the canvas shows.
    let scroll_box = RwSignal::new((0.0f64, 0.0f64, 0u32, 0u32));
    // The drawn window's top left (CSS pixels of the map), for the follow transform.
    let origin = RwSignal::new((0.0f64, 0.0f64));
    let measure = move || {
        if let Some(el) = inner_ref.get_untracked() {
            let v = (
                el.client_width().max(0) as u32,
                el.client_height().max(0) as u32,
            );
            if viewport.get_untracked() != v {
                viewport.set(v);
            }
        }
        if let Some(el) = scroll_ref.get_untracked() {
            let b = (
                f64::from(el.scroll_left()),
                f64::from(el.scroll_top()),
                el.client_width().max(0) as u32,
                el.client_height().max(0) as u32,
            );
            if scroll_box.get_untracked() != b {
                scroll_box.set(b);
            }
        }
    };
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    // Following: the canvas's offset in the visible box, and the zoom drawn.
    let shift = RwSignal::new((0.0f64, 0.0f64));
    let follow_scale = RwSignal::new(1.0f64);
    let overview_ref = NodeRef::<leptos::html::Canvas>::new();

    let cell = Memo::new(move |_| {
        let w = avail.get().max(40);
        let pages = view.with(|s| s.timeline.zone().pages()).unwrap_or(1024);
        match zoom.get() {
            Some(PB_LEVEL) => PB_LEVEL,
            Some(c) => c.min(Geom::max_zoom(w)),
            None => Geom::fit_zoom(pages, w),
        }
    });

    Effect::new(move |_| {
        let c = cell.get();
        let w = avail.get();
        let d = dark.get();
        let ratio = dpr.get();
        let (sl, st, cw, ch) = scroll_box.get();
        let follow = following.get();
        let presenting = shell.prefs.presenter.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if w == 0 {
            return;
        }
        let frame = Frame {
            zoom: c,
            avail_css: w,
            dark: d,
            dpr: ratio,
            origin_css: (sl, st),
            view_css: (cw, ch),
            follow: follow.then(|| FollowAsk {
                span: span.get(),
                viewport: viewport.get(),
            }),
            mix: mixed.get(),
        };
        let spacer = spacer_ref
            .get_untracked()
            .map(|e| web_sys::HtmlElement::clone(&e));
        #[cfg(feature = "bench")]
        let t0 = crate::browser::now_ms();
        let (full, resized) = view
            .with(|s| renderer.try_update_value(|r| r.render(&canvas, spacer, s, frame)))
            .flatten()
            .unwrap_or((false, false));
        #[cfg(feature = "bench")]
        let t1 = crate::browser::now_ms();
        let g = renderer.with_value(|r| r.base);
        let o = renderer.with_value(|r| r.origin_css());
        if origin.get_untracked() != o {
            origin.set(o);
        }
        let sh = renderer.with_value(|r| r.follow_shift_css());
        if shift.get_untracked() != sh {
            shift.set(sh);
        }
        let fs = renderer.with_value(|r| match (r.follow, r.base) {
            (Some(ff), Some(b)) => ff.scale(&b),
            _ => 1.0,
        });
        if follow_scale.get_untracked() != fs {
            follow_scale.set(fs);
        }
        if drawn.get_untracked() != g {
            drawn.set(g);
        }
        // Reading the boxes' sizes forces a layout: only when the map's size changed (a step
        // changes only pixels; scrolls and window resizes measure on their own events).
        let mode = (follow, presenting);
        let mode_changed = renderer.with_value(|r| r.mode != Some(mode));
        if resized || mode_changed {
            measure();
        }
        if mode_changed {
            // The boxes change with the mode's classes: measure again once they apply.
            renderer.update_value(|r| r.mode = Some(mode));
            request_animation_frame(measure);
        }
        if follow {
            if let (Some(g), Some(ov)) = (g, overview_ref.get()) {
                // The box the overview sits in: a short map (compare mode's sides) keeps most
                // of its height for the map itself.
                let box_h = scroll_ref
                    .get_untracked()
                    .map(|e| e.client_height().max(0) as u32);
                view.untracked(|s| {
                    renderer.with_value(|r| draw_overview(&ov, &g, box_h, s, &r.cache, d))
                });
            }
        }
        // What the render painted, for tools and tests (a step paints only the tiles it
        // changed): an attribute write only when it changes.
        if renderer.with_value(|r| r.painted != Some(full)) {
            renderer.update_value(|r| r.painted = Some(full));
            let _ = canvas.set_attribute("data-paint", if full { "full" } else { "tiles" });
        }
        #[cfg(feature = "bench")]
        {
            use crate::browser::expose;
            expose("__buddyscope_last_render_ms", t1 - t0);
            expose(
                "__buddyscope_last_render_full",
                if full { 1.0 } else { 0.0 },
            );
            renderer.update_value(|r| {
                if !r.first_paint_done {
                    r.first_paint_done = true;
                    expose("__buddyscope_first_map_paint_ms", t1);
                }
            });
        }
    });

    let on_move = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x(), ev.offset_y());
        let page = renderer.with_value(|r| r.page_at(x, y));
        tip_at.set((x, y));
        if shell.hover.get_untracked() != page {
            shell.hover.set(page);
        }
    };

    let zoom_label = move |c: u32| match c {
        PB_LEVEL => "pageblocks (\u{bc} px per page)".to_string(),
        c => format!("{c} px per page"),
    };
    let zoom_step = move |dir: i32| {
        let cur = cell.get_untracked();
        let max = Geom::max_zoom(avail.get_untracked().max(40));
        let i = ZOOMS.iter().position(|&c| c == cur).unwrap_or(0) as i32;
        let j = (i + dir).clamp(0, ZOOMS.len() as i32 - 1) as usize;
        zoom.set(Some(ZOOMS[j].min(max)));
    };

    let tip = move || {
        let idx = shell.hover.get()?;
        let lines = view.with(|s| tooltip(&s.timeline, idx))?;
        if lines.is_empty() {
            return None;
        }
        let (x, y) = tip_at.get();
        // The canvas sits at the window's origin inside the map (sticky); when following, at
        // its offset in the visible box.
        let (ox, oy) = if following.get_untracked() {
            let s = shift.get();
            (s.0 as i32, s.1 as i32)
        } else {
            let o = origin.get();
            (o.0 as i32, o.1 as i32)
        };
        // The map's width in its box (the layout's, also when the follow view zooms inside it).
        let w = renderer.with_value(|r| r.base.map(|g| g.css(g.w)).unwrap_or(0.0)) as i32;
        let style = if x + ox > w - 340 {
            format!("right:{}px;top:{}px", (w - x - ox + 14).max(0), y + oy + 16)
        } else {
            format!("left:{}px;top:{}px", x + ox + 14, y + oy + 16)
        };
        Some(view! {
            <div class="map-tooltip" data-testid="map-tooltip" role="tooltip" style=style>
                {lines
                    .into_iter()
                    .enumerate()
                    .map(|(i, l)| {
                        view! { <div class=if i == 0 { "tip-pfn" } else { "tip-line" }>{l}</div> }
                    })
                    .collect_view()}
            </div>
        })
    };

    let summary = move || {
        view.with(|s| {
            let z = s.timeline.zone();
            format!(
                "{} pages ({} pageblocks), pfn {:#x}\u{2013}{:#x}",
                z.pages(),
                z.nr_pageblocks(),
                z.cfg().start_pfn,
                z.cfg().start_pfn + z.pages() as u64 - 1
            )
        })
        .unwrap_or_default()
    };

    let tools = move || {
        view! {
            <button
                type="button"
                class="icon-btn follow-toggle"
                data-testid="map-follow"
                aria-pressed=move || following.get().to_string()
                disabled=move || shell.prefs.presenter.get()
                title="Follow the action: zoom to the pageblocks the current operation touches"
                on:click=move |_| shell.prefs.follow.update(|f| *f = !*f)
            >
                "Follow"
            </button>
            <button
                type="button"
                class="icon-btn mixed-toggle"
                data-testid="map-mixed"
                aria-pressed=move || mixed.get().to_string()
                title="Mixed pageblocks: fade the others and mark each with a bar as long as its share of pages of another migratetype, in that type's colour"
                on:click=move |_| mixed.update(|m| *m = !*m)
            >
                "Mixed"
            </button>
            <div class="zoom" role="group" aria-label="Zoom">
                <button type="button" class="icon-btn" title="Zoom out" aria-label="Zoom out"
                    on:click=move |_| zoom_step(-1)>"\u{2212}"</button>
                <select
                    data-testid="map-zoom"
                    aria-label="Zoom: pixels per page"
                    prop:value=move || match zoom.get() {
                        None => "fit".to_string(),
                        Some(_) => cell.get().to_string(),
                    }
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        zoom.set(v.parse::<u32>().ok());
                    }
                >
                    <option value="fit">{move || match cell.get() {
                        PB_LEVEL => "Fit (pageblocks)".to_string(),
                        c => format!("Fit ({c} px)"),
                    }}</option>
                    {ZOOMS
                        .iter()
                        .map(|&c| view! { <option value=c.to_string()>{zoom_label(c)}</option> })
                        .collect_view()}
                </select>
                <button type="button" class="icon-btn" title="Zoom in" aria-label="Zoom in"
                    on:click=move |_| zoom_step(1)>"+"</button>
            </div>
        }
    };

    // Following: a map smaller than the visible box is centred in it (a translation by whole
    // device pixels; the zoom is drawn, never a CSS scale).
    let transform = move || {
        let (x, y) = shift.get();
        (following.get() && (x, y) != (0.0, 0.0)).then(|| format!("translate({x}px, {y}px)"))
    };

    view! {
        <PanelFrame
            key="map"
            title="Memory map"
            sub=Signal::derive(summary)
            tools=tools
            help="Every page is a cell; every 32\u{d7}16 tile is one pageblock (512 pages), framed in its migratetype\u{2019}s colour. Hover a cell for its pfn and owner; click it for its history."
        >
            // Focusable, so a keyboard can scroll a zoomed map (Up/Down; Left/Right stay the
            // stepping keys).
            <div
                class="map-scroll"
                node_ref=scroll_ref
                on:scroll=move |_| measure()
                tabindex="0"
                role="group"
                aria-label="Memory map (scrolls when zoomed in)"
            >
                <div
                    class="map-inner"
                    node_ref=inner_ref
                    class:following=move || following.get()
                    data-follow=move || if following.get() { "on" } else { "off" }
                    data-focus-pb=move || span.get().map(|(a, b)| format!("{a}-{b}")).unwrap_or_default()
                    data-focus-scale=move || format!("{:.2}", follow_scale.get())
                >
                    <canvas
                        data-testid="memory-map"
                        node_ref=canvas_ref
                        style:transform=transform
                        role="img"
                        aria-label=move || {
                            view.with(|s| {
                                let n = isolated_pages(&isolated_free(&s.timeline));
                                map_summary(s.timeline.zone(), n)
                            })
                            .unwrap_or_default()
                        }
                        // In exercise mode a click on a page answers a "click the page" question.
                        class:answering=move || {
                            shell.ui.exercise.with(|x| x.asking) == Some(buddyscope::explain::exercises::AnswerKind::Page)
                        }
                        on:mousemove=on_move
                        on:mouseleave=move |_| shell.hover.set(None)
                        on:click=move |ev: web_sys::MouseEvent| {
                            let page = renderer.with_value(|r| r.page_at(ev.offset_x(), ev.offset_y()));
                            if let Some(page) = page {
                                view.dispatch(Command::ClickPage { slot: view.slot, page });
                            }
                        }
                    ></canvas>
                    <div class="map-spacer" node_ref=spacer_ref aria-hidden="true"></div>
                    {tip}
                    <Overview canvas=overview_ref drawn=drawn span=span/>
                </div>
            </div>
            <Legend scanners=scanners migration=migration/>
        </PanelFrame>
    }
}

/// `window.devicePixelRatio`, kept up to date: a `(resolution: …dppx)` media query fires when
/// it changes (browser zoom, a move to another screen), and is then set up for the new ratio.
fn device_pixel_ratio() -> RwSignal<f64> {
    let sig = RwSignal::new(1.0);
    watch_dpr(sig);
    sig
}

fn watch_dpr(sig: RwSignal<f64>) {
    let Some(w) = web_sys::window() else {
        return;
    };
    let r = w.device_pixel_ratio();
    if sig.get_untracked() != r {
        sig.set(r);
    }
    if let Ok(Some(mq)) = w.match_media(&format!("(resolution: {r}dppx)")) {
        let cb = wasm_bindgen::closure::Closure::once_into_js(move || watch_dpr(sig));
        mq.set_onchange(Some(cb.unchecked_ref()));
    }
}

/// The map's text alternative (its accessible name): what a screen-reader user would read off
/// the picture. The zone and its pageblocks per migratetype, the pages free in the buddy (and the
/// largest free order), on pcp lists, the pages compaction's free scanner holds (`isolated`,
/// when there are any), and the rest; the engine's own counters, never a re-count.
pub fn map_summary(z: &Zone, isolated: u32) -> String {
    let mut per_mt = [0u32; MigrateType::ALL.len()];
    for pb in 0..z.nr_pageblocks() {
        per_mt[z.pb_mt(pb).idx()] += 1;
    }
    let types: Vec<String> = MigrateType::ALL
        .iter()
        .filter(|mt| per_mt[mt.idx()] > 0)
        .map(|mt| format!("{} {}", per_mt[mt.idx()], mt.kernel_name()))
        .collect();
    // `free_area[order].nr_free` counts every migratetype (NR_FREE_PAGES leaves ISOLATE out).
    let buddy: i64 = z
        .nr_free()
        .iter()
        .enumerate()
        .map(|(o, &n)| (n << o) as i64)
        .sum();
    let pcp = z.pcp_pages().max(0);
    let largest = z
        .nr_free()
        .iter()
        .rposition(|&n| n > 0)
        .map(|o| format!(" (largest free block: order {o})"))
        .unwrap_or_default();
    let rest = (i64::from(z.pages()) - buddy - pcp - i64::from(isolated)).max(0);
    let isolated = if isolated > 0 {
        format!(", {isolated} isolated by compaction's free scanner (cc->freepages)")
    } else {
        String::new()
    };
    format!(
        "Memory map of zone {}: {} pages in {} pageblocks ({}). {buddy} pages free in the buddy allocator{largest}, {pcp} on per-CPU lists{isolated}, {rest} allocated or reserved.",
        z.cfg().name,
        z.pages(),
        z.nr_pageblocks(),
        types.join(", "),
    )
}

/// Overview width in CSS pixels (at most a quarter of the map).
const OVERVIEW_W: u32 = 200;

/// The overview's size in CSS pixels: at most a quarter of the map's width and, in a map box
/// `box_h` CSS pixels tall, a third of its height (the zone's aspect kept).
fn overview_size(g: &Geom, box_h: Option<u32>) -> (u32, u32) {
    let t = g.tiles();
    let (tw, th) = (u64::from(t.w.max(1)), u64::from(t.h.max(1)));
    let mut w = u64::from(OVERVIEW_W.min(t.w / 4).max(1));
    if let Some(bh) = box_h.filter(|&h| h > 0) {
        w = w.min(u64::from(bh / 3) * tw / th).max(1);
    }
    (w as u32, (th * w / tw).max(1) as u32)
}

/// The whole map, scaled down, in the overview canvas (at device pixels).
fn draw_overview(
    ov: &HtmlCanvasElement,
    g: &Geom,
    box_h: Option<u32>,
    s: &Session,
    cache: &MapCache,
    dark: bool,
) {
    let (w, h) = overview_size(g, box_h);
    let dw = ((f64::from(w) * g.dpr).round() as u32).max(1);
    let dh = ((f64::from(h) * g.dpr).round() as u32).max(1);
    if ov.width() != dw {
        ov.set_width(dw);
    }
    if ov.height() != dh {
        ov.set_height(dh);
    }
    set_px(ov, "width", f64::from(w));
    set_px(ov, "height", f64::from(h));
    let scene = Scene {
        zone: s.timeline.zone(),
        cache,
        hl: None,
        scanners: None,
        migration: None,
        pal: palette::palette(dark),
        mix: None,
    };
    let mut buf = Vec::new();
    paint_overview(&mut buf, g, dw, dh, &scene);
    if let Some(ctx) = context(ov) {
        put_image(&ctx, &buf, dw, dh, 0, 0);
    }
}

/// The whole zone in small, with a marker on the pageblocks the zoomed map shows.
#[component]
fn Overview(
    canvas: NodeRef<leptos::html::Canvas>,
    drawn: RwSignal<Option<Geom>>,
    span: Memo<Option<(u32, u32)>>,
) -> impl IntoView {
    let marker = move || {
        let g = drawn.get()?;
        let (first, last) = span.get()?;
        let t = g.tiles();
        let f = tiles_rect(&t, (first, last));
        let (gw, gh) = (f64::from(t.w.max(1)), f64::from(t.h.max(1)));
        let style = format!(
            "left:{:.2}%;top:{:.2}%;width:{:.2}%;height:{:.2}%",
            f.x / gw * 100.0,
            f.y / gh * 100.0,
            f.w / gw * 100.0,
            f.h / gh * 100.0
        );
        Some(view! {
            <div
                class="map-overview-marker"
                data-testid="map-overview-marker"
                data-pb-first=first
                data-pb-last=last
                style=style
            ></div>
        })
    };
    view! {
        <div class="map-overview" aria-hidden="true">
            <canvas data-testid="map-overview" node_ref=canvas></canvas>
            {marker}
        </div>
    }
}

#[component]
fn Legend(
    scanners: Memo<Option<ScannerLegend>>,
    migration: Memo<Option<MigrationLegend>>,
) -> impl IntoView {
    let dark = ThemeState::dark();
    let sw = move |bg: String| format!("background:{bg}");
    let item = move |label: &'static str, style: Signal<String>| {
        view! {
            <li><span class="swatch" style=move || style.get()></span>{label}</li>
        }
    };
    let pal = move || palette::palette(dark.get());
    let free = Signal::derive(move || {
        let p = pal();
        sw(format!(
            "linear-gradient(90deg,{},{})",
            palette::css(p.free[0]),
            palette::css(p.free[10])
        ))
    });
    let alloc = Signal::derive(move || {
        let p = pal();
        sw(format!(
            "linear-gradient(90deg,{} 0 25%,{} 25% 50%,{} 50% 75%,{} 75%)",
            palette::css(p.alloc[0]),
            palette::css(p.alloc[1]),
            palette::css(p.alloc[2]),
            palette::css(p.alloc[3])
        ))
    });
    let pcp = Signal::derive(move || {
        let p = pal();
        sw(format!(
            "repeating-linear-gradient(135deg,{} 0 3px,{} 3px 5px)",
            palette::css(p.pcp),
            palette::css(p.pcp_hatch)
        ))
    });
    let foreign = Signal::derive(move || {
        let p = pal();
        format!(
            "background:radial-gradient(circle,{} 0 28%,transparent 32%),{}",
            palette::css(p.dot),
            palette::css(p.alloc[0])
        )
    });
    let hl = Signal::derive(move || sw(palette::css(pal().highlight)));
    let reserved = Signal::derive(move || sw(palette::css(pal().reserved)));
    // The free scanner's pages, hatched as the map hatches them (only while a compaction is
    // under way: outside one no page is on cc->freepages).
    let isolated_item = move || {
        scanners.get()?;
        let p = pal();
        let style = format!(
            "background-color:{};background-image:repeating-linear-gradient(45deg,{} 0 1px,transparent 1px 4px)",
            palette::css(p.isolated),
            palette::css(p.isolated_hatch)
        );
        Some(view! {
            <li data-testid="map-legend-isolated">
                <span class="swatch" style=style></span>
                "isolated by the free scanner (cc->freepages)"
            </li>
        })
    };
    let frames = move || {
        let p = pal();
        MigrateType::ALL
            .into_iter()
            .map(|mt| {
                let style = format!(
                    "border:{}px solid {}",
                    frame_width(mt) + 1,
                    palette::css(p.mt[mt.idx()])
                );
                view! { <li><span class="swatch frame" style=style></span>{mt.kernel_name()}</li> }
            })
            .collect_view()
    };
    // While a compaction is under way: its two scanners, as the map's rings mark them.
    let scanner_items = move || {
        let l = scanners.get()?;
        let p = pal();
        let ring = |c: palette::Rgba| {
            format!(
                "border:3px solid {};box-shadow:0 0 0 1px {};background:{}",
                palette::css(c),
                palette::css(p.bg),
                palette::css(p.bg)
            )
        };
        Some(view! {
            <ul
                class="legend-scanners"
                data-testid="map-scanners"
                aria-label="Compaction scanners"
                data-migrate-pfn=l.migrate_pfn.clone()
                data-free-pfn=l.free_pfn.clone()
            >
                <li class="legend-title">"compaction:"</li>
                <li data-testid="map-scanner-migrate">
                    <span class="swatch" style=ring(p.scan_migrate)></span>
                    {l.migrate_text()}
                </li>
                <li data-testid="map-scanner-free">
                    <span class="swatch" style=ring(p.scan_free)></span>
                    {l.free_text()}
                </li>
            </ul>
        })
    };
    // At a migration: its source and target, as the map rings them and joins them.
    let migration_item = move || {
        let l = migration.get()?;
        let p = pal();
        Some(view! {
            <ul class="legend-scanners" aria-label="Migration">
                <li
                    data-testid="map-migration"
                    data-from-pfn=l.from_pfn.clone()
                    data-to-pfn=l.to_pfn.clone()
                    data-order=l.order.to_string()
                >
                    <span
                        class="swatch"
                        style=format!(
                            "border:3px solid {};box-shadow:0 0 0 1px {};background:{}",
                            palette::css(p.scan_migrate),
                            palette::css(p.bg),
                            palette::css(p.scan_free)
                        )
                    ></span>
                    {l.text()}
                </li>
            </ul>
        })
    };
    view! {
        <div class="legend" data-testid="map-legend">
            <ul class="legend-cells" aria-label="Cell colours">
                {item("free (lighter = bigger block)", free)}
                {item("allocated (a tone per op)", alloc)}
                {item("on a pcp list (hatched)", pcp)}
                {item("current event", hl)}
                {item("foreign type (dot)", foreign)}
                {item("reserved", reserved)}
                {isolated_item}
            </ul>
            <ul class="legend-frames" aria-label="Pageblock frames">
                <li class="legend-title">"pageblock:"</li>
                {frames}
            </ul>
            {scanner_items}
            {migration_item}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::mapdraw::{cell_kinds, CellKind};
    use crate::testutil::timeline;

    /// The overview is a quarter of the map's width at most and, in a short map box (compare
    /// mode's sides in presenter mode), a third of the box's height, with the zone's aspect.
    #[test]
    fn the_overview_leaves_a_short_map_box_to_the_map() {
        // fallback-steal's zone in one side of compare mode at 1280x720.
        let g = Geom::new(65536, 1, 1.0, 410);
        let t = g.tiles();
        let (w, h) = overview_size(&g, None);
        assert_eq!(w, OVERVIEW_W.min(t.w / 4));
        assert_eq!(h, (u64::from(t.h) * u64::from(w) / u64::from(t.w)) as u32);
        assert!(h > 125 / 3, "{w}x{h}: the case to test");
        let (sw, sh) = overview_size(&g, Some(125));
        assert!(sh <= 125 / 3, "{sw}x{sh}");
        assert!(sw < w);
        // The aspect is kept (within rounding).
        let aspect = |w: u32, h: u32| f64::from(w) / f64::from(h);
        assert!(
            (aspect(sw, sh) - aspect(w, h)).abs() < aspect(w, h) * 0.1,
            "{sw}x{sh} vs {w}x{h}"
        );
        // A tall box changes nothing.
        assert_eq!(overview_size(&g, Some(2000)), (w, h));
    }

    /// The text alternative counts what the cells show: free, pcp and the rest add up to the
    /// zone, and the pageblock counts per type add up to the pageblocks.
    #[test]
    fn the_summary_is_the_cells_in_words() {
        let mut t = timeline("pcp-overflow-2cpu");
        let n = t.len();
        for target in [0, n / 2, n] {
            t.seek(target);
            let z = t.zone();
            let cells = cell_kinds(z, &t.run, 0, z.pages(), &isolated_free(&t));
            let free = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Free { .. }))
                .count();
            let pcp = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Pcp { .. }))
                .count();
            let rest = z.pages() as usize - free - pcp;
            let s = map_summary(z, 0);
            assert!(
                s.contains(&format!("{free} pages free in the buddy allocator")),
                "{s}"
            );
            assert!(
                s.contains(&format!(", {pcp} on per-CPU lists, {rest} allocated")),
                "{s}"
            );
            let blocks: u32 = s
                .split_once(" pageblocks (")
                .unwrap()
                .1
                .split_once(')')
                .unwrap()
                .0
                .split(", ")
                .map(|p| p.split(' ').next().unwrap().parse::<u32>().unwrap())
                .sum();
            assert_eq!(blocks, z.nr_pageblocks(), "{s}");
        }
    }

    /// While the free scanner holds pages (compact-memory-fragmented, after its first
    /// `mm_compaction_isolate_freepages` line), the tooltip names them in the kernel's terms and
    /// the text summary counts them apart from the allocated or reserved pages; the counts add
    /// up to the zone.
    #[test]
    fn isolated_pages_have_their_tooltip_and_their_count() {
        use buddyscope::mm::{Annotation, EventKind, Tracepoint};
        let mut t = timeline("compact-memory-fragmented");
        let i = (0..t.run.log.events.len())
            .find(|&i| {
                matches!(
                    t.run.log.events[i].kind(),
                    EventKind::Annotation(Annotation::Trace(
                        Tracepoint::MmCompactionIsolateFreepages { .. }
                    ))
                )
            })
            .unwrap();
        t.seek(i as u32 + 1);
        let z = t.zone();
        let fp = isolated_free(&t);
        let n = isolated_pages(&fp);
        assert!(n > 0);
        let cells = cell_kinds(z, &t.run, 0, z.pages(), &fp);
        let count = |f: &dyn Fn(&CellKind) -> bool| cells.iter().filter(|c| f(c)).count();
        let iso = count(&|c| matches!(c, CellKind::Isolated { .. }));
        let free = count(&|c| matches!(c, CellKind::Free { .. }));
        let pcp = count(&|c| matches!(c, CellKind::Pcp { .. }));
        assert_eq!(iso, n as usize);
        let s = map_summary(z, n);
        let rest = z.pages() as usize - free - pcp - iso;
        assert!(
            s.contains(&format!(
                "{free} pages free in the buddy allocator (largest free block: order "
            )),
            "{s}"
        );
        assert!(
            s.contains(&format!(
                ", {pcp} on per-CPU lists, {iso} isolated by compaction's free scanner (cc->freepages), {rest} allocated or reserved."
            )),
            "{s}"
        );
        assert!(!map_summary(z, 0).contains("isolated"));
        let (head, order) = fp[fp.len() - 1];
        let tip = tooltip(&t, head + (1 << order) - 1);
        assert_eq!(
            tip[2],
            format!(
                "isolated by compaction's free scanner: order-{order} block at {} on cc->freepages",
                pfn_hex(z, head)
            )
        );
        assert!(tip[3].starts_with("__isolate_free_page took it off the buddy lists"));
        assert!(tip.iter().all(|l| !l.starts_with("reserved")));
    }

    /// The cells agree with the engine's counts: free cells are the buddy's free pages, pcp
    /// cells the pages on the per-CPU lists; the tooltip says the same as the cell.
    #[test]
    fn cells_and_tooltips_follow_the_engine() {
        let mut t = timeline("pcp-overflow-2cpu");
        let n = t.len();
        for target in [0, n / 3, n / 2, n] {
            t.seek(target);
            let z = t.zone();
            let cells = cell_kinds(z, &t.run, 0, z.pages(), &isolated_free(&t));
            let free = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Free { .. }))
                .count() as u64;
            let buddy: u64 = z.nr_free().iter().enumerate().map(|(o, n)| n << o).sum();
            assert_eq!(free, buddy, "at {target}");
            let pcp = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Pcp { .. }))
                .count() as i64;
            assert_eq!(pcp, z.pcp().iter().map(|p| p.count as i64).sum::<i64>());
            for (idx, c) in cells.iter().enumerate().step_by(97) {
                let tip = tooltip(&t, idx as u32);
                assert_eq!(tip[0], format!("pfn {}", pfn_hex(z, idx as u32)));
                match c {
                    CellKind::Free { order, .. } => {
                        assert!(
                            tip[2].starts_with(&format!("free: order-{order} block")),
                            "{tip:?}"
                        )
                    }
                    CellKind::Pcp { .. } => assert!(tip[2].starts_with("on the pcp of CPU")),
                    CellKind::Allocated { .. } => assert!(tip[2].starts_with("allocated by: ")),
                    CellKind::Filler { .. } => assert!(tip[2].starts_with("allocated (imported")),
                    CellKind::Reserved => assert!(tip[2].starts_with("reserved")),
                    CellKind::Isolated { .. } => {
                        assert!(tip[2].starts_with("isolated by compaction"))
                    }
                }
            }
        }
        assert!(tooltip(&t, t.zone().pages()).is_empty());
    }
}
