//! Tours: a sequence of stops (a position in the run and a caption) written in the scenario, so a
//! speaker can play the seed's story stop by stop (presenter mode).
//!
//! A stop addresses the run by operations, as `buddyscope run --ops K` does: `{"op": K}` is the
//! state after K executed ops (an op inside a `repeat` counts once per iteration), and
//! `"event": E` goes E events further into op K+1. Op counts survive edits of the engine's event
//! detail, which raw event indices would not. The static checks (shape, order, captions) run with
//! the rest of [`super::validate`]; whether a stop lies inside the run is only known once it has
//! run: [`tour_positions`]. That check does not reject the run (an edit of the ops must not make
//! the scenario unusable because its tour went stale): the app reports it where the tour plays.

use serde::{Deserialize, Serialize};

use super::error::{Res, ScenarioError};
use super::Scenario;
use crate::run::runner::Run;

/// At most this many stops: a tour is a few stops, not a second trace.
pub const MAX_TOUR_STOPS: usize = 64;
/// A caption is read aloud from a slide: one or two sentences.
pub const MAX_CAPTION_CHARS: usize = 400;

/// One stop of a tour (`tour[i]` in the document).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TourStop {
    /// After this many executed ops (0: before the first).
    pub op: u32,
    /// Events of op `op + 1` applied further (absent: 0, the op boundary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<u32>,
    /// What to say at this stop.
    pub caption: String,
}

impl TourStop {
    /// The position key stops are ordered by.
    fn key(&self) -> (u32, u32) {
        (self.op, self.event.unwrap_or(0))
    }
}

/// The static checks: at most [`MAX_TOUR_STOPS`], non-blank captions of at most
/// [`MAX_CAPTION_CHARS`], positions strictly ascending (a tour moves forward).
pub(super) fn check_tour(s: &Scenario) -> Res<()> {
    if s.tour.len() > MAX_TOUR_STOPS {
        return Err(ScenarioError::new(
            format!("tour[{MAX_TOUR_STOPS}]"),
            format!(
                "a tour has at most {MAX_TOUR_STOPS} stops, this one has {}",
                s.tour.len()
            ),
            "keep the few stops that tell the story",
        ));
    }
    for (i, stop) in s.tour.iter().enumerate() {
        let cap = stop.caption.trim();
        if cap.is_empty() {
            return Err(ScenarioError::new(
                format!("tour[{i}].caption"),
                "the caption is empty",
                "say what the audience should see at this stop",
            ));
        }
        let n = stop.caption.chars().count();
        if n > MAX_CAPTION_CHARS {
            return Err(ScenarioError::new(
                format!("tour[{i}].caption"),
                format!("the caption has {n} characters, more than {MAX_CAPTION_CHARS}"),
                "shorten it, or split it over two stops",
            ));
        }
        if i > 0 && stop.key() <= s.tour[i - 1].key() {
            let (op, ev) = s.tour[i - 1].key();
            return Err(ScenarioError::new(
                format!("tour[{i}].op"),
                format!("stop {} is not after stop {i} (op {op}, event {ev})", i + 1),
                "order the stops by position: op ascending, then event",
            ));
        }
    }
    Ok(())
}

/// The event index (the timeline's cursor) of every stop of the run's scenario, or an error at
/// the first stop that lies beyond the run.
pub fn tour_positions(run: &Run) -> Result<Vec<u32>, ScenarioError> {
    let ops = &run.ops;
    run.scenario
        .tour
        .iter()
        .enumerate()
        .map(|(i, stop)| {
            let k = stop.op as usize;
            if k > ops.len() {
                return Err(ScenarioError::new(
                    format!("tour[{i}].op"),
                    format!(
                        "stop {} is after op {k}, but the run has {} ops",
                        i + 1,
                        ops.len()
                    ),
                    format!("use 0..={}", ops.len()),
                ));
            }
            let base = if k == 0 { 0 } else { ops[k - 1].end };
            let e = stop.event.unwrap_or(0);
            if e == 0 {
                return Ok(base);
            }
            let Some(next) = ops.get(k) else {
                return Err(ScenarioError::new(
                    format!("tour[{i}].event"),
                    format!("stop {} goes {e} events past the last op", i + 1),
                    "remove `event` (the run ends there)",
                ));
            };
            let room = next.end - base;
            if e > room {
                return Err(ScenarioError::new(
                    format!("tour[{i}].event"),
                    format!(
                        "op {} has {room} events, event {e} is beyond its end",
                        k + 1
                    ),
                    format!("use 0..={room}, or a later op"),
                ));
            }
            Ok(base + e)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{parse, parse_valid};
    use super::*;
    use crate::run::runner::{run_valid, RunOptions};

    /// Three ops: alloc (order 2), free, drain; `tour` spliced in.
    fn doc(tour: &str) -> String {
        format!(
            r#"{{"version": 1, "zone": {{"pages": 4096}}, "ops": [
                {{"op": "alloc", "order": 2, "as": "a"}},
                {{"op": "free", "ref": "a"}},
                {{"op": "drain"}}], "tour": {tour}}}"#
        )
    }

    fn static_err(tour: &str) -> ScenarioError {
        parse(&doc(tour)).expect_err("expected a static error")
    }

    fn run_err(tour: &str) -> ScenarioError {
        let s = parse_valid(&doc(tour)).expect("statically valid");
        let r = run_valid(s, &RunOptions::default()).expect("the run itself is fine");
        tour_positions(&r).expect_err("expected a tour error")
    }

    #[test]
    fn a_tour_parses_round_trips_and_resolves_to_op_ends() {
        let text = doc(
            r#"[{"op": 0, "caption": "start"}, {"op": 1, "caption": "allocated"},
                {"op": 1, "event": 2, "caption": "two events into the free"},
                {"op": 3, "caption": "the end"}]"#,
        );
        let s = parse(&text).unwrap();
        assert_eq!(s.tour.len(), 4);
        assert_eq!(s.tour[2].event, Some(2));
        assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
        let r = run_valid(parse_valid(&text).unwrap(), &RunOptions::default()).unwrap();
        let at = tour_positions(&r).unwrap();
        assert_eq!(at, vec![0, r.ops[0].end, r.ops[0].end + 2, r.ops[2].end]);
        // A scenario without a tour serializes without the field.
        let plain = parse(r#"{"version": 1}"#).unwrap();
        assert!(!plain.to_json_pretty().contains("tour"));
    }

    #[test]
    fn shape_errors_carry_the_json_path() {
        let e = static_err(r#"{"op": 1}"#);
        assert_eq!(e.path, "tour");
        assert!(e.message.contains("an array of tour stops"), "{e}");
        let e = static_err(r#"[{"op": 1, "caption": "x"}, {"caption": "y"}]"#);
        assert_eq!(e.path, "tour[1].op");
        assert!(e.message.contains("missing field `op`"), "{e}");
        let e = static_err(r#"[{"op": 1, "caption": "x", "captoin": "y"}]"#);
        assert_eq!(e.path, "tour[0].captoin");
        assert!(e.hint.contains("did you mean `caption`"), "{e}");
        let e = static_err(r#"[{"op": -1, "caption": "x"}]"#);
        assert_eq!(e.path, "tour[0].op");
        let e = static_err(r#"[{"op": 1, "caption": 7}]"#);
        assert_eq!(e.path, "tour[0].caption");
        let e = static_err(r#"[{"op": 1, "event": "2", "caption": "x"}]"#);
        assert_eq!(e.path, "tour[0].event");
    }

    #[test]
    fn static_rules_order_and_captions() {
        let e = static_err(r#"[{"op": 1, "caption": "  "}]"#);
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("tour[0].caption", "the caption is empty")
        );
        let long = "x".repeat(MAX_CAPTION_CHARS + 1);
        let e = static_err(&format!(r#"[{{"op": 1, "caption": "{long}"}}]"#));
        assert_eq!(e.path, "tour[0].caption");
        let e = static_err(r#"[{"op": 2, "caption": "a"}, {"op": 1, "caption": "b"}]"#);
        assert_eq!(e.path, "tour[1].op");
        assert!(e.message.contains("not after stop 1"), "{e}");
        let e = static_err(
            r#"[{"op": 1, "event": 3, "caption": "a"}, {"op": 1, "event": 3, "caption": "b"}]"#,
        );
        assert_eq!(e.path, "tour[1].op");
        let many: Vec<String> = (0..=MAX_TOUR_STOPS)
            .map(|i| format!(r#"{{"op": {i}, "caption": "c"}}"#))
            .collect();
        let e = static_err(&format!("[{}]", many.join(",")));
        assert_eq!(e.path, format!("tour[{MAX_TOUR_STOPS}]"));
    }

    #[test]
    fn positions_beyond_the_run_are_clear_errors() {
        let e = run_err(r#"[{"op": 4, "caption": "x"}]"#);
        assert_eq!(e.path, "tour[0].op");
        assert_eq!(e.message, "stop 1 is after op 4, but the run has 3 ops");
        assert_eq!(e.hint, "use 0..=3");
        let e = run_err(r#"[{"op": 3, "event": 1, "caption": "x"}]"#);
        assert_eq!(e.path, "tour[0].event");
        assert!(e.message.contains("past the last op"), "{e}");
        let e = run_err(r#"[{"op": 0, "event": 1000, "caption": "x"}]"#);
        assert_eq!(e.path, "tour[0].event");
        assert!(e.message.starts_with("op 1 has "), "{e}");
    }

    /// Every built-in tells its story in a few stops, and every stop lies inside its run.
    #[test]
    fn every_builtin_has_a_tour_inside_its_run() {
        for b in crate::scenario::builtin::ALL {
            let r = run_valid(parse_valid(b.json).unwrap(), &RunOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", b.id));
            let at = tour_positions(&r).unwrap();
            assert!((3..=8).contains(&at.len()), "{}: {} stops", b.id, at.len());
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{}: {at:?}", b.id);
            assert!(*at.last().unwrap() <= r.log.events.len() as u32);
        }
    }
}
