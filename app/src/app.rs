//! The root component: the header with the stepping controls and the theme toggle, the time
//! bar (position and scrubber), the narration bar and the panel grid.

use buddyscope::ComparePair;
use leptos::prelude::*;

use crate::browser::query_param;
use crate::panels::compare::CompareToggle;
use crate::panels::controls::{Controls, Position};
use crate::panels::deferred::{self, Deferred};
use crate::panels::exercises::ExerciseCtl;
use crate::panels::freelists::FreeListsPanel;
use crate::panels::memmap::MemoryMapPanel;
use crate::panels::narration::NarrationBar;
use crate::panels::pseudocode::PseudocodePanel;
use crate::panels::runstatus::RunStatusBar;
use crate::panels::saved::{self, SavedStore};
use crate::panels::scrubber::Scrubber;
use crate::panels::sharelink::{self, ShareError, ShareLink};
use crate::panels::skip::{SkipLink, MAIN_ID};
use crate::panels::zonetabs::ZoneTabs;
use crate::presenter::{self, BlankScreen, PresenterToggle, TourBar};
use crate::state::AppState;
use crate::theme::ThemeState;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::provide();
    // Saved work is read (and damaged entries set aside) before anything else opens; an
    // embedded view (`?embed=1`, a slide deck's frame) leaves the user's store alone.
    let embedded = query_param("embed").is_some();
    let store = (!embedded).then(SavedStore::provide);
    let exercises = ExerciseCtl::provide(state, store);
    // A share link (`#s=…`) wins; else `?scenario=<builtin id>` opens that scenario (the e2e
    // tests use it).
    let link = sharelink::open_from_location(&state);
    // A link carries the presenter state too: `?present` / `?tour=` apply only without one.
    let from_link = matches!(link, Some(Ok(())));
    let share_error = match link {
        Some(result) => result.err(),
        None => {
            // A plain address reopens where the user was; one that asks for something wins.
            let asks = ["scenario", "compare", "embed", "exercises"]
                .iter()
                .any(|p| query_param(p).is_some());
            if !asks {
                // The set that was open reopens from its saved progress, at its question.
                let reopen = store.and_then(|store| {
                    saved::restore_last(store, &state).and_then(|key| store.progress_at(&key))
                });
                if let Some(p) = reopen {
                    exercises.open_text(&p.set_text, &p.set_id);
                }
            }
            if let Some(id) = query_param("scenario") {
                if id != state.scenario_id.get_untracked() {
                    let _ = state.load_builtin(&id);
                }
            }
            // `?compare=1` opens compare mode with the scenario's own pair;
            // `?compare=v7.1,v7.2` (or `v7.1-mm,v7.1+mm`) picks the sides
            // (buddyscope::ComparePair::from_query).
            if let Some(q) = query_param("compare") {
                let parsed = state.with_untracked(|s| ComparePair::from_query(&q, &s.scenario));
                match parsed {
                    Some(Ok(pair)) => state.set_compare(Some(pair)),
                    Some(Err(e)) => state.compare_error.set(Some(e)),
                    None => {}
                }
            }
            None
        }
    };
    let comparing = Memo::new(move |_| state.compare.with(Option::is_some));
    let theme = ThemeState::provide();
    // The default scenario's run, then the panels below the fold, after the first paint
    // (panels::deferred); the embedded view has only the run to wait for.
    let later = Deferred::after_first_paint(state);
    // `?embed=1&panel=…`: the map and one panel, driven by the host page's messages.
    if embedded {
        let panel = query_param("panel").unwrap_or_default();
        let embed = crate::embed::embed_app(state, query_param("origin"), panel);
        return view! {
            {share_error.map(|m| view! { <ShareError message=m/> })}
            {Suspend::new(embed)}
        }
        .into_any();
    }
    presenter::install(state);
    saved::install_last_position(state, move || exercises.progress_key());
    // `?exercises=<set id>` or `?exercises=<url>` opens a set (a share link's frame wins).
    if !from_link {
        if let Some(v) = query_param("exercises") {
            exercises.open_param(&v);
        }
    }
    if !from_link {
        presenter::open_from_query(state);
    }
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
            data-panels=move || later.marker()
            data-run=move || crate::panels::deferred::run_marker(state.first_run_done.get())
        >
        <SkipLink/>
        <header class="site-header">
            <div class="brand">
                <h1>"buddyscope"</h1>
                <p class="tagline" data-testid="scenario-name">
                    <a href="#scenario-panel" title="Scenario picker and editor (below the panels)">{scenario_name}</a>
                </p>
            </div>
            <Controls/>
            <CompareToggle/>
            <ShareLink/>
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
        {share_error.map(|m| view! { <ShareError message=m/> })}
        {move || exercises.banner.get().map(|m| view! {
            <div class="share-error" role="alert" data-testid="exercises-query-error">
                <span>{m}</span>
                <button type="button" aria-label="Dismiss" on:click=move |_| exercises.banner.set(None)>"\u{d7}"</button>
            </div>
        })}
        <RunStatusBar/>
        <Show when=presenting>
            <TourBar/>
        </Show>
        {move || {
            if comparing.get() {
                later.mount(deferred::compare_view()).into_any()
            } else {
                view! {
                    <div class="timebar" role="region" aria-label="Position">
                        <Position/>
                        <Scrubber/>
                    </div>
                    <NarrationBar/>
                    <main class="layout" id=MAIN_ID tabindex="-1">
                        <Show when=move || later.ready()>
                            {later.mount(deferred::scenario_panel())}
                        </Show>
                        <div class="col-map">
                            <ZoneTabs/>
                            <MemoryMapPanel/>
                            <Show when=move || later.ready()>
                                {later.mount(deferred::below_map_panels())}
                            </Show>
                        </div>
                        <div class="col-side">
                            // An open set's question sits beside the map; without one the
                            // set picker waits at the bottom, by the saved work.
                            <Show when=move || exercises.is_open()>
                                {later.mount(deferred::exercise_panel())}
                            </Show>
                            <PseudocodePanel/>
                            <FreeListsPanel/>
                        </div>
                        <Show when=move || later.ready()>
                            {later.mount(deferred::bottom_panels(exercises))}
                        </Show>
                    </main>
                }
                    .into_any()
            }
        }}
        <BlankScreen/>
        </div>
    }
    .into_any()
}
