//! What the replayer counts while it applies the trace: allocations, frees and fallbacks, and
//! the free counts over time ([`super::summary::summary`] turns them into a replay's figures).

use super::parse::TraceEvent;
use crate::mm::*;
use std::collections::BTreeMap;

/// Points a fragmentation series keeps (and the last one): enough for a chart, bounded for a
/// million events.
pub const MAX_SAMPLES: usize = 512;

/// `nr_free[]` after one trace event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeSample {
    /// 1-based trace line of the event.
    pub line: u64,
    /// `nr_free[]` after it.
    pub nr_free: [u64; NR_PAGE_ORDERS],
}

/// A series of [`FreeSample`]s thinned to at most [`MAX_SAMPLES`]: when full, every other
/// sample goes and the stride doubles, so the samples stay evenly spread and memory bounded.
/// The last sample pushed is always kept (the series ends on the final state).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sampler {
    samples: Vec<FreeSample>,
    last: Option<FreeSample>,
    stride: u64,
    seen: u64,
}

impl Sampler {
    /// The kept samples, the last one pushed included.
    pub fn samples(&self) -> impl Iterator<Item = &FreeSample> {
        let tail = self
            .last
            .as_ref()
            .filter(|l| self.samples.last().is_none_or(|s| s.line != l.line));
        self.samples.iter().chain(tail)
    }

    /// Adds the counts after trace line `line`.
    pub fn push(&mut self, line: u64, nr_free: &[u64; NR_PAGE_ORDERS]) {
        self.last = Some(FreeSample {
            line,
            nr_free: *nr_free,
        });
        let stride = self.stride.max(1);
        if self.seen.is_multiple_of(stride) {
            self.samples.push(FreeSample {
                line,
                nr_free: *nr_free,
            });
            if self.samples.len() >= MAX_SAMPLES {
                let mut i = 0;
                self.samples.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride = stride * 2;
            }
        }
        self.seen += 1;
    }
}

/// What the replayer counts while it applies the trace (kept on [`Replay`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// `mm_page_alloc` that succeeded, by (order, kernel migratetype number).
    pub allocations: BTreeMap<(u8, u8), u64>,
    /// `mm_page_alloc` with a NULL page.
    pub failed_allocations: u64,
    /// `mm_page_free` events.
    pub frees: u64,
    /// `mm_page_alloc_extfrag` by (fallback type, requested type, change_ownership).
    pub fallbacks: BTreeMap<(u8, u8, bool), u64>,
    /// `nr_free[]` after the events, thinned.
    pub nr_free: Sampler,
    /// Untraced `alloc_pages_bulk` takes the replay inferred.
    pub untraced_bulk_takes: u64,
    /// The pages those takes took.
    pub untraced_bulk_pages: u64,
    /// Freed blocks the replay found in the buddy, not on the pcp lists the frees had put
    /// them on (`free_one_page` after a failed `pcp_spin_trylock`).
    pub freed_straight_to_buddy: u64,
}

impl Tally {
    /// Counts one trace event.
    pub fn count(&mut self, ev: &TraceEvent) {
        match *ev {
            TraceEvent::Alloc {
                pfn: Some(_),
                order,
                mt,
                ..
            } => *self.allocations.entry((order, mt)).or_default() += 1,
            TraceEvent::Alloc { pfn: None, .. } => self.failed_allocations += 1,
            TraceEvent::Free { .. } => self.frees += 1,
            TraceEvent::Extfrag {
                alloc_mt,
                fallback_mt,
                change_ownership,
                ..
            } => {
                *self
                    .fallbacks
                    .entry((fallback_mt, alloc_mt, change_ownership))
                    .or_default() += 1
            }
            _ => {}
        }
    }
}
