//! The run a worker computed, sent to the main thread as one `ArrayBuffer` (transferred, not
//! copied).
//!
//! What is sent and what is re-derived. The event log, op records, op definitions, owners and
//! names are the product of the run: re-deriving them means running the allocator again, the
//! work the worker exists to take off the page, so they are sent, in postcard's compact binary
//! form (varint integers: an event is about 8 bytes on the wire against 24 in memory). The
//! zone states are not: a zone copy is ~20 bytes a page on the wire (5 MB for the default
//! 1 GiB zone, 26 of them in its run: 142 MB), while the page rebuilds them cheaply: the
//! initial zone with `setup::build` (what a small run does anyway), the checkpoints and the
//! final zone by applying the events once ([`rebuild_checkpoints`], no allocator logic), and
//! the scenario is the text the page already parsed to cost the run.
//!
//! Measured (release wasm, headless Chromium, 2 cores): see README "Long runs".

use buddyscope::events::EventLog;
use buddyscope::runner::{rebuild_checkpoints, OpDef, OpRecord, OwnerInfo, Run};
use buddyscope::scenario::ValidScenario;
use serde::{Deserialize, Serialize};

/// The wire form, borrowed for encoding (no copy of the trace before it is written).
#[derive(Serialize)]
struct PartsRef<'a> {
    log: &'a EventLog,
    ops: &'a [OpRecord],
    op_defs: &'a [OpDef],
    owners: &'a [OwnerInfo],
    names: &'a [(String, String)],
}

/// The wire form, owned for decoding; fields in the order of [`PartsRef`].
#[derive(Deserialize)]
struct Parts {
    log: EventLog,
    ops: Vec<OpRecord>,
    op_defs: Vec<OpDef>,
    owners: Vec<OwnerInfo>,
    names: Vec<(String, String)>,
}

/// Encodes what the page cannot re-derive of `run` (see the module doc).
pub fn encode_run(run: &Run) -> Vec<u8> {
    let parts = PartsRef {
        log: &run.log,
        ops: &run.ops,
        op_defs: &run.op_defs,
        owners: &run.owners,
        names: &run.names,
    };
    // Serializing plain data into a Vec cannot fail (no maps with non-string keys, no
    // unsupported types); a failure would be a programming error caught by the tests.
    postcard::to_allocvec(&parts).expect("a run encodes")
}

/// Milliseconds the page spent on each step of [`decode_run`] (README "Long runs").
#[derive(Clone, Copy, Debug, Default)]
pub struct DecodeTimes {
    /// postcard → the event log and records.
    pub decode: f64,
    /// `setup::build` of the initial zone.
    pub build: f64,
    /// [`rebuild_checkpoints`]: every event applied once, the zone copies taken.
    pub rebuild: f64,
}

/// The run again from [`encode_run`]'s bytes and the scenario that produced it, with the
/// checkpoints of `checkpoint_budget` bytes the run itself would have kept; `clock` (ms) times
/// the steps.
pub fn decode_run(
    valid: ValidScenario,
    bytes: &[u8],
    checkpoint_budget: usize,
    clock: fn() -> f64,
) -> Result<(Run, DecodeTimes), String> {
    let t0 = clock();
    let p: Parts = postcard::from_bytes(bytes)
        .map_err(|e| format!("the worker's result could not be read: {e}"))?;
    let t1 = clock();
    let start = buddyscope::setup::build(valid).map_err(|e| e.to_string())?;
    let initial = start.engine.zone;
    let t2 = clock();
    let (checkpoints, final_zone) =
        rebuild_checkpoints(&initial, &p.log.events, &p.ops, checkpoint_budget);
    let times = DecodeTimes {
        decode: t1 - t0,
        build: t2 - t1,
        rebuild: clock() - t2,
    };
    // The worker's run is recorded (every op kept): its lock holds are the sum of the ops'.
    let lock_holds = p.ops.iter().map(|o| o.lock_holds).sum();
    let run = Run {
        scenario: start.scenario.into_scenario(),
        initial,
        log: p.log,
        ops: p.ops,
        op_defs: p.op_defs,
        owners: p.owners,
        final_zone,
        checkpoints,
        names: p.names,
        lock_holds,
        ops_omitted: 0,
    };
    Ok((run, times))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run_options;
    use buddyscope::runner::run_valid;
    use buddyscope::scenario::parse_valid;
    use buddyscope::timeline::Timeline;

    /// The decoded run is the run: same records, same zone states (checkpoints, final zone,
    /// and a timeline seeking through it).
    #[test]
    fn a_run_round_trips() {
        for id in ["fallback-claim", "vmalloc-large-order"] {
            let json = buddyscope::builtin::get(id).unwrap().json;
            let run = run_valid(parse_valid(json).unwrap(), &run_options()).unwrap();
            let bytes = encode_run(&run);
            let (back, _) = decode_run(
                parse_valid(json).unwrap(),
                &bytes,
                run_options().checkpoint_budget,
                || 0.0,
            )
            .unwrap();
            assert_eq!(back.scenario, run.scenario, "{id}");
            assert_eq!(back.log.events, run.log.events, "{id}");
            assert_eq!(back.log.messages, run.log.messages, "{id}");
            assert_eq!(back.ops, run.ops, "{id}");
            assert_eq!(back.op_defs, run.op_defs, "{id}");
            assert_eq!(back.owners, run.owners, "{id}");
            assert_eq!(back.names, run.names, "{id}");
            assert!(back.initial == run.initial, "{id}");
            assert!(back.final_zone == run.final_zone, "{id}");
            assert!(back.checkpoints == run.checkpoints, "{id}");
            let (mut a, mut z) = (Timeline::new(run), Timeline::new(back));
            let n = a.len();
            for pos in [n / 3, n, n / 2] {
                a.seek(pos);
                z.seek(pos);
                assert!(a.zone() == z.zone(), "{id} at {pos}");
            }
        }
    }

    /// The wire form is compact: well under the in-memory size of the events alone.
    #[test]
    fn the_encoding_is_compact() {
        let b = buddyscope::builtin::get("fallback-claim").unwrap();
        let run = run_valid(parse_valid(b.json).unwrap(), &run_options()).unwrap();
        let events = run.log.events.len() * std::mem::size_of::<buddyscope::events::Event>();
        let bytes = encode_run(&run).len();
        println!(
            "{}: {} events ({events} bytes in memory), {} ops; encoded {bytes} bytes",
            b.id,
            run.log.events.len(),
            run.ops.len()
        );
        assert!(bytes < events / 2, "{bytes} vs {events}");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let valid = parse_valid(buddyscope::builtin::default().json).unwrap();
        let err = decode_run(valid, &[1, 2, 3], 1 << 20, || 0.0).unwrap_err();
        assert!(err.contains("could not be read"), "{err}");
    }
}
