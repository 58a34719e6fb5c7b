//! The zone's `free_area[]`: a table of orders 0..=10 × migratetypes, each cell the length of
//! `free_area[order].free_list[mt]` and its first blocks (absolute pfn), plus `nr_free` per
//! order exactly as /proc/buddyinfo prints it. Lists the current event touched are highlighted.

use buddyscope::mm::Mutation;
use buddyscope::mm::{MigrateType, NR_PAGE_ORDERS};
use buddyscope::run::Timeline;
use leptos::prelude::*;

use super::frame::PanelFrame;
use super::mt_short;
use crate::model::Command;
use crate::shell::View;

/// Chips shown per list.
const CHIPS: usize = 3;

/// What the current event did to a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListMark {
    Add,
    Del,
}

/// One `free_area[order].free_list[mt]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListCell {
    pub count: u32,
    /// Absolute pfns of the first [`CHIPS`] blocks, list order.
    pub chips: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FreeListsModel {
    /// The migratetype columns: the kernel's set for this zone (CMA only with CMA configured).
    pub types: Vec<MigrateType>,
    /// `[order][mt.idx()]`, all six types.
    pub cells: Vec<Vec<ListCell>>,
    pub nr_free: [u64; NR_PAGE_ORDERS],
    /// Pages in free blocks (`Σ nr_free[o] << o`).
    pub free_pages: u64,
    /// The lists the current event touched.
    pub touched: Vec<(u8, MigrateType, ListMark)>,
}

impl FreeListsModel {
    pub fn mark(&self, order: usize, mt: MigrateType) -> Option<ListMark> {
        self.touched
            .iter()
            .find(|t| t.0 as usize == order && t.1 == mt)
            .map(|t| t.2)
    }
}

pub fn view_model(t: &Timeline) -> FreeListsModel {
    let z = t.zone();
    let cells = (0..NR_PAGE_ORDERS)
        .map(|o| {
            MigrateType::ALL
                .iter()
                .map(|&mt| {
                    let l = z.free_list(o as u8, mt);
                    ListCell {
                        count: l.len,
                        chips: z.list_iter(l).take(CHIPS).map(|p| z.abs_pfn(p)).collect(),
                    }
                })
                .collect()
        })
        .collect();
    let touched = match t.current().and_then(|e| e.kind().mutation()) {
        Some(Mutation::FreeListAdd { order, mt, .. }) => vec![(order, mt, ListMark::Add)],
        Some(Mutation::FreeListDel { order, mt, .. }) => vec![(order, mt, ListMark::Del)],
        Some(Mutation::FreeListMove {
            order, from, to, ..
        }) => vec![(order, from, ListMark::Del), (order, to, ListMark::Add)],
        _ => Vec::new(),
    };
    FreeListsModel {
        types: MigrateType::kernel_types(z.cfg().cma),
        cells,
        nr_free: *z.nr_free(),
        free_pages: z.nr_free().iter().enumerate().map(|(o, n)| n << o).sum(),
        touched,
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
pub fn FreeListsPanel() -> impl IntoView {
    let view = View::here();
    let model = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    // In exercise mode a click on a list (or Enter on a focused cell) answers a "which free
    // list" question.
    let ui = view.shell.ui;
    let answering = Memo::new(move |_| {
        ui.exercise.with(|x| x.asking) == Some(buddyscope::explain::exercises::AnswerKind::List)
    });
    let types = Memo::new(move |_| model.with(|m| m.types.clone()));
    let nr_free = Memo::new(move |_| model.with(|m| m.nr_free));

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
                        // Each cell is its own memo: a move re-renders (and writes to the DOM)
                        // only the cells whose list or mark changed.
                        let cell = Memo::new(move |_| model.with(|s| s.cells.get(o).map(|r| r[m].clone()).unwrap_or_default()));
                        let marked = Memo::new(move |_| model.with(|s| s.mark(o, mt)));
                        let count = move || cell.with(|c| c.count);
                        let chips = move || cell.with(|c| c.chips.clone());
                        let mark = move || marked.get();
                        let pick = move || view.dispatch(Command::ClickList { order: o as u8, mt });
                        let picked = move || {
                            answering.get()
                                && ui.exercise.with(|x| x.pending)
                                    == Some(buddyscope::explain::exercises::Answer::List { order: o as u8, mt })
                        };
                        view! {
                            <td
                                class="fl-cell"
                                class:answering=move || answering.get()
                                class:picked=picked
                                tabindex=move || answering.get().then_some("0")
                                aria-current=move || (answering.get() && picked()).then_some("true")
                                on:click=move |_| pick()
                                on:keydown=move |ev: web_sys::KeyboardEvent| {
                                    if answering.get_untracked() && matches!(ev.key().as_str(), "Enter" | " ") {
                                        ev.prevent_default();
                                        pick();
                                    }
                                }
                                class:zero=move || count() == 0
                                class:hl-add=move || mark() == Some(ListMark::Add)
                                class:hl-del=move || mark() == Some(ListMark::Del)
                                title=format!("free_area[{o}].free_list[MIGRATE_{}]", mt.kernel_name().to_ascii_uppercase())
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
                            {move || nr_free.with(|n| n[o])}
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
        <PanelFrame
            key="freelists"
            title="Free lists"
            sub=Signal::derive(move || format!("{} pages free", model.with(|m| m.free_pages)))
            help="zone\u{2192}free_area[order].free_list[type]: blocks on each list; chips show the first blocks (pfn). nr_free is the /proc/buddyinfo column."
        >
            <div class="table-wrap">{table}</div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    #[test]
    fn cells_are_the_engine_lists_and_the_current_event_is_marked() {
        let mut t = timeline("fallback-claim");
        let (mut adds, mut dels) = (0, 0);
        while t.pos() < t.len() {
            t.step_forward();
            let m = view_model(&t);
            let z = t.zone();
            for o in 0..NR_PAGE_ORDERS {
                let sum: u64 = m.cells[o].iter().map(|c| c.count as u64).sum();
                assert_eq!(sum, z.nr_free()[o], "order {o} at {}", t.pos());
                for mt in MigrateType::ALL {
                    let cell = &m.cells[o][mt.idx()];
                    assert_eq!(cell.count, z.free_list(o as u8, mt).len);
                    assert!(cell.chips.len() <= CHIPS && cell.chips.len() <= cell.count as usize);
                }
            }
            match t.current().and_then(|e| e.kind().mutation()) {
                Some(Mutation::FreeListAdd { order, mt, .. }) => {
                    adds += 1;
                    assert_eq!(m.mark(order as usize, mt), Some(ListMark::Add));
                    assert!(m.cells[order as usize][mt.idx()].count > 0);
                }
                Some(Mutation::FreeListDel { order, mt, .. }) => {
                    dels += 1;
                    assert_eq!(m.mark(order as usize, mt), Some(ListMark::Del));
                }
                Some(Mutation::FreeListMove { .. }) => assert_eq!(m.touched.len(), 2),
                _ => assert!(m.touched.is_empty()),
            }
        }
        assert!(adds > 0 && dels > 0);
        let m = view_model(&t);
        let buddyinfo: u64 = t
            .run
            .final_node
            .active()
            .nr_free()
            .iter()
            .enumerate()
            .map(|(o, n)| n << o)
            .sum();
        assert_eq!(m.free_pages, buddyinfo);
    }

    #[test]
    fn columns_are_the_kernel_types() {
        let t = timeline("cma-frozen-range");
        let m = view_model(&t);
        assert_eq!(m.types, MigrateType::kernel_types(t.zone().cfg().cma));
        assert_eq!(m.types.contains(&MigrateType::Cma), t.zone().cfg().cma);
        assert_eq!(m.types.last(), Some(&MigrateType::Isolate));
    }
}
