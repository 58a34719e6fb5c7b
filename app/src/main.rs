//! buddyscope web UI: a Leptos client-side-rendered app compiled to WebAssembly by trunk.

mod app;
mod bench;
mod browser;
mod compare;
mod embed;
mod exercise;
mod panels;
mod panic_banner;
mod presenter;
mod runjob;
mod saved;
mod share;
mod state;
mod theme;

fn main() {
    // The run worker (`runjob`) loads this same wasm: there is no page to mount in a worker.
    if web_sys::window().is_none() {
        return;
    }
    // First thing: a panic anywhere below shows a visible banner, never a blank page.
    panic_banner::install();
    bench::install();
    leptos::mount::mount_to_body(app::App);
    panic_banner::maybe_debug_panic();
}
