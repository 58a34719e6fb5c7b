//! Per-CPU page lists: for each CPU the 14 pcp lists (orders 0–3 × U/M/R, order 9 × {U+R, M})
//! with their lengths, and `count` against `high` (and `batch`) as a gauge. Refill, drain, add
//! and del events highlight the CPU and the list they touched.

use buddyscope::events::EventKind;
use buddyscope::types::{MigrateType, NR_PCP_LISTS};
use buddyscope::zone::{order_to_pindex, pindex_to_mt, pindex_to_order};
use leptos::prelude::*;

use crate::state::AppState;

#[derive(Clone, Default, PartialEq)]
struct CpuSnap {
    count: i32,
    high: i32,
    high_min: i32,
    high_max: i32,
    batch: i32,
    lists: [u32; NR_PCP_LISTS],
}

#[derive(Clone, Default, PartialEq)]
struct Snap {
    cpus: Vec<CpuSnap>,
    /// `(cpu, pindex or None for the whole CPU, class)` of the current event.
    active: Option<(usize, Option<usize>, &'static str)>,
}

const ORDERS: [u8; 5] = [0, 1, 2, 3, 9];
const TYPES: [MigrateType; 3] = [
    MigrateType::Unmovable,
    MigrateType::Movable,
    MigrateType::Reclaimable,
];

#[component]
pub fn PcpLists() -> impl IntoView {
    let state = AppState::get();
    let snap = Memo::new(move |_| {
        state
            .with(|s| {
                let z = s.timeline.zone();
                let cpus = z
                    .pcp()
                    .iter()
                    .map(|p| CpuSnap {
                        count: p.count,
                        high: p.high,
                        high_min: p.high_min,
                        high_max: p.high_max,
                        batch: p.batch,
                        lists: std::array::from_fn(|i| p.lists[i].len),
                    })
                    .collect();
                let active = match s.timeline.current().map(|e| e.kind) {
                    Some(EventKind::PcpAdd { cpu, pindex, .. }) => {
                        Some((cpu as usize, Some(pindex as usize), "add"))
                    }
                    Some(EventKind::PcpDel { cpu, pindex, .. }) => {
                        Some((cpu as usize, Some(pindex as usize), "del"))
                    }
                    Some(EventKind::PcpRefill { cpu, order, mt, .. }) => {
                        Some((cpu as usize, Some(order_to_pindex(mt, order)), "refill"))
                    }
                    Some(EventKind::PcpDrain { cpu, .. }) => Some((cpu as usize, None, "drain")),
                    _ => None,
                };
                Snap { cpus, active }
            })
            .unwrap_or_default()
    });
    let ncpu = Memo::new(move |_| snap.with(|s| s.cpus.len()));

    let card = move |cpu: usize| {
        let c = move || snap.with(|s| s.cpus.get(cpu).cloned().unwrap_or_default());
        let active = move || snap.with(|s| s.active.filter(|a| a.0 == cpu));
        let bar = move || {
            let c = c();
            let scale = c.high.max(c.count).max(c.high_max).max(1) as f64;
            format!(
                "width:{:.1}%",
                (100.0 * c.count.max(0) as f64 / scale).min(100.0)
            )
        };
        let high_mark = move || {
            let c = c();
            let scale = c.high.max(c.count).max(c.high_max).max(1) as f64;
            format!("left:{:.1}%", 100.0 * c.high as f64 / scale)
        };
        let rows = ORDERS
            .iter()
            .map(|&order| {
                let cells = TYPES
                    .iter()
                    .map(|&mt| {
                        let shared = order == 9 && mt == MigrateType::Reclaimable;
                        let pindex = order_to_pindex(mt, order);
                        debug_assert_eq!(pindex_to_order(pindex), order);
                        if shared {
                            return view! {
                                <td class="pcp-cell shared" title="order-9 unmovable and reclaimable share one list (U+R)">"\u{21a4}"</td>
                            }
                            .into_any();
                        }
                        let slug = pindex_to_mt(pindex).slug();
                        let len = move || snap.with(|s| s.cpus.get(cpu).map(|c| c.lists[pindex]).unwrap_or(0));
                        let mark = move || active().and_then(|a| (a.1 == Some(pindex)).then_some(a.2));
                        let label = if order == 9 && mt == MigrateType::Unmovable {
                            "U+R "
                        } else {
                            ""
                        };
                        view! {
                            <td
                                class="pcp-cell"
                                class:zero=move || len() == 0
                                class:hl-add=move || matches!(mark(), Some("add") | Some("refill"))
                                class:hl-del=move || mark() == Some("del")
                                title=format!("pcp->lists[{pindex}]: order {order}, {}", if label.is_empty() { pindex_to_mt(pindex).kernel_name() } else { "Unmovable + Reclaimable" })
                            >
                                <span class="pcp-tag">{label}</span>
                                <span data-testid=format!("pcp-{cpu}-{order}-{slug}")>{len}</span>
                            </td>
                        }
                        .into_any()
                    })
                    .collect_view();
                view! {
                    <tr><th scope="row">{order}</th>{cells}</tr>
                }
            })
            .collect_view();
        view! {
            <div
                class="pcp-cpu"
                data-testid=format!("pcp-cpu-{cpu}")
                class:hl-refill=move || active().is_some_and(|a| a.2 == "refill" || a.2 == "add")
                class:hl-drain=move || active().is_some_and(|a| a.2 == "drain" || a.2 == "del")
            >
                <div class="pcp-head">
                    <strong>{format!("CPU {cpu}")}</strong>
                    <span class="pcp-nums">
                        "count "<b data-testid=format!("pcp-count-{cpu}")>{move || c().count}</b>
                        " / high "<b>{move || c().high}</b>
                        " \u{b7} batch "<b>{move || c().batch}</b>
                    </span>
                    <span class="pcp-badge">{move || active().map(|a| a.2).unwrap_or("")}</span>
                </div>
                <div
                    class="gauge"
                    role="meter"
                    aria-label=format!("CPU {cpu} pcp count against high")
                    aria-valuemin="0"
                    aria-valuemax=move || c().high.max(c().count).to_string()
                    aria-valuenow=move || c().count.to_string()
                    title=move || {
                        let c = c();
                        format!("count {} pages, high {} (high_min {}, high_max {}), batch {}", c.count, c.high, c.high_min, c.high_max, c.batch)
                    }
                >
                    <div class="gauge-fill" style=bar></div>
                    <div class="gauge-high" style=high_mark></div>
                </div>
                <table class="pcp-lists">
                    <thead><tr><th scope="col">"order"</th><th scope="col">"U"</th><th scope="col">"M"</th><th scope="col">"R"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    };

    view! {
        <section class="panel pcp-panel" aria-labelledby="pcp-heading">
            <div class="panel-head">
                <h2 id="pcp-heading">"Per-CPU lists"</h2>
                <span class="panel-sub">{move || format!("{} CPU{}", ncpu.get(), if ncpu.get() == 1 { "" } else { "s" })}</span>
            </div>
            <p class="panel-help">
                "Each CPU caches small blocks on its own lists (blocks per list). The bar is count (pages) against high: above it, free_pcppages_bulk drains a batch back to the buddy."
            </p>
            <div class="pcp-cpus">
                {move || (0..ncpu.get()).map(card).collect_view()}
            </div>
        </section>
    }
}
