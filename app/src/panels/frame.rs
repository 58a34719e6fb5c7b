//! The frame every boxed panel shares: a titled `<section>` with an optional one-line summary,
//! tools (e.g. the map's zoom), a help line, and a button that collapses the body.

use leptos::prelude::*;

use crate::shell::SideSlot;

/// `key` names the panel: the section gets the classes `panel {key}-panel`, the id
/// `{key}-panel` and the heading id `{key}-heading` (the section is labelled by it). Inside a
/// compare side the ids start with the side (`a-map-panel`), so the two sides' copies of a
/// panel never share an id (`aria-labelledby` must name one element).
#[component]
pub fn PanelFrame(
    key: &'static str,
    title: &'static str,
    /// `data-testid` of the section, if the tests address the panel as a whole.
    #[prop(optional)]
    testid: Option<&'static str>,
    /// A short live summary beside the title (monospace, muted).
    #[prop(optional, into)]
    sub: Option<Signal<String>>,
    /// Controls at the right of the head.
    #[prop(optional, into)]
    tools: Option<ViewFnOnce>,
    /// One sentence on how to read the panel.
    #[prop(optional)]
    help: Option<&'static str>,
    children: Children,
) -> impl IntoView {
    let open = RwSignal::new(true);
    let side_run = use_context::<SideSlot>();
    let side = side_run
        .map(|SideSlot(s)| format!("{}-", s.as_str()))
        .unwrap_or_default();
    // A compare side's panel is named with its side ("Memory map, side A"): landmarks of the
    // same name would be indistinguishable.
    let side_label =
        side_run.map(|SideSlot(s)| format!("{title}, side {}", s.as_str().to_ascii_uppercase()));
    let heading = format!("{side}{key}-heading");
    let labelledby = heading.clone();
    let body = format!("{side}{key}-body");
    let controls = body.clone();
    view! {
        <section
            class=format!("panel {key}-panel")
            id=format!("{side}{key}-panel")
            data-testid=testid
            aria-labelledby=side_label.is_none().then_some(labelledby)
            aria-label=side_label
        >
            <div class="panel-head">
                <h2 id=heading>{title}</h2>
                {sub.map(|s| view! { <span class="panel-sub">{move || s.get()}</span> })}
                {tools.map(|t| view! { <div class="panel-tools">{t.run()}</div> })}
                <button
                    type="button"
                    class="panel-collapse"
                    aria-expanded=move || open.get().to_string()
                    aria-controls=controls
                    title=move || if open.get() { format!("Collapse {title}") } else { format!("Expand {title}") }
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    {move || if open.get() { "\u{25be}" } else { "\u{25b8}" }}
                </button>
            </div>
            <div class="panel-body" id=body hidden=move || !open.get()>
                {help.map(|h| view! { <p class="panel-help">{h}</p> })}
                {children()}
            </div>
        </section>
    }
}
