//! The CLI's `json` and `summary` outputs.

use crate::mm::*;
use crate::mm::{metrics, Metrics};
use crate::mm::{Stats, Zone};
use crate::run::Run;
use serde::Serialize;

/// A free list, pfns absolute, head first.
#[derive(Serialize)]
struct FreeListOut {
    order: u8,
    migratetype: &'static str,
    pfns: Vec<u64>,
}

#[derive(Serialize)]
struct PcpOut {
    cpu: usize,
    count: i32,
    high: i32,
    batch: i32,
    high_min: i32,
    high_max: i32,
    alloc_factor: i32,
    free_count: i32,
    lists: Vec<PcpListOut>,
}

#[derive(Serialize)]
struct PcpListOut {
    pindex: usize,
    order: u8,
    migratetype: &'static str,
    pfns: Vec<u64>,
}

#[derive(Serialize)]
struct OpOut<'a> {
    path: &'a str,
    summary: &'a str,
    iteration: &'a [u32],
    outcome: String,
    cost: Stats,
    pageblocks_touched: u32,
    lock_holds: crate::mm::LockHolds,
}

#[derive(Serialize)]
struct StateOut<'a> {
    name: &'a str,
    kernel: &'static str,
    zone: &'a str,
    start_pfn: Pfn,
    pages: u32,
    cpus: u32,
    nr_free: [u64; NR_PAGE_ORDERS],
    nr_free_pages: i64,
    nr_free_pages_blocks: i64,
    nr_free_cma: i64,
    nr_free_highatomic: i64,
    nr_reserved_highatomic: i64,
    watermark_boost: i64,
    watermarks: [u64; 4],
    min_free_kbytes: u64,
    zone_below_high: bool,
    zone_boosted_watermark: bool,
    pageblocks: Vec<&'static str>,
    free_lists: Vec<FreeListOut>,
    pcp: Vec<PcpOut>,
    allocations: &'a [(String, String)],
    totals: Stats,
    /// Pages handled per zone / pcp lock hold over the run ([`crate::mm::locks`]).
    lock_holds: crate::mm::LockHolds,
    metrics: Metrics,
    ops: Vec<OpOut<'a>>,
    /// Op records a counters-only run did not keep (between the first and the last ones).
    #[serde(skip_serializing_if = "is_zero")]
    ops_omitted: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn zone_lists(z: &Zone) -> Vec<FreeListOut> {
    let mut v = Vec::new();
    for o in 0..=MAX_PAGE_ORDER {
        for mt in MigrateType::ALL {
            let pfns: Vec<u64> = z.free_list_abs_pfns(o, mt);
            if !pfns.is_empty() {
                v.push(FreeListOut {
                    order: o,
                    migratetype: mt.kernel_name(),
                    pfns,
                });
            }
        }
    }
    v
}

/// `--format json`: the full final state.
pub fn json(run: &Run) -> String {
    let z = run.final_node.active();
    let out = StateOut {
        name: &run.scenario.name,
        kernel: run.scenario.kernel.as_str(),
        zone: &z.cfg.name,
        start_pfn: z.cfg.start_pfn,
        pages: z.pages(),
        cpus: z.cfg.cpus,
        nr_free: z.nr_free,
        nr_free_pages: z.nr_free_pages,
        nr_free_pages_blocks: z.nr_free_pages_blocks,
        nr_free_cma: z.nr_free_cma,
        nr_free_highatomic: z.nr_free_highatomic,
        nr_reserved_highatomic: z.nr_reserved_highatomic,
        watermark_boost: z.watermark_boost,
        watermarks: z.watermark,
        min_free_kbytes: z.min_free_kbytes,
        zone_below_high: z.below_high,
        zone_boosted_watermark: z.boosted_watermark,
        pageblocks: (0..z.nr_pageblocks())
            .map(|pb| z.pb_mt(pb).kernel_name())
            .collect(),
        free_lists: zone_lists(z),
        pcp: z
            .pcp
            .iter()
            .enumerate()
            .map(|(cpu, p)| PcpOut {
                cpu,
                count: p.count,
                high: p.high,
                batch: p.batch,
                high_min: p.high_min,
                high_max: p.high_max,
                alloc_factor: p.alloc_factor,
                free_count: p.free_count,
                lists: (0..NR_PCP_LISTS)
                    .filter(|&i| p.lists[i].len > 0)
                    .map(|i| PcpListOut {
                        pindex: i,
                        order: crate::mm::pindex_to_order(i),
                        migratetype: crate::mm::pindex_to_mt(i).kernel_name(),
                        pfns: z.pcp_list_abs_pfns(cpu, i),
                    })
                    .collect(),
            })
            .collect(),
        allocations: &run.names,
        totals: run.stats,
        lock_holds: run.lock_holds,
        metrics: metrics(z, |o| run.owner_mt(o)),
        ops: run
            .ops
            .iter()
            .map(|o| {
                let d = &run.op_defs[o.def as usize];
                OpOut {
                    path: &d.path,
                    summary: &d.summary,
                    iteration: &o.iteration,
                    outcome: o.outcome.to_string(),
                    cost: o.cost,
                    pageblocks_touched: o.pageblocks_touched,
                    lock_holds: o.lock_holds,
                }
            })
            .collect(),
        ops_omitted: run.ops_omitted,
    };
    let mut s = serde_json::to_string_pretty(&out).expect("serializable");
    s.push('\n');
    s
}

/// The counters of `--format summary`'s per-op lines (by machine name) and their widths.
const OP_COLUMNS: [(&str, usize); 5] = [
    ("zone_lock", 6),
    ("pcp_ops", 7),
    ("freelist_ops", 7),
    ("pages_prepared", 6),
    ("fallback_probes", 4),
];

/// `--format summary`: totals, per-op costs (collapsed for long runs) and metrics.
pub fn summary(run: &Run) -> String {
    use std::fmt::Write;
    let z = run.final_node.active();
    let mut o = String::new();
    let _ = writeln!(o, "scenario: {}", run.scenario.name);
    // A node of several zones lists each zone, in pfn order.
    let zones: Vec<String> = run
        .final_node
        .zones()
        .iter()
        .map(|z| {
            format!(
                "zone {} {} pages from pfn {:#x}",
                z.cfg.name,
                z.pages(),
                z.cfg.start_pfn
            )
        })
        .collect();
    let _ = writeln!(
        o,
        "kernel {}  {}, {} cpu(s)",
        run.scenario.kernel.as_str(),
        zones.join(", "),
        z.cfg.cpus
    );
    let _ = writeln!(o, "\ntotals:");
    for (d, v) in run.stats.iter() {
        let _ = writeln!(o, "  {:<20} {v}", d.name);
    }
    let _ = writeln!(
        o,
        "\nlock holds (pages handled under one hold; holds by pages):"
    );
    for (name, h) in run.lock_holds.iter() {
        let _ = writeln!(
            o,
            "  {name:<20} holds {}  max {}  max_steps {}  pages {}  {}",
            h.holds,
            h.max,
            h.max_steps,
            h.pages,
            h.buckets_text()
        );
    }
    // A counters-only run keeps the first and last ops only; `total` counts them all.
    let total = run.ops.len() + run.ops_omitted as usize;
    let _ = writeln!(o, "\noperations: {total}");
    let show = |o: &mut String, i: usize| {
        let r = &run.ops[i];
        let d = &run.op_defs[r.def as usize];
        let _ = write!(o, "  {:<16} {:<44}", d.path, d.summary);
        for (name, width) in OP_COLUMNS {
            let def = Stats::def(name).expect("a counter of the table");
            let v = r.cost.get(name).expect("a counter of the table");
            let _ = write!(o, " {} {v:>width$}", def.label);
        }
        let _ = writeln!(o, " pb_touched {:>4}  {}", r.pageblocks_touched, r.outcome);
    };
    if total <= 60 {
        for i in 0..run.ops.len() {
            show(&mut o, i);
        }
    } else {
        for i in 0..20 {
            show(&mut o, i);
        }
        let _ = writeln!(o, "  … {} more …", total - 40);
        for i in run.ops.len() - 20..run.ops.len() {
            show(&mut o, i);
        }
    }
    let m = metrics(z, |o| run.owner_mt(o));
    let _ = writeln!(o, "\nmetrics:");
    let _ = writeln!(
        o,
        "  order                {}",
        (0..11).map(|i| format!("{i:>7}")).collect::<String>()
    );
    let _ = writeln!(
        o,
        "  nr_free              {}",
        z.nr_free
            .iter()
            .map(|v| format!("{v:>7}"))
            .collect::<String>()
    );
    let _ = writeln!(
        o,
        "  free pages           {}",
        m.free_pages
            .iter()
            .map(|v| format!("{v:>7}"))
            .collect::<String>()
    );
    let _ = writeln!(
        o,
        "  fragmentation index  {}",
        m.fragmentation_index
            .iter()
            .map(|v| format!("{:>7}", fmt_index(*v)))
            .collect::<String>()
    );
    let _ = writeln!(
        o,
        "  unusable index       {}",
        m.unusable_free_index
            .iter()
            .map(|v| format!("{:>7}", fmt_index(*v)))
            .collect::<String>()
    );
    let _ = writeln!(o, "  mixed pageblocks     {}", m.mixed_pageblocks);
    let _ = writeln!(o, "  pcp pages            {}", m.pcp_pages);
    let _ = writeln!(o, "  NR_FREE_PAGES        {}", z.nr_free_pages);
    let _ = writeln!(o, "  watermark_boost      {}", z.watermark_boost);
    o
}

/// `/sys/kernel/debug/extfrag` style: thousandths as `0.123`, -1000 as `-1.000`.
pub fn fmt_index(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}
