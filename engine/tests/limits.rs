//! Bounded work: the static estimate matches what runs, counters-only runs end where
//! recorded runs end, progress and cancellation, the event cap, and the memory a run reports.

use std::ops::ControlFlow;

use buddyscope::{
    explain::report,
    run::{
        self, estimate, Limits, Run, RunOptions, Runner, COUNTERS_ONLY_KEPT_OPS, PROGRESS_EVERY,
    },
    scenario::{builtin, parse_valid, procfs, ValidScenario},
};

fn recorded() -> RunOptions {
    RunOptions {
        record: true,
        checkpoint_budget: 16 << 20,
        max_ops: None,
    }
}

/// A recorded run, unbounded.
fn execute(s: ValidScenario) -> Run {
    Runner::new(s).options(&recorded()).run().unwrap()
}

/// A counters-only run under the default limits.
fn counters_only(s: ValidScenario) -> Run {
    Runner::new(s)
        .options(&recorded())
        .limits(Limits::default())
        .counters_only()
        .run()
        .unwrap()
}

#[test]
fn the_estimate_counts_exactly_the_ops_every_builtin_runs() {
    for b in builtin::ALL {
        let s = parse_valid(b.json()).unwrap();
        let cost = estimate(&s);
        let run = execute(s);
        assert_eq!(cost.ops, run.ops.len() as u128, "{}", b.id);
        assert!(cost.pages_touched > 0, "{}", b.id);
        // Every built-in runs recorded under the default recorded limits.
        assert!(
            run::check_limits(&cost, &Limits::recorded()).is_ok(),
            "{}",
            b.id
        );
    }
}

#[test]
fn counters_only_ends_in_the_state_and_counters_of_a_recorded_run() {
    for b in builtin::ALL {
        let s = parse_valid(b.json()).unwrap();
        let rec = execute(s.clone());
        let fast = counters_only(s);
        assert!(fast.log.events.is_empty(), "{}", b.id);
        assert_eq!(fast.checkpoints.len(), 1, "{}", b.id);
        assert_eq!(fast.final_node, rec.final_node, "{}", b.id);
        assert_eq!(fast.stats, rec.stats, "{}", b.id);
        assert_eq!(
            procfs::pagetypeinfo(&fast.final_node),
            procfs::pagetypeinfo(&rec.final_node),
            "{}",
            b.id
        );
        // The summary (totals, first and last ops, metrics) is the recorded run's.
        assert_eq!(report::summary(&fast), report::summary(&rec), "{}", b.id);
        assert_eq!(
            fast.ops.len() as u64 + fast.ops_omitted,
            rec.ops.len() as u64,
            "{}",
            b.id
        );
        assert!(fast.ops.len() <= 2 * COUNTERS_ONLY_KEPT_OPS, "{}", b.id);
    }
}

/// 100 iterations of the seed's THP loop: 300 ops.
fn thp_loop(times: u64) -> String {
    format!(
        r#"{{"version": 1, "kernel": "v7.1", "ops": [{{"op": "repeat", "times": {times}, "ops": [
            {{"op": "alloc", "order": 9, "mt": "unmovable", "as": "thp"}},
            {{"op": "split", "ref": "thp"}},
            {{"op": "free_contig_range", "ref": "thp"}}]}}]}}"#
    )
}

#[test]
fn a_long_counters_only_run_keeps_the_first_and_last_op_records() {
    let s = parse_valid(&thp_loop(100)).unwrap();
    let rec = execute(s.clone());
    let fast = counters_only(s);
    let k = COUNTERS_ONLY_KEPT_OPS;
    assert_eq!(fast.ops.len(), 2 * k);
    assert_eq!(fast.ops_omitted, 300 - 2 * k as u64);
    assert_eq!(
        fast.ops[..k],
        rec.ops[..k]
            .iter()
            .map(|o| {
                let mut o = o.clone();
                (o.start, o.end) = (0, 0);
                o
            })
            .collect::<Vec<_>>()[..]
    );
    assert_eq!(fast.ops[k].cost, rec.ops[300 - k].cost);
    assert_eq!(fast.ops[2 * k - 1].cost, rec.ops[299].cost);
    assert_eq!(report::summary(&fast), report::summary(&rec));
    // The JSON says how many it left out.
    assert!(report::json(&fast).contains(&format!("\"ops_omitted\": {}", 300 - 2 * k)));
    assert!(!report::json(&rec).contains("ops_omitted"));
}

#[test]
fn ten_to_the_eighteen_ops_are_refused_before_anything_runs() {
    let doc = r#"{"version": 1, "ops": [{"op": "repeat", "times": 1000000, "ops": [
        {"op": "repeat", "times": 1000000, "ops": [
        {"op": "repeat", "times": 1000000, "ops": [{"op": "alloc", "order": 0}]}]}]}]}"#;
    let s = parse_valid(doc).unwrap();
    assert_eq!(estimate(&s).ops, 1_000_000_000_000_000_000);
    let mut called = false;
    let mut progress = |_: u64, _: u64| {
        called = true;
        ControlFlow::Continue(())
    };
    for counters_only in [false, true] {
        let runner = Runner::new(s.clone()).options(&recorded());
        let e = if counters_only {
            runner
                .limits(Limits::default())
                .counters_only()
                .progress(&mut progress)
                .run()
        } else {
            runner
                .limits(Limits::recorded())
                .progress(&mut progress)
                .run()
        }
        .unwrap_err();
        assert!(e.message.contains("1000000000000000000 operations"), "{e}");
        assert!(e.message.contains("the limit is"), "{e}");
    }
    assert!(!called);
}

#[test]
fn progress_is_reported_and_a_break_cancels_with_an_error() {
    let s = parse_valid(
        r#"{"version": 1, "ops": [{"op": "repeat", "times": 3000, "ops": [
            {"op": "alloc", "order": 0, "as": "p"}, {"op": "free", "ref": "p"}]}]}"#,
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut progress = |done: u64, total: u64| {
        seen.push((done, total));
        ControlFlow::Continue(())
    };
    let run = Runner::new(s.clone())
        .options(&recorded())
        .limits(Limits::recorded())
        .progress(&mut progress)
        .run()
        .unwrap();
    assert_eq!(run.ops.len(), 6000);
    let want: Vec<(u64, u64)> = (1..=6000 / PROGRESS_EVERY)
        .map(|i| (i * PROGRESS_EVERY, 6000))
        .collect();
    assert_eq!(seen, want);

    let mut calls = 0;
    let mut cancel = |_: u64, _: u64| {
        calls += 1;
        if calls == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let e = Runner::new(s)
        .options(&recorded())
        .limits(Limits::recorded())
        .progress(&mut cancel)
        .run()
        .unwrap_err();
    assert!(run::is_cancelled(&e), "{e}");
    assert_eq!(
        e.message,
        format!(
            "run cancelled after {} of 6000 operations",
            2 * PROGRESS_EVERY
        )
    );
}

#[test]
fn a_recorded_run_stops_at_the_event_cap() {
    let s = parse_valid(&thp_loop(100)).unwrap();
    let limits = Limits {
        max_events: 10_000,
        ..Limits::recorded()
    };
    let e = Runner::new(s.clone())
        .options(&recorded())
        .limits(limits)
        .run()
        .unwrap_err();
    assert_eq!(e.path, run::EVENT_CAP_PATH);
    assert!(e.message.contains("over the cap of 10000 events"), "{e}");
    assert!(e.hint.contains("--no-trace"), "{e}");
    // Counters only records nothing: the cap does not apply.
    assert!(Runner::new(s)
        .options(&recorded())
        .limits(limits)
        .counters_only()
        .run()
        .is_ok());
}

#[test]
fn memory_bytes_counts_the_trace_and_the_checkpoints() {
    let s = parse_valid(builtin::get("free-contig-range-thp").unwrap().json()).unwrap();
    let rec = execute(s.clone());
    let fast = counters_only(s);
    // 16 bytes an event, 2 a call or lock (`Trace`), and never more than EVENT_BYTES an event
    // with the bitmap and the vectors' spare capacity counted.
    let events = rec.log.events.min_bytes();
    assert!(rec.log.events.coded_count() > 0);
    assert!(rec.trace_bytes() >= events);
    assert!(rec.log.events.heap_bytes() <= 2 * rec.log.events.len() * run::EVENT_BYTES);
    assert!(rec.memory_bytes() > rec.trace_bytes());
    // Two zones of 262144 pages at ≥ 16 bytes a page at least.
    assert!(fast.memory_bytes() >= 2 * 262_144 * 16);
    assert!(fast.memory_bytes() < rec.memory_bytes());
    assert_eq!(fast.trace_bytes(), 0);
}

fn cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_buddyscope"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run refused for its arguments exits before reading its input: the write may then meet
    // a closed pipe, which is not the test's failure (the exit code and stderr say what it is).
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const HUGE: &str = r#"{"version": 1, "ops": [{"op": "repeat", "times": 1000000, "ops": [
    {"op": "repeat", "times": 1000000, "ops": [
    {"op": "repeat", "times": 1000000, "ops": [{"op": "alloc", "order": 0}]}]}]}]}"#;

#[test]
fn cli_check_prints_the_cost_and_check_and_run_refuse_ten_to_the_eighteen() {
    let (code, out, _) = cli(&["check", "-"], &thp_loop(100));
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "-: expands to 300 operations, 153600 pages touched (limit 10000000 operations)"
        ),
        "{out}"
    );
    for args in [
        &["check", "-"][..],
        &["run", "-"][..],
        &["run", "-", "--no-trace"][..],
        &["run", "-", "--format", "trace"][..],
    ] {
        let (code, out, err) = cli(args, HUGE);
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains("expands to 1000000000000000000 operations"),
            "{args:?}: {err}"
        );
        assert!(err.contains("--max-ops"), "{args:?}: {err}");
    }
    // --max-ops lowers or raises the limit.
    let (code, _, err) = cli(&["run", "-", "--max-ops", "299"], &thp_loop(100));
    assert_ne!(code, 0);
    assert!(err.contains("the limit is 299 operations"), "{err}");
    let (code, _, _) = cli(&["check", "-", "--max-ops", "300"], &thp_loop(100));
    assert_eq!(code, 0);
}

#[test]
fn cli_no_trace_prints_the_recorded_runs_summary_and_proc_files() {
    let doc = thp_loop(40);
    for format in ["summary", "pagetypeinfo", "zoneinfo", "buddyinfo"] {
        let (c1, full, _) = cli(&["run", "-", "--format", format], &doc);
        let (c2, fast, _) = cli(&["run", "-", "--format", format, "--no-trace"], &doc);
        assert_eq!((c1, c2), (0, 0));
        assert_eq!(full, fast, "{format}");
    }
    let (_, json, _) = cli(&["run", "-", "--format", "json", "--counters-only"], &doc);
    assert!(json.contains("\"ops_omitted\": 60"), "{json}");
    let (code, _, err) = cli(&["run", "-", "--format", "trace", "--no-trace"], &doc);
    assert_ne!(code, 0);
    assert!(err.contains("drop --no-trace"), "{err}");
}

#[test]
fn the_full_size_seed_benchmarks_fit_the_counters_only_limit() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/bench");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let s = parse_valid(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let cost = estimate(&s);
        assert!(
            run::check_limits(&cost, &Limits::default()).is_ok(),
            "{}: {cost}",
            path.display()
        );
        // Full size: more than a recorded run is allowed to hold op records for, or a zone a
        // built-in does not have.
        assert!(cost.ops >= 2000, "{}: {cost}", path.display());
        assert!(s.compare.as_ref().is_some_and(|c| c.measured.is_some()));
        // Not offered by the app as a built-in.
        assert!(builtin::ALL.iter().all(|b| b.json() != text));
        n += 1;
    }
    assert!(n >= 4);
}
