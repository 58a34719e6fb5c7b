//! Compare mode (A/B): one scenario run under two configurations, side by side.
//!
//! A side is a set of overrides of the scenario's profile and knobs ([`CompareSide`]); the pair
//! in effect is a [`ComparePair`], a plain serde value that the app keeps in a signal and a
//! share link can carry. A scenario can declare its own before/after pair and the seed thread's
//! headline measurement in `compare` ([`ScenarioCompare`]); without one, the pair defaults to
//! `v7.1` vs `v7.2`.
//!
//! Both sides run the *same* ops. Many built-ins show before and after in one run by writing
//! `method` / `strategy` on each op (per page, then chunked); a side with `profile_methods`
//! (the default) drops those so that its kernel profile decides, as the real kernel does —
//! otherwise `v7.1` and `v7.2` would run identical code.

use serde::{Deserialize, Deserializer, Serialize};

use super::format::{CompareSide, Op, Scenario, ScenarioCompare};
use super::program::{OpId, Program};
use super::read::pair_sides_from_value;
use crate::mm::Kernel;

impl CompareSide {
    /// A side that only sets the kernel profile, labelled by it.
    pub fn kernel(k: Kernel) -> CompareSide {
        CompareSide {
            label: k.as_str().to_string(),
            kernel: Some(k),
            rmqueue_mode_memory: None,
            pcp: None,
            compaction_proactiveness: None,
            profile_methods: true,
        }
    }

    /// The label a side picked in the UI or a URL gets: its kernel and its knob.
    pub fn auto_label(&self, base: &Scenario) -> String {
        let k = self.kernel.unwrap_or(base.kernel).as_str();
        match self.rmqueue_mode_memory {
            Some(true) => format!("{k}, rmqueue_mode memory on"),
            Some(false) => format!("{k}, rmqueue_mode memory off"),
            None => k.to_string(),
        }
    }

    /// The scenario this side runs: `base` with the overrides applied (its `compare` kept).
    pub fn apply(&self, base: &Scenario) -> Scenario {
        let mut s = base.clone();
        if let Some(k) = self.kernel {
            s.kernel = k;
        }
        if let Some(m) = self.rmqueue_mode_memory {
            if s.zones.is_empty() {
                s.zone.rmqueue_mode_memory = m;
            }
            // A node of several zones: every zone (`zone` stays unset beside `zones`).
            for z in &mut s.zones {
                z.rmqueue_mode_memory = m;
            }
        }
        if let Some(pcp) = self.pcp {
            if s.zones.is_empty() {
                s.zone.pcp = pcp;
            }
            for z in &mut s.zones {
                z.pcp = pcp;
            }
        }
        if let Some(p) = self.compaction_proactiveness {
            if s.zones.is_empty() {
                s.zone.compaction_proactiveness = Some(p);
            }
            for z in &mut s.zones {
                z.compaction_proactiveness = Some(p);
            }
        }
        if self.profile_methods {
            strip_methods(&mut s);
        }
        s
    }

    /// `KERNEL[+mm|-mm]`, the URL spelling ([`ComparePair::from_query`]).
    pub fn to_token(&self) -> String {
        let mut t = self.kernel.map(|k| k.as_str()).unwrap_or("").to_string();
        match self.rmqueue_mode_memory {
            Some(true) => t.push_str("+mm"),
            Some(false) => t.push_str("-mm"),
            None => {}
        }
        t
    }

    fn from_token(token: &str, base: &Scenario) -> Result<CompareSide, String> {
        let (k, mm) = if let Some(k) = token.strip_suffix("+mm") {
            (k, Some(true))
        } else if let Some(k) = token.strip_suffix("-mm") {
            (k, Some(false))
        } else {
            (token, None)
        };
        let kernel = if k.is_empty() {
            None
        } else {
            Some(Kernel::parse(k).ok_or_else(|| {
                format!(
                    "unknown kernel {k:?} in compare side {token:?}: use {}",
                    Kernel::choices()
                )
            })?)
        };
        let mut side = CompareSide {
            label: String::new(),
            kernel,
            rmqueue_mode_memory: mm,
            pcp: None,
            compaction_proactiveness: None,
            profile_methods: true,
        };
        side.label = side.auto_label(base);
        Ok(side)
    }
}

/// Which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Before.
    A,
    /// After.
    B,
}

impl Side {
    /// The side's letter (`"a"`, `"b"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

/// The compare configuration in effect: side A (before) and side B (after). The app's
/// `AppState::compare` signal holds `Option<ComparePair>` (`None`: single view), and a share
/// link carries it: written as `{"a": SIDE, "b": SIDE}` (the sides as a scenario's `compare`
/// writes them), read back by the scenario reader.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparePair {
    /// Side A (before).
    pub a: CompareSide,
    /// Side B (after).
    pub b: CompareSide,
}

/// Through the scenario reader (JSON only): the errors of a damaged pair name the field
/// (`b.kernel: unknown kernel "v9"`), as a scenario's do.
impl<'de> Deserialize<'de> for ComparePair {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let (a, b) = pair_sides_from_value(&v, "").map_err(serde::de::Error::custom)?;
        Ok(ComparePair { a, b })
    }
}

impl ComparePair {
    /// The side `side`.
    pub fn side(&self, side: Side) -> &CompareSide {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    /// The side `side`, to change.
    pub fn side_mut(&mut self, side: Side) -> &mut CompareSide {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// The scenario's declared pair, or `v7.1` vs `v7.2`.
    pub fn default_for(s: &Scenario) -> ComparePair {
        match &s.compare {
            Some(c) => c.pair(),
            None => ComparePair {
                a: CompareSide::kernel(Kernel::V7_1),
                b: CompareSide::kernel(Kernel::V7_2),
            },
        }
    }

    /// Reads `?compare=…`: `1` (or `on`, `true`, empty) is [`ComparePair::default_for`];
    /// otherwise two side tokens `A,B`, each `KERNEL[+mm|-mm]` (`v7.1,v7.2`, `v7.1-mm,v7.1+mm`,
    /// `-mm,+mm` keeps the scenario's kernel).
    pub fn from_query(q: &str, base: &Scenario) -> Result<ComparePair, String> {
        // Percent-encoded `,` and `+` (a link builder may encode them).
        let q = q
            .replace("%2C", ",")
            .replace("%2c", ",")
            .replace("%2B", "+")
            .replace("%2b", "+");
        let q = q.trim();
        if matches!(q, "" | "1" | "on" | "true") {
            return Ok(ComparePair::default_for(base));
        }
        let Some((a, b)) = q.split_once(',') else {
            return Err(format!(
                "compare={q:?}: write 1 for the scenario's pair, or two sides such as v7.1,v7.2"
            ));
        };
        Ok(ComparePair {
            a: CompareSide::from_token(a.trim(), base)?,
            b: CompareSide::from_token(b.trim(), base)?,
        })
    }

    /// The URL spelling: `1` for the scenario's own pair, else `A,B` tokens.
    pub fn to_query(&self, base: &Scenario) -> String {
        if *self == ComparePair::default_for(base) {
            "1".to_string()
        } else {
            format!("{},{}", self.a.to_token(), self.b.to_token())
        }
    }
}

impl ScenarioCompare {
    /// The two sides.
    pub fn pair(&self) -> ComparePair {
        ComparePair {
            a: self.a.clone(),
            b: self.b.clone(),
        }
    }
}

/// Drops every op's explicit `method` / `strategy` (in `repeat` bodies too), and the notes of
/// the ops that had one (and of the `repeat`s around them): a note such as "before (7.1): page
/// by page" describes the method as written, which this side no longer runs.
fn strip_methods(s: &mut Scenario) {
    let program = Program::compile(&s.ops);
    // By op: its method goes; its note goes (a repeat's, when an op of its body had one).
    let mut method = vec![false; program.len()];
    let mut note = vec![false; program.len()];
    for id in 0..program.len() as OpId {
        if matches!(
            program.op(id),
            Op::FreeContigRange {
                method: Some(_),
                ..
            } | Op::Vfree {
                method: Some(_),
                ..
            } | Op::Vmalloc {
                strategy: Some(_),
                ..
            }
        ) {
            method[id as usize] = true;
            let mut at = Some(id);
            while let Some(a) = at {
                note[a as usize] = true;
                at = program.parent(a);
            }
        }
    }
    for id in (0..program.len() as OpId).filter(|&id| note[id as usize]) {
        match program.op_in(&mut s.ops, id) {
            Op::FreeContigRange {
                method: m, note: n, ..
            }
            | Op::Vfree {
                method: m, note: n, ..
            } => {
                if method[id as usize] {
                    *m = None;
                }
                *n = None;
            }
            Op::Vmalloc {
                strategy, note: n, ..
            } => {
                if method[id as usize] {
                    *strategy = None;
                }
                *n = None;
            }
            Op::Repeat { note: n, .. } => *n = None,
            _ => {}
        }
    }
}

/// B/A, `None` when A is 0 (no ratio to show).
pub fn ratio(a: f64, b: f64) -> Option<f64> {
    (a != 0.0).then(|| b / a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::FreeMethod;
    use crate::scenario::error::ScenarioError;
    use crate::scenario::valid::parse;

    fn doc(compare: &str) -> String {
        format!(
            r#"{{"version": 1, "kernel": "v7.2", "compare": {compare},
                "ops": [{{"op": "alloc", "order": 9, "as": "t"}}, {{"op": "split", "ref": "t"}},
                        {{"op": "repeat", "times": 1, "ops": [
                            {{"op": "free_contig_range", "ref": "t", "method": "chunked"}}]}}]}}"#
        )
    }

    const PAIR: &str = r#"{"a": {"label": "before", "kernel": "v7.1"},
                           "b": {"label": "after", "kernel": "v7.2"},
                           "measured": {"source": "the thread",
                                        "rows": [{"label": "t", "a": 1406, "b": 402, "unit": "usec"}]}}"#;

    fn err(compare: &str) -> ScenarioError {
        parse(&doc(compare)).expect_err("an error")
    }

    #[test]
    fn a_declared_pair_reads_and_round_trips() {
        let s = parse(&doc(PAIR)).unwrap();
        let c = s.compare.as_ref().unwrap();
        assert_eq!(c.a.kernel, Some(Kernel::V7_1));
        assert!(c.a.profile_methods && c.b.profile_methods);
        assert_eq!(c.measured.as_ref().unwrap().rows[0].b, 402.0);
        assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
        let pair: ComparePair =
            serde_json::from_str(&serde_json::to_string(&c.pair()).unwrap()).unwrap();
        assert_eq!(pair, c.pair());
    }

    #[test]
    fn errors_carry_the_json_path() {
        let cases = [
            (r#"{"a": {"label": "x"}}"#, "compare.b", "missing field `b`"),
            (
                r#"{"a": {"label": "x", "kernl": "v7.1"}, "b": {"label": "y"}}"#,
                "compare.a.kernl",
                "did you mean `kernel`",
            ),
            (
                r#"{"a": {"label": "x"}, "b": {"label": "y", "kernel": "v7.9"}}"#,
                "compare.b.kernel",
                "unknown kernel",
            ),
            (
                r#"{"a": {"kernel": "v7.1"}, "b": {"label": "y"}}"#,
                "compare.a.label",
                "missing field `label`",
            ),
            (
                r#"{"a": {"label": " ", "kernel": "v7.1"}, "b": {"label": "y"}}"#,
                "compare.a.label",
                "empty",
            ),
            (
                r#"{"a": {"label": "x", "kernel": "v7.1"}, "b": {"label": "y", "kernel": "v7.1"}}"#,
                "compare.b",
                "same overrides",
            ),
            (
                r#"{"a": {"label": "x", "rmqueue_mode_memory": 0}, "b": {"label": "y"}}"#,
                "compare.a.rmqueue_mode_memory",
                "true or false",
            ),
            (
                r#"{"a": {"label": "x"}, "b": {"label": "y", "kernel": "v7.1"}, "measured": {"rows": []}}"#,
                "compare.measured.source",
                "missing",
            ),
            (
                r#"{"a": {"label": "x"}, "b": {"label": "y", "kernel": "v7.1"}, "measured": {"source": "s", "rows": []}}"#,
                "compare.measured.rows",
                "no rows",
            ),
            (
                r#"{"a": {"label": "x"}, "b": {"label": "y", "kernel": "v7.1"}, "measured": {"source": "s", "rows": [{"label": "t", "a": -1, "b": 2, "unit": "s"}]}}"#,
                "compare.measured.rows[0].a",
                "non-negative",
            ),
            (
                r#"{"a": {"label": "x"}, "b": {"label": "y", "kernel": "v7.1"}, "measured": {"source": "s", "rows": [{"label": "t", "a": 1, "b": "2", "unit": "s"}]}}"#,
                "compare.measured.rows[0].b",
                "a number",
            ),
            (r#"[1]"#, "compare", "a JSON object"),
        ];
        for (c, path, words) in cases {
            let e = err(c);
            assert_eq!(e.path, path, "{c}: {e}");
            assert!(e.to_string().contains(words), "{c}: {e}");
        }
    }

    #[test]
    fn a_side_applies_its_overrides_and_lets_the_profile_pick_methods() {
        let s = parse(&doc(PAIR)).unwrap();
        let c = s.compare.clone().unwrap();
        let a = c.a.apply(&s);
        assert_eq!(a.kernel, Kernel::V7_1);
        let Op::Repeat { ops, .. } = &a.ops[2] else {
            panic!("{:?}", a.ops[2])
        };
        assert!(matches!(
            ops[0],
            Op::FreeContigRange {
                method: None,
                note: None,
                ..
            }
        ));
        assert_eq!(a.free_contig_range_method(None), FreeMethod::PerPage);
        // A note written for the explicit method goes with it; other notes stay.
        let cma = parse(
            crate::scenario::builtin::get("cma-frozen-range")
                .unwrap()
                .json(),
        )
        .unwrap();
        let b = cma.compare.as_ref().unwrap().b.apply(&cma);
        assert!(cma.ops[1].note().unwrap().starts_with("before (7.1)"));
        assert_eq!(b.ops[1].note(), None);
        let thp = parse(
            crate::scenario::builtin::get("free-contig-range-thp")
                .unwrap()
                .json(),
        )
        .unwrap();
        let a = thp.compare.as_ref().unwrap().a.apply(&thp);
        assert_eq!(a.ops[0].note(), None, "the repeat's note named the method");
        assert_eq!(a.ops[1].note(), thp.ops[1].note(), "the drain's note stays");
        let mut keep = c.a.clone();
        keep.profile_methods = false;
        let Op::Repeat { ops, .. } = &keep.apply(&s).ops[2] else {
            panic!()
        };
        assert!(matches!(
            ops[0],
            Op::FreeContigRange {
                method: Some(FreeMethod::Chunked),
                ..
            }
        ));
        let mut mm = CompareSide::kernel(Kernel::V7_1);
        mm.rmqueue_mode_memory = Some(false);
        assert!(!mm.apply(&s).zone.rmqueue_mode_memory);
    }

    #[test]
    fn query_forms() {
        let s = parse(&doc(PAIR)).unwrap();
        let declared = s.compare.as_ref().unwrap().pair();
        for q in ["1", "", "on", "true"] {
            assert_eq!(ComparePair::from_query(q, &s).unwrap(), declared);
        }
        assert_eq!(declared.to_query(&s), "1");
        let p = ComparePair::from_query("v6.18,v7.1+mm", &s).unwrap();
        assert_eq!(p.a.kernel, Some(Kernel::V6_18));
        assert_eq!(
            (p.b.kernel, p.b.rmqueue_mode_memory),
            (Some(Kernel::V7_1), Some(true))
        );
        assert_eq!(p.b.label, "v7.1, rmqueue_mode memory on");
        assert_eq!(p.to_query(&s), "v6.18,v7.1+mm");
        assert_eq!(ComparePair::from_query(&p.to_query(&s), &s).unwrap(), p);
        let p = ComparePair::from_query("-mm%2C%2Bmm", &s).unwrap();
        assert_eq!((p.a.kernel, p.a.rmqueue_mode_memory), (None, Some(false)));
        assert_eq!(p.a.label, "v7.2, rmqueue_mode memory off");
        assert!(ComparePair::from_query("v7.1", &s).is_err());
        assert!(ComparePair::from_query("v7.1,v9", &s)
            .unwrap_err()
            .contains("use v6.12, v6.18, v6.19, v7.1, v7.2 or v7.3"));
        // The LTS against the newest profile.
        let lts = ComparePair::from_query("v6.12,v7.3", &s).unwrap();
        assert_eq!(
            (lts.a.kernel, lts.b.kernel),
            (Some(Kernel::V6_12), Some(Kernel::V7_3))
        );
        assert_eq!(lts.to_query(&s), "v6.12,v7.3");
        // Without a declared pair: v7.1 vs v7.2.
        let plain = parse(r#"{"version": 1}"#).unwrap();
        let d = ComparePair::default_for(&plain);
        assert_eq!(
            (d.a.kernel, d.b.kernel),
            (Some(Kernel::V7_1), Some(Kernel::V7_2))
        );
    }

    #[test]
    fn the_before_after_builtins_declare_their_pair_and_measurement() {
        let want = [
            (
                "free-contig-range-thp",
                Kernel::V7_1,
                Kernel::V7_2,
                4_097_358.0,
            ),
            (
                "free-contig-range-unaligned",
                Kernel::V7_1,
                Kernel::V7_2,
                4_097_358.0,
            ),
            ("cma-frozen-range", Kernel::V7_1, Kernel::V7_2, 1406.0),
            ("vmalloc-large-order", Kernel::V6_18, Kernel::V7_1, 46.31),
        ];
        for (id, a, b, first) in want {
            let s = parse(crate::scenario::builtin::get(id).unwrap().json()).unwrap();
            let c = s.compare.as_ref().unwrap_or_else(|| panic!("{id}"));
            assert_eq!((c.a.kernel, c.b.kernel), (Some(a), Some(b)), "{id}");
            assert_eq!(c.measured.as_ref().unwrap().rows[0].a, first, "{id}");
        }
        for id in [
            "fallback-claim",
            "fallback-steal",
            "fallback-steal-no-mode-memory",
        ] {
            let s = parse(crate::scenario::builtin::get(id).unwrap().json()).unwrap();
            let c = s.compare.as_ref().unwrap();
            assert_eq!(
                (c.a.rmqueue_mode_memory, c.b.rmqueue_mode_memory),
                (Some(false), Some(true))
            );
            // The thread's worst case is a refill that steals; a claiming one ends alike on
            // both sides, so it carries no measurement.
            if id == "fallback-claim" {
                assert!(c.measured.is_none(), "{id}");
                continue;
            }
            let m = &c.measured.as_ref().unwrap().rows[0];
            assert_eq!((m.a, m.b, m.unit.as_str()), (280.0, 8.0, "ms"));
        }
    }
}
