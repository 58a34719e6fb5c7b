//! What a replayed trace did, in numbers: the events, the allocations per
//! order and migratetype, the fallbacks (claim vs steal, from → to), the pageblocks whose type
//! changed, the fragmentation index over time, and — with [`super::model_choice`] — where the
//! model's own choices first differ and its fragmentation index beside the trace's. The app's
//! replay panels and `buddyscope replay --compare-model` only print this.

use super::forced::{by_kind_text, KindCount, Replay};
use super::model_choice::{Comparison, Difference};
use super::tally::Sampler;
use crate::mm::fragmentation_index_of;
use crate::mm::*;
use serde::{Deserialize, Serialize};

/// Allocations of one order and migratetype.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocCount {
    /// The order.
    pub order: u8,
    /// The kernel's name (`Unmovable`, `Movable`, …).
    pub migratetype: String,
    /// Allocations of it.
    pub count: u64,
}

/// Fallbacks from one list to one requested type, by kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FallbackCount {
    /// The free list the block came from (`fallback_migratetype`).
    pub from: String,
    /// The type that was requested (`alloc_migratetype`).
    pub to: String,
    /// `change_ownership=1`: the pageblock was claimed (re-typed), else its pages were stolen.
    pub claim: bool,
    /// Fallbacks of it.
    pub count: u64,
}

/// A pageblock whose type at the end differs from its type at the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageblockChange {
    /// First pfn of the pageblock (absolute).
    pub pfn: u64,
    /// Its type at the start.
    pub from: String,
    /// Its type at the end.
    pub to: String,
}

/// The fragmentation index (`__fragmentation_index`, thousandths, -1000 = a block of that
/// order is free) of every order after one trace event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FragPoint {
    /// 1-based trace line of the event.
    pub line: u64,
    /// Each order's index.
    pub index: [i64; NR_PAGE_ORDERS],
}

/// The model choosing its own pages for the trace's requests ([`super::model_choice`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSummary {
    /// Requests re-issued.
    pub requests: u64,
    /// Frees applied to the model's blocks.
    pub frees: u64,
    /// Requests whose pfn (or success) differs from the trace's.
    pub differing: u64,
    /// The first request that differs.
    pub first_difference: Option<ModelDifference>,
    /// The model's fragmentation index after its requests, at most [`MAX_SAMPLES`] points.
    pub fragmentation: Vec<FragPoint>,
}

/// [`Difference`] with the migratetype named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelDifference {
    /// The 1-based trace line.
    pub line: u64,
    /// The order.
    pub order: u8,
    /// The request's migratetype (kernel name).
    pub migratetype: String,
    /// Absolute pfns; `None`: the allocation failed.
    pub traced: Option<u64>,
    /// The model's pfn.
    pub model: Option<u64>,
}

/// Everything the replay summary shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySummary {
    /// Trace events applied.
    pub trace_events: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines skipped.
    pub skipped_lines: u64,
    /// Divergences counted.
    pub divergence_count: u64,
    /// Every divergence counted by kind (complete; the list of divergences may be capped).
    #[serde(default)]
    pub divergences_by_kind: Vec<KindCount>,
    /// Successful allocations by order and migratetype.
    pub allocations: Vec<AllocCount>,
    /// Allocations that failed.
    pub failed_allocations: u64,
    /// Frees.
    pub frees: u64,
    /// Fallbacks by lists and kind.
    pub fallbacks: Vec<FallbackCount>,
    /// Pageblocks of another type at the end than at the start.
    pub pageblocks_changed: Vec<PageblockChange>,
    /// The traced run's fragmentation index, at most [`MAX_SAMPLES`] points.
    pub fragmentation: Vec<FragPoint>,
    /// The model choosing its own pages, if it was asked.
    pub model: Option<ModelSummary>,
}

/// The kernel name of a traced migratetype number (4 is CMA only in a zone with CMA).
pub fn migratetype_name(n: u8, cma: bool) -> String {
    match n {
        4 if cma => MigrateType::Cma.kernel_name().to_string(),
        4 | 5 => MigrateType::Isolate.kernel_name().to_string(),
        n if (n as usize) < MT_SLOTS => MigrateType::from_idx(n as usize).kernel_name().to_string(),
        n => format!("migratetype {n}"),
    }
}

fn frag_point(line: u64, nr_free: &[u64; NR_PAGE_ORDERS]) -> FragPoint {
    FragPoint {
        line,
        index: std::array::from_fn(|o| fragmentation_index_of(nr_free, o as u8)),
    }
}

/// The summary of a replay, with the model's comparison when one was made.
pub fn summary(r: &Replay, comparison: Option<&Comparison>) -> ReplaySummary {
    let (initial, last) = (r.run.initial.active(), r.run.final_node.active());
    let cma = initial.cfg().cma;
    let t = &r.tally;
    let mut fragmentation = vec![frag_point(0, initial.nr_free())];
    fragmentation.extend(t.nr_free.samples().map(|s| frag_point(s.line, &s.nr_free)));
    ReplaySummary {
        trace_events: r.trace_events,
        lines: r.lines,
        skipped_lines: r.skipped_lines,
        divergence_count: r.divergence_count,
        divergences_by_kind: r.divergences_by_kind.clone(),
        allocations: t
            .allocations
            .iter()
            .map(|(&(order, mt), &count)| AllocCount {
                order,
                migratetype: migratetype_name(mt, cma),
                count,
            })
            .collect(),
        failed_allocations: t.failed_allocations,
        frees: t.frees,
        fallbacks: t
            .fallbacks
            .iter()
            .map(|(&(from, to, claim), &count)| FallbackCount {
                from: migratetype_name(from, cma),
                to: migratetype_name(to, cma),
                claim,
                count,
            })
            .collect(),
        pageblocks_changed: (0..initial.nr_pageblocks())
            .filter(|&pb| initial.pb_mt(pb) != last.pb_mt(pb))
            .map(|pb| PageblockChange {
                pfn: initial.abs_pfn(pb << PAGEBLOCK_ORDER),
                from: initial.pb_mt(pb).kernel_name().to_string(),
                to: last.pb_mt(pb).kernel_name().to_string(),
            })
            .collect(),
        fragmentation,
        model: comparison.map(|c| model_summary(c, initial.nr_free(), cma)),
    }
}

fn model_summary(c: &Comparison, start: &[u64; NR_PAGE_ORDERS], cma: bool) -> ModelSummary {
    let mut s = Sampler::default();
    for (line, nr_free) in c.model_lines.iter().zip(&c.model_nr_free) {
        s.push(*line, nr_free);
    }
    let mut fragmentation = vec![frag_point(0, start)];
    fragmentation.extend(s.samples().map(|p| frag_point(p.line, &p.nr_free)));
    ModelSummary {
        requests: c.requests,
        frees: c.frees,
        differing: c.differing,
        first_difference: c
            .first_difference
            .as_ref()
            .map(|d: &Difference| ModelDifference {
                line: d.line,
                order: d.order,
                migratetype: migratetype_name(d.migratetype, cma),
                traced: d.traced,
                model: d.model,
            }),
        fragmentation,
    }
}

/// Rows of the fragmentation table [`text`] prints (the JSON has every point).
const TEXT_ROWS: usize = 24;

/// `buddyscope replay --compare-model`: the summary as text, the two fragmentation series
/// side by side at up to [`TEXT_ROWS`] evenly spread trace lines where the traced run was
/// sampled.
pub fn text(s: &ReplaySummary) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "replay: {} trace events from {} lines ({} skipped), {} divergences",
        s.trace_events, s.lines, s.skipped_lines, s.divergence_count
    );
    if !s.divergences_by_kind.is_empty() {
        let _ = writeln!(
            o,
            "divergences by kind: {}",
            by_kind_text(&s.divergences_by_kind)
        );
    }
    let _ = writeln!(
        o,
        "allocations: {} ({} failed), frees: {}",
        s.allocations.iter().map(|a| a.count).sum::<u64>(),
        s.failed_allocations,
        s.frees
    );
    for a in &s.allocations {
        let _ = writeln!(
            o,
            "  order {:>2} {:<12} {}",
            a.order, a.migratetype, a.count
        );
    }
    let _ = writeln!(
        o,
        "fallbacks: {}",
        s.fallbacks.iter().map(|f| f.count).sum::<u64>()
    );
    for f in &s.fallbacks {
        let kind = if f.claim { "claim" } else { "steal" };
        let _ = writeln!(o, "  {} -> {} {kind}: {}", f.from, f.to, f.count);
    }
    let _ = writeln!(
        o,
        "pageblocks that changed type: {}",
        s.pageblocks_changed.len()
    );
    for p in &s.pageblocks_changed {
        let _ = writeln!(o, "  pfn {:#x}: {} -> {}", p.pfn, p.from, p.to);
    }
    let Some(m) = &s.model else {
        return o;
    };
    let _ = writeln!(
        o,
        "\nmodel choosing its own pages: {} requests, {} frees, {} differing",
        m.requests, m.frees, m.differing
    );
    match &m.first_difference {
        None => {
            let _ = writeln!(
                o,
                "first difference: none (the model makes the trace's choices)"
            );
        }
        Some(d) => {
            let pfn = |p: Option<u64>| p.map_or("failed".to_string(), |p| format!("pfn {p:#x}"));
            let _ = writeln!(
                o,
                "first difference: line {}: order-{} {}: trace {}, model {}",
                d.line,
                d.order,
                d.migratetype,
                pfn(d.traced),
                pfn(d.model)
            );
        }
    }
    let _ = writeln!(
        o,
        "\nfragmentation index per order (thousandths; -1000: a free block of that order exists)"
    );
    let header: String = (0..NR_PAGE_ORDERS).map(|o| format!(" {o:>6}")).collect();
    let _ = writeln!(o, "{:>10} {:<6}{header}", "line", "run");
    // The model's point at or before each traced sample's line.
    let mut mi = 0;
    let n = s.fragmentation.len();
    let rows = (0..TEXT_ROWS.min(n)).map(|i| i * (n - 1) / (TEXT_ROWS.min(n) - 1).max(1));
    let mut last = None;
    for p in rows
        .filter(|&i| last.replace(i) != Some(i))
        .map(|i| &s.fragmentation[i])
    {
        while mi + 1 < m.fragmentation.len() && m.fragmentation[mi + 1].line <= p.line {
            mi += 1;
        }
        let row = |idx: &[i64; NR_PAGE_ORDERS]| -> String {
            idx.iter().map(|v| format!(" {v:>6}")).collect()
        };
        let _ = writeln!(o, "{:>10} {:<6}{}", p.line, "trace", row(&p.index));
        let _ = writeln!(
            o,
            "{:>10} {:<6}{}",
            "",
            "model",
            row(&m.fragmentation[mi].index)
        );
    }
    o
}
