//! The fallback matrix: how often an allocation of one migratetype took pages from another's
//! free lists, from-type × to-type, each cell split into claims (`__rmqueue_claim` re-typed
//! the pageblock) and steals (`__rmqueue_steal`), over an order range and an event range of the
//! run or replay. A cell lists its events; each seeks the run to it. The engine counts
//! ([`fallback_matrix`], what `buddyscope run --format fallback_matrix` prints); this module
//! only lays the numbers out.
//!
//! [`fallback_matrix`]: buddyscope::explain::fallback::fallback_matrix

use buddyscope::explain::fallback::{fallback_matrix, FallbackMatrix, MatrixFilter};
use buddyscope::run::Timeline;
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::model::Command;
use crate::shell::View;

/// One cell on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct CellModel {
    /// Kernel names of the from-type (whose free list gave the pages) and the to-type (the
    /// allocation's).
    pub from: &'static str,
    pub to: &'static str,
    pub claims: u32,
    pub steals: u32,
}

/// One fallback of a picked cell.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    /// The timeline position that shows it (`event + 1`).
    pub pos: u32,
    /// "op 4 · event 37" (a replay's untraced context has no op).
    pub at: String,
    pub order: String,
    pub pfn: String,
    pub claim: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FallbackModel {
    /// The migratetypes' kernel names, in the kernel's order.
    pub types: Vec<&'static str>,
    /// Their short headings (the free lists' columns), so the table fits a narrow screen.
    pub short: Vec<&'static str>,
    /// `rows[from][to]`.
    pub rows: Vec<Vec<CellModel>>,
    /// The header line the CLI prints over the table.
    pub summary: String,
    matrix: FallbackMatrix,
}

impl FallbackModel {
    /// The events of cell `from` × `to`, in log order.
    pub fn events(&self, from: usize, to: usize) -> Vec<EventRow> {
        let Some(cell) = self.matrix.cells.get(from).and_then(|r| r.get(to)) else {
            return Vec::new();
        };
        cell.events
            .iter()
            .map(|e| EventRow {
                pos: e.event + 1,
                at: match e.op {
                    Some(op) => format!("op {} \u{b7} event {}", op + 1, e.event),
                    None => format!("event {}", e.event),
                },
                order: if e.fallback_order == e.alloc_order {
                    format!("order {}", e.alloc_order)
                } else {
                    format!(
                        "order {} from an order-{} block",
                        e.alloc_order, e.fallback_order
                    )
                },
                pfn: format!("pfn {:#x} ({})", e.pfn, e.zone),
                claim: e.claim,
            })
            .collect()
    }
}

/// The matrix of `t`'s run under the CLI's `--orders` / `--events` texts (blank: all).
pub fn view_model(t: &Timeline, orders: &str, events: &str) -> Result<FallbackModel, String> {
    let f = MatrixFilter::parse(&t.run, Some(orders), Some(events))?;
    let m = fallback_matrix(&t.run, f);
    let types: Vec<&'static str> = m.types.iter().map(|t| t.kernel_name()).collect();
    let short = m.types.iter().map(|&t| super::mt_short(t)).collect();
    let rows = m
        .cells
        .iter()
        .enumerate()
        .map(|(f, row)| {
            row.iter()
                .enumerate()
                .map(|(to, c)| CellModel {
                    from: types[f],
                    to: types[to],
                    claims: c.claims,
                    steals: c.steals,
                })
                .collect()
        })
        .collect();
    let summary = buddyscope::explain::fallback::text(&m)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    Ok(FallbackModel {
        types,
        short,
        rows,
        summary,
        matrix: m,
    })
}

#[component]
pub fn FallbackMatrixPanel() -> impl IntoView {
    let view = View::here();
    // The matrix depends on the run and the filters, not the cursor.
    let run_key = Memo::new(move |_| view.shell.run_id(view.slot));
    let orders = RwSignal::new(String::new());
    let events = RwSignal::new(String::new());
    // The filters in force (set on Apply) and the typed ones.
    let applied = RwSignal::new((String::new(), String::new()));
    let picked = RwSignal::new(None::<(usize, usize)>);
    Effect::new(move |_| {
        run_key.track();
        picked.set(None);
    });
    let model = Memo::new(move |_| {
        let _ = run_key.get();
        let (o, e) = applied.get();
        view.untracked(|s| view_model(&s.timeline, &o, &e))
    });
    let apply = move || {
        applied.set((orders.get_untracked(), events.get_untracked()));
        picked.set(None);
    };
    let to_cursor = move |_| {
        let pos = view.untracked(|s| s.timeline.pos()).unwrap_or(0);
        let text = if pos == 0 {
            "0-0".to_string()
        } else {
            format!("0-{}", pos - 1)
        };
        events.set(text);
        apply();
    };
    let table = move || match model.get() {
        None => ().into_any(),
        Some(Err(e)) => view! {
            <p class="whereis-error" role="alert" data-testid="fallback-error">{e}</p>
        }
        .into_any(),
        Some(Ok(m)) => {
            let head = m
                .types
                .iter()
                .zip(&m.short)
                .map(|(t, s)| view! { <th scope="col"><abbr title=*t>{*s}</abbr></th> })
                .collect_view();
            let rows = m
                .rows
                .iter()
                .enumerate()
                .map(|(f, row)| {
                    let cells = row
                        .iter()
                        .enumerate()
                        .map(|(to, c)| {
                            let (claims, steals) = (c.claims, c.steals);
                            let label = format!(
                                "{} to {}: {claims} claims, {steals} steals",
                                c.from, c.to
                            );
                            let empty = claims + steals == 0;
                            view! {
                                <td class:fallback-zero=empty>
                                    <button
                                        type="button"
                                        class="fallback-cell"
                                        data-testid=format!("fallback-cell-{}-{}", c.from, c.to)
                                        data-claims=claims.to_string()
                                        data-steals=steals.to_string()
                                        aria-label=label
                                        aria-pressed=move || (picked.get() == Some((f, to))).to_string()
                                        disabled=empty
                                        on:click=move |_| picked.set(Some((f, to)))
                                    >
                                        <span class="fallback-claims">{claims}</span>
                                        "/"
                                        <span class="fallback-steals">{steals}</span>
                                    </button>
                                </td>
                            }
                        })
                        .collect_view();
                    view! {
                        <tr>
                            <th scope="row"><abbr title=m.types[f]>{m.short[f]}</abbr></th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class="fallback-summary" data-testid="fallback-summary">{m.summary.clone()}</p>
                <div class="fallback-scroll">
                    <table class="fallback-table" data-testid="fallback-table">
                        <caption>"from \u{2193} (free list that gave) \u{d7} to \u{2192} (allocation's type): claims/steals"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"from \\ to"</th>
                                {head}
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }
    };
    let list = move || {
        let (f, to) = picked.get()?;
        let Some(Ok(m)) = model.get() else {
            return None;
        };
        let title = format!("{} \u{2192} {}", m.types[f], m.types[to]);
        let items = m
            .events(f, to)
            .into_iter()
            .map(|e| {
                let pos = e.pos;
                let kind = if e.claim { "claim" } else { "steal" };
                view! {
                    <li>
                        <button
                            type="button"
                            class="history-link"
                            data-testid="fallback-event"
                            data-pos=pos.to_string()
                            title=format!("Go to event {pos}")
                            on:click=move |_| {
                                view.dispatch(Command::Seek(pos));
                            }
                        >
                            {format!("{} \u{b7} {kind} \u{b7} {} \u{b7} {}", e.at, e.order, e.pfn)}
                        </button>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <h3 class="fallback-events-title" data-testid="fallback-events-title">{title}</h3>
            <ol class="fallback-events" data-testid="fallback-events">{items}</ol>
        })
    };
    view! {
        <PanelFrame
            key="fallback"
            title="Fallback matrix"
            testid="fallback-matrix"
            help="Each mm_page_alloc_extfrag: an allocation of the column's type served from the row's free list, a claim when __rmqueue_claim took the pageblock, else a steal. Filter as buddyscope run --format fallback_matrix --orders LO-HI --events FROM-TO does; click a cell for its events."
        >
            <form
                class="fallback-filter"
                on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    apply();
                }
            >
                <label>
                    "orders "
                    <input
                        type="text"
                        spellcheck="false"
                        autocomplete="off"
                        size="6"
                        data-testid="fallback-orders"
                        placeholder="0-10"
                        prop:value=move || orders.get()
                        on:input=move |ev| orders.set(event_target_value(&ev))
                    />
                </label>
                <label>
                    "events "
                    <input
                        type="text"
                        spellcheck="false"
                        autocomplete="off"
                        size="10"
                        data-testid="fallback-events-range"
                        placeholder="all"
                        prop:value=move || events.get()
                        on:input=move |ev| events.set(event_target_value(&ev))
                    />
                </label>
                <button type="submit" data-testid="fallback-apply">"Apply"</button>
                <button type="button" data-testid="fallback-to-cursor" on:click=to_cursor>
                    "Up to the cursor"
                </button>
            </form>
            <div aria-live="polite">{table}</div>
            {list}
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;
    use buddyscope::mm::MigrateType;

    /// fallback-steal: the cells are the engine's (the CLI's) counts, the Movable → Unmovable
    /// cell lists its 30 steals with their ops and pages, each seeking to the event; a filter
    /// narrows it the way `--events` does, and bad filter text is the CLI's message.
    #[test]
    fn the_cells_are_the_engines_counts() {
        let t = timeline("fallback-steal");
        let m = view_model(&t, "", "").unwrap();
        let e = fallback_matrix(&t.run, MatrixFilter::all(&t.run));
        assert_eq!(m.types.len(), e.types.len());
        for (f, row) in m.rows.iter().enumerate() {
            for (to, c) in row.iter().enumerate() {
                assert_eq!(
                    (c.claims, c.steals),
                    (e.cells[f][to].claims, e.cells[f][to].steals)
                );
            }
        }
        let (f, to) = (
            m.types.iter().position(|&x| x == "Movable").unwrap(),
            m.types.iter().position(|&x| x == "Unmovable").unwrap(),
        );
        assert_eq!((m.rows[f][to].claims, m.rows[f][to].steals), (0, 30));
        let c = e
            .cell(MigrateType::Movable, MigrateType::Unmovable)
            .unwrap();
        let rows = m.events(f, to);
        assert_eq!(rows.len(), 30);
        for (r, ev) in rows.iter().zip(&c.events) {
            assert_eq!(r.pos, ev.event + 1);
            assert!(!r.claim);
            assert_eq!(
                r.at,
                format!("op {} \u{b7} event {}", ev.op.unwrap() + 1, ev.event)
            );
            assert!(
                r.pfn.starts_with(&format!("pfn {:#x} ", ev.pfn)),
                "{}",
                r.pfn
            );
        }
        assert!(m
            .summary
            .starts_with("fallback matrix (mm_page_alloc_extfrag): 0 claims, 30 steals"));
        // Only the first steal's event.
        let first = c.events[0].event;
        let one = view_model(&t, "", &format!("{first}-{first}")).unwrap();
        assert_eq!(one.rows[f][to].steals, 1);
        assert_eq!(one.events(f, to).len(), 1);
        assert!(view_model(&t, "0-12", "")
            .unwrap_err()
            .contains("--orders 0-12: orders go from 0 to 10"));
        assert!(view_model(&t, "", "late")
            .unwrap_err()
            .contains("expected LO-HI"));
    }

    /// fallback-claim has claims: a cell with claims lists them as claims.
    #[test]
    fn claims_are_listed_as_claims() {
        let t = timeline("fallback-claim");
        let m = view_model(&t, "", "").unwrap();
        let (f, to, c) = m
            .rows
            .iter()
            .enumerate()
            .flat_map(|(f, r)| r.iter().enumerate().map(move |(to, c)| (f, to, c)))
            .find(|(_, _, c)| c.claims > 0)
            .expect("a claim");
        let rows = m.events(f, to);
        assert_eq!(rows.iter().filter(|r| r.claim).count() as u32, c.claims);
        assert_eq!(rows.len() as u32, c.claims + c.steals);
    }
}
