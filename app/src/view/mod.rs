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

use buddyscope::events::{EventKind, Tracepoint};
use buddyscope::types::{MigrateType, PAGEBLOCK_NR_PAGES};
use buddyscope::zone::{pindex_to_order, Zone};
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

/// The zone-relative page range `[start, start + len)` an event touched, if it names pages.
pub fn touched(kind: &EventKind) -> Option<(u32, u32)> {
    let block = |pfn: u32, order: u8| Some((pfn, 1u32 << order));
    match *kind {
        EventKind::FreeListAdd { pfn, order, .. }
        | EventKind::FreeListDel { pfn, order, .. }
        | EventKind::FreeListMove { pfn, order, .. }
        | EventKind::PrepNewPage { pfn, order, .. }
        | EventKind::SplitPage { pfn, order }
        | EventKind::PutPage { pfn, order, .. }
        | EventKind::Stolen { pfn, order, .. }
        | EventKind::ClaimRefused { pfn, order, .. }
        | EventKind::Chunk { pfn, order } => block(pfn, order),
        EventKind::Merge { pfn, order, .. } => block(pfn, order),
        EventKind::Claimed {
            pfn,
            order,
            pageblocks,
            ..
        } => Some((pfn, (1u32 << order).max(pageblocks * PAGEBLOCK_NR_PAGES))),
        EventKind::PcpAdd { pindex, pfn, .. } | EventKind::PcpDel { pindex, pfn, .. } => {
            block(pfn, pindex_to_order(pindex as usize))
        }
        EventKind::SetPageblock { pb, .. } => Some((pb * PAGEBLOCK_NR_PAGES, PAGEBLOCK_NR_PAGES)),
        EventKind::ContigAlloc { pfn, nr, .. } | EventKind::Run { pfn, nr } => Some((pfn, nr)),
        EventKind::Trace(Tracepoint::MmPageAlloc {
            pfn: Some(pfn),
            order,
            ..
        }) => block(pfn, order),
        EventKind::Trace(Tracepoint::MmPageFree { pfn, order })
        | EventKind::Trace(Tracepoint::MmPageAllocZoneLocked { pfn, order, .. })
        | EventKind::Trace(Tracepoint::MmPagePcpuDrain { pfn, order, .. }) => block(pfn, order),
        EventKind::Trace(Tracepoint::MmPageAllocExtfrag {
            pfn,
            fallback_order,
            ..
        }) => block(pfn, fallback_order),
        _ => None,
    }
}

/// Absolute pfn in the kernel's hex spelling.
pub fn pfn_hex(z: &Zone, idx: u32) -> String {
    format!("{:#x}", z.abs_pfn(idx))
}

/// The migratetypes the free-list table shows: the kernel's set for this zone (CMA only with
/// CMA configured; ISOLATE always).
pub fn shown_types(z: &Zone) -> Vec<MigrateType> {
    MigrateType::kernel_types(z.cfg.cma)
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
