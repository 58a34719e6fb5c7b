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
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
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
