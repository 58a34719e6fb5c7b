//! A node of several zones (`zones` in the scenario): a tab per zone above the memory map. The
//! map, the free-list, pcp and counter panels show the picked zone ([`Timeline::set_view_zone`]);
//! before a pick they show the zone the engine is working in. Nothing shows for one zone.

use buddyscope::run::Timeline;
use leptos::prelude::*;

use crate::model::Command;
use crate::shell::View;

/// One tab.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneTab {
    pub index: usize,
    /// The kernel's zone name (`DMA32`): the `zone-tab-<name>` test id and the label.
    pub name: String,
    pub pages: u32,
    /// The zone the panels show.
    pub shown: bool,
    /// The zone the engine is working in at the cursor.
    pub working: bool,
}

/// The tabs at the cursor; empty for a node of one zone.
pub fn view_model(t: &Timeline) -> Vec<ZoneTab> {
    let node = t.node();
    if !node.several_zones() {
        return Vec::new();
    }
    let shown = t.view_zone().unwrap_or(node.active_index());
    node.zones()
        .iter()
        .enumerate()
        .map(|(i, z)| ZoneTab {
            index: i,
            name: z.cfg().name.clone(),
            pages: z.pages(),
            shown: i == shown,
            working: i == node.active_index(),
        })
        .collect()
}

#[component]
pub fn ZoneTabs() -> impl IntoView {
    let view = View::here();
    let tabs = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    view! {
        <Show when=move || !tabs.get().is_empty()>
            <div class="zone-tabs" role="group" aria-label="Zone shown" data-testid="zone-tabs">
                {move || {
                    tabs.get()
                        .into_iter()
                        .map(|tab| {
                            let i = tab.index;
                            let title = format!(
                                "zone {} ({} pages){}",
                                tab.name,
                                tab.pages,
                                if tab.working { ": the engine works in it at this step" } else { "" },
                            );
                            view! {
                                <button
                                    type="button"
                                    class="zone-tab"
                                    class:working=tab.working
                                    aria-pressed=if tab.shown { "true" } else { "false" }
                                    title=title
                                    data-testid=format!("zone-tab-{}", tab.name)
                                    on:click=move |_| view.dispatch(Command::ShowZone { slot: view.slot, zone: i })
                                >
                                    {tab.name.clone()}
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tour::worked_zone;
    use buddyscope::run::Runner;
    use buddyscope::scenario::parse_valid;

    #[test]
    fn two_zones_have_two_tabs_and_a_pick_shows_that_zone() {
        let text = buddyscope::scenario::builtin::get("dma32-machine")
            .expect("built-in")
            .json();
        let mut t = Timeline::new(
            Runner::new(parse_valid(text).expect("valid"))
                .run()
                .expect("runs"),
        );
        let m = view_model(&t);
        assert_eq!(
            m.iter().map(|z| z.name.as_str()).collect::<Vec<_>>(),
            ["DMA32", "Normal"]
        );
        assert!(m[1].shown && m[1].working);
        t.set_view_zone(Some(0));
        assert!(view_model(&t)[0].shown);
        assert_eq!(t.zone().cfg().name, "DMA32");
        assert_eq!(t.zone().cfg().start_pfn, 4096);
        let one = buddyscope::scenario::builtin::get("fallback-claim")
            .expect("built-in")
            .json();
        let t = Timeline::new(
            Runner::new(parse_valid(one).expect("valid"))
                .run()
                .expect("runs"),
        );
        assert!(view_model(&t).is_empty());
        assert_eq!(worked_zone(&t), None);
    }

    /// dma32-machine's tour stop after op 31: the 31st THP came from DMA32 (pfn 0x1000), then
    /// the engine switched back to Normal; the stop shows DMA32.
    #[test]
    fn the_zone_an_op_worked_in_survives_the_switch_back() {
        let text = buddyscope::scenario::builtin::get("dma32-machine")
            .expect("built-in")
            .json();
        let mut t = Timeline::new(
            Runner::new(parse_valid(text).expect("valid"))
                .run()
                .expect("runs"),
        );
        let names = |t: &Timeline, i: usize| t.node().zone(i).cfg().name.clone();
        t.seek(t.op(29).end);
        assert_eq!(names(&t, worked_zone(&t).unwrap()), "Normal");
        t.seek(t.op(30).end);
        assert_eq!(names(&t, t.node().active_index()), "Normal");
        let z = worked_zone(&t).unwrap();
        assert_eq!(names(&t, z), "DMA32");
        t.set_view_zone(Some(z));
        assert_eq!(t.zone().cfg().start_pfn, 0x1000);
        assert_eq!(t.op(30).outcome.to_string(), "order-9 block at pfn 0x1000");
    }
}
