//! Colours of the memory map (canvas pixels) and its legend. Based on the Okabe-Ito palette
//! (safe for the common colour-vision deficiencies), and never colour alone: pcp blocks are
//! hatched, foreign pages dotted, and the pageblock frame's thickness depends on its type.
//!
//! The migratetype colours match the `--mt-*` custom properties in www/style.css.

use buddyscope::types::MigrateType;

pub type Rgba = [u8; 4];

const fn rgb(hex: u32) -> Rgba {
    [(hex >> 16) as u8, (hex >> 8) as u8, hex as u8, 255]
}

pub struct Palette {
    pub bg: Rgba,
    /// Pages that are neither free nor held by a recorded allocation (never freed at boot).
    pub reserved: Rgba,
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
    pub mt: [Rgba; 6],
}

/// Okabe-Ito: orange, blue, bluish green, reddish purple, sky blue, grey.
const MT_LIGHT: [Rgba; 6] = [
    rgb(0xE69F00),
    rgb(0x0072B2),
    rgb(0x009E73),
    rgb(0xCC79A7),
    rgb(0x56B4E9),
    rgb(0x555555),
];

pub const LIGHT: Palette = Palette {
    bg: rgb(0xffffff),
    reserved: rgb(0xb8b8b8),
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
    mt: MT_LIGHT,
};

pub const DARK: Palette = Palette {
    bg: rgb(0x1c1f26),
    reserved: rgb(0x4a4e57),
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

/// `#rrggbb` for CSS.
pub fn css(c: Rgba) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}
