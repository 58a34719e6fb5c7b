//! Where is this page: at one point of a run, the list that holds a pfn (`free_area[o]
//! .free_list[mt]` with its block's head and order, or a CPU's pcp list), or who holds it (the
//! op, or for a replay the traced task), and the event that put it there. What pwndbg's
//! `buddydump -f`, gef's `buddy-contains` and crash's `kmem -f` answer on a live kernel; the CLI
//! (`buddyscope where`) and the app's panel both print [`PageWhere`].

use crate::explain::narrate::{trace_line, Ctx};
use crate::mm::pindex_to_order;
use crate::mm::*;
use crate::mm::{EventKind, Mutation};
use crate::mm::{Zone, NO_OWNER};
use crate::run::replay::TracedAllocs;
use crate::run::Run;
use serde::Serialize;

/// Who holds an allocated page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Holder {
    /// An op of the scenario: its index in the run's executed ops (0-based) and its summary.
    Op {
        /// Index of the executed op (0-based).
        op: u32,
        /// The op's summary.
        name: String,
    },
    /// A traced `mm_page_alloc`: the line's task (`comm-pid`), CPU, gfp flags, order,
    /// timestamp and line.
    Traced {
        /// The task (`comm-pid`), when the line has the column.
        task: Option<String>,
        /// The CPU, when the line has the column.
        cpu: Option<u32>,
        /// The gfp flags, as the kernel prints them.
        gfp: String,
        /// The order.
        order: u8,
        /// The timestamp in nanoseconds, when the line has one.
        ts_ns: Option<u64>,
        /// The 1-based trace line.
        line: u64,
        /// The line as the model prints it (`mm_page_alloc: page=… pfn=… …`).
        trace_line: String,
    },
    /// What the start state says (a `/proc` import's filler, an allocation made before the
    /// trace, …): the owner's words.
    Other {
        /// The owner's words.
        label: String,
    },
    /// Not free and nobody's allocation (e.g. a page taken for migration or held by a
    /// reference only).
    Nobody,
}

/// Where the page is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Place {
    /// In the free block at `head` (absolute pfn) of `order` on `free_area[order]
    /// .free_list[mt]`.
    FreeArea {
        /// First page of the block (absolute pfn).
        head: Pfn,
        /// Its order.
        order: u8,
        /// The free list's migratetype.
        mt: String,
    },
    /// In the block at `head` on CPU `cpu`'s `pcp->lists[pindex]` (order, migratetype list).
    Pcp {
        /// First page of the block (absolute pfn).
        head: Pfn,
        /// Its order.
        order: u8,
        /// The CPU.
        cpu: u8,
        /// The list's index.
        pindex: u8,
        /// The list, in words.
        list: String,
    },
    /// Allocated.
    Allocated {
        /// Who holds it.
        holder: Holder,
    },
}

/// The answer for one pfn at one point of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageWhere {
    /// The page (absolute).
    pub pfn: Pfn,
    /// The zone's name and its index in the node.
    pub zone: String,
    pub(crate) zone_index: usize,
    /// Where it is.
    pub place: Place,
    /// The event that put the page there (index into `run.log.events`; the timeline position
    /// that shows it is `event + 1`); `None` when it was there from the start.
    pub event: Option<u32>,
    /// The executed op that event belongs to (0-based), if any.
    pub op: Option<u32>,
    /// The engine's words for that event.
    pub event_line: Option<String>,
}

impl PageWhere {
    /// One sentence: where the page is, or who holds it.
    pub fn headline(&self) -> String {
        let z = &self.zone;
        match &self.place {
            Place::FreeArea { head, order, mt } => format!(
                "pfn {:#x} is free in zone {z}: free_area[{order}].free_list[{mt}], in the order-{order} block at {head:#x}",
                self.pfn
            ),
            Place::Pcp {
                head,
                order,
                cpu,
                pindex,
                list,
            } => format!(
                "pfn {:#x} is on CPU {cpu}'s pcp list in zone {z}: pcp->lists[{pindex}] (order {order} {list}), in the order-{order} block at {head:#x}",
                self.pfn
            ),
            Place::Allocated { holder } => {
                let who = match holder {
                    Holder::Op { op, name } => format!("by op {} ({name})", op + 1),
                    Holder::Traced {
                        task,
                        cpu,
                        gfp,
                        order,
                        line,
                        ..
                    } => {
                        let mut s = format!(
                            "by {}",
                            task.as_deref().unwrap_or("a traced task (no task column)")
                        );
                        if let Some(c) = cpu {
                            s.push_str(&format!(" on CPU {c}"));
                        }
                        s.push_str(&format!(", order {order}, gfp_flags={gfp}, trace line {line}"));
                        s
                    }
                    Holder::Other { label } => format!("by {label}"),
                    Holder::Nobody => "by nobody the run knows (not free, no owner)".to_string(),
                };
                format!("pfn {:#x} is allocated in zone {z} {who}", self.pfn)
            }
        }
    }

    /// The CLI's text: the headline, then the event that put the page there.
    pub fn text(&self) -> String {
        let mut s = self.headline();
        s.push('\n');
        match (self.event, &self.event_line) {
            (Some(e), Some(l)) => {
                s.push_str(&format!("put there by event {} (position {})", e, e + 1));
                if let Some(op) = self.op {
                    s.push_str(&format!(" in op {}", op + 1));
                }
                s.push_str(&format!(": {l}\n"));
            }
            _ => s.push_str("there since the start (no recorded event put it there)\n"),
        }
        if let Place::Allocated {
            holder: Holder::Traced {
                trace_line, ts_ns, ..
            },
        } = &self.place
        {
            if let Some(ts) = ts_ns {
                s.push_str(&format!(
                    "traced at {}.{:06}: {trace_line}\n",
                    ts / 1_000_000_000,
                    ts % 1_000_000_000 / 1000
                ));
            } else {
                s.push_str(&format!("traced: {trace_line}\n"));
            }
        }
        s
    }
}

/// A pfn as typed: `0x…` is hex, anything else decimal.
pub fn parse_pfn(text: &str) -> Result<Pfn, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("\u{201c}{t}\u{201d} is not a pfn (e.g. 0x1200 or 4608)"))
}

/// The zones' spans, for the message about a pfn outside all of them.
fn spans(node: &Zone) -> String {
    node.zones()
        .map(|z| {
            let s = z.cfg().start_pfn;
            format!(
                "{} {s:#x}\u{2013}{:#x}",
                z.cfg().name,
                s + z.pages() as Pfn - 1
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where `pfn` (absolute) is in `node`, the state after the first `pos` events of `run`.
/// `traced` names the tasks of a replay's allocations. An error says why there is no answer
/// (outside every zone, with the zones' spans).
pub fn where_is(
    run: &Run,
    node: &Zone,
    pos: u32,
    pfn: Pfn,
    traced: Option<&TracedAllocs>,
) -> Result<PageWhere, String> {
    let Some(zi) = node.zone_index_of(pfn) else {
        return Err(format!(
            "pfn {pfn:#x} is outside every zone of the node ({})",
            spans(node)
        ));
    };
    let z = node.zone_at(zi);
    let idx = z.zone_pfn(pfn);
    // What kind of event puts the page where it is now: an add to its free list, an add to a
    // pcp list, or the allocation that made its owner.
    let (place, wanted): (Place, fn(&Mutation) -> bool) = match z.block_containing(idx) {
        Some((head, order, false)) => {
            let mt = z.list_mt_of(head);
            (
                Place::FreeArea {
                    head: z.abs_pfn(head),
                    order,
                    mt: mt.kernel_name().to_string(),
                },
                |m| {
                    matches!(
                        m,
                        Mutation::FreeListAdd { .. } | Mutation::FreeListMove { .. }
                    )
                },
            )
        }
        Some((head, order, true)) => {
            let cpu = z.page_owner(head) as usize;
            let pindex = (0..NR_PCP_LISTS)
                .find(|&pi| z.pcp_list_pfns(cpu, pi).contains(&head))
                .unwrap_or_else(|| order_to_pindex_any(order));
            (
                Place::Pcp {
                    head: z.abs_pfn(head),
                    order,
                    cpu: cpu as u8,
                    pindex: pindex as u8,
                    list: crate::mm::pcp_list_name(pindex).to_string(),
                },
                |m| matches!(m, Mutation::PcpAdd { .. }),
            )
        }
        None => {
            let owner = z.page_owner(idx);
            let holder = if owner == NO_OWNER {
                Holder::Nobody
            } else {
                Holder::Other {
                    label: run.owner_label(owner),
                }
            };
            (Place::Allocated { holder }, |m| {
                matches!(
                    m,
                    Mutation::PrepNewPage { .. } | Mutation::ContigAlloc { .. }
                )
            })
        }
    };
    let event = last_event(run, pos, zi, idx, wanted);
    let op = event.and_then(|e| op_of(run, e));
    // The events of zone `zi` name its own pfns.
    let ctx = Ctx::of(z);
    let event_line = event
        .map(|e| crate::explain::narrate::narrate(&ctx, &run.log, &run.log.events[e as usize]));
    let place = match place {
        Place::Allocated { holder } => Place::Allocated {
            holder: allocated_holder(run, z, idx, op, traced, holder, &ctx),
        },
        p => p,
    };
    Ok(PageWhere {
        pfn,
        zone: z.cfg().name.clone(),
        zone_index: zi,
        place,
        event,
        op,
        event_line,
    })
}

/// The pcp list an order's block would be on when the list walk did not find it (it always
/// does for a consistent state): the order's first list.
fn order_to_pindex_any(order: u8) -> usize {
    (0..NR_PCP_LISTS)
        .find(|&pi| pindex_to_order(pi) == order)
        .unwrap_or(0)
}

/// Who holds an allocated page: the op (scenario) or the traced task (replay), else what
/// [`Run::owner_label`] says.
fn allocated_holder(
    run: &Run,
    z: &Zone,
    idx: u32,
    op: Option<u32>,
    traced: Option<&TracedAllocs>,
    fallback: Holder,
    ctx: &Ctx,
) -> Holder {
    let owner = z.page_owner(idx);
    if owner == NO_OWNER {
        return fallback;
    }
    if let Some(a) = traced.and_then(|t| t.by_owner(owner).map(|a| (t, a))) {
        let (t, a) = a;
        let line = trace_line(
            ctx,
            &crate::mm::Tracepoint::MmPageAlloc {
                pfn: Some(idx & !((1u32 << a.order) - 1)),
                order: a.order,
                mt: a.mt,
                gfp: a.gfp,
            },
        );
        return Holder::Traced {
            task: t.task(a).map(str::to_string),
            cpu: a.cpu,
            gfp: gfp::format(a.gfp),
            order: a.order,
            ts_ns: a.ts_ns,
            line: a.line,
            trace_line: line,
        };
    }
    match (op, run.owners.get(owner as usize)) {
        (Some(op), Some(_)) if traced.is_none() => Holder::Op {
            op,
            name: run.owner_label(owner),
        },
        _ => fallback,
    }
}

/// The last of the first `pos` events of the kind `wanted` that named page `idx` of zone `zi`
/// (the events name pages of the zone being worked on, which `ZoneSwitch` changes).
fn last_event(
    run: &Run,
    pos: u32,
    zi: usize,
    idx: u32,
    wanted: fn(&Mutation) -> bool,
) -> Option<u32> {
    let mut active = run.initial.active_index();
    let mut found = None;
    for (i, ev) in run.log.events.iter().take(pos as usize).enumerate() {
        let kind = ev.kind();
        if let EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) = kind {
            active = to as usize;
            continue;
        }
        if active != zi {
            continue;
        }
        let Some(m) = kind.mutation() else { continue };
        if !wanted(&m) {
            continue;
        }
        if let Some((s, n)) = kind.touched_pages() {
            if idx >= s && idx - s < n {
                found = Some(i as u32);
            }
        }
    }
    found
}

/// The executed op whose events contain event `e`.
fn op_of(run: &Run, e: u32) -> Option<u32> {
    let i = run.ops.partition_point(|o| o.end <= e);
    run.ops
        .get(i)
        .filter(|o| o.start <= e && e < o.end)
        .map(|_| i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::replay::{replay_text, ReplayOptions};
    use crate::run::Timeline;

    /// Alloc a movable order-0 page on CPU 1, free it (it goes to CPU 1's pcp list), then a
    /// named order-3 allocation.
    const SC: &str = r#"{"version": 1, "kernel": "v7.2", "zone": {"pages": 4096, "cpus": 2},
        "ops": [
            {"op": "alloc", "order": 0, "mt": "movable", "cpu": 1, "as": "a"},
            {"op": "free", "ref": "a", "cpu": 1},
            {"op": "alloc", "order": 3, "mt": "unmovable", "as": "b"}
        ]}"#;

    fn at_op(k: usize) -> Timeline {
        let run = crate::scenario::parse_valid(SC)
            .and_then(|s| crate::run::Runner::new(s).run())
            .expect("runs");
        let pos = if k == 0 { 0 } else { run.ops[k - 1].end };
        let mut t = Timeline::new(run);
        t.seek(pos);
        t
    }

    fn ask(t: &Timeline, pfn: Pfn) -> Result<PageWhere, String> {
        where_is(&t.run, t.node(), t.pos(), pfn, None)
    }

    #[test]
    fn a_free_page_names_its_list_block_and_the_event() {
        let t = at_op(0);
        let w = ask(&t, 5).unwrap();
        assert_eq!(
            w.place,
            Place::FreeArea {
                head: 0,
                order: 10,
                mt: "Movable".into()
            }
        );
        assert_eq!(w.event, None, "boot put it there, before the run");
        assert_eq!(
            w.headline(),
            "pfn 0x5 is free in zone Normal: free_area[10].free_list[Movable], in the order-10 block at 0x0"
        );
        // After the first op, page 1 is the order-0 buddy expand gave back: the event is that
        // FreeListAdd, inside op 0.
        let t = at_op(1);
        let w = ask(&t, 1).unwrap();
        assert!(
            matches!(
                w.place,
                Place::FreeArea {
                    head: 1,
                    order: 0,
                    ..
                }
            ),
            "{w:?}"
        );
        let e = w.event.expect("an event put it there") as usize;
        assert!(matches!(
            t.run.log.events[e].kind().mutation(),
            Some(Mutation::FreeListAdd {
                pfn: 1,
                order: 0,
                ..
            })
        ));
        assert_eq!(w.op, Some(0));
        assert!(w.event_line.unwrap().contains("order-0 block at pfn 0x1"));
    }

    #[test]
    fn a_pcp_page_names_the_cpu_and_list() {
        let t = at_op(2);
        let w = ask(&t, 0).unwrap();
        assert_eq!(
            w.place,
            Place::Pcp {
                head: 0,
                order: 0,
                cpu: 1,
                pindex: 1,
                list: "Movable".into()
            }
        );
        let e = w.event.unwrap() as usize;
        assert!(matches!(
            t.run.log.events[e].kind().mutation(),
            Some(Mutation::PcpAdd { cpu: 1, pfn: 0, .. })
        ));
        assert_eq!(w.op, Some(1));
        assert!(w.headline().starts_with(
            "pfn 0x0 is on CPU 1's pcp list in zone Normal: pcp->lists[1] (order 0 Movable)"
        ));
    }

    #[test]
    fn an_allocated_page_names_its_op_and_the_allocation_event() {
        let t = at_op(1);
        let w = ask(&t, 0).unwrap();
        assert_eq!(
            w.place,
            Place::Allocated {
                holder: Holder::Op {
                    op: 0,
                    name: "alloc order 0 movable as a".into()
                }
            }
        );
        let e = w.event.unwrap() as usize;
        assert!(matches!(
            t.run.log.events[e].kind().mutation(),
            Some(Mutation::PrepNewPage { pfn: 0, .. })
        ));
        let t = at_op(3);
        let head = t
            .run
            .log
            .events
            .iter()
            .take(t.pos() as usize)
            .filter_map(|e| match e.kind().mutation() {
                Some(Mutation::PrepNewPage { pfn, order: 3, .. }) => Some(pfn),
                _ => None,
            })
            .next_back()
            .unwrap();
        let w = ask(&t, u64::from(head) + 7).unwrap();
        assert!(
            w.headline()
                .ends_with("by op 3 (alloc order 3 unmovable as b)"),
            "{}",
            w.headline()
        );
        assert_eq!(w.op, Some(2));
    }

    #[test]
    fn outside_every_zone_names_the_spans() {
        let t = at_op(0);
        assert_eq!(
            ask(&t, 4096).unwrap_err(),
            "pfn 0x1000 is outside every zone of the node (Normal 0x0\u{2013}0xfff)"
        );
        assert_eq!(parse_pfn("0x1A").unwrap(), 26);
        assert_eq!(parse_pfn(" 26 ").unwrap(), 26);
        assert!(parse_pfn("pfn 3").unwrap_err().contains("is not a pfn"));
    }

    /// A replay's allocation names the traced task, CPU, gfp flags, order and line.
    #[test]
    fn a_traced_allocation_names_the_task() {
        let s = crate::scenario::parse(
            r#"{"version": 1, "kernel": "v7.2", "zone": {"pages": 4096, "cpus": 2}}"#,
        )
        .unwrap();
        let trace = "# tracer: nop\n\
            \x20           bash-77      [001] d..1.    10.000001: mm_page_alloc: page=ffffea0000000000 pfn=0x400 order=2 migratetype=0 gfp_flags=GFP_KERNEL\n";
        let r = replay_text(&s, trace, &ReplayOptions::default()).unwrap();
        assert_eq!(r.allocs.tasks, vec!["bash-77".to_string()]);
        let t = Timeline::new(r.run.clone());
        let mut t = t;
        t.seek(t.len());
        let w = where_is(&t.run, t.node(), t.pos(), 0x402, Some(&r.allocs)).unwrap();
        match &w.place {
            Place::Allocated {
                holder:
                    Holder::Traced {
                        task,
                        cpu,
                        gfp,
                        order,
                        line,
                        ts_ns,
                        trace_line,
                    },
            } => {
                assert_eq!(task.as_deref(), Some("bash-77"));
                assert_eq!(*cpu, Some(1));
                assert_eq!(gfp, "GFP_KERNEL");
                assert_eq!(*order, 2);
                assert_eq!(*line, 2);
                assert_eq!(*ts_ns, Some(10_000_001_000));
                assert_eq!(
                    trace_line,
                    "mm_page_alloc: page=ffffea0000010000 pfn=0x400 order=2 migratetype=0 gfp_flags=GFP_KERNEL"
                );
            }
            p => panic!("{p:?}"),
        }
        assert!(w.event.is_some());
        assert_eq!(
            w.headline(),
            "pfn 0x402 is allocated in zone Normal by bash-77 on CPU 1, order 2, gfp_flags=GFP_KERNEL, trace line 2"
        );
        assert!(w.text().contains("traced at 10.000001: mm_page_alloc: "));
    }
}
