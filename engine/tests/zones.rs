//! A node of several zones (`zones`): validation with JSON paths, a run that
//! falls back between zones, exact rewind across zone switches, and `/proc` outputs per zone.

use buddyscope::{
    mm::{EventKind, Mutation},
    run::RunOptions,
    scenario::procfs,
};

const TWO: &str = r#"{"version": 1, "kernel": "v7.1",
  "zones": [{"name": "DMA32", "start_pfn": 4096, "pages": 4096, "cpus": 2},
            {"name": "Normal", "start_pfn": 1048576, "pages": 4096, "cpus": 2}],
  "ops": [
    {"op": "alloc", "order": 10, "mt": "movable", "as": "m1"},
    {"op": "alloc", "order": 10, "mt": "movable", "as": "m2"},
    {"op": "alloc", "order": 10, "mt": "movable", "as": "m3"},
    {"op": "alloc", "order": 10, "as": "spill"},
    {"op": "alloc", "order": 0, "zone": "DMA32", "as": "low", "cpu": 1},
    {"op": "alloc", "order": 3, "mt": "reclaimable", "as": "r"},
    {"op": "free", "ref": "low", "cpu": 1},
    {"op": "free", "ref": "spill"},
    {"op": "split", "ref": "r"},
    {"op": "free", "ref": "r"},
    {"op": "alloc_contig_range", "pfn": 5120, "nr_pages": 16, "as": "c"},
    {"op": "free_contig_range", "ref": "c"},
    {"op": "drain", "cpu": 1},
    {"op": "tick"},
    {"op": "free", "ref": "m1"},
    {"op": "free", "ref": "m2"},
    {"op": "free", "ref": "m3"},
    {"op": "drain", "cpu": "all"}
  ]}"#;

#[test]
fn a_two_zone_run_falls_back_and_rewinds_exactly() {
    let run = buddyscope::parse_valid(TWO)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("runs");
    assert_eq!(run.initial.nr_zones(), 2);
    // ops[3] spills into DMA32: Normal has one order-10 block
    // left, 1024 − 1023 = 1 is below its low watermark.
    let spill = &run.ops[3];
    assert!(
        spill.outcome.to_string().contains("0x1000"),
        "{}",
        spill.outcome
    );
    let switches = run
        .log
        .events
        .iter()
        .filter(|e| matches!(e.kind(), EventKind::Mutation(Mutation::ZoneSwitch { .. })))
        .count();
    assert!(switches > 0);
    // Rewind: unapplying every event from the final state gives the initial state back.
    let mut z = run.final_node.clone();
    for ev in run.log.events.iter().rev() {
        z.unapply(ev);
    }
    assert_eq!(z.first_difference(&run.initial), None);
    assert_eq!(z, run.initial);
    // Every op ends in the home (highest) zone.
    assert_eq!(run.final_node.active_index(), 1);
    // Everything was freed and drained: each zone is whole again.
    let bi = procfs::buddyinfo(&run.final_node);
    assert_eq!(bi.lines().count(), 2, "{bi}");
    assert!(bi.starts_with("Node 0, zone    DMA32 "), "{bi}");
    assert!(bi
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("Node 0, zone   Normal "));
    for z in run.final_node.zones() {
        assert_eq!(z.nr_free_pages(), 4096);
    }
}

#[test]
fn proc_outputs_list_every_zone_in_the_kernels_order() {
    let run = buddyscope::parse_valid(TWO)
        .and_then(|s| {
            buddyscope::Runner::new(s)
                .options(&RunOptions {
                    max_ops: Some(0),
                    ..RunOptions::default()
                })
                .run()
        })
        .expect("runs");
    let pti = procfs::pagetypeinfo(&run.final_node);
    let rows: Vec<&str> = pti
        .lines()
        .filter(|l| l.starts_with("Node    0, zone"))
        .collect();
    assert_eq!(rows.len(), 10, "{pti}");
    assert!(rows[0].contains("zone    DMA32, type    Unmovable"));
    assert!(rows[5].contains("zone   Normal, type    Unmovable"));
    assert_eq!(pti.matches("Number of blocks type").count(), 1);
    let counts: Vec<&str> = pti
        .lines()
        .filter(|l| l.starts_with("Node 0, zone"))
        .collect();
    assert_eq!(counts.len(), 2);
    let zi = procfs::zoneinfo(&run.final_node);
    // DMA32's reserve against Normal and Movable requests: 4096 / 256 = 16.
    assert!(
        zi.contains("        protection: (0, 0, 16, 16, 16)"),
        "{zi}"
    );
    assert!(zi.contains("        protection: (0, 0, 0, 0, 0)"));
    assert!(zi.contains("  start_pfn:           4096\n"));
    assert!(zi.contains("  start_pfn:           1048576\n"));
}

#[test]
fn a_trace_prints_each_zones_absolute_pfns() {
    let run = buddyscope::parse_valid(TWO)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("runs");
    let t = buddyscope::explain::trace_text(&run);
    assert!(
        t.contains("mm_page_alloc: page=ffffea0000040000 pfn=0x1000 order=10"),
        "{t}"
    );
    assert!(t.contains("gfp_flags=GFP_KERNEL|GFP_DMA32"));
}

fn err(text: &str) -> (String, String) {
    let e = buddyscope::scenario::parse_valid(text).expect_err("an error");
    (e.path.clone(), e.message.clone())
}

#[test]
fn zones_are_checked_with_json_paths() {
    let z = |zones: &str| format!(r#"{{"version": 1, "zones": {zones}}}"#);
    let dma32 = r#"{"name": "DMA32", "start_pfn": 4096, "pages": 4096}"#;
    let normal = r#"{"name": "Normal", "start_pfn": 1048576, "pages": 4096}"#;
    assert_eq!(err(&z("[]")).0, "zones");
    assert_eq!(err(&z(&format!("[{normal}, {dma32}]"))).0, "zones[1].name");
    assert_eq!(err(&z(&format!("[{dma32}, {dma32}]"))).0, "zones[1].name");
    assert_eq!(
        err(&z(r#"[{"name": "HighMem", "pages": 4096}]"#)).0,
        "zones[0].name"
    );
    let overlap = r#"{"name": "Normal", "start_pfn": 5120, "pages": 4096}"#;
    assert_eq!(
        err(&z(&format!("[{dma32}, {overlap}]"))).0,
        "zones[1].start_pfn"
    );
    let high32 = r#"{"name": "DMA32", "start_pfn": 1047552, "pages": 2048}"#;
    assert_eq!(
        err(&z(&format!("[{high32}, {normal}]"))).0,
        "zones[0].pages"
    );
    let cpus = r#"{"name": "Normal", "start_pfn": 1048576, "pages": 4096, "cpus": 2}"#;
    assert_eq!(err(&z(&format!("[{dma32}, {cpus}]"))).0, "zones[1].cpus");
    // vm.compaction_proactiveness is one sysctl: the zones agree or give it once.
    let p40 =
        r#"{"name": "DMA32", "start_pfn": 4096, "pages": 4096, "compaction_proactiveness": 40}"#;
    let p20 = r#"{"name": "Normal", "start_pfn": 1048576, "pages": 4096, "compaction_proactiveness": 20}"#;
    assert_eq!(
        err(&z(&format!("[{p40}, {p20}]"))).0,
        "zones[1].compaction_proactiveness"
    );
    let both = format!(r#"{{"version": 1, "zone": {{"pages": 4096}}, "zones": [{dma32}]}}"#);
    assert_eq!(err(&both).0, "zone");
    let bad_alloc = format!(
        r#"{{"version": 1, "zones": [{dma32}, {normal}], "ops": [{{"op": "alloc", "order": 0, "zone": "DMA"}}]}}"#
    );
    assert_eq!(err(&bad_alloc).0, "ops[0].zone");
    let range = format!(
        r#"{{"version": 1, "zones": [{dma32}, {normal}], "ops": [{{"op": "alloc_contig_range", "pfn": 8000, "nr_pages": 512}}]}}"#
    );
    assert_eq!(err(&range).0, "ops[0].nr_pages");
    let hole = format!(
        r#"{{"version": 1, "zones": [{dma32}, {normal}], "ops": [{{"op": "alloc_contig_range", "pfn": 9000, "nr_pages": 1}}]}}"#
    );
    assert_eq!(err(&hole).0, "ops[0].pfn");
}

/// A one-zone scenario written as `zones: [zone]` runs exactly as with `zone`.
#[test]
fn one_entry_in_zones_is_the_one_zone_model() {
    let ops = r#""ops": [{"op": "alloc", "order": 3, "as": "a"}, {"op": "free", "ref": "a"}]"#;
    let a = buddyscope::parse_valid(&format!(
        r#"{{"version": 1, "zone": {{"pages": 4096}}, {ops}}}"#
    ))
    .and_then(|s| buddyscope::Runner::new(s).run())
    .expect("runs");
    let b = buddyscope::parse_valid(&format!(
        r#"{{"version": 1, "zones": [{{"pages": 4096}}], {ops}}}"#
    ))
    .and_then(|s| buddyscope::Runner::new(s).run())
    .expect("runs");
    assert_eq!(
        buddyscope::explain::trace_text(&a),
        buddyscope::explain::trace_text(&b)
    );
    assert_eq!(a.final_node, b.final_node);
}

mod prop {
    //! Random two- and three-zone machines (vmalloc, vfree and compaction included): the
    //! invariants hold in
    //! every zone after every op, a
    //! timeline seek anywhere equals a replay, and the whole run rewinds to the initial state.

    use buddyscope::mm::check_invariants;
    use buddyscope::run::Timeline;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn op(kind: u8, a: u32, b: u32, all: &mut Vec<String>, zones: &[(&str, u64, u64)]) -> Value {
        // allocs are "a…", vmallocs "v…": free and split take the one, vfree the other.
        let names: Vec<String> = all.iter().filter(|n| n.starts_with('a')).cloned().collect();
        let vms: Vec<String> = all.iter().filter(|n| n.starts_with('v')).cloned().collect();
        let names = &names;
        let mt = ["unmovable", "movable", "reclaimable"][(a % 3) as usize];
        match kind % 12 {
            0..=2 => {
                let name = format!("a{}", all.len());
                all.push(name.clone());
                let order = [0, 0, 1, 3, 9, 10][(b % 6) as usize];
                let mut o = json!({"op": "alloc", "order": order, "mt": mt, "as": name});
                if a & 3 == 0 {
                    let z = zones[(b as usize) % (zones.len() - 1)].0;
                    o["zone"] = json!(z);
                }
                o
            }
            3 | 4 if !names.is_empty() => {
                json!({"op": "free", "ref": names[(a as usize) % names.len()]})
            }
            5 if !names.is_empty() => {
                json!({"op": "split", "ref": names[(a as usize) % names.len()]})
            }
            6 => {
                let (_, start, pages) = zones[(a as usize) % zones.len()];
                let n = 1 + u64::from(b) % 64;
                let pfn = start + u64::from(a) * 37 % (pages - n);
                json!({"op": "alloc_contig_range", "pfn": pfn, "nr_pages": n})
            }
            7 => json!({"op": "tick"}),
            // vmalloc walks the zonelist per batch; vfree of a plain alloc is a skipped op.
            8 => {
                let name = format!("v{}", all.len());
                all.push(name.clone());
                let pages = [1, 7, 100, 300, 513, 1500][(b % 6) as usize];
                let strategy = ["bulk", "large_order"][(a & 1) as usize];
                json!({"op": "vmalloc", "pages": pages, "strategy": strategy, "as": name})
            }
            9 if !vms.is_empty() => {
                let method = ["per_page", "chunked"][(b & 1) as usize];
                json!({"op": "vfree", "ref": vms[(a as usize) % vms.len()], "method": method})
            }
            // Compaction on a node: compact_memory walks every zone; compact one zone at one
            // order; a kcompactd wakeup for an order or its timeout (proactive compaction).
            10 => json!({"op": "compact_memory"}),
            11 => match b % 3 {
                0 => {
                    let z = zones[(a as usize) % zones.len()].0;
                    let order = [2, 4, 9, 10][(a % 4) as usize];
                    json!({"op": "compact", "order": order, "zone": z, "priority": b & 1})
                }
                1 => {
                    let order = [1, 3, 9][(a % 3) as usize];
                    json!({"op": "kcompactd", "order": order})
                }
                _ => json!({"op": "kcompactd"}),
            },
            _ => json!({"op": "drain", "cpu": if a & 1 == 0 { json!("all") } else { json!(0) }}),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn random_node_runs_keep_the_invariants_in_every_zone(
            dma in any::<bool>(),
            d32 in 1u64..=8,
            normal in 1u64..=8,
            cpus in 1u32..=2,
            kernel in 0usize..3,
            ops in proptest::collection::vec((any::<u8>(), any::<u32>(), any::<u32>()), 1..60),
        ) {
            let mut zones: Vec<(&str, u64, u64)> = Vec::new();
            if dma {
                zones.push(("DMA", 1024, 3072));
            }
            zones.push(("DMA32", 8192, d32 * 1024));
            zones.push(("Normal", 0x10_0000, normal * 1024));
            let mut names = Vec::new();
            let ops: Vec<Value> = ops.iter().map(|&(k, a, b)| op(k, a, b, &mut names, &zones)).collect();
            let kernel = ["v6.18", "v7.1", "v7.2"][kernel];
            let doc = json!({
                "version": 1,
                "kernel": kernel,
                "zones": zones.iter().map(|(n, s, p)| json!({"name": n, "start_pfn": s, "pages": p, "cpus": cpus})).collect::<Vec<_>>(),
                "ops": ops,
            });
            let run = buddyscope::parse_valid(&doc.to_string()).and_then(|s| buddyscope::Runner::new(s).run()).expect("runs");
            let initial = run.initial.clone();
            let fin = run.final_node.clone();
            let ends: Vec<u32> = run.ops.iter().map(|o| o.end).collect();
            let mut tl = Timeline::new(run);
            for (i, &end) in ends.iter().enumerate() {
                tl.seek(end);
                for z in tl.node().zones() {
                    prop_assert!(check_invariants(z).is_ok(), "op {}: {:?}", i, check_invariants(z));
                }
            }
            tl.seek(tl.len());
            prop_assert!(*tl.node() == fin);
            tl.seek(0);
            prop_assert!(*tl.node() == initial);
        }
    }
}

/// `init.zone` `"all"`: a whole machine's `/proc/pagetypeinfo` (DMA, DMA32, Normal of node 0)
/// becomes a node of three zones whose `/proc/pagetypeinfo` is the pasted one, row for row.
#[test]
fn a_whole_machines_pagetypeinfo_imports_as_a_node() {
    let pti = include_str!("fixtures/machine-6.18-pagetypeinfo.txt");
    let doc = serde_json::json!({
        "version": 1,
        "kernel": "v6.18",
        "init": {"pagetypeinfo": pti, "zone": "all"},
        "ops": [
            {"op": "alloc", "order": 0, "zone": "DMA32", "as": "d"},
            {"op": "free", "ref": "d"}
        ]
    });
    let run = buddyscope::parse_valid(&doc.to_string())
        .and_then(|s| {
            buddyscope::Runner::new(s)
                .options(&RunOptions {
                    max_ops: Some(0),
                    ..RunOptions::default()
                })
                .run()
        })
        .expect("imports");
    let names: Vec<&str> = run
        .initial
        .zones()
        .iter()
        .map(|z| z.cfg().name.as_str())
        .collect();
    assert_eq!(names, ["DMA", "DMA32", "Normal"]);
    let starts: Vec<u64> = run
        .initial
        .zones()
        .iter()
        .map(|z| z.cfg().start_pfn)
        .collect();
    assert_eq!(starts, [0, 0x1000, 0x10_0000]);
    let got = procfs::pagetypeinfo(&run.initial);
    let rows = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("Node"))
            .map(|l| l.trim_end().to_string())
            .collect()
    };
    assert_eq!(rows(&got), rows(pti));
    // A GFP_DMA32 page comes from DMA32 and goes back to it.
    let full = buddyscope::parse_valid(&doc.to_string())
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("runs");
    let t = buddyscope::explain::trace_text(&full);
    let alloc = t
        .lines()
        .find(|l| l.starts_with("mm_page_alloc:"))
        .expect("an alloc line");
    let pfn = u64::from_str_radix(
        alloc
            .split("pfn=0x")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap(),
        16,
    )
    .unwrap();
    assert!((0x1000..0x10_0000).contains(&pfn), "{alloc}");
    // Pfn ranges wait for the zones the import builds (tests/import_node.rs checks them).
    let range = serde_json::json!({
        "version": 1,
        "init": {"pagetypeinfo": pti, "zone": "all"},
        "ops": [{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 1}]
    });
    buddyscope::scenario::parse_valid(&range.to_string()).expect("checked after the import");
}

/// A compare side's `rmqueue_mode_memory` applies to every zone of a node, and the side's
/// scenario stays valid (`zone` stays unset beside `zones`); a node serializes and reads back.
#[test]
fn compare_sides_and_round_trips_keep_a_node_valid() {
    let s = buddyscope::scenario::parse(TWO).expect("parses");
    let side = buddyscope::scenario::CompareSide {
        label: "off".into(),
        kernel: None,
        rmqueue_mode_memory: Some(false),
        pcp: None,
        compaction_proactiveness: None,
        profile_methods: true,
    };
    let a = side.apply(&s);
    assert!(a.zones.iter().all(|z| !z.rmqueue_mode_memory));
    buddyscope::scenario::validate(&a).expect("valid");
    let back = buddyscope::scenario::parse(&s.to_json_pretty()).expect("reads back");
    assert_eq!(back, s);
}

/// A whole 64 GiB machine (DMA32 to 4 GiB, Normal 60 GiB above it: 16,773,120
/// pages) runs counters-only from the CLI and prints both zones; one zone past 16,777,216 pages
/// in all is refused with the path of the zone that crosses it.
#[test]
fn a_64_gib_machine_runs_counters_only() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let doc = r#"{"version": 1, "kernel": "v7.1",
      "zones": [{"name": "DMA32", "start_pfn": 4096, "pages": 1044480, "cpus": 4},
                {"name": "Normal", "start_pfn": 1048576, "pages": 15728640, "cpus": 4}],
      "ops": [
        {"op": "repeat", "times": 2000, "ops": [{"op": "alloc", "order": 9, "mt": "movable"}]},
        {"op": "alloc", "order": 0, "zone": "DMA32", "as": "d"},
        {"op": "free", "ref": "d"},
        {"op": "drain", "cpu": "all"}
      ]}"#;
    let mut child = Command::new(env!("CARGO_BIN_EXE_buddyscope"))
        .args(["run", "-", "--no-trace", "--format", "buddyinfo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(doc.as_bytes())
        .expect("writes");
    let out = child.wait_with_output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("Node 0, zone    DMA32 "));
    assert!(lines[1].starts_with("Node 0, zone   Normal "));
    let too_big = doc.replace("15728640", "15733760");
    let e = buddyscope::scenario::parse_valid(&too_big).expect_err("over 64 GiB");
    assert_eq!(e.path, "zones[1].pages");
}

/// vmalloc and vfree on a node of several zones: an area whose pages spill
/// from Normal into DMA32 (the worked example is `fidelity.rs`
/// `vmalloc_on_a_node_takes_each_batch_from_the_first_zone_above_low_plus_nr`); vfree gives each
/// page back to its own zone, on every profile and free method, and the run rewinds exactly.
#[test]
fn vmalloc_spills_into_dma32_and_vfree_frees_each_page_to_its_zone() {
    for (kernel, strategy, method) in [
        ("v6.18", "bulk", "per_page"),
        ("v7.1", "large_order", "per_page"),
        ("v7.2", "large_order", "chunked"),
        ("v7.2", "bulk", "chunked"),
    ] {
        let text = format!(
            r#"{{"version": 1, "kernel": "{kernel}",
  "zones": [{{"name": "DMA32", "start_pfn": 1040384, "pages": 8192}},
            {{"name": "Normal", "start_pfn": 1048576, "pages": 4096}}],
  "ops": [
    {{"op": "alloc", "order": 10, "mt": "movable", "as": "a"}},
    {{"op": "alloc", "order": 10, "mt": "movable", "as": "b"}},
    {{"op": "alloc", "order": 10, "mt": "movable", "as": "c"}},
    {{"op": "vmalloc", "pages": 1500, "strategy": "{strategy}", "as": "v"}},
    {{"op": "vfree", "ref": "v", "method": "{method}"}},
    {{"op": "free", "ref": "a"}}, {{"op": "free", "ref": "b"}}, {{"op": "free", "ref": "c"}},
    {{"op": "drain", "cpu": "all"}}
  ]}}"#
        );
        let run = buddyscope::parse_valid(&text)
            .and_then(|s| buddyscope::Runner::new(s).run())
            .expect("runs");
        let vm = &run.ops[3];
        assert!(
            vm.outcome.to_string().contains("1500"),
            "{kernel} {strategy}: {}",
            vm.outcome
        );
        // Normal had 1024 free pages: the area (and its 3-page array) needed DMA32 too.
        let switches_to_dma32 = run
            .log
            .events
            .range(vm.start as usize..vm.end as usize)
            .filter(|e| {
                matches!(
                    e.kind(),
                    EventKind::Mutation(Mutation::ZoneSwitch { to: 0, .. })
                )
            })
            .count();
        assert!(switches_to_dma32 > 0, "{kernel} {strategy}");
        let mut z = run.final_node.clone();
        for ev in run.log.events.iter().rev() {
            z.unapply(ev);
        }
        assert_eq!(z, run.initial, "{kernel} {strategy} {method}");
        for (zone, pages) in run.final_node.zones().iter().zip([8192, 4096]) {
            assert_eq!(
                zone.nr_free_pages(),
                pages,
                "{kernel} {strategy} {method}: every page back in its own zone"
            );
        }
    }
}

/// `alloc_contig_range` in DMA32 on a node of several zones: the movable pages in the range
/// migrate up into Normal (the target's gfp has `gfp_zone` Normal: `fidelity.rs`
/// `alloc_contig_range_migrates_a_dma32_page_up_into_normal`), their names follow them there,
/// and the later `free`, `get_page`/`put_page` and `split` act on the page in its new zone.
#[test]
fn alloc_contig_range_in_dma32_migrates_into_normal_and_the_names_follow() {
    for kernel in ["v6.18", "v7.1", "v7.2"] {
        let text = format!(
            r#"{{"version": 1, "kernel": "{kernel}",
  "zones": [{{"name": "DMA32", "start_pfn": 4096, "pages": 4096}},
            {{"name": "Normal", "start_pfn": 1048576, "pages": 4096}}],
  "ops": [
    {{"op": "alloc", "order": 0, "mt": "movable", "zone": "DMA32", "as": "p"}},
    {{"op": "alloc", "order": 3, "mt": "movable", "zone": "DMA32", "as": "q"}},
    {{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 64, "as": "c"}},
    {{"op": "get_page", "ref": "p", "page": 0}},
    {{"op": "free", "ref": "p"}},
    {{"op": "put_page", "ref": "p", "page": 0}},
    {{"op": "split", "ref": "q"}},
    {{"op": "free", "ref": "q"}},
    {{"op": "free_contig_range", "ref": "c"}},
    {{"op": "drain", "cpu": "all"}}
  ]}}"#
        );
        let run = buddyscope::parse_valid(&text)
            .and_then(|s| buddyscope::Runner::new(s).run())
            .expect("runs");
        let contig = run.ops[2].outcome.to_string();
        assert!(contig.contains("migrat"), "{kernel}: {contig}");
        // Both moved to Normal: 0x100000 and up.
        let moves: Vec<String> = run
            .log
            .messages
            .iter()
            .filter(|m| m.starts_with("migrate: "))
            .cloned()
            .collect();
        assert_eq!(moves.len(), 2, "{kernel}: {moves:?}");
        assert!(
            moves
                .iter()
                .all(|m| m.contains("now lives at 0x1000") && m.contains("zone Normal")),
            "{kernel}: {moves:?}"
        );
        for (i, rec) in run.ops.iter().enumerate() {
            assert!(
                !rec.outcome.to_string().contains("skipped")
                    && !rec.outcome.to_string().contains("refused"),
                "{kernel} op {i}: {}",
                rec.outcome
            );
        }
        let mut z = run.final_node.clone();
        for ev in run.log.events.iter().rev() {
            z.unapply(ev);
        }
        assert_eq!(z, run.initial, "{kernel}");
        for zone in run.final_node.zones() {
            assert_eq!(zone.nr_free_pages(), 4096, "{kernel}: every page back");
            buddyscope::mm::check_invariants(zone).unwrap();
        }
    }
}

/// Trace replay of a node of several zones: a trace line names no zone, but
/// its pfn does (`page_zone`), so each record is applied in the zone that holds its pfn. A
/// two-zone run with fallbacks, vmalloc spilling into DMA32, a migration into Normal and
/// drains, printed with `--format trace` and replayed, gives the same free lists in both zones
/// with zero divergences; a pfn in neither zone is a `pfn_outside_zone` divergence.
#[test]
fn a_two_zone_trace_replays_each_line_in_the_zone_of_its_pfn() {
    use buddyscope::run::replay::{replay_text, DivergenceKind, ReplayOptions};
    for kernel in ["v6.18", "v7.1", "v7.2"] {
        let text = format!(
            r#"{{"version": 1, "kernel": "{kernel}",
  "zones": [{{"name": "DMA32", "start_pfn": 1040384, "pages": 8192, "cpus": 2}},
            {{"name": "Normal", "start_pfn": 1048576, "pages": 4096, "cpus": 2}}],
  "ops": [
    {{"op": "alloc", "order": 0, "mt": "movable", "zone": "DMA32", "as": "p"}},
    {{"op": "alloc", "order": 10, "mt": "movable", "as": "a"}},
    {{"op": "alloc", "order": 10, "as": "b"}},
    {{"op": "alloc", "order": 9, "mt": "reclaimable", "as": "c", "cpu": 1}},
    {{"op": "vmalloc", "pages": 1500, "as": "v"}},
    {{"op": "alloc_contig_range", "pfn": 1040384, "nr_pages": 32, "as": "r"}},
    {{"op": "alloc", "order": 3, "mt": "unmovable", "zone": "DMA32", "as": "d", "cpu": 1}},
    {{"op": "vfree", "ref": "v"}},
    {{"op": "free", "ref": "b"}},
    {{"op": "free", "ref": "p"}},
    {{"op": "drain", "cpu": 1}},
    {{"op": "free", "ref": "d", "cpu": 1}},
    {{"op": "drain", "cpu": "all"}}
  ]}}"#
        );
        let s = buddyscope::scenario::parse(&text).unwrap();
        let run = buddyscope::parse_valid(&text)
            .and_then(|s| buddyscope::Runner::new(s).run())
            .expect("runs");
        let trace = buddyscope::explain::trace_text(&run);
        let rep = replay_text(&s, &trace, &ReplayOptions::default()).unwrap();
        assert_eq!(
            rep.divergence_count,
            0,
            "{kernel}: {:?}",
            rep.divergences.first().map(|d| d.to_string())
        );
        let lists = |node: &buddyscope::mm::Node| {
            node.zones()
                .iter()
                .map(|z| {
                    (0..11u8)
                        .flat_map(|o| {
                            buddyscope::mm::MigrateType::ALL.map(|mt| z.free_list_pfns(o, mt))
                        })
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            lists(&rep.run.final_node),
            lists(&run.final_node),
            "{kernel}"
        );
        assert_eq!(
            procfs::pagetypeinfo(&rep.run.final_node),
            procfs::pagetypeinfo(&run.final_node)
        );
        // `--compare-model` re-issues the requests to a node of the same zones: the first
        // requests (before any vmalloc, whose bulk pages have no mm_page_alloc) get the
        // traced pfns, in both zones.
        let cmp = buddyscope::run::replay::reissue(&s, trace.as_bytes()).unwrap();
        assert!(cmp.requests > 4, "{kernel}");
        assert!(
            cmp.first_difference
                .as_ref()
                .is_none_or(|d| d.line
                    > trace.lines().position(|l| l.contains("op ops[4]")).unwrap() as u64),
            "{kernel}: {:?}",
            cmp.first_difference
        );
    }
    let s = buddyscope::scenario::parse(
        r#"{"version": 1, "zones": [{"name": "DMA32", "start_pfn": 4096, "pages": 4096},
            {"name": "Normal", "start_pfn": 1048576, "pages": 4096}]}"#,
    )
    .unwrap();
    let line = "x-1 [000] ..... 1.0: mm_page_free: page=0 pfn=0x20000 order=0\n";
    let rep = replay_text(&s, line, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergences[0].kind, DivergenceKind::PfnOutsideZone);
    // An allocation of a DMA32 pfn is taken from DMA32.
    let line = "x-1 [000] ..... 1.0: mm_page_alloc: page=0 pfn=0x1000 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n";
    let rep = replay_text(&s, line, &ReplayOptions::default()).unwrap();
    assert_eq!(rep.divergence_count, 0, "{:?}", rep.divergences);
    assert_eq!(rep.run.final_node.zone(0).nr_free_pages(), 4095);
    assert_eq!(rep.run.final_node.zone(1).nr_free_pages(), 4096);
}
