//! The "Saved work" panel: save the editor's scenario under a name, the list of saved entries
//! (open, delete), export them all, and what could not be read. The store is the model's
//! ([`crate::model::work`]) and the shell's (`crate::shell::storage`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::PanelFrame;
use super::scenario::set_download_href;
use crate::model::work::SavedCommand;
use crate::model::{Command, Slot};
use crate::saved::{self, Listed, Saved};
use crate::shell::storage::iso_now;
use crate::shell::{Shell, View};

#[component]
pub fn SavedPanel() -> impl IntoView {
    let shell = Shell::get();
    let ui = shell.ui;
    if !ui.saved.with_untracked(|w| w.enabled) {
        return ().into_any();
    }
    let name = RwSignal::new(String::new());
    let save = move || {
        let refusals = shell.read(|m| m.saved.errors.len());
        shell.dispatch(Command::Saved(SavedCommand::SaveScenario {
            name: name.get_untracked(),
            stamp: js_sys::Date::now() as u64,
        }));
        // Cleared once saved; a refused write keeps the name to try again.
        if shell.read(|m| m.saved.errors.len()) == refusals {
            name.set(String::new());
        }
    };
    let main = View {
        shell,
        slot: Slot::Main,
    };

    let rows = move || {
        ui.saved
            .with(|w| w.entries.clone())
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let Listed { key, entry } = l;
                let del_key = key.clone();
                let detail = match &entry.data {
                    Saved::Progress(p) => format!("exercise progress \u{b7} score {}", p.score_text()),
                    Saved::Scenario { pos, .. } => format!("scenario \u{b7} event {pos}"),
                    other => other.kind_label().to_string(),
                };
                let open = move |_| shell.dispatch(Command::Saved(SavedCommand::Open(key.clone())));
                view! {
                    <li class="saved-item" data-testid=format!("saved-item-{i}")>
                        <span class="saved-item-name">{entry.name.clone()}</span>
                        <span class="saved-item-detail muted small">{detail}</span>
                        <time class="saved-item-date muted small" datetime=entry.saved_at.clone()>
                            {entry.date_label()}
                        </time>
                        <span class="saved-item-actions">
                            <button
                                type="button"
                                data-testid=format!("saved-open-{i}")
                                aria-label=format!("Open {}", entry.name)
                                on:click=open
                            >
                                "Open"
                            </button>
                            <button
                                type="button"
                                data-testid=format!("saved-delete-{i}")
                                aria-label=format!("Delete {}", entry.name)
                                on:click=move |_| {
                                    shell.dispatch(Command::Saved(SavedCommand::Delete(del_key.clone())));
                                }
                            >
                                "Delete"
                            </button>
                        </span>
                    </li>
                }
            })
            .collect_view()
    };

    view! {
        <PanelFrame
            key="saved"
            title="Saved work"
            testid="saved-panel"
            help="Kept in this browser (localStorage): your scenarios, exercise progress and where you were. Export them to keep a copy."
        >
            <div class="saved-save">
                <label class="field saved-name-field">
                    <span>"Name"</span>
                    <input
                        type="text"
                        data-testid="saved-name"
                        placeholder=move || main.with_run(|s| s.scenario.name.clone()).unwrap_or_default()
                        prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev))
                        on:keydown=move |ev: web_sys::KeyboardEvent| {
                            if ev.key() == "Enter" {
                                ev.prevent_default();
                                save();
                            }
                        }
                    />
                </label>
                <button
                    type="button"
                    class="primary"
                    data-testid="saved-save"
                    title="Save the editor's scenario text and the position under this name"
                    on:click=move |_| save()
                >
                    "Save scenario"
                </button>
                <a
                    class="link-button"
                    href="#"
                    download="buddyscope-saved.json"
                    data-testid="saved-export"
                    title="Download every saved entry as one JSON file"
                    on:click=move |ev| {
                        if let Some(a) = ev
                            .current_target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlAnchorElement>().ok())
                        {
                            let text = ui.saved.with_untracked(|w| saved::export(&w.entries, &iso_now()));
                            set_download_href(&a, &text);
                        }
                    }
                >
                    "Export all (JSON)"
                </a>
            </div>
            <Show when=move || ui.saved.with(|w| !w.errors.is_empty())>
                <div class="saved-error" data-testid="saved-error" role="alert">
                    <p><strong>"\u{26a0} Some saved work could not be read"</strong></p>
                    <ul>
                        {move || {
                            ui.saved
                                .with(|w| w.errors.clone())
                                .into_iter()
                                .map(|m| view! { <li>{m}</li> })
                                .collect_view()
                        }}
                    </ul>
                    <button type="button" on:click=move |_| shell.dispatch(Command::Saved(SavedCommand::DismissErrors))>
                        "Dismiss"
                    </button>
                </div>
            </Show>
            <p class="saved-status muted small" role="status" aria-live="polite">
                {move || ui.saved.with(|w| w.status.clone())}
            </p>
            <Show
                when=move || ui.saved.with(|w| !w.entries.is_empty())
                fallback=|| view! { <p class="muted small">"Nothing saved yet."</p> }
            >
                <ul class="saved-list" aria-label="Saved entries">{rows}</ul>
            </Show>
        </PanelFrame>
    }
    .into_any()
}
