//! Trace replay: round trip of every built-in scenario, a deliberate inconsistency,
//! parse errors that name the line.

use buddyscope::{
    explain,
    mm::{order_to_pindex, MigrateType, NR_PAGE_ORDERS},
    run::{
        replay::{replay_text, DivergenceKind, ReplayError, ReplayOptions},
        run, RunOptions,
    },
    scenario::{self, builtin, procfs},
};

/// `run --format trace` of a scenario, replayed from the same start state, reproduces the
/// final `/proc/pagetypeinfo` with zero divergences.
#[test]
fn round_trip_every_builtin() {
    let mut failed = Vec::new();
    for b in builtin::ALL {
        let s = scenario::parse(b.json).unwrap();
        let r = run(&s, &RunOptions::default()).unwrap();
        let trace = explain::trace_text(&r);
        let rep = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
        let want = procfs::pagetypeinfo(&r.final_zone);
        let got = procfs::pagetypeinfo(&rep.run.final_zone);
        // The replay's own trace prints the same tracepoint lines.
        let tracepoints = |t: &str| {
            t.lines()
                .filter(|l| l.starts_with("mm_"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        if tracepoints(&trace) != tracepoints(&explain::trace_text(&rep.run)) {
            failed.push(format!("{}: the replay's tracepoint lines differ", b.id));
        }
        // Free lists are exact too, order included (every zone of a node).
        let lists = |node: &buddyscope::mm::Zone| {
            node.zones()
                .flat_map(|z| {
                    (0..NR_PAGE_ORDERS as u8)
                        .flat_map(|o| MigrateType::ALL.map(|mt| z.free_list_pfns(o, mt)))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        if lists(&r.final_zone) != lists(&rep.run.final_zone) {
            failed.push(format!("{}: the free lists differ", b.id));
        }
        if rep.divergence_count != 0 || want != got {
            failed.push(format!(
                "{}: {} divergences (first: {:?}), pagetypeinfo {}",
                b.id,
                rep.divergence_count,
                rep.divergences.first().map(|d| d.to_string()),
                if want == got { "same" } else { "differs" }
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

fn small_zone(cpus: u32) -> scenario::Scenario {
    scenario::parse(&format!(
        r#"{{"version": 1, "zone": {{"pages": 4096, "cpus": {cpus}}}, "init": "boot"}}"#
    ))
    .unwrap()
}

/// A hand-made trace in the kernel's own line shape (ftrace columns, CPU 1), with one
/// deliberate inconsistency: the same page is freed twice.
const DOUBLE_FREE: &str = "\
# tracer: nop
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
            bash-1234    [001] d..1.   10.000001: mm_page_alloc_zone_locked: page=ffffea0000000000 pfn=0x0 order=0 migratetype=1 percpu_refill=1
            bash-1234    [001] .....   10.000002: mm_page_alloc: page=ffffea0000000000 pfn=0x0 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE
            bash-1234    [001] .....   10.000003: mm_page_free: page=ffffea0000000000 pfn=0x0 order=0
            bash-1234    [001] .....   10.000004: mm_page_free: page=ffffea0000000000 pfn=0x0 order=0
     kworker/1:0-17      [001] d..1.   10.000005: mm_page_pcpu_drain: page=ffffea0000000000 pfn=0x0 order=0 migratetype=1
";

#[test]
fn a_double_free_is_exactly_one_divergence() {
    let s = small_zone(2);
    let boot = run(&s, &RunOptions::default()).unwrap();
    let rep = replay_text(&s, DOUBLE_FREE, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 1, "{:#?}", rep.divergences);
    let d = &rep.divergences[0];
    assert_eq!((d.line, d.kind), (6, DivergenceKind::FreeOfFree));
    assert_eq!(rep.trace_events, 5);
    assert_eq!(rep.skipped_lines, 2);
    // The divergence is a message event of the recorded run, at the index it names.
    assert!(matches!(
        rep.run.log.events[d.event as usize].kind(),
        buddyscope::mm::EventKind::Annotation(buddyscope::mm::Annotation::Message { .. })
    ));
    // The page went back and merged: the zone is as booted.
    assert_eq!(
        procfs::pagetypeinfo(&rep.run.final_zone),
        procfs::pagetypeinfo(&boot.final_zone)
    );
    assert_eq!(rep.run.ops.len(), 5);
}

#[test]
fn the_cpu_column_picks_the_pcp() {
    let s = small_zone(2);
    let text = DOUBLE_FREE.lines().take(5).collect::<Vec<_>>().join("\n");
    let rep = replay_text(&s, &text, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    let z = &rep.run.final_zone;
    assert_eq!((z.pcp()[0].count, z.pcp()[1].count), (0, 1));
}

#[test]
fn other_inconsistencies_are_typed() {
    let s = small_zone(1);
    // Allocated twice; an extfrag for a Movable request while Movable blocks are free (the
    // model would not fall back, and the block is on the Movable list, not Unmovable); a pfn
    // outside the 4096-page zone; a drain of a page on no pcp list.
    let text = "\
mm_page_alloc: page=ffffea0000000000 pfn=0x0 order=3 migratetype=0 gfp_flags=GFP_KERNEL
mm_page_alloc: page=ffffea0000000000 pfn=0x0 order=3 migratetype=0 gfp_flags=GFP_KERNEL
mm_page_alloc_extfrag: page=ffffea0000000000 pfn=0x400 alloc_order=0 fallback_order=10 pageblock_order=9 alloc_migratetype=1 fallback_migratetype=0 fragmenting=0 change_ownership=0
mm_page_free: page=ffffea0000000000 pfn=0x100000 order=0
mm_page_pcpu_drain: page=ffffea0000000000 pfn=0x800 order=0 migratetype=1
";
    let rep = replay_text(&s, text, &ReplayOptions::default()).unwrap();
    let got: Vec<(u64, DivergenceKind)> =
        rep.divergences.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(
        got,
        vec![
            (2, DivergenceKind::AllocOfAllocated),
            (3, DivergenceKind::FallbackNotPredicted),
            (3, DivergenceKind::ListMismatch),
            (4, DivergenceKind::PfnOutsideZone),
            (5, DivergenceKind::DrainNotOnPcp),
        ]
    );
    assert_eq!(rep.divergence_count, 5);
}

#[test]
fn a_rejected_line_names_its_line() {
    let s = small_zone(1);
    let text =
        "# x\nmm_page_free: page=0 pfn=0x0 order=0\nmm_page_free: page=0 pfn=0x1 order=twelve\n";
    match replay_text(&s, text, &ReplayOptions::default()) {
        Err(ReplayError::Parse(e)) => {
            assert_eq!((e.line, e.column), (3, Some(30)));
            assert_eq!(
                e.to_string(),
                "line 3, column 30: `order=twelve`: expected an integer"
            );
        }
        r => panic!("{:?}", r.map(|r| r.divergence_count)),
    }
}

/// The model compared with its own trace picks the same pfn for every request.
#[test]
fn the_model_agrees_with_its_own_trace() {
    let b = builtin::get("fragmented-sandbox").unwrap();
    let s = scenario::parse(b.json).unwrap();
    let r = run(&s, &RunOptions::default()).unwrap();
    let trace = explain::trace_text(&r);
    let c = buddyscope::run::replay::reissue(&s, trace.as_bytes()).unwrap();
    assert!(
        c.requests > 5000 && c.frees > 1000,
        "{} {}",
        c.requests,
        c.frees
    );
    assert_eq!((c.differing, c.first_difference), (0, None));
    assert_eq!(c.model_nr_free.last(), Some(r.final_zone.nr_free()));
    // Another start state: the same requests now land elsewhere, and the first is reported.
    let mut other = s.clone();
    other.zone.pages = Some(16384);
    let c = buddyscope::run::replay::reissue(&other, trace.as_bytes()).unwrap();
    let d = c.first_difference.expect("a larger zone boots differently");
    assert!(d.line > 0 && d.traced != d.model);
}

/// Every replay is an exact, invertible event log: undoing it from the final state gives the
/// initial state back (the timeline steps backwards through it).
#[test]
fn a_replay_undoes_exactly() {
    for id in [
        "free-contig-range-thp",
        "vmalloc-large-order",
        "cma-frozen-range",
    ] {
        let s = scenario::parse(builtin::get(id).unwrap().json).unwrap();
        let r = run(&s, &RunOptions::default()).unwrap();
        let rep = replay_text(&s, &explain::trace_text(&r), &ReplayOptions::default()).unwrap();
        let mut z = rep.run.final_zone.clone();
        for ev in rep.run.log.events.iter().rev() {
            z.unapply(ev);
        }
        assert_eq!(
            z.first_difference(&rep.run.initial),
            None,
            "{id}: undoing the replay does not give the start back"
        );
    }
}

/// `replay::summary`: the counts of the trace's events, the claim `fallback-claim` makes, the
/// pageblock it re-types, the fragmentation series ending on the final zone's, and the model's
/// comparison.
#[test]
fn summary_of_fallback_claim() {
    use buddyscope::mm::fragmentation_index;
    use buddyscope::run::replay::MAX_SAMPLES;
    use buddyscope::run::replay::{reissue, summary};
    let s = scenario::parse(builtin::get("fallback-claim").unwrap().json).unwrap();
    let r = run(&s, &RunOptions::default()).unwrap();
    let trace = explain::trace_text(&r);
    let rep = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
    let c = reissue(&s, trace.as_bytes()).unwrap();
    let sum = summary(&rep, Some(&c));
    let lines = |ev: &str| trace.lines().filter(|l| l.starts_with(ev)).count() as u64;
    assert_eq!(sum.divergence_count, 0);
    assert_eq!(sum.trace_events, rep.trace_events);
    assert_eq!(
        sum.allocations.iter().map(|a| a.count).sum::<u64>() + sum.failed_allocations,
        lines("mm_page_alloc:")
    );
    assert_eq!(sum.frees, lines("mm_page_free:"));
    assert!(sum
        .allocations
        .iter()
        .any(|a| a.order == 0 && a.migratetype == "Unmovable" && a.count > 0));
    // One claim of a Movable pageblock by an Unmovable request, and that block re-typed.
    assert_eq!(sum.fallbacks.len(), 1);
    let f = &sum.fallbacks[0];
    assert_eq!(
        (f.from.as_str(), f.to.as_str(), f.claim, f.count),
        ("Movable", "Unmovable", true, 1)
    );
    assert_eq!(sum.pageblocks_changed.len(), 1);
    let pb = &sum.pageblocks_changed[0];
    assert_eq!((pb.from.as_str(), pb.to.as_str()), ("Movable", "Unmovable"));
    assert_eq!(pb.pfn % 512, 0);
    // The series: the start, then thinned points, the last one after the last event.
    assert!(sum.fragmentation.len() <= MAX_SAMPLES + 2 && sum.fragmentation.len() > 100);
    assert_eq!(sum.fragmentation[0].line, 0);
    assert!(sum.fragmentation.windows(2).all(|w| w[0].line < w[1].line));
    let z = &rep.run.final_zone;
    let want: Vec<i64> = (0..11).map(|o| fragmentation_index(z, o)).collect();
    assert_eq!(sum.fragmentation.last().unwrap().index.to_vec(), want);
    let m = sum.model.expect("a comparison was made");
    assert_eq!(m.requests, lines("mm_page_alloc:"));
    let d = m
        .first_difference
        .expect("the model picks another pfn somewhere");
    assert!(d.line > 0 && d.traced != d.model);
    assert_eq!(m.fragmentation[0], sum.fragmentation[0]);
}

/// A zone of 4096 pages on 2 CPUs under `kernel`, booted.
fn small_zone_of(kernel: &str) -> scenario::Scenario {
    scenario::parse(&format!(
        r#"{{"version": 1, "kernel": "{kernel}", "zone": {{"pages": 4096, "cpus": 2}}, "init": "boot"}}"#
    ))
    .unwrap()
}

/// Four pages allocated on CPU 1 (`split`: as one order-2 block that vmalloc splits with
/// `split_page`; else one by one), then freed in ascending pfn order with the given irq-info
/// flags; `batched` appends the folio batch's `mm_page_free_batched` commits.
fn four_page_free(flags: &str, batched: bool, split: bool) -> String {
    let mut t = String::from("# tracer: nop\n");
    if split {
        t += "          insmod-125     [001] .....    40.000100: mm_page_alloc: page=0 pfn=0x100 order=2 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP\n";
    } else {
        for (i, pfn) in (0x100..0x104).enumerate() {
            t += &format!(
                "          insmod-125     [001] .....    40.{:06}: mm_page_alloc: page=0 pfn={pfn:#x} order=0 migratetype=0 gfp_flags=GFP_KERNEL\n",
                100 + i
            );
        }
    }
    for (i, pfn) in (0x100..0x104).enumerate() {
        t += &format!(
            "          insmod-125     [001] {flags}    40.{:06}: mm_page_free: page=0 pfn={pfn:#x} order=0\n",
            200 + i
        );
    }
    if batched {
        for (i, pfn) in (0x100..0x104).enumerate() {
            t += &format!(
                "          insmod-125     [001] ...2.    40.{:06}: mm_page_free_batched: page=0 pfn={pfn:#x} order=0\n",
                300 + i
            );
        }
    }
    t += "          insmod-125     [001] .....    40.000400: mm_page_alloc: page=0 pfn=0x800 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n";
    t
}

/// CPU 1's Movable pcp lists (the booted zone's pageblocks are Movable) after the replay: (order, head-first pfns) of the non-empty ones.
fn movable_pcp(s: &scenario::Scenario, trace: &str) -> Vec<(u8, Vec<u32>)> {
    let rep = replay_text(s, trace, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    let z = &rep.run.final_zone;
    (0..=3u8)
        .map(|o| {
            (
                o,
                z.pcp_list_pfns(1, order_to_pindex(MigrateType::Movable, o)),
            )
        })
        .filter(|(_, l)| !l.is_empty())
        .collect()
}

/// 7.2's vfree: `vm_area_free_pages` → `free_pages_bulk` → `__free_contig_range` traces each
/// page as order 0 (`free_pages_prepare(page, 0)` in `__free_contig_range_common`), then
/// `free_prepared_contig_range` frees the run as its aligned chunks through
/// `__free_frozen_pages(.., FPI_PREPARED)`: the pages of a large-order vmalloc block
/// (`vm_area_alloc_pages` allocates order 2 and `split_page`s it), pfns 0x100-0x103, are one
/// order-2 chunk
/// (0x100 is aligned to 4, ilog2(4) = 2), which `pcp_allowed_order(2)` puts on the order-2
/// pcp list (v7.2.13 mm/page_alloc.c:6902-6926, 6928-6975, 5308-5319).
#[test]
fn a_sleepable_run_of_order0_frees_is_one_contig_range_on_v7_2() {
    let s = small_zone_of("v7.2");
    assert_eq!(
        movable_pcp(&s, &four_page_free(".....", false, true)),
        vec![(2, vec![0x100])]
    );
}

/// The same four lines where free_pages_bulk cannot be: under a lock (preempt depth 1: a
/// page-table free at exit) or in softirq, in a folio batch (`free_unref_folios` commits each
/// page with `mm_page_free_batched`), pages allocated one by one (pipe buffers freed in a row),
/// or on v7.1 (vfree frees page by page): four order-0 pcp entries, the last freed at the head.
#[test]
fn other_runs_of_order0_frees_stay_single_pages() {
    let single = vec![(0, vec![0x103, 0x102, 0x101, 0x100])];
    let v72 = small_zone_of("v7.2");
    assert_eq!(
        movable_pcp(&v72, &four_page_free("...1.", false, true)),
        single
    );
    assert_eq!(
        movable_pcp(&v72, &four_page_free("..s1.", false, true)),
        single
    );
    assert_eq!(
        movable_pcp(&v72, &four_page_free(".....", true, true)),
        single
    );
    assert_eq!(
        movable_pcp(&v72, &four_page_free(".....", false, false)),
        single
    );
    let v71 = small_zone_of("v7.1");
    assert_eq!(
        movable_pcp(&v71, &four_page_free(".....", false, true)),
        single
    );
}
