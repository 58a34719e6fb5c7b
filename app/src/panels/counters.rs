//! Live cost counters at the cursor: the zone's cumulative `Stats` (names and help from the
//! engine's table, `Stats::DEFS`), plus the current op's `pageblocks_touched` and two zone
//! fields.

use buddyscope::timeline::Timeline;
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::state::AppState;

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
        .node()
        .stats()
        .iter()
        .map(|(d, v)| CounterRow {
            name: d.name,
            label: d.name,
            help: d.help,
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
        value: z.nr_free_pages(),
    });
    rows.push(CounterRow {
        name: "watermark_boost",
        label: "watermark_boost",
        help: "Pages added to the watermarks after a fallback, so kswapd reclaims early and fragmentation is limited.",
        value: z.watermark_boost(),
    });
    CountersModel { rows }
}

#[component]
pub fn CountersPanel() -> impl IntoView {
    let state = AppState::viewed();
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
    use buddyscope::stats::Stats;

    #[test]
    fn values_are_the_engine_stats_and_every_row_explains_itself() {
        let mut t = timeline("free-contig-range-thp");
        let start = view_model(&t);
        assert!(start.rows.iter().all(|r| r.help.len() > 20), "{start:?}");
        let n = t.len();
        t.seek(n);
        let end = view_model(&t);
        let z = &t.run.final_zone;
        for (d, v) in z.stats().iter() {
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
}
