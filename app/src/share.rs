//! Share links: the whole scenario text, the mode and the exact position (event index) packed
//! into the URL fragment, `#s=<version>.<base64url(zlib(json))>`.
//!
//! Why the fragment: browsers never send it to the server (a static host sees no scenario text
//! and imposes no URL length limit of its own). Why zlib rather than raw deflate: its adler32
//! trailer makes a damaged link fail to decode instead of loading a subtly different scenario.
//! The text is always encoded, never a built-in's id: a link keeps reproducing its frame even
//! after the built-in scenario it came from is edited in a later release.
//!
//! Versioning: the number before the dot is [`LINK_VERSION`]. Decoding accepts every version up
//! to it (older payloads decode through serde defaults for fields they did not have) and says
//! "made by a newer buddyscope" for a higher one. Pure: no browser API here, tested natively.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use buddyscope::ComparePair;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Presenter and tour state as plain data (for share links and embedding).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PresenterState {
    /// The presenter layout is on.
    pub presenter: bool,
    /// The tour is active at this stop (0-based index into the scenario's `tour`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tour_stop: Option<u32>,
    /// The map follows the action outside presenter mode too (it always does inside).
    pub follow: bool,
}

/// The link format this build writes (and the newest it reads).
pub const LINK_VERSION: u32 = 1;
/// The fragment key: `#s=…`.
pub const FRAGMENT_KEY: &str = "s=";
/// Longest link payload accepted (characters after `#s=`). Far above any real scenario (the
/// largest built-in needs about 2 KB) and far below what makes a browser struggle.
pub const MAX_LINK_CHARS: usize = 512 * 1024;
/// Largest inflated payload accepted: a zlib bomb stops here instead of filling memory.
pub const MAX_PAYLOAD_BYTES: usize = 4 << 20;

/// What the app shows when the link was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareMode {
    /// One run, the normal view.
    #[default]
    Single,
    /// Compare mode: the same scenario under two configurations side by side.
    Compare,
}

/// Compare mode's configuration and where each side is (their event counts differ).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareShare {
    pub pair: ComparePair,
    /// Events applied on side A and on side B.
    pub pos_a: u32,
    pub pos_b: u32,
}

/// Everything a link carries. New fields must have serde defaults so that older links (which
/// lack them) keep decoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharePayload {
    /// The scenario, byte for byte.
    pub text: String,
    /// The built-in id the text came from (selects it in the picker), or `"custom"`.
    pub id: String,
    /// Events applied: the timeline position (`Timeline::pos`).
    pub pos: u32,
    #[serde(default)]
    pub mode: ShareMode,
    /// Present exactly when `mode` is `compare`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<CompareShare>,
    /// Presenter layout and tour stop (all off: not written).
    #[serde(default, skip_serializing_if = "is_default")]
    pub presenter: PresenterState,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Why a link cannot be opened. The `Display` text is shown to the user as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Longer than [`MAX_LINK_CHARS`].
    TooLong { chars: usize },
    /// Written by a newer buddyscope (a link format this build does not know).
    Newer { version: u32 },
    /// Damaged: truncated, edited, or not a buddyscope link at all.
    Corrupt { why: String },
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShareError::TooLong { chars } => write!(
                f,
                "This share link is too long ({chars} characters; at most {MAX_LINK_CHARS}). \
                 The default scenario is shown instead."
            ),
            ShareError::Newer { version } => write!(
                f,
                "This share link was made by a newer buddyscope (link format v{version}; this \
                 version reads v{LINK_VERSION} and older). Open it with the newer buddyscope. \
                 The default scenario is shown instead."
            ),
            ShareError::Corrupt { why } => write!(
                f,
                "This share link is damaged ({why}); it may have been cut short when it was \
                 copied. The default scenario is shown instead."
            ),
        }
    }
}

fn corrupt(why: impl Into<String>) -> ShareError {
    ShareError::Corrupt { why: why.into() }
}

/// Encodes a payload as the fragment value after `#s=`: `1.<base64url>`.
pub fn encode(p: &SharePayload) -> String {
    let json = serde_json::to_vec(p).expect("a share payload always serializes");
    // Level 9: links are made rarely and read by people pasting them; shorter is better.
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&json, 9);
    format!("{LINK_VERSION}.{}", URL_SAFE_NO_PAD.encode(z))
}

/// Decodes a fragment value written by [`encode`] (of this or an older version). Its code is
/// in the wasm module `runner` ([`crate::late`]): only a share link needs it.
pub fn decode(value: &str) -> Result<SharePayload, ShareError> {
    (crate::late::get().decode_share)(value)
}

/// [`decode`]'s work.
pub fn decode_now(value: &str) -> Result<SharePayload, ShareError> {
    let value = value.trim();
    if value.len() > MAX_LINK_CHARS {
        return Err(ShareError::TooLong { chars: value.len() });
    }
    let (version, body) = value
        .split_once('.')
        .ok_or_else(|| corrupt("no version prefix"))?;
    let version: u32 = version
        .parse()
        .map_err(|_| corrupt(format!("bad version {version:?}")))?;
    if version > LINK_VERSION {
        return Err(ShareError::Newer { version });
    }
    if version == 0 {
        return Err(corrupt("bad version 0"));
    }
    let z = URL_SAFE_NO_PAD.decode(body).map_err(|e| {
        corrupt(format!(
            "not base64url: {}",
            e.to_string().trim_end_matches('.')
        ))
    })?;
    let json = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&z, MAX_PAYLOAD_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                corrupt(format!("it unpacks to more than {MAX_PAYLOAD_BYTES} bytes"))
            }
            _ => corrupt("the compressed data does not check out"),
        })?;
    let p: SharePayload =
        serde_json::from_slice(&json).map_err(|e| corrupt(format!("unreadable contents: {e}")))?;
    if (p.mode == ShareMode::Compare) != p.compare.is_some() {
        return Err(corrupt("the mode and the compare configuration disagree"));
    }
    Ok(p)
}

/// The fragment value of a `location.hash` such as `#s=1.eJ…`, if it is a share link.
pub fn fragment_value(hash: &str) -> Option<&str> {
    hash.strip_prefix('#')
        .unwrap_or(hash)
        .strip_prefix(FRAGMENT_KEY)
}

/// The full link: `base` (the page's address without query or fragment) + `#s=…`.
pub fn link(base: &str, p: &SharePayload) -> String {
    format!("{base}#{FRAGMENT_KEY}{}", encode(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(id: &str) -> SharePayload {
        let b = buddyscope::scenario::builtin::get(id).expect("built-in");
        SharePayload {
            text: b.json().to_string(),
            id: b.id.to_string(),
            pos: 123,
            mode: ShareMode::Single,
            compare: None,
            presenter: PresenterState::default(),
        }
    }

    #[test]
    fn round_trips_every_builtin() {
        for b in buddyscope::scenario::builtin::ALL {
            let p = payload(b.id);
            let v = encode(&p);
            assert!(v.starts_with("1."));
            assert!(v[2..]
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
            assert_eq!(decode(&v).unwrap(), p);
            let l = link("http://h/sub/", &p);
            assert_eq!(
                decode(fragment_value(&l[l.find('#').unwrap()..]).unwrap()).unwrap(),
                p
            );
        }
    }

    #[test]
    fn largest_builtin_link_is_short() {
        let (longest, id) = buddyscope::scenario::builtin::ALL
            .iter()
            .map(|b| (encode(&payload(b.id)).len(), b.id))
            .max()
            .unwrap();
        // Printed for the notes (cargo test -- --nocapture).
        println!("longest built-in share fragment: {longest} characters ({id})");
        assert!(longest < 4000, "{longest}");
    }

    #[test]
    fn damaged_links_are_corrupt_not_panics() {
        let v = encode(&payload("fallback-claim"));
        // Cut short, a flipped character, garbage, no prefix.
        for bad in [
            &v[..v.len() / 2],
            &v[..v.len() - 1],
            "1.!!!!",
            "1.",
            "hello",
            "x.abc",
            "0.abc",
        ] {
            assert!(
                matches!(decode(bad), Err(ShareError::Corrupt { .. })),
                "{bad:?}: {:?}",
                decode(bad)
            );
        }
        let mut flipped = v.clone().into_bytes();
        let i = flipped.len() / 2;
        flipped[i] = if flipped[i] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        assert!(matches!(decode(&flipped), Err(ShareError::Corrupt { .. })));
        // Valid zlib of something that is not a payload.
        let z = miniz_oxide::deflate::compress_to_vec_zlib(b"{\"nope\":1}", 6);
        let other = format!("1.{}", URL_SAFE_NO_PAD.encode(z));
        assert!(matches!(decode(&other), Err(ShareError::Corrupt { .. })));
    }

    #[test]
    fn newer_versions_are_named_and_huge_links_refused() {
        let v = encode(&payload("fallback-claim"));
        let newer = format!("2{}", &v[1..]);
        assert_eq!(decode(&newer), Err(ShareError::Newer { version: 2 }));
        assert!(decode(&newer)
            .unwrap_err()
            .to_string()
            .contains("newer buddyscope"));
        let long = format!("1.{}", "A".repeat(MAX_LINK_CHARS));
        assert!(matches!(decode(&long), Err(ShareError::TooLong { .. })));
        // A zlib bomb: small link, huge contents.
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&vec![b' '; MAX_PAYLOAD_BYTES + 10], 9);
        let bomb = format!("1.{}", URL_SAFE_NO_PAD.encode(z));
        assert!(bomb.len() < MAX_LINK_CHARS);
        assert!(matches!(decode(&bomb), Err(ShareError::Corrupt { .. })));
    }

    #[test]
    fn older_payloads_without_new_fields_decode() {
        // A v1 payload as the first release wrote it: no `mode` key.
        let json = br#"{"text":"{}","id":"custom","pos":7}"#;
        let z = miniz_oxide::deflate::compress_to_vec_zlib(json, 9);
        let p = decode(&format!("1.{}", URL_SAFE_NO_PAD.encode(z))).unwrap();
        assert_eq!(p.pos, 7);
        assert_eq!(p.mode, ShareMode::Single);
    }

    /// A compare link as the release before the one scenario reader wrote it (the pair written
    /// by a derived serde form: `{"a": SIDE, "b": SIDE}`, `profile_methods` only when false)
    /// still opens, with the same sides, and this build writes the same contents.
    #[test]
    fn a_compare_link_of_the_previous_release_opens() {
        const OLD_JSON: &str = r#"{"text":"{\"version\": 1, \"name\": \"old link\", \"ops\": [{\"op\": \"alloc\", \"order\": 2, \"as\": \"a\"}, {\"op\": \"free\", \"ref\": \"a\"}]}","id":"custom","pos":3,"mode":"compare","compare":{"pair":{"a":{"label":"v7.1","kernel":"v7.1"},"b":{"label":"v7.2, memory mode","kernel":"v7.2","rmqueue_mode_memory":true,"profile_methods":false}},"pos_a":2,"pos_b":4},"presenter":{"presenter":true,"tour_stop":0,"follow":false}}"#;
        // OLD_JSON zlib-compressed (level 6) and base64url-encoded, as a link carried it.
        const OLD_LINK: &str = "1.eJxdUNFuwyAM_JXIz2ha00qT-JUxRbQ4WlSIMwPdqij_Pjvp1m4v4Dvf2QczFPwqYGF2cEHOA40ObLMzjYPRJ1TggGJo4jCeHShPU1b6ddZyE_gY6XTrckBWtlXk803gYDHNg6NnxM3A2N81bwsYGIIEOtVcKAmaKIPdG0gUUHlKk2eUxk9lZ5j8wHp7PaI_YhTl5eVpJ7Iz8njHi4HjP5EETZiIr8264q-jFczpo2LFTtvdJgVbuKKEY-qHqGx5pyBBex8zLssau5M47VbJzoOSjBnHgmvYB7ANK1S5k1dPYJ8N9CSf-vk78RsFDYft";
        let p = decode(OLD_LINK).unwrap();
        assert_eq!(p.mode, ShareMode::Compare);
        let c = p.compare.as_ref().unwrap();
        assert_eq!((c.pos_a, c.pos_b), (2, 4));
        assert_eq!(c.pair.a.label, "v7.1");
        assert_eq!(c.pair.a.kernel, Some(buddyscope::Kernel::V7_1));
        assert_eq!(c.pair.a.rmqueue_mode_memory, None);
        assert!(c.pair.a.profile_methods);
        assert_eq!(c.pair.b.label, "v7.2, memory mode");
        assert_eq!(c.pair.b.kernel, Some(buddyscope::Kernel::V7_2));
        assert_eq!(c.pair.b.rmqueue_mode_memory, Some(true));
        assert!(!c.pair.b.profile_methods);
        assert_eq!(p.presenter.tour_stop, Some(0));
        // The scenario and each side read and validate as the link's maker's did.
        let s = buddyscope::parse_valid(&p.text).unwrap();
        for side in [buddyscope::Side::A, buddyscope::Side::B] {
            buddyscope::ValidScenario::new(c.pair.side(side).apply(&s)).unwrap();
        }
        assert_eq!(serde_json::to_string(&p).unwrap(), OLD_JSON);
        // A damaged side is refused with the field it names, not read half-way.
        let bad = OLD_JSON.replace(r#""kernel":"v7.2""#, r#""kernel":"v9""#);
        let z = miniz_oxide::deflate::compress_to_vec_zlib(bad.as_bytes(), 9);
        let err = decode(&format!("1.{}", URL_SAFE_NO_PAD.encode(z))).unwrap_err();
        assert!(matches!(err, ShareError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("kernel"), "{err}");
    }

    #[test]
    fn compare_and_presenter_state_round_trip() {
        let mut p = payload("fallback-steal");
        let scenario = buddyscope::parse_valid(&p.text).unwrap();
        p.mode = ShareMode::Compare;
        p.compare = Some(CompareShare {
            pair: ComparePair::default_for(&scenario),
            pos_a: 10,
            pos_b: 7,
        });
        p.presenter = PresenterState {
            presenter: true,
            tour_stop: Some(1),
            follow: true,
        };
        assert_eq!(decode(&encode(&p)).unwrap(), p);
        // A compare mode without its configuration is refused, not half-applied.
        let mut bad = p.clone();
        bad.compare = None;
        assert!(matches!(
            decode(&encode(&bad)),
            Err(ShareError::Corrupt { .. })
        ));
    }

    #[test]
    fn fragment_value_only_for_share_fragments() {
        assert_eq!(fragment_value("#s=1.abc"), Some("1.abc"));
        assert_eq!(fragment_value("s=1.abc"), Some("1.abc"));
        assert_eq!(fragment_value("#scenario-panel"), None);
        assert_eq!(fragment_value(""), None);
    }
}
