//! Presenter mode and tours: one key (`P`, or the `presenter-toggle` button) turns the page
//! into a projector layout — large type, no chrome, the map (following the action), the free
//! lists and the narration — driven by keys and presentation clickers (`crate::shell::keys`).
//! Presenter mode is a preference (`crate::prefs`); the tour stop is the model's
//! ([`crate::model::tour`]); this module is the views: the toggle, the tour bar, the black
//! screen, and the document's `presenting` class.

use leptos::prelude::*;

use crate::model::tour::{off_stop_hint, stop_label};
use crate::model::Slot;
use crate::share::PresenterState;
use crate::shell::{keys, Shell, View};

/// The presenter/tour state as JSON (the app root carries it for tools and tests), tracking it.
pub fn state_json(shell: Shell) -> String {
    let p = PresenterState {
        presenter: shell.prefs.presenter.get(),
        tour_stop: shell.ui.tour_stop.get().map(|i| i as u32),
        follow: shell.prefs.follow.get(),
    };
    serde_json::to_string(&p).unwrap_or_default()
}

/// Tells width-tracking views (the map's canvas) that the layout changed.
fn relayout() {
    if let Some(w) = web_sys::window() {
        if let Ok(ev) = web_sys::Event::new("resize") {
            let _ = w.dispatch_event(&ev);
        }
    }
}

/// Installs the keys and keeps the document's `presenting` class (the CSS's large type and
/// hidden chrome) in step with the preference.
pub fn install(shell: Shell) {
    keys::install_presenter(shell);
    Effect::new(move |prev: Option<bool>| {
        let on = shell.prefs.presenter.get();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.class_list().toggle_with_force("presenting", on);
        }
        if prev.is_some_and(|p| p != on) {
            relayout();
        }
        on
    });
}

/// The `presenter-toggle` button (header; the only chrome left visible in presenter mode).
#[component]
pub fn PresenterToggle() -> impl IntoView {
    let shell = Shell::get();
    let presenter = shell.prefs.presenter;
    view! {
        <button
            type="button"
            class="presenter-toggle"
            data-testid="presenter-toggle"
            aria-pressed=move || presenter.get().to_string()
            title=move || if presenter.get() {
                "Leave presenter mode (P or Escape)"
            } else {
                "Presenter mode: large type, map, free lists and narration; PageDown/PageUp step, B blanks, F full screen (P)"
            }
            on:click=move |_| keys::set_presenter(shell, !presenter.get_untracked())
        >
            {move || if presenter.get() { "Exit presenter" } else { "Present" }}
        </button>
    }
}

/// The tour's caption and "stop i/n" (presenter mode), or a hint to start it.
#[component]
pub fn TourBar() -> impl IntoView {
    let shell = Shell::get();
    let main = View {
        shell,
        slot: Slot::Main,
    };
    let stops = Memo::new(move |_| {
        main.with_run(|s| {
            s.scenario
                .tour
                .iter()
                .map(|t| t.caption.clone())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    // The caption shows only while the cursor is at its stop.
    let current = move || {
        let i = shell.ui.tour_stop.get()?;
        let caps = stops.get();
        let here = shell.ui.tour_here.get() == Some(i);
        caps.get(i).map(|c| (i, caps.len(), c.clone(), here))
    };
    let name = move || {
        main.with_run(|s| s.scenario.name.clone())
            .unwrap_or_default()
    };
    let tour_error = Memo::new(move |_| {
        main.with_run(|s| buddyscope::explain::tour_positions(&s.timeline.run).err())
            .flatten()
    });
    let error = move || {
        tour_error.get().map(|e| {
            view! { <p class="tour-error" data-testid="tour-error" role="alert">{format!("The tour cannot play: {e}")}</p> }
        })
    };
    let notice = move || {
        shell.ui.tour_notice.get().map(|m| {
            view! { <p class="tour-error" data-testid="tour-notice" role="alert">{m}</p> }
        })
    };
    view! {
        <section class="tour-bar" data-testid="tour-bar" aria-label="Tour">
            <span class="tour-scenario">{name}</span>
            {error}
            {notice}
            {move || match current() {
                Some((i, n, caption, true)) => view! {
                    <span class="tour-stop" data-testid="tour-stop">{stop_label(i, n)}</span>
                    <p class="tour-caption" data-testid="tour-caption" aria-live="polite">{caption}</p>
                }
                .into_any(),
                Some((i, n, _, false)) => view! {
                    <span class="tour-stop off" data-testid="tour-stop">{format!("after {}", stop_label(i, n))}</span>
                    <p class="tour-hint" data-testid="tour-hint">{off_stop_hint(i, n)}</p>
                }
                .into_any(),
                None => {
                    let n = stops.with(|s| s.len());
                    let hint = if n > 0 {
                        format!("T starts the tour ({n} stops) \u{b7} PageDown/PageUp step an operation \u{b7} B blanks \u{b7} Esc leaves")
                    } else {
                        "PageDown/PageUp step an operation \u{b7} B blanks \u{b7} F full screen \u{b7} Esc leaves".to_string()
                    };
                    view! { <p class="tour-hint" data-testid="tour-hint">{hint}</p> }.into_any()
                }
            }}
        </section>
    }
}

/// The black screen of `B` / `.`.
#[component]
pub fn BlankScreen() -> impl IntoView {
    let prefs = Shell::get().prefs;
    view! {
        <Show when=move || prefs.blank.get() && prefs.presenter.get()>
            <div class="presenter-blank" data-testid="presenter-blank" aria-hidden="true"></div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presenter_state_round_trips_and_rejects_typos() {
        let p = PresenterState {
            presenter: true,
            tour_stop: Some(2),
            follow: false,
        };
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(j, r#"{"presenter":true,"tour_stop":2,"follow":false}"#);
        assert_eq!(serde_json::from_str::<PresenterState>(&j).unwrap(), p);
        assert_eq!(
            serde_json::from_str::<PresenterState>("{}").unwrap(),
            PresenterState::default()
        );
        assert!(serde_json::from_str::<PresenterState>(r#"{"presentr":true}"#).is_err());
    }
}
