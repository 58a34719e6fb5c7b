//! Light/dark theme: "auto" follows `prefers-color-scheme`; "light"/"dark" set `data-theme` on
//! `<html>` (www/style.css keys its colours on both). The choice persists in localStorage; an inline
//! script in www/index.html applies it before the first paint.

const STORAGE_KEY: &str = "buddyscope-theme";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn parse(s: &str) -> Option<Theme> {
        match s {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The next theme in the toggle's cycle.
    pub fn next(self) -> Theme {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The stored theme, or `Auto`.
pub fn initial() -> Theme {
    storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|v| Theme::parse(&v))
        .unwrap_or(Theme::Auto)
}

/// Sets (or, for `Auto`, removes) `data-theme` on `<html>` and remembers the choice.
pub fn apply(theme: Theme) {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element());
    if let Some(root) = root {
        let _ = match theme {
            Theme::Auto => root.remove_attribute("data-theme"),
            other => root.set_attribute("data-theme", other.as_str()),
        };
    }
    if let Some(s) = storage() {
        let _ = s.set_item(STORAGE_KEY, theme.as_str());
    }
}
