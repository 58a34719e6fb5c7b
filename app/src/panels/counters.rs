//! Live cost counters at the cursor: the zone's cumulative `Stats`, plus the current op's
//! `pageblocks_touched` and two zone fields.

use buddyscope::report::stat_rows;
use buddyscope::timeline::Timeline;
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::state::AppState;

/// A student-level explanation of each counter (the `title` tooltip).
pub fn explain(name: &str) -> &'static str {
    match name {
        "zone_lock" => "Times the zone lock was taken: every CPU that touches the buddy free lists must wait for this one lock.",
        "pcp_lock" => "Times a per-CPU page list (pcp) lock was taken: cheap, each CPU has its own.",
        "freelist_ops" => "Buddy free-list operations (add, remove, move a block between lists).",
        "pcp_ops" => "Per-CPU list operations (a page or chunk put on or taken off a pcp list).",
        "pages_prepared" => "Pages passed through free_pages_prepare (the per-page checks done when freeing).",
        "fallback_probes" => "Times the allocator looked at another migratetype's free lists because its own were empty.",
        "pageblocks_claimed" => "Pageblocks taken over for another migratetype during a fallback (the block changes colour).",
        "claims_refused" => "Fallbacks that could not claim the whole pageblock (too few free pages in it).",
        "pages_stolen" => "Pages taken from another migratetype's block without claiming the block: a source of fragmentation.",
        "merges" => "Times a freed block merged with its free buddy into a block twice the size.",
        "splits" => "Times a larger block was split in half to serve a smaller request (expand).",
        "pcp_refills" => "Times a per-CPU list was refilled in a batch from the buddy (rmqueue_bulk).",
        "pcp_drains" => "Times pages went back from a per-CPU list to the buddy in a batch (free_pcppages_bulk).",
        "watermark_checks" => "Watermark checks: is there enough free memory left to allow this allocation?",
        "watermark_failures" => "Watermark checks that said no.",
        _ => "",
    }
}

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
    let mut rows: Vec<CounterRow> = stat_rows(&z.stats)
        .iter()
        .map(|&(name, v)| CounterRow {
            name,
            label: name,
            help: explain(name),
            value: v as i64,
        })
        .collect();
    let touched = match t.op_index() {
        Some(i) if t.pos() > 0 => t.op(i).pageblocks_touched,
        _ => 0,
    };
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
        value: z.nr_free_pages,
    });
    rows.push(CounterRow {
        name: "watermark_boost",
        label: "watermark_boost",
        help: "Pages added to the watermarks after a fallback, so kswapd reclaims early and fragmentation is limited.",
        value: z.watermark_boost,
    });
    CountersModel { rows }
}

#[component]
pub fn CountersPanel() -> impl IntoView {
    let state = AppState::get();
    let model = Memo::new(move |_| state.with(|s| view_model(&s.timeline)).unwrap_or_default());
    // The model of the previous render, to mark what the last move changed.
    let before: StoredValue<CountersModel> = StoredValue::new(CountersModel::default());

    view! {
        <PanelFrame
            key="counters"
            title="Cost counters"
            testid="counters"
            help="Cumulative at the cursor; hover a name for what it counts."
        >
            <dl class="counter-grid">
                {move || {
                    let now = model.get();
                    let changed = before.with_value(|b| now.changed_since(b));
                    before.set_value(now.clone());
                    now.rows
                        .into_iter()
                        .zip(changed)
                        .map(|(r, changed)| {
                            view! {
                                <div class="counter" class:changed=changed title=r.help>
                                    <dt>{r.label}</dt>
                                    <dd data-testid=format!("counter-{}", r.name)>{r.value}</dd>
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </dl>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::testutil::timeline;

    #[test]
    fn values_are_the_engine_stats_and_every_row_explains_itself() {
        let mut t = timeline("free-contig-range-thp");
        let start = view_model(&t);
        assert!(start.rows.iter().all(|r| r.help.len() > 20), "{start:?}");
        let n = t.len();
        t.seek(n);
        let end = view_model(&t);
        let z = &t.run.final_zone;
        for (name, v) in stat_rows(&z.stats) {
            let row = end.rows.iter().find(|r| r.name == name).unwrap();
            assert_eq!(row.value, v as i64, "{name}");
        }
        let get = |name: &str| end.rows.iter().find(|r| r.name == name).unwrap().value;
        assert_eq!(get("nr_free_pages"), z.nr_free_pages);
        assert_eq!(get("watermark_boost"), z.watermark_boost);
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
}
