//! Still and moving frames for slides, laid out as a display list ([`Draw`]) that a painter
//! replays on a 2D canvas: the whole panel set ([`panel_set`]: header, narration, the memory
//! map, the free-list table, the per-CPU lists and the counters) and a recording frame
//! ([`recording_frame`]: a caption over the map). The layout is pure (tested natively); text is
//! monospace, so its width is known without measuring.

use buddyscope::{
    mm::{pindex_to_mt, pindex_to_order, NR_PAGE_ORDERS, NR_PCP_LISTS},
    MigrateType,
};

use super::counters::CountersModel;
use super::freelists::FreeListsModel;
use super::mt_short;
use super::narration::NarrationModel;
use super::pcp::PcpModel;
use crate::theme::{Palette, Rgba};

/// Width of a monospace glyph per pixel of font size (DejaVu Sans Mono, Liberation Mono).
pub const MONO_ADVANCE: f64 = 0.61;

/// One drawing instruction. Coordinates in canvas pixels; text is drawn with its top at `y`.
#[derive(Clone, Debug, PartialEq)]
pub enum Draw {
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        color: Rgba,
    },
    Text {
        x: f64,
        y: f64,
        px: u32,
        bold: bool,
        color: Rgba,
        text: String,
    },
    /// The memory map canvas, scaled into this box.
    Map { x: f64, y: f64, w: f64, h: f64 },
}

/// A canvas size and what to draw on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Slide {
    pub w: u32,
    pub h: u32,
    pub draws: Vec<Draw>,
}

#[cfg(test)]
impl Slide {
    /// The texts, in drawing order.
    pub fn texts(&self) -> Vec<&str> {
        self.draws
            .iter()
            .filter_map(|d| match d {
                Draw::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The words of the frame that are not in the panel models.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Heading {
    /// Scenario name.
    pub title: String,
    /// `kernel v7.1 · event i / n · op k / m`.
    pub position: String,
}

/// Cuts `s` to at most `width` pixels of `px`-pixel monospace, ending in `…` if cut.
pub fn fit(s: &str, px: u32, width: f64) -> String {
    let max = (width / (px as f64 * MONO_ADVANCE)).floor().max(1.0) as usize;
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('\u{2026}');
        out
    }
}

/// A column of text lines being laid out.
struct Col<'p> {
    x: f64,
    y: f64,
    w: f64,
    pal: &'p Palette,
    draws: Vec<Draw>,
}

impl Col<'_> {
    fn line(&mut self, s: &str, px: u32, bold: bool, color: Rgba) {
        self.draws.push(Draw::Text {
            x: self.x,
            y: self.y,
            px,
            bold,
            color,
            text: fit(s, px, self.w),
        });
        self.y += (px as f64 * 1.4).ceil();
    }
    fn heading(&mut self, s: &str) {
        self.y += 6.0;
        self.line(s, 15, true, self.pal.accent);
        self.draws.push(Draw::Rect {
            x: self.x,
            y: self.y - 3.0,
            w: self.w,
            h: 1.0,
            color: self.pal.border,
        });
        self.y += 2.0;
    }
    fn text(&mut self, s: &str) {
        self.line(s, 13, false, self.pal.fg);
    }
    fn muted(&mut self, s: &str) {
        self.line(s, 12, false, self.pal.fg_muted);
    }
}

const MARGIN: f64 = 16.0;
/// The right-hand column of tables.
const SIDE_W: f64 = 600.0;
/// The map is drawn at most this big (scaled down, aspect kept).
const MAP_MAX_W: f64 = 960.0;
const MAP_MAX_H: f64 = 1000.0;
/// Per-CPU lines shown at most.
const MAX_CPUS: usize = 8;

/// The map's box when it may be `max_w` × `max_h` at most (never scaled up).
fn map_box(map: (u32, u32), max_w: f64, max_h: f64) -> (f64, f64) {
    let (w, h) = (map.0.max(1) as f64, map.1.max(1) as f64);
    let s = (max_w / w).min(max_h / h).min(1.0);
    ((w * s).floor().max(1.0), (h * s).floor().max(1.0))
}

/// The whole panel set at the cursor: header and narration across the top, the map on the
/// left, free lists, per-CPU lists and counters on the right.
pub fn panel_set(
    head: &Heading,
    narr: &NarrationModel,
    lists: &FreeListsModel,
    pcp: &PcpModel,
    counters: &CountersModel,
    map: (u32, u32),
    pal: &Palette,
) -> Slide {
    let (mw, mh) = map_box(map, MAP_MAX_W, MAP_MAX_H);
    let w = (MARGIN * 2.0 + mw + 24.0 + SIDE_W).ceil();
    let mut top = Col {
        x: MARGIN,
        y: MARGIN,
        w: w - 2.0 * MARGIN,
        pal,
        draws: Vec::new(),
    };
    top.line(
        &format!("buddyscope \u{2014} {}", head.title),
        20,
        true,
        pal.fg,
    );
    top.line(&head.position, 14, false, pal.fg_muted);
    top.line(&narr.line, 14, true, pal.fg);
    if !narr.op.is_empty() {
        top.line(
            &format!("{} \u{2014} {}", narr.op, narr.outcome),
            13,
            false,
            pal.fg,
        );
    }
    if let Some(n) = &narr.note {
        top.line(n, 12, false, pal.fg_muted);
    }
    top.y += 4.0;
    top.draws.push(Draw::Rect {
        x: MARGIN,
        y: top.y,
        w: w - 2.0 * MARGIN,
        h: 1.0,
        color: pal.border,
    });
    let body_y = top.y + 12.0;
    let mut draws = top.draws;
    draws.push(Draw::Map {
        x: MARGIN,
        y: body_y,
        w: mw,
        h: mh,
    });

    let mut side = Col {
        x: MARGIN + mw + 24.0,
        y: body_y - 6.0,
        w: SIDE_W,
        pal,
        draws: Vec::new(),
    };
    side.heading("free_area[order].free_list[migratetype]: blocks");
    let mut head_row = "order".to_string();
    for &mt in &lists.types {
        head_row.push_str(&format!("{:>9}", mt_short(mt)));
    }
    head_row.push_str(&format!("{:>10}", "nr_free"));
    side.muted(&head_row);
    for o in 0..NR_PAGE_ORDERS {
        let mut row = format!("{o:>5}");
        for &mt in &lists.types {
            let n = lists
                .cells
                .get(o)
                .and_then(|r| r.get(mt.idx()))
                .map(|c| c.count)
                .unwrap_or(0);
            row.push_str(&format!("{n:>9}"));
        }
        row.push_str(&format!("{:>10}", lists.nr_free[o]));
        side.text(&row);
    }
    side.muted(&format!("free pages in the buddy: {}", lists.free_pages));

    side.heading("per-CPU pages (pcp)");
    for (cpu, c) in pcp.cpus.iter().enumerate().take(MAX_CPUS) {
        side.text(&format!(
            "cpu {cpu}: count {} / high {} (batch {}, high_min {}, high_max {})",
            c.count, c.high, c.batch, c.high_min, c.high_max
        ));
        let lists: Vec<String> = (0..NR_PCP_LISTS)
            .filter(|&i| c.lists[i] > 0)
            .map(|i| {
                let mt = pindex_to_mt(i);
                let t = if pindex_to_order(i) >= 9 && mt == MigrateType::Unmovable {
                    "U+R".to_string()
                } else {
                    mt_short(mt).to_string()
                };
                format!("o{} {t} {}", pindex_to_order(i), c.lists[i])
            })
            .collect();
        side.muted(&if lists.is_empty() {
            "  lists empty".to_string()
        } else {
            format!("  {}", lists.join(", "))
        });
    }
    if pcp.cpus.len() > MAX_CPUS {
        side.muted(&format!("\u{2026} {} more CPUs", pcp.cpus.len() - MAX_CPUS));
    }

    side.heading("cost counters (cumulative)");
    let rows = &counters.rows;
    let half = rows.len().div_ceil(2);
    for i in 0..half {
        let cell = |r: Option<&super::counters::CounterRow>| {
            r.map(|r| format!("{:<22}{:>7}", r.label, r.value))
                .unwrap_or_default()
        };
        side.text(&format!(
            "{}   {}",
            cell(rows.get(i)),
            cell(rows.get(i + half))
        ));
    }
    draws.extend(side.draws);
    let h = (body_y + mh).max(side.y) + MARGIN;
    let mut all = vec![Draw::Rect {
        x: 0.0,
        y: 0.0,
        w,
        h: h.ceil(),
        color: pal.bg,
    }];
    all.extend(draws);
    Slide {
        w: w as u32,
        h: h.ceil() as u32,
        draws: all,
    }
}

/// Height of the caption above the map in a recording.
const CAPTION_H: f64 = 52.0;
/// A recording is at most this wide (the map scaled down to it): real-time software VP8
/// encoding must keep up on a modest laptop.
pub const RECORDING_MAX_W: f64 = 960.0;

/// One recording frame: the position and the narration over the map. Width and height are
/// even (what VP8/VP9 encoders want).
pub fn recording_frame(
    head: &Heading,
    narr: &NarrationModel,
    map: (u32, u32),
    pal: &Palette,
) -> Slide {
    let max_w = RECORDING_MAX_W.min(map.0.max(320) as f64);
    let (mw, mh) = map_box(map, max_w, 720.0 - CAPTION_H);
    let w = ((mw.max(320.0) as u32) + 1) & !1;
    let h = ((CAPTION_H + mh) as u32 + 1) & !1;
    let mut cap = Col {
        x: 8.0,
        y: 6.0,
        w: w as f64 - 16.0,
        pal,
        draws: vec![Draw::Rect {
            x: 0.0,
            y: 0.0,
            w: w as f64,
            h: h as f64,
            color: pal.bg,
        }],
    };
    cap.line(
        &format!("{} \u{b7} {}", head.title, head.position),
        14,
        true,
        pal.fg,
    );
    cap.line(&narr.line, 14, false, pal.fg);
    let mut draws = cap.draws;
    draws.push(Draw::Map {
        x: ((w as f64 - mw) / 2.0).floor(),
        y: CAPTION_H,
        w: mw,
        h: mh,
    });
    Slide { w, h, draws }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::{counters, freelists, narration, pcp};
    use crate::testutil::timeline;
    use crate::theme::palette;

    fn inside(s: &Slide) {
        for d in &s.draws {
            let (x, y, w, h) = match d {
                Draw::Rect { x, y, w, h, .. } | Draw::Map { x, y, w, h } => (*x, *y, *w, *h),
                Draw::Text { x, y, px, text, .. } => (
                    *x,
                    *y,
                    text.chars().count() as f64 * *px as f64 * MONO_ADVANCE,
                    *px as f64,
                ),
            };
            assert!(
                x >= 0.0 && y >= 0.0 && x + w <= s.w as f64 + 0.5 && y + h <= s.h as f64 + 0.5,
                "{d:?} outside {}x{}",
                s.w,
                s.h
            );
        }
    }

    /// The composed frame shows the panels' own numbers: every free-list count and nr_free
    /// of the table, each CPU's count/high/batch, every counter, the narration.
    #[test]
    fn the_panel_set_carries_the_panels_numbers() {
        let mut t = timeline("pcp-overflow-2cpu");
        t.seek(t.len() / 2);
        let lists = freelists::view_model(&t);
        let pcpm = pcp::view_model(&t);
        let cnt = counters::view_model(&t);
        let narr = narration::view_model(&t);
        let head = Heading {
            title: t.run.scenario.name.clone(),
            position: format!("event {} / {}", t.pos(), t.len()),
        };
        let s = panel_set(
            &head,
            &narr,
            &lists,
            &pcpm,
            &cnt,
            (900, 300),
            palette(false),
        );
        inside(&s);
        let texts = s.texts().join("\n");
        assert!(texts.contains(&fit(&narr.line, 14, s.w as f64 - 32.0)));
        for o in 0..NR_PAGE_ORDERS {
            let row = s
                .texts()
                .into_iter()
                .find(|l| l.starts_with(&format!("{o:>5}")) && l.len() > 5)
                .expect("an order row");
            let nums: Vec<u64> = row.split_whitespace().map(|n| n.parse().unwrap()).collect();
            let mut want = vec![o as u64];
            want.extend(
                lists
                    .types
                    .iter()
                    .map(|mt| lists.cells[o][mt.idx()].count as u64),
            );
            want.push(lists.nr_free[o]);
            assert_eq!(nums, want, "order {o}");
        }
        for (cpu, c) in pcpm.cpus.iter().enumerate() {
            assert!(texts.contains(&format!(
                "cpu {cpu}: count {} / high {} (batch {}",
                c.count, c.high, c.batch
            )));
        }
        for r in &cnt.rows {
            assert!(
                texts.contains(&format!("{:<22}{:>7}", r.label, r.value)),
                "{}",
                r.name
            );
        }
        assert_eq!(
            s.draws
                .iter()
                .filter(|d| matches!(d, Draw::Map { .. }))
                .count(),
            1
        );
        // A big map is scaled down, never up; the frame stays within bounds.
        let big = panel_set(
            &head,
            &narr,
            &lists,
            &pcpm,
            &cnt,
            (2000, 3000),
            palette(true),
        );
        inside(&big);
        let small = panel_set(&head, &narr, &lists, &pcpm, &cnt, (200, 100), palette(true));
        assert!(small.draws.contains(&Draw::Map {
            x: MARGIN,
            y: match small.draws.iter().find(|d| matches!(d, Draw::Map { .. })) {
                Some(Draw::Map { y, .. }) => *y,
                _ => unreachable!(),
            },
            w: 200.0,
            h: 100.0
        }));
    }

    #[test]
    fn recording_frames_are_even_and_hold_the_map() {
        let t = timeline("fallback-claim");
        let narr = narration::view_model(&t);
        for map in [(1180, 460), (2600, 900), (301, 77)] {
            let s = recording_frame(&Heading::default(), &narr, map, palette(false));
            assert_eq!((s.w % 2, s.h % 2), (0, 0), "{map:?}");
            assert!(s.w as f64 <= RECORDING_MAX_W);
            inside(&s);
        }
        assert_eq!(fit("abcdef", 10, 6.1 * 4.0), "abc\u{2026}");
        assert_eq!(fit("abc", 10, 100.0), "abc");
    }
}
