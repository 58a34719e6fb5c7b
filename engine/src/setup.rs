//! Building a zone: watermarks (`__setup_per_zone_wmarks`, the THP bump of
//! `set_recommended_min_free_kbytes`), pcp parameters (`zone_batchsize`, `zone_highsize`) and
//! the boot-time freeing of `memblock_free_all` (kernel-model.md §3.7, §4.2, §7.1); and
//! [`build`], the second stage of a run: a validated scenario's start zone.

use crate::events::Annotation;
use crate::page_alloc::{Engine, FPI_TO_TAIL};
use crate::procfs;
use crate::pseudocode::Step;
use crate::scenario::{validate_with_zone_pages, Init, Scenario, ScenarioError, ValidScenario};
use crate::types::*;
use crate::zone::*;

/// What a scenario says about the zone, after defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneParams {
    pub name: String,
    pub kernel: Kernel,
    pub pages: u32,
    pub start_pfn: Pfn,
    pub cpus: u32,
    pub cma: bool,
    pub rmqueue_mode_memory: bool,
    pub batch: Option<i32>,
    pub high_min: Option<i32>,
    pub high_max: Option<i32>,
    /// The final `min_free_kbytes` (THP bump included) if overridden.
    pub min_free_kbytes: Option<u64>,
    /// Per-CPU initial `high` (from an imported zoneinfo); 0 otherwise.
    pub initial_high: Vec<i32>,
}

impl ZoneParams {
    pub fn new(pages: u32) -> ZoneParams {
        ZoneParams {
            name: "Normal".into(),
            kernel: Kernel::default(),
            pages,
            start_pfn: 0,
            cpus: 1,
            cma: false,
            rmqueue_mode_memory: true,
            batch: None,
            high_min: None,
            high_max: None,
            min_free_kbytes: None,
            initial_high: Vec::new(),
        }
    }

    /// A scenario's zone parameters after defaults, for a zone of `pages` pages.
    pub fn from_scenario(s: &Scenario, pages: u64) -> ZoneParams {
        let mut p = ZoneParams::new(pages as u32);
        p.name = s.zone.name.clone();
        p.kernel = s.kernel;
        p.start_pfn = s.zone.start_pfn;
        p.cpus = s.zone.cpus;
        p.cma = s.zone.cma;
        p.rmqueue_mode_memory = s.zone.rmqueue_mode_memory;
        p.batch = s.zone.pcp.batch;
        p.high_min = s.zone.pcp.high_min;
        p.high_max = s.zone.pcp.high_max;
        p.min_free_kbytes = s.zone.min_free_kbytes;
        p
    }
}

/// `int_sqrt`.
pub fn int_sqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// `mult_frac(x, n, d)`.
fn mult_frac(x: u64, n: u64, d: u64) -> u64 {
    (x / d) * n + (x % d) * n / d
}

/// `__setup_per_zone_wmarks` for a single zone: `[min, low, high, promo]`.
pub fn watermarks_for(managed: u64, min_free_kbytes: u64) -> [u64; 4] {
    let min = min_free_kbytes / 4; // pages_min × managed / lowmem_pages, one zone
    let delta = (min / 4).max(mult_frac(managed, 10, 10000));
    let low = min + delta;
    let high = low + delta;
    [min, low, high, high + delta]
}

/// `calculate_min_free_kbytes` then the khugepaged bump (§7.1): returns the final
/// `min_free_kbytes`.
pub fn compute_min_free_kbytes(managed: u64) -> u64 {
    // Watermarks are still 0 when this runs: lowmem_kB = 4 × managed.
    let lowmem_kb = 4 * managed;
    let first = int_sqrt(lowmem_kb * 16).clamp(128, 262144);
    let high2 = watermarks_for(managed, first)[2];
    // THP: 512 × nz × 2 + 512 × nz × 3 × 3 pages, capped at 5 % of nr_free_buffer_pages().
    let nz = 1;
    let rec = (512 * nz * 2 + 512 * nz * 3 * 3).min(managed.saturating_sub(high2) / 20);
    if rec * 4 > first {
        rec * 4
    } else {
        first
    }
}

/// `zone_batchsize` (§4.2).
pub fn zone_batchsize(managed: u64) -> i32 {
    let b = (managed >> 12).min(64);
    if b <= 1 {
        return 1;
    }
    let x = b + b / 2;
    let pow = 1u64 << (63 - x.leading_zeros());
    (pow - 1) as i32
}

/// `page_group_by_mobility_disabled` at boot: fewer than `pageblock_nr_pages × MIGRATE_TYPES`
/// present pages (§1.8).
pub fn mobility_disabled(pages: u64, cma: bool) -> bool {
    let types = if cma { 6 } else { 5 };
    pages < PAGEBLOCK_NR_PAGES as u64 * types
}

/// An empty zone with its configuration, watermarks and pcp parameters set (no free pages).
pub fn new_zone(p: &ZoneParams) -> Zone {
    let cfg = ZoneConfig {
        name: p.name.clone(),
        kernel: p.kernel,
        start_pfn: p.start_pfn,
        pages: p.pages,
        cpus: p.cpus,
        cma: p.cma,
        rmqueue_mode_memory: p.rmqueue_mode_memory,
        mobility_disabled: mobility_disabled(p.pages as u64, p.cma),
        thp: true,
        // alloc_flags_nofragment() (6.18.2 … 7.1.5): ALLOC_NOFRAGMENT only when the preferred zone
        // is ZONE_NORMAL (`zone_idx(zone) != ZONE_NORMAL` returns early); the zone's name picks it.
        nofragment_first_pass: p.name == "Normal",
    };
    let mut z = Zone::new_empty(cfg);
    let managed = p.pages as u64;
    z.min_free_kbytes = p
        .min_free_kbytes
        .unwrap_or_else(|| compute_min_free_kbytes(managed));
    z.watermark = watermarks_for(managed, z.min_free_kbytes);
    let batch = p.batch.unwrap_or_else(|| zone_batchsize(managed));
    let cpus = p.cpus as u64;
    let floor = 4 * batch as i64;
    let high_min = p
        .high_min
        .unwrap_or_else(|| ((z.watermark[WMARK_LOW] / cpus) as i64).max(floor) as i32);
    let high_max = p
        .high_max
        .unwrap_or_else(|| (((managed / 8) / cpus) as i64).max(floor) as i32);
    for (i, pcp) in z.pcp.iter_mut().enumerate() {
        pcp.batch = batch;
        pcp.high_min = high_min;
        pcp.high_max = high_max;
        pcp.high = p.initial_high.get(i).copied().unwrap_or(0);
    }
    z
}

/// `memblock_free_all` → `__free_pages_memory` over the whole zone: naturally aligned chunks,
/// each `__free_pages_ok(FPI_TO_TAIL)` (§3.7). Not recorded: `init` emits no events.
pub fn boot_free(engine: &mut Engine) {
    let rec = engine.recording;
    engine.recording = false;
    let start = engine.zone.cfg.start_pfn;
    let n = engine.zone.pages() as u64;
    for (pfn, o) in contig_chunks(start, n) {
        let idx = engine.zone.zone_pfn(pfn);
        engine.emit(Step::BootChunk, Annotation::Chunk { pfn: idx, order: o });
        engine.free_one_page(idx, o, FPI_TO_TAIL);
    }
    engine.recording = rec;
}

/// A booted engine for these parameters.
pub fn boot_engine(p: &ZoneParams) -> Engine {
    let mut e = Engine::new(new_zone(p));
    boot_free(&mut e);
    e.zone.reset_stats();
    e
}

/// A validated scenario and the zone its `init` builds: what [`crate::runner::execute`] runs
/// the ops on.
pub struct Start {
    pub scenario: ValidScenario,
    pub engine: Engine,
}

/// The second stage of a run: the start zone of a validated scenario, booted or laid out from
/// its `/proc` text. With `/proc` and no `zone.pages`, the zone size is known only now, so the
/// pfn-range checks [`crate::scenario::parse_valid`] deferred are made here.
pub fn build(scenario: ValidScenario) -> Result<Start, ScenarioError> {
    let engine = match &scenario.init {
        Init::Boot => {
            let pages = scenario
                .zone
                .pages
                .unwrap_or(crate::scenario::DEFAULT_ZONE_PAGES);
            boot_engine(&ZoneParams::from_scenario(&scenario, pages))
        }
        Init::Proc {
            pagetypeinfo,
            zoneinfo,
            zone,
        } => {
            let imp = procfs::parse_import(
                pagetypeinfo,
                zoneinfo.as_deref(),
                zone,
                scenario.zone.cma,
                scenario.zone.pages,
            )?;
            if scenario.static_zone_pages().is_none() {
                validate_with_zone_pages(&scenario, imp.pages)?;
            }
            let mut p = ZoneParams::from_scenario(&scenario, imp.pages);
            // Precedence: zone.pcp > init.zoneinfo > computed.
            p.batch = p.batch.or(imp.batch);
            p.high_min = p.high_min.or(imp.high_min);
            p.high_max = p.high_max.or(imp.high_max);
            p.initial_high = imp.initial_high.clone();
            let mut e = Engine::new(new_zone(&p));
            e.recording = false;
            procfs::apply_import(&mut e, &imp)?;
            e.recording = true;
            e.zone.reset_stats();
            e
        }
        Init::Snapshot(snap) => {
            // `parse_valid` checked the scenario against the snapshot's size (its
            // `static_zone_pages`) and `zone` against the snapshot (`snapshot::check_zone`).
            let mut p = ZoneParams::from_scenario(&scenario, snap.pages);
            p.start_pfn = snap.start_pfn;
            p.name = snap.zone.clone();
            let mut e = Engine::new(new_zone(&p));
            crate::snapshot::apply(&mut e, snap);
            e
        }
    };
    Ok(Start { scenario, engine })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gib_zone_matches_spec_7_1() {
        let mf = compute_min_free_kbytes(262144);
        assert_eq!(mf, 22528);
        assert_eq!(watermarks_for(262144, mf), [5632, 7040, 8448, 9856]);
        assert_eq!(zone_batchsize(262144), 63);
        let z = new_zone(&ZoneParams::new(262144));
        assert_eq!(z.pcp[0].high_min, 7040);
        assert_eq!(z.pcp[0].high_max, 32768);
        assert_eq!(z.pcp[0].high, 0);
    }

    #[test]
    fn small_zones_hit_the_five_percent_cap() {
        let mf = compute_min_free_kbytes(4096);
        assert_eq!(mf, 780);
        assert_eq!(&watermarks_for(4096, mf)[..3], &[195, 243, 291]);
        assert_eq!(compute_min_free_kbytes(16384), 3200);
        assert_eq!(compute_min_free_kbytes(65536), 12952);
    }

    #[test]
    fn batch_sizes() {
        assert_eq!(zone_batchsize(3840), 1);
        assert_eq!(zone_batchsize(4096), 1);
        assert_eq!(zone_batchsize(16384), 3);
        assert_eq!(zone_batchsize(1 << 22), 63);
    }

    #[test]
    fn two_cpus_split_high() {
        let mut p = ZoneParams::new(262144);
        p.cpus = 2;
        let z = new_zone(&p);
        assert_eq!(z.pcp[1].high_min, 3520);
        assert_eq!(z.pcp[1].high_max, 16384);
    }

    #[test]
    fn boot_of_3000_pages_example_3_7() {
        let e = boot_engine(&ZoneParams::new(3000));
        assert_eq!(
            e.zone.free_list_pfns(10, MigrateType::Movable),
            vec![0, 1024]
        );
        let expect = [
            (2048, 9),
            (2560, 8),
            (2816, 7),
            (2944, 5),
            (2976, 4),
            (2992, 3),
        ];
        for (pfn, o) in expect {
            assert_eq!(
                e.zone.free_list_pfns(o, MigrateType::Movable),
                vec![pfn],
                "order {o}"
            );
        }
        assert_eq!(e.zone.nr_free_pages, 3000);
    }
}
