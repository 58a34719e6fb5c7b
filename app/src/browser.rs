//! The few browser facts the app reads outside the panels: the query string and a clock (and,
//! in a build with the `bench` feature, timings exposed on `window` for the benchmarks).

/// The value of `name` in the page's query string.
pub fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    crate::model::route::param_in(&search, name)
}

/// `performance.now()` in milliseconds (0 outside a browser).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Sets `window[name] = value` (timings the benchmark harnesses read).
#[cfg(feature = "bench")]
pub fn expose(name: &str, value: f64) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &value.into());
    }
}
