//! Follow the action: the map zooms to the pageblocks the current operation touches
//! ([`buddyscope::focus::op_touched_pageblocks`]), with a small whole-zone overview marking where
//! that is. The zoom is a CSS transform of the map's canvas (smooth through a CSS transition,
//! which `prefers-reduced-motion: reduce` turns off: a jump instead), so the canvas's pixels
//! and its incremental repaint stay as they are.

/// The largest zoom in pixels per page side: beyond it a pageblock is bigger than the viewport.
pub const MAX_PX_PER_PAGE: f64 = 16.0;

/// The map's tile layout, in canvas pixels (the memory map's `Geom`, the parts needed here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    pub tile_w: u32,
    pub tile_h: u32,
    pub per_row: u32,
    /// Canvas size.
    pub w: u32,
    pub h: u32,
    /// Pixels per page side.
    pub cell: u32,
}

/// A rectangle in canvas pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Where the canvas goes: `translate(tx, ty) scale(scale)` with origin at its top left, showing
/// `focus` (the touched tiles) as large as fits in the viewport (the visible box of the map,
/// at most the canvas's size) and centred where the canvas's edges allow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FollowView {
    pub focus: Rect,
    pub scale: f64,
    pub tx: f64,
    pub ty: f64,
}

impl FollowView {
    /// No zoom: the whole zone.
    pub const WHOLE: FollowView = FollowView {
        focus: Rect {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0,
        },
        scale: 1.0,
        tx: 0.0,
        ty: 0.0,
    };

    /// The CSS `transform` value.
    pub fn css(&self) -> String {
        format!(
            "translate({:.1}px, {:.1}px) scale({:.4})",
            self.tx, self.ty, self.scale
        )
    }
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

/// The view that shows pageblocks `span` in a viewport of `(vw, vh)` CSS pixels (the map's
/// visible box: the canvas's size, or the presenter layout's box). The scale is at least 1 (never
/// smaller than the whole zone) and at most [`MAX_PX_PER_PAGE`] per page. The focus is centred
/// where the canvas's edges allow; a canvas narrower than the viewport is centred.
pub fn follow_view(t: &Tiles, span: Option<(u32, u32)>, (vw, vh): (u32, u32)) -> FollowView {
    let Some(span) = span else {
        return FollowView::WHOLE;
    };
    let focus = tiles_rect(t, span);
    let (cw, ch) = (f64::from(t.w.max(1)), f64::from(t.h.max(1)));
    let (vw, vh) = (f64::from(vw.max(1)), f64::from(vh.max(1)));
    let max = (MAX_PX_PER_PAGE / f64::from(t.cell.max(1))).max(1.0);
    let scale = (vw / focus.w).min(vh / focus.h).clamp(1.0, max);
    let place = |c: f64, view: f64, canvas: f64| {
        let room = view - canvas * scale;
        if room >= 0.0 {
            room / 2.0
        } else {
            (view / 2.0 - c * scale).clamp(room, 0.0)
        }
    };
    FollowView {
        focus,
        scale,
        tx: place(focus.x + focus.w / 2.0, vw, cw),
        ty: place(focus.y + focus.h / 2.0, vh, ch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A viewport shorter than the canvas (presenter mode): the focus is still wholly visible,
    /// and the canvas still covers the viewport.
    #[test]
    fn a_short_viewport_shows_a_focus_at_the_bottom() {
        let t = Tiles {
            per_row: 20,
            w: 720,
            h: 26 * 20,
            ..GIB
        };
        let vp = (720, 300);
        for span in [(0, 0), (510, 511), (250, 251), (0, 19)] {
            let v = follow_view(&t, Some(span), vp);
            let f = v.focus;
            assert!(f.y * v.scale + v.ty >= -1e-9, "{span:?}: {v:?}");
            assert!(
                (f.y + f.h) * v.scale + v.ty <= 300.0 + 1e-9,
                "{span:?}: {v:?}"
            );
            assert!(
                v.ty + t.h as f64 * v.scale >= 300.0 - 1e-9,
                "{span:?}: {v:?}"
            );
        }
    }

    /// 1 GiB at 1 px per page in a 1188 px wide map: 33 tiles of 36 × 20 px per row.
    const GIB: Tiles = Tiles {
        tile_w: 36,
        tile_h: 20,
        per_row: 33,
        w: 33 * 36,
        h: 16 * 20,
        cell: 1,
    };

    const FULL: (u32, u32) = (GIB.w, GIB.h);

    #[test]
    fn one_pageblock_zooms_to_the_cap_and_stays_inside_the_canvas() {
        let v = follow_view(&GIB, Some((0, 0)), FULL);
        assert_eq!(v.scale, 16.0);
        assert_eq!(
            v.focus,
            Rect {
                x: 0.0,
                y: 0.0,
                w: 36.0,
                h: 20.0
            }
        );
        // At the top-left corner the view cannot centre it: it sticks to the edge.
        assert_eq!((v.tx, v.ty), (0.0, 0.0));
        // A block in the middle is centred: its centre maps to the viewport's.
        let v = follow_view(&GIB, Some((8 * 33 + 16, 8 * 33 + 16)), FULL);
        let cx = (v.focus.x + v.focus.w / 2.0) * v.scale + v.tx;
        let cy = (v.focus.y + v.focus.h / 2.0) * v.scale + v.ty;
        assert!((cx - GIB.w as f64 / 2.0).abs() < 1e-9 && (cy - GIB.h as f64 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_focus_is_always_wholly_visible() {
        for span in [
            (64, 95),
            (0, 511),
            (30, 40),
            (500, 511),
            (100, 100),
            (32, 33),
        ] {
            let v = follow_view(&GIB, Some(span), FULL);
            let f = v.focus;
            let (x0, y0) = (f.x * v.scale + v.tx, f.y * v.scale + v.ty);
            let (x1, y1) = ((f.x + f.w) * v.scale + v.tx, (f.y + f.h) * v.scale + v.ty);
            assert!(x0 >= -1e-9 && y0 >= -1e-9, "{span:?}: {v:?}");
            assert!(
                x1 <= GIB.w as f64 + 1e-9 && y1 <= GIB.h as f64 + 1e-9,
                "{span:?}: {v:?}"
            );
            assert!(v.scale >= 1.0);
            // The canvas still covers the viewport (no empty margin).
            assert!(v.tx <= 0.0 && v.tx + GIB.w as f64 * v.scale >= GIB.w as f64 - 1e-9);
        }
        // The CMA range: pageblocks 64..=95 span rows 1..=2, whole rows: 2 of 16 rows tall.
        let v = follow_view(&GIB, Some((64, 95)), FULL);
        assert_eq!(
            v.focus,
            Rect {
                x: 0.0,
                y: 20.0,
                w: 1188.0,
                h: 40.0
            }
        );
        assert_eq!(v.scale, 1.0);
        // The whole zone: no zoom.
        assert_eq!(follow_view(&GIB, Some((0, 511)), FULL).scale, 1.0);
        assert_eq!(follow_view(&GIB, None, FULL), FollowView::WHOLE);
    }

    /// A viewport bigger than the canvas (a tall presenter box): the zoomed canvas still covers
    /// the width, and a canvas shorter than the box is centred in it.
    #[test]
    fn a_tall_viewport_centres_a_short_canvas() {
        let v = follow_view(&GIB, Some((0, 0)), (GIB.w, 800));
        assert!(v.scale > 16.0 - 1e-9 && v.scale <= 16.0);
        assert_eq!(v.tx, 0.0);
        // 16 × 320 px is taller than 800: pinned to the top edge where pageblock 0 is.
        assert_eq!(v.ty, 0.0);
        let v = follow_view(&GIB, Some((0, 511)), (GIB.w, 800));
        assert_eq!(v.scale, 1.0);
        assert_eq!(v.ty, (800.0 - GIB.h as f64) / 2.0);
    }

    #[test]
    fn big_cells_zoom_less() {
        let t = Tiles {
            cell: 8,
            tile_w: 262,
            tile_h: 134,
            per_row: 4,
            w: 1048,
            h: 134 * 32,
        };
        let v = follow_view(&t, Some((5, 5)), (t.w, t.h));
        assert_eq!(v.scale, 2.0);
        assert_eq!(
            v.css(),
            format!("translate({:.1}px, {:.1}px) scale(2.0000)", v.tx, v.ty)
        );
    }
}
