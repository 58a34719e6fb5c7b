//! The root component: the header with the stepping controls and the theme toggle, the time
//! bar (position and scrubber), the narration bar and the panel grid.

use leptos::prelude::*;

use crate::browser::query_param;
use crate::panels::charts::ChartsPanel;
use crate::panels::controls::{Controls, Position};
use crate::panels::counters::CountersPanel;
use crate::panels::freelists::FreeListsPanel;
use crate::panels::memmap::MemoryMapPanel;
use crate::panels::narration::NarrationBar;
use crate::panels::pcp::PcpPanel;
use crate::panels::pseudocode::PseudocodePanel;
use crate::panels::scenario::ScenarioPanel;
use crate::panels::scrubber::Scrubber;
use crate::presenter::{self, BlankScreen, PresenterToggle, TourBar};
use crate::state::AppState;
use crate::theme::ThemeState;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::provide();
    // `?scenario=<builtin id>` opens that scenario (shareable links; the e2e tests use it).
    if let Some(id) = query_param("scenario") {
        if id != state.scenario_id.get_untracked() {
            let _ = state.load_builtin(&id);
        }
    }
    let theme = ThemeState::provide();
    presenter::install(state);
    presenter::open_from_query(state);
    let scenario_name = move || state.with(|s| s.scenario.name.clone()).unwrap_or_default();

    // Presenter mode keeps every panel mounted (the player and the keys live in them) and hides
    // the chrome with CSS; the root then carries `presenter-view`.
    let presenting = move || state.presenter.get();
    view! {
        <div
            class="app-root"
            class:presenting=presenting
            data-testid=move || presenting().then_some("presenter-view")
            data-presenter-state=move || presenter::state_json(state)
        >
        <header class="site-header">
            <div class="brand">
                <h1>"buddyscope"</h1>
                <p class="tagline" data-testid="scenario-name">
                    <a href="#scenario-panel" title="Scenario picker and editor (below the panels)">{scenario_name}</a>
                </p>
            </div>
            <Controls/>
            <button
                type="button"
                class="theme-toggle"
                data-testid="theme-toggle"
                title="Switch between automatic, light and dark colours"
                on:click=move |_| theme.choice.update(|t| *t = t.next())
            >
                {move || format!("Theme: {}", theme.choice.get().as_str())}
            </button>
            <PresenterToggle/>
        </header>
        <Show when=presenting>
            <TourBar/>
        </Show>
        <div class="timebar">
            <Position/>
            <Scrubber/>
        </div>
        <NarrationBar/>
        <main class="layout">
            <ScenarioPanel/>
            <div class="col-map">
                <MemoryMapPanel/>
                <PcpPanel/>
            </div>
            <div class="col-side">
                <PseudocodePanel/>
                <FreeListsPanel/>
            </div>
            <CountersPanel/>
            <ChartsPanel/>
        </main>
        <BlankScreen/>
        </div>
    }
}
