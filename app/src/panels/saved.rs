//! The "Saved work" panel and the thin shell between [`crate::saved`] (the pure store) and the
//! browser's `localStorage`: reading and quarantining at start-up, saving the user's scenario,
//! exercise progress and the last position, listing, opening, deleting and exporting.
//!
//! `localStorage` can be missing or refuse a write (privacy settings, a full quota); every such
//! failure is a message in `saved-error`, never a panic.

use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

use super::exercises::ExerciseCtl;
use super::frame::PanelFrame;
use super::scenario::set_download_href;
use crate::saved::{self, Entry, Listed, Progress, Saved, LAST_KEY};
use crate::state::AppState;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Now as an ISO 8601 UTC time.
pub fn iso_now() -> String {
    js_sys::Date::new_0()
        .to_iso_string()
        .as_string()
        .unwrap_or_default()
}

/// Every `(key, raw text)` in `localStorage` under the store's prefix.
fn stored_items(s: &web_sys::Storage) -> Vec<(String, String)> {
    let n = s.length().unwrap_or(0);
    (0..n)
        .filter_map(|i| s.key(i).ok().flatten())
        .filter(|k| k.starts_with(saved::PREFIX))
        .filter_map(|k| s.get_item(&k).ok().flatten().map(|v| (k, v)))
        .collect()
}

/// The store as the page sees it: readable entries (the list, with the last position apart)
/// and the messages about damaged entries and refused writes.
#[derive(Clone, Copy)]
pub struct SavedStore {
    /// Readable entries, newest first, without the last position.
    pub entries: RwSignal<Vec<Listed>>,
    /// The last position saved when the page was left, as read at start-up.
    pub last: StoredValue<Option<Entry>>,
    /// One message per damaged entry set aside or write refused.
    pub errors: RwSignal<Vec<String>>,
    /// What the last save/delete did (a polite live region).
    pub status: RwSignal<String>,
}

impl SavedStore {
    /// Reads the store (moving damaged entries to their quarantine keys) and provides it.
    pub fn provide() -> SavedStore {
        let st = SavedStore {
            entries: RwSignal::new(Vec::new()),
            last: StoredValue::new(None),
            errors: RwSignal::new(Vec::new()),
            status: RwSignal::new(String::new()),
        };
        st.reload();
        provide_context(st);
        st
    }

    pub fn get() -> Option<SavedStore> {
        use_context::<SavedStore>()
    }

    /// Re-reads `localStorage`; damaged entries are reported and moved aside.
    pub fn reload(&self) {
        let Some(s) = storage() else {
            self.entries.set(Vec::new());
            return;
        };
        let items = stored_items(&s);
        let listing = saved::read_all(items.clone(), |k| s.get_item(k).ok().flatten().is_some());
        let mut errors = Vec::new();
        for p in &listing.problems {
            let raw = items
                .iter()
                .find(|(k, _)| *k == p.key)
                .map(|(_, v)| v.as_str())
                .unwrap_or_default();
            // Copy first, remove only once the copy is stored: nothing is ever lost.
            match s.set_item(&p.quarantine_key, raw) {
                Ok(()) => {
                    let _ = s.remove_item(&p.key);
                    errors.push(p.to_string());
                }
                Err(_) => errors.push(format!(
                    "Saved entry \u{201c}{}\u{201d} ({}) could not be opened: it is {}. It could \
                     not be set aside (the browser refused the write) and is left as it was.",
                    p.name, p.key, p.error
                )),
            }
        }
        let (last, entries): (Vec<_>, Vec<_>) =
            listing.entries.into_iter().partition(|l| l.key == LAST_KEY);
        self.last
            .set_value(last.into_iter().next().map(|l| l.entry));
        self.entries.set(entries);
        if !errors.is_empty() {
            self.errors.update(|e| e.extend(errors));
        }
    }

    /// Writes `entry` under `key`; a refused write is reported under the entry's name.
    pub fn put(&self, key: &str, entry: &Entry) -> bool {
        let ok = storage().is_some_and(|s| s.set_item(key, &entry.to_json()).is_ok());
        if !ok {
            self.errors.update(|e| {
                e.push(format!(
                    "Could not save \u{201c}{}\u{201d}: the browser refused to store it \
                     (storage full or disabled).",
                    entry.name
                ))
            });
        }
        ok
    }

    /// Saves (or replaces) an exercise set's progress and refreshes the list.
    pub fn put_progress(&self, title: &str, p: Progress) {
        let key = saved::progress_key(&p.set_id);
        if self.put(&key, &Entry::new(title, iso_now(), Saved::Progress(p))) {
            self.reload();
        }
    }

    /// The saved progress of a set, if any.
    pub fn progress(&self, set_id: &str) -> Option<Progress> {
        self.progress_at(&saved::progress_key(set_id))
    }

    /// The progress saved under `key`, if any.
    pub fn progress_at(&self, key: &str) -> Option<Progress> {
        self.entries.with_untracked(|es| {
            es.iter()
                .find(|l| l.key == key)
                .and_then(|l| match &l.entry.data {
                    Saved::Progress(p) => Some(p.clone()),
                    _ => None,
                })
        })
    }

    pub fn delete(&self, key: &str) {
        if let Some(s) = storage() {
            let _ = s.remove_item(key);
        }
        self.reload();
    }
}

/// The last position, as a `Last` entry for the run on screen (`None` for a replayed trace: its
/// text is a start state, not the run).
fn last_entry(state: &AppState, exercises: Option<String>) -> Option<Entry> {
    let id = state.scenario_id.get_untracked();
    state
        .with_untracked(|s| {
            s.replay.is_none().then(|| {
                Entry::new(
                    s.scenario.name.clone(),
                    iso_now(),
                    Saved::Last {
                        text: s.text.clone(),
                        id: id.clone(),
                        pos: s.timeline.pos(),
                        exercises: exercises.clone(),
                    },
                )
            })
        })
        .flatten()
}

/// Keeps the last position saved: shortly after every change (at most one write per 0.5 s
/// while playing) and when the page is left. `exercises` gives the open set's progress key.
pub fn install_last_position(
    state: AppState,
    exercises: impl Fn() -> Option<String> + Copy + 'static,
) {
    let pending = StoredValue::new(false);
    let write = move || {
        pending.set_value(false);
        if let Some(e) = last_entry(&state, exercises()) {
            if let Some(s) = storage() {
                // A refused write of the last position is not worth a message per step.
                let _ = s.set_item(LAST_KEY, &e.to_json());
            }
        }
    };
    Effect::new(move |first: Option<()>| {
        state.version.track();
        // Not at start-up: that would overwrite the position about to be restored.
        if first.is_none() || pending.get_value() {
            return;
        }
        pending.set_value(true);
        set_timeout(write, Duration::from_millis(500));
    });
    let h = window_event_listener_untyped("pagehide", move |_| write());
    on_cleanup(move || h.remove());
}

/// Restores the last position saved (at start-up, when the URL asks for nothing else). Returns
/// the open exercise set's progress key, if one was open.
pub fn restore_last(store: SavedStore, state: &AppState) -> Option<String> {
    let entry = store.last.get_value()?;
    let Saved::Last {
        text,
        id,
        pos,
        exercises,
    } = entry.data
    else {
        return None;
    };
    let id = match buddyscope::builtin::get(&id) {
        Some(b) if b.json == text => b.id,
        _ => "custom",
    };
    // The default scenario is on screen already: a second run of it would only cost time.
    let same = state.with_untracked(|s| s.text == text).unwrap_or(false);
    if same || state.load_text(&text, id).is_ok() {
        // A long run reopens in the worker: its position waits for it.
        let st = *state;
        crate::runjob::when_loaded(state, move |loaded| {
            if loaded.is_ok() {
                st.seek(pos)
            }
        });
    }
    exercises
}

/// Opens a saved scenario: its text in the editor, run, at its position.
fn open_scenario(state: &AppState, text: &str, id: &str, pos: u32) {
    let id = match buddyscope::builtin::get(id) {
        Some(b) if b.json == text => b.id,
        _ => "custom",
    };
    if state.load_text(text, id).is_ok() {
        let st = *state;
        crate::runjob::when_loaded(state, move |loaded| {
            if loaded.is_ok() {
                st.seek(pos)
            }
        });
    }
}

#[component]
pub fn SavedPanel() -> impl IntoView {
    let state = AppState::get();
    let Some(store) = SavedStore::get() else {
        return ().into_any();
    };
    let exercises = ExerciseCtl::get();
    let name = RwSignal::new(String::new());
    let save = move || {
        let typed = name.get_untracked().trim().to_string();
        let title = if typed.is_empty() {
            state
                .with_untracked(|s| s.scenario.name.clone())
                .unwrap_or_else(|| "scenario".to_string())
        } else {
            typed
        };
        let pos = state.with_untracked(|s| s.timeline.pos()).unwrap_or(0);
        let entry = Entry::new(
            title.clone(),
            iso_now(),
            Saved::Scenario {
                text: state.editor_text.get_untracked(),
                id: state.scenario_id.get_untracked(),
                pos,
            },
        );
        let key = saved::scenario_key(js_sys::Date::now() as u64);
        if store.put(&key, &entry) {
            name.set(String::new());
            store.status.set(format!("Saved \u{201c}{title}\u{201d}."));
            store.reload();
        }
    };

    let rows = move || {
        store
            .entries
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let Listed { key, entry } = l;
                let label = entry.name.clone();
                let del_key = key.clone();
                let del_name = label.clone();
                let data = entry.data.clone();
                let detail = match &entry.data {
                    Saved::Progress(p) => format!("exercise progress \u{b7} score {}", p.score_text()),
                    Saved::Scenario { pos, .. } => format!("scenario \u{b7} event {pos}"),
                    other => other.kind_label().to_string(),
                };
                let open = move |_| match &data {
                    Saved::Scenario { text, id, pos } => {
                        open_scenario(&state, text, id, *pos);
                        store.status.set(format!("Opened \u{201c}{label}\u{201d}."));
                    }
                    Saved::Progress(p) => {
                        if let Some(ctl) = exercises {
                            ctl.open_text(&p.set_text, &p.set_id);
                            store.status.set(format!("Opened \u{201c}{label}\u{201d}."));
                        }
                    }
                    Saved::Last { .. } => {}
                };
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
                                    store.delete(&del_key);
                                    store.status.set(format!("Deleted \u{201c}{del_name}\u{201d}."));
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
                        placeholder=move || state.with(|s| s.scenario.name.clone()).unwrap_or_default()
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
                            let text = store.entries.with_untracked(|es| saved::export(es, &iso_now()));
                            set_download_href(&a, &text);
                        }
                    }
                >
                    "Export all (JSON)"
                </a>
            </div>
            <Show when=move || store.errors.with(|e| !e.is_empty())>
                <div class="saved-error" data-testid="saved-error" role="alert">
                    <p><strong>"\u{26a0} Some saved work could not be read"</strong></p>
                    <ul>
                        {move || {
                            store
                                .errors
                                .get()
                                .into_iter()
                                .map(|m| view! { <li>{m}</li> })
                                .collect_view()
                        }}
                    </ul>
                    <button type="button" on:click=move |_| store.errors.set(Vec::new())>
                        "Dismiss"
                    </button>
                </div>
            </Show>
            <p class="saved-status muted small" role="status" aria-live="polite">
                {move || store.status.get()}
            </p>
            <Show
                when=move || store.entries.with(|e| !e.is_empty())
                fallback=|| view! { <p class="muted small">"Nothing saved yet."</p> }
            >
                <ul class="saved-list" aria-label="Saved entries">{rows}</ul>
            </Show>
        </PanelFrame>
    }
    .into_any()
}
