//! Page history: every recorded event that named one page, with the block it was part of, the
//! list that block went onto or left, and who held the page afterwards.
//!
//! One pass over the event log ([`EventKind::touched_pages`] is a range check per event), so a
//! page's history costs O(events) whatever the zone size; nothing is indexed ahead of time.

use crate::mm::MigrateType;
use crate::mm::Mutation;
use crate::mm::NO_OWNER;
use crate::mm::{pcp_list_name, pindex_to_order};
use crate::run::runner::Run;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A list a block sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PageList {
    /// `zone->free_area[order].free_list[mt]`.
    FreeArea {
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
    },
    /// `pcp->lists[pindex]` of one CPU's `per_cpu_pages`.
    Pcp {
        /// The CPU.
        cpu: u8,
        /// The list's index.
        pindex: u8,
    },
}

impl fmt::Display for PageList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageList::FreeArea { order, mt } => {
                write!(f, "free_area[{order}].free_list[{}]", mt.kernel_name())
            }
            PageList::Pcp { cpu, pindex } => write!(
                f,
                "cpu {cpu} pcp->lists[{pindex}] (order {} {})",
                pindex_to_order(pindex as usize),
                pcp_list_name(pindex as usize)
            ),
        }
    }
}

/// What an event did with the list of [`PageHistoryEntry::list`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ListChange {
    /// The block was linked onto the list.
    Enter,
    /// The block was unlinked from the list.
    Leave,
}

/// One event that named the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageHistoryEntry {
    /// Index into `run.log.events`; the timeline position that shows it is `event + 1`.
    pub event: u32,
    /// Index into `run.ops` of the op the event belongs to (`None` outside every op).
    pub op: Option<u32>,
    /// The zone-relative pages the event names `(start, count)`: the block (or pageblock,
    /// or contiguous range) the page was part of.
    pub block: (u32, u32),
    /// For list mutations: the list and whether the block entered or left it (a
    /// `FreeListMove` is recorded as entering the new list).
    pub list: Option<(PageList, ListChange)>,
    /// Who held the page after the event: an owner id (`Run::owners`, or a `/proc` filler
    /// owner), `None` while it is free or on a pcp list.
    pub owner: Option<u32>,
}

impl PageHistoryEntry {
    /// The order of [`block`](Self::block) when it is a buddy-shaped block (aligned power of
    /// two), e.g. not for a contiguous range of 300 pages.
    pub fn order(&self) -> Option<u8> {
        let (start, n) = self.block;
        (n.is_power_of_two() && start.is_multiple_of(n)).then(|| n.trailing_zeros() as u8)
    }
}

/// Every recorded event of `run` that named zone page `pfn` (zone-relative), oldest first.
/// Empty if the run was not recorded or `pfn` is outside the zone.
pub fn page_history(run: &Run, pfn: u32) -> Vec<PageHistoryEntry> {
    let mut out = Vec::new();
    if pfn >= run.initial.pages() {
        return out;
    }
    let covers = |(s, n): (u32, u32)| pfn >= s && pfn - s < n;
    // The holder before the first event: none if the page starts free or on a pcp list.
    let mut owner = match (
        run.initial.block_containing(pfn),
        run.initial.page_owner(pfn),
    ) {
        (None, o) if o != NO_OWNER => Some(o),
        _ => None,
    };
    let mut op = 0usize;
    for (i, ev) in run.log.events.iter().enumerate() {
        let Some(range) = ev.kind().touched_pages() else {
            continue;
        };
        if !covers(range) {
            continue;
        }
        let i = i as u32;
        while op < run.ops.len() && run.ops[op].end <= i {
            op += 1;
        }
        let list = match ev.kind().mutation() {
            Some(Mutation::FreeListAdd { order, mt, .. }) => {
                Some((PageList::FreeArea { order, mt }, ListChange::Enter))
            }
            Some(Mutation::FreeListDel { order, mt, .. }) => {
                Some((PageList::FreeArea { order, mt }, ListChange::Leave))
            }
            Some(Mutation::FreeListMove { order, to, .. }) => {
                Some((PageList::FreeArea { order, mt: to }, ListChange::Enter))
            }
            Some(Mutation::PcpAdd { cpu, pindex, .. }) => {
                Some((PageList::Pcp { cpu, pindex }, ListChange::Enter))
            }
            Some(Mutation::PcpDel { cpu, pindex, .. }) => {
                Some((PageList::Pcp { cpu, pindex }, ListChange::Leave))
            }
            _ => None,
        };
        match ev.kind().mutation() {
            Some(Mutation::PrepNewPage { owner: o, .. })
            | Some(Mutation::ContigAlloc { owner: o, .. }) => owner = (o != NO_OWNER).then_some(o),
            Some(Mutation::PutPage { .. }) | Some(Mutation::PutPageRef { release: true, .. }) => {
                owner = None
            }
            _ => {}
        }
        let in_op = run.ops.get(op).is_some_and(|o| o.start <= i && i < o.end);
        out.push(PageHistoryEntry {
            event: i,
            op: in_op.then_some(op as u32),
            block: range,
            list,
            owner,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"{
        "version": 1, "name": "history", "kernel": "v7.1",
        "zone": {"pages": 4096, "cpus": 1},
        "ops": [
            {"op": "alloc", "order": 4, "mt": "movable", "as": "a"},
            {"op": "free", "ref": "a"}
        ]
    }"#;

    fn run(text: &str) -> Run {
        crate::scenario::parse_valid(text)
            .and_then(|s| crate::run::runner::Runner::new(s).run())
            .expect("runs")
    }

    #[test]
    fn an_allocated_then_freed_block_by_hand() {
        let r = run(TINY);
        // Where did op 0 put the block? The one PrepNewPage of the run says.
        let (head, order, owner) = r
            .log
            .events
            .iter()
            .find_map(|e| match e.kind().mutation() {
                Some(Mutation::PrepNewPage {
                    pfn, order, owner, ..
                }) => Some((pfn, order, owner)),
                _ => None,
            })
            .expect("an allocation");
        assert_eq!(order, 4);
        assert_eq!(
            (head, order),
            (0, 4),
            "the lowest order-4 block of a boot zone"
        );
        let h = page_history(&r, 3);
        // By hand, page 3 of the zone: op 0 takes the order-10 block at 0 off the Movable
        // list, `expand` hands back the upper halves (not page 3), the order-4 head is traced
        // and handed out; op 1 drops it, traces the free, merges it up to order 10 and puts it
        // at the head of the Movable list.
        let free10 = PageList::FreeArea {
            order: 10,
            mt: MigrateType::Movable,
        };
        /// (event kind, op, block, list change, owner after).
        type Row<'a> = (
            &'a str,
            Option<u32>,
            (u32, u32),
            Option<(PageList, ListChange)>,
            Option<u32>,
        );
        let want: Vec<Row> = vec![
            (
                "FreeListDel",
                Some(0),
                (0, 1024),
                Some((free10, ListChange::Leave)),
                None,
            ),
            ("MmPageAllocZoneLocked", Some(0), (0, 16), None, None),
            ("PrepNewPage", Some(0), (0, 16), None, Some(owner)),
            ("MmPageAlloc", Some(0), (0, 16), None, Some(owner)),
            ("PutPage", Some(1), (0, 16), None, None),
            ("MmPageFree", Some(1), (0, 16), None, None),
            ("Merge", Some(1), (0, 32), None, None),
            ("Merge", Some(1), (0, 64), None, None),
            ("Merge", Some(1), (0, 128), None, None),
            ("Merge", Some(1), (0, 256), None, None),
            ("Merge", Some(1), (0, 512), None, None),
            ("Merge", Some(1), (0, 1024), None, None),
            (
                "FreeListAdd",
                Some(1),
                (0, 1024),
                Some((free10, ListChange::Enter)),
                None,
            ),
        ];
        let got: Vec<_> = h
            .iter()
            .map(|e| {
                let k = format!("{:?}", r.log.events[e.event as usize].kind());
                let k = k
                    .trim_start_matches("Mutation(")
                    .trim_start_matches("Annotation(")
                    .trim_start_matches("Trace(");
                let tag = &k[..k.find([' ', '{', '(']).unwrap_or(k.len())];
                (tag.to_string(), e.op, e.block, e.list, e.owner)
            })
            .collect();
        let want: Vec<_> = want
            .into_iter()
            .map(|(t, op, b, l, o)| (t.to_string(), op, b, l, o))
            .collect();
        assert_eq!(got, want);
        assert_eq!(h[2].order(), Some(4));
        assert_eq!(h[0].order(), Some(10));
        assert_eq!(r.owner_label(owner), "alloc order 4 movable as a");
        let head = 0u32;
        // The same entries, exactly, as a brute-force scan would find.
        let brute: Vec<u32> = r
            .log
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.kind()
                    .touched_pages()
                    .is_some_and(|(s, n)| s <= head + 3 && head + 3 < s + n)
            })
            .map(|(i, _)| i as u32)
            .collect();
        assert_eq!(h.iter().map(|e| e.event).collect::<Vec<_>>(), brute);
        // Beyond the zone: nothing.
        assert!(page_history(&r, r.initial.pages()).is_empty());
    }

    /// A page a `get_page` reference holds: the owner's free leaves it without an owner (its
    /// allocation let go), and the last `put_page` frees it.
    #[test]
    fn a_held_page_loses_its_owner_at_the_free_and_is_freed_by_put_page() {
        let r = run(
            r#"{"version": 1, "kernel": "v7.2", "zone": {"pages": 4096}, "ops": [
            {"op": "alloc_contig_range", "pfn": 0, "nr_pages": 16, "as": "r"},
            {"op": "get_page", "ref": "r", "page": 9},
            {"op": "free_contig_range", "ref": "r"},
            {"op": "put_page", "ref": "r", "page": 9}]}"#,
        );
        let h = page_history(&r, 9);
        let at = |op: u32| h.iter().filter(|e| e.op == Some(op)).collect::<Vec<_>>();
        assert_eq!(at(1).len(), 1, "get_page: one event");
        assert_eq!(at(1)[0].owner, Some(0), "still the range's");
        let free = at(2);
        assert_eq!(free.len(), 1, "the free only drops the owner's reference");
        assert_eq!(free[0].owner, None);
        let put = at(3);
        assert!(put.iter().any(|e| matches!(
            e.list,
            Some((PageList::Pcp { cpu: 0, .. }, ListChange::Enter))
        )));
    }

    #[test]
    fn list_names_read_like_the_kernel() {
        assert_eq!(
            PageList::FreeArea {
                order: 3,
                mt: MigrateType::Movable
            }
            .to_string(),
            "free_area[3].free_list[Movable]"
        );
        assert_eq!(
            PageList::Pcp { cpu: 1, pindex: 4 }.to_string(),
            "cpu 1 pcp->lists[4] (order 1 Movable)"
        );
    }
}
