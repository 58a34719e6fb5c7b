//! The kernel lab's captures of Debian's Linux 7.2.13 (`lab/`, `engine/tests/fixtures/lab/`),
//! replayed as a user would: from the before node snapshot, cut at the lab's trace markers,
//! with `--predict` and `--expect` the after snapshot; and from `/proc` with the README's
//! `--init` command as printed. The figures are what the model gives on the real kernel's trace
//! today: a change that moves them must say why.

use std::path::{Path, PathBuf};
use std::process::Command;

const BEFORE: &str = "buddyscope: snapshot before";
const AFTER: &str = "buddyscope: snapshot after";

fn capture(workload: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lab/7.2.13")
        .join(workload)
}

/// The capture's file, unpacked into a folder of this test's own when the lab gzipped it.
fn file(workload: &str, name: &str) -> String {
    let dir = capture(workload);
    let plain = dir.join(name);
    if plain.exists() {
        return plain.to_str().unwrap().to_string();
    }
    let gz = dir.join(format!("{name}.gz"));
    let out = Command::new("gzip").arg("-dc").arg(&gz).output().unwrap();
    assert!(out.status.success(), "gzip -dc {}", gz.display());
    let tmp = std::env::temp_dir().join(format!(
        "buddyscope-lab-{}-{workload}-{name}",
        std::process::id()
    ));
    std::fs::write(&tmp, out.stdout).unwrap();
    tmp.to_str().unwrap().to_string()
}

struct Figures {
    trace_events: u64,
    divergences: u64,
    allocations: u64,
    exact: u64,
    same_order_and_list: u64,
    /// What `--expect` finds against the after snapshot (0: the final state equals it).
    expect_differences: usize,
}

fn replay_from_snapshot(workload: &str) -> Figures {
    let trace = file(workload, "trace.txt");
    let before = file(workload, "snapshot-before.json");
    let after = file(workload, "snapshot-after.json");
    let out = Command::new(env!("CARGO_BIN_EXE_buddyscope"))
        .args(["replay", &trace, "--scenario", &before])
        .args(["--from-marker", BEFORE, "--to-marker", AFTER])
        .args(["--expect", &after, "--predict", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{workload}: {e}\n{stderr}"));
    let expect_differences = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("buddyscope: expect: ")
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0);
    assert_eq!(out.status.success(), expect_differences == 0, "{stderr}");
    assert_eq!(
        v["kernel"], "v7.2",
        "the snapshot's uname picks the profile"
    );
    let (r, p) = (&v["replay"], &v["predict"]);
    let n = |x: &serde_json::Value| x.as_u64().unwrap();
    Figures {
        trace_events: n(&r["trace_events"]),
        divergences: n(&r["divergence_count"]),
        allocations: n(&p["allocations"]),
        exact: n(&p["exact"]),
        same_order_and_list: n(&p["same_order_and_list"]),
        expect_differences,
    }
}

/// Replays every lab fixture from its before snapshot; the figures of each.
#[test]
fn lab_captures_replay_from_node_snapshots_with_their_figures() {
    // (workload, trace events, divergences, allocations, exact, same order and list, expect)
    let want: [(&str, u64, u64, u64, u64, u64, usize); 6] = [
        ("idle", 96, 0, 60, 60, 60, 0),
        ("thp", 6299, 0, 1094, 1094, 1094, 0),
        ("hugetlb-2m", 4444, 59, 322, 315, 319, 1),
        ("gigantic", 6519, 47, 115, 112, 114, 1),
        ("gigantic-cma", 4383, 54, 118, 113, 117, 2),
        ("vmalloc", 9376, 1, 1482, 1480, 1481, 3),
    ];
    for (w, events, div, allocs, exact, same, expect) in want {
        let f = replay_from_snapshot(w);
        assert_eq!(
            (
                f.trace_events,
                f.divergences,
                f.allocations,
                f.exact,
                f.same_order_and_list,
                f.expect_differences
            ),
            (events, div, allocs, exact, same, expect),
            "{w}"
        );
    }
}

/// The README's `/proc` replay command as printed reads every capture of a CONFIG_CMA kernel
/// (a CMA row in pagetypeinfo, CMA pageblocks in gigantic-cma, the 1 GiB folio's order-18 free
/// in gigantic) without an error.
#[test]
fn lab_captures_replay_from_proc_with_the_readme_command() {
    for w in [
        "idle",
        "thp",
        "hugetlb-2m",
        "gigantic",
        "gigantic-cma",
        "vmalloc",
    ] {
        let dir = capture(w);
        let init = format!(
            "pagetypeinfo={},zoneinfo={},zone=all",
            dir.join("before/pagetypeinfo").display(),
            dir.join("before/zoneinfo").display()
        );
        let trace = file(w, "trace.txt");
        let out = Command::new(env!("CARGO_BIN_EXE_buddyscope"))
            .args(["replay", &trace, "--init", &init, "--kernel", "v7.2"])
            .args(["--cpus", "2", "--format", "summary"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{w}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("\nreplay: "), "{w}: {stdout}");
    }
}
