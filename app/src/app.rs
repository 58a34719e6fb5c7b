//! The root component.

use leptos::prelude::*;

use crate::theme;

#[component]
pub fn App() -> impl IntoView {
    let state = crate::state::AppState::provide();
    let (theme, set_theme) = signal(theme::initial());
    Effect::new(move |_| theme::apply(theme.get()));

    view! {
        <header class="site-header">
            <div class="brand">
                <h1>"buddyscope"</h1>
                <p class="tagline">"the Linux kernel buddy page allocator, step by step"</p>
            </div>
            <button
                type="button"
                class="theme-toggle"
                data-testid="theme-toggle"
                title="Switch between automatic, light and dark colours"
                on:click=move |_| set_theme.update(|t| *t = t.next())
            >
                {move || format!("Theme: {}", theme.get().as_str())}
            </button>
        </header>
        <main>
            <section class="panel" aria-labelledby="engine-heading">
                <h2 id="engine-heading">"Engine"</h2>
                <pre data-testid="engine-version">{engine_summary()}</pre>
                <p>{move || state.with(|s| format!("{}: {} events", s.scenario.name, s.timeline.len()))}</p>
            </section>
        </main>
    }
}

/// A few facts read from the engine crate (proves the wasm build links it).
fn engine_summary() -> String {
    let order = buddyscope::types::MAX_PAGE_ORDER;
    let pages = 1u64 << order;
    format!(
        "buddyscope-app {}\nMAX_PAGE_ORDER = {order}\nlargest block: order {order} = {pages} pages = {}",
        env!("CARGO_PKG_VERSION"),
        format_bytes(pages * 4096),
    )
}

/// `4194304` → `4 MiB`; exact binary units only, else bytes.
fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes;
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    format!("{value} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::format_bytes;

    #[test]
    fn formats_exact_binary_units() {
        assert_eq!(format_bytes(4 * 1024 * 1024), "4 MiB");
        assert_eq!(format_bytes(4096), "4 KiB");
        assert_eq!(format_bytes(1000), "1000 B");
    }
}
