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
    let doc = buddyscope::scenario::builtin::get("cma-frozen-range")
        .unwrap()
        .json();
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
    assert_eq!(files.len(), 7);
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
    assert_eq!(total, 66);
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

/// `--format vmstat`: /proc/vmstat's compaction lines, `"%s %lu\n"` in `vmstat_text` order
/// (mm/vmstat.c v7.2.13 :1372-1380). The scenario is the golden
/// `compact_memory_moves_two_pages_into_the_top_pageblock` of `compaction.rs`: 4608 pages
/// scanned by the migration scanner, 4 by the free scanner, 2 + 3 isolated.
#[test]
fn vmstat_prints_the_compaction_counters() {
    let scenario = r#"{"version": 1, "name": "compact", "kernel": "v7.2",
 "zone": {"pages": 4096, "cpus": 1},
 "ops": [
  {"op": "alloc", "order": 0, "mt": "movable", "as": "a"},
  {"op": "alloc", "order": 0, "mt": "movable", "as": "b"},
  {"op": "alloc", "order": 0, "mt": "movable", "as": "c"},
  {"op": "free", "ref": "b"},
  {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"},
  {"op": "drain", "cpu": "all"},
  {"op": "compact_memory"}]}"#;
    let (code, out, err) = cli(&["run", "-", "--format", "vmstat"], scenario);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "compact_migrate_scanned 4608\ncompact_free_scanned 4\ncompact_isolated 5\n\
         compact_stall 0\ncompact_fail 0\ncompact_success 0\ncompact_daemon_wake 0\n\
         compact_daemon_migrate_scanned 0\ncompact_daemon_free_scanned 0\n"
    );
}

fn builtin_json(name: &str) -> String {
    let (code, out, err) = cli(&["builtin", name], "");
    assert_eq!(code, 0, "{err}");
    out
}

/// `fragmented-sandbox` ends with nr_free = {4, 3, 2, 1, 1, 1, 1, 1, 2, 0, 0} (its buddyinfo):
/// free_pages = 4 + 6 + 8 + 8 + 16 + 32 + 64 + 128 + 512 = 778 in 16 blocks.
/// unusable o=8: suitable 2, (778 - 2·256)·1000/778 = 341; o=1: suitable 3 + 2·1 + … in order-1
/// units = (778 - 4)/2 = 387, (778 - 774)·1000/778 = 5. extfrag o=9: 1000 - (1000 + 778000/512)/16
/// = 1000 - 2519/16 = 1000 - 157 = 843; o=10: 1000 - (1000 + 759)/16 = 1000 - 109 = 891.
#[test]
fn extfrag_files_of_a_fragmented_run() {
    let doc = builtin_json("fragmented-sandbox");
    let (_, bi, _) = cli(&["run", "-", "--format", "buddyinfo"], &doc);
    assert_eq!(
        bi,
        "Node 0, zone   Normal      4      3      2      1      1      1      1      1      2      0      0 \n"
    );
    let (code, out, err) = cli(&["run", "-", "--format", "unusable_index"], &doc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Node 0, zone   Normal 0.000 0.005 0.012 0.023 0.033 0.053 0.095 0.177 0.341 1.000 1.000 \n"
    );
    let (code, out, err) = cli(&["run", "-", "--format", "extfrag_index"], &doc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Node 0, zone   Normal -1.000 -1.000 -1.000 -1.000 -1.000 -1.000 -1.000 -1.000 -1.000  0.843  0.891 \n"
    );
    // --ops 0: the seeded workload's start, one free order-10 block at least: not fragmented.
    let (_, out, _) = cli(
        &["run", "-", "--ops", "0", "--format", "extfrag_index"],
        &doc,
    );
    assert!(out.starts_with("Node 0, zone   Normal -1.000 "), "{out}");
}

/// A node prints one line per populated zone in zone order (walk_zones_in_node). dma32-machine
/// ends with DMA32 nr_free = {0…, [6] 1, [8] 1, [10] 1}: 64 + 256 + 1024 = 1344 pages;
/// unusable o=7: (1344 - (2 + 8)·128)·1000/1344 = 64000/1344 = 47; o=9: (1344 - 2·512)·1000/1344
/// = 238.
#[test]
fn extfrag_files_of_a_node_print_every_zone() {
    let doc = builtin_json("dma32-machine");
    let (code, out, err) = cli(&["run", "-", "--format", "unusable_index"], &doc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Node 0, zone    DMA32 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.047 0.047 0.238 0.238 \n\
         Node 0, zone   Normal 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 \n"
    );
    let (_, out, _) = cli(&["run", "-", "--format", "extfrag_index"], &doc);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.lines().all(|l| l.ends_with("-1.000 ")), "{out}");
}

/// `replay` prints the extfrag files of the replayed final state: a run's trace replays to the
/// same text.
#[test]
fn replay_prints_the_extfrag_files_of_the_final_state() {
    let doc = builtin_json("fragmented-sandbox");
    let (_, trace, _) = cli(&["run", "-", "--format", "trace"], &doc);
    let path = std::env::temp_dir().join(format!("extfrag-{}.json", std::process::id()));
    std::fs::write(&path, &doc).unwrap();
    let sc = path.to_str().unwrap();
    for f in ["unusable_index", "extfrag_index"] {
        let (_, want, _) = cli(&["run", sc, "--format", f], "");
        let (code, got, err) = cli(&["replay", "-", "--scenario", sc, "--format", f], &trace);
        assert_eq!(code, 0, "{err}");
        assert_eq!(got, want, "{f}");
    }
    std::fs::remove_file(&path).ok();
}

/// `where` on a built-in at op K: a page op 1 allocated, a free one, a node's other zone, the
/// JSON form, and the messages for a pfn outside the node and an --ops past the end.
#[test]
fn where_names_the_list_or_the_holder_and_the_event() {
    let (code, out, err) = cli(&["where", "fallback-claim", "0x10", "--ops", "3"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "pfn 0x10 is allocated in zone Normal by op 1 (alloc order 10 movable as b0)\n\
         put there by event 17 (position 18) in op 1: alloc_pages: order-10 block at pfn 0x0 is handed out\n"
    );
    let (_, out, _) = cli(&["where", "fallback-claim", "2048", "--ops", "3"], "");
    assert_eq!(
        out,
        "pfn 0x800 is free in zone Normal: free_area[10].free_list[Movable], in the order-10 block at 0x800\n\
         there since the start (no recorded event put it there)\n"
    );
    let (code, out, err) = cli(
        &["where", "dma32-machine", "0x1000", "--format", "json"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["zone"], "DMA32");
    assert_eq!(v["place"]["kind"], "allocated");
    assert_eq!(v["place"]["holder"]["kind"], "op");
    let (code, _, err) = cli(&["where", "dma32-machine", "0x9000000"], "");
    assert_ne!(code, 0);
    assert!(
        err.contains("pfn 0x9000000 is outside every zone of the node (DMA32 0x1000"),
        "{err}"
    );
    let (code, _, err) = cli(&["where", "fallback-claim", "0", "--ops", "100"], "");
    assert_ne!(code, 0);
    assert!(
        err.contains("--ops 100: fallback-claim has 39 executed ops"),
        "{err}"
    );
}

/// `where` on a real kernel's trace (the lab's idle capture from its /proc text): the task
/// that allocated the page, its CPU, gfp flags and the line.
#[test]
fn where_in_a_trace_names_the_traced_task() {
    let dir = format!(
        "{}/tests/fixtures/lab/7.2.13/idle",
        env!("CARGO_MANIFEST_DIR")
    );
    let init =
        format!("pagetypeinfo={dir}/before/pagetypeinfo,zoneinfo={dir}/before/zoneinfo,zone=all");
    let trace = format!("{dir}/trace.txt");
    let args = [
        "where", &trace, "0x104152", "--init", &init, "--kernel", "v7.2", "--cpus", "2",
    ];
    let (code, out, err) = cli(&args, "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().next(),
        Some("pfn 0x104152 is allocated in zone Normal by init-1 on CPU 1, order 0, gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP, trace line 14")
    );
    assert!(
        out.contains("traced at 29.741458: mm_page_alloc: page=ffffea0004105480 pfn=0x104152 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP\n"),
        "{out}"
    );
    // Before the trace's first event the page is in the imported free lists.
    let mut before = args.to_vec();
    before.extend(["--ops", "0"]);
    let (_, out, _) = cli(&before, "");
    assert!(
        out.starts_with("pfn 0x104152 is free in zone Normal: free_area["),
        "{out}"
    );
}

/// `--format fallback_matrix` on the two fallback built-ins: fallback-claim's one claim of
/// Movable pageblocks by an Unmovable request (its trace's one `mm_page_alloc_extfrag`,
/// change_ownership=1), fallback-steal's 30 steals (30 lines with change_ownership=0); the event
/// range filter; the refusal with --no-trace.
#[test]
fn fallback_matrix_of_the_fallback_builtins() {
    let rows = |claim: &str| {
        format!(
            "from \\ to         Unmovable      Movable  Reclaimable   HighAtomic      Isolate\n\
             Unmovable               0/0          0/0          0/0          0/0          0/0\n\
             Movable        {claim:>12}          0/0          0/0          0/0          0/0\n\
             Reclaimable             0/0          0/0          0/0          0/0          0/0\n\
             HighAtomic              0/0          0/0          0/0          0/0          0/0\n\
             Isolate                 0/0          0/0          0/0          0/0          0/0\n"
        )
    };
    let doc = builtin_json("fallback-claim");
    let (code, out, err) = cli(&["run", "-", "--format", "fallback_matrix"], &doc);
    assert_eq!(code, 0, "{err}");
    let (first, rest) = out.split_once('\n').unwrap();
    assert!(
        first.starts_with("fallback matrix (mm_page_alloc_extfrag): 1 claims, 0 steals; alloc orders 0-10, events 0-"),
        "{first}"
    );
    assert_eq!(rest, rows("1/0"));
    let doc = builtin_json("fallback-steal");
    let (_, out, _) = cli(&["run", "-", "--format", "fallback_matrix"], &doc);
    assert_eq!(out.split_once('\n').unwrap().1, rows("0/30"));
    let (_, out, _) = cli(
        &[
            "run",
            "-",
            "--format",
            "fallback_matrix",
            "--events",
            "0-10",
        ],
        &doc,
    );
    assert_eq!(
        out.lines().next(),
        Some("fallback matrix (mm_page_alloc_extfrag): 0 claims, 0 steals; alloc orders 0-10, events 0-10")
    );
    let (code, _, err) = cli(
        &["run", "-", "--format", "fallback_matrix", "--no-trace"],
        &doc,
    );
    assert_ne!(code, 0);
    assert!(err.contains("need the trace"), "{err}");
    let (code, _, err) = cli(
        &["run", "-", "--format", "fallback_matrix", "--orders", "3-1"],
        &doc,
    );
    assert_ne!(code, 0);
    assert!(err.contains("--orders 3-1: 3 is above 1"), "{err}");
}

/// `--format mixed_pageblocks` of fallback-steal: its 30 steals leave one Movable pageblock
/// holding 30 Unmovable pages (allocated, or on the Unmovable pcp list); the replay of the run's
/// trace prints the same.
#[test]
fn mixed_pageblocks_of_fallback_steal() {
    let want = std::fs::read_to_string(format!(
        "{}/tests/fixtures/fallback-steal-mixed_pageblocks.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let doc = builtin_json("fallback-steal");
    let (code, out, err) = cli(&["run", "-", "--format", "mixed_pageblocks"], &doc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, want);
    let (_, trace, _) = cli(&["run", "-", "--format", "trace"], &doc);
    let path = std::env::temp_dir().join(format!("mixed-{}.json", std::process::id()));
    std::fs::write(&path, &doc).unwrap();
    let sc = path.to_str().unwrap();
    let (code, got, err) = cli(
        &[
            "replay",
            "-",
            "--scenario",
            sc,
            "--format",
            "mixed_pageblocks",
        ],
        &trace,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(got, want);
    std::fs::remove_file(&path).ok();
}

/// `--format polluters` of fallback-steal: the Unmovable requests hold the allocated foreign
/// pages of the one mixed Movable block; a replay names the traced allocation (gfp and order)
/// instead of the op.
#[test]
fn polluters_of_fallback_steal() {
    let doc = builtin_json("fallback-steal");
    let (code, out, err) = cli(&["run", "-", "--format", "polluters"], &doc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        " pages  blocks page type    in blocks    holder\n     5       1 Unmovable    Movable      alloc order 0 unmovable\n"
    );
    let (_, trace, _) = cli(&["run", "-", "--format", "trace"], &doc);
    let path = std::env::temp_dir().join(format!("polluters-{}.json", std::process::id()));
    std::fs::write(&path, &doc).unwrap();
    let sc = path.to_str().unwrap();
    let (code, got, err) = cli(
        &["replay", "-", "--scenario", sc, "--format", "polluters"],
        &trace,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        got.ends_with(
            "     5       1 Unmovable    Movable      (no task column) gfp=GFP_KERNEL order=0\n"
        ),
        "{got}"
    );
    std::fs::remove_file(&path).ok();
}

/// `--format …_over_time` of fallback-steal (golden files): a row per op, and each row of the
/// extfrag indexes is what `--ops K --format extfrag_index` prints of that state; the steal
/// makes pageblock 15 the one mixed Movable pageblock from op 35 on.
#[test]
fn over_time_of_fallback_steal() {
    let doc = builtin_json("fallback-steal");
    for f in ["extfrag_index", "mixed_pageblocks"] {
        let want = std::fs::read_to_string(format!(
            "{}/tests/fixtures/fallback-steal-{f}_over_time.csv",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let (code, out, err) = cli(&["run", "-", "--format", &format!("{f}_over_time")], &doc);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, want, "{f}");
    }
    let (_, csv, _) = cli(&["run", "-", "--format", "extfrag_index_over_time"], &doc);
    for k in ["0", "34", "35", "39"] {
        let (code, idx, err) = cli(&["run", "-", "--ops", k, "--format", "extfrag_index"], &doc);
        assert_eq!(code, 0, "{err}");
        let want: Vec<&str> = idx.split_whitespace().skip(4).collect();
        let row = csv
            .lines()
            .find(|l| l.starts_with(&format!("{k},")))
            .unwrap();
        let got: Vec<&str> = row.split(',').skip(2).collect();
        assert_eq!(got, want, "after {k} ops");
    }
    let (_, mixed, _) = cli(
        &["run", "-", "--format", "mixed_pageblocks_over_time"],
        &doc,
    );
    assert!(mixed.contains("\n34,Normal,0,0,0,0,0,0\n35,Normal,1,0,1,0,0,0\n"));
    let (code, _, err) = cli(
        &["run", "-", "--no-trace", "--format", "fallbacks_over_time"],
        &doc,
    );
    assert_ne!(code, 0);
    assert!(err.contains("need the trace"), "{err}");
}

/// A replay's series are per trace event and carry the trace's clock: the lab's idle capture
/// (its /proc text as the start) starts at its first line's timestamp, the fallback rates are
/// per second, and the last row's free pages are the replayed final state's buddyinfo.
#[test]
fn over_time_of_a_replay_has_the_trace_clock() {
    let dir = format!(
        "{}/tests/fixtures/lab/7.2.13/idle",
        env!("CARGO_MANIFEST_DIR")
    );
    let init =
        format!("pagetypeinfo={dir}/before/pagetypeinfo,zoneinfo={dir}/before/zoneinfo,zone=all");
    let trace = format!("{dir}/trace.txt");
    let args = |f: &'static str| {
        [
            "replay", &trace, "--init", &init, "--kernel", "v7.2", "--cpus", "2", "--format", f,
        ]
        .map(String::from)
    };
    let run = |f| {
        let a = args(f);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, out, err) = cli(&a, "");
        assert_eq!(code, 0, "{err}");
        out
    };
    let fb = run("fallbacks_over_time");
    let mut lines = fb.lines();
    assert_eq!(
        lines.next(),
        Some("trace_events,time_s,zone,claims,steals,claims_per_s,steals_per_s")
    );
    assert_eq!(lines.next(), Some("0,29.741458,DMA,0,0,,"));
    let fp = run("free_pages_over_time");
    let buddyinfo = run("buddyinfo");
    let last: Vec<&str> = fp.lines().rev().take(3).collect();
    for line in buddyinfo.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let zone = w[3].trim_end_matches(',');
        let want: Vec<String> = w[4..]
            .iter()
            .enumerate()
            .map(|(o, n)| (n.parse::<u64>().unwrap() << o).to_string())
            .collect();
        let row = last
            .iter()
            .find(|l| l.split(',').nth(2) == Some(zone))
            .unwrap();
        let got: Vec<&str> = row.split(',').skip(3).collect();
        assert_eq!(got, want, "{zone}");
    }
}
