//! The few browser facts the app reads outside the panels: the query string, a clock, and
//! numbers exposed on `window` for the e2e tests and the console.

/// The value of `name` in a query string such as `?scenario=fallback-claim&debug-panic`
/// (`Some("")` for a bare flag).
pub fn param_in(search: &str, name: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The value of `name` in the page's query string.
pub fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    param_in(&search, name)
}

/// `performance.now()` in milliseconds (0 outside a browser).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Sets `window[name] = value` (numbers the e2e tests and the console can read).
pub fn expose(name: &str, value: f64) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &value.into());
    }
}

#[cfg(test)]
mod tests {
    use super::param_in;

    #[test]
    fn finds_values_and_bare_flags() {
        let q = "?scenario=fallback-claim&debug-panic";
        assert_eq!(param_in(q, "scenario").as_deref(), Some("fallback-claim"));
        assert_eq!(param_in(q, "debug-panic").as_deref(), Some(""));
        assert_eq!(param_in(q, "debug"), None);
        assert_eq!(param_in("", "scenario"), None);
    }
}
