//! Per-CPU page lists: for each CPU the 14 pcp lists (orders 0–3 × U/M/R, order 9 × {U+R, M})
//! with their lengths, and `count` against `high` (and `batch`) as a gauge. Refill, drain, add
//! and del events highlight the CPU and the list they touched.

use buddyscope::{
    mm::{order_to_pindex, pindex_to_mt, pindex_to_order, NR_PCP_LISTS},
    Annotation, EventKind, MigrateType, Mutation, Timeline,
};
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::shell::View;

/// One CPU's `per_cpu_pages`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpuModel {
    pub count: i32,
    pub high: i32,
    pub high_min: i32,
    pub high_max: i32,
    pub batch: i32,
    /// Blocks on each `lists[pindex]`.
    pub lists: [u32; NR_PCP_LISTS],
}

/// What the current event did on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcpActivity {
    Add,
    Del,
    Refill,
    Drain,
}

impl PcpActivity {
    /// The badge text (and the e2e-visible word).
    pub fn as_str(self) -> &'static str {
        match self {
            PcpActivity::Add => "add",
            PcpActivity::Del => "del",
            PcpActivity::Refill => "refill",
            PcpActivity::Drain => "drain",
        }
    }

    /// Pages come onto the CPU's lists (highlighted like a free-list add).
    fn fills(self) -> bool {
        matches!(self, PcpActivity::Add | PcpActivity::Refill)
    }
}

/// The CPU and list the current event touched (`pindex` `None`: the whole CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcpActive {
    pub cpu: usize,
    pub pindex: Option<usize>,
    pub what: PcpActivity,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PcpModel {
    pub cpus: Vec<CpuModel>,
    pub active: Option<PcpActive>,
}

pub fn view_model(t: &Timeline) -> PcpModel {
    let z = t.zone();
    let cpus = z
        .pcp()
        .iter()
        .map(|p| CpuModel {
            count: p.count,
            high: p.high,
            high_min: p.high_min,
            high_max: p.high_max,
            batch: p.batch,
            lists: std::array::from_fn(|i| p.lists[i].len),
        })
        .collect();
    let active = |cpu: u8, pindex: Option<usize>, what| {
        Some(PcpActive {
            cpu: cpu as usize,
            pindex,
            what,
        })
    };
    let active = match t.current().map(|e| e.kind()) {
        Some(EventKind::Mutation(Mutation::PcpAdd { cpu, pindex, .. })) => {
            active(cpu, Some(pindex as usize), PcpActivity::Add)
        }
        Some(EventKind::Mutation(Mutation::PcpDel { cpu, pindex, .. })) => {
            active(cpu, Some(pindex as usize), PcpActivity::Del)
        }
        Some(EventKind::Annotation(Annotation::PcpRefill { cpu, order, mt, .. })) => {
            active(cpu, Some(order_to_pindex(mt, order)), PcpActivity::Refill)
        }
        Some(EventKind::Annotation(Annotation::PcpDrain { cpu, .. })) => {
            active(cpu, None, PcpActivity::Drain)
        }
        _ => None,
    };
    PcpModel { cpus, active }
}

const ORDERS: [u8; 5] = [0, 1, 2, 3, 9];
const TYPES: [MigrateType; 3] = [
    MigrateType::Unmovable,
    MigrateType::Movable,
    MigrateType::Reclaimable,
];

#[component]
pub fn PcpPanel() -> impl IntoView {
    let view = View::here();
    let snap = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    let ncpu = Memo::new(move |_| snap.with(|s| s.cpus.len()));

    let card = move |cpu: usize| {
        // Per-CPU memos, and one per list below: a move re-renders (and writes to the DOM) only
        // what changed on the CPUs it touched.
        let cpu_model =
            Memo::new(move |_| snap.with(|s| s.cpus.get(cpu).cloned().unwrap_or_default()));
        let cpu_active = Memo::new(move |_| snap.with(|s| s.active.filter(|a| a.cpu == cpu)));
        let c = move || cpu_model.get();
        let active = move || cpu_active.get();
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
                        let list_len = Memo::new(move |_| cpu_model.with(|c| c.lists[pindex]));
                        let list_mark = Memo::new(move |_| cpu_active.get().and_then(|a| (a.pindex == Some(pindex)).then_some(a.what)));
                        let len = move || list_len.get();
                        let mark = move || list_mark.get();
                        let label = if order == 9 && mt == MigrateType::Unmovable {
                            "U+R "
                        } else {
                            ""
                        };
                        view! {
                            <td
                                class="pcp-cell"
                                class:zero=move || len() == 0
                                class:hl-add=move || mark().is_some_and(PcpActivity::fills)
                                class:hl-del=move || mark() == Some(PcpActivity::Del)
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
                class:hl-refill=move || active().is_some_and(|a| a.what.fills())
                class:hl-drain=move || active().is_some_and(|a| !a.what.fills())
            >
                <div class="pcp-head">
                    <strong>{format!("CPU {cpu}")}</strong>
                    <span class="pcp-nums">
                        "count "<b data-testid=format!("pcp-count-{cpu}")>{move || c().count}</b>
                        " / high "<b>{move || c().high}</b>
                        " \u{b7} batch "<b>{move || c().batch}</b>
                    </span>
                    <span class="pcp-badge">{move || active().map(|a| a.what.as_str()).unwrap_or("")}</span>
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
        <PanelFrame
            key="pcp"
            title="Per-CPU lists"
            sub=Signal::derive(move || format!("{} CPU{}", ncpu.get(), if ncpu.get() == 1 { "" } else { "s" }))
            help="Each CPU caches small blocks on its own lists (blocks per list). The bar is count (pages) against high: above it, free_pcppages_bulk drains a batch back to the buddy."
        >
            <div class="pcp-cpus">
                {move || (0..ncpu.get()).map(card).collect_view()}
            </div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    /// `count` is the pages on the lists: Σ blocks × 2^order, for every CPU at every step.
    #[test]
    fn count_is_the_pages_on_the_lists_and_events_mark_their_cpu() {
        let mut t = timeline("pcp-overflow-2cpu");
        let mut seen = Vec::new();
        while t.pos() < t.len() {
            t.step_forward();
            let m = view_model(&t);
            assert_eq!(m.cpus.len(), t.zone().pcp().len());
            for c in &m.cpus {
                let pages: i64 = (0..NR_PCP_LISTS)
                    .map(|i| (c.lists[i] as i64) << pindex_to_order(i))
                    .sum();
                assert_eq!(pages, c.count as i64, "at {}", t.pos());
            }
            if let Some(a) = m.active {
                assert!(a.cpu < m.cpus.len());
                if !seen.contains(&a.what) {
                    seen.push(a.what);
                }
                if let (PcpActivity::Add, Some(p)) = (a.what, a.pindex) {
                    assert!(m.cpus[a.cpu].lists[p] > 0);
                }
            }
        }
        for w in [
            PcpActivity::Add,
            PcpActivity::Del,
            PcpActivity::Refill,
            PcpActivity::Drain,
        ] {
            assert!(seen.contains(&w), "{w:?} never seen");
        }
    }
}
