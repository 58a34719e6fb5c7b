//! A run over time: after every op (a replay: every trace event) the free pages per order, the
//! kernel's extfrag indexes per order, the mixed pageblocks by type and the fallbacks so far,
//! per zone, and for a replay the trace's clock. One pass over the run's events
//! ([`MixTracker`] keeps the mixed pageblocks in step); the states are thinned as the replay's
//! `Sampler` thins its series ([`Thinned`]), so a million events keep at most [`MAX_POINTS`].
//! What the app's charts draw, and what `buddyscope run|replay --format …_over_time` prints as
//! CSV ([`csv`]): the app's CSV export is the same text.

use crate::explain::mixing::MixTracker;
use crate::mm::*;
use crate::mm::{Annotation, EventKind, Mutation, Tracepoint};
use crate::run::replay::{OpTimes, Thinned};
use crate::run::Run;

/// States kept at most (and the last): every op of a run of fewer than this many.
pub const MAX_POINTS: usize = 2048;

/// The state after some ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// Ops done (a replay: trace events applied); 0 is the initial state.
    pub ops: u32,
    /// The trace's clock then, in nanoseconds (a replay of a trace with timestamps).
    pub time_ns: Option<u64>,
    /// Per zone of the node (pfn order): `nr_free[order]`.
    pub nr_free: Vec<[u64; NR_PAGE_ORDERS]>,
    /// Per zone: mixed pageblocks by their own type ([`MigrateType::idx`]).
    pub mixed: Vec<[u32; MT_SLOTS]>,
    /// Per zone: fallbacks so far (`mm_page_alloc_extfrag`): claims, steals.
    pub fallbacks: Vec<(u64, u64)>,
}

/// A run's states over time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverTime {
    /// The zones' names (node order).
    pub zones: Vec<String>,
    /// The migratetypes the zone has ([`MigrateType::kernel_types`]).
    pub types: Vec<MigrateType>,
    /// A replay: the x axis counts trace events.
    pub replay: bool,
    /// The points have the trace's clock.
    pub timed: bool,
    /// Ops in the run (the last point's `ops`).
    pub ops: u32,
    /// The kept states, ascending.
    pub points: Vec<Point>,
}

/// `run`'s states over time; `times` is a replay's clock (its op records' timestamps), `None`
/// for a scenario's run. The run must be recorded (its events are walked).
pub fn over_time(run: &Run, times: Option<&OpTimes>) -> OverTime {
    let node = &run.initial;
    let nz = node.nr_zones();
    let mut mix = MixTracker::new(run);
    let mut fallbacks = vec![(0u64, 0u64); nz];
    let mut active = node.active_index();
    let nr_free = |k: usize| -> Vec<[u64; NR_PAGE_ORDERS]> {
        if k == 0 {
            node.zones().iter().map(|z| *z.nr_free()).collect()
        } else {
            let r = &run.ops[k - 1];
            if nz == 1 {
                vec![r.nr_free_after]
            } else {
                r.nr_free_after_zones.clone()
            }
        }
    };
    let timed = times.is_some_and(|t| t.any());
    let mut thin = Thinned::new(MAX_POINTS);
    let at = |k: usize, mix: &MixTracker, fallbacks: &[(u64, u64)]| Point {
        ops: k as u32,
        time_ns: times.filter(|_| timed).and_then(|t| t.at_state(k)),
        nr_free: nr_free(k),
        mixed: (0..nz).map(|z| mix.mixed(z)).collect(),
        fallbacks: fallbacks.to_vec(),
    };
    thin.push(at(0, &mix, &fallbacks));
    let mut next = 0usize;
    for (k, op) in run.ops.iter().enumerate() {
        let end = (op.end as usize).min(run.log.events.len());
        for ev in run.log.events.range(next..end) {
            match ev.kind() {
                EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) => active = to as usize,
                EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAllocExtfrag {
                    change_ownership,
                    ..
                })) => {
                    let f = &mut fallbacks[active];
                    if change_ownership {
                        f.0 += 1;
                    } else {
                        f.1 += 1;
                    }
                }
                _ => {}
            }
            mix.event(run, ev);
        }
        next = next.max(end);
        thin.push(at(k + 1, &mix, &fallbacks));
    }
    OverTime {
        zones: node.zones().iter().map(|z| z.cfg().name.clone()).collect(),
        types: MigrateType::kernel_types(node.active().cfg().cma),
        replay: times.is_some(),
        timed,
        ops: run.ops.len() as u32,
        points: thin.items().cloned().collect(),
    }
}

/// A series of [`OverTime`] as CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    /// Free pages per order (`nr_free[o] × 2^o`).
    FreePages,
    /// `unusable_index` per order (mm/vmstat.c `unusable_free_index`).
    UnusableIndex,
    /// `extfrag_index` per order (mm/vmstat.c `__fragmentation_index`; -1.000 where a block of
    /// the order is free).
    ExtfragIndex,
    /// Mixed pageblocks, in all and by the pageblock's type.
    MixedPageblocks,
    /// Fallbacks so far (claims, steals) and their rate since the previous point.
    Fallbacks,
}

impl Series {
    /// Every series, in the charts' order.
    pub const ALL: [Series; 5] = [
        Series::FreePages,
        Series::UnusableIndex,
        Series::ExtfragIndex,
        Series::MixedPageblocks,
        Series::Fallbacks,
    ];

    /// The CLI's `--format` name (and the app's file name's tail).
    pub fn format_name(self) -> &'static str {
        match self {
            Series::FreePages => "free_pages_over_time",
            Series::UnusableIndex => "unusable_index_over_time",
            Series::ExtfragIndex => "extfrag_index_over_time",
            Series::MixedPageblocks => "mixed_pageblocks_over_time",
            Series::Fallbacks => "fallbacks_over_time",
        }
    }
}

/// `v` thousandths as the kernel prints an index (`%d.%03d`, a sign for -1.000).
pub fn thousandths(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}

/// Nanoseconds as seconds with the trace's microseconds (`12.345678`).
pub fn seconds(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// A rate with three decimals.
fn rate(d: u64, over: f64) -> String {
    format!("{:.3}", d as f64 / over)
}

impl OverTime {
    /// The x column's name: ops done, or trace events applied.
    pub fn x_name(&self) -> &'static str {
        if self.replay {
            "trace_events"
        } else {
            "ops"
        }
    }

    /// The series as CSV: a header naming the columns (and units), then a row per point and
    /// zone: the ops done (`trace_events` for a replay), `time_s` (a replay with timestamps),
    /// the zone, then the series' columns.
    pub fn csv(&self, series: Series) -> String {
        let mut head: Vec<String> = vec![self.x_name().to_string()];
        if self.timed {
            head.push("time_s".into());
        }
        head.push("zone".into());
        let orders =
            |what: &'static str| (0..NR_PAGE_ORDERS).map(move |o| format!("{what}_order_{o}"));
        match series {
            Series::FreePages => head.extend(orders("free_pages")),
            Series::UnusableIndex => head.extend(orders("unusable_index")),
            Series::ExtfragIndex => head.extend(orders("extfrag_index")),
            Series::MixedPageblocks => {
                head.push("mixed_pageblocks".into());
                head.extend(
                    self.types
                        .iter()
                        .map(|t| format!("mixed_{}_pageblocks", t.kernel_name())),
                );
            }
            Series::Fallbacks => {
                let per = if self.timed { "per_s" } else { "per_op" };
                head.extend([
                    "claims".to_string(),
                    "steals".to_string(),
                    format!("claims_{per}"),
                    format!("steals_{per}"),
                ]);
            }
        }
        let mut s = head.join(",");
        s.push('\n');
        for (i, p) in self.points.iter().enumerate() {
            for (zi, zone) in self.zones.iter().enumerate() {
                let mut row: Vec<String> = vec![p.ops.to_string()];
                if self.timed {
                    row.push(p.time_ns.map(seconds).unwrap_or_default());
                }
                row.push(zone.clone());
                let nr = &p.nr_free[zi.min(p.nr_free.len() - 1)];
                match series {
                    Series::FreePages => {
                        row.extend((0..NR_PAGE_ORDERS).map(|o| (nr[o] << o).to_string()))
                    }
                    Series::UnusableIndex => row.extend(
                        (0..NR_PAGE_ORDERS)
                            .map(|o| thousandths(unusable_free_index_of(nr, o as u8))),
                    ),
                    Series::ExtfragIndex => row.extend(
                        (0..NR_PAGE_ORDERS)
                            .map(|o| thousandths(fragmentation_index_of(nr, o as u8))),
                    ),
                    Series::MixedPageblocks => {
                        let m = &p.mixed[zi];
                        row.push(m.iter().sum::<u32>().to_string());
                        row.extend(self.types.iter().map(|t| m[t.idx()].to_string()));
                    }
                    Series::Fallbacks => {
                        let (c, st) = p.fallbacks[zi];
                        row.push(c.to_string());
                        row.push(st.to_string());
                        let (rc, rs) = match self.interval(i) {
                            Some(over) => {
                                let (pc, ps) = self.points[i - 1].fallbacks[zi];
                                (rate(c - pc, over), rate(st - ps, over))
                            }
                            None => (String::new(), String::new()),
                        };
                        row.push(rc);
                        row.push(rs);
                    }
                }
                s.push_str(&row.join(","));
                s.push('\n');
            }
        }
        s
    }

    /// The width of the interval that ends at point `i`: seconds on the trace's clock, else
    /// ops; `None` for the first point or an interval of no time.
    pub fn interval(&self, i: usize) -> Option<f64> {
        let (a, b) = (self.points.get(i.checked_sub(1)?)?, self.points.get(i)?);
        let w = if self.timed {
            (b.time_ns? as f64 - a.time_ns? as f64) / 1e9
        } else {
            f64::from(b.ops - a.ops)
        };
        (w > 0.0).then_some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fallback_steal() -> OverTime {
        let b = crate::scenario::builtin::get("fallback-steal").unwrap();
        let run = crate::scenario::parse_valid(b.json())
            .and_then(|s| crate::run::Runner::new(s).run())
            .unwrap();
        over_time(&run, None)
    }

    fn row(csv: &str, ops: u32) -> &str {
        csv.lines()
            .find(|l| l.starts_with(&format!("{ops},")))
            .unwrap()
    }

    /// fallback-steal worked by hand. Boot: 64 free order-10 blocks (65,536 pages). After the
    /// drain (34 ops) every pageblock of the first 8 MiB has one free order-6 block: 16 blocks,
    /// 1,024 pages, so orders 0–6 have a free block (extfrag_index -1.000, unusable 0.000) and
    /// above that mm/vmstat.c's `__fragmentation_index` is 1000 - (1000 + 1024·1000/2^o)/16:
    /// 438, 688, 813, 875 for orders 7–10. The first Unmovable allocation (op 35) steals 30
    /// pages from pageblock 15 (30 fallbacks, no claim) and makes it the one mixed Movable
    /// pageblock: 994 pages free in 17 blocks (orders 1, 5 and 15 × 6), so order 7 reads
    /// 1000 - (1000 + 994000/128)/17 = 485.
    #[test]
    fn fallback_steal_by_hand() {
        let t = fallback_steal();
        assert_eq!(t.ops, 39);
        assert_eq!(t.points.len(), 40, "every state of a short run");
        assert!(!t.replay && !t.timed);
        let p0 = &t.points[0];
        assert_eq!(p0.nr_free, vec![[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64]]);
        let fp = t.csv(Series::FreePages);
        assert_eq!(
            fp.lines().next().unwrap(),
            "ops,zone,free_pages_order_0,free_pages_order_1,free_pages_order_2,free_pages_order_3,free_pages_order_4,free_pages_order_5,free_pages_order_6,free_pages_order_7,free_pages_order_8,free_pages_order_9,free_pages_order_10"
        );
        assert_eq!(row(&fp, 0), "0,Normal,0,0,0,0,0,0,0,0,0,0,65536");
        assert_eq!(row(&fp, 34), "34,Normal,0,0,0,0,0,0,1024,0,0,0,0");
        assert_eq!(row(&fp, 35), "35,Normal,0,2,0,0,0,32,960,0,0,0,0");
        let ef = t.csv(Series::ExtfragIndex);
        assert_eq!(
            row(&ef, 34),
            "34,Normal,-1.000,-1.000,-1.000,-1.000,-1.000,-1.000,-1.000,0.438,0.688,0.813,0.875"
        );
        assert_eq!(
            row(&ef, 35),
            "35,Normal,-1.000,-1.000,-1.000,-1.000,-1.000,-1.000,-1.000,0.485,0.713,0.827,0.885"
        );
        let ui = t.csv(Series::UnusableIndex);
        assert_eq!(
            row(&ui, 34),
            "34,Normal,0.000,0.000,0.000,0.000,0.000,0.000,0.000,1.000,1.000,1.000,1.000"
        );
        let mx = t.csv(Series::MixedPageblocks);
        assert_eq!(
            mx.lines().next().unwrap(),
            "ops,zone,mixed_pageblocks,mixed_Unmovable_pageblocks,mixed_Movable_pageblocks,mixed_Reclaimable_pageblocks,mixed_HighAtomic_pageblocks,mixed_Isolate_pageblocks"
        );
        assert_eq!(row(&mx, 34), "34,Normal,0,0,0,0,0,0");
        for k in 35..=39 {
            assert_eq!(row(&mx, k), format!("{k},Normal,1,0,1,0,0,0"));
        }
        let fb = t.csv(Series::Fallbacks);
        assert_eq!(
            fb.lines().next().unwrap(),
            "ops,zone,claims,steals,claims_per_op,steals_per_op"
        );
        assert_eq!(row(&fb, 0), "0,Normal,0,0,,");
        assert_eq!(row(&fb, 34), "34,Normal,0,0,0.000,0.000");
        assert_eq!(row(&fb, 35), "35,Normal,0,30,0.000,30.000");
        assert_eq!(row(&fb, 39), "39,Normal,0,30,0.000,0.000");
        assert_eq!(fb.lines().count(), 41);
    }

    /// The kernel's `%d.%03d` and the trace's microseconds.
    #[test]
    fn number_formats() {
        assert_eq!(thousandths(-1000), "-1.000");
        assert_eq!(thousandths(438), "0.438");
        assert_eq!(thousandths(1000), "1.000");
        assert_eq!(seconds(12_345_678_901), "12.345678");
    }
}
