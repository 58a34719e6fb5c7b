//! `buddyscope replay`: the CLI round trip, stdin, the divergence list, errors that name the
//! line, and the generator of long traces.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin(args: &[&str], stdin: &str) -> Output {
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
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str], stdin: &str) -> String {
    let o = bin(args, stdin);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn run_trace_replays_to_the_same_pagetypeinfo() {
    let sc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/pcp-overflow-2cpu.json"
    );
    let trace = ok(&["run", sc, "--format", "trace"], "");
    let want = ok(&["run", sc, "--format", "pagetypeinfo"], "");
    let got = ok(
        &["replay", "-", "--scenario", sc, "--format", "pagetypeinfo"],
        &trace,
    );
    assert_eq!(got, want);
    let json = ok(
        &["replay", "-", "--scenario", sc, "--format", "json"],
        &trace,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["replay"]["divergence_count"], 0);
    assert!(v["replay"]["trace_events"].as_u64().unwrap() > 10_000);
}

#[test]
fn divergences_are_listed_and_errors_name_the_line() {
    let t = "mm_page_free: page=0 pfn=0x0 order=0\nmm_page_free: page=0 pfn=0x0 order=0\n";
    let s = ok(&["replay", "-", "--pages", "4096", "--cpus", "2"], t);
    assert!(s.contains("\ndivergences: 2\n"), "{s}");
    assert!(
        s.contains("  line 2: free_of_free: order-0 block at pfn 0x0 is already free"),
        "{s}"
    );
    let o = bin(
        &["replay", "-", "--pages", "4096"],
        "# ok\nmm_page_alloc: page=0 pfn=0x10 order=0 migratetype=9 gfp_flags=none\n",
    );
    assert!(!o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "buddyscope: -: line 2, column 40: `migratetype=9`: a migratetype must be 0..=5 (§9 numbering)\n"
    );
    let o = bin(&["replay", "-", "--init", "zoneinfo=/nonexistent"], "");
    assert!(!o.status.success());
}

/// `--compare-model`: the model's first difference and both fragmentation series, as text and
/// as the JSON of `replay::ReplaySummary`.
#[test]
fn compare_model_prints_the_first_difference_and_both_series() {
    let sc = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/fallback-claim.json");
    let trace = ok(&["run", sc, "--format", "trace"], "");
    let text = ok(
        &["replay", "-", "--scenario", sc, "--compare-model"],
        &trace,
    );
    assert!(text.contains("0 divergences"), "{text}");
    assert!(text.contains("Movable -> Unmovable claim: 1"), "{text}");
    assert!(text.contains("first difference: line "), "{text}");
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("model ")),
        "{text}"
    );
    let json = ok(
        &[
            "replay",
            "-",
            "--scenario",
            sc,
            "--compare-model",
            "--format",
            "json",
        ],
        &trace,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["divergence_count"], 0);
    assert!(v["model"]["first_difference"]["line"].as_u64().unwrap() > 0);
    assert!(v["model"]["fragmentation"].as_array().unwrap().len() > 1);
    let o = bin(
        &["replay", "-", "--compare-model", "--format", "buddyinfo"],
        "",
    );
    assert!(!o.status.success());
}

/// `--predict`: the `predict` member in `json` (counts, causes, misses) and the rates in
/// `summary`; refused with the other formats and with `--compare-model`.
#[test]
fn predict_prints_the_rates_and_the_misses_by_cause() {
    let sc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/fragmented-sandbox.json"
    );
    let trace = ok(&["run", sc, "--format", "trace"], "");
    let json = ok(
        &[
            "replay",
            "-",
            "--scenario",
            sc,
            "--predict",
            "--format",
            "json",
        ],
        &trace,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p = &v["predict"];
    let n = p["allocations"].as_u64().unwrap();
    assert!(n > 5000, "{p}");
    assert_eq!(p["exact"].as_u64(), Some(n));
    assert_eq!(p["same_order_and_list"].as_u64(), Some(n));
    assert_eq!(p["misses"].as_array().map(Vec::len), Some(0));
    // Another start state (a larger zone): misses, each with a cause and both pfns.
    let text = std::fs::read_to_string(sc).unwrap();
    let mut s: serde_json::Value = serde_json::from_str(&text).unwrap();
    s["zone"]["pages"] = 16384.into();
    let other = std::env::temp_dir().join(format!("predict-{}.json", std::process::id()));
    std::fs::write(&other, s.to_string()).unwrap();
    let other = other.to_str().unwrap();
    let json = ok(
        &[
            "replay",
            "-",
            "--scenario",
            other,
            "--predict",
            "--format",
            "json",
        ],
        &trace,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p = &v["predict"];
    assert!(p["exact"].as_u64().unwrap() < n);
    let m = &p["misses"][0];
    assert!(
        m["line"].as_u64().is_some() && m["cause"].as_str().is_some(),
        "{m}"
    );
    assert!(
        m.get("want_pfn").is_some() && m.get("got_pfn").is_some(),
        "{m}"
    );
    let by_cause: u64 = p["by_cause"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    assert_eq!(by_cause, p["miss_count"].as_u64().unwrap());
    let sum = ok(&["replay", "-", "--scenario", other, "--predict"], &trace);
    assert!(
        sum.contains(&format!("predict: {n} allocations, ")),
        "{sum}"
    );
    let first = p["by_cause"][0]["cause"].as_str().unwrap();
    assert!(sum.contains(&format!("  {first} (")), "{sum}");
    std::fs::remove_file(other).unwrap();
    let o = bin(&["replay", "-", "--predict", "--format", "buddyinfo"], "");
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--predict prints --format summary or json")
    );
    let o = bin(&["replay", "-", "--predict", "--compare-model"], "");
    assert!(!o.status.success());
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A CONFIG_CMA kernel's pagetypeinfo (a CMA row and column) replays with the README's command
/// as printed: CONFIG_CMA is read from the text; `cma=0` contradicting it is refused, `cma=1`
/// agrees; the zone lies at zoneinfo's start_pfn, so a Normal pfn is in the zone.
#[test]
fn a_cma_kernels_proc_replays_as_it_comes() {
    let (pti, zi) = (
        fixture("cma-7.2-pagetypeinfo.txt"),
        fixture("machine-6.18-zoneinfo.txt"),
    );
    // A free of a page the import left allocated (the filler), in Normal and in DMA32.
    let trace = "x-1 [000] .... 1.0: mm_page_free: page=0 pfn=0x2c7e00 order=0\n\
                 x-1 [001] .... 1.1: mm_page_free: page=0 pfn=0xbfe00 order=0\n";
    for init in [
        format!("pagetypeinfo={pti},zoneinfo={zi},zone=all"),
        format!("pagetypeinfo={pti},zoneinfo={zi},zone=all,cma=1"),
    ] {
        let json = ok(
            &[
                "replay", "-", "--init", &init, "--kernel", "v7.2", "--cpus", "2", "--format",
                "json",
            ],
            trace,
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["replay"]["divergence_count"], 0, "{init}: {json:.2000}");
        assert_eq!(v["replay"]["divergences_by_kind"], serde_json::json!([]));
    }
    let o = bin(
        &[
            "replay",
            "-",
            "--init",
            &format!("pagetypeinfo={pti},zone=Normal,cma=0"),
        ],
        trace,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--init cma: cma is false, but init.pagetypeinfo line 9 lists the CMA"),
        "{err}"
    );
    // One zone, Normal: placed at zoneinfo's start_pfn 0x100000, so its pfns are in the zone
    // (at pfn 0 it would end at 0x1c8000 and this pfn would be outside).
    let s = ok(
        &[
            "replay",
            "-",
            "--init",
            &format!("pagetypeinfo={pti},zoneinfo={zi},zone=Normal"),
            "--cpus",
            "2",
        ],
        "x-1 [000] .... 1.0: mm_page_free: page=0 pfn=0x2c7e00 order=0\n",
    );
    assert!(s.contains("\ndivergences: 0\n"), "{s}");
    // A kernel without CONFIG_CMA (6.12, 6.18: no CMA row) keeps working; cma=1 is refused.
    let old = fixture("machine-6.18-pagetypeinfo.txt");
    ok(
        &[
            "replay",
            "-",
            "--init",
            &format!("pagetypeinfo={old},zone=all"),
        ],
        "",
    );
    let o = bin(
        &[
            "replay",
            "-",
            "--init",
            &format!("pagetypeinfo={old},zone=all,cma=1"),
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("cma is true, but init.pagetypeinfo has no CMA row"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// 1024 CMA pageblocks (`hugetlb_cma=2G`) import as CMA pageblocks, said in the summary's
/// assumptions; a migratetype=4 free then lands on the CMA list.
#[test]
fn cma_pageblocks_import() {
    let (pti, zi) = (
        fixture("cma-area-7.2-pagetypeinfo.txt"),
        fixture("machine-6.18-zoneinfo.txt"),
    );
    let out = ok(
        &[
            "replay",
            "-",
            "--init",
            &format!("pagetypeinfo={pti},zoneinfo={zi},zone=Normal"),
            "--cpus",
            "2",
            "--format",
            "pagetypeinfo",
        ],
        "",
    );
    let blocks = out
        .lines()
        .skip_while(|l| !l.starts_with("Number of blocks type"))
        .collect::<Vec<_>>();
    assert!(blocks[0].contains("CMA"), "{out}");
    let row: Vec<u64> = blocks[1]
        .split_whitespace()
        .skip(4)
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(row, vec![79, 2422, 123, 0, 1024, 0], "{out}");
    let cma_row = out
        .lines()
        .find(|l| l.contains("type          CMA"))
        .unwrap();
    assert!(cma_row.trim_end().ends_with("500"), "{cma_row}");
}

/// Every divergence is counted by kind in json and summary, even past the listed cap.
#[test]
fn divergence_totals_by_kind_are_complete() {
    let mut t = String::new();
    for _ in 0..3 {
        t.push_str("mm_page_free: page=0 pfn=0x0 order=0\n");
    }
    t.push_str("mm_page_free: page=0 pfn=0x3 order=1\n");
    t.push_str("mm_page_free: page=0 pfn=0x100000 order=0\n");
    let s = ok(&["replay", "-", "--pages", "4096"], &t);
    assert!(
        s.contains("\ndivergences by kind: pfn_outside_zone 1, misaligned 1, free_of_free 3\n"),
        "{s}"
    );
    let json = ok(&["replay", "-", "--pages", "4096", "--format", "json"], &t);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["replay"]["divergences_by_kind"],
        serde_json::json!([
            {"kind": "pfn_outside_zone", "count": 1},
            {"kind": "misaligned", "count": 1},
            {"kind": "free_of_free", "count": 3}
        ])
    );
}

/// A 1 GiB folio's free (`order=18`) replays: its pages, free in the model (the untraced
/// alloc_contig_range took them), are taken and freed back in pageblock chunks, merging to
/// order-10 blocks; orders the kernel cannot trace stay errors.
#[test]
fn a_gigantic_folio_free_replays() {
    let t = "x-1 [000] .... 1.0: mm_page_free: page=0 pfn=0x40000 order=18\n";
    let s = ok(
        &["replay", "-", "--pages", "1048576", "--format", "buddyinfo"],
        t,
    );
    let want = ok(
        &["replay", "-", "--pages", "1048576", "--format", "buddyinfo"],
        "",
    );
    assert_eq!(s, want);
    let sum = ok(&["replay", "-", "--pages", "1048576"], t);
    assert!(sum.contains("\ndivergences: 0\n"), "{sum}");
    let o = bin(
        &["replay", "-", "--pages", "1048576"],
        "mm_page_free: page=0 pfn=0x40000 order=17\n",
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("or 18 for a freed 1 GiB folio"));
}

/// A version-2 node snapshot starts a replay (bare, with `--scenario`), the trace cut at its
/// trace_marker lines; the final state equals the after-snapshot (`--expect` exits 0), and a
/// replay that goes past the marker differs (`--expect` prints the differences, exits 1).
#[test]
fn a_node_snapshot_replays_to_the_after_snapshot() {
    let (before, after, trace) = (
        fixture("node-v2/before.json"),
        fixture("node-v2/after.json"),
        fixture("node-v2/trace.txt"),
    );
    let args = |extra: &[&str]| {
        let mut a = vec![
            "replay".to_string(),
            trace.clone(),
            "--scenario".to_string(),
            before.clone(),
            "--kernel".to_string(),
            "v7.2".to_string(),
            "--from-marker".to_string(),
            "buddyscope: snapshot before".to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let a = args(&[
        "--to-marker",
        "buddyscope: snapshot after",
        "--expect",
        &after,
    ]);
    let o = bin(&a.iter().map(String::as_str).collect::<Vec<_>>(), "");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}\n{out}");
    assert!(out.contains("\ndivergences: 0\n"), "{out}");
    assert!(
        out.contains("snapshot kernel: 7.2.13+deb14-amd64 (profile v7.2; replayed with v7.2)"),
        "{out}"
    );
    assert!(err.contains("the final state equals"), "{err}");
    // Past the after marker: one more free, one difference (CPU 0's Movable order-0 list).
    let a = args(&["--expect", &after]);
    let o = bin(&a.iter().map(String::as_str).collect::<Vec<_>>(), "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("expect: 1 differences from") && err.contains("zone Normal CPU 0 pcp list 1"),
        "{err}"
    );
    // The start state is the snapshot's: its pcp lists and both zones at their pfns.
    let a = args(&["--to-marker", "buddyscope: snapshot before"]);
    let o = bin(&a.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--to-marker"));
    let a = vec![
        "replay",
        &trace,
        "--scenario",
        &before,
        "--to-marker",
        "buddyscope: snapshot before",
        "--expect",
        &before,
    ];
    let o = bin(&a, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A node snapshot is read strictly: each error names its JSON path.
#[test]
fn node_snapshot_errors_name_the_field() {
    let text = std::fs::read_to_string(fixture("node-v2/before.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|v| v["zones"][0]["bogus"] = 1.into()), "init.snapshot.zones[0].bogus: unknown field"),
        (Box::new(|v| v["zones"][1]["nr_free"][0] = 7.into()), "init.snapshot.zones[1].nr_free[0]: nr_free[0] is 7"),
        (Box::new(|v| v["zones"][1]["pcp_state"][0]["count"] = 9.into()), "init.snapshot.zones[1].pcp_state[0].count: count 9 but CPU 0's pcp lists hold 3 pages"),
        (Box::new(|v| v["zones"][0]["free_area"][1]["pfns"][0] = 0x2c08.into()), "init.snapshot.zones[0].free_area[1].pfns[0]: order-3 block at pfn 0x2c08 lies in an Absent pageblock"),
        (Box::new(|v| v["cma"] = false.into()), "init.snapshot.migratetype_names"),
        (Box::new(|v| v["zones"][1]["pageblocks"][3] = "Weird".into()), "init.snapshot.zones[1].pageblocks[3]: unknown pageblock type"),
    ];
    let dir = std::env::temp_dir().join(format!("bs-node-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (edit, want)) in cases.iter().enumerate() {
        let mut w = v.clone();
        edit(&mut w);
        let f = dir.join(format!("{i}.json"));
        std::fs::write(&f, w.to_string()).unwrap();
        let o = bin(&["replay", "-", "--scenario", f.to_str().unwrap()], "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "case {i}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file cut at its markers is streamed (a first pass finds them) and replays exactly as
/// standard input cut in memory; `--no-trace` gives the same divergence and prediction
/// members without recording the run (no op records), and refuses the formats that need it.
#[test]
fn a_marker_cut_streams_and_no_trace_keeps_the_counts() {
    let (before, trace) = (fixture("node-v2/before.json"), fixture("node-v2/trace.txt"));
    let text = std::fs::read_to_string(&trace).unwrap();
    let common = [
        "--scenario",
        &before,
        "--from-marker",
        "buddyscope: snapshot before",
        "--to-marker",
        "buddyscope: snapshot after",
        "--predict",
        "--format",
        "json",
    ];
    let with = |input: &str, extra: &[&str]| {
        let mut a = vec!["replay", input];
        a.extend(common);
        a.extend(extra);
        ok(&a, if input == "-" { &text } else { "" })
    };
    let streamed = with(&trace, &[]);
    assert_eq!(streamed, with("-", &[]));
    let full: serde_json::Value = serde_json::from_str(&streamed).unwrap();
    let counts: serde_json::Value = serde_json::from_str(&with(&trace, &["--no-trace"])).unwrap();
    assert!(!full["ops"].as_array().unwrap().is_empty());
    assert!(counts["ops"].as_array().unwrap().is_empty());
    for k in ["replay", "predict", "free_lists", "pcp", "nr_free"] {
        assert_eq!(full[k], counts[k], "{k}");
    }
    let o = bin(
        &[
            "replay",
            &trace,
            "--scenario",
            &before,
            "--no-trace",
            "--format",
            "trace",
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("drop --no-trace"));
}
