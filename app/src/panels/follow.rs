//! Follow the action: the map zooms to the pageblocks the current operation touches
//! ([`buddyscope::run::op_touched_pageblocks`]), with a small whole-zone overview marking where
//! that is. The zoomed map is drawn at its own cell size in whole device pixels (the same
//! layout, a bigger cell), never a CSS scale of the canvas's bitmap, so it stays sharp on
//! HiDPI screens and projectors at any `devicePixelRatio`; the canvas shows the window of it
//! around the focus.

use super::mapdraw::{Geom, Tiles, ViewRect};

/// The largest zoom in CSS pixels per cell side: beyond it a pageblock is bigger than the
/// viewport.
pub const MAX_PX_PER_PAGE: f64 = 16.0;

/// A rectangle in the map's pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// The tiles of pageblocks `first..=last`: their own row span if on one row, else whole rows.
pub fn tiles_rect(t: &Tiles, (first, last): (u32, u32)) -> Rect {
    let per_row = t.per_row.max(1);
    let (r0, r1) = (first / per_row, last / per_row);
    let (c0, c1) = if r0 == r1 {
        (first % per_row, last % per_row + 1)
    } else {
        (0, per_row)
    };
    Rect {
        x: f64::from(c0 * t.tile_w),
        y: f64::from(r0 * t.tile_h),
        w: f64::from((c1 - c0) * t.tile_w),
        h: f64::from((r1 - r0 + 1) * t.tile_h),
    }
}

/// The follow view as drawn: the map's layout at the follow zoom (device pixels), the window
/// of it the canvas holds (its backing store), and where the canvas sits in the viewport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FollowFrame {
    pub geom: Geom,
    pub view: ViewRect,
    /// The canvas's top left in the viewport, device pixels: a map smaller than the viewport is
    /// centred in it.
    pub offset: (u32, u32),
}

impl FollowFrame {
    /// The zoom against the normal layout (the follow cell over the normal cell).
    pub fn scale(&self, base: &Geom) -> f64 {
        f64::from(self.geom.cell) / f64::from(base.cell.max(1))
    }
}

/// The layout `g` in its own (device) pixels.
fn device_tiles(g: &Geom) -> Tiles {
    Tiles {
        tile_w: g.tile_w,
        tile_h: g.tile_h,
        per_row: g.per_row,
        w: g.w,
        h: g.h,
    }
}

/// The follow view of pageblocks `span` on the map laid out as `base`, in a viewport of
/// `(vw, vh)` device pixels: the biggest whole-device-pixel cell (at least `base`'s, at most
/// [`MAX_PX_PER_PAGE`] CSS pixels) at which the touched tiles fit the viewport, and the window
/// centred on them where the map's edges allow. No span: the whole map at `base`'s size.
pub fn follow_frame(base: &Geom, span: Option<(u32, u32)>, (vw, vh): (u32, u32)) -> FollowFrame {
    let (vw, vh) = (vw.max(1), vh.max(1));
    let geom = match span {
        None => *base,
        Some(span) => {
            let max = ((MAX_PX_PER_PAGE * base.dpr).floor() as u32).max(base.cell);
            let f = tiles_rect(&device_tiles(base), span);
            let s = (f64::from(vw) / f.w).min(f64::from(vh) / f.h).max(1.0);
            // A first guess from the ratio, then down until the padding's rounding fits too.
            let mut cell = ((f64::from(base.cell) * s).floor() as u32).clamp(base.cell, max);
            loop {
                let g = base.with_cell(cell);
                let f = tiles_rect(&device_tiles(&g), span);
                if cell == base.cell || (f.w <= f64::from(vw) && f.h <= f64::from(vh)) {
                    break g;
                }
                cell -= 1;
            }
        }
    };
    let (w, h) = (vw.min(geom.w), vh.min(geom.h));
    let place = |c: f64, win: u32, map: u32| {
        ((c - f64::from(win) / 2.0).round().max(0.0) as u32).min(map - win)
    };
    let (x, y) = match span {
        Some(span) => {
            let f = tiles_rect(&device_tiles(&geom), span);
            (
                place(f.x + f.w / 2.0, w, geom.w),
                place(f.y + f.h / 2.0, h, geom.h),
            )
        }
        None => (0, 0),
    };
    FollowFrame {
        geom,
        view: ViewRect { x, y, w, h },
        offset: ((vw - w) / 2, (vh - h) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::mapdraw::{PB_LEVEL, TILE_COLS, TILE_ROWS};
    use buddyscope::mm::PAGEBLOCK_NR_PAGES;

    /// 1 GiB (512 pageblocks) at 1 CSS px per page in a 1188 CSS px wide map.
    fn gib(dpr: f64) -> Geom {
        Geom::new(512 * PAGEBLOCK_NR_PAGES, 1, dpr, 1188)
    }

    fn dev(css: u32, dpr: f64) -> u32 {
        (f64::from(css) * dpr).round() as u32
    }

    /// The touched tiles lie wholly inside the window, and the window inside the map.
    fn assert_focus_visible(ff: &FollowFrame, span: (u32, u32), vp: (u32, u32)) {
        let g = &ff.geom;
        let v = ff.view;
        let f = tiles_rect(&device_tiles(g), span);
        assert!(v.x + v.w <= g.w && v.y + v.h <= g.h, "{ff:?}");
        assert!((v.w, v.h) == (vp.0.min(g.w), vp.1.min(g.h)), "{ff:?}");
        if f.w <= f64::from(vp.0) && f.h <= f64::from(vp.1) {
            assert!(
                f.x >= f64::from(v.x) && f.y >= f64::from(v.y),
                "{span:?}: {ff:?}"
            );
            assert!(
                f.x + f.w <= f64::from(v.x + v.w) && f.y + f.h <= f64::from(v.y + v.h),
                "{span:?}: {ff:?}"
            );
        }
    }

    /// Sharp at any ratio: the follow view's cells, pads, tiles and window are whole device
    /// pixels (the types say so), every cell's edges fall on the device grid of the canvas (a
    /// tile's cells are `cell` apart from a whole-pixel origin), the canvas's CSS size times the
    /// ratio is its backing store exactly, and the zoom grows the cell by the viewport's room.
    #[test]
    fn the_follow_view_is_whole_device_pixels_at_every_ratio() {
        for dpr in [1.0, 1.5, 2.0, 3.0] {
            for zoom in [PB_LEVEL, 1, 2, 4] {
                let base = Geom::new(512 * PAGEBLOCK_NR_PAGES, zoom, dpr, 1188);
                let vp = (dev(1188, dpr), dev(320, dpr));
                for span in [(0, 0), (0, 1), (255, 256), (64, 95), (511, 511)] {
                    let ff = follow_frame(&base, Some(span), vp);
                    let g = ff.geom;
                    assert_eq!((g.group, g.per_row, g.dpr), (base.group, base.per_row, dpr));
                    assert!(g.cell >= base.cell && g.pad >= base.pad, "{ff:?}");
                    let cols = TILE_COLS / g.group;
                    let rows = TILE_ROWS / g.group;
                    assert_eq!(g.tile_w, cols * g.cell + 2 * g.pad);
                    assert_eq!(g.tile_h, rows * g.cell + 2 * g.pad);
                    // The canvas's CSS size is its backing store over the ratio, and back.
                    let css = g.css(ff.view.w);
                    assert_eq!((css * dpr).round() as u32, ff.view.w);
                    assert!((css * dpr - f64::from(ff.view.w)).abs() < 1e-9);
                    // At most MAX_PX_PER_PAGE CSS pixels per cell.
                    assert!(g.css(g.cell) <= MAX_PX_PER_PAGE + 1e-9 || g.cell == base.cell);
                    assert_focus_visible(&ff, span, vp);
                    // Hover: the page under every cell's first device pixel is that cell's page.
                    let pb = span.0;
                    let (tx, ty) = g.tile_origin(pb);
                    for (c, r) in [(0, 0), (cols - 1, rows - 1), (cols / 2, 1)] {
                        let x = i64::from(tx + g.pad + c * g.cell);
                        let y = i64::from(ty + g.pad + r * g.cell);
                        let want = pb * PAGEBLOCK_NR_PAGES + r * g.group * TILE_COLS + c * g.group;
                        assert_eq!(g.page_at(x, y), Some(want), "{dpr} {zoom} {span:?}");
                        assert_eq!(g.page_at(x + i64::from(g.cell) - 1, y), Some(want));
                    }
                }
            }
        }
    }

    #[test]
    fn one_pageblock_zooms_to_the_cap_and_stays_inside_the_map() {
        for dpr in [1.0, 2.0] {
            let base = gib(dpr);
            let vp = (dev(1188, dpr), dev(320, dpr));
            let ff = follow_frame(&base, Some((0, 0)), vp);
            // 16 CSS px per page: 16 × the 1 px layout.
            assert_eq!(ff.geom.cell, dev(16, dpr));
            assert_eq!(ff.scale(&base), 16.0);
            // At the top-left corner the view cannot centre it: it sticks to the edge.
            assert_eq!((ff.view.x, ff.view.y), (0, 0));
            assert_eq!(ff.offset, (0, 0));
            // A block in the middle is centred: its centre is the window's (to a pixel).
            let span = (8 * 33 + 16, 8 * 33 + 16);
            let ff = follow_frame(&base, Some(span), vp);
            let f = tiles_rect(&device_tiles(&ff.geom), span);
            let v = ff.view;
            assert!((f.x + f.w / 2.0 - f64::from(v.x) - f64::from(v.w) / 2.0).abs() <= 1.0);
            assert!((f.y + f.h / 2.0 - f64::from(v.y) - f64::from(v.h) / 2.0).abs() <= 1.0);
        }
    }

    #[test]
    fn the_focus_is_always_wholly_visible() {
        let base = gib(1.0);
        let vp = (base.w, base.h);
        for span in [
            (64, 95),
            (0, 511),
            (30, 40),
            (500, 511),
            (100, 100),
            (32, 33),
        ] {
            let ff = follow_frame(&base, Some(span), vp);
            assert_focus_visible(&ff, span, vp);
            // The canvas covers the viewport (no empty margin).
            assert_eq!((ff.view.w, ff.view.h, ff.offset), (vp.0, vp.1, (0, 0)));
        }
        // The CMA range: pageblocks 64..=95 span rows 1..=2, whole rows: no zoom.
        let ff = follow_frame(&base, Some((64, 95)), vp);
        assert_eq!(ff.geom, base);
        // The whole zone, or no op: no zoom, the whole map.
        assert_eq!(follow_frame(&base, Some((0, 511)), vp).geom, base);
        let ff = follow_frame(&base, None, vp);
        assert_eq!(
            (ff.geom, ff.view),
            (
                base,
                ViewRect {
                    x: 0,
                    y: 0,
                    w: vp.0,
                    h: vp.1
                }
            )
        );
    }

    /// A viewport shorter than the map (presenter mode): the focus is still wholly visible,
    /// and the canvas still fills the viewport.
    #[test]
    fn a_short_viewport_shows_a_focus_at_the_bottom() {
        let base = Geom::new(1024 * PAGEBLOCK_NR_PAGES, 1, 1.0, 720);
        let vp = (720, 300);
        for span in [(0, 0), (1022, 1023), (250, 251), (0, 19)] {
            let ff = follow_frame(&base, Some(span), vp);
            assert_focus_visible(&ff, span, vp);
            assert_eq!((ff.view.w, ff.view.h), vp);
        }
    }

    /// A viewport bigger than the map (a tall presenter box): the whole map is centred in it;
    /// zoomed, the map is bigger than the box and fills it.
    #[test]
    fn a_tall_viewport_centres_a_short_map() {
        let base = gib(1.0);
        let ff = follow_frame(&base, Some((0, 511)), (base.w, 800));
        assert_eq!(ff.geom, base);
        assert_eq!(ff.view.h, base.h);
        assert_eq!(ff.offset, (0, (800 - base.h) / 2));
        let ff = follow_frame(&base, Some((0, 0)), (base.w, 800));
        assert_eq!(ff.geom.cell, 16);
        assert_eq!((ff.view.h, ff.offset), (800, (0, 0)));
    }

    #[test]
    fn big_cells_zoom_less() {
        let base = Geom::new(128 * PAGEBLOCK_NR_PAGES, 8, 1.0, 1048);
        let ff = follow_frame(&base, Some((5, 5)), (base.w, base.h));
        assert_eq!(ff.scale(&base), 2.0);
        assert_eq!(ff.geom.cell, 16);
    }
}
