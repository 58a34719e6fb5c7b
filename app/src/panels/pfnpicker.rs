//! The pfn box the page history and "where is this page" share: a text field (hex `0x…` or
//! decimal), a button, and the reading's error beside them. What a pfn means is the caller's:
//! it reads the text and says why it is not one.

use leptos::prelude::*;

/// `prefix` names the parts for the tests: `{prefix}-pfn` (the box), `{prefix}-show` (the
/// button) and `{prefix}-pfn-error` (the message). `pick` acts on the typed text; its error is
/// shown in `error`, which the caller may also clear (another page picked, another run).
#[component]
pub fn PfnPicker(
    prefix: &'static str,
    /// The button's label.
    button: &'static str,
    pick: Callback<String, Result<(), String>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    view! {
        <form
            class="history-pick"
            on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                error.set(pick.run(typed.get_untracked()).err());
            }
        >
            <label>
                "pfn "
                <input
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    size="10"
                    data-testid=format!("{prefix}-pfn")
                    placeholder="0x\u{2026}"
                    prop:value=move || typed.get()
                    on:input=move |ev| typed.set(event_target_value(&ev))
                />
            </label>
            <button type="submit" data-testid=format!("{prefix}-show")>{button}</button>
            <span class="history-pick-error" role="status" data-testid=format!("{prefix}-pfn-error")>
                {move || error.get()}
            </span>
        </form>
    }
}
