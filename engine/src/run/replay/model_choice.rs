//! The traced workload's requests through the model *choosing its own pages*: every
//! `mm_page_alloc` is re-issued as `alloc_pages(gfp, order)` on its CPU, every `mm_page_free`
//! of a block the model also handed out frees the model's block, and the first request
//! where the model picks another pfn (or fails where the kernel did not) is reported.
//! Steps the trace does not show as requests (bulk allocations, contiguous ranges) are not
//! re-issued; the counts say how many requests were compared.

use super::forced::ReplayError;
use super::parse::{TraceEvent, TraceReader};
use crate::mm::Step;
use crate::mm::*;
use crate::scenario::Scenario;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::BufRead;

/// A request where the model and the trace disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// 1-based trace line of the `mm_page_alloc`.
    pub line: u64,
    /// The order.
    pub order: u8,
    /// The request's migratetype (kernel number).
    pub migratetype: u8,
    /// Absolute pfns; `None` is a failed allocation.
    pub traced: Option<u64>,
    /// The model's pfn (absolute; `None`: it failed).
    pub model: Option<u64>,
}

/// The outcome of [`reissue`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// `mm_page_alloc` requests re-issued to the model.
    pub requests: u64,
    /// Frees applied to the model's own blocks.
    pub frees: u64,
    /// Requests whose pfn (or success) differs.
    pub differing: u64,
    /// The first request that differs.
    pub first_difference: Option<Difference>,
    /// The model's `nr_free[order]` after each request (the free-pages and fragmentation-index
    /// series of the model's run; the traced run's is `OpRecord::nr_free_after` of a replay).
    pub model_nr_free: Vec<[u64; NR_PAGE_ORDERS]>,
    /// The trace line of each entry of `model_nr_free`.
    pub model_lines: Vec<u64>,
}

/// Runs the trace's requests through the model from the start state of `s`.
pub fn reissue<R: BufRead>(s: &Scenario, trace: R) -> Result<Comparison, ReplayError> {
    let mut e = crate::run::setup::start_replay(s)
        .map_err(ReplayError::Scenario)?
        .engine;
    e.recording = false;
    let cpus = e.zone.pcp.len() as u32;
    let home = e.home_zone();
    // traced head pfn -> (model head, order, pages still held, split, the model's zone)
    let mut held: BTreeMap<u64, (u32, u8, u32, bool, usize)> = BTreeMap::new();
    let mut c = Comparison {
        requests: 0,
        frees: 0,
        differing: 0,
        first_difference: None,
        model_nr_free: Vec::new(),
        model_lines: Vec::new(),
    };
    for item in TraceReader::new(trace) {
        let tl = item.map_err(ReplayError::Parse)?;
        let cpu = tl.cpu.filter(|&c| c < cpus).unwrap_or(0) as usize;
        match tl.event {
            TraceEvent::Alloc {
                pfn,
                order,
                mt,
                gfp,
            } => {
                c.requests += 1;
                let lru = e.gfp_migratetype(gfp) == MigrateType::Movable;
                let got = e.alloc_pages(gfp, order, cpu, 0, lru);
                // On a node of several zones the model may take the page from another zone.
                let zone = e.zone.active_index();
                let model = got.map(|p| e.zone.abs_pfn(p));
                if model != pfn {
                    c.differing += 1;
                    c.first_difference.get_or_insert(Difference {
                        line: tl.line,
                        order,
                        migratetype: mt,
                        traced: pfn,
                        model,
                    });
                }
                if let (Some(t), Some(m)) = (pfn, got) {
                    held.insert(t, (m, order, 1 << order, false, zone));
                }
                // The series is the home zone's (the highest), as a run's op records.
                e.select_zone(Step::PageZone, home);
                c.model_nr_free.push(e.zone.nr_free);
                c.model_lines.push(tl.line);
            }
            TraceEvent::Free { pfn, order } => {
                let Some((&head, &(m, o, left, split, zone))) = held.range(..=pfn).next_back()
                else {
                    continue;
                };
                if pfn + (1 << order) > head + (1 << o) {
                    continue;
                }
                e.select_zone(Step::PageZone, zone);
                if order < o && !split {
                    e.split_page(m, o);
                }
                e.free_pages(m + (pfn - head) as u32, order, cpu);
                e.select_zone(Step::PageZone, home);
                c.frees += 1;
                let left = left - (1 << order);
                if left == 0 {
                    held.remove(&head);
                } else {
                    held.insert(head, (m, o, left, true, zone));
                }
            }
            _ => {}
        }
    }
    Ok(c)
}
