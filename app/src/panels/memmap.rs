//! The memory map: every page of the zone a cell on one `<canvas>`, drawn from a pixel buffer
//! with `putImageData` (never a DOM node per page).
//!
//! Pages are grouped by pageblock (512 pages) into tiles of 32 × 16 cells, framed in the
//! pageblock's migratetype colour (thicker for the rarer types). A cell's colour says what the
//! engine reports for the page: free in the buddy allocator (lighter for bigger blocks), on a
//! pcp list (yellow, hatched), allocated (a tone per op definition, dotted if the allocation's
//! type differs from its pageblock's) or reserved; pages the current event touched are
//! vermilion.
//!
//! Repainting: the renderer keeps the canvas's pixel buffer. A small cursor move repaints only
//! the tiles of the pageblocks the events between the old and the new cursor touched (events
//! carry pfn and order); a big jump, a new run, a zoom or a theme change repaints everything.

use buddyscope::focus::op_touched_pageblocks;
use buddyscope::procfs::filler_owner_mt;
use buddyscope::runner::Run;
use buddyscope::timeline::Timeline;
use buddyscope::types::{MigrateType, PAGEBLOCK_NR_PAGES};
use buddyscope::zone::{PageKind, Zone};
use leptos::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use super::follow::{follow_view, FollowView, Tiles};
use super::frame::PanelFrame;
use super::{pfn_hex, tracked_width};
use crate::browser::{expose, now_ms};
use crate::state::{AppState, Session};
use crate::theme::{self as palette, frame_width, Palette, Rgba, ThemeState};

/// Cell sizes (pixels per page side) the zoom offers.
const CELLS: [u32; 10] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32];
/// Tile columns × rows of cells (one pageblock).
const TILE_COLS: u32 = 32;
const TILE_ROWS: u32 = PAGEBLOCK_NR_PAGES / TILE_COLS;
/// "Fit" picks the biggest cells that keep the map at most this tall.
const FIT_HEIGHT: u32 = 460;
/// Beyond this many events between two cursor positions, repaint everything.
const INCREMENTAL_LIMIT: u32 = 4096;

/// Where everything is on the canvas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geom {
    pages: u32,
    cell: u32,
    pad: u32,
    tile_w: u32,
    tile_h: u32,
    per_row: u32,
    w: u32,
    h: u32,
}

impl Geom {
    fn new(pages: u32, cell: u32, avail_w: u32) -> Geom {
        let pad = if cell >= 4 { 3 } else { 2 };
        let tile_w = TILE_COLS * cell + 2 * pad;
        let tile_h = TILE_ROWS * cell + 2 * pad;
        let nb = pages.div_ceil(PAGEBLOCK_NR_PAGES).max(1);
        let per_row = (avail_w / tile_w).clamp(1, nb);
        let rows = nb.div_ceil(per_row);
        Geom {
            pages,
            cell,
            pad,
            tile_w,
            tile_h,
            per_row,
            w: per_row * tile_w,
            h: rows * tile_h,
        }
    }

    /// The biggest cell size that fits the width (one pageblock across at most).
    fn max_cell(avail_w: u32) -> u32 {
        CELLS
            .iter()
            .copied()
            .filter(|&c| TILE_COLS * c + 2 * if c >= 4 { 3 } else { 2 } <= avail_w)
            .max()
            .unwrap_or(1)
    }

    /// "Fit": the biggest cells that keep the whole zone within [`FIT_HEIGHT`].
    fn fit_cell(pages: u32, avail_w: u32) -> u32 {
        let max = Geom::max_cell(avail_w);
        CELLS
            .iter()
            .copied()
            .filter(|&c| c <= max && Geom::new(pages, c, avail_w).h <= FIT_HEIGHT)
            .max()
            .unwrap_or(1)
    }

    fn tiles(&self) -> Tiles {
        Tiles {
            tile_w: self.tile_w,
            tile_h: self.tile_h,
            per_row: self.per_row,
            w: self.w,
            h: self.h,
            cell: self.cell,
        }
    }

    fn tile_origin(&self, pb: u32) -> (u32, u32) {
        (
            (pb % self.per_row) * self.tile_w,
            (pb / self.per_row) * self.tile_h,
        )
    }

    /// The zone page under canvas pixel `(x, y)`.
    fn page_at(&self, x: i32, y: i32) -> Option<u32> {
        if x < 0 || y < 0 {
            return None;
        }
        let (x, y) = (x as u32, y as u32);
        let (tc, tr) = (x / self.tile_w, y / self.tile_h);
        if tc >= self.per_row {
            return None;
        }
        let lx = (x % self.tile_w).checked_sub(self.pad)?;
        let ly = (y % self.tile_h).checked_sub(self.pad)?;
        let (col, row) = (lx / self.cell, ly / self.cell);
        if col >= TILE_COLS || row >= TILE_ROWS {
            return None;
        }
        let pb = tr * self.per_row + tc;
        let idx = pb * PAGEBLOCK_NR_PAGES + row * TILE_COLS + col;
        (idx < self.pages).then_some(idx)
    }
}

/// What the renderer last drew.
#[derive(Default)]
struct Renderer {
    geom: Option<Geom>,
    /// Identity of the run drawn (a new session allocates a new text).
    run_key: (usize, usize, u32),
    dark: bool,
    pos: u32,
    buf: Vec<u8>,
    first_paint_done: bool,
}

/// A page's block, as the engine's per-page arrays say: `(kind, order, head)`.
#[derive(Clone, Copy)]
struct BlockOf {
    kind: PageKind,
    order: u8,
    head: u32,
}

/// Block membership of the pages `[start, end)`: scans block heads from the order-10
/// alignment below `start` (blocks are aligned and never overlap).
fn blocks_in(z: &Zone, start: u32, end: u32) -> Vec<BlockOf> {
    let none = BlockOf {
        kind: PageKind::Other,
        order: 0,
        head: u32::MAX,
    };
    let mut out = vec![none; (end - start) as usize];
    let mut p = start & !1023;
    while p < end {
        let k = z.page_kind(p);
        if k != PageKind::Other {
            let o = z.page_order(p);
            let len = 1u32 << o;
            for q in p.max(start)..(p + len).min(end) {
                out[(q - start) as usize] = BlockOf {
                    kind: k,
                    order: o,
                    head: p,
                };
            }
            p += len;
        } else {
            p += 1;
        }
    }
    out
}

/// What a cell of the map shows: the engine's state of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// In a free buddy block of `order` starting at `head`.
    Free { order: u8, head: u32 },
    /// In a block on a pcp list.
    Pcp { order: u8, head: u32 },
    /// Held by an allocation of op definition `def`; `foreign` if the allocation's type
    /// differs from its pageblock's (isolated pageblocks excepted).
    Allocated { def: u32, foreign: bool },
    /// Left allocated by the `/proc` import (owned by a pageblock type).
    Filler { foreign: bool },
    /// Neither free nor held by a recorded allocation.
    Reserved,
}

/// The cells of pages `[start, end)`.
pub fn cell_kinds(z: &Zone, run: &Run, start: u32, end: u32) -> Vec<CellKind> {
    blocks_in(z, start, end)
        .into_iter()
        .zip(start..end)
        .map(|(b, idx)| match b.kind {
            PageKind::Buddy => CellKind::Free {
                order: b.order,
                head: b.head,
            },
            PageKind::Pcp => CellKind::Pcp {
                order: b.order,
                head: b.head,
            },
            _ => {
                let owner = z.page_owner(idx);
                let pbmt = z.pb_mt(idx / PAGEBLOCK_NR_PAGES);
                let foreign = |omt: MigrateType| omt != pbmt && pbmt != MigrateType::Isolate;
                match run.owner_mt(owner) {
                    Some(omt) if filler_owner_mt(owner).is_some() => CellKind::Filler {
                        foreign: foreign(omt),
                    },
                    Some(omt) => CellKind::Allocated {
                        def: run.owners[owner as usize].def,
                        foreign: foreign(omt),
                    },
                    None => CellKind::Reserved,
                }
            }
        })
        .collect()
}

fn put(buf: &mut [u8], stride: u32, x: u32, y: u32, c: Rgba) {
    let i = ((y * stride + x) * 4) as usize;
    buf[i..i + 4].copy_from_slice(&c);
}

fn fill(buf: &mut [u8], stride: u32, x0: u32, y0: u32, w: u32, h: u32, c: Rgba) {
    for y in y0..y0 + h {
        let row = ((y * stride + x0) * 4) as usize;
        for px in buf[row..row + (w * 4) as usize].chunks_exact_mut(4) {
            px.copy_from_slice(&c);
        }
    }
}

/// Paints pageblock `pb`'s tile into `buf` (the whole canvas, `g.w` pixels wide).
fn paint_tile(
    buf: &mut [u8],
    g: &Geom,
    z: &Zone,
    run: &Run,
    pb: u32,
    hl: Option<(u32, u32)>,
    pal: &Palette,
) {
    let (tx, ty) = g.tile_origin(pb);
    let mt = z.pb_mt(pb);
    let stride = g.w;
    // Frame in the pageblock's colour, thickness by type, on the background.
    fill(buf, stride, tx, ty, g.tile_w, g.tile_h, pal.bg);
    let fw = frame_width(mt).min(g.pad);
    let fc = pal.mt[mt.idx()];
    fill(buf, stride, tx, ty, g.tile_w, fw, fc);
    fill(buf, stride, tx, ty + g.tile_h - fw, g.tile_w, fw, fc);
    fill(buf, stride, tx, ty, fw, g.tile_h, fc);
    fill(buf, stride, tx + g.tile_w - fw, ty, fw, g.tile_h, fc);

    let start = pb * PAGEBLOCK_NR_PAGES;
    let end = (start + PAGEBLOCK_NR_PAGES).min(g.pages);
    let cells = cell_kinds(z, run, start, end);
    let c = g.cell;
    let (hl0, hl1) = hl.map(|(s, n)| (s, s.saturating_add(n))).unwrap_or((1, 0));
    for idx in start..end {
        let i = idx - start;
        let (cx, row) = (i % TILE_COLS, i / TILE_COLS);
        let x0 = tx + g.pad + cx * c;
        let y0 = ty + g.pad + row * c;
        let cell = cells[i as usize];
        let highlighted = idx >= hl0 && idx < hl1;
        let dotted = |foreign: bool| if foreign { Pattern::Dot } else { Pattern::None };
        let (base, pattern) = match cell {
            CellKind::Free { order, .. } => (pal.free[order as usize], Pattern::None),
            CellKind::Pcp { .. } => (pal.pcp, Pattern::Hatch),
            CellKind::Allocated { def, foreign } => {
                (pal.alloc[def as usize % pal.alloc.len()], dotted(foreign))
            }
            CellKind::Filler { foreign } => (pal.filler, dotted(foreign)),
            CellKind::Reserved => (pal.reserved, Pattern::None),
        };
        let base = if highlighted { pal.highlight } else { base };
        // The block's rectangle inside this tile (free and pcp blocks), for edges.
        let rect = match cell {
            CellKind::Free { order, head } | CellKind::Pcp { order, head } if c >= 4 => {
                Some(block_rect(order, head, start))
            }
            _ => None,
        };
        for py in 0..c {
            for px in 0..c {
                let (x, y) = (x0 + px, y0 + py);
                let mut colour = base;
                match pattern {
                    Pattern::Hatch if (x + y) % 4 == 0 => colour = pal.pcp_hatch,
                    Pattern::Dot if is_dot(c, px, py, x, y) => colour = pal.dot,
                    _ => {}
                }
                if let Some((c0, r0, c1, r1)) = rect {
                    let edge = (cx == c0 && px == 0)
                        || (cx + 1 == c1 && px == c - 1)
                        || (row == r0 && py == 0)
                        || (row + 1 == r1 && py == c - 1);
                    if edge {
                        colour = if highlighted {
                            pal.highlight_edge
                        } else {
                            pal.free_edge
                        };
                    }
                }
                put(buf, stride, x, y, colour);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Pattern {
    None,
    Hatch,
    Dot,
}

/// The dot of a foreign page: a centred square at bigger cells, a stipple at small ones.
fn is_dot(c: u32, px: u32, py: u32, x: u32, y: u32) -> bool {
    if c >= 3 {
        let d = (c / 3).max(1);
        let lo = (c - d) / 2;
        px >= lo && px < lo + d && py >= lo && py < lo + d
    } else {
        x.is_multiple_of(2) && y.is_multiple_of(2)
    }
}

/// `(col0, row0, col1, row1)` of a block's cells within the tile starting at page `start`.
fn block_rect(order: u8, head: u32, start: u32) -> (u32, u32, u32, u32) {
    if order >= 9 {
        return (0, 0, TILE_COLS, TILE_ROWS);
    }
    let local = head - start;
    let (c0, r0) = (local % TILE_COLS, local / TILE_COLS);
    if order <= 5 {
        (c0, r0, c0 + (1 << order), r0 + 1)
    } else {
        (0, r0, TILE_COLS, r0 + (1 << (order - 5)))
    }
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

impl Renderer {
    /// Draws the session at its cursor. Returns true for a full repaint.
    fn render(
        &mut self,
        canvas: &HtmlCanvasElement,
        s: &Session,
        cell: u32,
        avail_w: u32,
        dark: bool,
    ) -> bool {
        let tl = &s.timeline;
        let z = tl.zone();
        let run = &tl.run;
        let g = Geom::new(z.pages(), cell, avail_w);
        let key = (s.text.as_ptr() as usize, s.text.len(), tl.len());
        let pos = tl.pos();
        let pal = palette::palette(dark);
        let hl = tl.current().and_then(|e| e.kind.touched_pages());
        let Some(ctx) = context(canvas) else {
            return false;
        };
        let full = self.geom != Some(g)
            || self.run_key != key
            || self.dark != dark
            || pos.abs_diff(self.pos) > INCREMENTAL_LIMIT;
        let nb = g.pages.div_ceil(PAGEBLOCK_NR_PAGES);
        let mut dirty = Vec::new();
        if !full {
            let (lo, hi) = (pos.min(self.pos), pos.max(self.pos));
            let events = &run.log.events;
            let mut mark = |i: u32| {
                if let Some((s, n)) = events.get(i as usize).and_then(|e| e.kind.touched_pages()) {
                    let first = s / PAGEBLOCK_NR_PAGES;
                    let last = (s + n.max(1) - 1) / PAGEBLOCK_NR_PAGES;
                    dirty.extend(first..=last.min(nb - 1));
                }
            };
            for i in lo..hi {
                mark(i);
            }
            // The highlight moves from the old current event to the new one.
            if self.pos > 0 {
                mark(self.pos - 1);
            }
            if pos > 0 {
                mark(pos - 1);
            }
            dirty.sort_unstable();
            dirty.dedup();
        }
        let full = full || dirty.len() as u32 > nb / 2;
        if full {
            if canvas.width() != g.w {
                canvas.set_width(g.w);
            }
            if canvas.height() != g.h {
                canvas.set_height(g.h);
            }
            self.buf.clear();
            self.buf.resize((g.w * g.h * 4) as usize, 0);
            fill(&mut self.buf, g.w, 0, 0, g.w, g.h, pal.bg);
            for pb in 0..nb {
                paint_tile(&mut self.buf, &g, z, run, pb, hl, pal);
            }
            put_image(&ctx, &self.buf, g.w, g.h, 0, 0);
        } else {
            let mut tile = Vec::with_capacity((g.tile_w * g.tile_h * 4) as usize);
            for pb in dirty {
                paint_tile(&mut self.buf, &g, z, run, pb, hl, pal);
                let (tx, ty) = g.tile_origin(pb);
                tile.clear();
                for y in ty..ty + g.tile_h {
                    let row = ((y * g.w + tx) * 4) as usize;
                    tile.extend_from_slice(&self.buf[row..row + (g.tile_w * 4) as usize]);
                }
                put_image(&ctx, &tile, g.tile_w, g.tile_h, tx, ty);
            }
        }
        if self.geom != Some(g) {
            // The geometry, for tests and tools that map pages to pixels.
            for (k, v) in [
                ("data-cell", g.cell),
                ("data-pad", g.pad),
                ("data-tile-w", g.tile_w),
                ("data-tile-h", g.tile_h),
                ("data-per-row", g.per_row),
            ] {
                let _ = canvas.set_attribute(k, &v.to_string());
            }
        }
        let _ = canvas.set_attribute("data-start-pfn", &z.cfg().start_pfn.to_string());
        self.geom = Some(g);
        self.run_key = key;
        self.dark = dark;
        self.pos = pos;
        full
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
            if let Some(fmt) = filler_owner_mt(owner) {
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
            } else {
                out.push("reserved: not free, no recorded owner".to_string());
            }
            out.push(format!("refcount {}", z.page_refcount(idx)));
        }
    }
    if let Some((s0, n)) = tl.current().and_then(|e| e.kind.touched_pages()) {
        if idx >= s0 && idx - s0 < n {
            out.push("touched by the current event".to_string());
        }
    }
    out
}

#[component]
pub fn MemoryMapPanel() -> impl IntoView {
    let state = AppState::viewed();
    // In exercise mode a click on a page answers a "click the page" question.
    let exercises = crate::panels::exercises::ExerciseCtl::get();
    let dark = ThemeState::dark();
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let scroll_ref = NodeRef::<leptos::html::Div>::new();
    let renderer = StoredValue::new_local(Renderer::default());
    // Zoom: None = fit the zone; Some(cell px).
    let zoom = RwSignal::new(None::<u32>);
    // The scroll box's inner width (a little under its client width), at least 40 px.
    let avail = tracked_width(scroll_ref, |w| (w.max(0) as u32).saturating_sub(4).max(40));
    let tip_at = RwSignal::new((0i32, 0i32));
    // Follow the action: always in presenter mode, on request (the Follow button) elsewhere.
    let following = Memo::new(move |_| state.presenter.get() || state.follow.get());
    // The current op (none before the first event: the whole zone), keyed by the run, so the
    // span below is computed once per op, not on every step inside it.
    let op_key = Memo::new(move |_| {
        state
            .with(|s| {
                let t = &s.timeline;
                let op = if t.pos() == 0 { None } else { t.op_index() };
                (s.text.as_ptr() as usize, s.text.len(), t.len(), op)
            })
            .unwrap_or_default()
    });
    // The pageblocks the current op touches.
    let span = Memo::new(move |_| {
        if !following.get() {
            return None;
        }
        let op = op_key.get().3?;
        state
            .with_untracked(|s| op_touched_pageblocks(&s.timeline.run, op))
            .flatten()
    });
    let drawn = RwSignal::new(None::<Geom>);
    // The visible box of the map (`map-inner`), which presenter mode makes shorter than the canvas.
    let inner_ref = NodeRef::<leptos::html::Div>::new();
    let viewport = RwSignal::new((0u32, 0u32));
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
    };
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    let view_at = Memo::new(move |_| match (following.get(), drawn.get()) {
        (true, Some(g)) => follow_view(&g.tiles(), span.get(), viewport.get()),
        _ => FollowView::WHOLE,
    });
    let overview_ref = NodeRef::<leptos::html::Canvas>::new();

    let cell = Memo::new(move |_| {
        let w = avail.get().max(40);
        let pages = state.with(|s| s.timeline.zone().pages()).unwrap_or(1024);
        match zoom.get() {
            Some(c) => c.min(Geom::max_cell(w)),
            None => Geom::fit_cell(pages, w),
        }
    });

    Effect::new(move |_| {
        let c = cell.get();
        let w = avail.get();
        let d = dark.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if w == 0 {
            return;
        }
        let t0 = now_ms();
        let full = state
            .with(|s| renderer.try_update_value(|r| r.render(&canvas, s, c, w, d)))
            .flatten()
            .unwrap_or(false);
        let t1 = now_ms();
        let g = renderer.with_value(|r| r.geom);
        if drawn.get_untracked() != g {
            drawn.set(g);
        }
        measure();
        if following.get() {
            if let (Some(g), Some(ov)) = (g, overview_ref.get()) {
                draw_overview(&canvas, &ov, &g);
            }
        }
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
    });

    let on_move = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x(), ev.offset_y());
        let page = renderer.with_value(|r| r.geom.and_then(|g| g.page_at(x, y)));
        tip_at.set((x, y));
        if state.hover.get_untracked() != page {
            state.hover.set(page);
        }
    };

    let zoom_label = move |c: u32| format!("{c} px per page");
    let zoom_step = move |dir: i32| {
        let cur = cell.get_untracked();
        let max = Geom::max_cell(avail.get_untracked().max(40));
        let i = CELLS.iter().position(|&c| c == cur).unwrap_or(0) as i32;
        let j = (i + dir).clamp(0, CELLS.len() as i32 - 1) as usize;
        zoom.set(Some(CELLS[j].min(max)));
    };

    let tip = move || {
        let idx = state.hover.get()?;
        let lines = state.with(|s| tooltip(&s.timeline, idx))?;
        if lines.is_empty() {
            return None;
        }
        let (x, y) = tip_at.get();
        let w = renderer.with_value(|r| r.geom.map(|g| g.w).unwrap_or(0)) as i32;
        let style = if x > w - 340 {
            format!("right:{}px;top:{}px", (w - x + 14).max(0), y + 16)
        } else {
            format!("left:{}px;top:{}px", x + 14, y + 16)
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
        state
            .with(|s| {
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
                disabled=move || state.presenter.get()
                title="Follow the action: zoom to the pageblocks the current operation touches"
                on:click=move |_| state.follow.update(|f| *f = !*f)
            >
                "Follow"
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
                    <option value="fit">{move || format!("Fit ({} px)", cell.get())}</option>
                    {CELLS
                        .iter()
                        .map(|&c| view! { <option value=c.to_string()>{zoom_label(c)}</option> })
                        .collect_view()}
                </select>
                <button type="button" class="icon-btn" title="Zoom in" aria-label="Zoom in"
                    on:click=move |_| zoom_step(1)>"+"</button>
            </div>
        }
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
                    data-focus-scale=move || format!("{:.2}", view_at.get().scale)
                >
                    <canvas
                        data-testid="memory-map"
                        node_ref=canvas_ref
                        style:transform=move || following.get().then(|| view_at.get().css())
                        role="img"
                        aria-label=move || state.with(|s| map_summary(s.timeline.zone())).unwrap_or_default()
                        class:answering=move || {
                            exercises.is_some_and(|x| x.asking() == Some(buddyscope::exercises::AnswerKind::Page))
                        }
                        on:mousemove=on_move
                        on:mouseleave=move |_| state.hover.set(None)
                        on:click=move |ev: web_sys::MouseEvent| {
                            let page = renderer
                                .with_value(|r| r.geom.and_then(|g| g.page_at(ev.offset_x(), ev.offset_y())));
                            let Some(idx) = page else { return };
                            let pfn = state.with_untracked(|s| s.timeline.zone().abs_pfn(idx));
                            if exercises.zip(pfn).is_some_and(|(x, pfn)| x.take_page(pfn)) {
                                return;
                            }
                            state.selected_page.set(page);
                        }
                    ></canvas>
                    {tip}
                    <Overview canvas=overview_ref view_at=view_at drawn=drawn span=span/>
                </div>
            </div>
            <Legend/>
        </PanelFrame>
    }
}

/// The map's text alternative (its accessible name): what a screen-reader user would read off
/// the picture. The zone and its pageblocks per migratetype, the pages free in the buddy (and the
/// largest free order), on pcp lists, and the rest; the engine's own counters, never a re-count.
pub fn map_summary(z: &Zone) -> String {
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
    let rest = (i64::from(z.pages()) - buddy - pcp).max(0);
    format!(
        "Memory map of zone {}: {} pages in {} pageblocks ({}). {buddy} pages free in the buddy allocator{largest}, {pcp} on per-CPU lists, {rest} allocated or reserved.",
        z.cfg().name,
        z.pages(),
        z.nr_pageblocks(),
        types.join(", "),
    )
}

/// Overview width in CSS pixels (at most a quarter of the map).
const OVERVIEW_W: u32 = 200;

fn overview_size(g: &Geom) -> (u32, u32) {
    let w = OVERVIEW_W.min(g.w / 4).max(1);
    (
        w,
        (u64::from(g.h) * u64::from(w) / u64::from(g.w.max(1))).max(1) as u32,
    )
}

/// Copies the whole map, scaled down, into the overview canvas.
fn draw_overview(main: &HtmlCanvasElement, ov: &HtmlCanvasElement, g: &Geom) {
    let (w, h) = overview_size(g);
    if ov.width() != w {
        ov.set_width(w);
    }
    if ov.height() != h {
        ov.set_height(h);
    }
    if let Some(ctx) = context(ov) {
        ctx.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
        let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
            main,
            0.0,
            0.0,
            f64::from(w),
            f64::from(h),
        );
    }
}

/// The whole zone in small, with a marker on the pageblocks the zoomed map shows.
#[component]
fn Overview(
    canvas: NodeRef<leptos::html::Canvas>,
    view_at: Memo<FollowView>,
    drawn: RwSignal<Option<Geom>>,
    span: Memo<Option<(u32, u32)>>,
) -> impl IntoView {
    let marker = move || {
        let g = drawn.get()?;
        let (first, last) = span.get()?;
        let f = view_at.get().focus;
        let (gw, gh) = (f64::from(g.w.max(1)), f64::from(g.h.max(1)));
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
fn Legend() -> impl IntoView {
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
    view! {
        <div class="legend" data-testid="map-legend">
            <ul class="legend-cells" aria-label="Cell colours">
                {item("free (lighter = bigger block)", free)}
                {item("allocated (a tone per op)", alloc)}
                {item("on a pcp list (hatched)", pcp)}
                {item("current event", hl)}
                {item("foreign type (dot)", foreign)}
                {item("reserved", reserved)}
            </ul>
            <ul class="legend-frames" aria-label="Pageblock frames">
                <li class="legend-title">"pageblock:"</li>
                {frames}
            </ul>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::testutil::timeline;

    /// The text alternative counts what the cells show: free, pcp and the rest add up to the
    /// zone, and the pageblock counts per type add up to the pageblocks.
    #[test]
    fn the_summary_is_the_cells_in_words() {
        let mut t = timeline("pcp-overflow-2cpu");
        let n = t.len();
        for target in [0, n / 2, n] {
            t.seek(target);
            let z = t.zone();
            let cells = cell_kinds(z, &t.run, 0, z.pages());
            let free = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Free { .. }))
                .count();
            let pcp = cells
                .iter()
                .filter(|c| matches!(c, CellKind::Pcp { .. }))
                .count();
            let rest = z.pages() as usize - free - pcp;
            let s = map_summary(z);
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

    /// The cells agree with the engine's counts: free cells are the buddy's free pages, pcp
    /// cells the pages on the per-CPU lists; the tooltip says the same as the cell.
    #[test]
    fn cells_and_tooltips_follow_the_engine() {
        let mut t = timeline("pcp-overflow-2cpu");
        let n = t.len();
        for target in [0, n / 3, n / 2, n] {
            t.seek(target);
            let z = t.zone();
            let cells = cell_kinds(z, &t.run, 0, z.pages());
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
                }
            }
        }
        assert!(tooltip(&t, t.zone().pages()).is_empty());
    }
}
