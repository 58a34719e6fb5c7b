//! Live cost counters at the cursor (the zone's cumulative `Stats`, plus a few zone fields).

use leptos::prelude::*;

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
        "pageblocks_touched" => "Distinct pageblocks (2 MiB regions) holding the pages the current operation obtained.",
        "nr_free_pages" => "NR_FREE_PAGES: free pages in the buddy free lists (pages on per-CPU lists are not counted).",
        "watermark_boost" => "Pages added to the watermarks after a fallback, so kswapd reclaims early and fragmentation is limited.",
        _ => "",
    }
}

/// All counter values at the cursor, in display order.
fn rows(state: AppState) -> Vec<(&'static str, i64)> {
    state
        .with(|s| {
            let t = &s.timeline;
            let z = t.zone();
            let mut v: Vec<(&'static str, i64)> =
                z.stats().iter().map(|(d, x)| (d.name, x as i64)).collect();
            let touched = if t.pos() == 0 {
                0
            } else {
                t.op_index()
                    .map(|i| t.op(i).pageblocks_touched)
                    .unwrap_or(0)
            };
            v.push(("pageblocks_touched", touched as i64));
            v.push(("nr_free_pages", z.nr_free_pages()));
            v.push(("watermark_boost", z.watermark_boost()));
            v
        })
        .unwrap_or_default()
}

#[component]
pub fn CountersPanel() -> impl IntoView {
    let state = AppState::get();
    let values = Memo::new(move |_| rows(state));
    // Values of the previous render, to mark what the last move changed.
    let before: StoredValue<Vec<(&'static str, i64)>> = StoredValue::new(Vec::new());

    view! {
        <section class="bs-panel bs-counters" data-testid="counters" aria-labelledby="bs-counters-h">
            <h2 id="bs-counters-h">"Cost counters"</h2>
            <p class="bs-muted bs-small">"Cumulative at the cursor; hover a name for what it counts."</p>
            <dl class="bs-counter-grid">
                {move || {
                    let now = values.get();
                    let old = before.get_value();
                    before.set_value(now.clone());
                    now.into_iter()
                        .map(|(name, v)| {
                            let changed = old
                                .iter()
                                .find(|(n, _)| *n == name)
                                .is_some_and(|&(_, o)| o != v);
                            let label = match name {
                                "nr_free_pages" => "NR_FREE_PAGES",
                                n => n,
                            };
                            view! {
                                <div class="bs-counter" class:bs-changed=changed title=explain(name)>
                                    <dt>{label}</dt>
                                    <dd data-testid=format!("counter-{name}")>{v}</dd>
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </dl>
        </section>
    }
}
