//! The thin shell between saved work ([`crate::saved`], [`crate::model::work`]) and the
//! browser's `localStorage`: reading and quarantining, writing, and keeping the last position.
//!
//! `localStorage` can be missing or refuse a write (privacy settings, a full quota); every such
//! failure is a message in the saved-work panel, never a panic.

use std::time::Duration;

use leptos::prelude::*;

use super::Shell;
use crate::model::work::{SavedCommand, StoreWrite};
use crate::model::{Command, Slot};
use crate::saved::{self, LAST_KEY};

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

/// Reads the store (moving damaged entries to their quarantine keys) and reports the listing
/// to the model, with `status`.
pub fn load(shell: Shell, status: Option<String>) {
    let Some(s) = storage() else {
        shell.dispatch(Command::Saved(SavedCommand::Listing {
            entries: Vec::new(),
            errors: Vec::new(),
            status,
        }));
        return;
    };
    let items = stored_items(&s);
    let listing =
        (crate::late::get().read_saved)(items.clone(), &|k| s.get_item(k).ok().flatten().is_some());
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
    shell.dispatch(Command::Saved(SavedCommand::Listing {
        entries: listing.entries,
        errors,
        status,
    }));
}

/// Performs a write; on success reads the store again (with `status`), else says which entry
/// was refused.
pub fn write(shell: Shell, w: StoreWrite, status: Option<String>) {
    match w {
        StoreWrite::Put { key, mut entry } => {
            entry.saved_at = iso_now();
            let ok = storage().is_some_and(|s| s.set_item(&key, &entry.to_json()).is_ok());
            if ok {
                load(shell, status);
            } else {
                shell.dispatch(Command::Saved(SavedCommand::Refused { name: entry.name }));
            }
        }
        StoreWrite::Remove { key } => {
            if let Some(s) = storage() {
                let _ = s.remove_item(&key);
            }
            load(shell, status);
        }
    }
}

/// Keeps the last position saved: shortly after every change (at most one write per 0.5 s
/// while playing) and when the page is left.
pub fn keep_last_position(shell: Shell) {
    let pending = StoredValue::new(false);
    let write = move || {
        pending.set_value(false);
        if let Some(mut e) = shell.read(|m| m.last_entry()) {
            e.saved_at = iso_now();
            if let Some(s) = storage() {
                // A refused write of the last position is not worth a message per step.
                let _ = s.set_item(LAST_KEY, &e.to_json());
            }
        }
    };
    Effect::new(move |first: Option<()>| {
        shell.cursor(Slot::Main);
        shell.ui.exercise.with(|x| x.rev);
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
