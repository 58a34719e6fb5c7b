//! `window.__buddyscopeBench(kind, n, record)`: the engine benchmark's mixed sequence run in
//! wasm, for the browser harness (`e2e/bench`) to set beside the native figure of
//! `buddyscope bench-engine` and the criterion bench (BENCHMARKS.md, "wasm vs native"). The same
//! library code as natively: [`buddyscope::bench::mixed_sequence`] on a booted 1 GiB zone.

use wasm_bindgen::prelude::*;

use crate::browser::now_ms;

/// Milliseconds the engine takes for `n` steps of `kind` (`"mixed"`), recording the event
/// trace or not, by `clock` (ms); generating the sequence and booting the zone are not timed.
/// `NaN` for an unknown kind.
pub fn run(kind: &str, n: usize, record: bool, clock: &dyn Fn() -> f64) -> f64 {
    match kind {
        "mixed" => {
            let seq = buddyscope::bench::mixed_sequence(n);
            let mut e = buddyscope::bench::mixed_engine(record);
            let t0 = clock();
            std::hint::black_box(buddyscope::bench::run_mixed_engine(&mut e, &seq));
            let ms = clock() - t0;
            drop(e);
            ms
        }
        _ => f64::NAN,
    }
}

/// Installs the hook on `window` (a few hundred bytes of wasm; nothing runs until called).
pub fn install() {
    let f = Closure::<dyn Fn(String, u32, bool) -> f64>::new(|kind: String, n: u32, record| {
        run(&kind, n as usize, record, &now_ms)
    });
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &"__buddyscopeBench".into(), f.as_ref());
    }
    f.forget();
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    #[test]
    fn times_only_the_engine_run_and_refuses_unknown_kinds() {
        let ticks = Cell::new(0.0);
        let clock = || {
            ticks.set(ticks.get() + 5.0);
            ticks.get()
        };
        for record in [false, true] {
            assert_eq!(super::run("mixed", 1000, record, &clock), 5.0);
        }
        assert!(super::run("nope", 10, false, &clock).is_nan());
        assert_eq!(ticks.get(), 20.0);
    }
}
