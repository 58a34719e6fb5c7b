//! What an operation did: [`Outcome`], one variant per kind of result, printed by its
//! `Display` (the last column of `--format summary`, `outcome` in `--format json`, the app's
//! narration bar). Tests match on variants, not on words.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::mm::{MigrateType, Pfn};

/// What one executed op did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// `alloc`: the block obtained (absolute pfn).
    Allocated {
        /// The order.
        order: u8,
        /// First page (absolute).
        pfn: Pfn,
    },
    /// `alloc`, `vmalloc`: no memory.
    Failed,
    /// `split`: the block became `pages` order-0 pages.
    Split {
        /// Order-0 pages it became.
        pages: u32,
    },
    /// `split` of an order-0 or already split allocation.
    NothingToSplit,
    /// `alloc_contig_range`: the range obtained (absolute pfn).
    ContigAllocated {
        /// Pages in the range.
        nr: u32,
        /// First page (absolute).
        pfn: Pfn,
    },
    /// `alloc_contig_range`: some page of the range is not free.
    RangeInUse,
    /// `vmalloc`: pages obtained; the large-order attempts `(order, succeeded)` (order-0 ones
    /// that failed included) and the number of successful order-0 attempts.
    Vmalloc {
        /// Pages obtained.
        pages: usize,
        /// The large-order attempts: `(order, succeeded)`.
        large: Vec<(u8, bool)>,
        /// Successful order-0 attempts.
        order0: usize,
    },
    /// `vfree`.
    Vfreed,
    /// `drain`.
    Drained,
    /// `tick`: pcp pages `decay_pcp_high` freed to the buddy.
    Ticked {
        /// Pages freed to the buddy.
        drained: u64,
    },
    /// `compact_memory`: folios moved (and their pages) in the zones compacted.
    Compacted {
        /// Folios moved.
        migrated: u32,
        /// Their pages.
        pages: u64,
        /// Zones compacted.
        zones: u32,
    },
    /// `kcompactd`: one wakeup.
    Kcompactd {
        /// `kcompactd_do_work` for an order ran (else the timeout's proactive check).
        do_work: bool,
        /// Proactive compaction ran.
        proactive: bool,
        /// `fragmentation_score_node` before and after.
        score_before: u64,
        /// After.
        score_after: u64,
        /// Folios moved.
        migrated: u32,
        /// Their pages.
        pages: u64,
    },
    /// `free` of one page of a split or contiguous allocation.
    PageFreed {
        /// The page's index in the allocation.
        index: u64,
    },
    /// `free` of a split or contiguous allocation, page by page.
    FreedOneByOne {
        /// Pages freed.
        pages: usize,
    },
    /// `free` of an unsplit block.
    BlockFreed {
        /// The block's order.
        order: u8,
    },
    /// `free_contig_range`.
    ContigFreed {
        /// Pages in the range.
        nr: u32,
        /// Freed in aligned chunks (else page by page).
        chunked: bool,
    },
    /// One `workload` step that freed a block (absolute pfn).
    WorkloadFree {
        /// The workload step.
        step: u64,
        /// The block's order.
        order: u8,
        /// First page (absolute).
        pfn: Pfn,
    },
    /// One `workload` step that allocated (`pfn` `None`: it failed).
    WorkloadAlloc {
        /// The workload step.
        step: u64,
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
        /// First page (absolute).
        pfn: Option<u64>,
    },
    /// Nothing done: the op does not apply (already freed, unknown name, …); the warning the
    /// trace shows too.
    Skipped(String),
    /// One event of a replayed trace (`crate::run::replay`): its line and what the replay did.
    Replayed {
        /// The 1-based trace line.
        line: u64,
        /// What the replay did, in words.
        what: String,
    },
    /// `get_page`: page `index` now has `refcount` references.
    PageRefTaken {
        /// The page's index in the allocation.
        index: u64,
        /// Its references now.
        refcount: u8,
    },
    /// `put_page`: one reference on page `index` dropped; `freed`: it was the last.
    PageRefDropped {
        /// The page's index in the allocation.
        index: u64,
        /// It was the last reference: the page is free.
        freed: bool,
    },
    /// `free` of one page someone else still references: the owner's reference is dropped,
    /// the page stays allocated until the last `put_page`.
    StillReferenced {
        /// The page's index in the allocation.
        index: u64,
    },
    /// `free_contig_range` of a range with `held` pages someone else still references: those
    /// lost the owner's reference only; their last `put_page` frees them.
    ContigFreedHeld {
        /// Pages in the range.
        nr: u32,
        /// Freed in aligned chunks (else page by page).
        chunked: bool,
        /// Pages still referenced.
        held: u32,
    },
    /// `alloc_contig_range` that migrated `migrated` in-use movable blocks out of the range
    /// first.
    ContigMigrated {
        /// Pages in the range.
        nr: u32,
        /// First page (absolute).
        pfn: Pfn,
        /// Blocks migrated.
        migrated: u32,
    },
    /// `alloc_contig_range` failed with `-ENOMEM`: a migration found no target page.
    ContigNoMem {
        /// Blocks migrated before it failed.
        migrated: u32,
    },
    /// `cma_alloc`: the range obtained (absolute pfn), the in-use movable blocks migrated out of
    /// it, and the busy ranges retried past on the way.
    CmaAllocated {
        /// Pages in the range.
        nr: u32,
        /// First page (absolute).
        pfn: Pfn,
        /// Blocks migrated.
        migrated: u32,
        /// Busy ranges retried past.
        retries: u32,
    },
    /// `cma_alloc` failed: `ret` (-16 `-EBUSY`, -12 `-ENOMEM`) after `retries` busy ranges.
    CmaFailed {
        /// The error.
        ret: i32,
        /// Busy ranges retried past.
        retries: u32,
    },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Allocated { order, pfn } => write!(f, "order-{order} block at pfn {pfn:#x}"),
            Outcome::Failed => f.write_str("failed"),
            Outcome::Split { pages } => write!(f, "{pages} order-0 pages"),
            Outcome::NothingToSplit => f.write_str("nothing to split"),
            Outcome::ContigAllocated { nr, pfn } => write!(f, "{nr} pages at pfn {pfn:#x}"),
            Outcome::RangeInUse => f.write_str("failed: range in use"),
            Outcome::ContigMigrated { nr, pfn, migrated } => {
                write!(f, "{nr} pages at pfn {pfn:#x}; {migrated} blocks migrated")
            }
            Outcome::ContigNoMem { migrated } => write!(
                f,
                "failed: -ENOMEM (no migration target); {migrated} blocks migrated"
            ),
            Outcome::Vmalloc {
                pages,
                large,
                order0,
            } => {
                let orders: Vec<String> = large
                    .iter()
                    .map(|&(o, ok)| if ok { o.to_string() } else { format!("{o}✗") })
                    .collect();
                write!(
                    f,
                    "{pages} pages; large orders [{}], {order0} order-0",
                    orders.join(", ")
                )
            }
            Outcome::Vfreed => f.write_str("freed"),
            Outcome::Drained => f.write_str("drained"),
            Outcome::Ticked { drained } => write!(f, "pcp high decayed; {drained} pages drained"),
            Outcome::Compacted {
                migrated,
                pages,
                zones,
            } => write!(
                f,
                "compacted {zones} zone{}: {migrated} folio{} ({pages} pages) migrated",
                if *zones == 1 { "" } else { "s" },
                if *migrated == 1 { "" } else { "s" }
            ),
            Outcome::Kcompactd {
                do_work,
                proactive,
                score_before,
                score_after,
                migrated,
                pages,
            } => write!(
                f,
                "kcompactd {}: {migrated} folio{} ({pages} pages) migrated; fragmentation score {score_before} → {score_after}",
                if *do_work {
                    "kcompactd_do_work"
                } else if *proactive {
                    "proactive compaction"
                } else {
                    "woke, nothing to do"
                },
                if *migrated == 1 { "" } else { "s" }
            ),
            Outcome::PageFreed { index } => write!(f, "page {index} freed"),
            Outcome::FreedOneByOne { pages } => write!(f, "{pages} pages freed one by one"),
            Outcome::BlockFreed { order } => write!(f, "order-{order} block freed"),
            Outcome::ContigFreed { nr, chunked } => write!(
                f,
                "{nr} pages freed ({})",
                if *chunked { "chunked" } else { "page by page" }
            ),
            Outcome::WorkloadFree { step, order, pfn } => {
                write!(f, "step {step}: free order-{order} at {pfn:#x}")
            }
            Outcome::WorkloadAlloc {
                step,
                order,
                mt,
                pfn,
            } => match pfn {
                Some(pfn) => write!(
                    f,
                    "step {step}: alloc order-{order} {} at {pfn:#x}",
                    mt.slug()
                ),
                None => write!(f, "step {step}: alloc order-{order} {} failed", mt.slug()),
            },
            Outcome::Skipped(warning) => f.write_str(warning),
            Outcome::Replayed { line, what } => write!(f, "line {line}: {what}"),
            Outcome::PageRefTaken { index, refcount } => {
                write!(f, "page {index} referenced: refcount {refcount}")
            }
            Outcome::PageRefDropped { index, freed } => {
                if *freed {
                    write!(f, "page {index}: last reference dropped, page freed")
                } else {
                    write!(f, "page {index}: reference dropped, still referenced")
                }
            }
            Outcome::ContigFreedHeld { nr, chunked, held } => write!(
                f,
                "{} pages freed ({}); {held} still referenced, freed by the last put_page",
                nr - held,
                if *chunked { "chunked" } else { "page by page" }
            ),
            Outcome::StillReferenced { index } => write!(
                f,
                "page {index} still referenced: not freed until the last put_page"
            ),
            Outcome::CmaAllocated {
                nr,
                pfn,
                migrated,
                retries,
            } => {
                write!(f, "{nr} pages at pfn {pfn:#x}")?;
                if *migrated > 0 {
                    write!(f, "; {migrated} blocks migrated")?;
                }
                if *retries > 0 {
                    write!(f, "; {retries} busy ranges retried")?;
                }
                Ok(())
            }
            Outcome::CmaFailed { ret, retries } => write!(
                f,
                "failed: {} after {retries} busy ranges",
                if *ret == crate::mm::ENOMEM {
                    "-ENOMEM"
                } else {
                    "-EBUSY"
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_the_words_of_the_cli() {
        let cases = [
            (
                Outcome::Allocated {
                    order: 9,
                    pfn: 0x200,
                },
                "order-9 block at pfn 0x200",
            ),
            (Outcome::Failed, "failed"),
            (
                Outcome::Vmalloc {
                    pages: 520,
                    large: vec![(9, true), (3, false)],
                    order0: 8,
                },
                "520 pages; large orders [9, 3✗], 8 order-0",
            ),
            (
                Outcome::ContigFreed {
                    nr: 512,
                    chunked: true,
                },
                "512 pages freed (chunked)",
            ),
            (
                Outcome::WorkloadAlloc {
                    step: 4,
                    order: 2,
                    mt: MigrateType::Movable,
                    pfn: None,
                },
                "step 4: alloc order-2 movable failed",
            ),
            (
                Outcome::Skipped("free a: already freed, skipped".into()),
                "free a: already freed, skipped",
            ),
            (
                Outcome::PageRefTaken {
                    index: 100,
                    refcount: 2,
                },
                "page 100 referenced: refcount 2",
            ),
            (
                Outcome::ContigFreedHeld {
                    nr: 512,
                    chunked: true,
                    held: 1,
                },
                "511 pages freed (chunked); 1 still referenced, freed by the last put_page",
            ),
            (
                Outcome::PageRefDropped {
                    index: 100,
                    freed: true,
                },
                "page 100: last reference dropped, page freed",
            ),
        ];
        for (o, want) in cases {
            assert_eq!(o.to_string(), want);
        }
    }
}
