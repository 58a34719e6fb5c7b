//! Page history: click a page on the memory map and this panel lists every operation and event
//! that named it — the block it was part of, the list that block entered or left
//! (`free_area[order].free_list[mt]` or a CPU's pcp list) and who held the page — each a
//! button that moves the cursor there. The engine computes it ([`page_history`], one
//! pass over the log); this module only groups and words it.
//!
//! The keyboard way in is the pfn field: type a page's pfn (hex `0x…` or decimal) instead of
//! clicking the map.
//!
//! [`page_history`]: buddyscope::run::page_history

use buddyscope::explain::mixing::{pageblock_mixing, PageblockMixing};
use buddyscope::mm::PAGEBLOCK_NR_PAGES;
use buddyscope::{
    narrate,
    run::{page_history, ListChange, PageHistoryEntry},
    Ctx, Timeline, Zone,
};
use leptos::prelude::*;

use super::frame::PanelFrame;
use super::pfnpicker::PfnPicker;
use super::{op_label, pfn_hex};
use crate::model::Command;
use crate::shell::View;

/// Events listed at most (a page inside a huge contiguous range can be named many times).
pub const MAX_ROWS: usize = 400;

/// One event row.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    /// The position that shows the event (`event + 1`).
    pub pos: u32,
    /// The engine's narration of the event.
    pub line: String,
    /// `order-N block at 0x…` or `N pages from 0x…`.
    pub block: String,
    /// `enters free_area[…]…` / `leaves …`, if the event moved the block between lists.
    pub list: Option<String>,
    /// Who held the page after the event.
    pub owner: String,
    /// The cursor is exactly here.
    pub current: bool,
}

/// One op that touched the page, with its events.
#[derive(Clone, Debug, PartialEq)]
pub struct OpGroup {
    /// `op k: summary`, or "outside any op".
    pub label: String,
    /// The position after the op (its end), to seek to.
    pub end: Option<u32>,
    pub events: Vec<EventRow>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryModel {
    /// `pfn 0x…` of the selected page; empty when none is selected.
    pub pfn: String,
    pub groups: Vec<OpGroup>,
    /// Events that named the page (before the [`MAX_ROWS`] cut).
    pub total: usize,
}

fn block_words(t: &Timeline, e: &PageHistoryEntry) -> String {
    let z = t.zone();
    let (start, n) = e.block;
    match e.order() {
        Some(o) => format!("order-{o} block at {}", pfn_hex(z, start)),
        None => format!("{n} pages from {}", pfn_hex(z, start)),
    }
}

/// The history of zone page `idx` in the run of `t`, grouped by op, marking the cursor.
pub fn view_model(t: &Timeline, idx: u32) -> HistoryModel {
    let run = &t.run;
    if idx >= run.initial.active().pages() {
        return HistoryModel::default();
    }
    let entries = page_history(run, idx);
    let ctx = Ctx::of(run.initial.active());
    let mut groups: Vec<OpGroup> = Vec::new();
    let mut last_op = None;
    for e in entries.iter().take(MAX_ROWS) {
        if groups.is_empty() || e.op != last_op {
            last_op = e.op;
            groups.push(OpGroup {
                label: match e.op {
                    Some(i) => format!("op {}: {}", i + 1, op_label(run, i as usize)),
                    None => "outside any op".to_string(),
                },
                end: e.op.map(|i| run.ops[i as usize].end),
                events: Vec::new(),
            });
        }
        let ev = &run.log.events[e.event as usize];
        let row = EventRow {
            pos: e.event + 1,
            line: narrate(&ctx, &run.log, ev),
            block: block_words(t, e),
            list: e.list.map(|(l, c)| match c {
                ListChange::Enter => format!("enters {l}"),
                ListChange::Leave => format!("leaves {l}"),
            }),
            owner: match e.owner {
                Some(o) => format!("held by {}", run.owner_label(o)),
                None => "free (no owner)".to_string(),
            },
            current: t.pos() == e.event + 1,
        };
        groups.last_mut().expect("pushed above").events.push(row);
    }
    HistoryModel {
        pfn: format!("pfn {}", pfn_hex(t.zone(), idx)),
        groups,
        total: entries.len(),
    }
}

/// Why the selected page's pageblock is mixed at the cursor: the steal or claim behind each
/// group of its foreign pages, each one click from the event.
#[derive(Clone, Debug, PartialEq)]
pub struct MixingModel {
    /// "pageblock 15 (Movable) holds 30 pages of another type" and, when the page is one of
    /// them, what it is.
    pub headline: String,
    pub causes: Vec<CauseRow>,
}

/// One steal or claim (or the start state) behind some of the foreign pages.
#[derive(Clone, Debug, PartialEq)]
pub struct CauseRow {
    /// The engine's words for it.
    pub words: String,
    /// Foreign pages it accounts for at the cursor.
    pub pages: u32,
    /// The position that shows its event (`event + 1`).
    pub pos: Option<u32>,
    /// The op holding it.
    pub op: Option<String>,
    /// The selected page is one of them.
    pub this_page: bool,
}

/// The node index of the zone `t` shows (its zone tab, else the zone being worked on).
pub fn shown_zone(t: &Timeline) -> usize {
    t.view_zone().unwrap_or_else(|| t.node().active_index())
}

/// The mixing of the pageblock holding zone page `idx` of the zone `t` shows, over the run.
pub fn block_mixing(t: &Timeline, idx: u32) -> PageblockMixing {
    pageblock_mixing(&t.run, shown_zone(t), idx / PAGEBLOCK_NR_PAGES)
}

/// What [`block_mixing`] says at the cursor: `None` when the pageblock holds no page of another
/// type there.
pub fn mixing_model(t: &Timeline, m: &PageblockMixing, idx: u32) -> Option<MixingModel> {
    let pos = t.pos();
    let causes = m.causes_at(pos);
    if causes.is_empty() {
        return None;
    }
    let n: u32 = causes.iter().map(|c| c.1).sum();
    let mine = m.page_at(idx, pos);
    let block_mt = causes[0].0.block_mt.kernel_name();
    let mut headline = format!(
        "Pageblock {} ({block_mt}) holds {n} page(s) of another migratetype here.",
        m.pb
    );
    if let Some(s) = mine {
        headline.push_str(&format!(
            " This page is one: {} in a {block_mt} pageblock.",
            s.mt.kernel_name()
        ));
    }
    let rows = causes
        .into_iter()
        .map(|(c, pages)| CauseRow {
            words: c.words(),
            pages,
            pos: c.event.map(|e| e + 1),
            op: c
                .op
                .map(|i| format!("op {}: {}", i + 1, op_label(&t.run, i as usize))),
            this_page: mine.is_some_and(|s| std::ptr::eq(&m.causes[s.cause], c)),
        })
        .collect();
    Some(MixingModel {
        headline,
        causes: rows,
    })
}

/// The zone page of a typed pfn: `0x…` is hex, anything else decimal; it must lie in the zone.
pub fn parse_pfn(text: &str, z: &Zone) -> Result<u32, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    let pfn =
        parsed.map_err(|_| format!("\u{201c}{t}\u{201d} is not a pfn (e.g. 0x1200 or 4608)"))?;
    let start = z.cfg().start_pfn;
    let end = start + u64::from(z.pages());
    if pfn < start || pfn >= end {
        return Err(format!(
            "pfn {pfn:#x} is outside the zone ({start:#x}\u{2013}{:#x})",
            end - 1
        ));
    }
    Ok(z.zone_pfn(pfn))
}

#[component]
pub fn PageHistoryPanel() -> impl IntoView {
    let view = View::here();
    // The history depends on the run and the page, not the cursor: recompute only then.
    let run_key = Memo::new(move |_| view.shell.run_id(view.slot));
    let model = Memo::new(move |_| {
        let _ = run_key.get();
        let idx = view.shell.ui.selected_page.get()?;
        view.untracked(|s| view_model(&s.timeline, idx))
    });
    let pos = Memo::new(move |_| view.with(|s| s.timeline.pos()).unwrap_or(0));
    // Why the page's pageblock is mixed: one pass over the log per run and page (and zone
    // tab); the rows at the cursor from it.
    // Changes with the zone tab only (read on every step, but a memo notifies on change).
    let zone = Memo::new(move |_| view.with(|s| shown_zone(&s.timeline)));
    let mixing = Memo::new(move |_| {
        let _ = run_key.get();
        let idx = view.shell.ui.selected_page.get()?;
        let zone = zone.get()?;
        view.untracked(|s| (zone, idx, block_mixing(&s.timeline, idx)))
    });
    let why = Memo::new(move |_| {
        let _ = pos.get();
        mixing.with(|m| {
            let (_, idx, m) = m.as_ref()?;
            view.untracked(|s| mixing_model(&s.timeline, m, *idx))
                .flatten()
        })
    });
    let why_view = move || {
        let m = why.get()?;
        Some(view! {
            <div class="history-mixing" data-testid="page-history-mixing">
                <p data-testid="page-history-mixing-headline">{m.headline}</p>
                <ul>
                    {m
                        .causes
                        .into_iter()
                        .map(|c| {
                            let p = c.pos;
                            view! {
                                <li data-testid="page-history-mix-cause" class:current=c.this_page>
                                    <button
                                        type="button"
                                        class="history-link"
                                        data-testid="page-history-mix-event"
                                        data-pos=p.map(|p| p.to_string())
                                        disabled=p.is_none()
                                        title="Go to the event that put these pages here"
                                        on:click=move |_| {
                                            if let Some(p) = p {
                                                view.dispatch(Command::Seek(p));
                                            }
                                        }
                                    >
                                        {p.map(|p| format!("@{p} ")).unwrap_or_default()}
                                        {c.words}
                                    </button>
                                    <span class="history-facts">
                                        {format!(" \u{b7} {} page(s)", c.pages)}
                                        {c.op.map(|o| format!(" \u{b7} {o}"))}
                                        {c.this_page.then_some(" \u{b7} this page")}
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </div>
        })
    };
    let sub = Signal::derive(move || {
        model.with(|m| match m {
            Some(m) => format!("{}: {} event(s)", m.pfn, m.total),
            None => String::new(),
        })
    });

    let body = move || match model.get() {
        None => view! {
            <p class="history-empty" data-testid="page-history-empty">
                "Click a page on the memory map to list the operations and events that touched it."
            </p>
        }
        .into_any(),
        Some(m) if m.groups.is_empty() => view! {
            <p class="history-empty" data-testid="page-history-empty">
                {format!("No recorded event named {}: it stayed as it started.", m.pfn)}
            </p>
        }
        .into_any(),
        Some(m) => {
            let more = (m.total > MAX_ROWS)
                .then(|| format!("\u{2026} and {} more event(s)", m.total - MAX_ROWS));
            view! {
                <ol class="history-ops">
                    {m
                        .groups
                        .into_iter()
                        .map(|g| {
                            let end = g.end;
                            view! {
                                <li class="history-op" data-testid="page-history-op">
                                    <button
                                        type="button"
                                        class="history-op-link"
                                        disabled=end.is_none()
                                        title="Go to the end of this operation"
                                        on:click=move |_| {
                                            if let Some(e) = end {
                                                view.dispatch(Command::Seek(e));
                                            }
                                        }
                                    >
                                        {g.label}
                                    </button>
                                    <ol class="history-events">
                                        {g
                                            .events
                                            .into_iter()
                                            .map(|r| {
                                                let p = r.pos;
                                                view! {
                                                    <li
                                                        class="history-event"
                                                        class:current=move || pos.get() == p
                                                    >
                                                        <button
                                                            type="button"
                                                            class="history-link"
                                                            data-testid="page-history-event"
                                                            data-pos=p.to_string()
                                                            title=format!("Go to event {p}")
                                                            on:click=move |_| {
                                                                view.dispatch(Command::Seek(p));
                                                            }
                                                        >
                                                            <span class="history-pos">{format!("@{p}")}</span>
                                                            <span class="history-line">{r.line}</span>
                                                        </button>
                                                        <span class="history-facts">
                                                            {r.block}
                                                            {r.list.map(|l| format!(" \u{b7} {l}"))}
                                                            {format!(" \u{b7} {}", r.owner)}
                                                        </span>
                                                    </li>
                                                }
                                            })
                                            .collect_view()}
                                    </ol>
                                </li>
                            }
                        })
                        .collect_view()}
                </ol>
                {more.map(|t| view! { <p class="history-more">{t}</p> })}
            }
            .into_any()
        }
    };

    let pick_error = RwSignal::new(None::<String>);
    // A typed pfn's error is about that text: another page picked (a map click, an exercise's
    // answer) or another run clears it.
    Effect::new(move |_| {
        view.shell.ui.selected_page.track();
        run_key.track();
        pick_error.set(None);
    });
    let pick = Callback::new(move |text: String| {
        match view.untracked(|s| parse_pfn(&text, s.timeline.zone())) {
            Some(Ok(idx)) => {
                view.dispatch(Command::SelectPage(Some(idx)));
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Ok(()),
        }
    });

    view! {
        <PanelFrame
            key="history"
            title="Page history"
            testid="page-history"
            sub=sub
            help="Every event that named the clicked (or typed) page, by operation: the block it was part of, the list it entered or left, who held it. Click one to go there. When its pageblock holds pages of another migratetype, the steal or claim that put them there comes first."
        >
            <PfnPicker prefix="page-history" button="Show" pick=pick error=pick_error/>
            {why_view}
            <div class="history-body">{body}</div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    /// fallback-steal, the stolen page at pfn 0x1fc5: nothing before the steals; at the end
    /// its pageblock 15 (Movable) holds the 30 stolen Unmovable pages, each put there by its
    /// own steal (an order-0 request taking a block off the Movable list), and this page's is
    /// the sixth, whose button seeks to its `mm_page_alloc_extfrag`.
    #[test]
    fn why_the_pageblock_is_mixed() {
        let mut t = timeline("fallback-steal");
        let idx = t.zone().zone_pfn(0x1fc5);
        let m = block_mixing(&t, idx);
        assert_eq!(m.pb, 15);
        assert_eq!(mixing_model(&t, &m, idx), None);
        let n = t.len();
        t.seek(n);
        let w = mixing_model(&t, &m, idx).unwrap();
        assert_eq!(
            w.headline,
            "Pageblock 15 (Movable) holds 30 page(s) of another migratetype here. This page is one: Unmovable in a Movable pageblock."
        );
        assert_eq!(w.causes.len(), 30);
        assert!(w.causes.iter().all(|c| c.pages == 1));
        let mine: Vec<usize> = (0..30).filter(|&i| w.causes[i].this_page).collect();
        assert_eq!(mine, [5]);
        let c = &w.causes[5];
        assert!(c.words.starts_with("steal: an order-0 Unmovable allocation took an order-0 block off the Movable free list"), "{}", c.words);
        assert_eq!(c.pos, m.causes[5].event.map(|e| e + 1));
        // A page of the block that is not foreign is told only about the block.
        let other = t.zone().zone_pfn(0x1e00);
        let w = mixing_model(&t, &m, other).unwrap();
        assert!(w.headline.ends_with("here."), "{}", w.headline);
        assert!(w.causes.iter().all(|c| !c.this_page));
    }

    /// The groups are the engine's entries, in order, split at op changes; the rows' positions
    /// seek to the events; the current row follows the cursor.
    #[test]
    fn groups_follow_the_engine_entries() {
        let mut t = timeline("fallback-claim");
        let n = t.len();
        t.seek(n);
        // A page some op allocated: the first page of the first op's block.
        let idx = t
            .run
            .log
            .events
            .iter()
            .find_map(|e| match e.kind().mutation() {
                Some(buddyscope::Mutation::PrepNewPage { pfn, .. }) => Some(pfn),
                _ => None,
            })
            .expect("an allocation");
        let entries = page_history(&t.run, idx);
        let m = view_model(&t, idx);
        assert_eq!(m.total, entries.len());
        assert_eq!(m.pfn, format!("pfn {}", pfn_hex(t.zone(), idx)));
        let rows: Vec<&EventRow> = m.groups.iter().flat_map(|g| &g.events).collect();
        assert_eq!(rows.len(), entries.len().min(MAX_ROWS));
        for (r, e) in rows.iter().zip(&entries) {
            assert_eq!(r.pos, e.event + 1);
        }
        for w in m.groups.windows(2) {
            assert_ne!(
                w[0].label, w[1].label,
                "consecutive groups are different ops"
            );
        }
        assert!(m.groups[0].label.starts_with("op 1: "), "{:?}", m.groups[0]);
        assert!(rows
            .iter()
            .any(|r| r.owner.starts_with("held by alloc order 10")));
        assert!(rows.iter().any(|r| r
            .list
            .as_deref()
            .is_some_and(|l| l.starts_with("leaves free_area["))));
        assert!(rows.iter().all(|r| !r.current));
        t.seek(rows[0].pos);
        let m = view_model(&t, idx);
        assert!(m.groups[0].events[0].current);
        assert_eq!(view_model(&t, t.zone().pages()), HistoryModel::default());
    }

    #[test]
    fn a_typed_pfn_names_a_zone_page() {
        let t = timeline("fallback-claim");
        let z = t.zone();
        let start = z.cfg().start_pfn;
        assert_eq!(parse_pfn(&format!("{:#x}", start + 5), z), Ok(5));
        assert_eq!(parse_pfn(&format!(" {} ", start + 7), z), Ok(7));
        let last = start + u64::from(z.pages()) - 1;
        assert_eq!(parse_pfn(&format!("0X{last:X}"), z), Ok(z.pages() - 1));
        assert!(parse_pfn(&format!("{:#x}", last + 1), z)
            .unwrap_err()
            .contains("outside the zone"));
        assert!(parse_pfn("page 3", z).unwrap_err().contains("is not a pfn"));
    }
}
