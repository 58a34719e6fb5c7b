//! The order a replay applies a trace's lines in, and how far it can look ahead.
//!
//! ftrace keeps one ring buffer per CPU; reading `trace` merges them by timestamp, so a
//! kernel's text is normally in time order across CPUs. It need not be: `trace_pipe` read
//! while the buffers fill, a `cat` of per-cpu files, or a clock that is not monotonic across
//! CPUs gives lines that are locally out of order. [`Window`] sorts the lines by their
//! timestamp within a window of [`REORDER_WINDOW`] lines, stably (equal timestamps, and lines
//! without one, keep their file order: a line without a timestamp takes its predecessor's), so
//! the buddyscope engine's own trace, which has no timestamps, is applied exactly as printed.
//! The lines it holds are the replay's lookahead ([`Window::peek`]).

use super::parse::{TraceLine, TraceParseError};
use std::collections::VecDeque;

/// Lines held back to be sorted: more than one `rmqueue_bulk` refill of every CPU.
pub const REORDER_WINDOW: usize = 4096;

/// A trace's lines in timestamp order, with lookahead.
pub struct Window<I> {
    src: I,
    /// Held lines in apply order, each with its sort key `(timestamp, line)`.
    held: VecDeque<((u64, u64), TraceLine)>,
    /// The timestamp of the last line read (a line without one sorts with it).
    last_ts: u64,
    /// The largest key already handed out: a line sorting before it came too late.
    released: Option<(u64, u64)>,
    /// A parse error, returned once the lines before it are handed out.
    err: Option<TraceParseError>,
    done: bool,
    /// Lines moved before an earlier-read line (out of order in the file, in the window).
    pub reordered: u64,
    /// Lines whose timestamp is before one already applied (out of order by more than the
    /// window): applied where they come.
    pub late: u64,
}

impl<I: Iterator<Item = Result<TraceLine, TraceParseError>>> Window<I> {
    pub fn new(src: I) -> Self {
        Window {
            src,
            held: VecDeque::new(),
            last_ts: 0,
            released: None,
            err: None,
            done: false,
            reordered: 0,
            late: 0,
        }
    }

    /// Reads until `n` lines are held beyond the sorting window (or the input ends).
    fn fill(&mut self, n: usize) {
        while !self.done && self.held.len() < n + REORDER_WINDOW {
            match self.src.next() {
                None => self.done = true,
                Some(Err(e)) => {
                    self.err = Some(e);
                    self.done = true;
                }
                Some(Ok(l)) => {
                    let ts = l.ts_ns.unwrap_or(self.last_ts);
                    self.last_ts = ts;
                    let key = (ts, l.line);
                    if self.released.is_some_and(|r| key < r) {
                        self.late += 1;
                    }
                    // Nearly always at the back: search from there.
                    let mut at = self.held.len();
                    while at > 0 && self.held[at - 1].0 > key {
                        at -= 1;
                    }
                    if at < self.held.len() {
                        self.reordered += 1;
                    }
                    self.held.insert(at, (key, l));
                }
            }
        }
    }

    /// The `k`-th line after the next one (`peek(0)` is the next).
    pub fn peek(&mut self, k: usize) -> Option<&TraceLine> {
        self.fill(k + 1);
        self.held.get(k).map(|(_, l)| l)
    }
}

impl<I: Iterator<Item = Result<TraceLine, TraceParseError>>> Iterator for Window<I> {
    type Item = Result<TraceLine, TraceParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.fill(1);
        match self.held.pop_front() {
            Some((key, l)) => {
                self.released = Some(self.released.map_or(key, |r| r.max(key)));
                Some(Ok(l))
            }
            None => self.err.take().map(Err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::replay::parse::TraceEvent;

    fn line(line: u64, cpu: u32, ts: Option<u64>) -> Result<TraceLine, TraceParseError> {
        Ok(TraceLine {
            line,
            cpu: Some(cpu),
            ts_ns: ts,
            task: None,
            event: TraceEvent::Free {
                pfn: line,
                order: 0,
            },
            after_batched: false,
            skipped_before: 0,
            skipped_cpus: 0,
            preemptible: None,
            in_irq: None,
            pid: None,
            batched_by: None,
            batched: Vec::new(),
            free_one_page: Vec::new(),
            pcp_commit: Vec::new(),
        })
    }

    /// Lines out of order in the file are applied in timestamp order; equal timestamps and
    /// lines without one keep their file order.
    #[test]
    fn sorts_by_timestamp_stably() {
        let src = vec![
            line(1, 0, Some(10)),
            line(2, 1, Some(30)),
            line(3, 0, Some(20)),
            line(4, 0, None),
            line(5, 1, Some(20)),
            line(6, 1, Some(40)),
        ];
        let mut w = Window::new(src.into_iter());
        assert_eq!(w.peek(1).map(|l| l.line), Some(3));
        let order: Vec<u64> = w.by_ref().map(|l| l.unwrap().line).collect();
        assert_eq!(order, [1, 3, 4, 5, 2, 6]);
        assert_eq!((w.reordered, w.late), (3, 0));
    }

    /// A parse error comes after every line before it.
    #[test]
    fn an_error_comes_last() {
        let src = vec![
            line(1, 0, Some(10)),
            Err(TraceParseError {
                line: 2,
                column: None,
                message: "bad".into(),
            }),
        ];
        let got: Vec<_> = Window::new(src.into_iter()).collect();
        assert!(matches!(&got[..], [Ok(l), Err(e)] if l.line == 1 && e.line == 2));
    }
}
