//! The fallback matrix: over a run's events (or a replay's), how often an allocation of one
//! migratetype took pages from another's free lists, from-type × to-type, each cell split into
//! claims (the pageblock changed owner) and steals. What mcgrof's plot-fragmentation draws from
//! a trace, read from the same tracepoint: every `mm_page_alloc_extfrag` is one fallback, from
//! `fallback_migratetype` to `alloc_migratetype`, a claim when `change_ownership=1`
//! (`__rmqueue_claim` re-typed the block) and a steal otherwise (`__rmqueue_steal`, or a claim
//! that was refused and fell through to a steal).

use crate::mm::*;
use crate::mm::{Annotation, EventKind, Mutation, Tracepoint};
use crate::run::Run;
use serde::Serialize;

/// Which events count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixFilter {
    /// Requests of these orders (`alloc_order`), inclusive.
    pub orders: (u8, u8),
    /// Events `[start, end)` of the run's log.
    pub events: (u32, u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fallback-steal's 30 steals from Movable to Unmovable: every one listed with its event,
    /// each an `mm_page_alloc_extfrag` with change_ownership=0; an order filter above the
    /// requests' order and an event range before the first fallback both empty the cell.
    #[test]
    fn fallback_steal_is_thirty_steals_movable_to_unmovable() {
        let b = crate::scenario::builtin::get("fallback-steal").unwrap();
        let run = crate::scenario::parse_valid(b.json())
            .and_then(|s| crate::run::Runner::new(s).run())
            .unwrap();
        let m = fallback_matrix(&run, MatrixFilter::all(&run));
        let c = m
            .cell(MigrateType::Movable, MigrateType::Unmovable)
            .unwrap();
        assert_eq!((c.claims, c.steals, m.claims, m.steals), (0, 30, 0, 30));
        assert_eq!(c.events.len(), 30);
        let z = run.initial.active();
        for e in &c.events {
            assert!(!e.claim);
            // Each names its op and a page of the zone.
            let op = &run.ops[e.op.unwrap() as usize];
            assert!(op.start <= e.event && e.event < op.end);
            assert!(e.pfn >= z.abs_pfn(0) && e.pfn < z.abs_pfn(z.pages()));
            assert_eq!(e.zone, "Normal");
            assert!(matches!(
                run.log.events[e.event as usize].kind(),
                EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAllocExtfrag {
                    change_ownership: false,
                    ..
                }))
            ));
        }
        let first = c.events[0].event;
        let order = c.events[0].alloc_order;
        let mut f = MatrixFilter::all(&run);
        f.events = (0, first);
        assert_eq!(fallback_matrix(&run, f).steals, 0);
        f = MatrixFilter::all(&run);
        f.events = (first, first + 1);
        assert_eq!(fallback_matrix(&run, f).steals, 1);
        if order < MAX_PAGE_ORDER {
            f = MatrixFilter::all(&run);
            f.orders = (order + 1, MAX_PAGE_ORDER);
            assert_eq!(fallback_matrix(&run, f).steals, 0);
        }
        // The CLI's spelling of the same filters; bad text says what and how.
        let f = MatrixFilter::parse(&run, Some(" "), Some(&format!("{first}-{first}"))).unwrap();
        assert_eq!(f.events, (first, first + 1));
        assert_eq!(f.orders, (0, MAX_PAGE_ORDER));
        assert!(MatrixFilter::parse(&run, Some("0-11"), None)
            .unwrap_err()
            .contains("orders go from 0 to 10"));
        assert!(MatrixFilter::parse(&run, None, Some("9-3"))
            .unwrap_err()
            .contains("9 is above 3"));
    }
}

impl MatrixFilter {
    /// Every order, every event of `run`.
    pub fn all(run: &Run) -> MatrixFilter {
        MatrixFilter {
            orders: (0, MAX_PAGE_ORDER),
            events: (0, run.log.events.len() as u32),
        }
    }

    /// The filter of the CLI's `--orders LO-HI` and `--events FROM-TO` (inclusive; either
    /// absent or blank means all), the one reading the app's filter boxes share.
    pub fn parse(run: &Run, orders: Option<&str>, events: Option<&str>) -> Result<Self, String> {
        let mut f = MatrixFilter::all(run);
        if let Some(o) = orders.filter(|o| !o.trim().is_empty()) {
            let (lo, hi) = parse_range(o, "--orders")?;
            if hi > u64::from(MAX_PAGE_ORDER) {
                return Err(format!(
                    "--orders {o}: orders go from 0 to {MAX_PAGE_ORDER}"
                ));
            }
            f.orders = (lo as u8, hi as u8);
        }
        if let Some(e) = events.filter(|e| !e.trim().is_empty()) {
            let (lo, hi) = parse_range(e, "--events")?;
            f.events = (
                lo.min(u64::from(u32::MAX)) as u32,
                hi.saturating_add(1).min(u64::from(u32::MAX)) as u32,
            );
        }
        Ok(f)
    }
}

/// One fallback event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FallbackEvent {
    /// Index into `run.log.events` (the timeline position that shows it is `event + 1`).
    pub event: u32,
    /// The executed op whose events hold it (none for a replay's untraced context).
    pub op: Option<u32>,
    /// Absolute pfn of the block taken (`page` of the tracepoint, in the zone worked on).
    pub pfn: Pfn,
    /// Name of that zone.
    pub zone: String,
    /// The order asked for.
    pub alloc_order: u8,
    /// The order of the block taken.
    pub fallback_order: u8,
    /// The pageblock was claimed (re-typed); else its pages were stolen.
    pub claim: bool,
}

/// One cell: from-type `from` (whose free list gave the pages) to `to` (the allocation's type).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Fallbacks that claimed the pageblock.
    pub claims: u32,
    /// Fallbacks that stole pages.
    pub steals: u32,
    /// Every fallback of the cell, in run order.
    pub events: Vec<FallbackEvent>,
}

/// The matrix over the migratetypes the zone has ([`MigrateType::kernel_types`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FallbackMatrix {
    /// Row and column types, in the kernel's order.
    pub types: Vec<MigrateType>,
    /// `cells[from][to]`, indexed like `types`.
    pub cells: Vec<Vec<Cell>>,
    /// Claims over the whole matrix.
    pub claims: u32,
    /// Steals over the whole matrix.
    pub steals: u32,
    /// The lowest and highest allocation order counted.
    pub orders: (u8, u8),
    /// The events counted: the first and one past the last.
    pub events: (u32, u32),
}

impl FallbackMatrix {
    /// The cell of fallbacks from `from`'s free lists to a `to` allocation, if both types are in
    /// the matrix.
    pub fn cell(&self, from: MigrateType, to: MigrateType) -> Option<&Cell> {
        let f = self.types.iter().position(|&t| t == from)?;
        let t = self.types.iter().position(|&t| t == to)?;
        Some(&self.cells[f][t])
    }
}

/// The matrix of `run`'s fallbacks that pass `filter`.
pub fn fallback_matrix(run: &Run, filter: MatrixFilter) -> FallbackMatrix {
    let types = MigrateType::kernel_types(run.initial.active().cfg().cma);
    let n = types.len();
    let mut cells = vec![vec![Cell::default(); n]; n];
    let (mut claims, mut steals) = (0, 0);
    let end = filter.events.1.min(run.log.events.len() as u32);
    // The events name pages of the zone being worked on, which `ZoneSwitch` changes: follow it
    // from the start even when the range starts later.
    let mut active = run.initial.active_index();
    for i in 0..end {
        let kind = run.log.events[i as usize].kind();
        if let EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) = kind {
            active = to as usize;
            continue;
        }
        if i < filter.events.0 {
            continue;
        }
        let EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAllocExtfrag {
            pfn,
            alloc_order,
            fallback_order,
            alloc_mt,
            fallback_mt,
            change_ownership,
            ..
        })) = kind
        else {
            continue;
        };
        if alloc_order < filter.orders.0 || alloc_order > filter.orders.1 {
            continue;
        }
        let (Some(f), Some(t)) = (
            types.iter().position(|&x| x == fallback_mt),
            types.iter().position(|&x| x == alloc_mt),
        ) else {
            continue;
        };
        let c = &mut cells[f][t];
        if change_ownership {
            c.claims += 1;
            claims += 1;
        } else {
            c.steals += 1;
            steals += 1;
        }
        let z = run.initial.zone(active);
        c.events.push(FallbackEvent {
            event: i,
            op: op_of(run, i),
            pfn: z.abs_pfn(pfn),
            zone: z.cfg().name.clone(),
            alloc_order,
            fallback_order,
            claim: change_ownership,
        });
    }
    FallbackMatrix {
        types,
        cells,
        claims,
        steals,
        orders: filter.orders,
        events: (filter.events.0, end),
    }
}

/// The executed op whose events contain event `e`.
fn op_of(run: &Run, e: u32) -> Option<u32> {
    let i = run.ops.partition_point(|o| o.end <= e);
    run.ops
        .get(i)
        .filter(|o| o.start <= e && e < o.end)
        .map(|_| i as u32)
}

/// Reads `LO-HI` (or one number) as an inclusive range, for the CLI's filters.
pub fn parse_range(text: &str, what: &str) -> Result<(u64, u64), String> {
    let bad = || format!("{what} {text}: expected LO-HI (e.g. 0-3) or one number");
    let (lo, hi) = match text.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (text.trim(), text.trim()),
    };
    let lo: u64 = lo.parse().map_err(|_| bad())?;
    let hi: u64 = hi.parse().map_err(|_| bad())?;
    if lo > hi {
        return Err(format!("{what} {text}: {lo} is above {hi}"));
    }
    Ok((lo, hi))
}

/// The CLI's `--format fallback_matrix`: a header line, then a row per from-type with
/// `claims/steals` per to-type.
pub fn text(m: &FallbackMatrix) -> String {
    let events = if m.events.1 > m.events.0 {
        format!("events {}-{}", m.events.0, m.events.1 - 1)
    } else {
        "no events".to_string()
    };
    let mut s = format!(
        "fallback matrix (mm_page_alloc_extfrag): {} claims, {} steals; alloc orders {}-{}, {events}\n",
        m.claims, m.steals, m.orders.0, m.orders.1
    );
    s.push_str(&format!("{:<14}", "from \\ to"));
    for t in &m.types {
        s.push_str(&format!(" {:>12}", t.kernel_name()));
    }
    s.push('\n');
    for (f, from) in m.types.iter().enumerate() {
        s.push_str(&format!("{:<14}", from.kernel_name()));
        for c in &m.cells[f] {
            s.push_str(&format!(" {:>12}", format!("{}/{}", c.claims, c.steals)));
        }
        s.push('\n');
    }
    s
}
