//! The root component: reads the address ([`Route`]), opens what it asks for, and lays out the
//! header with the stepping controls and the theme toggle, the time bar (position and
//! scrubber), the narration bar and the panel grid.

use leptos::prelude::*;

use crate::model::exercises::ExerciseCommand;
use crate::model::route::Route;
use crate::model::{Command, Slot};
use crate::panels::controls::{Controls, Position};
use crate::panels::deferred::{self, Deferred};
use crate::panels::freelists::FreeListsPanel;
use crate::panels::memmap::MemoryMapPanel;
use crate::panels::narration::NarrationBar;
use crate::panels::pseudocode::PseudocodePanel;
use crate::panels::runstatus::RunStatusBar;
use crate::panels::scrubber::Scrubber;
use crate::panels::sharelink::{ShareError, ShareLink};
use crate::panels::sidebyside::CompareToggle;
use crate::panels::skip::{SkipLink, MAIN_ID};
use crate::panels::zonetabs::ZoneTabs;
use crate::prefs::Prefs;
use crate::presenter::{self, BlankScreen, PresenterToggle, TourBar};
use crate::shell::{keys, player, storage, Shell, View};

/// The page's address: its query string and fragment.
fn address() -> (String, String) {
    let loc = web_sys::window().map(|w| w.location());
    let get = |f: fn(&web_sys::Location) -> Result<String, wasm_bindgen::JsValue>| {
        loc.as_ref().and_then(|l| f(l).ok()).unwrap_or_default()
    };
    (get(web_sys::Location::search), get(web_sys::Location::hash))
}

/// True when the address opens the default scenario and nothing else: no share link, no
/// parameter the route reads, no saved position to reopen.
pub fn opens_the_default() -> bool {
    let (search, hash) = address();
    // The link is not read here: its reader is in the module `runner` too.
    if crate::share::fragment_value(&hash).is_some()
        || Route::parse(&search, "") != Route::default()
    {
        return false;
    }
    let last = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(crate::saved::LAST_KEY).ok().flatten());
    last.is_none()
}

#[component]
pub fn App() -> impl IntoView {
    let prefs = Prefs::provide();
    let theme = prefs.theme;
    let shell = Shell::provide(prefs);
    let (search, hash) = address();
    let route = Route::parse(&search, &hash);
    // Saved work is read (and damaged entries set aside) before anything else opens; an
    // embedded view (`?embed=1`, a slide deck's frame) leaves the user's store alone.
    if route.embed.is_none() {
        // Its reader is in the module `runner`: with the commands that wait for it, first.
        shell.after_runner(move || storage::load(shell, None));
    }
    let link = route.link.is_some();
    let embed = route.embed.clone();
    shell.dispatch(Command::Open(Box::new(route)));
    let share_error = link
        .then(|| shell.read(|m| m.share_error.clone()))
        .flatten();
    let comparing = Memo::new(move |_| shell.ui.compare.with(Option::is_some));
    // The default scenario's run, then the panels below the fold, after the first paint
    // (panels::deferred); the embedded view has only the run to wait for.
    let later = Deferred::after_first_paint(shell);
    // `?embed=1&panel=…`: the map and one panel, driven by the host page's messages.
    if let Some(e) = embed {
        let embed = crate::embed::embed_app(shell, e.origin, e.panel);
        return view! {
            {share_error.map(|m| view! { <ShareError message=m/> })}
            {Suspend::new(embed)}
        }
        .into_any();
    }
    presenter::install(shell);
    keys::install_stepping(shell);
    player::install(shell);
    storage::keep_last_position(shell);
    let main = View {
        shell,
        slot: Slot::Main,
    };
    let scenario_name = move || {
        main.with_run(|s| s.scenario.name.clone())
            .unwrap_or_default()
    };
    let exercise_open = Memo::new(move |_| shell.ui.exercise.with(|x| x.open));

    // Presenter mode keeps every panel mounted (the player and the keys live in them) and hides
    // the chrome with CSS; the root then carries `presenter-view`.
    let presenting = move || prefs.presenter.get();
    view! {
        <div
            class="app-root"
            class:presenting=presenting
            data-testid=move || presenting().then_some("presenter-view")
            data-presenter-state=move || presenter::state_json(shell)
            data-panels=move || later.marker()
            data-run=move || deferred::run_marker(shell.ui.first_run_done.get())
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
        {move || shell.ui.exercise.with(|x| x.banner.clone()).map(|m| view! {
            <div class="share-error" role="alert" data-testid="exercises-query-error">
                <span>{m}</span>
                <button
                    type="button"
                    aria-label="Dismiss"
                    on:click=move |_| shell.dispatch(Command::Exercise(ExerciseCommand::DismissBanner))
                >
                    "\u{d7}"
                </button>
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
                            <Show when=move || exercise_open.get()>
                                {later.mount(deferred::exercise_panel())}
                            </Show>
                            <PseudocodePanel/>
                            <FreeListsPanel/>
                        </div>
                        <Show when=move || later.ready()>
                            {later.mount(deferred::bottom_panels(shell))}
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
