//! The UI preferences, in their own context: the theme (`crate::theme`), the map following the
//! action, the playback speed, presenter mode and its blanked screen. They change how things
//! look and move, never the run; the model only hears of presenter mode through
//! [`crate::model::Command::Present`] (its tour starts and ends with it).

use leptos::prelude::*;

use crate::theme::ThemeState;

/// Handles to the preferences. `Copy`.
#[derive(Clone, Copy)]
pub struct Prefs {
    pub theme: ThemeState,
    /// The map follows the action outside presenter mode too (it always does inside).
    pub follow: RwSignal<bool>,
    /// Playback speed in visible events per second (exponential steps in the UI).
    pub speed: RwSignal<f64>,
    /// Presenter mode: large type, no chrome (see `crate::presenter`).
    pub presenter: RwSignal<bool>,
    /// The screen is blanked (`B` / `.` in presenter mode).
    pub blank: RwSignal<bool>,
}

impl Prefs {
    /// The defaults (the theme as stored), provided as context.
    pub fn provide() -> Prefs {
        let p = Prefs {
            theme: ThemeState::provide(),
            follow: RwSignal::new(false),
            speed: RwSignal::new(8.0),
            presenter: RwSignal::new(false),
            blank: RwSignal::new(false),
        };
        provide_context(p);
        p
    }

    /// Presenter mode on or off, and following; off also un-blanks.
    pub fn set_presenter(&self, on: bool, follow: Option<bool>) {
        self.presenter.set(on);
        if let Some(f) = follow {
            self.follow.set(f);
        }
        if !on {
            self.blank.set(false);
        }
    }
}
