//! Saved work: the user's scenarios, exercise progress and the last position, as versioned
//! JSON entries in `localStorage`, one key each under [`PREFIX`].
//!
//! Why one key per entry: a corrupted entry (a hand edit, a truncated write, a newer release's
//! format) then costs only itself. Such an entry is never deleted silently: [`read_all`] names
//! it with the reason and the caller moves its raw text to a key under [`QUARANTINE_PREFIX`]
//! (which the listing never reads again), so nothing is lost and the page still starts.
//!
//! Versioning: every entry carries `version`; this build writes [`STORE_VERSION`] and reads
//! every version up to it. A higher one is "saved by a newer buddyscope" and set aside like a
//! corrupted one. Pure: no browser API here (the panel in `panels/saved.rs` is the shell),
//! tested natively.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The entry format this build writes (and the newest it reads).
pub const STORE_VERSION: u32 = 1;
/// Every saved entry's key starts with this.
pub const PREFIX: &str = "buddyscope.saved.";
/// Entries that could not be read are moved under this prefix (raw text kept as it was).
pub const QUARANTINE_PREFIX: &str = "buddyscope.quarantine.";
/// The one entry holding where the user was when the page was left.
pub const LAST_KEY: &str = "buddyscope.saved.last";

/// One saved thing. Unknown fields are refused: a typo or a newer field under the same version
/// is a damaged entry, not something to half-read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub version: u32,
    /// What the list shows (the user's name for a scenario, the set title for progress).
    pub name: String,
    /// When it was written: an ISO 8601 UTC time (`Date.prototype.toISOString`).
    pub saved_at: String,
    pub data: Saved,
}

/// What an entry holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Saved {
    /// A scenario text the user saved (possibly edited, possibly not valid yet) and the event
    /// position it was at.
    Scenario { text: String, id: String, pos: u32 },
    /// Answers given in one exercise set.
    Progress(Progress),
    /// Where the user was: the run's scenario text and position, and the open exercise set
    /// (its progress key) if any.
    Last {
        text: String,
        id: String,
        pos: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exercises: Option<String>,
    },
}

/// Progress through one exercise set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// The set's id (its progress key is [`progress_key`] of it).
    pub set_id: String,
    /// The set's JSON text, so the set reopens from the saved panel even when it came from a
    /// file or a URL.
    pub set_text: String,
    /// One slot per question, in order; `None` while unanswered.
    pub answers: Vec<Option<SavedAnswer>>,
    /// The question on screen.
    pub current: usize,
}

/// A submitted answer, as the user gave it and as the engine judged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedAnswer {
    /// The answer in words ("order 3", "pfn 0x1200", "42", the choice's text).
    pub given: String,
    pub correct: bool,
}

impl Progress {
    /// Right answers.
    pub fn score(&self) -> usize {
        self.answers
            .iter()
            .filter(|a| a.as_ref().is_some_and(|a| a.correct))
            .count()
    }

    /// `"right / questions"`, e.g. `3 / 5`.
    pub fn score_text(&self) -> String {
        format!("{} / {}", self.score(), self.answers.len())
    }
}

impl Saved {
    /// The kind as the list shows it.
    pub fn kind_label(&self) -> &'static str {
        match self {
            Saved::Scenario { .. } => "scenario",
            Saved::Progress(_) => "exercise progress",
            Saved::Last { .. } => "last position",
        }
    }

    /// The key segment after [`PREFIX`] that this kind lives under.
    fn key_kind(&self) -> &'static str {
        match self {
            Saved::Scenario { .. } => "scenario",
            Saved::Progress(_) => "progress",
            Saved::Last { .. } => "last",
        }
    }
}

impl Entry {
    /// A new entry of this build's version.
    pub fn new(name: impl Into<String>, saved_at: impl Into<String>, data: Saved) -> Entry {
        Entry {
            version: STORE_VERSION,
            name: name.into(),
            saved_at: saved_at.into(),
            data,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a saved entry always serializes")
    }

    /// `2026-11-30 17:43 UTC` from the ISO time (the raw text if it is not one).
    pub fn date_label(&self) -> String {
        let s = &self.saved_at;
        match (s.get(..10), s.get(11..16), s.ends_with('Z')) {
            (Some(d), Some(t), true) if s.as_bytes().get(10) == Some(&b'T') => {
                format!("{d} {t} UTC")
            }
            _ => s.clone(),
        }
    }
}

/// The key of a saved scenario; `stamp` makes it unique (the save time in ms).
pub fn scenario_key(stamp: u64) -> String {
    format!("{PREFIX}scenario.{stamp}")
}

/// The key of an exercise set's progress (one per set id).
pub fn progress_key(set_id: &str) -> String {
    format!("{PREFIX}progress.{set_id}")
}

/// Why an entry cannot be read. The `Display` text is shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryError {
    /// Written by a newer buddyscope.
    TooNew { version: u64 },
    /// Not an entry of any version this build knows.
    Corrupt { why: String },
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryError::TooNew { version } => write!(
                f,
                "saved by a newer buddyscope (store format v{version}; this version reads \
                 v{STORE_VERSION} and older)"
            ),
            EntryError::Corrupt { why } => write!(f, "damaged ({why})"),
        }
    }
}

fn corrupt(why: impl Into<String>) -> EntryError {
    EntryError::Corrupt { why: why.into() }
}

/// Reads the entry stored under `key`: the version first (so a newer format is named as such,
/// whatever else changed), then the fields, then that the kind fits the key.
pub fn parse_entry(key: &str, raw: &str) -> Result<Entry, EntryError> {
    let value: serde_json::Value =
        serde_json::from_str(raw).map_err(|e| corrupt(format!("not JSON: {e}")))?;
    let obj = value
        .as_object()
        .ok_or_else(|| corrupt("not a JSON object"))?;
    let version = match obj.get("version") {
        None => return Err(corrupt("no version field")),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| corrupt(format!("version {v} is not a whole number")))?,
    };
    if version > u64::from(STORE_VERSION) {
        return Err(EntryError::TooNew { version });
    }
    if version == 0 {
        return Err(corrupt("version 0 does not exist"));
    }
    let entry: Entry = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
    let rest = key.strip_prefix(PREFIX).unwrap_or(key);
    let want = entry.data.key_kind();
    if rest != want && !rest.starts_with(&format!("{want}.")) {
        return Err(corrupt(format!(
            "a {} entry under the key of another kind",
            entry.data.kind_label()
        )));
    }
    Ok(entry)
}

/// A readable entry and its key.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub key: String,
    pub entry: Entry,
}

/// An entry that could not be read, and where its raw text goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub key: String,
    /// The entry's `name` if that much could be read, else the key.
    pub name: String,
    pub error: EntryError,
    /// The key its raw text is moved to.
    pub quarantine_key: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Saved entry \u{201c}{}\u{201d} ({}) could not be opened: it is {}. It was set \
             aside under {} (nothing was deleted).",
            self.name, self.key, self.error, self.quarantine_key
        )
    }
}

/// Everything under [`PREFIX`], sorted: readable entries newest first, problems by key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Listing {
    pub entries: Vec<Listed>,
    pub problems: Vec<Problem>,
}

/// The `name` field of a raw entry, if it has a readable one.
fn raw_name(raw: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(raw).ok()?;
    v.get("name")?.as_str().map(str::to_string)
}

/// The first free quarantine key for `key` (`taken` says whether a key is in use), so a second
/// damaged copy never overwrites the first.
pub fn quarantine_key(key: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = format!(
        "{QUARANTINE_PREFIX}{}",
        key.strip_prefix(PREFIX).unwrap_or(key)
    );
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}.{n}"))
        .find(|k| !taken(k))
        .expect("an unbounded range has a free key")
}

/// Reads every `(key, raw)` pair (keys outside [`PREFIX`] are ignored). `taken` says which
/// quarantine keys are in use already.
/// [`read_all`] with plain arguments: what the module `runner` hands over ([`crate::late`]).
pub fn read_all_items(items: Vec<(String, String)>, taken: &dyn Fn(&str) -> bool) -> Listing {
    read_all(items, taken)
}

pub fn read_all(
    items: impl IntoIterator<Item = (String, String)>,
    taken: impl Fn(&str) -> bool,
) -> Listing {
    let mut out = Listing::default();
    let mut claimed: Vec<String> = Vec::new();
    for (key, raw) in items {
        if !key.starts_with(PREFIX) {
            continue;
        }
        match parse_entry(&key, &raw) {
            Ok(entry) => out.entries.push(Listed { key, entry }),
            Err(error) => {
                let q = quarantine_key(&key, |k| taken(k) || claimed.iter().any(|c| c == k));
                claimed.push(q.clone());
                out.problems.push(Problem {
                    name: raw_name(&raw).unwrap_or_else(|| key.clone()),
                    key,
                    error,
                    quarantine_key: q,
                });
            }
        }
    }
    // ISO times sort as text; the key breaks ties so the order is stable.
    out.entries.sort_by(|a, b| {
        b.entry
            .saved_at
            .cmp(&a.entry.saved_at)
            .then_with(|| a.key.cmp(&b.key))
    });
    out.problems.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// The export file: every readable entry with its key, as one JSON document.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Export {
    pub version: u32,
    pub exported_at: String,
    pub entries: Vec<ExportedEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportedEntry {
    pub key: String,
    pub entry: Entry,
}

/// The export file's text (pretty JSON).
pub fn export(entries: &[Listed], exported_at: &str) -> String {
    let doc = Export {
        version: STORE_VERSION,
        exported_at: exported_at.to_string(),
        entries: entries
            .iter()
            .map(|l| ExportedEntry {
                key: l.key.clone(),
                entry: l.entry.clone(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc).expect("an export always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: &str = "2026-11-30T17:43:05.123Z";

    fn scenario(name: &str, at: &str) -> Entry {
        Entry::new(
            name,
            at,
            Saved::Scenario {
                text: "{\"version\": 1}".into(),
                id: "custom".into(),
                pos: 7,
            },
        )
    }

    fn progress() -> Entry {
        Entry::new(
            "Split and merge",
            AT,
            Saved::Progress(Progress {
                set_id: "split-merge".into(),
                set_text: "{}".into(),
                answers: vec![
                    Some(SavedAnswer {
                        given: "order 3".into(),
                        correct: true,
                    }),
                    Some(SavedAnswer {
                        given: "2".into(),
                        correct: false,
                    }),
                    None,
                ],
                current: 2,
            }),
        )
    }

    #[test]
    fn entries_round_trip_and_fit_their_keys() {
        let s = scenario("my edit", AT);
        let key = scenario_key(1);
        assert_eq!(parse_entry(&key, &s.to_json()), Ok(s.clone()));
        let p = progress();
        assert_eq!(
            parse_entry(&progress_key("split-merge"), &p.to_json()),
            Ok(p.clone())
        );
        let last = Entry::new(
            "last",
            AT,
            Saved::Last {
                text: "{}".into(),
                id: "fallback-claim".into(),
                pos: 3,
                exercises: Some(progress_key("x")),
            },
        );
        assert_eq!(parse_entry(LAST_KEY, &last.to_json()), Ok(last));
        // A scenario under a progress key is damaged, not silently taken.
        assert!(matches!(
            parse_entry(&progress_key("x"), &s.to_json()),
            Err(EntryError::Corrupt { .. })
        ));
        let Saved::Progress(p) = p.data else {
            unreachable!()
        };
        assert_eq!(p.score(), 1);
        assert_eq!(p.score_text(), "1 / 3");
    }

    #[test]
    fn versions_are_checked_before_fields() {
        let key = scenario_key(1);
        let newer = r#"{"version": 2, "name": "x", "something": "new"}"#;
        assert_eq!(
            parse_entry(&key, newer),
            Err(EntryError::TooNew { version: 2 })
        );
        let e = parse_entry(&key, newer).unwrap_err().to_string();
        assert!(e.contains("newer buddyscope") && e.contains("v2"), "{e}");
        for (raw, why) in [
            (r#"{"name": "x"}"#, "no version field"),
            (r#"{"version": "1"}"#, "not a whole number"),
            (r#"{"version": 0}"#, "version 0"),
            (r#"[1, 2]"#, "not a JSON object"),
            (r#"{"version": 1, "name": "#, "not JSON"),
        ] {
            match parse_entry(&key, raw) {
                Err(EntryError::Corrupt { why: w }) => assert!(w.contains(why), "{raw}: {w}"),
                other => panic!("{raw}: {other:?}"),
            }
        }
        // An unknown field under a known version is damage, named by serde.
        let mut v: serde_json::Value = serde_json::from_str(&scenario("x", AT).to_json()).unwrap();
        v["colour"] = "red".into();
        match parse_entry(&key, &v.to_string()) {
            Err(EntryError::Corrupt { why }) => assert!(why.contains("colour"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn read_all_lists_newest_first_and_sets_damage_aside() {
        let items = vec![
            (
                scenario_key(1),
                scenario("older", "2026-11-29T10:00:00.000Z").to_json(),
            ),
            (
                scenario_key(2),
                r#"{"version": 1, "name": "half", "saved_at": "#.to_string(),
            ),
            (scenario_key(3), scenario("newer", AT).to_json()),
            (
                scenario_key(4),
                r#"{"version": 9, "name": "from the future"}"#.to_string(),
            ),
            ("buddyscope-theme".to_string(), "dark".to_string()),
        ];
        // The first quarantine slot of key 4 is in use already.
        let taken = |k: &str| k == "buddyscope.quarantine.scenario.4";
        let l = read_all(items, taken);
        let names: Vec<_> = l.entries.iter().map(|e| e.entry.name.as_str()).collect();
        assert_eq!(names, ["newer", "older"]);
        assert_eq!(l.problems.len(), 2);
        let p = &l.problems[0];
        assert_eq!(p.key, scenario_key(2));
        // The name could not be read from the truncated text: the key names it.
        assert_eq!(p.name, scenario_key(2));
        assert_eq!(p.quarantine_key, "buddyscope.quarantine.scenario.2");
        let p = &l.problems[1];
        assert_eq!(p.name, "from the future");
        assert_eq!(p.quarantine_key, "buddyscope.quarantine.scenario.4.2");
        let msg = p.to_string();
        assert!(msg.contains("from the future") && msg.contains("newer buddyscope"));
        assert!(msg.contains("set aside under buddyscope.quarantine.scenario.4.2"));
    }

    #[test]
    fn export_holds_every_entry_and_reads_back() {
        let l = read_all(
            vec![
                (scenario_key(5), scenario("a", AT).to_json()),
                (progress_key("split-merge"), progress().to_json()),
            ],
            |_| false,
        );
        let text = export(&l.entries, AT);
        let back: Export = serde_json::from_str(&text).unwrap();
        assert_eq!(back.version, STORE_VERSION);
        assert_eq!(back.entries.len(), 2);
        for (e, l) in back.entries.iter().zip(&l.entries) {
            assert_eq!(e.key, l.key);
            assert_eq!(e.entry, l.entry);
        }
    }

    #[test]
    fn dates_read_as_utc_minutes() {
        assert_eq!(scenario("x", AT).date_label(), "2026-11-30 17:43 UTC");
        assert_eq!(scenario("x", "yesterday").date_label(), "yesterday");
    }
}
