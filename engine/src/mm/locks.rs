//! Lock-hold counters: how many pages the kernel handles under one hold of the zone lock
//! (`spin_lock_irqsave(&zone->lock)` … `spin_unlock_irqrestore`) and of a pcp lock
//! (`pcp_spin_trylock` … `pcp_spin_unlock`).
//!
//! The `zone_lock` and `pcp_lock` cost counters ([`crate::mm::stats::Stats`]) count how often a lock
//! is taken; the seeds (the rmqueue_bulk fallback speed-up, the 6.19 chunked pcp frees, the 7.2
//! chunked `free_contig_range`) are about how long it is held, the worst case above all. The model
//! has no clock, so a hold is measured in pages: the pages taken from, given to or moved between
//! the buddy free lists (zone lock), or put on or taken off the pcp lists (pcp lock), before the
//! matching unlock. Beside the pages, each hold's work is counted in list steps (free-list and
//! pcp-list operations plus fallback probes, the `list_ops`, `pcp_ops` and `probes` cost
//! counters): the rmqueue_bulk seed moves the same pages under one hold before and after the fix,
//! but searches the fallback lists far less often. A pcp hold that
//! refills or drains through `rmqueue_bulk` / `free_pcppages_bulk` counts those pages under both
//! locks, as the kernel holds both. The engine records each hold when it ends
//! ([`crate::mm::page_alloc::Engine::unlock_zone`], `unlock_pcp`), without events: the event stream,
//! the other counters and every output stay as they were.

use serde::{Deserialize, Serialize};

/// Buckets of [`HoldHistogram::buckets`]: 0 pages, then powers of two up to "2048 or more".
pub const HOLD_BUCKETS: usize = 13;

/// The holds of one lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldHistogram {
    /// Number of holds (lock … unlock).
    pub holds: u64,
    /// Pages handled under all of them.
    pub pages: u64,
    /// The most pages handled under one hold: the worst-case hold.
    pub max: u64,
    /// The most list steps (free-list and pcp-list operations, fallback probes) under one hold.
    pub max_steps: u64,
    /// `buckets[0]`: holds that handled no page; `buckets[k]`: `2^(k-1) ≤ pages < 2^k`; the last
    /// bucket also takes everything larger.
    pub buckets: [u64; HOLD_BUCKETS],
}

impl HoldHistogram {
    /// The bucket of a hold that handled `pages`.
    pub fn bucket(pages: u64) -> usize {
        ((u64::BITS - pages.leading_zeros()) as usize).min(HOLD_BUCKETS - 1)
    }

    /// The label of bucket `i`: `0`, `1`, `2-3`, …, `2048+`.
    pub fn bucket_label(i: usize) -> String {
        match i {
            0 => "0".into(),
            1 => "1".into(),
            _ if i == HOLD_BUCKETS - 1 => format!("{}+", 1u64 << (i - 1)),
            _ => format!("{}-{}", 1u64 << (i - 1), (1u64 << i) - 1),
        }
    }

    /// Counts one hold of `pages` pages and `steps` list steps.
    pub fn record(&mut self, pages: u64, steps: u64) {
        self.holds += 1;
        self.pages += pages;
        self.max = self.max.max(pages);
        self.max_steps = self.max_steps.max(steps);
        self.buckets[Self::bucket(pages)] += 1;
    }

    /// Counts `n` holds of `pages` pages and `steps` list steps each: [`HoldHistogram::record`]
    /// `n` times.
    pub(crate) fn record_many(&mut self, pages: u64, steps: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.holds += n;
        self.pages += n * pages;
        self.max = self.max.max(pages);
        self.max_steps = self.max_steps.max(steps);
        self.buckets[Self::bucket(pages)] += n;
    }

    /// The non-empty buckets as `label:count`, space separated (the CLI's summary).
    pub fn buckets_text(&self) -> String {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, n)| format!("{}:{n}", Self::bucket_label(i)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The zone lock's and the pcp locks' holds (all CPUs together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockHolds {
    /// The zone lock's holds.
    pub zone: HoldHistogram,
    /// The pcp locks' holds, every CPU together.
    pub pcp: HoldHistogram,
}

impl LockHolds {
    /// The two locks with their machine names (`zone_lock_hold`, `pcp_lock_hold`).
    pub fn iter(&self) -> [(&'static str, &HoldHistogram); 2] {
        [("zone_lock_hold", &self.zone), ("pcp_lock_hold", &self.pcp)]
    }
}

impl std::ops::AddAssign for HoldHistogram {
    fn add_assign(&mut self, o: HoldHistogram) {
        self.holds += o.holds;
        self.pages += o.pages;
        self.max = self.max.max(o.max);
        self.max_steps = self.max_steps.max(o.max_steps);
        for (a, b) in self.buckets.iter_mut().zip(o.buckets) {
            *a += b;
        }
    }
}

impl std::ops::AddAssign for LockHolds {
    fn add_assign(&mut self, o: LockHolds) {
        self.zone += o.zone;
        self.pcp += o.pcp;
    }
}

/// The holds of several ops together (the run's, from its op records).
impl std::iter::Sum for LockHolds {
    fn sum<I: Iterator<Item = LockHolds>>(iter: I) -> LockHolds {
        let mut s = LockHolds::default();
        for x in iter {
            s += x;
        }
        s
    }
}

/// A hold being measured: pages handled so far, and the list-step count when it began.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenHold {
    pub pages: u64,
    pub steps_at_lock: u64,
}

/// The holds being measured: the zone lock's and the pcp lock's, if held.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpenHolds {
    pub zone: Option<OpenHold>,
    pub pcp: Option<OpenHold>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(HoldHistogram::bucket(0), 0);
        assert_eq!(HoldHistogram::bucket(1), 1);
        assert_eq!(HoldHistogram::bucket(2), 2);
        assert_eq!(HoldHistogram::bucket(3), 2);
        assert_eq!(HoldHistogram::bucket(63), 6);
        assert_eq!(HoldHistogram::bucket(64), 7);
        assert_eq!(HoldHistogram::bucket(2047), 11);
        assert_eq!(HoldHistogram::bucket(2048), 12);
        assert_eq!(HoldHistogram::bucket(1 << 20), 12);
        assert_eq!(HoldHistogram::bucket_label(0), "0");
        assert_eq!(HoldHistogram::bucket_label(2), "2-3");
        assert_eq!(HoldHistogram::bucket_label(7), "64-127");
        assert_eq!(HoldHistogram::bucket_label(12), "2048+");
        let mut h = HoldHistogram::default();
        for p in [63, 1, 63, 0] {
            h.record(p, p * 2);
        }
        assert_eq!((h.holds, h.pages, h.max, h.max_steps), (4, 127, 63, 126));
        assert_eq!(h.buckets_text(), "0:1 1:1 32-63:2");
    }
}
