//! Compare mode's stepping rule: how the two sides step together and how far each is into the
//! op. Pure, tested natively; the model moves the pair with it and the compare view shows it.
//!
//! Both sides run the same ops, so op `k` means the same request on both sides; only their
//! event counts differ (a chunked free is a few events where a per-page free is hundreds).
//!
//! **Stepping rule.** By operation: both sides move to the end of the same op (the next one
//! neither has finished, or the previous op end). By event: the op being played is the first
//! one that not both sides have finished; each side that is still inside it advances one
//! visible event, and a side that has reached its end waits there until the other side gets
//! there too. Only then do both enter the next op. Backwards is the mirror image: the op being
//! rewound is the last one either side has entered; a side already at its start waits.
//! So the side with more events leads and the other waits at the op end; the two sides are
//! never in different ops.

use buddyscope::run::Timeline;

/// Position of a timeline after `k` ops (0: the start).
fn after_ops(t: &Timeline, k: usize) -> u32 {
    match k {
        0 => 0,
        k if k <= t.run.ops.len() => t.run.ops[k - 1].end,
        _ => t.len(),
    }
}

/// Where op `k` (0-based) starts on a timeline: the end of op `k - 1`.
fn op_start(t: &Timeline, k: usize) -> u32 {
    after_ops(t, k)
}

/// Ops finished by both sides.
fn both_done(a: &Timeline, b: &Timeline) -> usize {
    a.ops_done().min(b.ops_done())
}

/// The next op end on both sides: op `n + 1` where `n` ops are finished by both.
pub fn op_forward(a: &mut Timeline, b: &mut Timeline) {
    let k = both_done(a, b) + 1;
    let ops = a.run.ops.len().max(b.run.ops.len());
    if k > ops {
        a.seek(a.len());
        b.seek(b.len());
        return;
    }
    a.seek(after_ops(a, k));
    b.seek(after_ops(b, k));
}

/// How many ops `Timeline::op_back` would leave finished (the previous op end).
fn back_target(t: &Timeline) -> usize {
    let pos = t.pos();
    t.run.ops.partition_point(|o| o.end < pos)
}

/// The previous op end on both sides (a side mid-op goes back to that op's start first).
pub fn op_back(a: &mut Timeline, b: &mut Timeline) {
    let k = back_target(a).max(back_target(b));
    a.seek(after_ops(a, k));
    b.seek(after_ops(b, k));
}

/// One visible event forward inside the op being played (see the module doc).
pub fn step_forward(a: &mut Timeline, b: &mut Timeline) {
    let k = both_done(a, b);
    for t in [a, b] {
        if t.ops_done() > k || t.pos() >= t.len() {
            continue; // finished op k already: waits at its end
        }
        let end = after_ops(t, k + 1);
        t.step_forward();
        if t.pos() > end {
            t.seek(end); // invisible events ended the op: stop at its end
        }
    }
}

/// The op containing the cursor's last event (the op a step back rewinds).
fn entered(t: &Timeline) -> usize {
    back_target(t)
}

/// One visible event back inside the op being rewound (see the module doc).
pub fn step_back(a: &mut Timeline, b: &mut Timeline) {
    if a.pos() == 0 && b.pos() == 0 {
        return;
    }
    // The last op either side has entered (a side at pos 0 has entered none).
    let started = |t: &Timeline| if t.pos() == 0 { None } else { Some(entered(t)) };
    let Some(k) = started(a).max(started(b)) else {
        return;
    };
    for t in [a, b] {
        let start = op_start(t, k);
        if t.pos() <= start {
            continue; // at the op's start already: waits
        }
        t.step_back();
        if t.pos() < start {
            t.seek(start);
        }
    }
}

/// Both sides after `k` ops (clamped to the run).
pub fn seek_ops(a: &mut Timeline, b: &mut Timeline, k: usize) {
    a.seek(after_ops(a, k));
    b.seek(after_ops(b, k));
}

/// Where a tour stop `{op: k, event: e}` puts one side: after `k` ops, then `e` events into op
/// `k + 1`, clamped to that op's end. The sides' event counts differ (a chunked free is a few
/// events where a per-page free is hundreds), so a side with fewer events waits at the op end,
/// as in event stepping; the op is the same on both.
pub fn tour_pos(t: &Timeline, k: usize, e: u32) -> u32 {
    let base = after_ops(t, k);
    if e == 0 {
        return base;
    }
    (base + e).min(after_ops(t, k + 1))
}

/// Both sides at a tour stop (see [`tour_pos`]).
pub fn seek_stop(a: &mut Timeline, b: &mut Timeline, k: usize, e: u32) {
    let (pa, pb) = (tour_pos(a, k, e), tour_pos(b, k, e));
    a.seek(pa);
    b.seek(pb);
}

/// True when both sides are where [`seek_stop`] puts them.
pub fn at_stop(a: &Timeline, b: &Timeline, k: usize, e: u32) -> bool {
    a.pos() == tour_pos(a, k, e) && b.pos() == tour_pos(b, k, e)
}

/// A timeline after `k` ops (the single view, when compare mode is turned off at op `k`).
pub fn seek_ops_one(t: &mut Timeline, k: usize) {
    t.seek(after_ops(t, k));
}

/// `n` event steps forward (playback); stops early at the end.
pub fn advance(a: &mut Timeline, b: &mut Timeline, n: u32) {
    for _ in 0..n {
        if at_end(a, b) {
            break;
        }
        step_forward(a, b);
    }
}

pub fn at_end(a: &Timeline, b: &Timeline) -> bool {
    a.pos() >= a.len() && b.pos() >= b.len()
}

/// How far one side is: into which op, and how many of its events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// 1-based op shown (0 before the first op).
    pub op: usize,
    pub ops: usize,
    /// Events of that op applied, and its event count.
    pub into: u32,
    pub of: u32,
    pub pos: u32,
    pub len: u32,
}

impl Progress {
    pub fn text(&self) -> String {
        if self.op == 0 {
            return format!(
                "before op 1 / {} \u{b7} {} events in all",
                self.ops, self.len
            );
        }
        let state = if self.into == self.of {
            format!("op done, {} events", self.of)
        } else {
            format!("event {} of {} into the op", self.into, self.of)
        };
        format!(
            "op {} / {} \u{b7} {state} \u{b7} event {} / {}",
            self.op, self.ops, self.pos, self.len
        )
    }
}

pub fn progress(t: &Timeline) -> Progress {
    let ops = t.run.ops.len();
    let (op, into, of) = match t.op_index() {
        Some(i) if t.pos() > 0 => {
            let o = t.op(i);
            let start = op_start(t, i);
            (
                i + 1,
                t.pos().saturating_sub(start).min(o.end - start),
                o.end - start,
            )
        }
        _ => (0, 0, 0),
    };
    Progress {
        op,
        ops,
        into,
        of,
        pos: t.pos(),
        len: t.len(),
    }
}

/// The shared position: the op both sides are in.
pub fn position_text(a: &Timeline, b: &Timeline) -> String {
    let (pa, pb) = (progress(a), progress(b));
    let op = pa.op.max(pb.op);
    if op == 0 {
        format!("compare \u{b7} before op 1 / {}", pa.ops)
    } else {
        format!("compare \u{b7} op {op} / {}", pa.ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::compare_sides as sides;
    use buddyscope::scenario::{parse, ValidScenario};
    use buddyscope::scenario::{ComparePair, Side};

    /// Every stop of every built-in compare pair: both sides at the stop's op equal that side's
    /// own run cut after that many ops (`buddyscope run --side a|b --ops K`), free lists and
    /// pcp lists.
    #[test]
    fn every_tour_stop_of_every_pair_puts_both_sides_at_the_stops_op() {
        let mut stops = 0;
        for b in buddyscope::scenario::builtin::ALL {
            let s = parse(b.json()).unwrap();
            if s.compare.is_none() || s.tour.is_empty() {
                continue;
            }
            let (mut a, mut bt) = sides(b.id);
            let pair = ComparePair::default_for(&s);
            for stop in &s.tour {
                let k = stop.op as usize;
                seek_stop(&mut a, &mut bt, k, stop.event.unwrap_or(0));
                assert!(at_stop(&a, &bt, k, stop.event.unwrap_or(0)));
                for (side, t) in [(Side::A, &a), (Side::B, &bt)] {
                    let v = ValidScenario::new(pair.side(side).apply(&s)).unwrap();
                    let cut = buddyscope::run::Runner::new(v)
                        .options(&buddyscope::run::RunOptions {
                            record: false,
                            checkpoint_budget: 0,
                            max_ops: Some(k),
                        })
                        .run()
                        .unwrap();
                    let (z, want) = (t.zone(), cut.final_node.active());
                    assert_eq!(z.nr_free(), want.nr_free(), "{} {side:?} op {k}", b.id);
                    for o in 0..buddyscope::mm::NR_PAGE_ORDERS as u8 {
                        for mt in buddyscope::mm::MigrateType::ALL {
                            assert_eq!(
                                z.free_list(o, mt).len,
                                want.free_list(o, mt).len,
                                "{} {side:?} op {k} order {o} {mt:?}",
                                b.id
                            );
                        }
                    }
                    assert_eq!(z.pcp(), want.pcp(), "{} {side:?} op {k}", b.id);
                    assert_eq!(progress(t).op, k, "{} {side:?}", b.id);
                }
                stops += 1;
            }
        }
        assert!(stops >= 30, "{stops} stops");
        // An event stop: each side goes that many events into the next op, a side with fewer
        // events waits at its end.
        let (mut a, mut b) = sides("cma-frozen-range");
        let len = |t: &Timeline| t.run.ops[1].end - t.run.ops[0].end;
        let (la, lb) = (len(&a), len(&b));
        assert_ne!(la, lb);
        let e = la.max(lb) - 1;
        seek_stop(&mut a, &mut b, 1, e);
        for (t, l) in [(&a, la), (&b, lb)] {
            let want = if l > e {
                t.run.ops[0].end + e
            } else {
                t.run.ops[1].end
            };
            assert_eq!(t.pos(), want);
        }
        assert_eq!((progress(&a).op, progress(&b).op), (2, 2));
        assert!(at_stop(&a, &b, 1, e));
        assert!(!at_stop(&a, &b, 1, 0));
    }

    #[test]
    fn op_steps_keep_both_sides_at_the_same_op_end() {
        let (mut a, mut b) = sides("cma-frozen-range");
        assert_eq!(a.run.ops.len(), b.run.ops.len());
        for k in 1..=a.run.ops.len() {
            op_forward(&mut a, &mut b);
            assert_eq!((a.ops_done(), b.ops_done()), (k, k));
            assert_eq!(a.pos(), a.run.ops[k - 1].end);
            assert_eq!(b.pos(), b.run.ops[k - 1].end);
        }
        op_forward(&mut a, &mut b);
        assert!(at_end(&a, &b));
        op_back(&mut a, &mut b);
        let n = a.run.ops.len();
        assert_eq!((a.ops_done(), b.ops_done()), (n - 1, n - 1));
        // The per-page release (v7.1) has many more events than the chunked one (v7.2).
        let ev = |t: &Timeline, i: usize| t.run.ops[i].end - t.run.ops[i].start;
        assert!(ev(&a, 1) > 5 * ev(&b, 1), "{} vs {}", ev(&a, 1), ev(&b, 1));
    }

    #[test]
    fn event_steps_wait_at_the_op_end_for_the_other_side() {
        let (mut a, mut b) = sides("cma-frozen-range");
        op_forward(&mut a, &mut b); // op 1 (alloc_contig_range) done on both
        let (a0, b0) = (a.pos(), b.pos());
        let (a_end, b_end) = (a.run.ops[1].end, b.run.ops[1].end);
        let mut steps = 0;
        while !(a.pos() == a_end && b.pos() == b_end) {
            step_forward(&mut a, &mut b);
            steps += 1;
            assert!(
                a.pos() <= a_end && b.pos() <= b_end,
                "no side leaves op 2 early"
            );
            assert!(steps < 1_000_000);
        }
        assert!(a.pos() > a0 && b.pos() > b0);
        // B (chunked) finished first and waited: both now enter op 3 together.
        step_forward(&mut a, &mut b);
        assert!(a.pos() > a_end && b.pos() > b_end);
        assert_eq!(progress(&a).op, 3);
        assert_eq!(progress(&b).op, 3);
        // Back: op 3 rewinds to its start on both, then op 2 is rewound.
        while a.pos() > a_end || b.pos() > b_end {
            step_back(&mut a, &mut b);
            assert!(a.pos() >= a_end && b.pos() >= b_end);
        }
        step_back(&mut a, &mut b);
        assert!(a.pos() < a_end && b.pos() < b_end);
        assert!(a.pos() >= a0 && b.pos() >= b0);
    }

    #[test]
    fn progress_says_how_far_into_the_op() {
        let (mut a, mut b) = sides("free-contig-range-unaligned");
        assert_eq!(progress(&a).op, 0);
        assert!(progress(&a).text().starts_with("before op 1"));
        op_forward(&mut a, &mut b);
        step_forward(&mut a, &mut b);
        let p = progress(&a);
        assert_eq!(p.op, 2);
        assert!(p.into >= 1 && p.into < p.of, "{p:?}");
        assert!(p
            .text()
            .contains(&format!("event {} of {} into the op", p.into, p.of)));
        op_forward(&mut a, &mut b);
        let p = progress(&b);
        assert_eq!((p.op, p.into), (2, p.of));
        assert!(p.text().contains("op done"));
        assert_eq!(
            position_text(&a, &b),
            format!("compare \u{b7} op 2 / {}", p.ops)
        );
    }
}
