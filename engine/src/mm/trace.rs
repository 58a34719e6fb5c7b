//! [`Trace`]: the recorded events in order, with the call bookkeeping stored apart.
//!
//! `Enter`/`Exit` annotations are more than half of a run's events (7.0 of the 12.7 million of
//! the 1M-operation mixed workload) and say only which function: a byte each. The `Lock`
//! annotations (1.0 million more) say only the step, the lock and the CPU: a byte each too
//! (`packed::lock_code`; pcp locks of the first 32 CPUs). So the trace keeps the other events
//! in one vector of 16-byte [`Event`]s, these "byte-coded" ones in a byte stream, and a bitmap
//! of which positions are byte-coded (a bit per event, with the count of byte-coded events
//! before each 64-event word). Position `i` is found in constant time: the byte-coded events
//! before it are the word's count plus a popcount. Positions are those of the full
//! interleaving, so the timeline's positions, op records' ranges, checkpoints and `asks_at`
//! are what they were; a byte-coded event read back is a reference into a table of every one.

use std::sync::LazyLock;

use super::events::*;
use super::packed::{self, byte_coded_event, BYTE_CODES};
use crate::mm::steps::Step;
use serde::{Deserialize, Serialize};

/// Every byte-coded event by its code: `Enter` of function `f` at `2 * f`, its `Exit` at
/// `2 * f + 1`, then the `Lock` events (`packed::lock_code`).
static BYTE_EVENTS: LazyLock<Vec<Event>> =
    LazyLock::new(|| (0..BYTE_CODES).map(byte_coded_event).collect());

/// The events of a run in order (see the module doc); indexed, iterated and pushed like the
/// `Vec<Event>` it replaces. Equal when the events are (the stored form of a sequence is
/// unique).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The events that are not byte-coded, in order.
    other: Vec<Event>,
    /// The byte-coded events in order, as their codes (indices into `BYTE_EVENTS`).
    codes: Vec<u8>,
    /// Bit `i % 64` of word `i / 64`: event `i` is byte-coded.
    is_coded: Vec<u64>,
    /// Byte-coded events before word `w`.
    coded_before: Vec<u32>,
    len: usize,
}

impl Trace {
    pub fn new() -> Trace {
        Trace::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

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
        match packed::byte_code(&ev) {
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
        self.push_code(2 * func as u8 + exit as u8);
    }

    /// Appends `Lock { zone, cpu }` at `step`: what `push` of that event does, with the byte
    /// code worked out from the fields rather than from the event's bytes.
    #[inline(always)]
    pub fn push_lock(&mut self, step: Step, zone: bool, cpu: u8) {
        match packed::lock_code(step, zone, cpu) {
            Some(code) => self.push_code(code),
            None => self.push(Event::new(step, Annotation::Lock { zone, cpu }.into())),
        }
    }

    #[inline(always)]
    fn push_code(&mut self, code: u8) {
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
            &BYTE_EVENTS[self.codes[before] as usize]
        } else {
            &self.other[i - before]
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

    /// How many of the events are byte-coded (`Enter`/`Exit` and most `Lock`s, a byte each).
    pub fn byte_coded_count(&self) -> usize {
        self.codes.len()
    }

    /// Bytes the events take at the least: 16 an event, 1 a byte-coded one.
    pub fn min_bytes(&self) -> usize {
        self.other.len() * std::mem::size_of::<Event>() + self.codes.len()
    }

    /// Heap bytes the trace holds, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.other.capacity() * std::mem::size_of::<Event>()
            + self.codes.capacity()
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

#[cfg(test)]
mod tests {
    use super::packed::KERNEL_FNS;
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
                        func: KERNEL_FNS[(i as usize) % KERNEL_FNS.len()],
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

    /// Every byte code stands for one event whose code it is; `Lock`s without a code (a CPU
    /// from 32 on, a zone lock with a CPU, a step not listed) are stored whole, and `push_lock`
    /// stores exactly what `push` does.
    #[test]
    fn locks_are_byte_coded_where_they_fit() {
        for code in 0..BYTE_CODES {
            assert_eq!(packed::byte_code(&BYTE_EVENTS[code]), Some(code as u8));
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
}
