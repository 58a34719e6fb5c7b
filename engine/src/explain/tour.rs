//! Tours: a sequence of stops (a position in the run and a caption) written in the scenario, so a
//! speaker can play the seed's story stop by stop (presenter mode).
//!
//! A stop addresses the run by operations, as `buddyscope run --ops K` does: `{"op": K}` is the
//! state after K executed ops (an op inside a `repeat` counts once per iteration), and
//! `"event": E` goes E events further into op K+1. Op counts survive edits of the engine's event
//! detail, which raw event indices would not. The static checks (shape, order, captions) run with
//! the rest of the scenario's ([`crate::scenario::validate`]); whether a stop lies inside the run
//! is only known once it has run: [`tour_positions`]. That check does not reject the run (an edit of the ops must not make
//! the scenario unusable because its tour went stale): the app reports it where the tour plays.

use crate::run::Run;
use crate::scenario::ScenarioError;

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
    use super::*;
    use crate::scenario::{parse, parse_valid};

    /// Three ops: alloc (order 2), free, drain; `tour` spliced in.
    fn doc(tour: &str) -> String {
        format!(
            r#"{{"version": 1, "zone": {{"pages": 4096}}, "ops": [
                {{"op": "alloc", "order": 2, "as": "a"}},
                {{"op": "free", "ref": "a"}},
                {{"op": "drain"}}], "tour": {tour}}}"#
        )
    }

    fn run_err(tour: &str) -> ScenarioError {
        let s = parse_valid(&doc(tour)).expect("statically valid");
        let r = crate::run::Runner::new(s)
            .run()
            .expect("the run itself is fine");
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
        let r = crate::run::Runner::new(parse_valid(&text).unwrap())
            .run()
            .unwrap();
        let at = tour_positions(&r).unwrap();
        assert_eq!(at, vec![0, r.ops[0].end, r.ops[0].end + 2, r.ops[2].end]);
        // A scenario without a tour serializes without the field.
        let plain = parse(r#"{"version": 1}"#).unwrap();
        assert!(!plain.to_json_pretty().contains("tour"));
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
            let r = crate::run::Runner::new(parse_valid(b.json()).unwrap())
                .run()
                .unwrap_or_else(|e| panic!("{}: {e}", b.id));
            let at = tour_positions(&r).unwrap();
            assert!((3..=8).contains(&at.len()), "{}: {} stops", b.id, at.len());
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{}: {at:?}", b.id);
            assert!(*at.last().unwrap() <= r.log.events.len() as u32);
        }
    }
}
