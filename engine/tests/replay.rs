//! Trace replay: round trip of every built-in scenario, a deliberate inconsistency,
//! parse errors that name the line.

#[path = "support/thp_capture.rs"]
mod thp_capture;

use buddyscope::{
    explain,
    mm::{order_to_pindex, MigrateType, NR_PAGE_ORDERS},
    run::{
        replay::{replay_text, DivergenceKind, ReplayError, ReplayOptions},
        Run, Runner,
    },
    scenario::{self, builtin, procfs, Scenario, ValidScenario},
};

/// The recorded run of `s`.
fn run(s: &Scenario) -> Run {
    Runner::new(ValidScenario::new(s.clone()).unwrap())
        .run()
        .unwrap()
}

/// `run --format trace` of a scenario, replayed from the same start state, reproduces the
/// final `/proc/pagetypeinfo` with zero divergences.
#[test]
fn round_trip_every_builtin() {
    let mut failed = Vec::new();
    for b in builtin::ALL {
        let s = scenario::parse(b.json()).unwrap();
        let r = run(&s);
        round_trip(b.id, &s, &r, &mut failed);
        // Both sides of its compare pair.
        for side in s.compare.iter().flat_map(|c| [&c.a, &c.b]) {
            let side_s = side.apply(&s);
            let r = run(&side_s);
            round_trip(
                &format!("{} ({})", b.id, side.label),
                &side_s,
                &r,
                &mut failed,
            );
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The replay of `r`'s own trace (`s`'s start state): the same tracepoint lines (the
/// `mm_compaction_*` lines included: the replay reads and reprints them), the same free
/// lists of every zone, the same pagetypeinfo, zero divergences; what differs goes to
/// `failed`.
fn round_trip(
    id: &str,
    s: &scenario::Scenario,
    r: &buddyscope::run::Run,
    failed: &mut Vec<String>,
) {
    let trace = explain::trace_text(r);
    let rep = replay_text(s, &trace, &ReplayOptions::default()).unwrap();
    let want = procfs::pagetypeinfo(&r.final_node);
    let got = procfs::pagetypeinfo(&rep.run.final_node);
    let tracepoints = |t: &str| {
        t.lines()
            .filter(|l| {
                l.starts_with("mm_")
                    || l.starts_with("compact_retry:")
                    || l.starts_with("reclaim_retry_zone:")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (a, b) = (
        tracepoints(&trace),
        tracepoints(&explain::trace_text(&rep.run)),
    );
    if a != b {
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        failed.push(format!(
            "{id}: the replay's tracepoint lines differ from line {at}: {:?} vs {:?}",
            a.get(at),
            b.get(at)
        ));
    }
    // Free lists are exact too, order included (every zone of a node).
    let lists = |node: &buddyscope::mm::Node| {
        node.zones()
            .iter()
            .flat_map(|z| {
                (0..NR_PAGE_ORDERS as u8)
                    .flat_map(|o| MigrateType::ALL.map(|mt| z.free_list_pfns(o, mt)))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    if lists(&r.final_node) != lists(&rep.run.final_node) {
        failed.push(format!("{id}: the free lists differ"));
    }
    if rep.divergence_count != 0 || want != got {
        failed.push(format!(
            "{id}: {} divergences (first: {:?}), pagetypeinfo {}",
            rep.divergence_count,
            rep.divergences.first().map(|d| d.to_string()),
            if want == got { "same" } else { "differs" }
        ));
    }
}

/// The engine's own `--format trace` of compaction (`compact_memory` moving pages into
/// isolated free blocks and releasing the rest, the `compact` op deferred and retried, a THP
/// rescued by direct compaction with its block captured) replays back exactly: the
/// `mm_compaction_isolate_freepages` lines take the free blocks off the buddy, the sources'
/// and the unused blocks' `mm_page_free` lines give pages back.
#[test]
fn compaction_traces_replay_back_with_zero_divergences() {
    let mut scenarios = Vec::new();
    // compact_memory: two pages move into the top pageblock, one isolated page goes back.
    scenarios.push((
        "compact_memory",
        r#"{"version": 1, "kernel": "v7.2", "zone": {"pages": 4096, "cpus": 1}, "ops": [
          {"op": "alloc", "order": 0, "mt": "movable", "as": "a"},
          {"op": "alloc", "order": 0, "mt": "movable", "as": "b"},
          {"op": "alloc", "order": 0, "mt": "movable", "as": "c"},
          {"op": "free", "ref": "b"},
          {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"},
          {"op": "drain", "cpu": "all"},
          {"op": "compact_memory"},
          {"op": "free", "ref": "a"},
          {"op": "free", "ref": "c"},
          {"op": "drain", "cpu": "all"}]}"#
            .to_string(),
    ));
    // A fragmented zone compacted whole, then the compact op at a priority that defers.
    let pins: String = (1..8)
        .map(|k| {
            format!(
                r#", {{"op": "alloc_contig_range", "pfn": {}, "nr_pages": 1, "as": "pin{k}"}}"#,
                1024 * k + 5
            )
        })
        .collect();
    scenarios.push((
        "fragmented",
        format!(
            r#"{{"version": 1, "kernel": "v7.2", "zone": {{"pages": 8192, "cpus": 1}}, "ops": [
          {{"op": "repeat", "times": 8, "ops": [{{"op": "alloc", "order": 0, "mt": "unmovable"}}]}},
          {{"op": "repeat", "times": 3000, "ops": [
             {{"op": "alloc", "order": 1, "mt": "movable", "as": "pair"}},
             {{"op": "split", "ref": "pair"}},
             {{"op": "free", "ref": "pair", "page": 1}}]}},
          {{"op": "drain", "cpu": "all"}}{pins},
          {{"op": "compact", "order": 10, "priority": 1}},
          {{"op": "compact", "order": 10, "priority": 1}},
          {{"op": "compact", "order": 10, "priority": 1}},
          {{"op": "compact_memory"}},
          {{"op": "compact", "order": 3, "priority": 1}}]}}"#
        ),
    ));
    // Direct compaction in the slow path of a THP, the block captured.
    let mut ops = thp_capture::fragmented_before_thp();
    ops.push(r#"{"op": "alloc", "order": 9, "mt": "movable", "as": "thp"}"#.into());
    ops.push(r#"{"op": "free", "ref": "thp"}"#.into());
    scenarios.push((
        "direct compaction",
        format!(
            r#"{{"version": 1, "kernel": "v7.2", "zone": {{"pages": 4096, "cpus": 1}}, "ops": [{}]}}"#,
            ops.join(",\n")
        ),
    ));
    // The slow path's retries: reclaim_retry_zone and compact_retry lines (oom.h).
    scenarios.push((
        "slow path retries",
        r#"{"version": 1, "kernel": "v7.3", "zone": {"pages": 4096, "cpus": 1,
              "pcp": {"batch": 1, "high_min": 0, "high_max": 0}}, "ops": [
          {"op": "repeat", "times": 2048, "ops": [
             {"op": "alloc", "order": 1, "mt": "unmovable", "as": "pair"},
             {"op": "split", "ref": "pair"},
             {"op": "free", "ref": "pair", "page": 1}]},
          {"op": "drain", "cpu": "all"},
          {"op": "alloc", "order": 2, "mt": "movable"},
          {"op": "alloc", "order": 3, "mt": "unmovable"}]}"#
            .to_string(),
    ));
    let mut failed = Vec::new();
    for (id, text) in &scenarios {
        let s = scenario::parse(text).unwrap();
        let r = run(&s);
        let trace = explain::trace_text(&r);
        let lines: &[&str] = if *id == "slow path retries" {
            &["mm_compaction_end", "compact_retry:", "reclaim_retry_zone:"]
        } else {
            &[
                "mm_compaction_begin",
                "mm_compaction_isolate_freepages",
                "mm_compaction_migratepages",
                "mm_compaction_end",
            ]
        };
        for tp in lines {
            assert!(trace.contains(tp), "{id}: the trace has {tp}");
        }
        round_trip(id, &s, &r, &mut failed);
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
    let boot = run(&s);
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
        procfs::pagetypeinfo(&rep.run.final_node),
        procfs::pagetypeinfo(&boot.final_node)
    );
    assert_eq!(rep.run.ops.len(), 5);
}

#[test]
fn the_cpu_column_picks_the_pcp() {
    let s = small_zone(2);
    let text = DOUBLE_FREE.lines().take(5).collect::<Vec<_>>().join("\n");
    let rep = replay_text(&s, &text, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    let z = rep.run.final_node.active();
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
    let s = scenario::parse(b.json()).unwrap();
    let r = run(&s);
    let trace = explain::trace_text(&r);
    let c = buddyscope::run::replay::reissue(&s, trace.as_bytes()).unwrap();
    assert!(
        c.requests > 5000 && c.frees > 1000,
        "{} {}",
        c.requests,
        c.frees
    );
    assert_eq!((c.differing, c.first_difference), (0, None));
    assert_eq!(
        c.model_nr_free.last(),
        Some(r.final_node.active().nr_free())
    );
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
        let s = scenario::parse(builtin::get(id).unwrap().json()).unwrap();
        let r = run(&s);
        let rep = replay_text(&s, &explain::trace_text(&r), &ReplayOptions::default()).unwrap();
        let mut z = rep.run.final_node.clone();
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
    let s = scenario::parse(builtin::get("fallback-claim").unwrap().json()).unwrap();
    let r = run(&s);
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
    let z = rep.run.final_node.active();
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
    let z = rep.run.final_node.active();
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

/// A folio batch committed on another CPU while the run goes on (its `mm_page_free_batched`
/// line, which the importer skips, between two of the run's lines) leaves the run whole: the
/// lab's 7.3.4 fragment capture has a kworker's vfree of a 4-page area (0x13ec4c) cut so by
/// `rm`'s batch on CPU 0, which the kernel freed as one order-2 chunk (v7.3.4
/// mm/page_alloc.c `__free_contig_range_common` :7070: one loop per run, tracing nothing but each
/// page's `mm_page_free`). The same line on the run's own CPU ends the run there, as any line
/// of that CPU between does (row 28): 0x100-0x102 as an order-1 and an order-0 chunk, 0x103
/// alone.
#[test]
fn another_cpus_folio_batch_does_not_cut_a_contig_range_run() {
    let s = small_zone_of("v7.3");
    for (batch_cpu, want) in [
        (0, vec![(2, vec![0x100])]),
        (1, vec![(0, vec![0x103, 0x102]), (1, vec![0x100])]),
    ] {
        let t = four_page_free(".....", false, true).replace(
            "40.000202: mm_page_free: page=0 pfn=0x102 order=0\n",
            &format!(
                "40.000202: mm_page_free: page=0 pfn=0x102 order=0\n              rm-300     [{batch_cpu:03}] ...2.    40.000202: mm_page_free_batched: page=0 pfn=0x400 order=0\n"
            ),
        );
        assert!(t.contains("mm_page_free_batched"));
        assert_eq!(movable_pcp(&s, &t), want, "batch on CPU {batch_cpu}");
    }
}

/// `free_unref_folios` traces each folio's free in its first loop (`__free_pages_prepare`, no
/// lock held: the task may migrate), then in its second loop takes `pcp_spin_trylock` of the
/// CPU it runs on then and traces `mm_page_free_batched` under that lock just before
/// `free_frozen_page_commit` puts the folio at the head of that CPU's pcp list; a commit that
/// drains may drop the lock (`free_frozen_page_commit` returns false) and the next folio takes
/// the lock of whichever CPU the task then runs on (v7.3.4 mm/page_alloc.c :3020-3110, :2907-2933; v7.2.13
/// the same function; v6.12.117 :2771-2864 traces the batch line under the lock too). rm frees
/// four pages on CPU 1, commits the first two there and, migrated, the last two on CPU 0
/// (another task's line on CPU 0 between): each page is on the pcp list of its batch line's
/// CPU. With every batch line on CPU 1 all four stay there.
#[test]
fn a_folio_batch_commits_each_folio_on_its_batch_lines_cpu() {
    for kernel in ["v6.12", "v7.2", "v7.3"] {
        let s = small_zone_of(kernel);
        for (late_cpu, want) in [
            (0, [vec![0x103, 0x102], vec![0x101, 0x100]]),
            (1, [vec![], vec![0x103, 0x102, 0x101, 0x100]]),
        ] {
            let mut t = String::from("# tracer: nop\n");
            for (i, pfn) in (0x100..0x104).enumerate() {
                t += &format!(
                    "          insmod-125     [001] .....    40.{:06}: mm_page_alloc: page=0 pfn={pfn:#x} order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n",
                    100 + i
                );
            }
            for (i, pfn) in (0x100..0x104).enumerate() {
                t += &format!(
                    "              rm-300     [001] .....    40.{:06}: mm_page_free: page=0 pfn={pfn:#x} order=0\n",
                    200 + i
                );
            }
            t += "              sh-301     [000] .....    40.000250: mm_page_alloc: page=0 pfn=0x800 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n";
            for (i, pfn) in (0x100..0x104).enumerate() {
                let cpu = if pfn < 0x102 { 1 } else { late_cpu };
                t += &format!(
                    "              rm-300     [{cpu:03}] ...2.    40.{:06}: mm_page_free_batched: page=0 pfn={pfn:#x} order=0\n",
                    300 + i
                );
            }
            t += "              rm-300     [000] .....    40.000400: mm_page_alloc: page=0 pfn=0x900 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n";
            let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
            assert_eq!(rep.divergence_count, 0, "{kernel}: {:#?}", rep.divergences);
            let z = rep.run.final_node.active();
            let got = [0, 1].map(|c| z.pcp_list_pfns(c, order_to_pindex(MigrateType::Movable, 0)));
            assert_eq!(got, want, "{kernel}, last two committed on CPU {late_cpu}");
        }
    }
}

/// `rmqueue_pcplist` pins the task to its CPU only from `pcp_spin_trylock` to
/// `pcp_spin_unlock`; `trace_mm_page_alloc` runs after `get_page_from_freelist` returns,
/// preemptible (v7.3.4 mm/page_alloc.c :3381-3408, :5482; v7.2.13 :3361, :5382; v6.12.117
/// :3101, :4878). dd refills CPU 1's Movable order-0 list with 0x200 and 0x201 and takes 0x200
/// there; its next line, after a migration, traces 0x201 on CPU 0: the take ran on CPU 1 (the
/// task's previous line's CPU), no divergence, CPU 1's list empty. Another task tracing 0x201
/// on CPU 0 with no line on CPU 1 before is still `pcp_other_cpu`.
#[test]
fn an_allocation_traced_after_a_migration_took_its_page_on_the_tasks_previous_cpu() {
    for kernel in ["v6.12", "v7.2", "v7.3"] {
        let s = small_zone_of(kernel);
        for (task, divergences) in [("dd-400", 0), ("sh-401", 1)] {
            let mut t = String::from("# tracer: nop\n");
            t += &kline("dd-400", 1, "d..3.", 1, &refill(0x200));
            t += &kline("dd-400", 1, "d..3.", 2, &refill(0x201));
            t += &kline("dd-400", 1, ".....", 3, &alloc0(0x200));
            t += &kline(task, 0, ".....", 90, &alloc0(0x201));
            let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
            assert_eq!(
                rep.divergence_count, divergences,
                "{kernel} {task}: {:#?}",
                rep.divergences
            );
            let z = rep.run.final_node.active();
            for c in [0, 1] {
                assert!(
                    z.pcp_list_pfns(c, order_to_pindex(MigrateType::Movable, 0))
                        .is_empty(),
                    "{kernel} {task}: CPU {c}"
                );
            }
        }
    }
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

/// A line of the kernel's trace on `cpu` by `task` at `us` microseconds past 10 s.
fn kline(task: &str, cpu: u32, flags: &str, us: u32, event: &str) -> String {
    format!("{task:>16} [{cpu:03}] {flags}    10.{us:06}: {event}\n")
}

fn refill(pfn: u32) -> String {
    format!("mm_page_alloc_zone_locked: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1 percpu_refill=1")
}

fn alloc0(pfn: u32) -> String {
    format!(
        "mm_page_alloc: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE"
    )
}

fn free0(pfn: u32) -> String {
    format!("mm_page_free: page=ffffea0000000000 pfn={pfn:#x} order=0")
}

/// Each profile's kernel and the name of its pcp commit function, which the lab's commit probe
/// takes (6.12: `free_unref_page_commit`; 7.x: `free_frozen_page_commit`).
const COMMIT_PROBES: [(&str, &str); 3] = [
    ("v6.12", "free_unref_page_commit"),
    ("v7.2", "free_frozen_page_commit"),
    ("v7.3", "free_frozen_page_commit"),
];

/// The lab's commit probe line for an order-0 page at `pfn`: the probe prints the page pointer,
/// here in a `struct page` array at `base`, 64 bytes a page.
fn commit0(name: &str, base: u64, pfn: u64) -> String {
    format!(
        "{name}: ({name}+0x0/0x4a6) page={:#x} order=0",
        base + pfn * 64
    )
}

/// `rmqueue_bulk` refills CPU 0's Movable order-0 list with pfns 0, 1, 2 (each to the tail);
/// the traced allocation takes 0, the head. The next one takes 2: `__rmqueue_pcplist` takes
/// `list_first_entry`, so 1 had left the head without a line, which only
/// `alloc_pages_bulk_noprof` does (its loop calls `__rmqueue_pcplist` and traces no
/// `mm_page_alloc`; v6.12.117 mm/page_alloc.c:4761-4785). The model hands 1 out then, so its
/// later `mm_page_free` frees a page the model holds: no divergence, 1 on the list's head.
fn bulk_take_trace(then: &str) -> String {
    let mut t = String::from("# tracer: nop\n");
    for (i, pfn) in [0, 1, 2].into_iter().enumerate() {
        t += &kline("bash-1234", 0, "d..1.", 1 + i as u32, &refill(pfn));
    }
    t += &kline("bash-1234", 0, ".....", 10, &alloc0(0));
    t += &kline("bash-1234", 0, ".....", 20, &alloc0(2));
    t += &kline("bash-1234", 0, ".....", 30, then);
    t
}

#[test]
fn an_allocation_below_the_head_infers_the_untraced_bulk_take_above_it() {
    let s = small_zone(2);
    let rep = replay_text(&s, &bulk_take_trace(&free0(1)), &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(
        (rep.tally.untraced_bulk_takes, rep.tally.untraced_bulk_pages),
        (1, 1)
    );
    let z = rep.run.final_node.active();
    let movable0 = order_to_pindex(MigrateType::Movable, 0);
    assert_eq!(z.pcp_list_pfns(0, movable0), vec![1]);
    // Page 1 went back where the free put it: the bulk take's page, then the free's.
    assert_eq!(z.pcp()[0].count, 1);
}

/// The same inference, then a traced `mm_page_alloc` of page 1: the kernel's list still held
/// it (the model's list order was wrong, or the allocation was traced late:
/// `trace_mm_page_alloc` runs after `get_page_from_freelist` returns). Not an
/// `alloc_of_allocated`: the traced allocation holds the page, and frees it without a
/// divergence.
#[test]
fn a_traced_allocation_of_an_inferred_bulk_page_takes_it_over() {
    let s = small_zone(2);
    let mut t = bulk_take_trace(&alloc0(1));
    t += &kline("bash-1234", 0, ".....", 40, &free0(1));
    let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    let z = rep.run.final_node.active();
    assert_eq!(
        z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0)),
        vec![1]
    );
}

/// Pages 0 and 1 allocated (traced), freed to CPU 0's list ([1, 0]), then 1 freed again with
/// no allocation between: 1 left the list untraced, which a bulk allocation does from the
/// head when the list holds another page too (it asks for at least two: "Use the single page
/// allocator for one page", v6.12.117 mm/page_alloc.c:4691). No divergence; 1 is on the head
/// again. A page alone on its list freed twice stays a `free_of_free`
/// (`a_double_free_is_exactly_one_divergence`).
#[test]
fn a_second_free_of_a_page_above_another_is_an_untraced_bulk_take() {
    let s = small_zone(2);
    let mut t = String::from("# tracer: nop\n");
    t += &kline("bash-1234", 0, "d..1.", 1, &refill(0));
    t += &kline("bash-1234", 0, "d..1.", 2, &refill(1));
    t += &kline("bash-1234", 0, ".....", 3, &alloc0(0));
    t += &kline("bash-1234", 0, ".....", 4, &alloc0(1));
    t += &kline("bash-1234", 0, ".....", 5, &free0(0));
    t += &kline("bash-1234", 0, ".....", 6, &free0(1));
    t += &kline("cat-99", 0, ".....", 7, &free0(1));
    let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(
        (rep.tally.untraced_bulk_takes, rep.tally.untraced_bulk_pages),
        (1, 1)
    );
    let z = rep.run.final_node.active();
    assert_eq!(
        z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0)),
        vec![1, 0]
    );
}

/// 7.2's `free_pages_bulk` loop traces its pages in process context and may be preempted
/// (`.l...`: need-resched) or interrupted between two pages: the lines of another task and of
/// an interrupt on the same CPU, and of the other CPU, come between, and the run is still one
/// `__free_contig_range` (v7.2.13 mm/page_alloc.c:6928-6975): pfns 0x100-0x103 are one order-2
/// chunk (its pages are one order-2 allocation: the loop went on after the other task's line),
/// the other task's single page stays an order-0 entry, and the run the other task freed
/// meanwhile (0x200-0x201, a split order-1 block) is its own order-1 chunk. A line of the
/// freeing task itself between ends the run: two runs of two pages.
#[test]
fn a_contig_range_run_goes_on_through_other_tasks_and_interrupts() {
    let s = small_zone_of("v7.2");
    let head = |t: &mut String| {
        *t += "# tracer: nop\n";
        *t += &kline(
            "insmod-125",
            1,
            ".....",
            100,
            "mm_page_alloc: page=ffffea0000000000 pfn=0x100 order=2 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP",
        );
        *t += &kline("kworker/1:0-28", 1, ".....", 110, &alloc0(0x800));
        *t += &kline(
            "kworker/1:0-28",
            1,
            ".....",
            111,
            "mm_page_alloc: page=ffffea0000000000 pfn=0x200 order=1 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP",
        );
        *t += &kline("cat-99", 0, ".....", 120, &alloc0(0x900));
        *t += &kline("insmod-125", 1, ".l...", 200, &free0(0x100));
        *t += &kline("insmod-125", 1, ".....", 201, &free0(0x101));
    };
    let tail = |t: &mut String| {
        *t += &kline("insmod-125", 1, ".....", 210, &free0(0x102));
        *t += &kline("insmod-125", 1, ".....", 211, &free0(0x103));
        *t += &kline("insmod-125", 1, ".....", 400, &alloc0(0xa00));
    };
    let mut t = String::new();
    head(&mut t);
    t += &kline("kworker/1:0-28", 1, ".....", 202, &free0(0x800));
    t += &kline("cat-99", 0, ".....", 203, &free0(0x900));
    t += &kline("insmod-125", 1, "..s1.", 204, &alloc0(0x901));
    t += &kline("kworker/1:0-28", 1, ".....", 205, &free0(0x200));
    t += &kline("kworker/1:0-28", 1, ".....", 206, &free0(0x201));
    tail(&mut t);
    assert_eq!(
        movable_pcp(&s, &t),
        vec![(0, vec![0x800]), (1, vec![0x200]), (2, vec![0x100])]
    );
    // The freeing task's own line between: two runs of two pages, each one order-1 chunk
    // (0x100 and 0x102 are aligned to 2).
    let mut t = String::new();
    head(&mut t);
    t += &kline("insmod-125", 1, ".....", 202, &alloc0(0x901));
    tail(&mut t);
    assert_eq!(movable_pcp(&s, &t), vec![(1, vec![0x102, 0x100])]);
    // Two order-1 allocations (two areas, say two kernel stacks) freed one after the other,
    // ksoftirqd's line between (its softirq flag names another task: the first vfree's task
    // was switched out): pages of another allocation after another task's line start a new
    // run, two order-1 chunks; with no line between they would read as one run.
    let order1 = |pfn: u32| {
        format!("mm_page_alloc: page=ffffea0000000000 pfn={pfn:#x} order=1 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP")
    };
    let mut t = String::from("# tracer: nop\n");
    t += &kline("init-1", 1, ".....", 100, &order1(0x100));
    t += &kline("init-1", 1, ".....", 101, &alloc0(0x800));
    t += &kline("init-1", 1, ".....", 102, &order1(0x102));
    t += &kline("kworker/1:1-34", 1, ".....", 200, &free0(0x100));
    t += &kline("kworker/1:1-34", 1, ".....", 201, &free0(0x101));
    t += &kline("ksoftirqd/1-25", 1, "..s..", 202, &free0(0x800));
    t += &kline("kworker/1:1-34", 1, ".....", 203, &free0(0x102));
    t += &kline("kworker/1:1-34", 1, ".....", 204, &free0(0x103));
    t += &kline("init-1", 1, ".....", 400, &alloc0(0xa00));
    assert_eq!(
        movable_pcp(&s, &t),
        vec![(0, vec![0x800]), (1, vec![0x102, 0x100])]
    );
    // A run followed by another task's folio batch (its frees, then its mm_page_free_batched
    // commits) on the same CPU is still a run: the batch lines are that task's.
    let mut t = String::from("# tracer: nop\n");
    t += &kline("init-1", 1, ".....", 100, &order1(0x100));
    t += &kline("rm-932", 1, ".....", 101, &alloc0(0x800));
    t += &kline("kworker/1:1-34", 1, ".....", 200, &free0(0x100));
    t += &kline("kworker/1:1-34", 1, ".....", 201, &free0(0x101));
    t += &kline("rm-932", 1, ".....", 202, &free0(0x800));
    t += &kline(
        "rm-932",
        1,
        "...2.",
        203,
        "mm_page_free_batched: page=ffffea0000000000 pfn=0x800 order=0",
    );
    t += &kline("rm-932", 1, ".....", 400, &alloc0(0xa00));
    assert_eq!(
        movable_pcp(&s, &t),
        vec![(0, vec![0x800]), (1, vec![0x100])]
    );
}

/// vm_area_alloc_pages takes an area's large chunks in one loop, each of order
/// `min(max_attempt_order, ilog2(nr_remaining))` (v7.2.13 mm/vmalloc.c:3668-3710): within one
/// area the orders fall (order 2 then order 1 for 6 pages), so two split order-1 chunks are two
/// areas, each freed by its own `free_pages_bulk` (mm/vmalloc.c:3452-3465), even when their
/// pages are adjacent and traced back to back with nothing between. Two areas: chunks of order
/// 1 at 0x104 and 0x106 (0x104 is aligned to 4: one run would be one order-2 chunk). One area
/// of 6 pages, order 2 at 0x100 then order 1 at 0x104: one run, chunks order 2 and order 1.
#[test]
fn adjacent_vmalloc_chunks_of_one_order_are_two_areas() {
    let s = small_zone_of("v7.2");
    let alloc = |pfn: u32, order: u8| {
        format!("mm_page_alloc: page=ffffea0000000000 pfn={pfn:#x} order={order} migratetype=0 gfp_flags=GFP_NOWAIT|__GFP_HIGHMEM|__GFP_IO|__GFP_FS")
    };
    let trace = |chunks: &[(u32, u8)]| {
        let mut t = String::from("# tracer: nop\n");
        let mut ts = 100;
        for &(pfn, order) in chunks {
            t += &kline("insmod-133", 1, ".....", ts, &alloc(pfn, order));
            ts += 1;
        }
        for &(pfn, order) in chunks {
            for p in pfn..pfn + (1 << order) {
                t += &kline("rmmod-136", 1, ".....", ts + 100, &free0(p));
                ts += 1;
            }
        }
        t += &kline("insmod-133", 1, ".....", 900, &alloc0(0xa00));
        t
    };
    assert_eq!(
        movable_pcp(&s, &trace(&[(0x104, 1), (0x106, 1)])),
        vec![(1, vec![0x106, 0x104])]
    );
    assert_eq!(
        movable_pcp(&s, &trace(&[(0x100, 2), (0x104, 1)])),
        vec![(1, vec![0x104]), (2, vec![0x100])]
    );
}

/// Pages 0x100-0x103 (one order-2 allocation, split) are freed in softirq on CPU 0; the kernel
/// then takes the order-2 block at 0x100 from the buddy. Drains are traced and none came, so
/// the frees went straight to the buddy: `free_one_page` when `pcp_spin_trylock` fails (the
/// softirq interrupted a task holding CPU 0's pcp lock, which does not disable irqs; v7.2.13
/// mm/page_alloc.c `__free_frozen_pages` :2977-2985). The model moves them there (they merge
/// to the order-2 block) before the take: no divergence. With one page still allocated, the
/// take is a `not_free_in_buddy` divergence, as before.
#[test]
fn freed_pages_the_buddy_hands_out_went_straight_to_the_buddy() {
    let s = small_zone_of("v7.2");
    let trace = |freed: &[u32]| {
        let mut t = String::from("# tracer: nop\n");
        t += &kline(
            "insmod-125",
            0,
            ".....",
            100,
            "mm_page_alloc: page=ffffea0000000000 pfn=0x100 order=2 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE",
        );
        for (i, &pfn) in freed.iter().enumerate() {
            t += &kline("insmod-125", 0, "..s1.", 200 + i as u32, &free0(pfn));
        }
        t += &kline(
            "cat-99",
            0,
            "d..1.",
            300,
            "mm_page_alloc_zone_locked: page=ffffea0000000000 pfn=0x100 order=2 migratetype=1 percpu_refill=0",
        );
        t += &kline(
            "cat-99",
            0,
            ".....",
            301,
            "mm_page_alloc: page=ffffea0000000000 pfn=0x100 order=2 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE",
        );
        t
    };
    let rep = replay_text(
        &s,
        &trace(&[0x103, 0x101, 0x100, 0x102]),
        &ReplayOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(rep.tally.freed_straight_to_buddy, 4);
    let z = rep.run.final_node.active();
    assert!(z
        .pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0))
        .is_empty());
    let rep = replay_text(
        &s,
        &trace(&[0x103, 0x101, 0x100]),
        &ReplayOptions::default(),
    )
    .unwrap();
    let kinds: Vec<DivergenceKind> = rep.divergences.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        vec![
            DivergenceKind::NotFreeInBuddy,
            DivergenceKind::AllocOfAllocated
        ]
    );
    assert_eq!(rep.tally.freed_straight_to_buddy, 0);
}

/// dd-120 refills CPU 0's Movable list (`rmqueue_bulk`, under the pcp lock); a softirq on that
/// CPU, in dd-120's context, frees page 0x200 before dd-120's next line: `pcp_spin_trylock`
/// fails (the interrupted task holds the lock, which leaves irqs on) and `free_one_page`
/// puts the page in the buddy, not on the pcp (v7.2.13 mm/page_alloc.c
/// `__free_frozen_pages` :2977-2985). After dd-120's `mm_page_alloc` the lock is free: the
/// next softirq free, of 0x201, goes to the pcp. A drain among the interrupt's own lines
/// says the lock was free when it came. A drain among the interrupt's own lines
/// says the lock was free when it came.
#[test]
fn a_free_interrupting_a_refill_goes_straight_to_the_buddy() {
    let s = small_zone_of("v7.2");
    let mut t = String::from("# tracer: nop\n");
    t += &kline("init-1", 0, ".....", 1, &alloc0(0x200));
    t += &kline("init-1", 0, ".....", 2, &alloc0(0x201));
    t += &kline("dd-120", 0, "d..3.", 10, &refill(0x10));
    t += &kline("dd-120", 0, "..s3.", 11, &free0(0x200));
    t += &kline("dd-120", 0, ".....", 12, &alloc0(0x10));
    t += &kline("dd-120", 0, "..s1.", 13, &free0(0x201));
    let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(rep.tally.freed_straight_to_buddy, 1);
    let z = rep.run.final_node.active();
    assert_eq!(
        z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0)),
        vec![0x201]
    );
    assert!(matches!(z.block_containing(0x200), Some((_, _, false))));
    // The same, but the softirq's own lines drain the pcp (`free_pcppages_bulk`, under the
    // pcp lock): the task had dropped the lock, the free reached the pcp and was drained.
    let mut t = String::from("# tracer: nop\n");
    t += &kline("init-1", 0, ".....", 1, &alloc0(0x200));
    t += &kline("dd-120", 0, "d..3.", 10, &refill(0x10));
    t += &kline("dd-120", 0, ".Bs..", 11, &free0(0x200));
    t += &kline(
        "dd-120",
        0,
        "dBs3.",
        12,
        "mm_page_pcpu_drain: page=ffffea0000000000 pfn=0x200 order=0 migratetype=1",
    );
    t += &kline("dd-120", 0, ".....", 13, &alloc0(0x10));
    let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(rep.tally.freed_straight_to_buddy, 0);
}

/// rm-200 drains CPU 0's pcp (`free_pcppages_bulk`, under the pcp lock: its
/// `mm_page_pcpu_drain` lines); a softirq on that CPU, in rm-200's context, frees page 0x200
/// between two of its drain lines: `pcp_spin_trylock` fails and the page goes to the buddy
/// (v7.2.13 mm/page_alloc.c `__free_frozen_pages` :2977-2985; v6.12.117 `free_unref_page`
/// :2757-2764). So does 0x201, freed after the last drain line: the interrupt pending while
/// the zone lock kept irqs off comes in at its `spin_unlock_irqrestore`, inside
/// `free_pcppages_bulk` (v6.12.117 :1268; v7.2.13 :1475, a guard), and every caller drops the
/// pcp lock only after it returns (v6.12.117 `free_unref_page_commit` :2711-2712 then
/// `free_unref_page`'s `pcp_spin_unlock`; v7.2.13 `free_frozen_page_commit` :2886-2894, which
/// unlocks between batches only after `free_pcppages_bulk`). The same in `free_unref_folios`'
/// commit loop (its `mm_page_free_batched` lines first). After the task's next line a softirq
/// free reaches the pcp.
#[test]
fn a_free_interrupting_a_drain_goes_straight_to_the_buddy() {
    let drain = |pfn: u32| {
        format!("mm_page_pcpu_drain: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1")
    };
    let trace = |folio_batch: bool| {
        let mut t = String::from("# tracer: nop\n");
        for (us, pfn) in [(1, 0x300), (2, 0x301), (3, 0x200), (4, 0x201), (5, 0x400)] {
            t += &kline("init-1", 0, ".....", us, &alloc0(pfn));
        }
        // Descending, so not one contiguous range.
        t += &kline("init-1", 0, "...1.", 6, &free0(0x301));
        t += &kline("init-1", 0, "...1.", 7, &free0(0x300));
        if folio_batch {
            t += &kline("rm-200", 0, ".....", 8, &free0(0x400));
            t += &kline(
                "rm-200",
                0,
                "...2.",
                9,
                "mm_page_free_batched: page=ffffea0000000000 pfn=0x400 order=0",
            );
        }
        t += &kline("rm-200", 0, "d..3.", 10, &drain(0x301));
        t += &kline("rm-200", 0, "..s3.", 11, &free0(0x200));
        t += &kline("rm-200", 0, "d..3.", 12, &drain(0x300));
        // After the drain's last line: `free_pcppages_bulk` has not returned yet (the pending
        // interrupt came in at the zone lock's `spin_unlock_irqrestore`), the pcp lock is held.
        t += &kline("rm-200", 0, "..s3.", 13, &free0(0x201));
        t += &kline("rm-200", 0, ".....", 14, &alloc0(0x10));
        // The task's next line ended its hold: a later interrupt's free reaches the pcp.
        t += &kline("rm-200", 0, "..s1.", 15, &free0(0x10));
        t
    };
    for kernel in ["v6.12", "v7.2", "v7.3"] {
        let s = small_zone_of(kernel);
        for folio_batch in [false, true] {
            let rep = replay_text(&s, &trace(folio_batch), &ReplayOptions::default()).unwrap();
            assert_eq!(rep.divergence_count, 0, "{kernel}: {:#?}", rep.divergences);
            assert_eq!(
                rep.tally.freed_straight_to_buddy, 2,
                "{kernel} {folio_batch}"
            );
            let z = rep.run.final_node.active();
            for p in [0x200, 0x201] {
                assert!(
                    matches!(z.block_containing(p), Some((_, _, false))),
                    "{kernel} {folio_batch}: {p:#x}"
                );
            }
            assert_eq!(
                z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0)),
                if folio_batch {
                    vec![0x10, 0x400]
                } else {
                    vec![0x10]
                },
                "{kernel} {folio_batch}"
            );
        }
    }
}

/// `free_unref_folios`' commit loop holds the pcp lock of a zone from the trylock before its
/// first folio of that zone to the `pcp_spin_unlock` after the last: from one folio's
/// `trace_mm_page_free_batched` and `free_frozen_page_commit` (`free_unref_page_commit` on
/// 6.12) it goes to the next folio's without dropping it while the zone stays the same and the
/// commit does not drain (v7.3.4 mm/page_alloc.c :3060-3108; v7.2.13 :3041-3089; v6.12.117
/// :2812-2860). A softirq in rm-200's context frees 0x200 between its batch lines of 0x400 and
/// 0x401: `pcp_spin_trylock` fails, the page goes to the buddy. A softirq free after the
/// batch's last line, before the task's next line (the last commit may be followed by the
/// unlock), reaches the pcp, as before.
#[test]
fn a_free_interrupting_a_folio_batch_goes_straight_to_the_buddy() {
    let batched =
        |pfn: u32| format!("mm_page_free_batched: page=ffffea0000000000 pfn={pfn:#x} order=0");
    let mut t = String::from("# tracer: nop\n");
    for (us, pfn) in [(1, 0x200), (2, 0x201), (3, 0x401), (4, 0x400)] {
        t += &kline("init-1", 0, ".....", us, &alloc0(pfn));
    }
    // Descending, so not one contiguous range.
    t += &kline("rm-200", 0, ".....", 5, &free0(0x401));
    t += &kline("rm-200", 0, ".....", 6, &free0(0x400));
    t += &kline("rm-200", 0, "...2.", 7, &batched(0x401));
    t += &kline("rm-200", 0, "..s4.", 8, &free0(0x200));
    t += &kline("rm-200", 0, "...2.", 9, &batched(0x400));
    t += &kline("rm-200", 0, "..s2.", 10, &free0(0x201));
    t += &kline("rm-200", 0, ".....", 11, &alloc0(0x10));
    for kernel in ["v6.12", "v6.18", "v7.2", "v7.3"] {
        let s = small_zone_of(kernel);
        let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
        assert_eq!(rep.divergence_count, 0, "{kernel}: {:#?}", rep.divergences);
        assert_eq!(rep.tally.freed_straight_to_buddy, 1, "{kernel}");
        let z = rep.run.final_node.active();
        assert!(
            matches!(z.block_containing(0x200), Some((_, _, false))),
            "{kernel}"
        );
        assert_eq!(
            z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0)),
            vec![0x201, 0x400, 0x401],
            "{kernel}"
        );
    }
}

/// The lab's kprobe on `free_one_page` (lab/run.sh `--probe free_one_page`) writes a line for
/// every free that bypasses the pcp: the one path to the buddy of a pcp-order free that is not
/// an isolated pageblock is a failed `pcp_spin_trylock` (v6.12.117 mm/page_alloc.c
/// `free_unref_page` :2757-2764, `free_unref_folios` :2837-2842). On a probed trace the line
/// decides, not the inferences: dd-300's softirq free of 0x200 between two of its own frees
/// (the trylock window is untraced) went to the buddy, its probe line says so; rm-200's
/// softirq free of 0x201 after its drain line (row 32 would send it to the buddy) has no
/// probe line: it reached the pcp; so did the softirq free of 0x202 between two of rm-400's
/// `mm_page_free_batched` lines (row 37 would send it to the buddy). Without the probe lines
/// the same trace replays as before: 0x200 to the pcp, 0x201 and 0x202 to the buddy.
#[test]
fn a_free_one_page_probe_line_says_which_frees_went_to_the_buddy() {
    let probe = |pfn: u32| format!("free_one_page: (free_one_page+0x0/0x80) pfn={pfn:#x} order=0");
    let drain = |pfn: u32| {
        format!("mm_page_pcpu_drain: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1")
    };
    let batched =
        |pfn: u32| format!("mm_page_free_batched: page=ffffea0000000000 pfn={pfn:#x} order=0");
    let trace = |probed: bool| {
        let mut t = String::from("# tracer: nop\n");
        for (us, pfn) in [
            (1, 0x300),
            (2, 0x400),
            (3, 0x402),
            (4, 0x200),
            (5, 0x201),
            (6, 0x202),
            (7, 0x502),
            (8, 0x500),
        ] {
            t += &kline("init-1", 0, ".....", us, &alloc0(pfn));
        }
        t += &kline("init-1", 0, "...1.", 6, &free0(0x300));
        t += &kline("dd-300", 0, ".....", 7, &free0(0x400));
        t += &kline("dd-300", 0, "..s2.", 8, &free0(0x200));
        if probed {
            t += &kline("dd-300", 0, "..s2.", 9, &probe(0x200));
        }
        t += &kline("dd-300", 0, ".....", 10, &free0(0x402));
        t += &kline("rm-200", 0, "d..3.", 11, &drain(0x300));
        t += &kline("rm-200", 0, "..s3.", 12, &free0(0x201));
        t += &kline("rm-200", 0, ".....", 13, &alloc0(0x10));
        t += &kline("rm-400", 0, ".....", 14, &free0(0x502));
        t += &kline("rm-400", 0, ".....", 15, &free0(0x500));
        t += &kline("rm-400", 0, "...2.", 16, &batched(0x502));
        t += &kline("rm-400", 0, "..s4.", 17, &free0(0x202));
        t += &kline("rm-400", 0, "...2.", 18, &batched(0x500));
        t += &kline("rm-400", 0, ".....", 19, &alloc0(0x11));
        t
    };
    for kernel in ["v6.12", "v7.2", "v7.3"] {
        let s = small_zone_of(kernel);
        for probed in [true, false] {
            let rep = replay_text(&s, &trace(probed), &ReplayOptions::default()).unwrap();
            assert_eq!(
                rep.divergence_count, 0,
                "{kernel} {probed}: {:#?}",
                rep.divergences
            );
            let (buddy, pcp) = if probed {
                (vec![0x200], vec![0x201, 0x202])
            } else {
                (vec![0x201, 0x202], vec![0x200])
            };
            assert_eq!(
                rep.tally.freed_straight_to_buddy,
                buddy.len() as u64,
                "{kernel} {probed}"
            );
            let z = rep.run.final_node.active();
            for &b in &buddy {
                assert!(
                    matches!(z.block_containing(b), Some((_, _, false))),
                    "{kernel} {probed}: {b:#x}"
                );
            }
            let mut list = z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0));
            list.sort_unstable();
            let mut want = [pcp, vec![0x400, 0x402, 0x500, 0x502]].concat();
            want.sort_unstable();
            assert_eq!(list, want, "{kernel} {probed}");
        }
    }
}

/// The lab's pcp commit probe (`free_frozen_page_commit`, 6.12's `free_unref_page_commit`):
/// its lines come in the order the kernel put the pages on the pcp list. A task traces its
/// free (`__free_pages_prepare`) before it takes the pcp lock; a softirq that comes in
/// between frees two pages and commits them first, then the task commits its own, which lands
/// above them. The commit lines print the page pointer: the replay learns the `struct page`
/// array from the commits that follow their own free (here base 0xffffea0000100000, 64 bytes a
/// page; eight such pairs). Without the commit lines the list is in the order of the `mm_page_free` lines.
#[test]
fn a_pcp_commit_probe_line_puts_the_page_where_the_kernel_added_it() {
    let base = 0xffff_ea00_0010_0000u64;
    let commit = |name: &str, pfn: u64| commit0(name, base, pfn);
    let trace = |name: Option<&str>| {
        let mut t = String::from("# tracer: nop\n");
        let learn = [0x300, 0x301, 0x302, 0x303, 0x304, 0x305, 0x306, 0x308];
        let pfns = [&learn[..], &[0x400, 0x200, 0x201, 0x500]].concat();
        for (us, &pfn) in pfns.iter().enumerate() {
            t += &kline("init-1", 0, ".....", us as u32 + 1, &alloc0(pfn as u32));
        }
        let mut us = 10;
        let mut line = |t: &mut String, task: &str, cpu: u32, flags: &str, ev: String| {
            *t += &kline(task, cpu, flags, us, &ev);
            us += 1;
        };
        // eight frees, each right before its commit: the page array
        for pfn in learn {
            line(&mut t, "dd-300", 0, ".....", free0(pfn as u32));
            if let Some(n) = name {
                line(&mut t, "dd-300", 0, "...1.", commit(n, pfn));
            }
        }
        line(&mut t, "dd-300", 0, ".....", free0(0x400));
        for pfn in [0x200, 0x201] {
            line(&mut t, "dd-300", 0, "..s2.", free0(pfn as u32));
            if let Some(n) = name {
                line(&mut t, "dd-300", 0, "..s3.", commit(n, pfn));
            }
        }
        if let Some(n) = name {
            line(&mut t, "dd-300", 0, "...1.", commit(n, 0x400));
        }
        line(&mut t, "rm-400", 1, ".....", free0(0x500));
        if let Some(n) = name {
            line(&mut t, "rm-400", 1, "...1.", commit(n, 0x500));
        }
        // the next event line, which the commit lines before it are read with
        line(&mut t, "init-1", 1, ".....", alloc0(0x600));
        t
    };
    for (kernel, name) in COMMIT_PROBES {
        let s = small_zone_of(kernel);
        for probed in [true, false] {
            let rep = replay_text(
                &s,
                &trace(probed.then_some(name)),
                &ReplayOptions::default(),
            )
            .unwrap();
            assert_eq!(
                rep.divergence_count, 0,
                "{kernel} {probed}: {:#?}",
                rep.divergences
            );
            let z = rep.run.final_node.active();
            let list = z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0));
            let want: Vec<u32> = if probed {
                vec![0x400, 0x201, 0x200, 0x308, 0x306]
            } else {
                vec![0x201, 0x200, 0x400, 0x308, 0x306]
            };
            assert_eq!(&list[..want.len()], &want[..], "{kernel} {probed}");
            assert_eq!(
                z.pcp_list_pfns(1, order_to_pindex(MigrateType::Movable, 0))[0],
                0x500,
                "{kernel} {probed}"
            );
        }
    }
}

/// The lab's pcp commit probe alone (`lab/run.sh … --probes free_frozen_page_commit`): every
/// path that puts a freed page on a pcp list calls the probed function with the pcp lock held
/// (v7.2.13 mm/page_alloc.c `free_frozen_page_commit` :2832, called from `__free_frozen_pages`
/// :2979 and `free_unref_folios` :3081; v7.3.4 :2854 from :2998, :3100; v6.12.117
/// `free_unref_page_commit` :2673 from `free_unref_page` :2760 and `free_unref_folios` :2855),
/// so a pcp-order free with a commit line reached the pcp, at the head, in commit-line order,
/// and one without went to the buddy (`free_one_page` after `pcp_spin_trylock` failed).
/// dd-300 frees A (0x400; `trace_mm_page_free` in `__free_pages_prepare`, v7.2.13 :1326, no
/// lock held); a softirq comes in before its `pcp_spin_trylock` (:2977), frees C (0x200),
/// takes the lock and commits C; the task takes the lock and commits A, above C; a softirq
/// while the task holds the lock (inside the commit) frees B (0x202): its trylock fails, no
/// commit line, the buddy; then the task frees and commits D (0x402). Without the commit
/// lines nothing shows the task held the lock when B came (no refill, drain or batch line),
/// so B is put on the list, and the list follows the `mm_page_free` lines.
#[test]
fn a_pcp_commit_probe_alone_says_which_frees_reached_the_pcp() {
    let base = 0xffff_ea00_0010_0000u64;
    let commit = |name: &str, pfn: u64| commit0(name, base, pfn);
    let trace = |name: Option<&str>| {
        let mut t = String::from("# tracer: nop\n");
        let learn = [0x300, 0x301, 0x302, 0x303, 0x304, 0x305, 0x306, 0x308];
        let pfns = [&learn[..], &[0x400, 0x200, 0x202, 0x402, 0x500]].concat();
        for (us, &pfn) in pfns.iter().enumerate() {
            t += &kline("init-1", 0, ".....", us as u32 + 1, &alloc0(pfn as u32));
        }
        let mut us = 20;
        let mut line = |t: &mut String, task: &str, cpu: u32, flags: &str, ev: String| {
            *t += &kline(task, cpu, flags, us, &ev);
            us += 1;
        };
        let mut free = |t: &mut String, cpu: u32, task: &str, flags: &str, fl: &str, pfn: u64| {
            line(t, task, cpu, flags, free0(pfn as u32));
            if let Some(n) = name {
                line(t, task, cpu, fl, commit(n, pfn));
            }
        };
        // eight frees, each right before its commit: the page array
        for pfn in learn {
            free(&mut t, 0, "dd-300", ".....", "...1.", pfn);
        }
        line(&mut t, "dd-300", 0, ".....", free0(0x400));
        line(&mut t, "dd-300", 0, "..s2.", free0(0x200));
        if let Some(n) = name {
            line(&mut t, "dd-300", 0, "..s3.", commit(n, 0x200));
            line(&mut t, "dd-300", 0, "...1.", commit(n, 0x400));
        }
        line(&mut t, "dd-300", 0, "..s3.", free0(0x202));
        line(&mut t, "dd-300", 0, ".....", free0(0x402));
        if let Some(n) = name {
            line(&mut t, "dd-300", 0, "...1.", commit(n, 0x402));
        }
        line(&mut t, "rm-400", 1, ".....", free0(0x500));
        if let Some(n) = name {
            line(&mut t, "rm-400", 1, "...1.", commit(n, 0x500));
        }
        // the next event line, which the commit lines before it are read with
        line(&mut t, "init-1", 1, ".....", alloc0(0x600));
        t
    };
    for (kernel, name) in COMMIT_PROBES {
        let s = small_zone_of(kernel);
        for probed in [true, false] {
            let opts = ReplayOptions {
                pcp_commit_probed: probed,
                ..ReplayOptions::default()
            };
            let rep = replay_text(&s, &trace(probed.then_some(name)), &opts).unwrap();
            assert_eq!(
                rep.divergence_count, 0,
                "{kernel} {probed}: {:#?}",
                rep.divergences
            );
            let z = rep.run.final_node.active();
            let list = z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0));
            let want: Vec<u32> = if probed {
                vec![0x402, 0x400, 0x200, 0x308, 0x306]
            } else {
                vec![0x402, 0x202, 0x200, 0x400, 0x308]
            };
            assert_eq!(&list[..want.len()], &want[..], "{kernel} {probed}");
            assert_eq!(
                matches!(z.block_containing(0x202), Some((_, _, false))),
                probed,
                "{kernel} {probed}: 0x202 in the buddy"
            );
            assert_eq!(
                rep.tally.freed_straight_to_buddy,
                u64::from(probed),
                "{kernel} {probed}"
            );
            assert_eq!(
                z.pcp_list_pfns(1, order_to_pindex(MigrateType::Movable, 0))[0],
                0x500,
                "{kernel} {probed}"
            );
        }
    }
}

/// Kprobes do not nest: a hit while another kprobe's handler runs on the CPU is counted
/// missed, not traced (`kprobe_ftrace_handler`, arch/x86/kernel/kprobes/ftrace.c:
/// `kprobe_running()` → `kprobes_inc_nmissed_count`). A softirq that comes while rm-200 runs
/// the commit probe's handler for a DMA32 page finds DMA32's pcp lock held (the commit runs
/// under it, v7.2.13 mm/page_alloc.c `free_unref_folios` :3079-3081, `__free_frozen_pages`
/// :2977-2979): its free of a DMA32 page fails `pcp_spin_trylock` and goes to `free_one_page`
/// (0x1200), its frees of Normal pages take Normal's lock and commit, their hits missed
/// (0x100200, 0x100202 after the task's commit line; 0x100204 before it, the line written
/// after the interrupt). With the commit probe they are read by the zone of the interrupted
/// task's commit line next to them: Normal's pages reached the pcp, DMA32's the buddy.
#[test]
fn an_interrupt_inside_the_commit_probes_handler_is_a_missed_commit_in_another_zone() {
    let base = 0xffff_ea00_0000_0000u64;
    let commit = |name: &str, pfn: u32| commit0(name, base, u64::from(pfn));
    let batched =
        |pfn: u32| format!("mm_page_free_batched: page=ffffea0000000000 pfn={pfn:#x} order=0");
    for (kernel, name) in COMMIT_PROBES {
        let s = scenario::parse(&format!(
            r#"{{"version": 1, "kernel": "{kernel}",
  "zones": [{{"name": "DMA32", "start_pfn": 4096, "pages": 4096, "cpus": 2}},
            {{"name": "Normal", "start_pfn": 1048576, "pages": 4096, "cpus": 2}}]}}"#
        ))
        .unwrap();
        let learn = [
            0x1300, 0x1301, 0x1302, 0x1303, 0x1304, 0x1305, 0x1306, 0x1308,
        ];
        let mut t = String::from("# tracer: nop\n");
        let mut us = 1;
        let mut line = |t: &mut String, task: &str, flags: &str, ev: String| {
            *t += &kline(task, 0, flags, us, &ev);
            us += 1;
        };
        for pfn in learn
            .into_iter()
            .chain([0x1500, 0x1402, 0x1400, 0x1200, 0x100200, 0x100202, 0x100204])
        {
            line(&mut t, "init-1", ".....", alloc0(pfn));
        }
        // eight frees, each right before its commit: the page array
        for pfn in learn {
            line(&mut t, "rm-200", ".....", free0(pfn));
            line(&mut t, "rm-200", "...1.", commit(name, pfn));
        }
        line(&mut t, "rm-200", ".....", free0(0x1500));
        line(&mut t, "rm-200", "..s3.", free0(0x100204));
        line(&mut t, "rm-200", "...1.", commit(name, 0x1500));
        // a folio batch: both frees traced, then each folio's batch line and commit
        line(&mut t, "rm-200", ".....", free0(0x1402));
        line(&mut t, "rm-200", ".....", free0(0x1400));
        line(&mut t, "rm-200", "...2.", batched(0x1402));
        line(&mut t, "rm-200", "...2.", commit(name, 0x1402));
        line(&mut t, "rm-200", "..s4.", free0(0x100200));
        line(&mut t, "rm-200", "..s4.", free0(0x1200));
        line(&mut t, "rm-200", "..s4.", free0(0x100202));
        line(&mut t, "rm-200", "...2.", batched(0x1400));
        line(&mut t, "rm-200", "...2.", commit(name, 0x1400));
        line(&mut t, "rm-200", ".....", alloc0(0x100010));
        let opts = ReplayOptions {
            pcp_commit_probed: true,
            ..ReplayOptions::default()
        };
        let rep = replay_text(&s, &t, &opts).unwrap();
        assert_eq!(rep.divergence_count, 0, "{kernel}: {:#?}", rep.divergences);
        assert_eq!(rep.tally.freed_straight_to_buddy, 1, "{kernel}");
        let pindex = order_to_pindex(MigrateType::Movable, 0);
        let zones = rep.run.final_node.zones();
        let (dma32, normal) = (&zones[0], &zones[1]);
        let list = |z: &buddyscope::mm::Zone| -> Vec<u64> {
            z.pcp_list_pfns(0, pindex)
                .into_iter()
                .map(|p| z.abs_pfn(p))
                .collect()
        };
        assert_eq!(list(normal), vec![0x100202, 0x100200, 0x100204], "{kernel}");
        assert_eq!(list(dma32)[..3], [0x1400, 0x1402, 0x1500], "{kernel}");
        assert!(
            matches!(dma32.block_containing(0x200), Some((_, _, false))),
            "{kernel}: 0x1200 in the buddy"
        );
    }
}

/// `ReplayOptions::free_one_page_probed` (set by `buddyscope replay` when the trace file has a
/// probe line anywhere): the probe lines decide from the first line on, so frees before the
/// first probe line are not inferred either. The trace of the test above without its probe
/// lines, replayed as probed: no free went to the buddy, 0x200, 0x201 and 0x202 are on the pcp.
#[test]
fn a_probed_trace_is_read_as_one_from_its_first_line() {
    let drain = |pfn: u32| {
        format!("mm_page_pcpu_drain: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1")
    };
    let batched =
        |pfn: u32| format!("mm_page_free_batched: page=ffffea0000000000 pfn={pfn:#x} order=0");
    let mut t = String::from("# tracer: nop\n");
    for (us, pfn) in [
        (1, 0x300),
        (2, 0x200),
        (3, 0x201),
        (4, 0x202),
        (5, 0x502),
        (6, 0x500),
    ] {
        t += &kline("init-1", 0, ".....", us, &alloc0(pfn));
    }
    t += &kline("init-1", 0, "...1.", 7, &free0(0x300));
    t += &kline("rm-200", 0, "d..3.", 8, &drain(0x300));
    t += &kline("rm-200", 0, "..s3.", 9, &free0(0x201));
    t += &kline("rm-200", 0, ".....", 10, &alloc0(0x10));
    t += &kline("rm-400", 0, ".....", 11, &free0(0x502));
    t += &kline("rm-400", 0, ".....", 12, &free0(0x500));
    t += &kline("rm-400", 0, "...2.", 13, &batched(0x502));
    t += &kline("rm-400", 0, "..s4.", 14, &free0(0x202));
    t += &kline("rm-400", 0, "...2.", 15, &batched(0x500));
    t += &kline("rm-400", 0, ".....", 16, &alloc0(0x11));
    for kernel in ["v6.12", "v7.3"] {
        let s = small_zone_of(kernel);
        for probed in [false, true] {
            let opts = ReplayOptions {
                free_one_page_probed: probed,
                ..ReplayOptions::default()
            };
            let rep = replay_text(&s, &t, &opts).unwrap();
            assert_eq!(rep.divergence_count, 0, "{kernel} {probed}");
            assert_eq!(
                rep.tally.freed_straight_to_buddy,
                if probed { 0 } else { 2 },
                "{kernel} {probed}"
            );
            let z = rep.run.final_node.active();
            let mut list = z.pcp_list_pfns(0, order_to_pindex(MigrateType::Movable, 0));
            list.sort_unstable();
            let want = if probed {
                vec![0x201, 0x202, 0x500, 0x502]
            } else {
                vec![0x500, 0x502]
            };
            assert_eq!(list, want, "{kernel} {probed}");
        }
    }
}

/// The pcp lock a drain holds is its zone's (`pcp_spin_trylock(zone->per_cpu_pageset)`, the
/// zone of the page freed): an interrupt's free of a page of another zone takes that zone's
/// pcp lock and reaches its pcp list. On the lab's fragment captures every such free whose
/// fate later lines show reached the pcp (88 on 7.2.13, 50 on 7.3.4), every free of the
/// drained zone the buddy.
#[test]
fn a_drain_holds_only_its_own_zones_pcp_lock() {
    let s = scenario::parse(
        r#"{"version": 1, "kernel": "v6.12",
  "zones": [{"name": "DMA32", "start_pfn": 4096, "pages": 4096, "cpus": 2},
            {"name": "Normal", "start_pfn": 1048576, "pages": 4096, "cpus": 2}]}"#,
    )
    .unwrap();
    let (low, high) = (0x1200u32, 0x100200u32);
    let drain = |pfn: u32| {
        format!("mm_page_pcpu_drain: page=ffffea0000000000 pfn={pfn:#x} order=0 migratetype=1")
    };
    let mut t = String::from("# tracer: nop\n");
    for (us, pfn) in [(1, 0x100300), (2, high), (3, low)] {
        t += &kline("init-1", 0, ".....", us, &alloc0(pfn));
    }
    t += &kline("init-1", 0, "...1.", 4, &free0(0x100300));
    t += &kline("rm-200", 0, "d..3.", 5, &drain(0x100300));
    t += &kline("rm-200", 0, "..s3.", 6, &free0(low));
    t += &kline("rm-200", 0, "..s3.", 7, &free0(high));
    t += &kline("rm-200", 0, ".....", 8, &alloc0(0x100010));
    let rep = replay_text(&s, &t, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:#?}", rep.divergences);
    assert_eq!(rep.tally.freed_straight_to_buddy, 1);
    let pindex = order_to_pindex(MigrateType::Movable, 0);
    let zones = rep.run.final_node.zones();
    let (dma32, normal) = (&zones[0], &zones[1]);
    assert_eq!(
        dma32
            .pcp_list_pfns(0, pindex)
            .into_iter()
            .map(|p| dma32.abs_pfn(p))
            .collect::<Vec<_>>(),
        vec![u64::from(low)]
    );
    assert!(normal.pcp_list_pfns(0, pindex).is_empty());
    let p = (u64::from(high) - 0x100000) as u32;
    assert!(matches!(normal.block_containing(p), Some((_, _, false))));
}
