//! Saved work as the model sees it: the listing of `localStorage`'s entries (the shell reads
//! the store, sets damaged entries aside and reports the listing, [`SavedCommand::Listing`]),
//! saving the editor's scenario, opening and deleting an entry, and the last position. The
//! entry format is [`crate::saved`]; every write is an [`Effect::Store`].

use super::{Effect, Model};
use crate::saved::{self, Entry, Listed, Progress, Saved, LAST_KEY};

/// The saved work the page knows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedWork {
    /// False in the embedded view (it leaves the user's store alone) until the store is read.
    pub enabled: bool,
    /// Readable entries, newest first, without the last position.
    pub entries: Vec<Listed>,
    /// The last position saved when the page was left, as read at start-up.
    pub last: Option<Entry>,
    /// One message per damaged entry set aside or write refused.
    pub errors: Vec<String>,
    /// What the last save/open/delete did (a polite live region).
    pub status: String,
}

impl SavedWork {
    /// The progress saved under `key`, if any.
    pub fn progress_at(&self, key: &str) -> Option<Progress> {
        self.entries
            .iter()
            .find(|l| l.key == key)
            .and_then(|l| match &l.entry.data {
                Saved::Progress(p) => Some(p.clone()),
                _ => None,
            })
    }

    /// The saved progress of a set, if any.
    pub fn progress(&self, set_id: &str) -> Option<Progress> {
        self.progress_at(&saved::progress_key(set_id))
    }
}

/// A write to `localStorage`. An entry's `saved_at` is stamped by the shell when it writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreWrite {
    Put { key: String, entry: Entry },
    Remove { key: String },
}

/// What the saved-work panel and the shell's store ask.
#[derive(Clone, Debug, PartialEq)]
pub enum SavedCommand {
    /// The store as read (at start-up, and after every write): readable entries (the last
    /// position among them), the messages about damaged entries, and the status to show.
    Listing {
        entries: Vec<Listed>,
        errors: Vec<String>,
        status: Option<String>,
    },
    /// The browser refused to store the entry named `name`.
    Refused {
        name: String,
    },
    /// The editor's text and the position under `name` (the scenario's name when empty);
    /// `stamp` (the time in ms) makes its key unique.
    SaveScenario {
        name: String,
        stamp: u64,
    },
    /// Opens a listed entry: a scenario at its position, an exercise set at its question.
    Open(String),
    Delete(String),
    DismissErrors,
}

pub(super) fn update(m: &mut Model, c: SavedCommand, fx: &mut Vec<Effect>) {
    let w = &mut m.saved;
    match c {
        SavedCommand::Listing {
            entries,
            errors,
            status,
        } => {
            w.enabled = true;
            let (last, entries): (Vec<_>, Vec<_>) =
                entries.into_iter().partition(|l| l.key == LAST_KEY);
            // The last position is the one read at start-up: later writes of it are this
            // page's own.
            if w.last.is_none() {
                w.last = last.into_iter().next().map(|l| l.entry);
            }
            w.entries = entries;
            w.errors.extend(errors);
            if let Some(s) = status {
                w.status = s;
            }
        }
        SavedCommand::Refused { name } => w.errors.push(format!(
            "Could not save \u{201c}{name}\u{201d}: the browser refused to store it \
             (storage full or disabled)."
        )),
        SavedCommand::SaveScenario { name, stamp } => {
            let main = m.main();
            let typed = name.trim();
            let title = if typed.is_empty() {
                main.scenario.name.clone()
            } else {
                typed.to_string()
            };
            let entry = Entry::new(
                title.clone(),
                "",
                Saved::Scenario {
                    text: m.editor_text.clone(),
                    id: m.scenario_id.clone(),
                    pos: main.timeline.pos(),
                },
            );
            fx.push(super::store_put(
                saved::scenario_key(stamp),
                entry,
                Some(format!("Saved \u{201c}{title}\u{201d}.")),
            ));
        }
        SavedCommand::Open(key) => {
            let Some(l) = w.entries.iter().find(|l| l.key == key).cloned() else {
                return;
            };
            let label = l.entry.name;
            match l.entry.data {
                Saved::Scenario { text, id, pos } => {
                    let id = super::builtin_id(&id, &text);
                    if super::load_text(m, &text, id, fx).is_ok() {
                        super::when_loaded(m, super::AfterLoad::Seek(pos), fx);
                    }
                }
                Saved::Progress(p) => super::exercises::open_text(m, &p.set_text, &p.set_id, fx),
                Saved::Last { .. } => return,
            }
            m.saved.status = format!("Opened \u{201c}{label}\u{201d}.");
        }
        SavedCommand::Delete(key) => {
            let name = w
                .entries
                .iter()
                .find(|l| l.key == key)
                .map(|l| l.entry.name.clone())
                .unwrap_or_default();
            fx.push(Effect::Store {
                write: StoreWrite::Remove { key },
                status: Some(format!("Deleted \u{201c}{name}\u{201d}.")),
            });
        }
        SavedCommand::DismissErrors => w.errors.clear(),
    }
}

impl Model {
    /// The last position, as a `Last` entry for the run on screen (`None` for a replayed trace:
    /// its text is a start state, not the run), with the open exercise set.
    pub fn last_entry(&self) -> Option<Entry> {
        let main = self.main();
        main.replay.is_none().then(|| {
            Entry::new(
                main.scenario.name.clone(),
                "",
                Saved::Last {
                    text: main.text.clone(),
                    id: self.scenario_id.clone(),
                    pos: main.timeline.pos(),
                    exercises: self.exercises.progress_key(),
                },
            )
        })
    }
}
