//! Live cost counters at the cursor: the zone's cumulative `Stats` (names and help from the
//! engine's table, `Stats::DEFS`), plus the current op's `pageblocks_touched` and two zone
//! fields, and the current op's worst zone / pcp lock holds (`buddyscope::mm`).

use buddyscope::mm::{HoldHistogram, LockHolds};
use buddyscope::run::Timeline;
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::shell::View;

/// One counter on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterRow {
    /// Machine name: the `counter-{name}` test id and the CLI's JSON key.
    pub name: &'static str,
    /// What the panel prints.
    pub label: &'static str,
    /// The tooltip.
    pub help: &'static str,
    pub value: i64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountersModel {
    pub rows: Vec<CounterRow>,
}

impl CountersModel {
    /// Per row: whether its value differs from the same row in `before`.
    pub fn changed_since(&self, before: &CountersModel) -> Vec<bool> {
        self.rows
            .iter()
            .map(|r| {
                before
                    .rows
                    .iter()
                    .find(|b| b.name == r.name)
                    .is_some_and(|b| b.value != r.value)
            })
            .collect()
    }
}

pub fn view_model(t: &Timeline) -> CountersModel {
    let z = t.zone();
    // The cost counters are the run's (the node's), whichever zone is shown.
    let mut rows: Vec<CounterRow> = t
        .stats()
        .iter()
        .map(|(d, v)| CounterRow {
            name: d.name,
            label: d.name,
            help: d.help,
            value: v as i64,
        })
        .collect();
    let current = match t.op_index() {
        Some(i) if t.pos() > 0 => Some(t.op(i)),
        _ => None,
    };
    let touched = current.map_or(0, |o| o.pageblocks_touched);
    rows.push(CounterRow {
        name: "pageblocks_touched",
        label: "pageblocks_touched",
        help:
            "Distinct pageblocks (2 MiB regions) holding the pages the current operation obtained.",
        value: touched as i64,
    });
    rows.push(CounterRow {
        name: "nr_free_pages",
        label: "NR_FREE_PAGES",
        help: "NR_FREE_PAGES: free pages in the buddy free lists (pages on per-CPU lists are not counted).",
        value: z.nr_free_pages(),
    });
    rows.push(CounterRow {
        name: "watermark_boost",
        label: "watermark_boost",
        help: "Pages added to the watermarks after a fallback, so kswapd reclaims early and fragmentation is limited.",
        value: z.watermark_boost(),
    });
    rows.extend(direct_compaction_rows(t));
    let holds = current.map(|o| o.lock_holds).unwrap_or_default();
    rows.extend(lock_hold_rows(&holds));
    CountersModel { rows }
}

/// Direct compaction's outcomes as `/proc/vmstat` counts them (`__alloc_pages_direct_compact`:
/// `COMPACTSTALL`, then `COMPACTFAIL` or `COMPACTSUCCESS`), summed over the node's zones: the
/// engine's own lines (`procfs::vmstat_compaction`, what `--format vmstat` prints).
fn direct_compaction_rows(t: &Timeline) -> Vec<CounterRow> {
    const ROWS: [(&str, &str); 3] = [
        (
            "compact_stall",
            "compact_stall (/proc/vmstat, COMPACTSTALL): direct compactions an allocation ran in its slow path (__alloc_pages_direct_compact).",
        ),
        (
            "compact_fail",
            "compact_fail (/proc/vmstat, COMPACTFAIL): direct compactions after which the allocation still had no page.",
        ),
        (
            "compact_success",
            "compact_success (/proc/vmstat, COMPACTSUCCESS): direct compactions that gave the allocation its page (captured, or found free after compaction).",
        ),
    ];
    let text = buddyscope::scenario::procfs::vmstat_compaction(t.node(), t.stats());
    ROWS.iter()
        .map(|&(name, help)| CounterRow {
            name,
            label: name,
            help,
            value: text
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
                .unwrap_or(0),
        })
        .collect()
}

/// The current op's worst lock holds, as the CLI's `ops[i].lock_holds` (`max`, `max_steps`).
fn lock_hold_rows(h: &LockHolds) -> [CounterRow; 4] {
    [
        CounterRow {
            name: "zone_lock_hold_max",
            label: "zone_hold_max",
            help: "Most pages handled under one hold of the zone lock in the current operation (one rmqueue_bulk refill, one free_pcppages_bulk drain, ...): the worst-case hold the seeds measure.",
            value: h.zone.max as i64,
        },
        CounterRow {
            name: "zone_lock_hold_max_steps",
            label: "zone_hold_steps",
            help: "Most list operations and fallback probes under one hold of the zone lock in the current operation: the work that makes a hold long.",
            value: h.zone.max_steps as i64,
        },
        CounterRow {
            name: "pcp_lock_hold_max",
            label: "pcp_hold_max",
            help: "Most pages put on or taken off the per-CPU lists under one hold of a pcp lock in the current operation (6.19+ drops it between free_pcppages_bulk chunks).",
            value: h.pcp.max as i64,
        },
        CounterRow {
            name: "pcp_lock_hold_max_steps",
            label: "pcp_hold_steps",
            help: "Most list operations and fallback probes under one hold of a pcp lock in the current operation.",
            value: h.pcp.max_steps as i64,
        },
    ]
}

/// The current op's holds by pages handled, `zone 8-15:1 · pcp 16-31:1`, or "" before any op.
pub fn hold_distribution(t: &Timeline) -> String {
    let Some(i) = t.op_index().filter(|_| t.pos() > 0) else {
        return String::new();
    };
    let h = t.op(i).lock_holds;
    let side = |name: &str, x: &HoldHistogram| {
        let b = x.buckets_text();
        format!("{name} {}", if b.is_empty() { "none".into() } else { b })
    };
    format!("{} \u{b7} {}", side("zone", &h.zone), side("pcp", &h.pcp))
}

/// The counters' values at the cursor and which of them the last move changed, one entry per
/// row of [`CountersModel::rows`] (same order).
#[derive(Clone, Debug, Default, PartialEq)]
struct CounterValues {
    values: Vec<i64>,
    changed: Vec<bool>,
}

#[component]
pub fn CountersPanel() -> impl IntoView {
    let view = View::here();
    let model = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    // The rows themselves (names, labels, help) are the same at every position: they are built
    // once per run, and each row's value and mark are their own reactive leaves, so a move
    // writes only the numbers (and marks) that changed, never the rows' other attributes.
    let rows = Memo::new(move |_| {
        model.with(|m| {
            m.rows
                .iter()
                .enumerate()
                .map(|(i, r)| (i, r.name, r.label, r.help))
                .collect::<Vec<_>>()
        })
    });
    // The model of the previous move, to mark what the last move changed.
    let before: StoredValue<CountersModel> = StoredValue::new(CountersModel::default());
    let values = Memo::new(move |_| {
        model.with(|now| {
            let changed = before.with_value(|b| now.changed_since(b));
            before.set_value(now.clone());
            CounterValues {
                values: now.rows.iter().map(|r| r.value).collect(),
                changed,
            }
        })
    });
    let dist = Memo::new(move |_| {
        view.with(|s| hold_distribution(&s.timeline))
            .unwrap_or_default()
    });

    view! {
        <PanelFrame
            key="counters"
            title="Cost counters"
            testid="counters"
            help="Cumulative at the cursor; hover a name for what it counts."
        >
            <dl class="counter-grid">
                <For
                    each=move || rows.get()
                    key=|r| *r
                    children=move |(i, name, label, help)| {
                        view! {
                            <div
                                class="counter"
                                class:changed=move || values.with(|v| v.changed.get(i).copied().unwrap_or(false))
                                title=help
                            >
                                <dt>{label}</dt>
                                <dd data-testid=format!("counter-{name}")>
                                    {move || values.with(|v| v.values.get(i).copied().unwrap_or(0))}
                                </dd>
                            </div>
                        }
                    }
                />
            </dl>
            <p
                class="lock-hold-dist"
                data-testid="lock-hold-dist"
                title="The current operation's lock holds by pages handled under one hold (0, 1, 2-3, 4-7, ...: count)"
            >
                "holds by pages: "
                {move || dist.get()}
            </p>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;
    use buddyscope::mm::Stats;

    /// Direct compaction's counts as `--format vmstat` prints them for the final node, and in
    /// step with the cursor: each `__alloc_pages_direct_compact` is one
    /// `mm_compaction_try_to_compact_pages` line and, once the compaction returns, one
    /// `compact_stall` and a fail or a success.
    #[test]
    fn direct_compaction_counts_follow_the_run() {
        use buddyscope::mm::{Annotation, EventKind, Tracepoint};
        for id in ["thp-direct-compaction", "compaction-unmovable-request"] {
            let mut t = timeline(id);
            let get = |m: &CountersModel, name: &str| {
                m.rows.iter().find(|r| r.name == name).unwrap().value
            };
            let start = view_model(&t);
            for name in ["compact_stall", "compact_fail", "compact_success"] {
                assert_eq!(get(&start, name), 0, "{id}: {name}");
            }
            let n = t.len();
            t.seek(n);
            let end = view_model(&t);
            let vm =
                buddyscope::scenario::procfs::vmstat_compaction(&t.run.final_node, &t.run.stats);
            for name in ["compact_stall", "compact_fail", "compact_success"] {
                assert!(
                    vm.contains(&format!("{name} {}\n", get(&end, name))),
                    "{id}: {name}: {vm}"
                );
            }
            // The try_to_compact_pages lines, in event order.
            let tries: Vec<usize> = (0..n as usize)
                .filter(|&i| {
                    matches!(
                        t.run.log.events[i].kind(),
                        EventKind::Annotation(Annotation::Trace(
                            Tracepoint::MmCompactionTryToCompactPages { .. }
                        ))
                    )
                })
                .collect();
            assert!(get(&end, "compact_stall") > 0, "{id}");
            assert_eq!(get(&end, "compact_stall"), tries.len() as i64, "{id}");
            assert_eq!(
                get(&end, "compact_stall"),
                get(&end, "compact_fail") + get(&end, "compact_success"),
                "{id}"
            );
            // COMPACTSTALL is counted once try_to_compact_pages returns (v7.3.4
            // mm/page_alloc.c:4218-4241): none while the first compaction runs; by the next
            // try, the first stall and its fail or success.
            let at = |t: &mut Timeline, pos: usize| {
                t.seek(pos as u32);
                let m = view_model(t);
                (
                    get(&m, "compact_stall"),
                    get(&m, "compact_fail") + get(&m, "compact_success"),
                )
            };
            assert_eq!(at(&mut t, tries[0] + 1), (0, 0), "{id}");
            if let Some(&next) = tries.get(1) {
                assert_eq!(at(&mut t, next), (1, 1), "{id}");
            }
        }
    }

    #[test]
    fn values_are_the_engine_stats_and_every_row_explains_itself() {
        let mut t = timeline("free-contig-range-thp");
        let start = view_model(&t);
        assert!(start.rows.iter().all(|r| r.help.len() > 20), "{start:?}");
        let n = t.len();
        t.seek(n);
        let end = view_model(&t);
        for (d, v) in t.run.stats.iter() {
            let row = end.rows.iter().find(|r| r.name == d.name).unwrap();
            assert_eq!(row.value, v as i64, "{}", d.name);
            assert_eq!(row.help, d.help);
        }
        assert_eq!(
            &end.rows[..Stats::LEN]
                .iter()
                .map(|r| r.name)
                .collect::<Vec<_>>(),
            &Stats::DEFS.iter().map(|d| d.name).collect::<Vec<_>>()
        );
        let get = |name: &str| end.rows.iter().find(|r| r.name == name).unwrap().value;
        let z = t.run.final_node.active();
        assert_eq!(get("nr_free_pages"), z.nr_free_pages());
        assert_eq!(get("watermark_boost"), z.watermark_boost());
        let changed = end.changed_since(&start);
        assert_eq!(changed.len(), end.rows.len());
        assert!(changed[0], "zone_lock moved");
        // The first op allocates one order-9 block: one pageblock.
        t.seek(0);
        t.op_forward();
        assert_eq!(
            view_model(&t)
                .rows
                .iter()
                .find(|r| r.name == "pageblocks_touched")
                .unwrap()
                .value,
            1
        );
    }

    /// The first op of free-contig-range-thp (262144 pages, `batch` 63) allocates order 9 on a
    /// fresh zone: `nr_pcp_alloc(9)` = max(63 >> 9, 2) = 2, so `rmqueue_bulk` takes both halves
    /// of order-10 block 0 under one zone hold (1024 pages) inside the pcp hold, which also takes
    /// the returned block off the THP list (1536).
    #[test]
    fn lock_hold_rows_are_the_current_ops() {
        let mut t = timeline("free-contig-range-thp");
        assert_eq!(hold_distribution(&t), "");
        t.op_forward();
        let m = view_model(&t);
        let get = |name: &str| m.rows.iter().find(|r| r.name == name).unwrap().value;
        assert_eq!(get("zone_lock_hold_max"), 1024);
        assert_eq!(get("pcp_lock_hold_max"), 1536);
        let h = t.op(0).lock_holds;
        assert_eq!(get("zone_lock_hold_max_steps"), h.zone.max_steps as i64);
        assert_eq!(get("pcp_lock_hold_max_steps"), h.pcp.max_steps as i64);
        assert!(h.pcp.max_steps > h.zone.max_steps);
        assert_eq!(
            hold_distribution(&t),
            "zone 1024-2047:1 \u{b7} pcp 1024-2047:1"
        );
    }
}
