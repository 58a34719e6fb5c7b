//! Stepping through a run: the node's state and the cost counters at any event index.
//!
//! Compute, then render by index: a [`Run`] holds the whole event trace; a [`Timeline`] keeps
//! one node at a cursor and moves it. Short moves apply or undo events one by one (every
//! mutation is invertible, so one step back costs one event); long jumps restore the nearest
//! checkpoint at or before the target and replay forwards — never from the start.

use crate::mm::KernelFn;
use crate::mm::{Annotation, Event};
use crate::mm::{Node, Stats, Zone};
use crate::run::runner::{OpRecord, Run};

/// Beyond this many events a jump goes through a checkpoint instead of stepping.
const STEP_LIMIT: u32 = 4096;

/// Restoring a checkpoint copies the whole node (16 bytes per page); replaying an event costs
/// about what copying this many bytes does (tens of nanoseconds either way, natively and in
/// wasm). A jump restores a checkpoint only when the copy and the replay from it cost less than
/// walking there from the cursor: at 16 GiB (a 64 MiB copy, worth 262,144 events) a jump
/// anywhere in a 100,000-event run walks, where it copied 64 MiB and replayed from the start
/// (BENCHMARKS.md "Frames"); at 1 GiB (16,384 events' worth) far jumps still restore.
const COPY_BYTES_PER_EVENT: u64 = 256;

/// The op the position readout names with `pos` events applied: the first op ending at or after
/// the last applied event (or op 1 before any event), so an op that ran no events is never named
/// at its end, the op whose last event it is is. `None` without ops.
pub fn op_at(ops: &[OpRecord], pos: u32) -> Option<usize> {
    if ops.is_empty() {
        return None;
    }
    let i = ops.partition_point(|o| o.end < pos.max(1));
    Some(i.min(ops.len() - 1))
}

/// A cursor over a run.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The run.
    pub run: Run,
    node: Node,
    stats: Stats,
    /// Number of events applied: the node is the state *after* events `[0, pos)`.
    pos: u32,
    /// Indices of the events a user steps through (see [`Event::is_visible`]).
    visible: Vec<u32>,
    /// A node of several zones: the zone [`Timeline::zone`] shows (the app's zone tabs);
    /// `None` shows the zone being worked on.
    view_zone: Option<usize>,
}

impl Timeline {
    /// A cursor at the start of `run`.
    pub fn new(run: Run) -> Timeline {
        let visible = run
            .log
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_visible())
            .map(|(i, _)| i as u32)
            .collect();
        Timeline {
            node: run.initial.clone(),
            stats: Stats::default(),
            pos: 0,
            visible,
            view_zone: None,
            run,
        }
    }

    /// The number of events.
    pub fn len(&self) -> u32 {
        self.run.log.events.len() as u32
    }

    /// No events.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events applied so far.
    pub fn pos(&self) -> u32 {
        self.pos
    }

    /// A zone after the first `pos()` events: the one picked with [`Timeline::set_view_zone`]
    /// in a node of several zones, else the zone being worked on.
    pub fn zone(&self) -> &Zone {
        match self.view_zone {
            Some(i) if i < self.node.nr_zones() => self.node.zone(i),
            _ => self.node.active(),
        }
    }

    /// The node after the first `pos()` events.
    pub fn node(&self) -> &Node {
        &self.node
    }

    /// The run's cost counters after the first `pos()` events.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Which zone of the node [`Timeline::zone`] shows (`None`: the zone being worked on).
    pub fn set_view_zone(&mut self, zone: Option<usize>) {
        self.view_zone = zone;
    }

    /// The zone picked with [`Timeline::set_view_zone`].
    pub fn view_zone(&self) -> Option<usize> {
        self.view_zone
    }

    /// Visible event indices, ascending (the stops of "step one event").
    pub fn visible(&self) -> &[u32] {
        &self.visible
    }

    /// The last applied event (the one being shown), if any.
    pub fn current(&self) -> Option<&Event> {
        self.pos
            .checked_sub(1)
            .map(|i| &self.run.log.events[i as usize])
    }

    /// Moves the cursor so that exactly `target` events are applied.
    pub fn seek(&mut self, target: u32) {
        let target = target.min(self.len());
        let cp = self
            .run
            .checkpoints
            .iter()
            .rev()
            .find(|c| c.at <= target)
            .map(|c| c.at)
            .unwrap_or(0);
        let direct = target.abs_diff(self.pos);
        let copy = u64::from(self.node.active().pages()) * 16 / COPY_BYTES_PER_EVENT;
        let via_checkpoint = u64::from(target - cp) + copy;
        if direct > STEP_LIMIT && via_checkpoint < u64::from(direct) {
            let c = self
                .run
                .checkpoints
                .iter()
                .rev()
                .find(|c| c.at <= target)
                .expect("checkpoint 0 exists");
            self.node.clone_from(&c.node);
            self.stats = c.stats;
            self.pos = c.at;
        }
        while self.pos < target {
            let ev = &self.run.log.events[self.pos as usize];
            self.node.apply(ev);
            self.stats.apply(ev);
            self.pos += 1;
        }
        while self.pos > target {
            self.pos -= 1;
            let ev = &self.run.log.events[self.pos as usize];
            self.node.unapply(ev);
            self.stats.unapply(ev);
        }
    }

    /// Steps to just after the next visible event.
    pub fn step_forward(&mut self) {
        let i = self.visible.partition_point(|&v| v < self.pos);
        let t = self.visible.get(i).map(|&v| v + 1).unwrap_or(self.len());
        self.seek(t);
    }

    /// Steps back to just after the previous visible event (or the start).
    pub fn step_back(&mut self) {
        let i = self.visible.partition_point(|&v| v + 1 < self.pos);
        let t = if i == 0 { 0 } else { self.visible[i - 1] + 1 };
        self.seek(t);
    }

    /// The op containing the last applied event, or the op about to start.
    pub fn op_index(&self) -> Option<usize> {
        op_at(&self.run.ops, self.pos)
    }

    /// To the end of the current op, or of the next one if already at an op end.
    pub fn op_forward(&mut self) {
        let ops = &self.run.ops;
        let i = ops.partition_point(|o| o.end <= self.pos);
        let t = ops.get(i).map(|o| o.end).unwrap_or(self.len());
        self.seek(t);
    }

    /// To the end of the previous op (the state before the current one), or the start.
    pub fn op_back(&mut self) {
        let ops = &self.run.ops;
        let i = ops.partition_point(|o| o.end < self.pos);
        let t = if i == 0 { 0 } else { ops[i - 1].end };
        self.seek(t);
    }

    /// Number of ops completed at the cursor (whose last event is before it): the state
    /// "after that many ops", which per-op views (charts) show.
    pub fn ops_done(&self) -> usize {
        let pos = self.pos();
        self.run.ops.partition_point(|o| o.end <= pos)
    }

    /// The op record at an index.
    pub fn op(&self, i: usize) -> &OpRecord {
        &self.run.ops[i]
    }

    /// The kernel call chain at the cursor: functions entered and not yet left, outermost
    /// first (scanned from the start of the current op).
    pub fn call_chain(&self) -> Vec<KernelFn> {
        let start = self
            .op_index()
            .map(|i| self.run.ops[i].start)
            .unwrap_or(0)
            .min(self.pos);
        let mut stack = Vec::new();
        for e in self.run.log.events.range(start as usize..self.pos as usize) {
            match e.kind().annotation() {
                Some(Annotation::Enter { func }) => stack.push(func),
                Some(Annotation::Exit { .. }) => {
                    stack.pop();
                }
                _ => {}
            }
        }
        if let Some(e) = self.current() {
            let f = match e.kind().annotation() {
                Some(Annotation::Enter { func } | Annotation::Exit { func }) => func,
                _ => e.step.func(),
            };
            if stack.last() != Some(&f) {
                stack.push(f);
            }
        }
        stack
    }
}
