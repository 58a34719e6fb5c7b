//! buddyscope web UI: a Leptos client-side-rendered app compiled to WebAssembly by trunk.
//!
//! `model` is the app as data, commands and one update (no Leptos, tested natively); `shell`
//! holds it in Leptos, performs its effects and tells the views what changed; `panels` are the
//! views. `runjob` is the run worker, `embed` the embedded view's message API.

mod app;
#[cfg(feature = "bench")]
mod bench;
mod browser;
mod captures;
mod embed;
mod exercise;
mod late;
mod model;
mod panels;
mod panic_banner;
mod prefs;
mod presenter;
mod runjob;
mod saved;
mod share;
mod shell;
#[cfg(test)]
mod testutil;
mod theme;

fn main() {
    // The run worker (`runjob`) loads this same wasm: there is no page to mount in a worker.
    if web_sys::window().is_none() {
        return;
    }
    // First thing: a panic anywhere below shows a visible banner, never a blank page.
    panic_banner::install();
    #[cfg(feature = "bench")]
    bench::install();
    // The default scenario's first frame needs no run; any other start (a share link, a
    // built-in, compare mode, an exercise set, the embedded view, saved work to reopen) runs a
    // scenario before its first frame, so the runner's module comes first.
    if app::opens_the_default() {
        leptos::mount::mount_to_body(app::App);
        panic_banner::maybe_debug_panic();
    } else {
        wasm_bindgen_futures::spawn_local(async {
            shell::runner::load().await;
            leptos::mount::mount_to_body(app::App);
            panic_banner::maybe_debug_panic();
        });
    }
}
