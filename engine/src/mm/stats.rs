//! The cost counters, defined once.
//!
//! Each row of the `stats!` table below is one counter: its field (also its stable machine name,
//! the key in `buddyscope run --format json`), a short label (the column heading of the per-op
//! lines of `--format summary`) and a one-sentence explanation for a student (the app's
//! tooltips). The macro generates [`Stats`], [`Stats::DEFS`] and the field-by-field arithmetic,
//! so a new counter is one new row here plus the event that bumps it in [`Stats::count`].

use crate::mm::events::{Annotation, Event, EventKind, Mutation, Tracepoint};
use crate::mm::steps::Step;
use serde::{Deserialize, Serialize};

/// The description of one cost counter (a row of the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatDef {
    /// Stable machine name: the field name and the JSON key.
    pub name: &'static str,
    /// Short label: the column heading of `--format summary`'s per-op lines.
    pub label: &'static str,
    /// What the counter counts, for a student (one sentence).
    pub help: &'static str,
}

macro_rules! stats {
    ($( $(#[$doc:meta])* $field:ident, $label:literal, $help:literal; )*) => {
        /// Cost counters, cumulative; a per-operation figure is the difference across the
        /// operation ([`Stats::diff`]).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Stats {
            $( $(#[$doc])* pub $field: u64, )*
        }

        impl Stats {
            /// Every counter, in display order (the order of the JSON keys).
            pub const DEFS: &'static [StatDef] = &[
                $( StatDef { name: stringify!($field), label: $label, help: $help }, )*
            ];
            /// The number of counters.
            pub const LEN: usize = Self::DEFS.len();

            /// The values, in [`Stats::DEFS`] order.
            pub fn values(&self) -> [u64; Self::LEN] {
                [ $( self.$field, )* ]
            }

            fn from_values(v: [u64; Self::LEN]) -> Stats {
                let mut it = v.into_iter();
                Stats { $( $field: it.next().expect("one value per counter"), )* }
            }
        }
    };
}

stats! {
    /// `spin_lock_irqsave(&zone->lock)`.
    zone_lock, "zone_lock",
        "Times the zone lock was taken: every CPU that touches the buddy free lists must wait for this one lock.";
    /// `pcp_spin_trylock`.
    pcp_lock, "pcp_lock",
        "Times a per-CPU page list (pcp) lock was taken: cheap, each CPU has its own.";
    /// `free_area` list operations (add, del, move).
    freelist_ops, "list_ops",
        "Buddy free-list operations (add, remove, move a block between lists).";
    /// pcp list operations (add, del).
    pcp_ops, "pcp_ops",
        "Per-CPU list operations (a page or chunk put on or taken off a pcp list).";
    /// Pages through `free_pages_prepare` (each `mm_page_free` counts `2^order`).
    pages_prepared, "prepared",
        "Pages passed through free_pages_prepare (the per-page checks done when freeing).";
    /// `find_suitable_fallback` calls.
    fallback_probes, "probes",
        "Times the allocator looked at another migratetype's free lists because its own were empty.";
    /// Pageblocks re-typed by `try_to_claim_block`.
    pageblocks_claimed, "claimed",
        "Pageblocks taken over for another migratetype during a fallback (the block changes colour).";
    /// `try_to_claim_block` refusals.
    claims_refused, "refused",
        "Fallbacks that could not claim the whole pageblock (too few free pages in it).";
    /// Pages taken by `__rmqueue_steal` (`2^order` each).
    pages_stolen, "stolen",
        "Pages taken from another migratetype's block without claiming the block: a source of fragmentation.";
    /// Buddy merges in `__free_one_page`.
    merges, "merges",
        "Times a freed block merged with its free buddy into a block twice the size.";
    /// Upper halves split off by `expand`.
    splits, "splits",
        "Times a larger block was split in half to serve a smaller request (expand).";
    /// `rmqueue_bulk` refills of a pcp list.
    pcp_refills, "refills",
        "Times a per-CPU list was refilled in a batch from the buddy (rmqueue_bulk).";
    /// `free_pcppages_bulk` calls.
    pcp_drains, "drains",
        "Times pages went back from a per-CPU list to the buddy in a batch (free_pcppages_bulk).";
    /// `zone_watermark_fast` checks.
    watermark_checks, "wmark_checks",
        "Watermark checks: is there enough free memory left to allow this allocation?";
    /// Watermark checks that failed.
    watermark_failures, "wmark_failures",
        "Watermark checks that said no.";
    /// `COMPACTMIGRATE_SCANNED`: pages the migration scanner looked at (/proc/vmstat
    /// `compact_migrate_scanned`).
    compact_migrate_scanned, "mig_scanned",
        "Pages compaction's migration scanner looked at, from the zone start up, for movable pages to move.";
    /// `COMPACTFREE_SCANNED` (/proc/vmstat `compact_free_scanned`).
    compact_free_scanned, "free_scanned",
        "Pages compaction's free scanner looked at, from the zone end down, for free pages to move into.";
    /// `COMPACTISOLATED`: pages taken by either scanner (/proc/vmstat `compact_isolated`).
    compact_isolated, "isolated",
        "Pages compaction took off the LRU (to move) or off the free lists (to move into).";
}

impl Stats {
    /// Each counter's definition with its value, in display order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static StatDef, u64)> {
        Self::DEFS.iter().zip(self.values())
    }

    /// The value of the counter with machine name `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.iter().find(|(d, _)| d.name == name).map(|(_, v)| v)
    }

    /// The definition of the counter with machine name `name`.
    pub fn def(name: &str) -> Option<&'static StatDef> {
        Self::DEFS.iter().find(|d| d.name == name)
    }

    /// `self - earlier`, counter by counter: the cost of what happened in between.
    pub fn diff(&self, earlier: &Stats) -> Stats {
        let (a, b) = (self.values(), earlier.values());
        Stats::from_values(std::array::from_fn(|i| a[i] - b[i]))
    }
}

impl Stats {
    /// Counts a recorded event, as the run did when it happened (a timeline stepping forwards).
    #[inline]
    pub fn apply(&mut self, ev: &Event) {
        self.count(ev.step, ev.kind(), false);
    }

    /// Un-counts a recorded event (a timeline stepping back).
    #[inline]
    pub fn unapply(&mut self, ev: &Event) {
        self.count(ev.step, ev.kind(), true);
    }

    /// Counts event `ev` (or un-counts it, stepping back: `undo`). The one place that says
    /// which event moves which counter, so live runs, replays and reverse steps agree.
    #[inline(always)]
    pub(crate) fn count(&mut self, step: Step, kind: EventKind, undo: bool) {
        let bump = |c: &mut u64, n: u64| {
            if undo {
                *c -= n
            } else {
                *c += n
            }
        };
        match kind {
            EventKind::Mutation(m) => match m {
                Mutation::FreeListAdd { .. } => {
                    bump(&mut self.freelist_ops, 1);
                    // expand() is the only place that adds split-off halves.
                    if step == Step::ExpandAddUpper {
                        bump(&mut self.splits, 1);
                    }
                }
                Mutation::FreeListDel { .. } | Mutation::FreeListMove { .. } => {
                    bump(&mut self.freelist_ops, 1)
                }
                Mutation::PcpAdd { .. } | Mutation::PcpDel { .. } => bump(&mut self.pcp_ops, 1),
                _ => {}
            },
            EventKind::Annotation(a) => match a {
                Annotation::Lock { zone: true, .. } => bump(&mut self.zone_lock, 1),
                Annotation::Lock { zone: false, .. } => bump(&mut self.pcp_lock, 1),
                Annotation::FallbackProbe { .. } => bump(&mut self.fallback_probes, 1),
                Annotation::Claimed { pageblocks, .. } => {
                    bump(&mut self.pageblocks_claimed, pageblocks as u64)
                }
                Annotation::ClaimRefused { .. } => bump(&mut self.claims_refused, 1),
                Annotation::Stolen { alloc_order, .. } => {
                    bump(&mut self.pages_stolen, 1 << alloc_order)
                }
                Annotation::Merge { .. } => bump(&mut self.merges, 1),
                Annotation::PcpRefill { .. } => bump(&mut self.pcp_refills, 1),
                Annotation::PcpDrain { .. } => bump(&mut self.pcp_drains, 1),
                Annotation::Watermark { ok, .. } => {
                    bump(&mut self.watermark_checks, 1);
                    if !ok {
                        bump(&mut self.watermark_failures, 1)
                    }
                }
                Annotation::Trace(Tracepoint::MmPageFree { order, .. }) => {
                    bump(&mut self.pages_prepared, 1 << order)
                }
                Annotation::Trace(Tracepoint::MmCompactionIsolateMigratepages {
                    nr_scanned,
                    nr_taken,
                    ..
                }) => {
                    bump(&mut self.compact_migrate_scanned, nr_scanned as u64);
                    bump(&mut self.compact_isolated, nr_taken as u64);
                }
                Annotation::Trace(
                    Tracepoint::MmCompactionIsolateFreepages {
                        nr_scanned,
                        nr_taken,
                        ..
                    }
                    | Tracepoint::MmCompactionFastIsolateFreepages {
                        nr_scanned,
                        nr_taken,
                        ..
                    },
                ) => {
                    bump(&mut self.compact_free_scanned, nr_scanned as u64);
                    bump(&mut self.compact_isolated, nr_taken as u64);
                }
                _ => {}
            },
        }
    }
}

/// Counter by counter: sums costs of several operations.
impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, rhs: Stats) {
        let (a, b) = (self.values(), rhs.values());
        *self = Stats::from_values(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl std::iter::Sum for Stats {
    fn sum<I: Iterator<Item = Stats>>(iter: I) -> Stats {
        let mut s = Stats::default();
        for x in iter {
            s += x;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serialized_keys_in_order() {
        let json = serde_json::to_string(&Stats::default()).unwrap();
        let want: String = Stats::DEFS
            .iter()
            .map(|d| format!("\"{}\":0", d.name))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(json, format!("{{{want}}}"));
        assert!(Stats::DEFS
            .iter()
            .all(|d| !d.label.is_empty() && !d.help.is_empty()));
    }

    #[test]
    fn diff_get_and_sum_follow_the_table() {
        let a = Stats {
            merges: 7,
            zone_lock: 3,
            ..Stats::default()
        };
        let b = Stats {
            merges: 2,
            ..Stats::default()
        };
        let d = a.diff(&b);
        assert_eq!(d.merges, 5);
        assert_eq!(d.zone_lock, 3);
        assert_eq!(d.get("merges"), Some(5));
        assert_eq!(d.get("no_such_counter"), None);
        let s: Stats = [d, b].into_iter().sum();
        assert_eq!(s, a);
        assert_eq!(Stats::def("freelist_ops").unwrap().label, "list_ops");
    }
}
