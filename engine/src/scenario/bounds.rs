//! The format's bounds: the limits of its numbers and names, and the checks of one value
//! against them (used while reading, by the static checks and by the snapshot readers).

use super::error::{Res, ScenarioError};
use crate::mm::{MigrateType, MAX_CPUS, MAX_PAGE_ORDER, MAX_ZONE_PAGES, MIN_ZONE_PAGES};

/// The only `version` this build reads.
pub const SCENARIO_VERSION: u32 = 1;
/// `zone.pages` when absent (1 GiB: gives the kernel's batch of 63).
pub const DEFAULT_ZONE_PAGES: u64 = 262_144;
/// `zone.start_pfn` must be a multiple of this (an order-10 block), so buddy alignment relative to
/// pfn 0 never straddles the zone start.
pub const ZONE_START_ALIGN: u64 = 1 << MAX_PAGE_ORDER;
/// `repeat` nests at most this deep.
pub const MAX_REPEAT_DEPTH: usize = 16;
/// One past the largest pfn x86_64 can address (`MAX_PHYSMEM_BITS` 52 − `PAGE_SHIFT` 12). Not in
/// the contract's words, but a zone beyond it is not a machine, and the bound keeps every
/// `pfn + n` and the trace's `vmemmap + 64 × pfn` free of overflow.
pub const MAX_PFN: u64 = 1 << 40;
/// Upper bound for `zone.pcp` values. The kernel's are `int`s and it computes at most
/// `managed / 8`; capping at the largest zone keeps `batch << 5` and `4 × batch` inside `i32`.
pub const MAX_PCP_VALUE: i32 = MAX_ZONE_PAGES as i32;
/// `min_free_kbytes` is an `int` sysctl.
pub const MAX_MIN_FREE_KBYTES: u64 = i32::MAX as u64;
/// At most this many stops: a tour is a few stops, not a second trace.
pub const MAX_TOUR_STOPS: usize = 64;
/// A caption is read aloud from a slide: one or two sentences.
pub const MAX_CAPTION_CHARS: usize = 400;

/// `init.zone` `"all"`: every zone of node 0 of the pasted `/proc` text becomes a zone of the
/// node, in the kernel's order, at x86_64's pfns (DMA at 0, DMA32 at 0x1000 = 16 MiB, Normal at
/// 0x100000 = 4 GiB); each zone is sized and laid out as a one-zone import of that zone, except
/// that, as in `zones`, a zone may be as large as the node ([`MAX_NODE_PAGES`], 64 GiB, in
/// all), not only [`MAX_ZONE_PAGES`]: a 64 GiB machine's Normal zone is about 60 GiB.
pub const IMPORT_ALL_ZONES: &str = "all";

pub(super) fn check_version(v: u64) -> Res<u32> {
    if v == u64::from(SCENARIO_VERSION) {
        Ok(SCENARIO_VERSION)
    } else {
        Err(ScenarioError::new(
            "version",
            format!("unsupported scenario version {v}"),
            format!("this build reads version {SCENARIO_VERSION}"),
        ))
    }
}

pub(super) fn check_order(path: &str, order: u64) -> Res<u8> {
    if order > u64::from(MAX_PAGE_ORDER) {
        return Err(ScenarioError::new(
            path,
            format!("order {order} is above MAX_PAGE_ORDER ({MAX_PAGE_ORDER})"),
            format!("use 0..={MAX_PAGE_ORDER}"),
        ));
    }
    Ok(order as u8)
}

pub(super) fn check_cpus(path: &str, cpus: u64) -> Res<u32> {
    if !(1..=u64::from(MAX_CPUS)).contains(&cpus) {
        return Err(ScenarioError::new(
            path,
            format!("{cpus} CPUs is out of range"),
            format!("use 1..={MAX_CPUS}"),
        ));
    }
    Ok(cpus as u32)
}

pub(super) fn check_pcp(path: &str, name: &str, min: i64, v: i64) -> Res<i32> {
    if !(min..=i64::from(MAX_PCP_VALUE)).contains(&v) {
        return Err(ScenarioError::new(
            path,
            format!("{name} {v} is out of range"),
            format!("use {min}..={MAX_PCP_VALUE}"),
        ));
    }
    Ok(v as i32)
}

pub(super) fn check_min_free_kbytes(path: &str, v: u64) -> Res<()> {
    if v > MAX_MIN_FREE_KBYTES {
        return Err(ScenarioError::new(
            path,
            format!("min_free_kbytes {v} is above the sysctl's int range"),
            format!("use 0..={MAX_MIN_FREE_KBYTES}"),
        ));
    }
    Ok(())
}

/// `vm.compaction_proactiveness`: `proc_dointvec_minmax` with 0..=100 (mm/compaction.c).
pub(super) fn check_compaction_proactiveness(path: &str, v: u64) -> Res<u32> {
    if v > 100 {
        return Err(ScenarioError::new(
            path,
            format!("compaction_proactiveness {v} is above 100"),
            "use 0..=100 (0 turns proactive compaction off; default 20)",
        ));
    }
    Ok(v as u32)
}

pub(super) fn check_zone_pages(path: &str, pages: u64) -> Res<()> {
    check_zone_pages_up_to(path, pages, MAX_ZONE_PAGES)
}

/// [`check_zone_pages`] with the largest size `max`: [`MAX_ZONE_PAGES`] for the one zone of a
/// scenario, [`crate::mm::MAX_NODE_PAGES`] for a zone of a node (a zone of `init.zone` `"all"`, as of
/// `zones`).
pub(super) fn check_zone_pages_up_to(path: &str, pages: u64, max: u64) -> Res<()> {
    if !(MIN_ZONE_PAGES..=max).contains(&pages) {
        let why = if pages < MIN_ZONE_PAGES {
            "below the minimum of 1024 (4 MiB)".to_string()
        } else {
            format!("above the maximum of {max} ({} GiB)", max >> 18)
        };
        return Err(ScenarioError::new(
            path,
            format!("a zone of {pages} pages is {why}"),
            format!("use {MIN_ZONE_PAGES}..={max} pages"),
        ));
    }
    Ok(())
}

pub(super) fn check_alloc_mt(path: &str, mt: MigrateType) -> Res<()> {
    if mt.is_mergeable() {
        return Ok(());
    }
    let hint = if mt == MigrateType::HighAtomic {
        "use \"unmovable\", \"movable\" or \"reclaimable\"; for the highatomic reserve add \"highatomic\": true"
    } else {
        "use \"unmovable\", \"movable\" or \"reclaimable\""
    };
    Err(ScenarioError::new(
        path,
        format!("mt \"{}\" cannot be requested", mt.slug()),
        hint,
    ))
}
