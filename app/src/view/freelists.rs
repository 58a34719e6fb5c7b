//! The zone's `free_area[]`: a table of orders 0..=10 × migratetypes, each cell the length of
//! `free_area[order].free_list[mt]` and its first blocks (absolute pfn), plus `nr_free` per
//! order exactly as /proc/buddyinfo prints it. Lists the current event touched are highlighted.

use buddyscope::events::EventKind;
use buddyscope::types::{MigrateType, NR_PAGE_ORDERS};
use leptos::prelude::*;

use super::{mt_short, shown_types};
use crate::state::AppState;

/// Chips shown per list.
const CHIPS: usize = 3;

#[derive(Clone, Default, PartialEq)]
struct Cell {
    count: u32,
    chips: Vec<u64>,
}

#[derive(Clone, Default, PartialEq)]
struct Snap {
    /// `[order][mt.idx()]`, all six slots.
    cells: Vec<Vec<Cell>>,
    nr_free: [u64; NR_PAGE_ORDERS],
    /// `(order, mt idx, "add" | "del")` the current event touched.
    touched: Vec<(u8, usize, &'static str)>,
}

impl Snap {
    fn mark(&self, order: usize, mt: usize) -> Option<&'static str> {
        self.touched
            .iter()
            .find(|t| t.0 as usize == order && t.1 == mt)
            .map(|t| t.2)
    }
}

fn size_label(order: usize) -> String {
    let kib = 4u64 << order;
    if kib >= 1024 {
        format!("{} MiB", kib / 1024)
    } else {
        format!("{kib} KiB")
    }
}

#[component]
pub fn FreeLists() -> impl IntoView {
    let state = AppState::get();
    let snap = Memo::new(move |_| {
        state
            .with(|s| {
                let z = s.timeline.zone();
                let cells = (0..NR_PAGE_ORDERS)
                    .map(|o| {
                        MigrateType::ALL
                            .iter()
                            .map(|&mt| {
                                let l = z.free_list(o as u8, mt);
                                Cell {
                                    count: l.len,
                                    chips: z
                                        .list_iter(l)
                                        .take(CHIPS)
                                        .map(|p| z.abs_pfn(p))
                                        .collect(),
                                }
                            })
                            .collect()
                    })
                    .collect();
                let touched = match s.timeline.current().map(|e| e.kind) {
                    Some(EventKind::FreeListAdd { order, mt, .. }) => {
                        vec![(order, mt.idx(), "add")]
                    }
                    Some(EventKind::FreeListDel { order, mt, .. }) => {
                        vec![(order, mt.idx(), "del")]
                    }
                    Some(EventKind::FreeListMove {
                        order, from, to, ..
                    }) => vec![(order, from.idx(), "del"), (order, to.idx(), "add")],
                    _ => Vec::new(),
                };
                Snap {
                    cells,
                    nr_free: *z.nr_free(),
                    touched,
                }
            })
            .unwrap_or_default()
    });
    let types = Memo::new(move |_| {
        state
            .with(|s| shown_types(s.timeline.zone()))
            .unwrap_or_default()
    });
    let total = move || {
        snap.with(|s| {
            s.nr_free
                .iter()
                .enumerate()
                .map(|(o, n)| n << o)
                .sum::<u64>()
        })
    };

    let table = move || {
        let types = types.get();
        let head = types
            .iter()
            .map(|&mt| {
                view! {
                    <th scope="col" class=format!("mt-col mt-{}", mt.slug()) title=mt.kernel_name()>
                        {mt_short(mt)}
                    </th>
                }
            })
            .collect_view();
        let rows = (0..NR_PAGE_ORDERS)
            .map(|o| {
                let cells = types
                    .iter()
                    .map(|&mt| {
                        let m = mt.idx();
                        let count = move || snap.with(|s| s.cells.get(o).map(|r| r[m].count).unwrap_or(0));
                        let chips = move || snap.with(|s| s.cells.get(o).map(|r| r[m].chips.clone()).unwrap_or_default());
                        let mark = move || snap.with(|s| s.mark(o, m));
                        view! {
                            <td
                                class="fl-cell"
                                class:zero=move || count() == 0
                                class:hl-add=move || mark() == Some("add")
                                class:hl-del=move || mark() == Some("del")
                                title=format!("free_area[{o}].free_list[MIGRATE_{}]", mt.kernel_name().to_uppercase())
                            >
                                <span class="fl-count" data-testid=format!("freelist-{o}-{}", mt.slug())>
                                    {count}
                                </span>
                                <span class="chips">
                                    <For each=chips key=|p| *p let:p>
                                        <span class="chip">{format!("{p:#x}")}</span>
                                    </For>
                                </span>
                            </td>
                        }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <th scope="row" class="fl-order">
                            <span class="ord">{o}</span>
                            <span class="ord-size">{size_label(o)}</span>
                        </th>
                        {cells}
                        <td class="fl-nr" data-testid=format!("nr-free-{o}")>
                            {move || snap.with(|s| s.nr_free[o])}
                        </td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="freelists" data-testid="freelists">
                <thead>
                    <tr>
                        <th scope="col">"order"</th>
                        {head}
                        <th scope="col" title="nr_free: blocks of this order on all lists (/proc/buddyinfo)">"nr_free"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    };

    view! {
        <section class="panel freelists-panel" aria-labelledby="fl-heading">
            <div class="panel-head">
                <h2 id="fl-heading">"Free lists"</h2>
                <span class="panel-sub">{move || format!("{} pages free", total())}</span>
            </div>
            <p class="panel-help">
                "zone\u{2192}free_area[order].free_list[type]: blocks on each list; chips show the first blocks (pfn). nr_free is the /proc/buddyinfo column."
            </p>
            <div class="table-wrap">{table}</div>
        </section>
    }
}
