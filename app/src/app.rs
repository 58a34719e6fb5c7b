//! The root component: header with the stepping controls, the scrubber, the narration bar and
//! the panel grid.
//!
//! Slots for the panels built in `app/src/panels/` (pseudocode, counters, charts, scenario):
//! each is an element with the class and id `slot-…`; put the component inside it.

use leptos::prelude::*;

use crate::panels::{ChartsPanel, CountersPanel, PseudocodePanel, ScenarioPanel};
use crate::state::AppState;
use crate::theme;
use crate::view::controls::{Controls, Position};
use crate::view::freelists::FreeLists;
use crate::view::memmap::{dark_signal, MemoryMap};
use crate::view::narration::Narration;
use crate::view::pcp::PcpLists;
use crate::view::scrubber::Scrubber;
use crate::view::DarkMode;

/// The value of `name` in the page's query string (`?scenario=fallback-claim`).
fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::provide();
    // `?scenario=<builtin id>` opens that scenario (shareable links; the e2e tests use it).
    if let Some(id) = query_param("scenario") {
        if id != state.scenario_id.get_untracked() {
            let _ = state.load_builtin(&id);
        }
    }
    let (theme, set_theme) = signal(theme::initial());
    Effect::new(move |_| theme::apply(theme.get()));
    provide_context(DarkMode(dark_signal(theme)));
    let scenario_name = move || state.with(|s| s.scenario.name.clone()).unwrap_or_default();

    view! {
        <header class="site-header">
            <div class="brand">
                <h1>"buddyscope"</h1>
                <p class="tagline" data-testid="scenario-name">
                    <a href="#slot-scenario" title="Scenario picker and editor (below the panels)">{scenario_name}</a>
                </p>
            </div>
            <Controls/>
            <button
                type="button"
                class="theme-toggle"
                data-testid="theme-toggle"
                title="Switch between automatic, light and dark colours"
                on:click=move |_| set_theme.update(|t| *t = t.next())
            >
                {move || format!("Theme: {}", theme.get().as_str())}
            </button>
        </header>
        <div class="timebar">
            <Position/>
            <Scrubber/>
        </div>
        <Narration/>
        <main class="layout">
            // panels: scenario picker / editor (app/src/panels/scenario.rs)
            <div class="slot-scenario" id="slot-scenario"><ScenarioPanel/></div>
            <div class="col-map">
                <MemoryMap/>
                <PcpLists/>
            </div>
            <div class="col-side">
                // panels: pseudocode pane (app/src/panels/pseudocode.rs)
                <div class="slot-pseudocode" id="slot-pseudocode"><PseudocodePanel/></div>
                <FreeLists/>
            </div>
            // panels: counters (app/src/panels/counters.rs)
            <div class="slot-counters" id="slot-counters"><CountersPanel/></div>
            // panels: charts (app/src/panels/charts.rs)
            <div class="slot-charts" id="slot-charts"><ChartsPanel/></div>
        </main>
    }
}
