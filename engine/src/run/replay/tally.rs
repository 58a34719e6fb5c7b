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

/// A series thinned to at most `max` items as it grows, however long: when full, every other
/// item goes and the stride doubles, so the kept items stay evenly spread (item `k · stride`
/// of the pushes) and memory stays bounded. The last item pushed is always kept, so the series
/// ends on the final state. After `n` pushes the kept items are those of [`thinned_indices`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thinned<T> {
    items: Vec<T>,
    last: Option<T>,
    /// `last` is also the last of `items`.
    last_kept: bool,
    stride: u64,
    seen: u64,
    max: usize,
}

impl<T: Clone> Thinned<T> {
    /// An empty series keeping at most `max` items (and the last); `max` is at least 2.
    pub fn new(max: usize) -> Self {
        Thinned {
            items: Vec::new(),
            last: None,
            last_kept: false,
            stride: 1,
            seen: 0,
            max: max.max(2),
        }
    }

    /// The kept items, the last one pushed included.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        let tail = self.last.as_ref().filter(|_| !self.last_kept);
        self.items.iter().chain(tail)
    }

    /// Items pushed so far.
    pub fn pushed(&self) -> u64 {
        self.seen
    }

    /// Adds an item.
    pub fn push(&mut self, item: T) {
        let keep = self.seen.is_multiple_of(self.stride);
        if keep {
            self.items.push(item.clone());
        }
        self.last = Some(item);
        self.last_kept = keep;
        if keep && self.items.len() >= self.max {
            let mut i = 0;
            self.items.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride *= 2;
            // The newest item was at an odd place unless the count was odd.
            self.last_kept = self.max % 2 == 1;
        }
        self.seen += 1;
    }
}

/// Which of `n` pushes a [`Thinned`] of `max` keeps: every multiple of the smallest power-of-two
/// stride that leaves fewer than `max` of them, and the last push.
pub fn thinned_indices(n: u64, max: usize) -> Vec<u64> {
    let max = max.max(2) as u64;
    let mut stride = 1u64;
    while n.div_ceil(stride) >= max {
        stride *= 2;
    }
    let mut v: Vec<u64> = (0..n).step_by(stride as usize).collect();
    if n > 0 && v.last() != Some(&(n - 1)) {
        v.push(n - 1);
    }
    v
}

/// A series of [`FreeSample`]s thinned to at most [`MAX_SAMPLES`] ([`Thinned`]'s rule); the
/// last sample pushed is always kept (the series ends on the final state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sampler(Thinned<FreeSample>);

impl Default for Sampler {
    fn default() -> Self {
        Sampler(Thinned::new(MAX_SAMPLES))
    }
}

impl Sampler {
    /// The kept samples, the last one pushed included.
    pub fn samples(&self) -> impl Iterator<Item = &FreeSample> {
        self.0.items()
    }

    /// Adds the counts after trace line `line`.
    pub fn push(&mut self, line: u64, nr_free: &[u64; NR_PAGE_ORDERS]) {
        self.0.push(FreeSample {
            line,
            nr_free: *nr_free,
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The series keeps what `thinned_indices` says for every length, evenly spread, at most
    /// `max` and the last: a million pushes stay within the bound.
    #[test]
    fn thinning_keeps_an_even_bounded_series_ending_on_the_last() {
        for max in [2usize, 3, 7, 8, 512] {
            let mut t = Thinned::new(max);
            for n in 1..=2000u64 {
                t.push(n - 1);
                let got: Vec<u64> = t.items().copied().collect();
                assert_eq!(got, thinned_indices(n, max), "n {n} max {max}");
                assert!(got.len() <= max, "n {n} max {max}: {}", got.len());
                assert_eq!(got.last(), Some(&(n - 1)));
            }
        }
        let mut t = Thinned::new(MAX_SAMPLES);
        for i in 0..1_000_000u64 {
            t.push(i);
        }
        let kept: Vec<u64> = t.items().copied().collect();
        assert!(kept.len() <= MAX_SAMPLES && kept.len() > MAX_SAMPLES / 2);
        assert_eq!(kept, thinned_indices(1_000_000, MAX_SAMPLES));
        assert_eq!(t.pushed(), 1_000_000);
    }

    /// The replay's sampler is the same rule over `FreeSample`s.
    #[test]
    fn the_sampler_is_the_thinning_rule() {
        let mut s = Sampler::default();
        let n = 3 * MAX_SAMPLES as u64 + 5;
        for line in 1..=n {
            s.push(line, &[line; NR_PAGE_ORDERS]);
        }
        let lines: Vec<u64> = s.samples().map(|p| p.line).collect();
        let want: Vec<u64> = thinned_indices(n, MAX_SAMPLES)
            .into_iter()
            .map(|i| i + 1)
            .collect();
        assert_eq!(lines, want);
    }
}
