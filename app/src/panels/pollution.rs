//! Mixed pageblocks at the cursor: each pageblock holding pages of another migratetype than
//! its own (after `__rmqueue_steal`, which leaves the block's type alone), by how many pages of
//! which type, and who holds the allocated ones (the op, or a replay's task, gfp and order).
//! The engine counts ([`mixed_pageblocks`], [`polluters`]: what `buddyscope run --format
//! mixed_pageblocks|polluters` prints); this module only lays them out.
//!
//! [`mixed_pageblocks`]: buddyscope::explain::pollution::mixed_pageblocks
//! [`polluters`]: buddyscope::explain::pollution::polluters

use buddyscope::{
    explain::pollution::{mixed_pageblocks, polluters, Polluter},
    replay::TracedAllocs,
    MigrateType, Timeline,
};
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::shell::View;

/// One mixed pageblock on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRow {
    /// "Normal 15" (zone and pageblock index), its first pfn and its type.
    pub block: String,
    pub pfn: String,
    pub mt: &'static str,
    /// "Unmovable 5 allocated, 25 free", one per foreign type.
    pub foreign: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PollutionModel {
    pub blocks: Vec<BlockRow>,
    pub polluters: Vec<Polluter>,
}

/// The mixed pageblocks of the state at `t`'s cursor and their polluters.
pub fn view_model(t: &Timeline, traced: Option<&TracedAllocs>) -> PollutionModel {
    let blocks = mixed_pageblocks(&t.run, t.node())
        .into_iter()
        .map(|b| BlockRow {
            block: format!("{} {}", b.zone, b.pageblock),
            pfn: format!("{:#x}", b.start_pfn),
            mt: b.mt.kernel_name(),
            foreign: MigrateType::ALL
                .iter()
                .filter(|m| b.allocated[m.idx()] + b.free[m.idx()] > 0)
                .map(|m| {
                    format!(
                        "{} {} allocated, {} free",
                        m.kernel_name(),
                        b.allocated[m.idx()],
                        b.free[m.idx()]
                    )
                })
                .collect(),
        })
        .collect();
    PollutionModel {
        blocks,
        polluters: polluters(&t.run, t.node(), traced),
    }
}

#[component]
pub fn PollutionPanel() -> impl IntoView {
    let view = View::here();
    let model = Memo::new(move |_| {
        view.with(|s| view_model(&s.timeline, s.replay.as_ref().map(|r| &r.allocs)))
    });
    let sub = Signal::derive(move || {
        model
            .get()
            .map(|m| format!("{} mixed", m.blocks.len()))
            .unwrap_or_default()
    });
    let body = move || {
        let m = model.get()?;
        if m.blocks.is_empty() {
            return Some(
                view! {
                    <p class="history-empty" data-testid="mixed-empty">
                        "No pageblock holds pages of another migratetype at the cursor."
                    </p>
                }
                .into_any(),
            );
        }
        let blocks = m
            .blocks
            .into_iter()
            .map(|b| {
                view! {
                    <tr data-testid="mixed-block">
                        <td>{b.block}</td>
                        <td class="mono">{b.pfn}</td>
                        <td>{b.mt}</td>
                        <td>{b.foreign.join("; ")}</td>
                    </tr>
                }
            })
            .collect_view();
        let holders = m
            .polluters
            .into_iter()
            .map(|p| {
                view! {
                    <tr data-testid="polluter">
                        <td class="num">{p.pages}</td>
                        <td class="num">{p.blocks}</td>
                        <td>{p.page_mt.kernel_name()}</td>
                        <td>{p.block_mt.kernel_name()}</td>
                        <td class="mono">{p.holder}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(
            view! {
                <div class="table-scroll">
                    <table class="pollution-table" data-testid="mixed-blocks">
                        <caption>"Mixed pageblocks"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"pageblock"</th>
                                <th scope="col">"pfn"</th>
                                <th scope="col">"type"</th>
                                <th scope="col">"pages of another type"</th>
                            </tr>
                        </thead>
                        <tbody>{blocks}</tbody>
                    </table>
                </div>
                <div class="table-scroll">
                    <table class="pollution-table" data-testid="polluters">
                        <caption>"Who holds them (allocated pages)"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"pages"</th>
                                <th scope="col">"blocks"</th>
                                <th scope="col">"page type"</th>
                                <th scope="col">"in blocks"</th>
                                <th scope="col">"holder"</th>
                            </tr>
                        </thead>
                        <tbody>{holders}</tbody>
                    </table>
                </div>
            }
            .into_any(),
        )
    };
    view! {
        <PanelFrame
            key="pollution"
            title="Mixed pageblocks"
            testid="pollution"
            sub=sub
            help="Pageblocks holding pages of another migratetype at the cursor (a steal leaves the block's type as it was), and who holds those pages: buddyscope run --format mixed_pageblocks and --format polluters."
        >
            <div aria-live="polite">{body}</div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    /// fallback-steal: none before the first op, at the end one Movable block holding the 30
    /// stolen Unmovable pages, and the holders the engine names.
    #[test]
    fn the_rows_are_the_engines() {
        let mut t = timeline("fallback-steal");
        assert!(view_model(&t, None).blocks.is_empty());
        let end = t.len();
        t.seek(end);
        let m = view_model(&t, None);
        let e = mixed_pageblocks(&t.run, t.node());
        assert_eq!(m.blocks.len(), e.len());
        assert_eq!(m.blocks[0].mt, "Movable");
        assert_eq!(m.blocks[0].pfn, format!("{:#x}", e[0].start_pfn));
        assert_eq!(
            m.blocks[0].foreign,
            vec![format!(
                "Unmovable {} allocated, {} free",
                e[0].allocated[0], e[0].free[0]
            )]
        );
        assert_eq!(e[0].allocated[0] + e[0].free[0], 30);
        assert_eq!(m.polluters, polluters(&t.run, t.node(), None));
        assert_eq!(m.polluters[0].holder, "alloc order 0 unmovable");
    }
}
