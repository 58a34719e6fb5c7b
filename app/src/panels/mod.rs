//! The UI, one module per thing on screen. The boxed panels (memory map, per-CPU lists, kernel
//! code, free lists, counters, charts, scenario) share [`frame::PanelFrame`]; the header's
//! stepping controls, the scrubber and the narration bar are bars, not boxes.
//!
//! Every panel that shows engine state has a pure `view_model(&Timeline) -> …Model` (tested
//! natively, no browser); its component only renders the model. All scenario text (names,
//! descriptions, notes) is rendered as text nodes or drawn on a canvas, never as HTML.

pub mod charts;
pub mod controls;
pub mod counters;
pub mod deferred;
pub mod exercises;
pub mod export;
pub mod fallback;
pub mod follow;
pub mod frame;
pub mod freelists;
pub mod history;
pub mod mapdraw;
pub mod memmap;
pub mod narration;
pub mod onscreen;
pub mod overtime;
pub mod pcp;
pub mod pfnpicker;
pub mod pollution;
pub mod procimport;
pub mod pseudocode;
pub mod replay;
pub mod runstatus;
pub mod saved;
pub mod scenario;
pub mod scrubber;
pub mod sharelink;
pub mod sidebyside;
pub mod skip;
pub mod slide;
pub mod whereis;
pub mod zonetabs;

use buddyscope::mm::MigrateType;
use buddyscope::mm::Zone;
use buddyscope::run::Run;
use leptos::html::Div;
use leptos::prelude::*;

/// The width of an element in CSS pixels, `fit(clientWidth)`, kept up to date on window
/// resizes (the canvases size themselves from it).
pub fn tracked_width(el: NodeRef<Div>, fit: fn(i32) -> u32) -> RwSignal<u32> {
    let width = RwSignal::new(0u32);
    let measure = move || {
        if let Some(el) = el.get_untracked() {
            let w = fit(el.client_width());
            if width.get_untracked() != w {
                width.set(w);
            }
        }
    };
    Effect::new(move |_| {
        el.track();
        measure();
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    width
}

/// Absolute pfn in the kernel's hex spelling.
pub fn pfn_hex(z: &Zone, idx: u32) -> String {
    format!("{:#x}", z.abs_pfn(idx))
}

/// Short column heading of a migratetype.
pub fn mt_short(mt: MigrateType) -> &'static str {
    match mt {
        MigrateType::Unmovable => "Unmov",
        MigrateType::Movable => "Movable",
        MigrateType::Reclaimable => "Recl",
        MigrateType::HighAtomic => "HighAt",
        MigrateType::Cma => "CMA",
        MigrateType::Isolate => "Isol",
    }
}

/// A human label of the op at index `i`: its summary and, if it has one, its name in quotes.
pub fn op_label(run: &Run, i: usize) -> String {
    let rec = &run.ops[i];
    let def = &run.op_defs[rec.def as usize];
    match &def.name {
        Some(n) => format!("{} \u{201c}{n}\u{201d}", def.summary),
        None => def.summary.clone(),
    }
}
