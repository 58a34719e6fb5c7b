//! The `buddyscope` CLI contract: formats, exit codes, error messages.

use std::io::Write;
use std::process::{Command, Stdio};

fn cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_buddyscope"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command refused for its arguments exits before reading its input: the write may then
    // meet a closed pipe, which is not the test's failure (the exit code and stderr say it).
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

#[test]
fn malformed_scenario_names_the_op_and_field() {
    let doc = r#"{"version":1,"ops":[{"op":"alloc","order":0},{"op":"alloc","order":11}]}"#;
    let (code, out, err) = cli(&["run", "-", "--format", "buddyinfo"], doc);
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("ops[1].order"), "{err}");
    let (code, _, err) = cli(
        &["check", "-"],
        r#"{"version":1,"ops":[{"op":"free","ref":"nope"}]}"#,
    );
    assert_ne!(code, 0);
    assert!(err.contains("ops[0].ref"), "{err}");
    let (code, _, err) = cli(
        &["run", "-"],
        r#"{"version":1,"ops":[{"op":"alloc","order":1,"colour":2}]}"#,
    );
    assert_ne!(code, 0);
    assert!(err.contains("colour"), "{err}");
}

#[test]
fn buddyinfo_of_a_fresh_zone() {
    let (code, out, _) = cli(&["run", "-", "--format", "buddyinfo"], r#"{"version":1}"#);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Node 0, zone   Normal      0      0      0      0      0      0      0      0      0      0    256 \n"
    );
}

#[test]
fn trace_of_one_allocation_in_kernel_format() {
    let doc = r#"{"version":1,"kernel":"v7.1","ops":[{"op":"alloc","order":0,"note":"hello"}]}"#;
    let (code, out, _) = cli(&["run", "-", "--format", "trace"], doc);
    assert_eq!(code, 0);
    let kernel: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(out.lines().any(|l| l == "# note: hello"), "{out}");
    assert_eq!(
        kernel.first().copied(),
        Some("mm_page_alloc_extfrag: page=ffffea0000000000 pfn=0x0 alloc_order=0 fallback_order=10 pageblock_order=9 alloc_migratetype=0 fallback_migratetype=1 fragmenting=0 change_ownership=1")
    );
    assert_eq!(kernel.len(), 1 + 62 + 1, "{out}");
    assert_eq!(
        kernel.last().copied(),
        Some("mm_page_alloc: page=ffffea0000000000 pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_KERNEL")
    );
    assert_eq!(
        kernel[1],
        "mm_page_alloc_zone_locked: page=ffffea0000000040 pfn=0x1 order=0 migratetype=0 percpu_refill=1"
    );
}

#[test]
fn every_builtin_runs_through_the_cli() {
    let (code, list, _) = cli(&["builtin"], "");
    assert_eq!(code, 0);
    for line in list.lines() {
        let id = line.split_whitespace().next().unwrap();
        let (code, json, _) = cli(&["builtin", id], "");
        assert_eq!(code, 0);
        for fmt in ["buddyinfo", "pagetypeinfo", "zoneinfo", "summary", "json"] {
            let (code, out, err) = cli(&["run", "-", "--format", fmt], &json);
            assert_eq!(code, 0, "{id} {fmt}: {err}");
            assert!(!out.is_empty());
        }
    }
}

/// `run --kernel v6.12|v7.3` runs every built-in with that profile (the zoneinfo says which:
/// 6.12's pcp lines have no `high_min`); an unknown profile is refused with the list.
#[test]
fn every_builtin_runs_with_the_new_profiles() {
    let (code, list, _) = cli(&["builtin"], "");
    assert_eq!(code, 0);
    for line in list.lines() {
        let id = line.split_whitespace().next().unwrap();
        let (_, json, _) = cli(&["builtin", id], "");
        for kernel in ["v6.12", "v7.3"] {
            let (code, out, err) = cli(
                &["run", "-", "--kernel", kernel, "--format", "zoneinfo"],
                &json,
            );
            assert_eq!(code, 0, "{id} {kernel}: {err}");
            assert_eq!(out.contains("high_min:"), kernel == "v7.3", "{id} {kernel}");
            let (code, out, err) = cli(
                &["run", "-", "--kernel", kernel, "--format", "summary"],
                &json,
            );
            assert_eq!(code, 0, "{id} {kernel}: {err}");
            assert!(!out.is_empty());
        }
    }
    let (code, _, err) = cli(&["run", "-", "--kernel", "v6.13"], "{\"version\": 1}");
    assert_eq!(code, 1);
    assert!(
        err.contains("--kernel v6.13: expected v6.12, v6.18, v6.19, v7.1, v7.2 or v7.3"),
        "{err}"
    );
}

#[test]
fn run_side_applies_the_declared_pair() {
    let doc = buddyscope::builtin::get("cma-frozen-range").unwrap().json;
    let (code, a, err) = cli(&["run", "-", "--side", "a", "--format", "summary"], doc);
    assert_eq!(code, 0, "{err}");
    assert!(a.contains("kernel v7.1"), "{a}");
    let (code, b, _) = cli(&["run", "-", "--side", "b", "--format", "summary"], doc);
    assert_eq!(code, 0);
    assert!(b.contains("kernel v7.2"), "{b}");
    // Side A releases the CMA range page by page (v7.1's method), side B in chunks: the free
    // lists after the release differ.
    let (_, bi_a, _) = cli(
        &[
            "run",
            "-",
            "--side",
            "a",
            "--format",
            "buddyinfo",
            "--ops",
            "2",
        ],
        doc,
    );
    let (_, bi_b, _) = cli(
        &[
            "run",
            "-",
            "--side",
            "b",
            "--format",
            "buddyinfo",
            "--ops",
            "2",
        ],
        doc,
    );
    assert_ne!(bi_a, bi_b);
    let (code, _, err) = cli(&["run", "-", "--side", "a"], r#"{"version": 1}"#);
    assert_ne!(code, 0);
    assert!(
        err.contains("--side needs a scenario with a `compare` pair"),
        "{err}"
    );
}

/// `check-exercises` prints the answer key of each shipped set and ends with `N questions`.
#[test]
fn check_exercises_prints_the_answer_key_of_every_shipped_set() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/exercises");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 6);
    let mut total = 0;
    for f in &files {
        let (code, out, err) = cli(&["check-exercises", f.to_str().unwrap()], "");
        assert_eq!(code, 0, "{}: {err}", f.display());
        let last = out.lines().last().unwrap();
        let n: usize = last
            .strip_suffix(" questions")
            .unwrap_or_else(|| panic!("{}: last line {last:?}", f.display()))
            .parse()
            .unwrap();
        assert_eq!(out.matches("\n     answer: ").count(), n, "{}", f.display());
        total += n;
    }
    assert_eq!(total, 51);
    let split = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/exercises/split-and-merge.json"
    );
    let (_, out, _) = cli(&["check-exercises", split], "");
    assert!(out.starts_with("split-and-merge: "), "{out}");
    assert!(
        out.contains("     answer: free_area[10].free_list[Movable]\n"),
        "{out}"
    );
}

#[test]
fn check_exercises_errors_name_the_path() {
    let set = |q: &str| {
        format!(
            r#"{{"id": "t", "title": "T", "exercises": [{{"title": "E", "scenario": "free-contig-range-unaligned",
                "questions": [{q}]}}]}}"#
        )
    };
    let (code, out, err) = cli(
        &["check-exercises", "-"],
        &set(r#"{"op": 5, "ask": "chunks"}"#),
    );
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(
        err.contains(
            "exercises[0].questions[0].op: question 1 is asked after op 5, but the run has 5 ops"
        ),
        "{err}"
    );
    let (code, _, err) = cli(
        &["check-exercises", "-"],
        // Op 1 (alloc_contig_range) frees its head and tail in chunks on 7.2; op 2 frees page
        // by page.
        &set(r#"{"op": 1, "ask": "chunks"}"#),
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("exercises[0].questions[0].ask: chunks at op 1, but op 2"),
        "{err}"
    );
    let (code, _, err) = cli(
        &["check-exercises", "-"],
        &set(r#"{"op": 4, "ask": "chunks", "prompt": 1}"#),
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("exercises[0].questions[0].prompt: expected a string"),
        "{err}"
    );
    let (code, out, _) = cli(
        &["check-exercises", "-"],
        &set(r#"{"op": 4, "ask": "chunks"}"#),
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("     answer: 5 chunk(s)\n") && out.ends_with("\n1 questions\n"),
        "{out}"
    );
}

/// The authoring aid lists, per position, the asks that apply and their answers.
#[test]
fn exercise_asks_lists_the_asks_per_position() {
    let (code, out, err) = cli(
        &[
            "exercise-asks",
            "free-contig-range-unaligned",
            "--from",
            "3",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("op 3 (before op 4 `alloc_contig_range 0x3e8 +100 as r2`):\n"),
        "{out}"
    );
    assert!(
        out.contains("op 4 (before op 5 `free_contig_range r2 (chunked)`):\n"),
        "{out}"
    );
    assert!(out.contains("\n  chunks: 5 chunk(s) ("), "{out}");
    assert!(!out.contains("\nop 5 ("), "{out}");
    let (code, _, err) = cli(&["exercise-asks", "-"], r#"{"version": 2}"#);
    assert_ne!(code, 0);
    assert!(err.contains("version"), "{err}");
}
