//! What the address asks the app to open ([`Route`]), read by a pure function from the query
//! string and the fragment, and what opening it does ([`open`], [`super::Command::Open`]).
//!
//! - `#s=…`: a share link (its scenario, position, compare and presenter state) wins;
//! - `?scenario=<built-in id>`, `?compare=1` or `?compare=v7.1,v7.2` (`v7.1-mm,v7.1+mm`): that
//!   scenario, compare mode with the scenario's own or these sides;
//! - `?exercises=<set id>` or `?exercises=<url>`: an exercise set (a mistyped id says "did you
//!   mean");
//! - `?tour=N` / `?present`: presenter mode at stop N of the tour / with the tour started;
//! - `?embed=1&panel=…&origin=…`: the embedded view (`crate::embed`), which leaves saved work
//!   alone;
//! - a plain address (none of the above but the presenter flags): the saved work reopens where
//!   the user was, with the exercise set that was open.

use buddyscope::scenario::ComparePair;

use super::{exercises, load_builtin, tour, Effect, Model};
use crate::share::{self, SharePayload};

/// The value of `name` in a query string such as `?scenario=fallback-claim&debug-panic`
/// (`Some("")` for a bare flag).
pub fn param_in(search: &str, name: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// `decodeURIComponent`: `%XX` escapes as UTF-8 bytes; `None` for a bad escape or bytes that are
/// not UTF-8.
pub fn percent_decode(v: &str) -> Option<String> {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The embedded view's parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbedRoute {
    /// The panel beside the map (`freelists`, `pcp`, `counters`, `narration`, `code`, `charts`,
    /// `none`).
    pub panel: String,
    /// The only origin whose commands are accepted, if given.
    pub origin: Option<String>,
}

/// What the address asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    /// A share link (`#s=…`), decoded, or why it cannot be opened.
    pub link: Option<Result<SharePayload, String>>,
    pub scenario: Option<String>,
    pub compare: Option<String>,
    /// `?exercises=`, percent-decoded.
    pub exercises: Option<String>,
    pub tour: Option<String>,
    pub present: bool,
    pub embed: Option<EmbedRoute>,
}

impl Route {
    /// The route of an address's query string (`?…`) and fragment (`#…`).
    pub fn parse(search: &str, hash: &str) -> Route {
        let p = |name| param_in(search, name);
        Route {
            link: share::fragment_value(hash).map(|v| share::decode(v).map_err(|e| e.to_string())),
            scenario: p("scenario"),
            compare: p("compare"),
            exercises: p("exercises").map(|v| percent_decode(&v).unwrap_or(v)),
            tour: p("tour"),
            present: p("present").is_some(),
            embed: p("embed").map(|_| EmbedRoute {
                panel: p("panel").unwrap_or_default(),
                origin: p("origin"),
            }),
        }
    }

    /// A plain address: it asks for nothing (presenter flags aside), so the saved work reopens.
    pub fn resumes(&self) -> bool {
        self.link.is_none()
            && self.scenario.is_none()
            && self.compare.is_none()
            && self.exercises.is_none()
            && self.embed.is_none()
    }
}

/// Opens what `route` asks for, in order: the share link (the rest of the address then only
/// applies if the link fails), or the saved work, `?scenario=` and `?compare=`; then, outside
/// the embedded view, `?exercises=` and `?tour=`/`?present`.
pub fn open(m: &mut Model, route: Route, fx: &mut Vec<Effect>) {
    let from_link = match route.link.clone() {
        Some(link) => match link.and_then(|p| super::apply_share(m, &p, fx)) {
            Ok(()) => true,
            Err(e) => {
                super::share_failed(m, fx);
                m.share_error = Some(e);
                false
            }
        },
        None => {
            if route.resumes() {
                resume(m, fx);
            }
            if let Some(id) = &route.scenario {
                if *id != m.scenario_id {
                    let _ = load_builtin(m, id, fx);
                }
            }
            if let Some(q) = &route.compare {
                super::finish_first_run(m);
                match ComparePair::from_query(q, &m.main().scenario) {
                    Ok(pair) => super::set_compare(m, Some(pair)),
                    Err(e) => m.compare_error = Some(e),
                }
            }
            false
        }
    };
    if route.embed.is_some() || from_link {
        return;
    }
    if let Some(v) = &route.exercises {
        exercises::open_param(m, v, fx);
    }
    let ask = tour::Ask {
        tour: route.tour,
        present: route.present,
    };
    // A set being opened (it is resolved in its own wasm module) comes first: the presenter
    // part of the address applies to its question, once it is on screen.
    if fx.iter().any(|e| matches!(e, Effect::OpenSet { .. })) {
        m.exercises.then = Some(ask);
    } else {
        tour::open_ask(m, &ask, fx);
    }
}

/// Reopens the last position saved (a plain address), and the exercise set that was open.
fn resume(m: &mut Model, fx: &mut Vec<Effect>) {
    let Some(last) = m.saved.last.clone() else {
        return;
    };
    let crate::saved::Saved::Last {
        text,
        id,
        pos,
        exercises,
    } = last.data
    else {
        return;
    };
    let id = super::builtin_id(&id, &text).to_string();
    // The default scenario is on screen already: a second run of it would only cost time.
    super::finish_first_run(m);
    let same = m.main().text == text;
    if same || super::load_text(m, &text, &id, fx).is_ok() {
        // A long run reopens in the worker: its position waits for it.
        super::when_loaded(m, super::AfterLoad::Seek(pos), fx);
    }
    if let Some(p) = exercises.and_then(|key| m.saved.progress_at(&key)) {
        exercises::open_text(m, &p.set_text, &p.set_id, fx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_and_bare_flags() {
        let q = "?scenario=fallback-claim&debug-panic";
        assert_eq!(param_in(q, "scenario").as_deref(), Some("fallback-claim"));
        assert_eq!(param_in(q, "debug-panic").as_deref(), Some(""));
        assert_eq!(param_in(q, "debug"), None);
        assert_eq!(param_in("", "scenario"), None);
    }

    #[test]
    fn percent_escapes_decode_as_utf8() {
        assert_eq!(
            percent_decode("https%3A%2F%2Fh%2Fset.json").as_deref(),
            Some("https://h/set.json")
        );
        assert_eq!(percent_decode("caf%C3%A9").as_deref(), Some("café"));
        assert_eq!(percent_decode("50%"), None);
        assert_eq!(percent_decode("%ZZ"), None);
        assert_eq!(percent_decode("%FF"), None);
        assert_eq!(percent_decode("plain").as_deref(), Some("plain"));
    }

    #[test]
    fn every_kind_of_address_parses() {
        let r = Route::parse("", "");
        assert_eq!(r, Route::default());
        assert!(r.resumes());
        // The presenter flags alone still reopen the saved work.
        let r = Route::parse("?present", "");
        assert!(r.present && r.resumes());
        let r = Route::parse("?tour=3", "");
        assert_eq!(r.tour.as_deref(), Some("3"));
        assert!(r.resumes());
        let r = Route::parse("?scenario=fallback-steal&compare=1&present", "");
        assert_eq!(r.scenario.as_deref(), Some("fallback-steal"));
        assert_eq!(r.compare.as_deref(), Some("1"));
        assert!(r.present && !r.resumes());
        let r = Route::parse("?exercises=https%3A%2F%2Fh%2Fs.json", "");
        assert_eq!(r.exercises.as_deref(), Some("https://h/s.json"));
        assert!(!r.resumes());
        let r = Route::parse("?embed=1&panel=pcp&origin=https://deck", "");
        assert_eq!(
            r.embed,
            Some(EmbedRoute {
                panel: "pcp".into(),
                origin: Some("https://deck".into())
            })
        );
        assert!(!r.resumes());
        // A share link: decoded, or why not.
        let b = buddyscope::scenario::builtin::get("fallback-claim").unwrap();
        let p = SharePayload {
            text: b.json().to_string(),
            id: b.id.to_string(),
            pos: 7,
            mode: Default::default(),
            compare: None,
            presenter: Default::default(),
        };
        let r = Route::parse("?scenario=x", &format!("#s={}", share::encode(&p)));
        assert_eq!(r.link, Some(Ok(p)));
        assert!(!r.resumes());
        let r = Route::parse("", "#s=1.AAAA");
        assert!(
            matches!(&r.link, Some(Err(e)) if e.contains("damaged")),
            "{r:?}"
        );
        assert_eq!(Route::parse("", "#top").link, None);
    }
}
