//! The core views: memory map, free lists, per-CPU lists, stepping controls, scrubber and
//! narration. Every view reads the engine's state at the cursor through
//! [`AppState::with`](crate::state::AppState::with) and renders it; nothing here re-derives
//! allocator state.

pub mod controls;
pub mod freelists;
pub mod memmap;
pub mod narration;
pub mod palette;
pub mod pcp;
pub mod scrubber;

use buddyscope::types::MigrateType;
use buddyscope::zone::Zone;
use leptos::prelude::*;

/// Whether the dark palette is in effect (the canvas needs it; CSS follows by itself).
#[derive(Clone, Copy)]
pub struct DarkMode(pub Signal<bool>);

impl DarkMode {
    pub fn get() -> Signal<bool> {
        use_context::<DarkMode>()
            .map(|d| d.0)
            .unwrap_or_else(|| Signal::derive(|| false))
    }
}

/// Absolute pfn in the kernel's hex spelling.
pub fn pfn_hex(z: &Zone, idx: u32) -> String {
    format!("{:#x}", z.abs_pfn(idx))
}

/// The migratetypes the free-list table shows: the kernel's set for this zone (CMA only with
/// CMA configured; ISOLATE always).
pub fn shown_types(z: &Zone) -> Vec<MigrateType> {
    MigrateType::kernel_types(z.cfg().cma)
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

/// A human label of the op at index `i`: its summary, then its `as` name in quotes if it has
/// one (callers print the op's position themselves).
pub fn op_label(run: &buddyscope::runner::Run, i: usize) -> String {
    let rec = &run.ops[i];
    let def = &run.op_defs[rec.def as usize];
    match &def.name {
        Some(n) => format!("{} \u{201c}{n}\u{201d}", def.summary),
        None => def.summary.clone(),
    }
}

/// `performance.now()` in milliseconds (0 outside a browser).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Sets `window[name] = value` (numbers the e2e tests and the console can read).
pub fn expose(name: &str, value: f64) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &value.into());
    }
}
