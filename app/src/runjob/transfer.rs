//! The run a worker computed, sent to the main thread as one `ArrayBuffer` (transferred, not
//! copied).
//!
//! What is sent and what is re-derived. The event log, op records, owners and names are the
//! product of the run: re-deriving them means running the allocator again, the work the worker
//! exists to take off the page, so they are sent, in postcard's compact binary
//! form (varint integers: an event is about 8 bytes on the wire against 16 in memory, a
//! call 1). The zone states are not: a zone copy is ~20 bytes a page on the wire (5 MB for
//! the default 1 GiB zone, 26 of them in its run: 142 MB), while the page rebuilds them cheaply:
//! the initial node with `setup::build` (what a small run does anyway), the checkpoints and the
//! final node by applying the events once ([`CheckpointRebuild`], no allocator logic); the
//! scenario is the text the page already read to cost the run, and the op definitions come
//! from its program. [`CheckpointRebuild::into_run`] assembles the run as the runner does.
//!
//! The page reads the bytes in slices ([`RunDecoder`]): a head (counts, messages, owners,
//! names), then every op record and every event as its own postcard
//! value, so the page decodes a few thousand records, yields to the browser, and goes on
//! (`runjob::receive`): a 600,000-op run is ~11 M events, seconds of decoding in wasm, which
//! used to freeze the page in one piece.
//!
//! Measured (release wasm, headless Chromium, 2 cores): see docs/app.md, "Long runs and limits".

use buddyscope::mm::{Event, EventLog, Trace};
use buddyscope::run::replay::{
    Cause, CauseCount, Divergence, Miss, OpTimes, PredictReport, ReplaySummary, TracedAllocs,
};
use buddyscope::run::{CheckpointRebuild, OpRecord, OwnerInfo, Run};
use buddyscope::scenario::ValidScenario;
use buddyscope::Node;
use serde::{Deserialize, Serialize};

use crate::model::session::ReplayInfo;

/// The wire form's head, borrowed for encoding: what is not one record a piece, and how many
/// op records and events follow it.
#[derive(Serialize)]
struct HeadRef<'a> {
    ops: u64,
    events: u64,
    messages: &'a [String],
    owners: &'a [OwnerInfo],
    names: &'a [(String, String)],
}

/// The head, owned for decoding; fields in the order of [`HeadRef`].
#[derive(Deserialize)]
struct Head {
    ops: u64,
    events: u64,
    messages: Vec<String>,
    owners: Vec<OwnerInfo>,
    names: Vec<(String, String)>,
}

/// Encodes what the page cannot re-derive of `run` (see the module doc): the head, then the op
/// records, then the events, each a postcard value of its own.
pub fn encode_run(run: &Run) -> Vec<u8> {
    let head = HeadRef {
        ops: run.ops.len() as u64,
        events: run.log.events.len() as u64,
        messages: &run.log.messages,
        owners: &run.owners,
        names: &run.names,
    };
    // Serializing plain data into a Vec cannot fail (no maps with non-string keys, no
    // unsupported types); a failure would be a programming error caught by the tests.
    let mut out = postcard::to_allocvec(&head).expect("a run encodes");
    for op in &run.ops {
        out = postcard::to_extend(op, out).expect("an op record encodes");
    }
    for ev in &run.log.events {
        out = postcard::to_extend(ev, out).expect("an event encodes");
    }
    out
}

/// What a replay adds to its run, borrowed for encoding ([`ReplayInfo`] but the misses'
/// scrubber positions, which the page reads off the run).
#[derive(Serialize)]
struct ReplayRef<'a> {
    file: &'a str,
    profile: &'a str,
    summary: &'a ReplaySummary,
    divergences: &'a [Divergence],
    allocs: &'a TracedAllocs,
    times: &'a OpTimes,
    predict: Option<PredictWire<'a>>,
}

/// The prediction on the wire: its counts by cause without the causes' words (the page has
/// them: [`Cause::kernel_fn`], [`Cause::explain`]).
#[derive(Serialize, Deserialize)]
struct PredictWire<'a> {
    allocations: u64,
    exact: u64,
    same_order_and_list: u64,
    miss_count: u64,
    by_cause: Vec<(Cause, u64)>,
    misses: std::borrow::Cow<'a, [Miss]>,
}

/// [`ReplayRef`], owned for decoding; fields in its order.
#[derive(Deserialize)]
struct ReplayOwned {
    file: String,
    profile: String,
    summary: ReplaySummary,
    divergences: Vec<Divergence>,
    allocs: TracedAllocs,
    times: OpTimes,
    predict: Option<PredictWire<'static>>,
}

/// A replayed trace for the page: the length of what the replay adds (8 bytes, little-endian),
/// that ([`ReplayRef`], postcard), then the run as [`encode_run`] writes it.
pub fn encode_replay(run: &Run, info: &ReplayInfo) -> Vec<u8> {
    let wire = ReplayRef {
        file: &info.file,
        profile: &info.profile,
        summary: &info.summary,
        divergences: &info.divergences,
        allocs: &info.allocs,
        times: &info.times,
        predict: info.predict.as_ref().map(|p| PredictWire {
            allocations: p.allocations,
            exact: p.exact,
            same_order_and_list: p.same_order_and_list,
            miss_count: p.miss_count,
            by_cause: p.by_cause.iter().map(|c| (c.cause, c.count)).collect(),
            misses: std::borrow::Cow::Borrowed(&p.misses),
        }),
    };
    let head = postcard::to_allocvec(&wire).expect("a replay's summary encodes");
    let mut out = (head.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&head);
    out.extend_from_slice(&encode_run(run));
    out
}

/// [`encode_replay`]'s bytes split: what the replay adds (its misses' positions empty: the page
/// reads them off the run) and the run's bytes for [`RunDecoder`].
pub fn split_replay(mut bytes: Vec<u8>) -> Result<(ReplayInfo, Vec<u8>), String> {
    let len = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
        .filter(|&n| n <= bytes.len() - 8)
        .ok_or_else(|| unreadable(postcard::Error::DeserializeUnexpectedEnd))?;
    let w: ReplayOwned = postcard::from_bytes(&bytes[8..8 + len]).map_err(unreadable)?;
    let predict = w.predict.map(|p| PredictReport {
        allocations: p.allocations,
        exact: p.exact,
        same_order_and_list: p.same_order_and_list,
        miss_count: p.miss_count,
        by_cause: p
            .by_cause
            .into_iter()
            .map(|(cause, count)| CauseCount {
                cause,
                count,
                kernel_fn: cause.kernel_fn(),
                explain: cause.explain(),
            })
            .collect(),
        misses: p.misses.into_owned(),
    });
    let info = ReplayInfo {
        file: w.file,
        summary: w.summary,
        divergences: w.divergences,
        allocs: w.allocs,
        times: w.times,
        predict,
        miss_positions: Vec::new(),
        profile: w.profile,
    };
    bytes.drain(..8 + len);
    Ok((info, bytes))
}

/// Milliseconds the page spent on each step of [`RunDecoder`] (docs/app.md, "Long runs and
/// limits"): the slicing reads the clock anyway; the figures are shown only by a build with the
/// `bench` feature (BENCHMARKS.md, "Worker hand-over").
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(not(feature = "bench"), allow(dead_code))]
pub struct DecodeTimes {
    /// postcard → the event log and records, all slices together.
    pub decode: f64,
    /// `setup::build` of the initial node.
    pub build: f64,
    /// [`CheckpointRebuild`]: every event applied once, the node copies taken.
    pub rebuild: f64,
}

fn unreadable(e: postcard::Error) -> String {
    format!("the worker's result could not be read: {e}")
}

/// Reads [`encode_run`]'s bytes a slice at a time: [`RunDecoder::decode_for`] as often as it
/// takes, then [`RunDecoder::finish`].
pub struct RunDecoder {
    bytes: Vec<u8>,
    /// Bytes read so far.
    pos: usize,
    head: Head,
    ops: Vec<OpRecord>,
    events: Trace,
    decode_ms: f64,
}

impl RunDecoder {
    /// Reads the head of `bytes`.
    pub fn new(bytes: Vec<u8>) -> Result<RunDecoder, String> {
        let (head, rest) = postcard::take_from_bytes::<Head>(&bytes).map_err(unreadable)?;
        let pos = bytes.len() - rest.len();
        // Every record takes at least one byte: counts beyond that are not a run's (and
        // must not size an allocation).
        if head.ops.saturating_add(head.events) > rest.len() as u64 {
            return Err(unreadable(postcard::Error::DeserializeUnexpectedEnd));
        }
        Ok(RunDecoder {
            ops: Vec::with_capacity(head.ops as usize),
            events: Trace::new(),
            bytes,
            pos,
            head,
            decode_ms: 0.0,
        })
    }

    /// Records (op records and events) read so far.
    pub fn done(&self) -> u64 {
        (self.ops.len() + self.events.len()) as u64
    }

    /// Op records in the run.
    pub fn ops(&self) -> u64 {
        self.head.ops
    }

    /// Records in the run.
    pub fn total(&self) -> u64 {
        self.head.ops + self.head.events
    }

    /// Reads up to `n` more records; true when all are read.
    pub fn decode(&mut self, n: usize) -> Result<bool, String> {
        let mut rest = &self.bytes[self.pos..];
        let mut left = n;
        while left > 0 && (self.ops.len() as u64) < self.head.ops {
            let (op, r) = postcard::take_from_bytes::<OpRecord>(rest).map_err(unreadable)?;
            self.ops.push(op);
            rest = r;
            left -= 1;
        }
        while left > 0 && (self.events.len() as u64) < self.head.events {
            let (ev, r) = postcard::take_from_bytes::<Event>(rest).map_err(unreadable)?;
            self.events.push(ev);
            rest = r;
            left -= 1;
        }
        self.pos = self.bytes.len() - rest.len();
        Ok(self.done() == self.total())
    }

    /// Reads records for about `budget_ms` (by `clock`, ms); true when all are read.
    pub fn decode_for(&mut self, budget_ms: f64, clock: fn() -> f64) -> Result<bool, String> {
        /// Records between two looks at the clock (a few hundred µs of work).
        const BATCH: usize = 2048;
        let t0 = clock();
        let done = loop {
            if self.decode(BATCH)? {
                break true;
            }
            if clock() - t0 >= budget_ms {
                break false;
            }
        };
        self.decode_ms += clock() - t0;
        Ok(done)
    }

    /// The run again, from the records read and the scenario that produced it, with the
    /// checkpoints of `checkpoint_budget` bytes the run itself would have kept; `clock` (ms)
    /// times the steps. In one piece (the page goes through [`RunDecoder::rebuild`] a slice
    /// at a time).
    #[cfg(test)]
    pub fn finish(
        self,
        valid: ValidScenario,
        checkpoint_budget: usize,
        clock: fn() -> f64,
    ) -> Result<(Run, DecodeTimes), String> {
        let mut r = self.rebuild(valid, checkpoint_budget, clock)?;
        let t0 = clock();
        r.step(usize::MAX);
        r.times.rebuild += clock() - t0;
        Ok(r.finish())
    }

    /// Reads what is left, builds the initial node from `valid` and starts rebuilding the node
    /// states from the events ([`Rebuilding`]).
    pub fn rebuild(
        mut self,
        valid: ValidScenario,
        checkpoint_budget: usize,
        clock: fn() -> f64,
    ) -> Result<Rebuilding, String> {
        self.decode(usize::MAX)?;
        if self.pos != self.bytes.len() {
            return Err(unreadable(postcard::Error::DeserializeBadEncoding));
        }
        let t1 = clock();
        let start = buddyscope::run::build(valid);
        let initial = start.engine.into_node();
        let times = DecodeTimes {
            decode: self.decode_ms,
            build: clock() - t1,
            rebuild: 0.0,
        };
        Ok(Rebuilding {
            rebuild: CheckpointRebuild::new(&initial, checkpoint_budget),
            scenario: start.scenario,
            initial,
            events: self.events,
            ops: self.ops,
            head: self.head,
            times,
        })
    }
}

/// A decoded run whose checkpoints and final node are being rebuilt from its events
/// ([`CheckpointRebuild`]), a slice at a time like the decoding.
pub struct Rebuilding {
    rebuild: CheckpointRebuild,
    scenario: ValidScenario,
    initial: Node,
    events: Trace,
    ops: Vec<OpRecord>,
    head: Head,
    times: DecodeTimes,
}

impl Rebuilding {
    /// Replays the events of up to `n` more ops; true when all are replayed.
    pub fn step(&mut self, n: usize) -> bool {
        self.rebuild.step(&self.events, &self.ops, n)
    }

    /// Replays ops for about `budget_ms` (by `clock`, ms); true when all are replayed.
    pub fn step_for(&mut self, budget_ms: f64, clock: fn() -> f64) -> bool {
        /// Ops between two looks at the clock.
        const BATCH: usize = 256;
        let t0 = clock();
        let done = loop {
            if self.step(BATCH) {
                break true;
            }
            if clock() - t0 >= budget_ms {
                break false;
            }
        };
        self.times.rebuild += clock() - t0;
        done
    }

    /// Op records replayed so far, and in the run.
    pub fn progress(&self) -> (u64, u64) {
        (self.rebuild.ops_done() as u64, self.ops.len() as u64)
    }

    /// The run, once [`Rebuilding::step`] has returned true, and what reading it cost.
    pub fn finish(self) -> (Run, DecodeTimes) {
        let log = EventLog {
            events: self.events,
            messages: self.head.messages,
        };
        let run = self.rebuild.into_run(
            self.scenario,
            self.initial,
            log,
            self.ops,
            self.head.owners,
            self.head.names,
        );
        (run, self.times)
    }
}

/// The run again from [`encode_run`]'s bytes, decoded in one piece ([`RunDecoder`] without the
/// slices; the page reads a slice per task).
#[cfg(test)]
pub fn decode_run(
    valid: ValidScenario,
    bytes: &[u8],
    checkpoint_budget: usize,
    clock: fn() -> f64,
) -> Result<(Run, DecodeTimes), String> {
    let mut d = RunDecoder::new(bytes.to_vec())?;
    let t0 = clock();
    d.decode(usize::MAX)?;
    d.decode_ms = clock() - t0;
    d.finish(valid, checkpoint_budget, clock)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::session::run_options;
    use buddyscope::run::{Runner, Timeline};
    use buddyscope::scenario::parse_valid;

    /// The decoded run is the run: same records, same node states (checkpoints, final node,
    /// and a timeline seeking through it).
    #[test]
    fn a_run_round_trips() {
        for id in ["fallback-claim", "vmalloc-large-order"] {
            let json = buddyscope::scenario::builtin::get(id).unwrap().json();
            let run = Runner::new(parse_valid(json).unwrap())
                .options(&run_options())
                .run()
                .unwrap();
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
            assert!(back.final_node == run.final_node, "{id}");
            assert_eq!(back.stats, run.stats, "{id}");
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

    /// A replayed lab capture round-trips as the worker sends it: the run (the page rebuilds it
    /// from the replay's scenario, as it was sent to the worker in JSON) and everything the
    /// replay adds, its prediction included.
    #[test]
    fn a_replay_round_trips() {
        let (trace, start) = crate::panels::replay::tests::lab_capture("7.3.4", "idle");
        let (start, profile) = crate::model::session::replay_start(&start, None, "trace.txt");
        let (run, info) = crate::model::session::replay_trace(
            &start,
            profile,
            "trace.txt",
            &mut || trace.as_bytes(),
            &mut |_| {},
        )
        .unwrap();
        let bytes = encode_replay(&run, &info);
        let (back, rest) = split_replay(bytes).unwrap();
        assert_eq!(back.file, info.file);
        assert_eq!(back.profile, info.profile);
        assert_eq!(back.summary, info.summary);
        assert_eq!(back.divergences, info.divergences);
        assert_eq!(back.allocs.allocs, info.allocs.allocs);
        assert_eq!(back.times, info.times);
        assert_eq!(back.predict, info.predict);
        assert!(info.predict.as_ref().unwrap().miss_count > 0);
        // The worker gets the scenario as JSON: the page's own copy builds the same start.
        let sent = buddyscope::scenario::parse(&run.scenario.to_json_pretty()).unwrap();
        let valid = buddyscope::scenario::ValidScenario::new(sent).unwrap();
        let (mut got, _) =
            decode_run(valid, &rest, run_options().checkpoint_budget, || 0.0).unwrap();
        got.op_defs = buddyscope::run::replay::op_defs();
        assert_eq!(got.op_defs, run.op_defs);
        assert_eq!(got.log.events, run.log.events);
        assert_eq!(got.ops, run.ops);
        assert!(got.initial == run.initial);
        assert!(got.final_node == run.final_node);
        assert_eq!(
            crate::model::session::miss_positions(&got, back.predict.as_ref().unwrap()),
            info.miss_positions
        );
    }

    /// The wire form is compact: well under the in-memory size of the events alone.
    #[test]
    fn the_encoding_is_compact() {
        let b = buddyscope::scenario::builtin::get("fallback-claim").unwrap();
        let run = Runner::new(parse_valid(b.json()).unwrap())
            .options(&run_options())
            .run()
            .unwrap();
        let events = run.log.events.len() * std::mem::size_of::<buddyscope::mm::Event>();
        let bytes = encode_run(&run).len();
        println!(
            "{}: {} events ({events} bytes in memory), {} ops; encoded {bytes} bytes",
            b.id,
            run.log.events.len(),
            run.ops.len()
        );
        assert!(bytes < events / 2, "{bytes} vs {events}");
    }

    /// Read in slices of any size, the run is the one read in one piece.
    #[test]
    fn slices_decode_the_same_run() {
        let json = buddyscope::scenario::builtin::get("fallback-claim")
            .unwrap()
            .json();
        let run = Runner::new(parse_valid(json).unwrap())
            .options(&run_options())
            .run()
            .unwrap();
        let bytes = encode_run(&run);
        for n in [1, 7, 1000] {
            let mut d = RunDecoder::new(bytes.clone()).unwrap();
            let total = d.total();
            assert_eq!(total, (run.ops.len() + run.log.events.len()) as u64);
            let mut calls = 0;
            while !d.decode(n).unwrap() {
                calls += 1;
                assert_eq!(d.done(), (calls * n) as u64);
            }
            assert_eq!(d.done(), total);
            let budget = run_options().checkpoint_budget;
            let (back, _) = d
                .finish(parse_valid(json).unwrap(), budget, || 0.0)
                .unwrap();
            assert_eq!(back.log.events, run.log.events, "slices of {n}");
            assert_eq!(back.ops, run.ops, "slices of {n}");
            assert!(back.checkpoints == run.checkpoints, "slices of {n}");
        }
    }

    /// A cut-off or over-long buffer is an error, at whichever record it shows.
    #[test]
    fn a_truncated_or_padded_buffer_is_an_error() {
        let json = buddyscope::scenario::builtin::get("fallback-claim")
            .unwrap()
            .json();
        let run = Runner::new(parse_valid(json).unwrap())
            .options(&run_options())
            .run()
            .unwrap();
        let bytes = encode_run(&run);
        let budget = run_options().checkpoint_budget;
        let cut = decode_run(
            parse_valid(json).unwrap(),
            &bytes[..bytes.len() - 1],
            budget,
            || 0.0,
        );
        assert!(cut.unwrap_err().contains("could not be read"));
        let mut padded = bytes.clone();
        padded.push(0);
        let long = decode_run(parse_valid(json).unwrap(), &padded, budget, || 0.0);
        assert!(long.unwrap_err().contains("could not be read"));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let valid = parse_valid(buddyscope::scenario::builtin::default().json()).unwrap();
        let err = decode_run(valid, &[1, 2, 3], 1 << 20, || 0.0).unwrap_err();
        assert!(err.contains("could not be read"), "{err}");
    }
}
