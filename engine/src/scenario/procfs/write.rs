//! Output: the kernel's `/proc` text formats, byte for byte (kernel-model.md §8).

use crate::mm::*;

/// C's `%Ns`: right-aligned in `w` columns counted in bytes (printf pads bytes, not chars).
fn pad_left(s: &str, w: usize) -> String {
    let mut out = " ".repeat(w.saturating_sub(s.len()));
    out.push_str(s);
    out
}

/// `fls()`: 1-based index of the highest set bit, `fls(0) = 0`.
pub(super) fn fls(x: u64) -> u64 {
    u64::from(64 - x.leading_zeros())
}

/// `pagetypeinfo_showfree_print` stops walking a list at this many entries.
pub const PAGETYPEINFO_FREECOUNT_CAP: u64 = 100_000;

/// `/proc/buddyinfo` (§8.1): `"Node 0, zone %8s "`, then `"%6lu "` per order (`nr_free[o]`, all
/// migratetypes including Isolate; pcp pages are not buddy blocks), then a newline.
/// A node of several zones prints one line per zone in pfn order (`frag_show` walks the node's
/// populated zones).
pub fn buddyinfo(node: &Node) -> String {
    let mut s = String::new();
    for z in node.zones() {
        s.push_str(&format!("Node 0, zone {} ", pad_left(&z.cfg.name, 8)));
        for n in z.nr_free {
            s.push_str(&format!("{n:>6} "));
        }
        s.push('\n');
    }
    s
}

/// The compaction lines of `/proc/vmstat` (`vmstat_show`: `"%s %lu\n"`, in `vmstat_text` order,
/// mm/vmstat.c v7.2.13 :1372-1380, the same names in v6.12.117): the event counters are the
/// node's (every zone's compaction adds to them). Direct compaction's `compact_stall`,
/// `_fail` and `_success` are counted by `__alloc_pages_direct_compact`, kcompactd's
/// `compact_daemon_*` by `kcompactd_do_work` and `compact_node(pgdat, true)`, summed over the
/// zones. `s`: the run's counters.
pub fn vmstat_compaction(node: &Node, s: &Stats) -> String {
    let ev = |i: usize| {
        node.zones()
            .iter()
            .map(|z| z.compact_events[i] as u64)
            .sum::<u64>()
    };
    let daemon = |i: usize| {
        node.zones()
            .iter()
            .map(|z| z.daemon_events[i] as u64)
            .sum::<u64>()
    };
    [
        ("compact_migrate_scanned", s.compact_migrate_scanned),
        ("compact_free_scanned", s.compact_free_scanned),
        ("compact_isolated", s.compact_isolated),
        ("compact_stall", ev(0)),
        ("compact_fail", ev(1)),
        ("compact_success", ev(2)),
        ("compact_daemon_wake", daemon(0)),
        ("compact_daemon_migrate_scanned", daemon(1)),
        ("compact_daemon_free_scanned", daemon(2)),
    ]
    .iter()
    .map(|(name, v)| format!("{name} {v}\n"))
    .collect()
}

/// A zone `walk_zones_in_node(…, assert_populated = true, …)` prints: `populated_zone()`, i.e.
/// it manages pages.
fn populated(z: &Zone) -> bool {
    z.cfg.pages > 0
}

/// C's `printf("%Nd.%03d ", index / 1000, index % 1000)`: both parts truncate toward zero as C's
/// `/` and `%` do, so -1000 prints `-1.000` and a negative index above -1000 (one free block
/// of order `o - 1`, say: -500) prints `0.-500`, exactly what the kernel prints.
fn thousandths(index: i64, width: usize) -> String {
    format!("{:>width$}.{:03} ", index / 1000, index % 1000)
}

/// `/sys/kernel/debug/extfrag/unusable_index` (`unusable_show_print`, mm/vmstat.c): per populated
/// zone of the node `"Node %d, zone %8s "`, then `"%d.%03d "` of `unusable_free_index` per order.
pub fn unusable_index(node: &Node) -> String {
    let mut s = String::new();
    for z in node.zones().iter().filter(|z| populated(z)) {
        s.push_str(&format!("Node 0, zone {} ", pad_left(&z.cfg.name, 8)));
        for o in 0..NR_PAGE_ORDERS {
            s.push_str(&thousandths(
                crate::mm::unusable_free_index_of(&z.nr_free, o as u8),
                1,
            ));
        }
        s.push('\n');
    }
    s
}

/// `/sys/kernel/debug/extfrag/extfrag_index` (`extfrag_show_print`, mm/vmstat.c): per populated
/// zone `"Node %d, zone %8s "`, then `"%2d.%03d "` of `__fragmentation_index` per order (-1.000
/// where a block of that order is free: the request would not fail).
pub fn extfrag_index(node: &Node) -> String {
    let mut s = String::new();
    for z in node.zones().iter().filter(|z| populated(z)) {
        s.push_str(&format!("Node 0, zone {} ", pad_left(&z.cfg.name, 8)));
        for o in 0..NR_PAGE_ORDERS {
            s.push_str(&thousandths(
                crate::mm::fragmentation_index_of(&z.nr_free, o as u8),
                2,
            ));
        }
        s.push('\n');
    }
    s
}

/// One `"%s%6lu "` cell of the free-count table: a list of 100000 entries or more prints
/// `>100000` (the kernel's walk stops at `++freecount >= 100000`).
fn freecount_cell(len: u64) -> String {
    if len >= PAGETYPEINFO_FREECOUNT_CAP {
        format!(">{PAGETYPEINFO_FREECOUNT_CAP:>6} ")
    } else {
        format!("{len:>6} ")
    }
}

/// Pageblocks per migratetype as `get_pageblock_migratetype()` sees them (an isolated block
/// counts as Isolate), over every pageblock of the zone (a partial last one included).
pub fn pageblock_counts(z: &Zone) -> [u64; MT_SLOTS] {
    let mut c = [0u64; MT_SLOTS];
    for pb in 0..z.nr_pageblocks() {
        c[z.pb_mt(pb).idx()] += 1;
    }
    c
}

/// `/proc/pagetypeinfo` (§8.2) for the one zone as Node 0: rows for
/// [`MigrateType::kernel_types`] of the zone's config, no mixed-blocks section.
///
/// A node of several zones: the free-count rows of every zone, then one "Number of blocks type"
/// header and a row per zone (`pagetypeinfo_showfree`, `pagetypeinfo_showblockcount` each walk
/// the node's zones, mm/vmstat.c).
pub fn pagetypeinfo(node: &Node) -> String {
    let types = MigrateType::kernel_types(node.active().cfg.cma);
    let mut s = String::new();
    s.push_str(&format!("Page block order: {PAGEBLOCK_ORDER}\n"));
    s.push_str(&format!("Pages per block:  {PAGEBLOCK_NR_PAGES}\n"));
    s.push('\n');
    s.push_str(&format!(
        "{:<43} ",
        "Free pages count per migrate type at order"
    ));
    for o in 0..NR_PAGE_ORDERS {
        s.push_str(&format!("{o:>6} "));
    }
    s.push('\n');
    for z in node.zones() {
        let zone = pad_left(&z.cfg.name, 8);
        for &mt in &types {
            s.push_str(&format!(
                "Node {:>4}, zone {}, type {} ",
                0,
                zone,
                pad_left(mt.kernel_name(), 12)
            ));
            for o in 0..NR_PAGE_ORDERS {
                s.push_str(&freecount_cell(u64::from(z.free_lists[o][mt.idx()].len)));
            }
            s.push('\n');
        }
    }
    s.push_str(&format!("\n{:<23}", "Number of blocks type "));
    for &mt in &types {
        s.push_str(&format!("{} ", pad_left(mt.kernel_name(), 12)));
    }
    s.push('\n');
    for z in node.zones() {
        let counts = pageblock_counts(z);
        s.push_str(&format!("Node 0, zone {} ", pad_left(&z.cfg.name, 8)));
        for &mt in &types {
            s.push_str(&format!("{:>12} ", counts[mt.idx()]));
        }
        s.push('\n');
    }
    s
}

/// `calculate_normal_threshold()`: `min(125, 2 × fls(cpus) × (1 + fls(managed >> 15)))`
/// (`managed >> (27 − PAGE_SHIFT)`).
pub fn vm_stats_threshold(cpus: u32, managed: u64) -> u64 {
    (2 * fls(u64::from(cpus)) * (1 + fls(managed >> 15))).min(125)
}

/// The contract's `zoneinfo` lines (CLI section): the zone part of `/proc/zoneinfo` of a 6.18
/// x86_64 machine (no NUMA), as Node 0; `reserved_highatomic`/`free_highatomic` only for
/// kernels that print them ([`Kernel::zoneinfo_highatomic_lines`]); 6.12's zone items and
/// pcp lines ([`Kernel::zoneinfo_6_18_format`]).
///
/// A node of several zones prints each zone's part in pfn order; `protection` is the zone's
/// `lowmem_reserve[]` over the five zone types of x86_64 (DMA, DMA32, Normal, Movable, Device;
/// Device manages no pages, so its entry equals Movable's). `zoneinfo_show_print`, mm/vmstat.c.
pub fn zoneinfo(node: &Node) -> String {
    node.zones().iter().map(zoneinfo_zone).collect()
}

fn zoneinfo_zone(z: &Zone) -> String {
    let managed = u64::from(z.cfg.pages);
    let r = z.lowmem_reserve();
    let mut l: Vec<String> = vec![
        format!("Node 0, zone {}", pad_left(&z.cfg.name, 8)),
        format!("  pages free     {}", z.nr_free_pages),
        format!("        boost    {}", z.watermark_boost),
        format!("        min      {}", z.wmark_pages(WMARK_MIN)),
        format!("        low      {}", z.wmark_pages(WMARK_LOW)),
        format!("        high     {}", z.wmark_pages(WMARK_HIGH)),
        format!("        promo    {}", z.wmark_pages(WMARK_PROMO)),
        format!("        spanned  {managed}"),
        format!("        present  {managed}"),
        format!("        managed  {managed}"),
        format!("        cma      {}", z.cma_pages),
        format!(
            "        protection: ({}, {}, {}, {}, {})",
            r[0], r[1], r[2], r[3], r[3]
        ),
        format!("      nr_free_pages {}", z.nr_free_pages),
    ];
    // `vmstat_text`'s zone items: 6.18 added NR_FREE_PAGES_BLOCKS after NR_FREE_PAGES and had
    // dropped NR_BOUNCE, which 6.12 still prints after nr_mlock.
    let v6_18 = z.cfg.kernel.zoneinfo_6_18_format();
    if v6_18 {
        l.push(format!(
            "      nr_free_pages_blocks {}",
            z.nr_free_pages_blocks
        ));
    }
    l.extend(
        [
            "      nr_zone_inactive_anon 0",
            "      nr_zone_active_anon 0",
            "      nr_zone_inactive_file 0",
            "      nr_zone_active_file 0",
            "      nr_zone_unevictable 0",
            "      nr_zone_write_pending 0",
            "      nr_mlock     0",
        ]
        .map(String::from),
    );
    if !v6_18 {
        l.push("      nr_bounce    0".to_string());
    }
    l.push("      nr_zspages   0".to_string());
    l.push(format!("      nr_free_cma  {}", z.nr_free_cma));
    l.push("  pagesets".to_string());
    let threshold = vm_stats_threshold(z.cfg.cpus, managed);
    for (cpu, p) in z.pcp.iter().enumerate() {
        l.push(format!("    cpu: {cpu}"));
        if v6_18 {
            l.push(format!("              count:    {}", p.count));
            l.push(format!("              high:     {}", p.high));
            l.push(format!("              batch:    {}", p.batch));
            l.push(format!("              high_min: {}", p.high_min));
            l.push(format!("              high_max: {}", p.high_max));
        } else {
            l.push(format!("              count: {}", p.count));
            l.push(format!("              high:  {}", p.high));
            l.push(format!("              batch: {}", p.batch));
        }
        l.push(format!("  vm stats threshold: {threshold}"));
    }
    l.push("  node_unreclaimable:  0".to_string());
    l.push(format!("  start_pfn:           {}", z.cfg.start_pfn));
    if z.cfg.kernel.zoneinfo_highatomic_lines() {
        l.push(format!(
            "  reserved_highatomic: {}",
            z.nr_reserved_highatomic
        ));
        l.push(format!("  free_highatomic:     {}", z.nr_free_highatomic));
    }
    let mut s = l.join("\n");
    s.push('\n');
    s
}
