//! `replay --predict`: the model's own choice at every `mm_page_alloc`, scored against the
//! trace's.

use buddyscope::{
    explain,
    run::{
        replay::{replay_text, Cause, PredictReport, ReplayOptions},
        Run, Runner,
    },
    scenario::{self, builtin, Scenario, ValidScenario},
};

/// The recorded run of `s`.
fn run(s: &Scenario) -> Run {
    Runner::new(ValidScenario::new(s.clone()).unwrap())
        .run()
        .unwrap()
}

fn predicting() -> ReplayOptions {
    ReplayOptions {
        record: false,
        predict: true,
        ..ReplayOptions::default()
    }
}

fn predict(s: &scenario::Scenario, trace: &str) -> (PredictReport, u64) {
    let r = replay_text(s, trace, &predicting()).unwrap();
    (r.predict.expect("predicting"), r.divergence_count)
}

fn allocs(trace: &str) -> u64 {
    trace
        .lines()
        .filter(|l| l.contains("mm_page_alloc:"))
        .count() as u64
}

/// A trace the model printed itself, predicted from the same scenario: every allocation exact,
/// for every built-in and both sides of its compare pair.
#[test]
fn every_builtin_predicts_its_own_trace_exactly() {
    let mut failed = Vec::new();
    let mut predicted = 0;
    let mut runs = Vec::new();
    for b in builtin::ALL {
        let s = scenario::parse(b.json()).unwrap();
        if let Some(c) = &s.compare {
            for side in [&c.a, &c.b] {
                runs.push((format!("{} ({})", b.id, side.label), side.apply(&s)));
            }
        }
        runs.push((b.id.to_string(), s));
    }
    for (id, s) in &runs {
        let r = run(s);
        let trace = explain::trace_text(&r);
        let (p, divergences) = predict(s, &trace);
        predicted += p.allocations;
        if p.allocations != allocs(&trace)
            || p.exact != p.allocations
            || p.same_order_and_list != p.allocations
            || p.miss_count != 0
            || divergences != 0
        {
            failed.push(format!(
                "{id}: {} of {} exact, {divergences} divergences, first miss {:?}",
                p.exact,
                p.allocations,
                p.misses.first()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(predicted > 5000, "{predicted}");
}

/// The counts add up: every miss has one cause, the list is capped and the counts are not.
fn consistent(p: &PredictReport) {
    assert_eq!(p.exact + p.miss_count, p.allocations);
    assert_eq!(
        p.by_cause.iter().map(|c| c.count).sum::<u64>(),
        p.miss_count
    );
    assert!(p.same_order_and_list >= p.exact && p.same_order_and_list <= p.allocations);
    let list_order: u64 = p
        .by_cause
        .iter()
        .filter(|c| c.cause.same_order_and_list())
        .map(|c| c.count)
        .sum();
    assert_eq!(p.same_order_and_list, p.exact + list_order);
    assert!(p.by_cause.windows(2).all(|w| w[0].count >= w[1].count));
    for m in &p.misses {
        assert_ne!(m.want_pfn, m.got_pfn, "{m}");
    }
}

/// The trace of one machine predicted by another: misses, each with its cause. Higher
/// watermarks (`min_free_kbytes`) make the model refuse what the kernel took; a larger zone
/// boots its free lists elsewhere.
#[test]
fn another_profile_predicts_worse_with_classified_misses() {
    let s = scenario::parse(builtin::get("fragmented-sandbox").unwrap().json()).unwrap();
    let r = run(&s);
    let trace = explain::trace_text(&r);
    let (own, _) = predict(&s, &trace);
    assert_eq!(own.exact, own.allocations);

    let mut high_wmark = s.clone();
    high_wmark.zone.min_free_kbytes = Some(20_000);
    let (p, _) = predict(&high_wmark, &trace);
    consistent(&p);
    assert_eq!(p.allocations, own.allocations);
    assert!(p.exact < own.exact, "{} of {}", p.exact, p.allocations);
    let watermark = p
        .by_cause
        .iter()
        .find(|c| c.cause == Cause::ModelWatermark)
        .expect("the model's watermark check refuses");
    assert_eq!(watermark.kernel_fn, "zone_watermark_fast");
    let m = p
        .misses
        .iter()
        .find(|m| m.cause == Cause::ModelWatermark)
        .unwrap();
    assert!(m.want_pfn.is_some() && m.got_pfn.is_none(), "{m}");

    let mut larger = s.clone();
    larger.zone.pages = Some(16384);
    let (p, _) = predict(&larger, &trace);
    consistent(&p);
    assert!(p.exact < own.exact, "{} of {}", p.exact, p.allocations);
    assert!(p.by_cause.iter().all(|c| c.count > 0));

    // The list is capped, the counts are not.
    let capped = ReplayOptions {
        max_listed: 3,
        ..predicting()
    };
    let q = replay_text(&larger, &trace, &capped)
        .unwrap()
        .predict
        .unwrap();
    assert_eq!(q.misses.len(), 3);
    assert_eq!((q.miss_count, q.exact), (p.miss_count, p.exact));
}

/// A kernel-style trace (`[cpu]` and timestamp columns) whose CPUs' lines are interleaved out
/// of time order replays and predicts exactly as the time-ordered one: the replay applies
/// lines in timestamp order, and each line on its CPU.
#[test]
fn lines_out_of_time_order_are_sorted_and_each_cpu_keeps_its_pcp() {
    let s = scenario::parse(builtin::get("pcp-overflow-2cpu").unwrap().json()).unwrap();
    let r = run(&s);
    let own = explain::trace_text(&r);
    // As ftrace prints it: the engine's `# on CPU N` lines become the `[cpu]` column.
    let mut cpu = 0;
    let mut lines = Vec::new();
    for l in own.lines() {
        if let Some(c) = l.strip_prefix("# on CPU ") {
            cpu = c.parse().unwrap();
        } else if l.starts_with("mm_") {
            let t = lines.len() + 1;
            lines.push(format!(
                "     worker-{cpu}    [{cpu:03}] d..1.  {}.{:06}: {l}",
                t / 1_000_000,
                t % 1_000_000
            ));
        }
    }
    assert!(lines.iter().any(|l| l.contains("[001]")));
    let ordered = lines.join("\n");
    // Swap neighbours in pairs: every second line now comes before its predecessor.
    let mut shuffled = lines.clone();
    for pair in shuffled.chunks_mut(2) {
        pair.reverse();
    }
    let shuffled = shuffled.join("\n");
    let a = replay_text(&s, &ordered, &predicting()).unwrap();
    let b = replay_text(&s, &shuffled, &predicting()).unwrap();
    assert_eq!((a.divergence_count, a.reordered_lines), (0, 0));
    assert_eq!(b.divergence_count, 0, "{:?}", b.divergences.first());
    assert_eq!(b.reordered_lines, lines.len() as u64 / 2);
    assert_eq!(b.late_lines, 0);
    let (pa, pb) = (a.predict.unwrap(), b.predict.unwrap());
    assert_eq!(pa.exact, pa.allocations);
    assert_eq!(pb, pa);
    // Both end on the run's pcp lists, CPU by CPU.
    for z in [a.run.final_node.active(), b.run.final_node.active()] {
        for c in 0..2 {
            for pi in 0..buddyscope::mm::NR_PCP_LISTS {
                assert_eq!(
                    z.pcp_list_pfns(c, pi).len(),
                    r.final_node.active().pcp_list_pfns(c, pi).len(),
                    "CPU {c} list {pi}"
                );
            }
        }
    }
}
