//! The one theme: the user's choice (auto / light / dark), the one `dark` signal every canvas
//! follows, and the palette the canvases draw with.
//!
//! "auto" follows the OS `prefers-color-scheme`, including a switch while the page is open;
//! "light"/"dark" set `data-theme` on `<html>` (www/style.css keys its custom properties on
//! both). The choice persists in localStorage; www/boot.js applies it before the first paint.
//!
//! The palette is Okabe-Ito based (safe for the common colour-vision deficiencies), and never
//! colour alone: pcp blocks are hatched, foreign pages dotted, and the pageblock frame's
//! thickness depends on its type. The UI colours and the migratetype colours are the same
//! values as the custom properties in www/style.css (`--surface`, `--fg`, `--mt-*`, …).

use buddyscope::MigrateType;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const STORAGE_KEY: &str = "buddyscope-theme";
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn parse(s: &str) -> Option<Theme> {
        match s {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The next theme in the toggle's cycle.
    pub fn next(self) -> Theme {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }

    /// Whether this choice means dark colours when the OS prefers dark (`os_dark`) or not.
    pub fn is_dark(self, os_dark: bool) -> bool {
        match self {
            Theme::Auto => os_dark,
            Theme::Light => false,
            Theme::Dark => true,
        }
    }
}

/// The theme in context: the choice and the resulting dark flag.
#[derive(Clone, Copy)]
pub struct ThemeState {
    pub choice: RwSignal<Theme>,
    /// True while dark colours are in effect: the one signal the memory map, the scrubber and
    /// the charts repaint on.
    pub dark: Signal<bool>,
}

impl ThemeState {
    /// Reads the stored choice, listens to the OS preference, keeps `<html data-theme>` and
    /// localStorage in step with the choice, and provides the state as context.
    pub fn provide() -> ThemeState {
        let choice = RwSignal::new(initial());
        let os_dark = RwSignal::new(false);
        if let Some(mq) = web_sys::window().and_then(|w| w.match_media(DARK_QUERY).ok().flatten()) {
            os_dark.set(mq.matches());
            let m = mq.clone();
            let cb = Closure::<dyn FnMut()>::new(move || os_dark.set(m.matches()));
            let _ = mq.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
            // Lives as long as the page (the app root is never unmounted).
            cb.forget();
        }
        Effect::new(move |_| apply(choice.get()));
        let st = ThemeState {
            choice,
            dark: Signal::derive(move || choice.get().is_dark(os_dark.get())),
        };
        provide_context(st);
        st
    }

    /// The dark flag from context (`false` outside the app root).
    pub fn dark() -> Signal<bool> {
        use_context::<ThemeState>()
            .map(|t| t.dark)
            .unwrap_or_else(|| Signal::derive(|| false))
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The stored theme, or `Auto`.
fn initial() -> Theme {
    storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|v| Theme::parse(&v))
        .unwrap_or(Theme::Auto)
}

/// Sets (or, for `Auto`, removes) `data-theme` on `<html>` and remembers the choice.
fn apply(theme: Theme) {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element());
    if let Some(root) = root {
        let _ = match theme {
            Theme::Auto => root.remove_attribute("data-theme"),
            other => root.set_attribute("data-theme", other.as_str()),
        };
    }
    if let Some(s) = storage() {
        let _ = s.set_item(STORAGE_KEY, theme.as_str());
    }
}

// --- the palette ---------------------------------------------------------------------------

pub type Rgba = [u8; 4];

const fn rgb(hex: u32) -> Rgba {
    [(hex >> 16) as u8, (hex >> 8) as u8, hex as u8, 255]
}

pub struct Palette {
    /// `--surface`: panel and canvas background.
    pub bg: Rgba,
    /// `--fg`, `--fg-muted`, `--border`, `--accent`.
    pub fg: Rgba,
    pub fg_muted: Rgba,
    pub border: Rgba,
    pub accent: Rgba,
    /// Pages that are neither free nor held by a recorded allocation (never freed at boot).
    pub reserved: Rgba,
    /// Pages compaction's free scanner took out of the buddy (`cc->freepages`), and their
    /// hatching (the other way from a pcp block's).
    pub isolated: Rgba,
    pub isolated_hatch: Rgba,
    /// Free buddy pages by block order: lighter (closer to the background) for bigger blocks.
    pub free: [Rgba; 11],
    /// The darker line around free blocks at higher zoom.
    pub free_edge: Rgba,
    pub pcp: Rgba,
    pub pcp_hatch: Rgba,
    /// Allocations: one tone per op definition (cycled).
    pub alloc: [Rgba; 8],
    /// Pages the /proc import left allocated ("owned by the pageblock's type").
    pub filler: Rgba,
    /// The dots on pages of another type than their pageblock.
    pub dot: Rgba,
    /// Pages touched by the current event.
    pub highlight: Rgba,
    pub highlight_edge: Rgba,
    /// Compaction's migration scanner and free scanner markers on the map.
    pub scan_migrate: Rgba,
    pub scan_free: Rgba,
    /// `--mt-*`, by `MigrateType::idx()`.
    pub mt: [Rgba; 6],
}

pub const LIGHT: Palette = Palette {
    bg: rgb(0xffffff),
    fg: rgb(0x1b1e24),
    fg_muted: rgb(0x555d6b),
    border: rgb(0xd4d9e2),
    accent: rgb(0x2456b8),
    reserved: rgb(0xb8b8b8),
    isolated: rgb(0xa8dca0),
    isolated_hatch: rgb(0x111111),
    free: [
        rgb(0x8fbbe0),
        rgb(0x9bc3e4),
        rgb(0xa7cae7),
        rgb(0xb3d1eb),
        rgb(0xbfd8ee),
        rgb(0xcadff2),
        rgb(0xd3e5f4),
        rgb(0xdbe9f6),
        rgb(0xe2eef8),
        rgb(0xe9f2fa),
        rgb(0xeff6fc),
    ],
    free_edge: rgb(0x5a87b0),
    pcp: rgb(0xF0E442),
    pcp_hatch: rgb(0x8a7f00),
    alloc: [
        rgb(0x1f3f73),
        rgb(0x00604a),
        rgb(0x7a2e5c),
        rgb(0x6b4a00),
        rgb(0x2c5f7a),
        rgb(0x4b3b8f),
        rgb(0x5c3b1e),
        rgb(0x3d5c1e),
    ],
    filler: rgb(0x6f6f6f),
    dot: rgb(0xffffff),
    highlight: rgb(0xD55E00),
    highlight_edge: rgb(0x000000),
    scan_migrate: rgb(0xc2006f),
    scan_free: rgb(0x111111),
    // Okabe-Ito: orange, blue, bluish green, reddish purple, sky blue, grey.
    mt: [
        rgb(0xE69F00),
        rgb(0x0072B2),
        rgb(0x009E73),
        rgb(0xCC79A7),
        rgb(0x56B4E9),
        rgb(0x555555),
    ],
};

pub const DARK: Palette = Palette {
    bg: rgb(0x1c1f26),
    fg: rgb(0xe6e8ec),
    fg_muted: rgb(0xa3abb9),
    border: rgb(0x363b46),
    accent: rgb(0x7aa7ff),
    reserved: rgb(0x4a4e57),
    isolated: rgb(0x2f7a3c),
    isolated_hatch: rgb(0xffffff),
    free: [
        rgb(0x3f6a94),
        rgb(0x3b6389),
        rgb(0x375c7f),
        rgb(0x335575),
        rgb(0x2f4e6b),
        rgb(0x2c4862),
        rgb(0x294259),
        rgb(0x263c51),
        rgb(0x23374a),
        rgb(0x213243),
        rgb(0x1f2e3d),
    ],
    free_edge: rgb(0x7fb0dd),
    pcp: rgb(0xF0E442),
    pcp_hatch: rgb(0x6b6300),
    alloc: [
        rgb(0x6fa8dc),
        rgb(0x3cc79e),
        rgb(0xe58fc3),
        rgb(0xd8a63a),
        rgb(0x8fd0f0),
        rgb(0xa99be8),
        rgb(0xc98a5a),
        rgb(0x9ccf5e),
    ],
    filler: rgb(0x9a9a9a),
    dot: rgb(0x101010),
    highlight: rgb(0xff7a2f),
    highlight_edge: rgb(0xffffff),
    scan_migrate: rgb(0xff5fc8),
    scan_free: rgb(0xffffff),
    mt: [
        rgb(0xE69F00),
        rgb(0x3fa2e6),
        rgb(0x19c594),
        rgb(0xe08fbf),
        rgb(0x7dd3fc),
        rgb(0xa0a0a0),
    ],
};

pub fn palette(dark: bool) -> &'static Palette {
    if dark {
        &DARK
    } else {
        &LIGHT
    }
}

/// Frame thickness (pixels, before clamping to the tile padding) by pageblock type: the
/// second channel besides colour. Movable (the common case) is thin.
pub fn frame_width(mt: MigrateType) -> u32 {
    match mt {
        MigrateType::Movable => 1,
        MigrateType::Unmovable | MigrateType::Reclaimable => 2,
        MigrateType::HighAtomic | MigrateType::Cma | MigrateType::Isolate => 3,
    }
}

/// Hue of an order in the free-pages chart: purple (order 0) through blue, green, yellow to
/// red (order 10); `(hue in degrees, saturation, lightness)`.
pub fn order_hsl(order: usize, dark: bool) -> (f64, f64, f64) {
    (
        270.0 - order as f64 * 27.0,
        0.75,
        if dark { 0.62 } else { 0.44 },
    )
}

/// `#rrggbb` for CSS.
pub fn css(c: Rgba) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canvas palette and www/style.css must agree (the charts used to read the CSS).
    #[test]
    fn palette_matches_the_stylesheet() {
        let css_text = include_str!("../../www/style.css");
        let (light, dark) = css_text
            .split_once("@media (prefers-color-scheme: dark)")
            .expect("a dark block");
        for (block, pal) in [(light, &LIGHT), (dark, &DARK)] {
            let var = |name: &str| {
                let at = block
                    .find(&format!("{name}:"))
                    .unwrap_or_else(|| panic!("{name}"));
                block[at + name.len() + 1..]
                    .trim_start()
                    .get(..7)
                    .unwrap()
                    .to_ascii_lowercase()
            };
            assert_eq!(var("--surface"), css(pal.bg));
            assert_eq!(var("--fg"), css(pal.fg));
            assert_eq!(var("--fg-muted"), css(pal.fg_muted));
            assert_eq!(var("--border"), css(pal.border));
            assert_eq!(var("--accent"), css(pal.accent));
            for mt in MigrateType::ALL {
                assert_eq!(var(&format!("--mt-{}", mt.slug())), css(pal.mt[mt.idx()]));
            }
        }
    }

    #[test]
    fn auto_follows_the_os_and_the_cycle_visits_every_choice() {
        assert!(Theme::Auto.is_dark(true));
        assert!(!Theme::Auto.is_dark(false));
        assert!(Theme::Dark.is_dark(false));
        assert!(!Theme::Light.is_dark(true));
        let mut t = Theme::Auto;
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(t.as_str());
            t = t.next();
            assert_eq!(Theme::parse(t.as_str()), Some(t));
        }
        assert_eq!(seen, ["auto", "light", "dark"]);
    }
}
