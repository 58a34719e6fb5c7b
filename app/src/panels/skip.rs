//! The skip link: the first thing Tab reaches, it moves keyboard focus past the header's
//! controls to the main content (the map and the free lists; the two sides in compare mode).
//! It only shows while focused.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The id of the `<main>` the skip link targets (one `<main>` carries it in each view).
pub const MAIN_ID: &str = "main";

#[component]
pub fn SkipLink() -> impl IntoView {
    view! {
        <a
            class="skip-link"
            data-testid="skip-link"
            href=format!("#{MAIN_ID}")
            on:click=move |ev: web_sys::MouseEvent| {
                // Focus the target without touching the URL: its fragment may be a share link.
                let main = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(MAIN_ID))
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(main) = main {
                    ev.prevent_default();
                    let _ = main.focus();
                    main.scroll_into_view();
                }
            }
        >
            "Skip to the map and the free lists"
        </a>
    }
}
