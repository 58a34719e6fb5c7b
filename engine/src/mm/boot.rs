//! Booting a zone or a node: watermarks (`__setup_per_zone_wmarks`, the THP bump of
//! `set_recommended_min_free_kbytes`), pcp parameters (`zone_batchsize`, `zone_highsize`) and
//! the boot-time freeing of `memblock_free_all` (kernel-model.md §3.7, §4.2, §7.1).

use super::events::Annotation;
use super::node::Node;
use super::page_alloc::{Engine, FPI_NONE, FPI_TO_TAIL};
use super::steps::Step;
use super::types::*;
use super::zone::*;

/// What a scenario says about the zone, after defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneParams {
    /// The zone's name (`Normal`, `DMA32`, …).
    pub name: String,
    /// The kernel profile.
    pub kernel: Kernel,
    /// Pages in the zone.
    pub pages: u32,
    /// Its first pfn.
    pub start_pfn: Pfn,
    /// CPUs, each with its pcp lists.
    pub cpus: u32,
    /// The kernel has `CONFIG_CMA`.
    pub cma: bool,
    /// `rmqueue_mode` remembers the fallback mode across a refill (7.1+).
    pub rmqueue_mode_memory: bool,
    /// `pcp->batch` if overridden.
    pub batch: Option<i32>,
    /// `pcp->high_min` if overridden.
    pub high_min: Option<i32>,
    /// `pcp->high_max` if overridden.
    pub high_max: Option<i32>,
    /// The final `min_free_kbytes` (THP bump included) if overridden.
    pub min_free_kbytes: Option<u64>,
    /// Per-CPU initial `high` (from an imported zoneinfo); 0 otherwise.
    pub initial_high: Vec<i32>,
    /// `zone.cma_pageblocks`: the CMA area `(start_pfn, nr_pages)`, whole pageblocks.
    pub cma_area: Option<(Pfn, u64)>,
}

impl ZoneParams {
    /// A 1-CPU `Normal` zone of `pages` pages with the default profile and nothing overridden.
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
            cma_area: None,
        }
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
    watermarks_in_node(managed, managed, min_free_kbytes)
}

/// `__setup_per_zone_wmarks` for a zone of `managed` pages in a node whose lowmem zones (every
/// zone here: no highmem, no Movable) manage `lowmem_pages`: `min` is the zone's share of
/// `min_free_kbytes >> 2` (v6.18.2, v7.1.5).
pub fn watermarks_in_node(managed: u64, lowmem_pages: u64, min_free_kbytes: u64) -> [u64; 4] {
    let min = (min_free_kbytes / 4) * managed / lowmem_pages.max(1);
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

/// [`compute_min_free_kbytes`] for a node of zones managing `managed` pages each:
/// `calculate_min_free_kbytes` over their sum, then `set_recommended_min_free_kbytes` with one
/// `nr_zones` per populated zone at or below Normal and 5 % of `nr_free_buffer_pages()`
/// (Σ managed − high) as the cap (mm/khugepaged.c).
pub fn compute_node_min_free_kbytes(managed: &[u64]) -> u64 {
    let total: u64 = managed.iter().sum();
    if managed.len() == 1 {
        return compute_min_free_kbytes(total);
    }
    let first = int_sqrt(4 * total * 16).clamp(128, 262144);
    let buffer: u64 = managed
        .iter()
        .map(|&m| m.saturating_sub(watermarks_in_node(m, total, first)[2]))
        .sum();
    let nz = managed.len() as u64;
    let rec = (512 * nz * 2 + 512 * nz * 3 * 3).min(buffer / 20);
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
        // The scenario, `/proc` or the snapshot names the zone; its type is fixed here.
        zone_type: ZoneType::for_zone_named(&p.name),
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
    set_pcp_params(&mut z, p);
    z
}

/// `zone_batchsize` / `zone_highsize` from the zone's size and low watermark.
fn set_pcp_params(z: &mut Zone, p: &ZoneParams) {
    let managed = p.pages as u64;
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
}

/// A booted node of several zones (`zones` in pfn order): one `min_free_kbytes` for the
/// machine split over the zones by managed pages (`__setup_per_zone_wmarks`), each zone's
/// `lowmem_reserve` (`setup_per_zone_lowmem_reserve`), mobility grouping from the node's total
/// (`build_all_zonelists`: `vm_total_pages`), each zone freed as at boot; the highest zone is the
/// one being worked on. One zone: exactly [`boot_engine`].
pub fn boot_node(zones: &[ZoneParams]) -> Engine {
    if zones.len() == 1 {
        return boot_engine(&zones[0]);
    }
    let mut e = Engine::new(Node::new(node_zones(zones)));
    let home = e.node.home_index();
    let rec = e.recording;
    e.recording = false;
    for (i, p) in zones.iter().enumerate() {
        e.select_zone(Step::BootChunk, i);
        boot_free_with_cma(&mut e, p.cma_area);
    }
    e.select_zone(Step::BootChunk, home);
    e.recording = rec;
    e.reset_stats();
    e
}

/// The empty zones of a node (no free pages yet): watermarks, `lowmem_reserve`, pcp parameters
/// and mobility grouping as [`boot_node`] describes.
pub(crate) fn node_zones(zones: &[ZoneParams]) -> Vec<Zone> {
    let managed: Vec<u64> = zones.iter().map(|p| p.pages as u64).collect();
    let total: u64 = managed.iter().sum();
    let mfk = zones
        .iter()
        .find_map(|p| p.min_free_kbytes)
        .unwrap_or_else(|| compute_node_min_free_kbytes(&managed));
    let cma = zones.iter().any(|p| p.cma);
    let reserves = crate::mm::page_alloc::zones::lowmem_reserves(
        &zones
            .iter()
            .map(|p| (ZoneType::for_zone_named(&p.name), p.pages as u64))
            .collect::<Vec<_>>(),
    );
    let built: Vec<Zone> = zones
        .iter()
        .zip(reserves)
        .map(|(p, r)| {
            let mut z = new_zone(p);
            z.cfg.mobility_disabled = mobility_disabled(total, cma);
            z.min_free_kbytes = mfk;
            z.watermark = watermarks_in_node(p.pages as u64, total, mfk);
            set_pcp_params(&mut z, p);
            z.lowmem_reserve = r;
            z
        })
        .collect();
    built
}

/// `memblock_free_all` → `__free_pages_memory` over the whole zone: naturally aligned chunks,
/// each `__free_pages_ok(FPI_TO_TAIL)` (§3.7). Not recorded: `init` emits no events.
///
/// Around a CMA area `(start_pfn, nr_pages)`, memblock keeps the area reserved,
/// so `memblock_free_all` frees the ranges below and above it (`for_each_free_mem_range`,
/// ascending); later `cma_init_reserved_areas` (a core_initcall) runs
/// `init_cma_reserved_pageblock` on each pageblock of the area in pfn order:
/// `set_pageblock_migratetype(MIGRATE_CMA)` (v6.18.2; `init_pageblock_migratetype` v7.1.5
/// mm/mm_init.c:2241) and `__free_pages(page, pageblock_order)`, which reaches `__free_one_page`
/// at the list head (no `FPI_TO_TAIL`; the pcp detour is not modelled: docs/model-decisions.md).
pub fn boot_free_with_cma(engine: &mut Engine, cma: Option<(Pfn, u64)>) {
    let rec = engine.recording;
    engine.recording = false;
    let start = engine.zone().cfg.start_pfn;
    let end = start + engine.zone().pages() as u64;
    let (cma_start, cma_end) = cma.map_or((end, end), |(s, n)| (s, s + n));
    for (lo, hi) in [(start, cma_start), (cma_end, end)] {
        for (pfn, o) in contig_chunks(lo, hi.saturating_sub(lo)) {
            let idx = engine.zone().zone_pfn(pfn);
            engine.emit(Step::BootChunk, Annotation::Chunk { pfn: idx, order: o });
            engine.free_one_page(idx, o, FPI_TO_TAIL);
        }
    }
    let mut pfn = cma_start;
    while pfn < cma_end {
        let idx = engine.zone().zone_pfn(pfn);
        engine.set_pageblock_migratetype(Step::BootChunk, idx >> PAGEBLOCK_ORDER, MigrateType::Cma);
        engine.emit(
            Step::BootChunk,
            Annotation::Chunk {
                pfn: idx,
                order: PAGEBLOCK_ORDER,
            },
        );
        engine.free_one_page(idx, PAGEBLOCK_ORDER, FPI_NONE);
        engine.node.active_mut().cma_pages += PAGEBLOCK_NR_PAGES as u64;
        pfn += PAGEBLOCK_NR_PAGES as u64;
    }
    engine.recording = rec;
}

/// A booted engine for these parameters.
pub fn boot_engine(p: &ZoneParams) -> Engine {
    let mut e = Engine::new(new_zone(p));
    boot_free_with_cma(&mut e, p.cma_area);
    e.reset_stats();
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::events::Event;
    use crate::mm::types::gfp::GFP_KERNEL;

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
            e.zone().free_list_pfns(10, MigrateType::Movable),
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
                e.zone().free_list_pfns(o, MigrateType::Movable),
                vec![pfn],
                "order {o}"
            );
        }
        assert_eq!(e.zone().nr_free_pages, 3000);
    }

    /// DMA32 (4096 pages at 1 GiB) under Normal (4096 pages at 4 GiB).
    fn two_zones() -> Vec<ZoneParams> {
        let mut dma32 = ZoneParams::new(4096);
        dma32.name = "DMA32".into();
        dma32.start_pfn = 0x4_0000;
        let mut normal = ZoneParams::new(4096);
        normal.start_pfn = 0x10_0000;
        vec![dma32, normal]
    }

    #[test]
    fn a_node_works_on_its_highest_zone_and_knows_each_zones_type() {
        let e = boot_node(&two_zones());
        let node = e.node();
        assert_eq!(node.nr_zones(), 2);
        assert!(node.several_zones());
        assert_eq!((node.active_index(), node.home_index()), (1, 1));
        let types: Vec<ZoneType> = node.zones().iter().map(Zone::zone_type).collect();
        assert_eq!(types, [ZoneType::Dma32, ZoneType::Normal]);
        assert_eq!(node.zone_index_of(0x4_0000 + 4095), Some(0));
        assert_eq!(node.zone_index_of(0x10_0000), Some(1));
        assert_eq!(node.zone_index_of(0x4_0000 + 4096), None);
        assert_eq!(node.zone_named("DMA32"), Some(0));
        let one = Node::from(node.zone(1).clone());
        assert!(!one.several_zones());
        assert_eq!((one.active_index(), one.home_index()), (0, 0));
    }

    /// A switch changes which zone is worked on and nothing else; an allocation the zonelist
    /// takes to DMA32 changes that zone only; undoing every event gives the node back, and
    /// applying them again the engine's node. (`assert!`, not `assert_eq!`: a zone's Debug text
    /// is long.)
    #[test]
    fn a_switch_moves_the_work_and_every_event_undoes() {
        use crate::mm::types::gfp::__GFP_DMA32;
        let mut e = boot_node(&two_zones());
        let start = e.node().clone();
        e.select_zone(Step::PageZone, 0);
        assert_eq!(e.node().active_index(), 0);
        assert!(e.node().zones() == start.zones());
        e.select_zone(Step::PageZone, 1);
        let p = e
            .alloc_pages(GFP_KERNEL | __GFP_DMA32, 0, 0, 7, false)
            .expect("a page");
        assert_eq!(e.node().active_index(), 0, "the page is DMA32's");
        assert_eq!(e.zone().page_owner(p), 7);
        assert!(e.node().zone(1) == start.zone(1), "Normal is untouched");
        assert!(e.node().zone(0) != start.zone(0));
        let events: Vec<Event> = e.log.events.iter().copied().collect();
        let mut back = e.node().clone();
        for ev in events.iter().rev() {
            back.unapply(ev);
        }
        assert_eq!(back.first_difference(&start), None);
        let mut again = start.clone();
        for ev in &events {
            again.apply(ev);
        }
        assert!(&again == e.node());
    }

    /// A zone serializes its pages as one array per field (`kind`, `order`, `next`, `prev`,
    /// `refcount`, `pflags`, `owner`, `list_mt`), whatever `struct Page` looks like, and reads
    /// back to the same zone.
    #[test]
    fn a_zone_serializes_one_array_per_page_field() {
        use crate::mm::types::gfp::GFP_HIGHUSER_MOVABLE;
        let mut e = boot_engine(&ZoneParams::new(4096));
        for id in 1..=40 {
            let gfp = if id % 3 == 0 {
                GFP_KERNEL
            } else {
                GFP_HIGHUSER_MOVABLE
            };
            let p = e
                .alloc_pages(gfp, (id % 4) as u8, 0, id, gfp == GFP_HIGHUSER_MOVABLE)
                .expect("a block");
            if id % 5 == 0 {
                e.free_pages(p, (id % 4) as u8, 0);
            }
        }
        let z = e.zone();
        let v = serde_json::to_value(z).unwrap();
        let column = |f: &str| -> Vec<serde_json::Value> {
            v[f].as_array()
                .unwrap_or_else(|| panic!("{f} is an array"))
                .clone()
        };
        let n = z.mem_map.len();
        type Field = fn(&Page) -> serde_json::Value;
        let per_page: [(&str, Field); 8] = [
            ("kind", |p| serde_json::to_value(p.kind).unwrap()),
            ("order", |p| p.order.into()),
            ("next", |p| p.next.into()),
            ("prev", |p| p.prev.into()),
            ("refcount", |p| p.refcount.into()),
            ("pflags", |p| u8::from(p.lru()).into()),
            ("owner", |p| p.owner.into()),
            ("list_mt", |p| p.list_mt().into()),
        ];
        for (f, of) in per_page {
            let col = column(f);
            assert_eq!(col.len(), n, "{f}");
            assert!(col.iter().zip(&z.mem_map).all(|(x, p)| *x == of(p)), "{f}");
        }
        assert!(
            z.mem_map.iter().any(|p| p.list_mt() != 0),
            "some block on a list other than UNMOVABLE's"
        );
        assert!(z.mem_map.iter().any(|p| p.lru()), "some movable page");
        let back: Zone = serde_json::from_value(v).unwrap();
        assert_eq!(back.first_difference(z), None);
    }
}
