//! [`Trace`]: the recorded events in order, with the call bookkeeping stored apart; and
//! [`EventLog`], a run's trace with the text of its messages.
//!
//! `Enter`/`Exit` annotations are more than half of a run's events (7.0 of the 12.7 million of
//! the 1M-operation mixed workload) and say only which function: a code each. The `Lock`
//! annotations (1.0 million more) say only the step, the lock and the CPU: a code each too
//! ([`lock_code`]; pcp locks of the first 32 CPUs). So the trace keeps the other events in one
//! vector of 16-byte [`Event`]s, these "coded" ones in a stream of 2-byte codes, and a bitmap
//! of which positions are coded (a bit per event, with the count of coded events before each
//! 64-event word). Position `i` is found in constant time: the coded events before it are the
//! word's count plus a popcount. Positions are those of the full interleaving, so the
//! timeline's positions, op records' ranges, checkpoints and `asks_at` are what they were; a
//! coded event read back is a reference into a table of every one.
//!
//! The pcp list's `Counter`s (1.2 million more: which count, the CPU and a delta of a few
//! pages) are coded the same way ([`counter_code`]).
//!
//! The codes are `Enter` of function `f` at `2 * f` and its `Exit` at `2 * f + 1` (`f` its index
//! in [`KernelFn::ALL`]), then the `Lock`s, then the `Counter`s: [`CODES`] of the 65,536 a `u16`
//! holds are taken.

use std::sync::LazyLock;

use super::events::*;
use super::packed::Packed;
use super::steps::{KernelFn, Step};
use serde::{Deserialize, Serialize};

/// The steps of the zone lock's `Lock` events (`cpu` 0) that the trace keeps as a code.
const ZONE_LOCK_STEPS: [Step; 9] = [
    Step::UnreserveHighatomicLock,
    Step::BulkLock,
    Step::BuddyLock,
    Step::HighatomicReserveLock,
    Step::IsolateLock,
    Step::UnisolateLock,
    Step::AllocContigTake,
    Step::FreeOnePageLock,
    Step::BulkFreeLock,
];

/// The steps of the pcp locks' `Lock` events kept as a code, for CPUs below [`LOCK_CPUS`].
const PCP_LOCK_STEPS: [Step; 4] = [
    Step::PcplistLock,
    Step::FreeFrozenPcpLock,
    Step::DrainLock,
    Step::DecayLock,
];

/// pcp `Lock` events of CPUs from here on (up to `MAX_CPUS`) are stored whole.
const LOCK_CPUS: usize = 32;

/// The steps and scalars of the `Counter` events the trace keeps as a code: the pcp's
/// `free_count` and `PCPF_PREV_FREE_HIGH_ORDER` as `free_frozen_page_commit` frees to it
/// (v7.1.5 mm/page_alloc.c:2859) and `rmqueue_pcplist` halves `free_count` (:3365), with a CPU
/// below [`LOCK_CPUS`] and a `delta` in [`COUNTER_DELTAS`].
const COUNTER_STEPS: [(Step, CounterId); 3] = [
    (Step::CommitFreeCount, CounterId::pcp_free_count),
    (Step::CommitFreeHigh, CounterId::pcp_prev_free_high_order),
    (Step::PcplistHalveFreeCount, CounterId::pcp_free_count),
];

/// The `delta`s of a coded `Counter`: a free adds its block's pages, and a halving of
/// `free_count` on an allocation takes a few tens at most in the mixed workload.
const COUNTER_DELTAS: std::ops::Range<i32> = -64..64;

/// The first code of a `Counter` event, after the `Lock`s.
const COUNTER_BASE: usize = LOCK_BASE + ZONE_LOCK_STEPS.len() + PCP_LOCK_STEPS.len() * LOCK_CPUS;

/// The first code of a `Lock` event: the calls take `0..2 * KernelFn::ALL.len()`.
const LOCK_BASE: usize = 2 * KernelFn::ALL.len();

/// Codes in use: calls, then zone-lock steps, then pcp-lock steps × CPUs, then counters by
/// step and scalar × CPUs × deltas.
const CODES: usize = COUNTER_BASE
    + COUNTER_STEPS.len() * LOCK_CPUS * (COUNTER_DELTAS.end - COUNTER_DELTAS.start) as usize;
const _: () = assert!(CODES <= 1 << 16, "the trace's codes are a u16");

/// Every coded event by its code: the table the trace reads them back from.
static CODED_EVENTS: LazyLock<Vec<Event>> = LazyLock::new(|| (0..CODES).map(coded_event).collect());

/// The event of code `code` (`code < CODES`).
fn coded_event(code: usize) -> Event {
    if code < LOCK_BASE {
        let func = KernelFn::ALL[code / 2];
        return if code.is_multiple_of(2) {
            Event::new(Step::Enter, Annotation::Enter { func }.into())
        } else {
            Event::new(Step::Exit, Annotation::Exit { func }.into())
        };
    }
    if code >= COUNTER_BASE {
        let deltas = (COUNTER_DELTAS.end - COUNTER_DELTAS.start) as usize;
        let i = code - COUNTER_BASE;
        let (step, id) = COUNTER_STEPS[i / (LOCK_CPUS * deltas)];
        let cpu = (i / deltas % LOCK_CPUS) as u8;
        let delta = COUNTER_DELTAS.start + (i % deltas) as i32;
        return Event::new(step, Mutation::Counter { id, cpu, delta }.into());
    }
    let i = code - LOCK_BASE;
    let (step, zone, cpu) = match ZONE_LOCK_STEPS.get(i) {
        Some(&s) => (s, true, 0),
        None => {
            let j = i - ZONE_LOCK_STEPS.len();
            (PCP_LOCK_STEPS[j / LOCK_CPUS], false, (j % LOCK_CPUS) as u8)
        }
    };
    Event::new(step, Annotation::Lock { zone, cpu }.into())
}

/// The code of `Lock { zone, cpu }` at `step`, if it has one. A million of the 5.7 million
/// events that are not calls in the 1M-operation mixed workload are locks, and their step,
/// lock and CPU fit a code as the calls' do: 15 MB of a recorded run's pages not faulted in.
#[inline(always)]
fn lock_code(step: Step, zone: bool, cpu: u8) -> Option<u16> {
    let code = if zone {
        if cpu != 0 {
            return None;
        }
        LOCK_BASE + ZONE_LOCK_STEPS.iter().position(|&s| s == step)?
    } else {
        if cpu as usize >= LOCK_CPUS {
            return None;
        }
        let i = PCP_LOCK_STEPS.iter().position(|&s| s == step)?;
        LOCK_BASE + ZONE_LOCK_STEPS.len() + i * LOCK_CPUS + cpu as usize
    };
    Some(code as u16)
}

/// The code of `Counter { id, cpu, delta }` at `step`, if it has one: 1.2 million of the
/// events of the 1M-operation mixed workload, 16 MB of its trace stored whole.
#[inline(always)]
fn counter_code(step: Step, id: u8, cpu: u8, delta: i32) -> Option<u16> {
    if cpu as usize >= LOCK_CPUS || !COUNTER_DELTAS.contains(&delta) {
        return None;
    }
    let s = COUNTER_STEPS
        .iter()
        .position(|&(s, i)| s == step && i as u8 == id)?;
    let deltas = (COUNTER_DELTAS.end - COUNTER_DELTAS.start) as usize;
    let code = COUNTER_BASE
        + (s * LOCK_CPUS + cpu as usize) * deltas
        + (delta - COUNTER_DELTAS.start) as usize;
    Some(code as u16)
}

/// The [`counter_code`] of a `Counter` event, read off its stored bytes: `id` (its index in
/// `CounterId::ALL`), `cpu`, then `delta`'s four.
#[inline(always)]
fn counter_code_of(ev: &Event) -> Option<u16> {
    let b: &Packed = &ev.packed;
    counter_code(
        ev.step,
        b[1],
        b[2],
        i32::from_le_bytes([b[3], b[4], b[5], b[6]]),
    )
}

/// The code of an event the trace keeps as a code: `2 * func + exit` of an `Enter` at
/// `Step::Enter` or an `Exit` at `Step::Exit` (the engine's `enter`/`exit`), a [`lock_code`] or
/// a [`counter_code`]. Read off the event's stored bytes: the tag, then the fields in order.
#[inline(always)]
fn code_of(ev: &Event) -> Option<u16> {
    let b: &Packed = &ev.packed;
    match (b[0], ev.step) {
        (annotation_tag::Enter, Step::Enter) => Some(2 * b[1] as u16),
        (annotation_tag::Exit, Step::Exit) => Some(2 * b[1] as u16 + 1),
        (annotation_tag::Lock, step) => lock_code(step, b[1] != 0, b[2]),
        (mutation_tag::Counter, _) => counter_code_of(ev),
        _ => None,
    }
}

/// Bytes of a full chunk of a trace's stream.
const CHUNK_BYTES: usize = 1 << 20;

/// A stream that grows by chunks of `N` items rather than by doubling one vector: a grown
/// vector is copied into a new block and its pages faulted in again (the first chunk alone
/// grows so, up to `N`). Item `i` is in chunk `i / N`: a full one, or the one being written.
/// A `clear` keeps the chunks to write again.
#[derive(Clone, Debug)]
struct Chunked<T, const N: usize> {
    full: Vec<Vec<T>>,
    cur: Vec<T>,
    spare: Vec<Vec<T>>,
}

impl<T, const N: usize> Default for Chunked<T, N> {
    fn default() -> Self {
        Chunked {
            full: Vec::new(),
            cur: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl<T: Copy, const N: usize> Chunked<T, N> {
    #[inline(always)]
    fn push(&mut self, v: T) {
        if self.cur.len() == N {
            self.next_chunk();
        }
        self.cur.push(v);
    }

    /// Once in `N` items.
    #[cold]
    #[inline(never)]
    fn next_chunk(&mut self) {
        let next = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(N));
        self.full.push(std::mem::replace(&mut self.cur, next));
    }

    #[inline(always)]
    fn get(&self, i: usize) -> T {
        *self.ref_at(i)
    }

    #[inline(always)]
    fn ref_at(&self, i: usize) -> &T {
        match self.full.get(i / N) {
            Some(c) => &c[i % N],
            None => &self.cur[i % N],
        }
    }

    fn len(&self) -> usize {
        self.full.len() * N + self.cur.len()
    }

    fn clear(&mut self) {
        self.cur.clear();
        for mut c in self.full.drain(..).rev() {
            c.clear();
            self.spare.push(c);
        }
    }

    fn capacity(&self) -> usize {
        let chunks = self.full.iter().chain(&self.spare);
        self.cur.capacity() + chunks.map(|c| c.capacity()).sum::<usize>()
    }
}

/// Equal when the items are (the spare chunks are not items).
impl<T: PartialEq, const N: usize> PartialEq for Chunked<T, N> {
    fn eq(&self, o: &Self) -> bool {
        self.full == o.full && self.cur == o.cur
    }
}

impl<T: Eq, const N: usize> Eq for Chunked<T, N> {}

/// The events of a run in order (see the module doc); indexed, iterated and pushed like the
/// `Vec<Event>` it replaces. Equal when the events are (the stored form of a sequence is
/// unique).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The events that are not coded, in order.
    other: Chunked<Event, { CHUNK_BYTES / 16 }>,
    /// The coded events in order, as their codes (indices into `CODED_EVENTS`).
    codes: Chunked<u16, { CHUNK_BYTES / 2 }>,
    /// Bit `i % 64` of word `i / 64`: event `i` is coded.
    is_coded: Vec<u64>,
    /// Coded events before word `w`.
    coded_before: Vec<u32>,
    len: usize,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No events.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Starts the bitmap word of position `len` when it is a new one.
    #[inline(always)]
    fn open_word(&mut self) -> usize {
        if self.len.is_multiple_of(64) {
            self.new_word();
        }
        self.len / 64
    }

    /// Once in 64 events: out of line, so that the engine's many inlined pushes stay small.
    #[cold]
    #[inline(never)]
    fn new_word(&mut self) {
        self.is_coded.push(0);
        self.coded_before.push(self.codes.len() as u32);
    }

    /// Appends `ev`.
    #[inline(always)]
    pub fn push(&mut self, ev: Event) {
        match code_of(&ev) {
            Some(code) => self.push_code(code),
            None => {
                self.open_word();
                self.other.push(ev);
                self.len += 1;
            }
        }
    }

    /// Appends the `Enter` (`exit` false) or `Exit` of `func`, at [`Step::Enter`] /
    /// [`Step::Exit`]: what `push` of that event does, without building it.
    #[inline(always)]
    pub fn push_call(&mut self, func: KernelFn, exit: bool) {
        self.push_code(2 * func as u16 + exit as u16);
    }

    /// Appends `Lock { zone, cpu }` at `step`: what `push` of that event does, with the code
    /// worked out from the fields rather than from the event's bytes.
    #[inline(always)]
    pub fn push_lock(&mut self, step: Step, zone: bool, cpu: u8) {
        match lock_code(step, zone, cpu) {
            Some(code) => self.push_code(code),
            None => self.push(Event::new(step, Annotation::Lock { zone, cpu }.into())),
        }
    }

    #[inline(always)]
    fn push_code(&mut self, code: u16) {
        let w = self.open_word();
        self.is_coded[w] |= 1 << (self.len % 64);
        self.codes.push(code);
        self.len += 1;
    }

    /// The event at position `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Event> {
        if i >= self.len {
            return None;
        }
        let (w, bit) = (i / 64, i % 64);
        let word = self.is_coded[w];
        let before =
            self.coded_before[w] as usize + (word & ((1u64 << bit) - 1)).count_ones() as usize;
        Some(if word >> bit & 1 != 0 {
            &CODED_EVENTS[self.codes.get(before) as usize]
        } else {
            self.other.ref_at(i - before)
        })
    }

    /// The last event.
    pub fn last(&self) -> Option<&Event> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// The events in order.
    pub fn iter(&self) -> TraceIter<'_> {
        self.range(0..self.len)
    }

    /// The events at positions `r` (clamped to the trace), in order.
    pub fn range(&self, r: std::ops::Range<usize>) -> TraceIter<'_> {
        let end = r.end.min(self.len);
        TraceIter {
            trace: self,
            pos: r.start.min(end)..end,
        }
    }

    /// Drops every event, keeping the memory (a re-run writes into pages already mapped).
    pub fn clear(&mut self) {
        self.other.clear();
        self.codes.clear();
        self.is_coded.clear();
        self.coded_before.clear();
        self.len = 0;
    }

    /// How many of the events are coded (`Enter`/`Exit`, most `Lock`s and pcp `Counter`s, 2
    /// bytes each).
    pub fn coded_count(&self) -> usize {
        self.codes.len()
    }

    /// Bytes the events take at the least: 16 an event, 2 a coded one.
    pub fn min_bytes(&self) -> usize {
        self.other.len() * std::mem::size_of::<Event>() + self.codes.len() * 2
    }

    /// Heap bytes the trace holds, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.other.capacity() * std::mem::size_of::<Event>()
            + self.codes.capacity() * 2
            + self.is_coded.capacity() * 8
            + self.coded_before.capacity() * 4
    }
}

impl std::ops::Index<usize> for Trace {
    type Output = Event;
    fn index(&self, i: usize) -> &Event {
        self.get(i)
            .unwrap_or_else(|| panic!("event {i} of a trace of {}", self.len))
    }
}

/// The events of a position range of a [`Trace`], in order (either end).
#[derive(Clone)]
pub struct TraceIter<'a> {
    trace: &'a Trace,
    pos: std::ops::Range<usize>,
}

impl<'a> Iterator for TraceIter<'a> {
    type Item = &'a Event;
    #[inline]
    fn next(&mut self) -> Option<&'a Event> {
        let i = self.pos.next()?;
        self.trace.get(i)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pos.size_hint()
    }
    fn nth(&mut self, n: usize) -> Option<&'a Event> {
        let i = self.pos.nth(n)?;
        self.trace.get(i)
    }
}

impl<'a> TraceIter<'a> {
    /// The range's events again from its start, as `iter()` of the slice it stands for.
    pub fn iter(&self) -> TraceIter<'a> {
        self.clone()
    }
}

impl DoubleEndedIterator for TraceIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.pos.next_back()?;
        self.trace.get(i)
    }
}

impl ExactSizeIterator for TraceIter<'_> {}

impl<'a> IntoIterator for &'a Trace {
    type Item = &'a Event;
    type IntoIter = TraceIter<'a>;
    fn into_iter(self) -> TraceIter<'a> {
        self.iter()
    }
}

impl FromIterator<Event> for Trace {
    fn from_iter<I: IntoIterator<Item = Event>>(it: I) -> Trace {
        let mut t = Trace::new();
        for ev in it {
            t.push(ev);
        }
        t
    }
}

impl From<Vec<Event>> for Trace {
    fn from(v: Vec<Event>) -> Trace {
        v.into_iter().collect()
    }
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A sequence of events, as the `Vec<Event>` was.
impl Serialize for Trace {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Trace {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Trace, D::Error> {
        Vec::<Event>::deserialize(d).map(Trace::from)
    }
}

/// The recorded stream of one run: events and the text of their messages.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EventLog {
    /// The events, in order.
    pub events: Trace,
    /// The messages' text, by id ([`Annotation::Message`]).
    pub messages: Vec<String>,
}

impl EventLog {
    /// The text of message `id` (empty if there is none).
    pub fn message(&self, id: u32) -> &str {
        self.messages
            .get(id as usize)
            .map(|s| s.as_str())
            .unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions, iteration both ways and ranges see the events as pushed, calls included,
    /// across bitmap words.
    #[test]
    fn positions_are_those_of_the_interleaving() {
        let mut evs = vec![];
        for i in 0..300u32 {
            let ev = match i % 5 {
                0 | 3 => Event::new(
                    Step::Enter,
                    Annotation::Enter {
                        func: KernelFn::ALL[(i as usize) % KernelFn::ALL.len()],
                    }
                    .into(),
                ),
                1 => Event::new(
                    Step::Exit,
                    Annotation::Exit {
                        func: KernelFn::expand,
                    }
                    .into(),
                ),
                // An Enter at another step is not a call of the stream: stored as it is.
                4 if i % 2 == 0 => Event::new(
                    Step::OpNote,
                    Annotation::Enter {
                        func: KernelFn::rmqueue,
                    }
                    .into(),
                ),
                _ => Event::new(Step::PrepNewPage, Mutation::GetPage { pfn: i }.into()),
            };
            evs.push(ev);
        }
        let t: Trace = evs.clone().into();
        assert_eq!(t.len(), evs.len());
        for (i, ev) in evs.iter().enumerate() {
            assert_eq!(t[i], *ev, "{i}");
        }
        assert!(t.iter().eq(evs.iter()));
        assert!(t.iter().rev().eq(evs.iter().rev()));
        assert!(t.range(63..130).eq(evs[63..130].iter()));
        assert_eq!(t.range(290..400).len(), 10);
        assert_eq!(t.last(), evs.last());
        assert_eq!(t.get(300), None);
        assert!(t.codes.len() > 100 && t.other.len() > 100);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, serde_json::to_string(&evs).unwrap());
        let back: Trace = serde_json::from_str(&json).unwrap();
        assert!(back.iter().eq(evs.iter()));
    }

    /// Every code stands for one event whose code it is; `Lock`s without a code (a CPU from 32
    /// on, a zone lock with a CPU, a step not listed) are stored whole, and `push_lock` stores
    /// exactly what `push` does.
    #[test]
    fn locks_are_coded_where_they_fit() {
        for code in 0..CODES {
            assert_eq!(code_of(&CODED_EVENTS[code]), Some(code as u16));
        }
        let locks = [
            (Step::PcplistLock, false, 0),
            (Step::DecayLock, false, 31),
            (Step::DrainLock, false, 32),
            (Step::FreeFrozenPcpLock, false, 63),
            (Step::BuddyLock, true, 0),
            (Step::BulkFreeLock, true, 0),
            (Step::BuddyLock, true, 1),
            (Step::PcplistLock, true, 0),
            (Step::BuddyLock, false, 0),
            (Step::OpNote, false, 0),
        ];
        let evs: Vec<Event> = locks
            .iter()
            .map(|&(step, zone, cpu)| Event::new(step, Annotation::Lock { zone, cpu }.into()))
            .collect();
        let mut pushed = Trace::new();
        for &(step, zone, cpu) in &locks {
            pushed.push_lock(step, zone, cpu);
        }
        let t: Trace = evs.clone().into();
        assert_eq!(pushed, t);
        assert!(t.iter().eq(evs.iter()));
        assert_eq!((t.codes.len(), t.other.len()), (4, 6));
    }

    /// Streams longer than a chunk read back as pushed, and a trace cleared and written again
    /// equals one written fresh (the kept chunks are no part of it).
    #[test]
    fn chunks_hold_the_stream_in_order() {
        let ev = |i: u32| match i % 9 {
            0 => Event::new(Step::PrepNewPage, Mutation::GetPage { pfn: i }.into()),
            _ => Event::new(
                Step::Enter,
                Annotation::Enter {
                    func: KernelFn::ALL[i as usize % KernelFn::ALL.len()],
                }
                .into(),
            ),
        };
        let n = 9 * (CHUNK_BYTES / 16) as u32 + 100;
        let mut t = Trace::new();
        for i in 0..n {
            t.push(ev(i));
        }
        assert!(!t.other.full.is_empty() && !t.codes.full.is_empty());
        for i in (0..n).step_by(997).chain(n - 10..n) {
            assert_eq!(t[i as usize], ev(i), "{i}");
        }
        t.clear();
        let fresh: Trace = (0..1000).map(|i| ev(i + 1)).collect();
        for i in 0..1000 {
            t.push(ev(i + 1));
        }
        assert_eq!(t, fresh);
        assert!(t.iter().eq(fresh.iter()));
        t.clear();
        for i in 0..n {
            t.push(ev(i));
        }
        assert_eq!(t[n as usize - 1], ev(n - 1));
        assert_eq!(t.len(), n as usize);
    }

    /// The pcp counts' `Counter`s are coded at their steps, CPUs below 32 and deltas in range;
    /// the rest are stored whole, and all read back as pushed.
    #[test]
    fn counters_are_coded_where_they_fit() {
        let counters = [
            (Step::CommitFreeCount, CounterId::pcp_free_count, 0, 1, true),
            (
                Step::CommitFreeCount,
                CounterId::pcp_free_count,
                31,
                -64,
                true,
            ),
            (
                Step::CommitFreeHigh,
                CounterId::pcp_prev_free_high_order,
                3,
                63,
                true,
            ),
            (
                Step::PcplistHalveFreeCount,
                CounterId::pcp_free_count,
                0,
                -31,
                true,
            ),
            (
                Step::CommitFreeCount,
                CounterId::pcp_free_count,
                32,
                1,
                false,
            ),
            (
                Step::CommitFreeCount,
                CounterId::pcp_free_count,
                0,
                64,
                false,
            ),
            (
                Step::CommitFreeCount,
                CounterId::pcp_free_count,
                0,
                -65,
                false,
            ),
            (Step::CommitFreeCount, CounterId::pcp_high, 0, 1, false),
            (Step::NrPcpAllocClamp, CounterId::pcp_high, 0, 7040, false),
        ];
        let evs: Vec<Event> = counters
            .iter()
            .map(|&(step, id, cpu, delta, _)| {
                Event::new(step, Mutation::Counter { id, cpu, delta }.into())
            })
            .collect();
        for (ev, c) in evs.iter().zip(&counters) {
            assert_eq!(code_of(ev).is_some(), c.4, "{ev:?}");
        }
        let t: Trace = evs.clone().into();
        assert!(t.iter().eq(evs.iter()));
        assert_eq!((t.codes.len(), t.other.len()), (4, 5));
    }
}
