//! buddyscope web UI: a Leptos client-side-rendered app compiled to WebAssembly by trunk.

mod app;
mod browser;
mod compare;
mod embed;
mod exercise;
mod panels;
mod panic_banner;
mod presenter;
mod saved;
mod share;
mod state;
mod theme;

fn main() {
    // First thing: a panic anywhere below shows a visible banner, never a blank page.
    panic_banner::install();
    leptos::mount::mount_to_body(app::App);
    panic_banner::maybe_debug_panic();
}
