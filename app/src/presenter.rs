//! Presenter mode and tours: one key (`P`, or the `presenter-toggle` button)
//! turns the page into a projector layout — large type, no chrome, the map (following the
//! action), the free lists and the narration — driven by keys and presentation clickers:
//!
//! | key | in presenter mode |
//! |---|---|
//! | PageDown / PageUp | next / previous tour stop while a tour is active, else one op forward / back |
//! | `B`, `.` | blank the screen (toggle) |
//! | `F` | full screen (Fullscreen API) |
//! | `T` | start / leave the scenario's tour |
//! | Escape | un-blank, else leave presenter mode |
//!
//! Keys never fire while typing in an editor ([`typing_target`]). The state is a few
//! [`AppState`] signals (`presenter`, `blank`, `follow`, `tour_stop`) and the plain
//! [`PresenterState`] a share link carries.

use buddyscope::{explain::tour_positions, ScenarioError, Timeline};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::query_param;
use crate::compare;
use crate::panels::controls::typing_target;
use crate::panels::zonetabs;
use crate::state::AppState;

/// Presenter and tour state as plain data (for share links and embedding).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PresenterState {
    /// The presenter layout is on.
    pub presenter: bool,
    /// The tour is active at this stop (0-based index into the scenario's `tour`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tour_stop: Option<u32>,
    /// The map follows the action outside presenter mode too (it always does inside).
    pub follow: bool,
}

/// The tour bar's text for stop `i` of `n`: `stop i/n`, 1-based.
pub fn stop_label(i: usize, n: usize) -> String {
    format!("stop {}/{n}", i + 1)
}

impl AppState {
    /// The presenter/tour state now (untracked).
    pub fn presenter_state(&self) -> PresenterState {
        PresenterState {
            presenter: self.presenter.get_untracked(),
            tour_stop: self.tour_stop.get_untracked().map(|i| i as u32),
            follow: self.follow.get_untracked(),
        }
    }

    /// Restores a presenter/tour state (e.g. from a share link). A stop beyond the scenario's
    /// tour is dropped. The cursor is not moved: a link carries its exact position itself; use
    /// [`AppState::tour_go`] to move to a stop.
    pub fn set_presenter_state(&self, p: &PresenterState) {
        let n = self.tour_positions().len();
        self.presenter.set(p.presenter);
        self.follow.set(p.follow);
        self.tour_stop
            .set(p.tour_stop.map(|i| i as usize).filter(|&i| i < n));
        if !p.presenter {
            self.blank.set(false);
        }
    }

    /// Why the current scenario's tour cannot play (a stop beyond the run), if it cannot.
    pub fn tour_error(&self) -> Option<ScenarioError> {
        self.with(|s| tour_positions(&s.timeline.run).err())
            .flatten()
    }

    /// The event index of every stop of the current scenario's tour (empty: no tour, or a tour
    /// with a stop beyond the run: see [`AppState::tour_error`]).
    pub fn tour_positions(&self) -> Vec<u32> {
        self.with_untracked(|s| tour_positions(&s.timeline.run).unwrap_or_default())
            .unwrap_or_default()
    }

    /// Makes stop `i` the current one and moves the cursor there (clamped to the tour). In
    /// compare mode both sides move to the stop's op (and event, [`compare::seek_stop`]). In a
    /// node of several zones the panels show the zone the op worked in
    /// ([`zonetabs::worked_zone`]), the one the caption talks about.
    pub fn tour_go(&self, i: usize) {
        let at = self.tour_positions();
        self.tour_notice.set(None);
        if at.is_empty() {
            self.tour_stop.set(None);
            return;
        }
        let i = i.min(at.len() - 1);
        self.playing.set(false);
        self.tour_stop.set(Some(i));
        let stop = self
            .with_untracked(|s| s.scenario.tour.get(i).cloned())
            .flatten();
        let show_worked = |t: &mut Timeline| {
            if let Some(z) = zonetabs::worked_zone(t) {
                t.set_view_zone(Some(z));
            }
        };
        match stop {
            Some(stop) if self.comparing() => {
                let (k, e) = (stop.op as usize, stop.event.unwrap_or(0));
                self.update_pair(|a, b| {
                    compare::seek_stop(a, b, k, e);
                    show_worked(a);
                    show_worked(b);
                });
            }
            _ => self.update(|t| {
                t.seek(at[i]);
                show_worked(t);
            }),
        }
    }

    /// The stop on screen: the active stop, when the cursor (both sides' in compare mode) is at
    /// its position; `None` once anything else moved it, so a caption never outlives its stop.
    /// Tracks the position.
    pub fn tour_here(&self) -> Option<usize> {
        let i = self.tour_stop.get()?;
        let stop = self.with(|s| s.scenario.tour.get(i).cloned()).flatten()?;
        if self.compare.with(Option::is_some) && self.comparing() {
            let (k, e) = (stop.op as usize, stop.event.unwrap_or(0));
            let here = self.with_pair(|a, b| compare::at_stop(&a.timeline, &b.timeline, k, e))?;
            return here.then_some(i);
        }
        let at = self
            .with(|s| {
                tour_positions(&s.timeline.run)
                    .ok()
                    .map(|at| (at, s.timeline.pos()))
            })
            .flatten()?;
        (at.0.get(i) == Some(&at.1)).then_some(i)
    }

    /// Next stop (stays at the last one).
    pub fn tour_next(&self) {
        let i = self.tour_stop.get_untracked().map_or(0, |i| i + 1);
        self.tour_go(i);
    }

    /// Previous stop (stays at the first one); moved off the current stop, back to it.
    pub fn tour_prev(&self) {
        let here = untrack(|| self.tour_here());
        let i = match self.tour_stop.get_untracked() {
            Some(i) if here != Some(i) => i,
            Some(i) => i.saturating_sub(1),
            None => 0,
        };
        self.tour_go(i);
    }

    /// Presenter mode on or off. Turning it on starts the scenario's tour (if it has one and
    /// none is active) at its first stop; turning it off un-blanks and ends the tour (its
    /// caption goes with it).
    pub fn set_presenter(&self, on: bool) {
        self.presenter.set(on);
        if on {
            if self.tour_stop.get_untracked().is_none() && !self.tour_positions().is_empty() {
                self.tour_go(0);
            }
        } else {
            self.blank.set(false);
            self.tour_stop.set(None);
            self.tour_notice.set(None);
        }
    }
}

/// Which stop `?tour=<v>` asks for (0-based) in a tour of `n` stops, or why it cannot be shown
/// (the message names the stops there are; the tour then starts at stop 1).
pub fn tour_query(v: &str, n: usize) -> Result<usize, String> {
    if n == 0 {
        return Err(format!(
            "?tour={v}: this scenario has no tour; PageDown/PageUp step an operation."
        ));
    }
    let range = if n == 1 {
        "?tour=1".to_string()
    } else {
        format!("?tour=1 to ?tour={n}")
    };
    match v.trim().parse::<usize>() {
        Ok(k) if (1..=n).contains(&k) => Ok(k - 1),
        Ok(k) => Err(format!(
            "There is no stop {k}: this tour has {n} stops ({range}). It starts at stop 1."
        )),
        Err(_) => Err(format!(
            "?tour={v:?} is not a stop number: use {range}. The tour starts at stop 1."
        )),
    }
}

/// [`AppState::presenter_state`] as JSON, tracking the signals (the app root carries it for
/// tools and tests).
pub fn state_json(state: AppState) -> String {
    state.presenter.track();
    state.tour_stop.track();
    state.follow.track();
    serde_json::to_string(&state.presenter_state()).unwrap_or_default()
}

/// `?present` opens the page in presenter mode (starting the tour, if any); `?tour=N` opens it
/// in presenter mode at stop N (1-based) of the scenario's tour: links for a slide deck. A stop
/// that is not there says so in the tour bar and starts the tour at stop 1.
pub fn open_from_query(state: AppState) {
    if let Some(v) = query_param("tour") {
        let n = state.tour_positions().len();
        state.presenter.set(true);
        match tour_query(&v, n) {
            Ok(i) => state.tour_go(i),
            Err(msg) => {
                state.tour_go(0);
                state.tour_notice.set(Some(msg));
            }
        }
    } else if query_param("present").is_some() {
        state.set_presenter(true);
    }
}

/// `document.documentElement.requestFullscreen()` or `document.exitFullscreen()`. The promise's
/// rejection (headless browsers, no user gesture, an iframe without `allowfullscreen`) is
/// caught: full screen is a nicety, never an error.
fn toggle_fullscreen() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (target, method): (JsValue, &str) = if doc.fullscreen_element().is_some() {
        (doc.clone().into(), "exitFullscreen")
    } else {
        match doc.document_element() {
            Some(el) => (el.into(), "requestFullscreen"),
            None => return,
        }
    };
    let Ok(f) = js_sys::Reflect::get(&target, &method.into()) else {
        return;
    };
    let Some(f) = f.dyn_ref::<js_sys::Function>() else {
        return;
    };
    if let Ok(p) = f.call0(&target) {
        if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
            let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
            let _ = p.catch(&ignore);
            ignore.forget();
        }
    }
}

/// Tells width-tracking views (the map's canvas) that the layout changed.
fn relayout() {
    if let Some(w) = web_sys::window() {
        if let Ok(ev) = web_sys::Event::new("resize") {
            let _ = w.dispatch_event(&ev);
        }
    }
}

/// The presenter keys, listened to in the capture phase so they are seen (and, when handled,
/// `preventDefault`ed) before the stepping shortcuts of [`crate::panels::controls`].
fn install_keys(state: AppState) {
    let cb =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |ev: web_sys::KeyboardEvent| {
            if ev.default_prevented() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            if typing_target(&ev) {
                return;
            }
            let presenting = state.presenter.get_untracked();
            let touring = state.tour_stop.get_untracked().is_some();
            match ev.key().as_str() {
                "p" | "P" => state.set_presenter(!presenting),
                "b" | "B" | "." if presenting => state.blank.update(|b| *b = !*b),
                "f" | "F" if presenting => toggle_fullscreen(),
                "t" | "T" if presenting => {
                    if touring {
                        state.tour_stop.set(None);
                    } else {
                        state.tour_go(0);
                    }
                }
                "PageDown" if presenting && touring => state.tour_next(),
                "PageUp" if presenting && touring => state.tour_prev(),
                "Escape" if presenting => {
                    if state.blank.get_untracked() {
                        state.blank.set(false);
                    } else {
                        state.set_presenter(false);
                    }
                }
                _ => return,
            }
            ev.prevent_default();
        });
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback_and_bool(
            "keydown",
            cb.as_ref().unchecked_ref(),
            true,
        );
    }
    // The app root lives as long as the page.
    cb.forget();
}

/// Installs the keys and keeps the document's `presenting` class (the CSS's large type and
/// hidden chrome) in step with the signal.
pub fn install(state: AppState) {
    install_keys(state);
    Effect::new(move |prev: Option<bool>| {
        let on = state.presenter.get();
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
    let state = AppState::get();
    view! {
        <button
            type="button"
            class="presenter-toggle"
            data-testid="presenter-toggle"
            aria-pressed=move || state.presenter.get().to_string()
            title=move || if state.presenter.get() {
                "Leave presenter mode (P or Escape)"
            } else {
                "Presenter mode: large type, map, free lists and narration; PageDown/PageUp step, B blanks, F full screen (P)"
            }
            on:click=move |_| state.set_presenter(!state.presenter.get_untracked())
        >
            {move || if state.presenter.get() { "Exit presenter" } else { "Present" }}
        </button>
    }
}

/// The tour's caption and "stop i/n" (presenter mode), or a hint to start it.
#[component]
pub fn TourBar() -> impl IntoView {
    let state = AppState::get();
    let stops = Memo::new(move |_| {
        state
            .with(|s| {
                s.scenario
                    .tour
                    .iter()
                    .map(|t| t.caption.clone())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    // The caption shows only while the cursor is at its stop (`tour_here`).
    let current = move || {
        let i = state.tour_stop.get()?;
        let caps = stops.get();
        let here = state.tour_here() == Some(i);
        caps.get(i).map(|c| (i, caps.len(), c.clone(), here))
    };
    let name = move || state.with(|s| s.scenario.name.clone()).unwrap_or_default();
    let error = move || {
        state.tour_error().map(|e| {
            view! { <p class="tour-error" data-testid="tour-error" role="alert">{format!("The tour cannot play: {e}")}</p> }
        })
    };
    let notice = move || {
        state.tour_notice.get().map(|m| {
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

/// The tour bar once the cursor has left stop `i` of `n` (its caption no longer describes the
/// screen).
pub fn off_stop_hint(i: usize, n: usize) -> String {
    let back = format!("PageUp goes back to stop {}", i + 1);
    if i + 1 < n {
        format!("Moved off the stop: {back}, PageDown on to stop {}.", i + 2)
    } else {
        format!("Moved off the last stop: {back}.")
    }
}

/// The black screen of `B` / `.`.
#[component]
pub fn BlankScreen() -> impl IntoView {
    let state = AppState::get();
    view! {
        <Show when=move || state.blank.get() && state.presenter.get()>
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
        assert_eq!(stop_label(0, 4), "stop 1/4");
    }

    #[test]
    fn a_tour_query_beyond_the_tour_says_which_stops_there_are() {
        assert_eq!(tour_query("3", 4), Ok(2));
        assert_eq!(tour_query("1", 1), Ok(0));
        let e = tour_query("99", 6).unwrap_err();
        assert!(
            e.contains("no stop 99") && e.contains("6 stops") && e.contains("?tour=6"),
            "{e}"
        );
        let e = tour_query("0", 6).unwrap_err();
        assert!(e.contains("no stop 0"), "{e}");
        assert!(tour_query("two", 6)
            .unwrap_err()
            .contains("not a stop number"));
        assert!(tour_query("1", 0).unwrap_err().contains("no tour"));
        assert!(
            off_stop_hint(1, 4).contains("back to stop 2")
                && off_stop_hint(1, 4).contains("stop 3")
        );
        assert!(off_stop_hint(3, 4).contains("last stop"));
    }
}
