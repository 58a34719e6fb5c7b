//! The memory map's drawing, without the browser: the layout in device pixels, the level of
//! detail, a per-page colour code cache kept in step with the cursor, and painting into RGBA
//! buffers. `memmap` puts the buffers on the canvas.
//!
//! Why this shape: a 16 GiB zone has 4,194,304 pages. Deriving every page's cell
//! from the engine on each repaint took 140–253 ms, so
//! - each page's cell is a one-byte code ([`MapCache::codes`]), recomputed only for the
//!   pageblocks the events between two cursor positions touched;
//! - zoomed out, a pageblock is drawn as 8 × 4 pixels, each the dominant code of 4 × 4 pages
//!   ([`MapCache::agg`], kept in step the same way): the level that fits big zones on screen;
//! - only the visible part of the map is painted ([`paint_view`]), at the canvas's device size.

use buddyscope::mm::filler_owner_mt;
use buddyscope::mm::{Annotation, EventKind, MigrateType, PAGEBLOCK_NR_PAGES};
use buddyscope::mm::{Node, PageKind, Zone};
use buddyscope::run::Run;
use buddyscope::run::Timeline;

use crate::theme::{frame_width, Palette, Rgba};

/// Tile columns × rows of cells (one pageblock).
pub const TILE_COLS: u32 = 32;
pub const TILE_ROWS: u32 = PAGEBLOCK_NR_PAGES / TILE_COLS;
/// At the pageblock level one pixel (times the device pixel ratio) stands for `GROUP × GROUP`
/// pages of the tile.
pub const GROUP: u32 = 4;
/// Groups per pageblock at the pageblock level (8 × 4).
pub const GROUPS_PER_PB: usize = ((TILE_COLS / GROUP) * (TILE_ROWS / GROUP)) as usize;
/// The pageblock level in the zoom list (CSS pixels per page side otherwise).
pub const PB_LEVEL: u32 = 0;
/// Zoom levels: the pageblock level, then CSS pixels per page side.
pub const ZOOMS: [u32; 11] = [PB_LEVEL, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32];
/// "Fit" picks the biggest level that keeps the map at most this tall (CSS pixels).
pub const FIT_HEIGHT: u32 = 460;
/// ... and a pixel per page up to this height (the map box's largest, 40rem), the pageblock
/// level beyond.
pub const PAGE_FIT_HEIGHT: u32 = 640;

/// Cell codes: `0..=10` free in a buddy block of that order, then the other states. Allocated
/// and filler codes carry "foreign" (the allocation's type differs from its pageblock's) in bit 0.
pub const CODE_PCP: u8 = 11;
pub const CODE_RESERVED: u8 = 12;
/// Taken out of the buddy by compaction's free scanner, on `cc->freepages`.
pub const CODE_ISOLATED: u8 = 13;
pub const CODE_FILLER: u8 = 14;
pub const CODE_ALLOC: u8 = 16;
/// No page (past the end of a zone that ends inside a pageblock).
pub const CODE_NONE: u8 = 255;

/// The code of a cell.
pub fn code(c: CellKind, tones: usize) -> u8 {
    match c {
        CellKind::Free { order, .. } => order,
        CellKind::Pcp { .. } => CODE_PCP,
        CellKind::Reserved => CODE_RESERVED,
        CellKind::Isolated { .. } => CODE_ISOLATED,
        CellKind::Filler { foreign } => CODE_FILLER + u8::from(foreign),
        CellKind::Allocated { def, foreign } => {
            CODE_ALLOC + 2 * (def as usize % tones) as u8 + u8::from(foreign)
        }
    }
}

fn foreign(code: u8) -> bool {
    code != CODE_NONE && code >= CODE_FILLER && code & 1 == 1
}

/// A code's base colour.
pub fn colour(code: u8, pal: &Palette) -> Rgba {
    match code {
        0..=10 => pal.free[code as usize],
        CODE_PCP => pal.pcp,
        CODE_RESERVED => pal.reserved,
        CODE_ISOLATED => pal.isolated,
        CODE_NONE => pal.bg,
        c if c >= CODE_ALLOC => pal.alloc[((c - CODE_ALLOC) / 2) as usize % pal.alloc.len()],
        _ => pal.filler,
    }
}

/// Where everything is on the map, in device pixels. The canvas shows a window of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geom {
    pub pages: u32,
    /// Pages per cell side: 1 (a cell per page) or [`GROUP`] (the pageblock level).
    pub group: u32,
    /// Device pixels per cell side.
    pub cell: u32,
    pub pad: u32,
    pub tile_w: u32,
    pub tile_h: u32,
    pub per_row: u32,
    /// The whole map.
    pub w: u32,
    pub h: u32,
    /// Device pixels per CSS pixel.
    pub dpr: f64,
}

/// Device pixels for `css` CSS pixels: whole pixels, at least one (cells snap to the device
/// grid, so they stay sharp at any ratio).
fn dev(css: u32, dpr: f64) -> u32 {
    ((f64::from(css) * dpr).round() as u32).max(1)
}

impl Geom {
    /// The layout of a zone of `pages` at zoom level `zoom` ([`ZOOMS`]) in a box `avail_css`
    /// CSS pixels wide on a screen of `dpr` device pixels per CSS pixel.
    pub fn new(pages: u32, zoom: u32, dpr: f64, avail_css: u32) -> Geom {
        let dpr = if dpr.is_finite() && dpr > 0.0 {
            dpr
        } else {
            1.0
        };
        let (group, cell_css, pad_css) = match zoom {
            PB_LEVEL => (GROUP, 1, 1),
            z if z >= 4 => (1, z, 3),
            z => (1, z, 2),
        };
        let cell = dev(cell_css, dpr);
        let pad = dev(pad_css, dpr);
        let tile_w = TILE_COLS / group * cell + 2 * pad;
        let tile_h = TILE_ROWS / group * cell + 2 * pad;
        let nb = pages.div_ceil(PAGEBLOCK_NR_PAGES).max(1);
        let avail = (f64::from(avail_css) * dpr).floor() as u32;
        let per_row = (avail / tile_w).clamp(1, nb);
        let rows = nb.div_ceil(per_row);
        Geom {
            pages,
            group,
            cell,
            pad,
            tile_w,
            tile_h,
            per_row,
            w: per_row * tile_w,
            h: rows * tile_h,
            dpr,
        }
    }

    /// The biggest page level that fits the width (one pageblock across at most).
    pub fn max_zoom(avail_css: u32) -> u32 {
        ZOOMS
            .iter()
            .copied()
            .filter(|&c| {
                c != PB_LEVEL && TILE_COLS * c + 2 * if c >= 4 { 3 } else { 2 } <= avail_css
            })
            .max()
            .unwrap_or(1)
    }

    /// "Fit": the biggest level that keeps the whole zone within [`FIT_HEIGHT`]; one pixel per
    /// page up to [`PAGE_FIT_HEIGHT`]; the pageblock level beyond.
    pub fn fit_zoom(pages: u32, avail_css: u32) -> u32 {
        let max = Geom::max_zoom(avail_css);
        ZOOMS
            .iter()
            .copied()
            .filter(|&c| {
                c != PB_LEVEL && c <= max && Geom::new(pages, c, 1.0, avail_css).h <= FIT_HEIGHT
            })
            .max()
            .unwrap_or(
                if Geom::new(pages, 1, 1.0, avail_css).h <= PAGE_FIT_HEIGHT {
                    1
                } else {
                    PB_LEVEL
                },
            )
    }

    pub fn nb(&self) -> u32 {
        self.pages.div_ceil(PAGEBLOCK_NR_PAGES).max(1)
    }

    /// A device length in CSS pixels.
    pub fn css(&self, v: u32) -> f64 {
        f64::from(v) / self.dpr
    }

    /// CSS pixels per page side (a quarter at the pageblock level, with a ratio of 1).
    pub fn css_cell(&self) -> f64 {
        self.css(self.cell) / f64::from(self.group)
    }

    /// The tile layout in CSS pixels, for the follow view's overview.
    pub fn tiles(&self) -> Tiles {
        let c = |v: u32| self.css(v).round().max(1.0) as u32;
        Tiles {
            tile_w: c(self.tile_w),
            tile_h: c(self.tile_h),
            per_row: self.per_row,
            w: c(self.w),
            h: c(self.h),
        }
    }

    /// This layout at `cell` device pixels per cell side (the follow view's zoom): the same
    /// pageblocks per row, the padding scaled alike, every length whole device pixels.
    pub fn with_cell(&self, cell: u32) -> Geom {
        let cell = cell.max(1);
        let pad = (self.pad * cell / self.cell.max(1)).max(1);
        let tile_w = TILE_COLS / self.group * cell + 2 * pad;
        let tile_h = TILE_ROWS / self.group * cell + 2 * pad;
        let rows = self.nb().div_ceil(self.per_row.max(1));
        Geom {
            cell,
            pad,
            tile_w,
            tile_h,
            w: self.per_row * tile_w,
            h: rows * tile_h,
            ..*self
        }
    }

    /// The centre of page `page`'s cell, in map pixels.
    pub fn cell_centre(&self, page: u32) -> (f64, f64) {
        let (tx, ty) = self.tile_origin(page / PAGEBLOCK_NR_PAGES);
        let local = page % PAGEBLOCK_NR_PAGES;
        let cols = TILE_COLS / self.group;
        let i = (local / TILE_COLS / self.group) * cols + (local % TILE_COLS) / self.group;
        let half = f64::from(self.cell) / 2.0;
        (
            f64::from(tx + self.pad + (i % cols) * self.cell) + half,
            f64::from(ty + self.pad + (i / cols) * self.cell) + half,
        )
    }

    pub fn tile_origin(&self, pb: u32) -> (u32, u32) {
        (
            (pb % self.per_row) * self.tile_w,
            (pb / self.per_row) * self.tile_h,
        )
    }

    /// The zone page under map pixel `(x, y)` (device pixels; at the pageblock level the first
    /// page of the group).
    pub fn page_at(&self, x: i64, y: i64) -> Option<u32> {
        if x < 0 || y < 0 || x >= i64::from(self.w) || y >= i64::from(self.h) {
            return None;
        }
        let (x, y) = (x as u32, y as u32);
        let (tc, tr) = (x / self.tile_w, y / self.tile_h);
        let lx = (x % self.tile_w).checked_sub(self.pad)?;
        let ly = (y % self.tile_h).checked_sub(self.pad)?;
        let (col, row) = (lx / self.cell * self.group, ly / self.cell * self.group);
        if col >= TILE_COLS || row >= TILE_ROWS {
            return None;
        }
        let pb = tr * self.per_row + tc;
        let idx = pb * PAGEBLOCK_NR_PAGES + row * TILE_COLS + col;
        (idx < self.pages).then_some(idx)
    }
}

/// The map's tile layout (the memory map's `Geom`, the parts needed here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    pub tile_w: u32,
    pub tile_h: u32,
    pub per_row: u32,
    /// The whole map.
    pub w: u32,
    pub h: u32,
}

/// Compaction's two scanners at the cursor, as the map marks them (zone page indices of the
/// zone shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScannerMarks {
    /// The migration scanner (`isolate_migratepages`, up from the zone start):
    /// `cc->migrate_pfn`, the next page it looks at.
    pub migrate: u32,
    /// The free scanner (`isolate_freepages`, down from the zone end): `cc->free_pfn`.
    pub free: u32,
}

impl ScannerMarks {
    /// The pages the markers sit on: a scanner at the zone end marks the last page.
    pub fn pages(&self, pages: u32) -> [u32; 2] {
        let last = pages.saturating_sub(1);
        [self.migrate.min(last), self.free.min(last)]
    }
}

/// The scanners of the `compact_zone` in progress at the cursor
/// (`explain::compaction_scanners`), when the map shows the zone being compacted; `None`
/// outside a compaction or while another zone of the node is on screen.
pub fn scanner_marks(tl: &Timeline) -> Option<ScannerMarks> {
    // `zone()` is the node's active zone itself unless another zone was picked.
    if !std::ptr::eq(tl.zone(), tl.node().active()) {
        return None;
    }
    let s = buddyscope::explain::compaction_scanners(&tl.run, tl.zone(), tl.pos())?;
    Some(ScannerMarks {
        migrate: s.migrate_pfn,
        free: s.free_pfn,
    })
}

/// The legend's line for the scanners: each with the kernel function and its absolute pfn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScannerLegend {
    pub migrate_pfn: String,
    pub free_pfn: String,
}

impl ScannerLegend {
    pub fn migrate_text(&self) -> String {
        format!(
            "migration scanner (isolate_migratepages) at pfn {}",
            self.migrate_pfn
        )
    }
    pub fn free_text(&self) -> String {
        format!("free scanner (isolate_freepages) at pfn {}", self.free_pfn)
    }
}

/// The legend's scanner line at the cursor, if a compaction is under way there.
pub fn scanner_legend(tl: &Timeline) -> Option<ScannerLegend> {
    let m = scanner_marks(tl)?;
    let z = tl.zone();
    Some(ScannerLegend {
        migrate_pfn: format!("{:#x}", z.abs_pfn(m.migrate)),
        free_pfn: format!("{:#x}", z.abs_pfn(m.free)),
    })
}

/// The migration at the cursor, as the map draws it (zone page indices of the zone shown):
/// the folio's first page before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrationMark {
    pub from: u32,
    pub to: u32,
    pub order: u8,
}

/// The migration the cursor's event is (`Annotation::Migrate`: `migrate_pages` in compaction
/// or in `alloc_contig_range`), when the map shows the zone it happens in; `None` at any
/// other event.
pub fn migration_at(tl: &Timeline) -> Option<MigrationMark> {
    let EventKind::Annotation(Annotation::Migrate {
        from,
        to,
        order,
        zone,
        ..
    }) = tl.current()?.kind()
    else {
        return None;
    };
    if !std::ptr::eq(tl.zone(), tl.node().zone(zone as usize)) {
        return None;
    }
    Some(MigrationMark { from, to, order })
}

/// The legend's line for the migration at the cursor: both absolute pfns and the order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrationLegend {
    pub from_pfn: String,
    pub to_pfn: String,
    pub order: u8,
}

impl MigrationLegend {
    pub fn text(&self) -> String {
        format!("migrate: pfn {} → pfn {}", self.from_pfn, self.to_pfn)
    }
}

/// The legend's migration line at the cursor, if the cursor is at a migration.
pub fn migration_legend(tl: &Timeline) -> Option<MigrationLegend> {
    let m = migration_at(tl)?;
    let z = tl.zone();
    Some(MigrationLegend {
        from_pfn: format!("{:#x}", z.abs_pfn(m.from)),
        to_pfn: format!("{:#x}", z.abs_pfn(m.to)),
        order: m.order,
    })
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
    /// Taken out of the buddy by compaction's free scanner (`__isolate_free_page`), on
    /// `cc->freepages` in the block of `order` at `head`, waiting for a migrated folio.
    Isolated { order: u8, head: u32 },
}

/// The free blocks compaction's free scanner holds at the cursor (`cc->freepages`, as
/// [`compaction_freepages`] reads them off the run): `(head, order)` in zone pages of the zone
/// shown, in pfn order; empty outside a `compact_zone` or while another zone of the node is on
/// screen.
///
/// [`compaction_freepages`]: buddyscope::explain::compaction_freepages
pub fn isolated_free(tl: &Timeline) -> Vec<(u32, u8)> {
    if !std::ptr::eq(tl.zone(), tl.node().active()) {
        return Vec::new();
    }
    buddyscope::explain::compaction_freepages(&tl.run, tl.pos()).unwrap_or_default()
}

/// The block of `freepages` (sorted, as [`isolated_free`] gives them) that holds page `idx`.
pub fn isolated_block(freepages: &[(u32, u8)], idx: u32) -> Option<(u32, u8)> {
    let i = freepages
        .partition_point(|&(h, _)| h <= idx)
        .checked_sub(1)?;
    let (h, o) = freepages[i];
    (idx - h < 1u32 << o).then_some((h, o))
}

/// Pages in `freepages`.
pub fn isolated_pages(freepages: &[(u32, u8)]) -> u32 {
    freepages.iter().map(|&(_, o)| 1u32 << o).sum()
}

/// The cells of pages `[start, end)`, with `freepages` the blocks compaction's free scanner
/// holds ([`isolated_free`]).
pub fn cell_kinds(
    z: &Zone,
    run: &Run,
    start: u32,
    end: u32,
    freepages: &[(u32, u8)],
) -> Vec<CellKind> {
    blocks_in(z, start, end)
        .into_iter()
        .zip(start..end)
        .map(|(b, idx)| match b.kind {
            PageKind::Other
                if !freepages.is_empty() && isolated_block(freepages, idx).is_some() =>
            {
                let (head, order) = isolated_block(freepages, idx).expect("checked");
                CellKind::Isolated { order, head }
            }
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

/// A run's identity: the model numbers every run it installs.
pub type RunKey = crate::model::RunId;

/// Beyond this many events between two cursor positions, recompute every code.
const SYNC_EVENT_LIMIT: u32 = 1 << 20;

/// The map's per-page codes and per-pageblock summary at one cursor position of one run.
#[derive(Default)]
pub struct MapCache {
    key: Option<RunKey>,
    pos: u32,
    /// One code per page.
    pub codes: Vec<u8>,
    /// [`GROUPS_PER_PB`] codes per pageblock: the dominant code of each 4 × 4 group of its tile.
    pub agg: Vec<u8>,
}

impl MapCache {
    /// Brings the codes to the cursor of `tl`. Returns the pageblocks whose codes were
    /// recomputed, or `None` when all were (a new run, or a long jump).
    pub fn sync(&mut self, key: RunKey, tl: &Timeline) -> Option<Vec<u32>> {
        let z = tl.zone();
        let pos = tl.pos();
        let nb = z.pages().div_ceil(PAGEBLOCK_NR_PAGES);
        let fresh = self.key == Some(key) && self.codes.len() == z.pages() as usize;
        if fresh && pos == self.pos {
            return Some(Vec::new());
        }
        let (lo, hi) = (pos.min(self.pos), pos.max(self.pos));
        let dirty = (fresh && hi - lo <= SYNC_EVENT_LIMIT)
            .then(|| touched_pageblocks(&tl.run, lo, hi, nb))
            .filter(|d| d.len() as u32 <= nb / 2);
        self.key = Some(key);
        self.pos = pos;
        let freepages = isolated_free(tl);
        match dirty {
            Some(d) => {
                for &pb in &d {
                    self.refresh(z, &tl.run, pb, pb + 1, &freepages);
                }
                Some(d)
            }
            None => {
                self.codes.clear();
                self.codes.resize(z.pages() as usize, CODE_NONE);
                self.agg.clear();
                self.agg.resize(nb as usize * GROUPS_PER_PB, CODE_NONE);
                // In chunks: the engine's block scan allocates per call.
                let mut pb = 0;
                while pb < nb {
                    let end = (pb + 64).min(nb);
                    self.refresh(z, &tl.run, pb, end, &freepages);
                    pb = end;
                }
                None
            }
        }
    }

    /// Recomputes the codes and the summary of pageblocks `pb0..pb1`.
    fn refresh(&mut self, z: &Zone, run: &Run, pb0: u32, pb1: u32, freepages: &[(u32, u8)]) {
        let start = pb0 * PAGEBLOCK_NR_PAGES;
        let end = (pb1 * PAGEBLOCK_NR_PAGES).min(z.pages());
        let tones = crate::theme::LIGHT.alloc.len();
        for (i, c) in cell_kinds(z, run, start, end, freepages)
            .into_iter()
            .enumerate()
        {
            self.codes[start as usize + i] = code(c, tones);
        }
        for pb in pb0..pb1 {
            self.summarise(pb);
        }
    }

    /// The dominant code of each 4 × 4 group of pageblock `pb` (ties: the smaller code).
    fn summarise(&mut self, pb: u32) {
        let base = (pb * PAGEBLOCK_NR_PAGES) as usize;
        let cols = (TILE_COLS / GROUP) as usize;
        for g in 0..GROUPS_PER_PB {
            let (gx, gy) = (g % cols, g / cols);
            let mut counts = [0u8; 32];
            let mut any = false;
            for r in 0..GROUP as usize {
                let row =
                    base + (gy * GROUP as usize + r) * TILE_COLS as usize + gx * GROUP as usize;
                for &c in self.codes.get(row..row + GROUP as usize).unwrap_or(&[]) {
                    if c != CODE_NONE {
                        counts[c as usize & 31] += 1;
                        any = true;
                    }
                }
            }
            let best = (0..32u8)
                .max_by_key(|&c| (counts[c as usize], std::cmp::Reverse(c)))
                .unwrap_or(0);
            self.agg[pb as usize * GROUPS_PER_PB + g] = if any { best } else { CODE_NONE };
        }
    }

    /// The cells of pageblock `pb` at `g`'s level.
    pub fn cells(&self, g: &Geom, pb: u32) -> &[u8] {
        if g.group == 1 {
            let s = (pb * PAGEBLOCK_NR_PAGES) as usize;
            &self.codes
                [s.min(self.codes.len())..(s + PAGEBLOCK_NR_PAGES as usize).min(self.codes.len())]
        } else {
            let s = pb as usize * GROUPS_PER_PB;
            &self.agg[s.min(self.agg.len())..(s + GROUPS_PER_PB).min(self.agg.len())]
        }
    }
}

/// The pageblocks the events `lo..hi` touch, sorted, each once.
pub fn touched_pageblocks(run: &Run, lo: u32, hi: u32, nb: u32) -> Vec<u32> {
    let mut seen = vec![false; nb as usize];
    let mut out = Vec::new();
    for e in run
        .log
        .events
        .range(lo as usize..(hi as usize).min(run.log.events.len()))
    {
        if let Some((s, n)) = e.kind().touched_pages() {
            mark_pages(&mut seen, &mut out, s, n, nb);
        }
    }
    out.sort_unstable();
    out
}

/// Adds the pageblocks of pages `s..s + n` to `out` (once each).
pub fn mark_pages(seen: &mut [bool], out: &mut Vec<u32>, s: u32, n: u32, nb: u32) {
    let first = s / PAGEBLOCK_NR_PAGES;
    let last = ((s + n.max(1) - 1) / PAGEBLOCK_NR_PAGES).min(nb.saturating_sub(1));
    for pb in first..=last {
        if let Some(f) = seen.get_mut(pb as usize) {
            if !*f {
                *f = true;
                out.push(pb);
            }
        }
    }
}

/// A page's block, as the engine's per-page arrays say: `(kind, order, head)`.
#[derive(Clone, Copy)]
pub struct BlockOf {
    pub kind: PageKind,
    pub order: u8,
    pub head: u32,
}

/// Block membership of the pages `[start, end)`: scans block heads from the order-10
/// alignment below `start` (blocks are aligned and never overlap).
pub fn blocks_in(z: &Zone, start: u32, end: u32) -> Vec<BlockOf> {
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

/// A rectangle of the map in device pixels (the part the canvas shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ViewRect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

fn fill(buf: &mut [u8], stride: u32, x0: u32, y0: u32, w: u32, h: u32, c: Rgba) {
    for y in y0..y0 + h {
        let row = ((y * stride + x0) * 4) as usize;
        for px in buf[row..row + (w * 4) as usize].chunks_exact_mut(4) {
            px.copy_from_slice(&c);
        }
    }
}

/// The mixed-pageblock overlay's mark on one pageblock: how many of its pages are of another
/// migratetype than the pageblock, and the most common such type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixBar {
    pub pages: u32,
    pub mt: MigrateType,
}

/// The overlay's marks of zone `zone` (node index) of `node`, a state of `run`, per pageblock:
/// the engine's [`mixed_pageblocks`] (what `--format mixed_pageblocks` prints).
///
/// [`mixed_pageblocks`]: buddyscope::explain::pollution::mixed_pageblocks
pub fn mix_bars(run: &Run, node: &Node, zone: usize) -> Vec<Option<MixBar>> {
    let z = node.zone(zone);
    let mut bars = vec![None; z.nr_pageblocks() as usize];
    for b in buddyscope::explain::pollution::mixed_pageblocks(run, node) {
        if b.zone != z.cfg().name {
            continue;
        }
        let n = |m: &MigrateType| b.allocated[m.idx()] + b.free[m.idx()];
        let mt = MigrateType::ALL
            .iter()
            .copied()
            .max_by_key(|m| (n(m), std::cmp::Reverse(m.idx())))
            .expect("a type");
        bars[b.pageblock as usize] = Some(MixBar {
            pages: b.foreign(),
            mt,
        });
    }
    bars
}

/// `c` faded towards `bg` (the overlay dims the pageblocks that are not mixed).
fn fade(c: Rgba, bg: Rgba) -> Rgba {
    let f = |a: u8, b: u8| ((u16::from(a) + 3 * u16::from(b)) / 4) as u8;
    [f(c[0], bg[0]), f(c[1], bg[1]), f(c[2], bg[2]), c[3]]
}

/// What one tile paint needs besides the codes.
pub struct TileInput<'a> {
    pub pb: u32,
    pub mt: MigrateType,
    pub cells: &'a [u8],
    /// Block membership of the tile's pages, for the block edges (page level, cells ≥ 4 px).
    pub blocks: Option<&'a [BlockOf]>,
    /// Pages `[start, end)` the current event touched.
    pub hl: (u32, u32),
    /// The mixed-pageblock overlay is on: this pageblock's mark (`None`: not mixed, faded).
    pub mix: Option<Option<MixBar>>,
    /// Compaction's scanner markers: the page each sits on and its colour.
    pub marks: &'a [(u32, Rgba)],
}

/// Paints one tile into `out` (`g.tile_w × g.tile_h` pixels, resized as needed).
pub fn paint_tile(out: &mut Vec<u8>, g: &Geom, t: &TileInput, pal: &Palette) {
    let (tw, th) = (g.tile_w, g.tile_h);
    out.resize((tw * th * 4) as usize, 0);
    let (tx, ty) = g.tile_origin(t.pb);
    fill(out, tw, 0, 0, tw, th, pal.bg);
    let fw = dev(frame_width(t.mt), g.dpr).min(g.pad);
    let fc = pal.mt[t.mt.idx()];
    fill(out, tw, 0, 0, tw, fw, fc);
    fill(out, tw, 0, th - fw, tw, fw, fc);
    fill(out, tw, 0, 0, fw, th, fc);
    fill(out, tw, tw - fw, 0, fw, th, fc);
    let cols = TILE_COLS / g.group;
    let c = g.cell;
    let start = t.pb * PAGEBLOCK_NR_PAGES;
    for (i, &code) in t.cells.iter().enumerate() {
        if code == CODE_NONE {
            continue;
        }
        let i = i as u32;
        let (cx, row) = (i % cols, i / cols);
        let (x0, y0) = (g.pad + cx * c, g.pad + row * c);
        // The pages this cell stands for: one, or a 4 × 4 group.
        let first = start + row * g.group * TILE_COLS + cx * g.group;
        let highlighted = if g.group == 1 {
            first >= t.hl.0 && first < t.hl.1
        } else {
            (0..g.group).any(|r| {
                let a = first + r * TILE_COLS;
                a < t.hl.1 && a + g.group > t.hl.0
            })
        };
        let base = if highlighted {
            pal.highlight
        } else if t.mix == Some(None) {
            fade(colour(code, pal), pal.bg)
        } else {
            colour(code, pal)
        };
        let hatch = code == CODE_PCP;
        // The free scanner's pages: hatched the other way, in the free scanner's colour.
        let isolated = code == CODE_ISOLATED;
        let dot = foreign(code);
        let rect = match t.blocks.map(|b| b[i as usize]) {
            Some(b) if b.kind != PageKind::Other && c >= 4 => {
                Some(block_rect(b.order, b.head, start))
            }
            _ => None,
        };
        if !hatch && !isolated && !dot && rect.is_none() {
            if c == 1 {
                let p = ((y0 * tw + x0) * 4) as usize;
                out[p..p + 4].copy_from_slice(&base);
            } else {
                fill(out, tw, x0, y0, c, c, base);
            }
            continue;
        }
        for py in 0..c {
            for px in 0..c {
                // Patterns are phased on the whole map, so they run on across tiles.
                let (x, y) = (tx + x0 + px, ty + y0 + py);
                let mut colour = base;
                if hatch && (x + y) % 4 == 0 {
                    colour = pal.pcp_hatch;
                } else if isolated && (x + 3 * y) % 4 == 0 {
                    colour = pal.isolated_hatch;
                } else if dot && is_dot(c, px, py, x, y) {
                    colour = pal.dot;
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
                let p = (((y0 + py) * tw + x0 + px) * 4) as usize;
                out[p..p + 4].copy_from_slice(&colour);
            }
        }
    }
    if let Some(Some(bar)) = t.mix {
        // A bar along the tile's bottom, as long as the share of the pageblock's pages of
        // another type, in that type's colour, on a dark edge so it reads on any cell.
        let inner = tw - 2 * fw;
        let len =
            ((u64::from(inner) * u64::from(bar.pages)).div_ceil(u64::from(PAGEBLOCK_NR_PAGES))
                as u32)
                .clamp(1, inner);
        let h = (th / 5).max(3);
        fill(out, tw, fw, th - fw - h, inner, h, pal.fg);
        fill(
            out,
            tw,
            fw,
            th - fw - h + 1,
            len,
            h - 2,
            pal.mt[bar.mt.idx()],
        );
    }
    for &(page, colour) in t.marks {
        if page / PAGEBLOCK_NR_PAGES == t.pb {
            paint_marker(out, g, page - start, colour, pal.bg);
        }
    }
}

/// A scanner's marker: a ring around the cell of page `local` (of the tile), as wide again as
/// the cell on each side (at least two CSS pixels), edged in `edge` (the background) so it
/// stands out on any cell. Scanners mostly sit on a pageblock's first page, at the tile's
/// corner: the ring is moved into the tile (still around the cell) rather than clipped.
fn paint_marker(out: &mut [u8], g: &Geom, local: u32, colour: Rgba, edge: Rgba) {
    let (tw, th) = (i64::from(g.tile_w), i64::from(g.tile_h));
    let cols = TILE_COLS / g.group;
    let i = (local / TILE_COLS / g.group) * cols + (local % TILE_COLS) / g.group;
    let (x0, y0) = (
        i64::from(g.pad + (i % cols) * g.cell),
        i64::from(g.pad + (i / cols) * g.cell),
    );
    let px = i64::from(dev(1, g.dpr));
    let line = i64::from(dev(2, g.dpr).max(g.cell / 2));
    let grow = i64::from(g.cell.max(dev(2, g.dpr))) + line + px;
    let side = i64::from(g.cell) + 2 * grow;
    // Inside the tile where it fits (the cell stays inside the ring: it is at most `grow`
    // from the tile's edge); clipped where the tile is smaller than the ring.
    let fit = |a: i64, room: i64| (a - grow).clamp(0, (room - side).max(0));
    let (l, t) = (fit(x0, tw), fit(y0, th));
    let (r, b) = (l + side, t + side);
    // Distance inwards from the ring's outer edge: an edge line, the ring, an edge line.
    for y in t.max(0)..b.min(th) {
        for x in l.max(0)..r.min(tw) {
            let d = (x - l).min(r - 1 - x).min(y - t).min(b - 1 - y);
            let c = if d < px || (line + px..line + 2 * px).contains(&d) {
                edge
            } else if d < line + px {
                colour
            } else {
                continue;
            };
            let p = ((y * tw + x) * 4) as usize;
            out[p..p + 4].copy_from_slice(&c);
        }
    }
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
    if order >= 9 || head < start {
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

/// The pageblocks whose tiles meet `v`.
pub fn visible_pageblocks(g: &Geom, v: ViewRect) -> impl Iterator<Item = u32> + '_ {
    let nb = g.nb();
    let (c0, c1) = (
        v.x / g.tile_w,
        ((v.x + v.w).saturating_sub(1) / g.tile_w).min(g.per_row - 1),
    );
    let (r0, r1) = (v.y / g.tile_h, (v.y + v.h).saturating_sub(1) / g.tile_h);
    (r0..=r1)
        .flat_map(move |r| (c0..=c1).map(move |c| r * g.per_row + c))
        .filter(move |&pb| pb < nb)
}

/// Whether pageblock `pb`'s tile meets `v`.
pub fn tile_visible(g: &Geom, v: ViewRect, pb: u32) -> bool {
    let (tx, ty) = g.tile_origin(pb);
    tx < v.x + v.w && tx + g.tile_w > v.x && ty < v.y + v.h && ty + g.tile_h > v.y
}

/// Copies the part of a tile (`tile`, at map pixel `(tx, ty)`) inside `v` into `buf` (`v`'s
/// pixels).
pub fn blit(buf: &mut [u8], v: ViewRect, tile: &[u8], g: &Geom, (tx, ty): (u32, u32)) {
    let x0 = tx.max(v.x);
    let x1 = (tx + g.tile_w).min(v.x + v.w);
    let y0 = ty.max(v.y);
    let y1 = (ty + g.tile_h).min(v.y + v.h);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let n = ((x1 - x0) * 4) as usize;
    for y in y0..y1 {
        let src = (((y - ty) * g.tile_w + (x0 - tx)) * 4) as usize;
        let dst = (((y - v.y) * v.w + (x0 - v.x)) * 4) as usize;
        buf[dst..dst + n].copy_from_slice(&tile[src..src + n]);
    }
}

/// Everything a paint reads from the run besides the cache.
pub struct Scene<'a> {
    pub zone: &'a Zone,
    pub cache: &'a MapCache,
    pub hl: Option<(u32, u32)>,
    /// Compaction's scanners, while a compaction is under way.
    pub scanners: Option<ScannerMarks>,
    /// The migration at the cursor: its source and target ringed, an arrow between them.
    pub migration: Option<MigrationMark>,
    pub pal: &'a Palette,
    /// The mixed-pageblock overlay's marks ([`mix_bars`]), when it is on.
    pub mix: Option<&'a [Option<MixBar>]>,
}

impl Scene<'_> {
    /// The input of pageblock `pb`'s tile (block edges computed here when drawn).
    pub fn paint(&self, out: &mut Vec<u8>, g: &Geom, pb: u32) {
        let (s, n) = self.hl.unwrap_or((1, 0));
        let blocks = (g.group == 1 && g.cell >= 4).then(|| {
            let start = pb * PAGEBLOCK_NR_PAGES;
            blocks_in(
                self.zone,
                start,
                (start + PAGEBLOCK_NR_PAGES).min(self.zone.pages()),
            )
        });
        let mut marks: Vec<(u32, Rgba)> = self
            .scanners
            .map(|m| {
                let [mi, fr] = m.pages(self.zone.pages());
                vec![(mi, self.pal.scan_migrate), (fr, self.pal.scan_free)]
            })
            .unwrap_or_default();
        if let Some(m) = self.migration {
            marks.extend([(m.from, self.pal.scan_migrate), (m.to, self.pal.scan_free)]);
        }
        let input = TileInput {
            pb,
            mt: self.zone.pb_mt(pb),
            cells: self.cache.cells(g, pb),
            blocks: blocks.as_deref(),
            hl: (s, s.saturating_add(n)),
            mix: self.mix.map(|m| m.get(pb as usize).copied().flatten()),
            marks: &marks,
        };
        paint_tile(out, g, &input, self.pal);
    }
}

/// Paints the window `v` of the map into `buf` (`v.w × v.h` RGBA, reused), with `scratch`
/// for one tile at a time.
pub fn paint_view(buf: &mut Vec<u8>, scratch: &mut Vec<u8>, g: &Geom, v: ViewRect, sc: &Scene) {
    buf.resize((v.w * v.h * 4) as usize, 0);
    fill(buf, v.w, 0, 0, v.w, v.h, sc.pal.bg);
    if v.w == 0 || v.h == 0 {
        return;
    }
    for pb in visible_pageblocks(g, v) {
        sc.paint(scratch, g, pb);
        blit(buf, v, scratch, g, g.tile_origin(pb));
    }
    if let Some(m) = sc.migration {
        paint_arrow(
            buf,
            v,
            g,
            g.cell_centre(m.from),
            g.cell_centre(m.to),
            sc.pal.scan_migrate,
            sc.pal.bg,
        );
    }
}

/// A migration's arrow over the window `v`: a line from the source's cell to the target's
/// and a head at the target, 4 CSS pixels wide in `colour`, edged in `edge` (a CSS pixel each
/// side) so that it reads on any cell; the window's pixels only (it crosses tiles).
fn paint_arrow(
    buf: &mut [u8],
    v: ViewRect,
    g: &Geom,
    from: (f64, f64),
    to: (f64, f64),
    colour: Rgba,
    edge: Rgba,
) {
    let half = f64::from(dev(4, g.dpr)) / 2.0;
    let rim = f64::from(dev(1, g.dpr));
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = dx.hypot(dy).max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    // The head: two strokes back from the tip at ±30°, as long as 5 line widths.
    let head = 10.0 * half;
    let (c, s) = (0.866_f64, 0.5_f64);
    let back = |sign: f64| {
        (
            to.0 - head * (ux * c - sign * uy * s),
            to.1 - head * (uy * c + sign * ux * s),
        )
    };
    let segs = [(from, to), (back(1.0), to), (back(-1.0), to)];
    let dist = |p: (f64, f64), (a, b): ((f64, f64), (f64, f64))| {
        let (vx, vy) = (b.0 - a.0, b.1 - a.1);
        let l2 = (vx * vx + vy * vy).max(1e-9);
        let t = (((p.0 - a.0) * vx + (p.1 - a.1) * vy) / l2).clamp(0.0, 1.0);
        (p.0 - a.0 - t * vx).hypot(p.1 - a.1 - t * vy)
    };
    let reach = half + rim;
    let lo = |a: f64, b: f64, o: u32| ((a.min(b) - head - reach).floor().max(f64::from(o))) as u32;
    let hi = |a: f64, b: f64, o: u32, n: u32| ((a.max(b) + head + reach).ceil() as u32).min(o + n);
    for y in lo(from.1, to.1, v.y)..hi(from.1, to.1, v.y, v.h) {
        for x in lo(from.0, to.0, v.x)..hi(from.0, to.0, v.x, v.w) {
            let p = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let d = segs.iter().map(|&sg| dist(p, sg)).fold(f64::MAX, f64::min);
            let c = if d <= half {
                colour
            } else if d <= reach {
                edge
            } else {
                continue;
            };
            let i = (((y - v.y) * v.w + (x - v.x)) * 4) as usize;
            buf[i..i + 4].copy_from_slice(&c);
        }
    }
}

/// The whole map scaled down to `w × h` pixels (the overview inset): each pixel samples the
/// map, reading the pageblock summary.
pub fn paint_overview(buf: &mut Vec<u8>, g: &Geom, w: u32, h: u32, sc: &Scene) {
    buf.resize((w * h * 4) as usize, 0);
    let cols = TILE_COLS / GROUP;
    for y in 0..h {
        let my = (u64::from(y) * u64::from(g.h) / u64::from(h.max(1))) as u32;
        for x in 0..w {
            let mx = (u64::from(x) * u64::from(g.w) / u64::from(w.max(1))) as u32;
            let (tc, tr) = (mx / g.tile_w, my / g.tile_h);
            let pb = tr * g.per_row + tc;
            let c = if pb >= g.nb() {
                sc.pal.bg
            } else {
                let (lx, ly) = (mx % g.tile_w, my % g.tile_h);
                let inner_w = g.tile_w - 2 * g.pad;
                let inner_h = g.tile_h - 2 * g.pad;
                if lx < g.pad || ly < g.pad || lx >= g.pad + inner_w || ly >= g.pad + inner_h {
                    sc.pal.mt[sc.zone.pb_mt(pb).idx()]
                } else {
                    let gx = (lx - g.pad) * cols / inner_w;
                    let gy = (ly - g.pad) * (TILE_ROWS / GROUP) / inner_h;
                    let code = sc
                        .cache
                        .agg
                        .get(pb as usize * GROUPS_PER_PB + (gy * cols + gx) as usize)
                        .copied()
                        .unwrap_or(CODE_NONE);
                    colour(code, sc.pal)
                }
            };
            let p = ((y * w + x) * 4) as usize;
            buf[p..p + 4].copy_from_slice(&c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;
    use crate::theme::LIGHT;

    fn key(_: &Timeline) -> RunKey {
        crate::model::RunId(1)
    }

    /// The mixed-pageblock overlay on fallback-steal: no mark before the steals; at the end
    /// one, pageblock 15 with its 30 Unmovable pages (what `--format mixed_pageblocks` says),
    /// drawn as a bar in the Unmovable colour 30/512 of the tile's inner width long; the other
    /// tiles are faded, and with the overlay off nothing changes.
    #[test]
    fn the_mixed_overlay_marks_pageblock_15() {
        let mut t = timeline("fallback-steal");
        assert!(mix_bars(&t.run, t.node(), 0).iter().all(Option::is_none));
        let n = t.len();
        t.seek(n);
        let bars = mix_bars(&t.run, t.node(), 0);
        let marked: Vec<(usize, MixBar)> = bars
            .iter()
            .enumerate()
            .filter_map(|(pb, b)| b.map(|b| (pb, b)))
            .collect();
        assert_eq!(
            marked,
            [(
                15,
                MixBar {
                    pages: 30,
                    mt: MigrateType::Unmovable
                }
            )]
        );
        let mut c = MapCache::default();
        c.sync(key(&t), &t);
        let g = Geom::new(t.zone().pages(), 8, 1.0, 1200);
        let paint = |pb: u32, mix: Option<&[Option<MixBar>]>| {
            let sc = Scene {
                zone: t.zone(),
                cache: &c,
                hl: None,
                scanners: None,
                migration: None,
                pal: &LIGHT,
                mix,
            };
            let mut out = Vec::new();
            sc.paint(&mut out, &g, pb);
            out
        };
        let px = |out: &[u8], x: u32, y: u32| {
            let p = ((y * g.tile_w + x) * 4) as usize;
            [out[p], out[p + 1], out[p + 2], out[p + 3]]
        };
        let on = paint(15, Some(&bars));
        let fw = dev(frame_width(MigrateType::Movable), g.dpr).min(g.pad);
        let inner = g.tile_w - 2 * fw;
        let len = (inner * 30).div_ceil(PAGEBLOCK_NR_PAGES);
        let y = g.tile_h - fw - (g.tile_h / 5).max(3) + 1;
        assert_eq!(px(&on, fw, y), LIGHT.mt[MigrateType::Unmovable.idx()]);
        assert_eq!(
            px(&on, fw + len - 1, y),
            LIGHT.mt[MigrateType::Unmovable.idx()]
        );
        assert_ne!(px(&on, fw + len, y), LIGHT.mt[MigrateType::Unmovable.idx()]);
        // Another pageblock is faded; with the overlay off both are as before.
        let off0 = paint(0, None);
        let on0 = paint(0, Some(&bars));
        assert_ne!(off0, on0);
        let centre = (g.pad + 4 * g.cell, g.pad + 4 * g.cell);
        assert_eq!(
            px(&on0, centre.0, centre.1),
            fade(px(&off0, centre.0, centre.1), LIGHT.bg)
        );
        assert_ne!(paint(15, None), on);
    }

    /// Stepping the cache forward and back, and jumping, gives the codes a fresh cache
    /// computes at that position.
    #[test]
    fn the_incremental_cache_equals_a_rebuild() {
        let mut t = timeline("fragmented-sandbox");
        let mut c = MapCache::default();
        assert!(c.sync(key(&t), &t).is_none());
        let n = t.len();
        for target in [1, 2, 40, 41, n / 3, n / 3 - 7, n / 2, n, 0, n / 5] {
            t.seek(target);
            c.sync(key(&t), &t);
            let mut fresh = MapCache::default();
            fresh.sync(key(&t), &t);
            assert_eq!(c.codes, fresh.codes, "codes at {target}");
            assert_eq!(c.agg, fresh.agg, "summary at {target}");
        }
        // The codes say what the cells say.
        let z = t.zone();
        let cells = cell_kinds(z, &t.run, 0, z.pages(), &isolated_free(&t));
        for (i, k) in cells.iter().enumerate() {
            assert_eq!(c.codes[i], code(*k, LIGHT.alloc.len()));
        }
    }

    #[test]
    fn levels_fit_big_zones_and_snap_to_device_pixels() {
        // 16 GiB fits at the pageblock level: 10 × 6 px tiles.
        let g = Geom::new(4_194_304, Geom::fit_zoom(4_194_304, 1184), 1.0, 1184);
        assert_eq!((g.group, g.tile_w, g.tile_h), (GROUP, 10, 6));
        assert!(g.h <= FIT_HEIGHT, "{g:?}");
        assert_eq!(g.css_cell(), 0.25);
        // 1 GiB keeps a pixel per page, also in a narrower box (24 rows of tiles); 2 GiB
        // there is drawn by pageblocks.
        assert_eq!(Geom::fit_zoom(262_144, 1184), 1);
        assert_eq!(Geom::fit_zoom(262_144, 800), 1);
        assert_eq!(Geom::fit_zoom(524_288, 800), PB_LEVEL);
        // At a ratio of 2 everything is twice as many device pixels; the CSS layout is equal.
        let a = Geom::new(262_144, 1, 1.0, 1184);
        let b = Geom::new(262_144, 1, 2.0, 1184);
        assert_eq!((b.cell, b.tile_w, b.per_row), (2, 2 * a.tile_w, a.per_row));
        assert_eq!(b.css(b.w), f64::from(a.w));
        // At 1.5 a cell is whole device pixels.
        let c = Geom::new(262_144, 3, 1.5, 1184);
        assert_eq!(c.cell, 5);
        // page_at inverts the layout at both levels.
        for g in [a, b, Geom::new(4_194_304, PB_LEVEL, 1.0, 1184)] {
            for idx in [0u32, 777, 5 * 512 + 100, g.pages - 1] {
                let pb = idx / PAGEBLOCK_NR_PAGES;
                let i = idx % PAGEBLOCK_NR_PAGES;
                let (tx, ty) = g.tile_origin(pb);
                let x = tx + g.pad + (i % TILE_COLS) / g.group * g.cell;
                let y = ty + g.pad + (i / TILE_COLS) / g.group * g.cell;
                let got = g.page_at(i64::from(x), i64::from(y)).unwrap();
                assert_eq!(got / PAGEBLOCK_NR_PAGES, pb);
                if g.group == 1 {
                    assert_eq!(got, idx);
                }
            }
        }
    }

    /// While `compact_memory` runs, the map rings the page each scanner looks at next, as
    /// `explain::compaction_scanners` places them, and the legend names them with their pfns;
    /// before the `mm_compaction_begin` and after the `mm_compaction_end` there is nothing.
    #[test]
    fn the_scanners_are_ringed_while_compaction_runs() {
        use buddyscope::mm::{Annotation, EventKind, Tracepoint};
        let mut t = timeline("compact-memory-fragmented");
        let trace = |i: usize| match t.run.log.events[i].kind() {
            EventKind::Annotation(Annotation::Trace(tp)) => Some(tp),
            _ => None,
        };
        let find = |f: &dyn Fn(&Tracepoint) -> bool| {
            (0..t.run.log.events.len())
                .find(|&i| trace(i).is_some_and(|tp| f(&tp)))
                .unwrap()
        };
        let begin = find(&|tp| matches!(tp, Tracepoint::MmCompactionBegin { .. }));
        let end = find(&|tp| matches!(tp, Tracepoint::MmCompactionEnd { .. }));
        let free_line = find(&|tp| matches!(tp, Tracepoint::MmCompactionIsolateFreepages { .. }));
        let Some(Tracepoint::MmCompactionIsolateFreepages {
            start: free_start,
            end: free_end,
            ..
        }) = trace(free_line)
        else {
            unreachable!()
        };
        // The first free scan covers the last pageblock to the zone's end, so `cc->free_pfn`
        // goes one pageblock lower (v7.3.4 mm/compaction.c:1801-1838).
        assert_eq!((free_start, free_end), (0xe00, 0x1000));
        let free_after = 0xe00 - PAGEBLOCK_NR_PAGES;
        let migrate_end = (begin..free_line)
            .rev()
            .find_map(|i| match trace(i) {
                Some(Tracepoint::MmCompactionIsolateMigratepages { end, .. }) => Some(end),
                _ => None,
            })
            .unwrap();
        assert!(begin < free_line && free_line < end);

        t.seek(begin as u32);
        assert_eq!(scanner_marks(&t), None);
        assert_eq!(scanner_legend(&t), None);
        t.seek(begin as u32 + 1);
        // compact_zone starts at the zone's first page and its last pageblock (4096 pages).
        assert_eq!(
            scanner_marks(&t),
            Some(ScannerMarks {
                migrate: 0,
                free: 4096 - PAGEBLOCK_NR_PAGES
            })
        );
        t.seek(free_line as u32 + 1);
        let m = scanner_marks(&t).unwrap();
        assert_eq!((m.migrate, m.free), (migrate_end, free_after));
        assert_eq!(m.pages(4096), [migrate_end.min(4095), free_after]);
        let l = scanner_legend(&t).unwrap();
        let z = t.zone();
        assert_eq!(l.migrate_pfn, format!("{:#x}", z.abs_pfn(m.migrate)));
        assert_eq!(
            l.migrate_text(),
            format!(
                "migration scanner (isolate_migratepages) at pfn {}",
                l.migrate_pfn
            )
        );
        assert_eq!(
            l.free_text(),
            format!("free scanner (isolate_freepages) at pfn {}", l.free_pfn)
        );

        // The rings: the migration scanner's colour around its page's cell, and only in the
        // tiles of the two pages.
        let mut c = MapCache::default();
        c.sync(key(&t), &t);
        let g = Geom::new(z.pages(), 4, 1.0, 1184);
        let paint = |scanners, pb| {
            let sc = Scene {
                zone: z,
                cache: &c,
                hl: None,
                scanners,
                migration: None,
                pal: &LIGHT,
                mix: None,
            };
            let mut out = Vec::new();
            sc.paint(&mut out, &g, pb);
            out
        };
        let [mp, fp] = m.pages(z.pages());
        let with = paint(Some(m), mp / PAGEBLOCK_NR_PAGES);
        let local = mp % PAGEBLOCK_NR_PAGES;
        let (x0, y0) = (
            g.pad + (local % TILE_COLS) * g.cell,
            g.pad + (local / TILE_COLS) * g.cell,
        );
        // The migration scanner is at a pageblock's first page: the ring (a 1-px edge, a 2-px
        // line, a 1-px edge, the cell's width from the cell) starts at the tile's corner and
        // goes around the cell.
        assert_eq!((x0, y0), (g.pad, g.pad));
        let side = 3 * g.cell + 2 * 3;
        for (x, y) in [(1, 1), (side - 2, side - 2), (1, y0), (x0, side - 2)] {
            let p = ((y * g.tile_w + x) * 4) as usize;
            assert_eq!(with[p..p + 4], LIGHT.scan_migrate, "ring at ({x}, {y})");
        }
        let p = ((y0 * g.tile_w + x0) * 4) as usize;
        assert_ne!(with[p..p + 4], LIGHT.scan_migrate, "the cell itself");
        assert_ne!(paint(None, mp / PAGEBLOCK_NR_PAGES), with);
        assert_ne!(
            paint(None, fp / PAGEBLOCK_NR_PAGES),
            paint(Some(m), fp / PAGEBLOCK_NR_PAGES)
        );
        for pb in 0..g.nb() {
            if pb != mp / PAGEBLOCK_NR_PAGES && pb != fp / PAGEBLOCK_NR_PAGES {
                assert_eq!(paint(None, pb), paint(Some(m), pb), "pageblock {pb}");
            }
        }

        t.seek(end as u32 + 1);
        assert_eq!(scanner_marks(&t), None);
    }

    /// While `compact_memory` runs on compact-memory-fragmented, the pages the free scanner took
    /// out of the buddy are cells of their own (not "reserved"): exactly the blocks the trace's
    /// `# isolate_freepages: order-N block at pfn X leaves …` lines name, less those
    /// `compaction_alloc` has handed out (`# migrate_pages: … is handed out`), as
    /// `explain::compaction_freepages` reads them; drawn in their own colour and hatching, in
    /// step with the cursor (an incremental cache equals a rebuild), and gone after
    /// `release_free_list`.
    #[test]
    fn the_free_scanners_pages_are_cells_of_their_own() {
        use buddyscope::mm::{Annotation, EventKind, Mutation, Step, Tracepoint};
        let mut t = timeline("compact-memory-fragmented");
        let n = t.run.log.events.len();
        let find = |f: &dyn Fn(usize) -> bool| (0..n).find(|&i| f(i)).unwrap();
        let tp = |i: usize, f: &dyn Fn(&Tracepoint) -> bool| matches!(t.run.log.events[i].kind(), EventKind::Annotation(Annotation::Trace(x)) if f(&x));
        let begin = find(&|i| tp(i, &|x| matches!(x, Tracepoint::MmCompactionBegin { .. })));
        let free_line = find(&|i| {
            tp(i, &|x| {
                matches!(x, Tracepoint::MmCompactionIsolateFreepages { .. })
            })
        });
        let handed = find(&|i| {
            t.run.log.events[i].step == Step::CompactionAllocTarget
                && matches!(
                    t.run.log.events[i].kind(),
                    EventKind::Mutation(Mutation::PrepNewPage { .. })
                )
        });
        let end = find(&|i| tp(i, &|x| matches!(x, Tracepoint::MmCompactionEnd { .. })));
        assert!(begin < free_line && free_line < handed && handed < end);

        // The trace's words for what the free scanner took and compaction_alloc handed out,
        // up to the cursor (the lines of the events before it).
        let trace = buddyscope::explain::trace_text(&t.run);
        let lines: Vec<&str> = trace.lines().collect();
        let from_trace = |upto_handed: usize| {
            let b = lines
                .iter()
                .position(|l| l.starts_with("mm_compaction_begin:"))
                .unwrap();
            let mut pages = std::collections::BTreeSet::new();
            let mut handed = 0;
            for l in &lines[b..] {
                let block = |rest: &str| {
                    let (o, rest) = rest.split_once(" block at pfn 0x").unwrap();
                    let pfn = u32::from_str_radix(rest.split(' ').next().unwrap(), 16).unwrap();
                    (pfn, o.parse::<u32>().unwrap())
                };
                if let Some(r) = l.strip_prefix("# isolate_freepages: order-") {
                    if l.ends_with("leaves the Movable list") {
                        let (pfn, o) = block(r);
                        pages.extend(pfn..pfn + (1 << o));
                    }
                } else if let Some(r) = l.strip_prefix("# migrate_pages: order-") {
                    if handed == upto_handed {
                        break;
                    }
                    handed += 1;
                    let (pfn, o) = block(r);
                    for p in pfn..pfn + (1 << o) {
                        assert!(pages.remove(&p), "{l}: not isolated");
                    }
                }
            }
            pages.into_iter().collect::<Vec<u32>>()
        };
        let isolated_cells = |t: &Timeline| {
            let z = t.zone();
            cell_kinds(z, &t.run, 0, z.pages(), &isolated_free(t))
                .iter()
                .enumerate()
                .filter(|(_, c)| matches!(c, CellKind::Isolated { .. }))
                .map(|(i, _)| i as u32)
                .collect::<Vec<u32>>()
        };

        let mut c = MapCache::default();
        t.seek(begin as u32);
        assert!(isolated_free(&t).is_empty());
        assert!(isolated_cells(&t).is_empty());
        c.sync(key(&t), &t);
        let before = c.codes.clone();
        t.seek(free_line as u32 + 1);
        c.sync(key(&t), &t);
        let want = from_trace(0);
        assert!(want.len() > 1, "{want:?}");
        assert_eq!(isolated_cells(&t), want);
        assert_eq!(isolated_pages(&isolated_free(&t)) as usize, want.len());
        let z = t.zone();
        for &p in &want {
            // Free in the buddy before compact_zone began; isolated now, in the cache too.
            assert!(before[p as usize] <= 10, "{p:#x}: {}", before[p as usize]);
            assert_eq!(c.codes[p as usize], CODE_ISOLATED);
            assert_eq!(z.page_kind(p), PageKind::Other);
        }
        assert_eq!(
            c.codes.iter().filter(|&&x| x == CODE_ISOLATED).count(),
            want.len()
        );
        assert_eq!(colour(CODE_ISOLATED, &LIGHT), LIGHT.isolated);
        // A new state in every palette: no other cell or marker has its colour.
        for pal in [&LIGHT, &crate::theme::DARK] {
            let others = [pal.reserved, pal.pcp, pal.filler, pal.highlight, pal.bg]
                .into_iter()
                .chain(pal.free)
                .chain(pal.alloc)
                .chain([pal.scan_migrate, pal.scan_free]);
            for o in others {
                assert_ne!(o, pal.isolated);
            }
            assert_ne!(pal.isolated_hatch, pal.isolated);
        }

        // Painted in its colour, hatched in the other direction from a pcp block.
        let g = Geom::new(z.pages(), 8, 1.0, 1184);
        let sc = Scene {
            zone: z,
            cache: &c,
            hl: None,
            scanners: None,
            migration: None,
            pal: &LIGHT,
            mix: None,
        };
        let p = want[0];
        let mut out = Vec::new();
        sc.paint(&mut out, &g, p / PAGEBLOCK_NR_PAGES);
        let local = p % PAGEBLOCK_NR_PAGES;
        let (x0, y0) = (
            g.pad + (local % TILE_COLS) * g.cell,
            g.pad + (local / TILE_COLS) * g.cell,
        );
        let (tx, ty) = g.tile_origin(p / PAGEBLOCK_NR_PAGES);
        let mut seen = (0, 0);
        for y in y0..y0 + g.cell {
            for x in x0..x0 + g.cell {
                let q = ((y * g.tile_w + x) * 4) as usize;
                let px: Rgba = out[q..q + 4].try_into().unwrap();
                if (tx + x + 3 * (ty + y)) % 4 == 0 {
                    assert_eq!(px, LIGHT.isolated_hatch);
                    seen.1 += 1;
                } else {
                    assert_eq!(px, LIGHT.isolated);
                    seen.0 += 1;
                }
            }
        }
        assert!(seen.0 > seen.1 && seen.1 > 0, "{seen:?}");

        // compaction_alloc hands the first block out: that page holds the folio now.
        t.seek(handed as u32 + 1);
        c.sync(key(&t), &t);
        let now = from_trace(1);
        assert_eq!(now.len(), want.len() - 1);
        assert_eq!(isolated_cells(&t), now);
        let gone: Vec<u32> = want.iter().copied().filter(|p| !now.contains(p)).collect();
        assert!(matches!(
            cell_kinds(t.zone(), &t.run, gone[0], gone[0] + 1, &isolated_free(&t))[0],
            CellKind::Allocated { .. }
        ));
        // Stepping the cache across the compaction equals a rebuild at every stop.
        for target in [free_line + 1, handed, end - 1, end + 1, free_line, begin] {
            t.seek(target as u32);
            c.sync(key(&t), &t);
            let mut fresh = MapCache::default();
            fresh.sync(key(&t), &t);
            assert_eq!(c.codes, fresh.codes, "codes at {target}");
            assert_eq!(c.agg, fresh.agg, "summary at {target}");
        }
        t.seek(end as u32 + 1);
        assert!(isolated_free(&t).is_empty());
        assert!(isolated_cells(&t).is_empty());
    }

    /// At a `migrate_pages` step the map knows the move: `migration_at` is the folio's first
    /// page before and after, as the engine's `Annotation::Migrate` says and the trace's
    /// `# info: migrate:` line prints it; the legend names both pfns; the arrow joins the two
    /// cells (its middle is drawn in the line's colour) and the events around have none.
    /// Compaction's (`compact-memory-fragmented`) and `alloc_contig_range`'s.
    #[test]
    fn a_migration_is_drawn_from_its_source_to_its_target() {
        use buddyscope::mm::{Annotation, EventKind};
        for (id, contig, word) in [
            ("compact-memory-fragmented", false, "folio"),
            ("alloc-contig-range-migrates", true, "block"),
        ] {
            let mut t = timeline(id);
            let i = (0..t.run.log.events.len())
                .find(|&i| {
                    matches!(t.run.log.events[i].kind(),
                        EventKind::Annotation(Annotation::Migrate { contig: c, .. }) if c == contig)
                })
                .unwrap_or_else(|| panic!("{id}: no migration"));
            let EventKind::Annotation(Annotation::Migrate {
                from, to, order, ..
            }) = t.run.log.events[i].kind()
            else {
                unreachable!()
            };
            let trace = buddyscope::explain::trace_text(&t.run);
            t.seek(i as u32 + 1);
            let z = t.zone();
            let line = format!(
                "# info: migrate: the order-{order} movable {word} at {:#x} now lives at {:#x}\n",
                z.abs_pfn(from),
                z.abs_pfn(to)
            );
            assert!(trace.contains(&line), "{id}: {line}");
            let m = migration_at(&t).unwrap();
            assert_eq!(m, MigrationMark { from, to, order });
            assert_ne!(m.from, m.to);
            let l = migration_legend(&t).unwrap();
            assert_eq!(
                l.text(),
                format!(
                    "migrate: pfn {:#x} → pfn {:#x}",
                    z.abs_pfn(from),
                    z.abs_pfn(to)
                )
            );

            let mut c = MapCache::default();
            c.sync(key(&t), &t);
            let g = Geom::new(z.pages(), 4, 1.0, 1184);
            let all = ViewRect {
                x: 0,
                y: 0,
                w: g.w,
                h: g.h,
            };
            let paint = |migration| {
                let sc = Scene {
                    zone: z,
                    cache: &c,
                    hl: None,
                    scanners: None,
                    migration,
                    pal: &LIGHT,
                    mix: None,
                };
                let (mut buf, mut s) = (Vec::new(), Vec::new());
                paint_view(&mut buf, &mut s, &g, all, &sc);
                buf
            };
            let with = paint(Some(m));
            let (a, b) = (g.cell_centre(m.from), g.cell_centre(m.to));
            let px = |(x, y): (f64, f64)| {
                let p = ((y as u32 * g.w + x as u32) * 4) as usize;
                with[p..p + 4].to_vec()
            };
            assert_eq!(
                px(((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)),
                LIGHT.scan_migrate
            );
            assert_eq!(
                px((a.0 + (b.0 - a.0) / 4.0, a.1 + (b.1 - a.1) / 4.0)),
                LIGHT.scan_migrate
            );
            assert_ne!(paint(None), with);

            t.seek(i as u32);
            assert_eq!(migration_at(&t), None, "{id}: the event before");
            t.seek(i as u32 + 2);
            assert_eq!(migration_at(&t), None, "{id}: the event after");
        }
    }

    /// A window of the map paints the same pixels as the whole map has there, and only the
    /// tiles meeting it are painted.
    #[test]
    fn a_window_is_the_same_pixels_as_the_whole_map() {
        let mut t = timeline("fragmented-sandbox");
        t.seek(t.len() / 2);
        let mut c = MapCache::default();
        c.sync(key(&t), &t);
        for zoom in [PB_LEVEL, 1, 4, 8] {
            let g = Geom::new(t.zone().pages(), zoom, 1.0, 500);
            let sc = Scene {
                zone: t.zone(),
                cache: &c,
                hl: t.current().and_then(|e| e.kind().touched_pages()),
                scanners: None,
                migration: None,
                pal: &LIGHT,
                mix: None,
            };
            let all = ViewRect {
                x: 0,
                y: 0,
                w: g.w,
                h: g.h,
            };
            let (mut whole, mut part, mut s) = (Vec::new(), Vec::new(), Vec::new());
            paint_view(&mut whole, &mut s, &g, all, &sc);
            let v = ViewRect {
                x: g.w / 3,
                y: g.h / 4,
                w: g.w / 2,
                h: g.h / 2,
            };
            paint_view(&mut part, &mut s, &g, v, &sc);
            for y in 0..v.h {
                let a = (((y + v.y) * g.w + v.x) * 4) as usize;
                let b = ((y * v.w) * 4) as usize;
                assert_eq!(
                    whole[a..a + (v.w * 4) as usize],
                    part[b..b + (v.w * 4) as usize]
                );
            }
            assert!(visible_pageblocks(&g, v).count() < g.nb() as usize);
        }
    }
}
