//! The scenario module's unit tests: the contract's examples, every error with its path, round trips.

use super::bounds::{MAX_CAPTION_CHARS, MAX_TOUR_STOPS};
use super::format::FREEABLE;
use super::layout::validate_with_zone_pages;
use super::read::{quoted_choices, suggest};
use super::scopes::Scopes;
use super::*;
use crate::mm::{FreeMethod, Kernel, MigrateType, VmallocStrategy, NR_PAGE_ORDERS};

/// The contract's example document, verbatim.
const EXAMPLE: &str = r#"{
  "version": 1,
  "name": "free_contig_range: page by page vs chunked",
  "description": "optional, markdown allowed, shown in the UI",
  "kernel": "v7.2",
  "zone": { "name": "Normal", "pages": 262144, "start_pfn": 0, "cpus": 1, "cma": false,
            "pcp": { "batch": 63, "high_min": 7856, "high_max": 48307 },
            "min_free_kbytes": 22528,
            "rmqueue_mode_memory": true },
  "init": "boot",
  "ops": [ { "op": "alloc", "order": 9, "mt": "movable", "as": "thp" },
           { "op": "split", "ref": "thp" },
           { "op": "free_contig_range", "ref": "thp" } ]
}"#;

fn doc_with(zone: &str, ops: &str) -> String {
    format!(r#"{{"version": 1, "zone": {zone}, "ops": {ops}}}"#)
}

fn ops_doc(ops: &str) -> String {
    doc_with("{}", ops)
}

fn err(text: &str) -> ScenarioError {
    match parse(text) {
        Ok(s) => panic!("expected an error, parsed {s:?}"),
        Err(e) => e,
    }
}

fn err_path(text: &str) -> String {
    err(text).path
}

/// A document whose every field and op kind is set, for round trips.
const FULL: &str = r#"{
  "version": 1, "name": "all", "kernel": "v6.18",
  "zone": { "name": "DMA32", "pages": 4096, "start_pfn": 1024, "cpus": 4, "cma": true,
            "pcp": { "batch": 7, "high_max": 100 }, "min_free_kbytes": 0,
            "rmqueue_mode_memory": false },
  "ops": [
    { "op": "alloc", "order": 3, "highatomic": true, "mt": "reclaimable", "as": "a",
      "cpu": 3, "note": "hi" },
    { "op": "alloc_contig_range", "pfn": 2048, "nr_pages": 100, "as": "r" },
    { "op": "vmalloc", "pages": 700, "strategy": "bulk", "as": "v" },
    { "op": "free", "ref": "a", "page": 2 },
    { "op": "split", "ref": "a" },
    { "op": "free_contig_range", "pfn": 1024, "nr_pages": 4096, "method": "chunked",
      "frozen": true },
    { "op": "free_contig_range", "ref": "r" },
    { "op": "vfree", "ref": "v", "method": "per_page" },
    { "op": "drain", "cpu": "all" },
    { "op": "drain", "cpu": 2, "note": "n" },
    { "op": "compact_memory" },
    { "op": "compact_memory", "cpu": 1, "note": "echo 1 > /proc/sys/vm/compact_memory" },
    { "op": "repeat", "times": 3, "cpu": 1, "ops": [
        { "op": "alloc", "order": 0, "as": "a" },
        { "op": "free", "ref": "a" } ] },
    { "op": "workload", "seed": 42, "steps": 1000,
      "order_weights": [8, 4, 2, 1, 0, 0, 0, 0, 0, 1, 0.5],
      "mt_weights": { "movable": 3, "unmovable": 1 }, "free_probability": 0.4 }
  ]
}"#;

#[test]
fn contract_example_parses() {
    let s = parse(EXAMPLE).unwrap();
    assert_eq!(s.version, 1);
    assert_eq!(s.name, "free_contig_range: page by page vs chunked");
    assert_eq!(s.kernel, Kernel::V7_2);
    assert_eq!(s.zone.pages, Some(262_144));
    assert_eq!(s.zone.pcp.batch, Some(63));
    assert_eq!(s.zone.pcp.high_max, Some(48307));
    assert_eq!(s.zone.min_free_kbytes, Some(22528));
    assert_eq!(s.init, Init::Boot);
    assert_eq!(s.ops.len(), 3);
    assert_eq!(
        s.ops[0],
        Op::Alloc {
            order: 9,
            mt: MigrateType::Movable,
            highatomic: false,
            as_name: Some("thp".into()),
            cpu: None,
            note: None,
            zone: None,
        }
    );
    assert_eq!(s.ops[2].reference(), Some(("thp", FREEABLE)));
}

#[test]
fn defaults() {
    let s = parse(r#"{"version": 1}"#).unwrap();
    assert_eq!(s, Scenario::default());
    assert_eq!(s.zone.name, "Normal");
    assert_eq!(s.zone.cpus, 1);
    assert!(s.zone.rmqueue_mode_memory);
    assert_eq!(s.static_zone_pages(), Some(DEFAULT_ZONE_PAGES));
    let s = parse(&ops_doc(
        r#"[{"op": "alloc", "order": 0}, {"op": "drain"}]"#,
    ))
    .unwrap();
    assert!(matches!(
        s.ops[0],
        Op::Alloc {
            mt: MigrateType::Unmovable,
            highatomic: false,
            ..
        }
    ));
    assert_eq!(
        s.ops[1],
        Op::Drain {
            cpu: DrainTarget::Cpu(0),
            note: None
        }
    );
}

#[test]
fn per_op_defaults_follow_the_profile() {
    let mut s = Scenario::default();
    for (k, strat, method) in [
        (Kernel::V6_12, VmallocStrategy::Bulk, FreeMethod::PerPage),
        (Kernel::V6_18, VmallocStrategy::Bulk, FreeMethod::PerPage),
        (
            Kernel::V7_3,
            VmallocStrategy::LargeOrder,
            FreeMethod::Chunked,
        ),
        (
            Kernel::V7_1,
            VmallocStrategy::LargeOrder,
            FreeMethod::PerPage,
        ),
        (
            Kernel::V7_2,
            VmallocStrategy::LargeOrder,
            FreeMethod::Chunked,
        ),
    ] {
        s.kernel = k;
        assert_eq!(s.vmalloc_strategy(None), strat);
        assert_eq!(s.free_contig_range_method(None), method);
        assert_eq!(s.vfree_method(None), method);
        assert_eq!(
            s.vmalloc_strategy(Some(VmallocStrategy::Bulk)),
            VmallocStrategy::Bulk
        );
        assert_eq!(
            s.vfree_method(Some(FreeMethod::PerPage)),
            FreeMethod::PerPage
        );
    }
}

#[test]
fn round_trip() {
    for text in [EXAMPLE, FULL] {
        let s = parse(text).unwrap();
        let json = s.to_json_pretty();
        assert_eq!(parse(&json).unwrap(), s, "{json}");
    }
    let proc = r#"{"version": 1, "init": {"pagetypeinfo": "x", "zoneinfo": "y"}}"#;
    let s = parse(proc).unwrap();
    assert_eq!(
        s.init,
        Init::Proc {
            pagetypeinfo: "x".into(),
            zoneinfo: Some("y".into()),
            zone: "Normal".into()
        }
    );
    assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
}

#[test]
fn full_document_fields() {
    let s = parse(FULL).unwrap();
    assert_eq!(s.zone.pcp.high_min, None);
    assert_eq!(s.ops[0].cpu(), 3);
    assert_eq!(s.ops[0].note(), Some("hi"));
    assert_eq!(
        s.ops[8],
        Op::Drain {
            cpu: DrainTarget::All,
            note: None
        }
    );
    let Op::Workload {
        order_weights,
        mt_weights,
        ..
    } = &s.ops[13]
    else {
        panic!()
    };
    assert_eq!(
        s.ops[10],
        Op::CompactMemory {
            cpu: None,
            note: None
        }
    );
    assert_eq!(s.ops[11].cpu(), 1);
    assert_eq!(order_weights[10], 0.5);
    assert_eq!(mt_weights.get(MigrateType::Movable), 3.0);
    assert_eq!(mt_weights.reclaimable, 0.0);
}

#[test]
fn display_format() {
    let e = err(&ops_doc(
        r#"[{"op":"drain"},{"op":"drain"},{"op":"drain"},{"op":"alloc","order":11}]"#,
    ));
    assert_eq!(
        e.to_string(),
        "ops[3].order: order 11 is above MAX_PAGE_ORDER (10); use 0..=10"
    );
}

#[test]
fn json_syntax_errors_give_line_and_column() {
    let e = err("{\n  \"version\": 1,\n  \"ops\": [}\n");
    assert_eq!(e.path, "");
    assert!(e.message.contains("line 3, column"), "{e}");
    let e = err("{\"version\": 1");
    assert!(e.message.contains("line 1"), "{e}");
    assert!(e.hint.contains("ends too early"), "{e}");
    let e = err(r#"{"version": 1, "ops": [{"op": "alloc", "order": 1, "order": 2}]}"#);
    assert!(e.message.contains("duplicate field `order`"), "{e}");
    assert!(e.message.contains("line 1, column"), "{e}");
    assert!(err("[1, 2]").message.contains("expected the document"));
}

#[test]
fn version_errors() {
    assert_eq!(err(r#"{"name": "x"}"#).path, "version");
    let e = err(r#"{"version": 2, "future_field": 1}"#);
    assert_eq!(e.path, "version");
    assert!(e.message.contains("unsupported scenario version 2"));
    assert_eq!(err_path(r#"{"version": "1"}"#), "version");
    // An integral float is an integer.
    assert!(parse(r#"{"version": 1.0}"#).is_ok());
}

#[test]
fn unknown_fields_are_named() {
    let e = err(r#"{"version": 1, "nmae": "x"}"#);
    assert_eq!(e.path, "nmae");
    assert!(e.message.contains("unknown field `nmae`"));
    assert!(e.hint.contains("did you mean `name`"), "{e}");

    let e = err(&ops_doc(r#"[{"op": "alloc", "ordr": 3}]"#));
    assert_eq!(e.path, "ops[0].ordr");
    assert!(
        e.message.contains("`ordr`") && e.message.contains("an alloc op"),
        "{e}"
    );
    assert!(e.hint.contains("did you mean `order`"), "{e}");

    // `as` is not a field of free.
    let e = err(&ops_doc(
        r#"[{"op":"alloc","order":0,"as":"a"},{"op": "free", "ref": "a", "as": "b"}]"#,
    ));
    assert_eq!(e.path, "ops[1].as");

    assert_eq!(err_path(&doc_with(r#"{"page": 4096}"#, "[]")), "zone.page");
    assert_eq!(
        err_path(&doc_with(r#"{"pcp": {"batch": 1, "hihg": 3}}"#, "[]")),
        "zone.pcp.hihg"
    );
    assert_eq!(
        err_path(r#"{"version": 1, "init": {"pagetypeinfoo": "x"}}"#),
        "init.pagetypeinfoo"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"repeat","times":1,"ops":[{"op":"drain","cpus":0}]}]"#
        )),
        "ops[0].ops[0].cpus"
    );
    let e = err(&ops_doc(
        r#"[{"op":"workload","seed":1,"steps":1,"order_weights":[1,0,0,0,0,0,0,0,0,0,0],
                "mt_weights":{"highatomic":1},"free_probability":0}]"#,
    ));
    assert_eq!(e.path, "ops[0].mt_weights.highatomic");
}

#[test]
fn op_tag_errors() {
    let e = err(&ops_doc(r#"[{"op": "drain"}, {"op": "aloc", "order": 1}]"#));
    assert_eq!(e.path, "ops[1].op");
    assert!(e.hint.contains("did you mean \"alloc\""), "{e}");
    assert_eq!(err_path(&ops_doc(r#"[{"order": 1}]"#)), "ops[0]");
    assert_eq!(err_path(&ops_doc(r#"[{"op": 3}]"#)), "ops[0].op");
    assert_eq!(err_path(&ops_doc(r#"["alloc"]"#)), "ops[0]");
    assert_eq!(err_path(&ops_doc(r#"{"op": "alloc"}"#)), "ops");
}

#[test]
fn type_and_missing_field_errors() {
    let e = err(&ops_doc(r#"[{"op": "alloc", "order": "9"}]"#));
    assert_eq!(e.path, "ops[0].order");
    assert!(e.message.contains("expected an integer"), "{e}");
    let e = err(&ops_doc(r#"[{"op": "alloc"}]"#));
    assert_eq!(e.path, "ops[0].order");
    assert!(e.message.contains("missing field `order`"), "{e}");
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "alloc", "order": -1}]"#)),
        "ops[0].order"
    );
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "alloc", "order": 1.5}]"#)),
        "ops[0].order"
    );
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "alloc", "order": 300}]"#)),
        "ops[0].order"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op": "alloc", "order": 1, "highatomic": 1}]"#
        )),
        "ops[0].highatomic"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op": "vmalloc", "pages": 1, "strategy": "big"}]"#
        )),
        "ops[0].strategy"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"vmalloc","pages":1,"as":"v"},{"op":"vfree","ref":"v","method":"chunky"}]"#
        )),
        "ops[1].method"
    );
    assert_eq!(err_path(&ops_doc(r#"[{"op": "free"}]"#)), "ops[0].ref");
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "repeat", "ops": []}]"#)),
        "ops[0].times"
    );
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "alloc", "order": 1, "note": 5}]"#)),
        "ops[0].note"
    );
    let e = err(r#"{"version": 1, "kernel": "v7.0"}"#);
    assert_eq!(e.path, "kernel");
    assert!(e.hint.contains("\"v7.1\""), "{e}");
    assert_eq!(err_path(r#"{"version": 1, "init": "bootx"}"#), "init");
    assert_eq!(
        err_path(r#"{"version": 1, "init": {}}"#),
        "init.pagetypeinfo"
    );
    assert_eq!(err_path(r#"{"version": 1, "zone": 5}"#), "zone");
}

#[test]
fn zone_errors() {
    for (zone, path) in [
        (r#"{"pages": 1000}"#, "zone.pages"),
        (r#"{"pages": 4194305}"#, "zone.pages"),
        (r#"{"start_pfn": 1000}"#, "zone.start_pfn"),
        (r#"{"start_pfn": 1099511627776}"#, "zone.start_pfn"),
        (r#"{"cpus": 0}"#, "zone.cpus"),
        (r#"{"cpus": 65}"#, "zone.cpus"),
        (r#"{"pcp": {"batch": 0}}"#, "zone.pcp.batch"),
        (r#"{"pcp": {"high_min": -1}}"#, "zone.pcp.high_min"),
        (r#"{"pcp": {"high_max": 99999999999}}"#, "zone.pcp.high_max"),
        (r#"{"min_free_kbytes": 3000000000}"#, "zone.min_free_kbytes"),
        (
            r#"{"compaction_proactiveness": 101}"#,
            "zone.compaction_proactiveness",
        ),
        (
            r#"{"compaction_proactiveness": -1}"#,
            "zone.compaction_proactiveness",
        ),
        (r#"{"name": "High Mem"}"#, "zone.name"),
        (r#"{"name": ""}"#, "zone.name"),
    ] {
        assert_eq!(err_path(&doc_with(zone, "[]")), path, "{zone}");
    }
    // The limits themselves are fine; high_min > high_max is the kernel's business.
    for zone in [
        r#"{"pages": 1024, "start_pfn": 2048, "cpus": 64}"#,
        r#"{"pages": 4194304, "pcp": {"batch": 1, "high_min": 10, "high_max": 5}}"#,
    ] {
        parse(&doc_with(zone, "[]")).unwrap();
    }
}

/// `zone.cma_pageblocks`: whole pageblocks inside the zone, with `cma`, at boot only.
#[test]
fn cma_pageblocks_errors() {
    let area = |cma: bool, a: &str| {
        format!(r#"{{"pages": 4096, "start_pfn": 1024, "cma": {cma}, "cma_pageblocks": {a}}}"#)
    };
    for (zone, path) in [
        (
            area(false, r#"{"start_pfn": 2048, "nr_pages": 512}"#),
            "zone.cma_pageblocks",
        ),
        (
            area(true, r#"{"start_pfn": 2049, "nr_pages": 512}"#),
            "zone.cma_pageblocks.start_pfn",
        ),
        (
            area(true, r#"{"start_pfn": 512, "nr_pages": 512}"#),
            "zone.cma_pageblocks.start_pfn",
        ),
        (
            area(true, r#"{"start_pfn": 2048, "nr_pages": 0}"#),
            "zone.cma_pageblocks.nr_pages",
        ),
        (
            area(true, r#"{"start_pfn": 2048, "nr_pages": 513}"#),
            "zone.cma_pageblocks.nr_pages",
        ),
        (
            area(true, r#"{"start_pfn": 4608, "nr_pages": 1024}"#),
            "zone.cma_pageblocks.nr_pages",
        ),
        (
            area(true, r#"{"start_pfn": 2048}"#),
            "zone.cma_pageblocks.nr_pages",
        ),
        (
            area(true, r#"{"start_pfn": 2048, "nr_pages": 512, "x": 1}"#),
            "zone.cma_pageblocks.x",
        ),
        (area(true, "[]"), "zone.cma_pageblocks"),
    ] {
        assert_eq!(err_path(&doc_with(&zone, "[]")), path, "{zone}");
    }
    let ok = parse(&doc_with(
        &area(true, r#"{"start_pfn": 4608, "nr_pages": 512}"#),
        "[]",
    ))
    .unwrap();
    assert_eq!(
        ok.zone.cma_pageblocks,
        Some(CmaPageblocks {
            start_pfn: 4608,
            nr_pages: 512
        })
    );
    // In a node: the path names the zone; the area must lie in that zone.
    let node = r#"{"version": 1, "name": "n", "zones": [
        {"name": "DMA32", "pages": 4096, "start_pfn": 4096},
        {"name": "Normal", "pages": 4096, "start_pfn": 1048576, "cma": true,
         "cma_pageblocks": {"start_pfn": 4096, "nr_pages": 512}}], "ops": []}"#;
    assert_eq!(err_path(node), "zones[1].cma_pageblocks.start_pfn");
    // Not with an imported zone.
    let imported = r#"{"version": 1, "name": "i", "zone": {"cma": true,
        "cma_pageblocks": {"start_pfn": 0, "nr_pages": 512}},
        "init": {"pagetypeinfo": "x"}, "ops": []}"#;
    assert_eq!(err_path(imported), "zone.cma_pageblocks");
}

#[test]
fn op_value_errors() {
    let cases = [
        (r#"[{"op": "alloc", "order": 0, "cpu": 1}]"#, "ops[0].cpu"),
        (r#"[{"op": "drain", "cpu": 1}]"#, "ops[0].cpu"),
        (r#"[{"op": "drain", "cpu": "some"}]"#, "ops[0].cpu"),
        (r#"[{"op": "tick", "cpu": 1}]"#, "ops[0].cpu"),
        (r#"[{"op": "tick", "cpu": "most"}]"#, "ops[0].cpu"),
        (r#"[{"op": "tick", "cpus": 0}]"#, "ops[0].cpus"),
        (r#"[{"op": "compact_memory", "cpu": 1}]"#, "ops[0].cpu"),
        (r#"[{"op": "compact_memory", "cpu": "all"}]"#, "ops[0].cpu"),
        (r#"[{"op": "compact_memory", "order": 9}]"#, "ops[0].order"),
        (r#"[{"op": "compact"}]"#, "ops[0].order"),
        (r#"[{"op": "compact", "order": 11}]"#, "ops[0].order"),
        (
            r#"[{"op": "compact", "order": 9, "priority": 2}]"#,
            "ops[0].priority",
        ),
        (
            r#"[{"op": "compact", "order": 9, "zone": "DMA"}]"#,
            "ops[0].zone",
        ),
        (r#"[{"op": "compact", "order": 9, "cpu": 1}]"#, "ops[0].cpu"),
        (r#"[{"op": "kcompactd", "order": 0}]"#, "ops[0].order"),
        (r#"[{"op": "kcompactd", "order": 11}]"#, "ops[0].order"),
        (r#"[{"op": "kcompactd", "order": "9"}]"#, "ops[0].order"),
        (r#"[{"op": "kcompactd", "cpu": 1}]"#, "ops[0].cpu"),
        (
            r#"[{"op": "kcompactd", "proactiveness": 20}]"#,
            "ops[0].proactiveness",
        ),
        (
            r#"[{"op": "compact", "order": 9, "mt": "movable"}]"#,
            "ops[0].mt",
        ),
        (
            r#"[{"op": "repeat", "times": 1, "cpu": 5, "ops": []}]"#,
            "ops[0].cpu",
        ),
        (
            r#"[{"op": "alloc", "order": 0, "mt": "highatomic"}]"#,
            "ops[0].mt",
        ),
        (r#"[{"op": "alloc", "order": 0, "mt": "cma"}]"#, "ops[0].mt"),
        (
            r#"[{"op": "alloc", "order": 0, "mt": "Movable"}]"#,
            "ops[0].mt",
        ),
        (r#"[{"op": "vmalloc", "pages": 0}]"#, "ops[0].pages"),
        (
            r#"[{"op": "alloc_contig_range", "pfn": 0, "nr_pages": 0}]"#,
            "ops[0].nr_pages",
        ),
        (
            r#"[{"op": "alloc_contig_range", "pfn": 262144, "nr_pages": 1}]"#,
            "ops[0].pfn",
        ),
        (
            r#"[{"op": "alloc_contig_range", "pfn": 262000, "nr_pages": 145}]"#,
            "ops[0].nr_pages",
        ),
        (
            r#"[{"op": "free_contig_range", "pfn": 0}]"#,
            "ops[0].nr_pages",
        ),
        (
            r#"[{"op": "free_contig_range", "nr_pages": 3}]"#,
            "ops[0].pfn",
        ),
        (r#"[{"op": "free_contig_range"}]"#, "ops[0]"),
        (
            r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "free_contig_range", "ref": "a", "pfn": 0, "nr_pages": 1}]"#,
            "ops[1].pfn",
        ),
        (
            r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "free_contig_range", "ref": "a", "nr_pages": 1}]"#,
            "ops[1].nr_pages",
        ),
        (
            r#"[{"op": "repeat", "times": 2, "ops": [
                    {"op": "free_contig_range", "pfn": 18446744073709551615, "nr_pages": 2}]}]"#,
            "ops[0].ops[0].pfn",
        ),
    ];
    for (ops, path) in cases {
        assert_eq!(err_path(&ops_doc(ops)), path, "{ops}");
    }
    let e = err(&ops_doc(
        r#"[{"op": "alloc", "order": 0, "mt": "highatomic"}]"#,
    ));
    assert!(e.hint.contains("\"highatomic\": true"), "{e}");
    // With cpus = 4, cpu 3 and drain 3 are fine, 4 is not.
    let four = r#"{"cpus": 4}"#;
    parse(&doc_with(
        four,
        r#"[{"op":"alloc","order":0,"cpu":3},{"op":"drain","cpu":3},{"op":"drain","cpu":"all"}]"#,
    ))
    .unwrap();
    let e = err(&doc_with(four, r#"[{"op":"drain","cpu":4}]"#));
    assert_eq!(e.path, "ops[0].cpu");
    assert!(e.hint.contains("0..=3"), "{e}");
}

#[test]
fn pfn_ranges_are_relative_to_the_zone() {
    let zone = r#"{"pages": 2048, "start_pfn": 4096}"#;
    parse(&doc_with(
        zone,
        r#"[{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 2048}]"#,
    ))
    .unwrap();
    assert_eq!(
        err_path(&doc_with(
            zone,
            r#"[{"op": "alloc_contig_range", "pfn": 4095, "nr_pages": 1}]"#
        )),
        "ops[0].pfn"
    );
    assert_eq!(
        err_path(&doc_with(
            zone,
            r#"[{"op": "free_contig_range", "pfn": 6143, "nr_pages": 2}]"#
        )),
        "ops[0].nr_pages"
    );
}

#[test]
fn workload_errors() {
    let w = |ow: &str, mw: &str, fp: &str| {
        ops_doc(&format!(
            r#"[{{"op":"workload","seed":1,"steps":10,"order_weights":{ow},
                      "mt_weights":{mw},"free_probability":{fp}}}]"#
        ))
    };
    let ow = "[1,0,0,0,0,0,0,0,0,0,0]";
    parse(&w(ow, r#"{"movable": 1}"#, "0.5")).unwrap();
    assert_eq!(
        err_path(&w("[1,2,3]", r#"{"movable":1}"#, "0")),
        "ops[0].order_weights"
    );
    assert_eq!(
        err_path(&w("[1,0,-2,0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
        "ops[0].order_weights[2]"
    );
    assert_eq!(
        err_path(&w("[1,0,\"x\",0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
        "ops[0].order_weights[2]"
    );
    assert_eq!(
        err_path(&w("[0,0,0,0,0,0,0,0,0,0,0]", r#"{"movable":1}"#, "0")),
        "ops[0].order_weights"
    );
    assert_eq!(
        err_path(&w(ow, r#"{"movable":-1}"#, "0")),
        "ops[0].mt_weights.movable"
    );
    assert_eq!(err_path(&w(ow, "{}", "0")), "ops[0].mt_weights");
    assert_eq!(
        err_path(&w(ow, r#"{"movable":1}"#, "1.5")),
        "ops[0].free_probability"
    );
    assert_eq!(
        err_path(&ops_doc(r#"[{"op":"workload","seed":1,"steps":10}]"#)),
        "ops[0].order_weights"
    );
}

#[test]
fn names_and_scopes() {
    // Unknown ref, in a nested repeat.
    let e = err(&ops_doc(
        r#"[{"op": "drain"}, {"op": "drain"},
                {"op": "repeat", "times": 1, "ops": [{"op": "free", "ref": "nope"}]}]"#,
    ));
    assert_eq!(e.path, "ops[2].ops[0].ref");
    assert!(e.message.contains("`nope` is not bound"), "{e}");

    // A ref before the binding.
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op": "free", "ref": "a"}, {"op": "alloc", "order": 0, "as": "a"}]"#
        )),
        "ops[0].ref"
    );

    // Wrong kind: vfree of an alloc, split of an alloc_contig_range, free of a vmalloc.
    let e = err(&ops_doc(
        r#"[{"op": "alloc", "order": 0, "as": "a"}, {"op": "vfree", "ref": "a"}]"#,
    ));
    assert_eq!(e.path, "ops[1].ref");
    assert!(e.message.contains("names an alloc (ops[0])"), "{e}");
    assert!(e.message.contains("vfree takes a vmalloc"), "{e}");
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"alloc_contig_range","pfn":0,"nr_pages":8,"as":"r"},{"op":"split","ref":"r"}]"#
        )),
        "ops[1].ref"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"vmalloc","pages":8,"as":"v"},{"op":"free","ref":"v"}]"#
        )),
        "ops[1].ref"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"vmalloc","pages":8,"as":"v"},{"op":"free_contig_range","ref":"v"}]"#
        )),
        "ops[1].ref"
    );
    // The accepted kinds.
    parse(&ops_doc(
            r#"[{"op":"alloc","order":2,"as":"a"},{"op":"alloc_contig_range","pfn":0,"nr_pages":8,"as":"r"},
                {"op":"vmalloc","pages":8,"as":"v"},
                {"op":"split","ref":"a"},{"op":"free","ref":"a","page":1},{"op":"free","ref":"r"},
                {"op":"free_contig_range","ref":"a"},{"op":"free_contig_range","ref":"r"},
                {"op":"vfree","ref":"v"}]"#,
        ))
        .unwrap();

    // Rebinding in the same scope, top level and inside a repeat.
    let e = err(&ops_doc(
        r#"[{"op": "alloc", "order": 0, "as": "a"}, {"op": "vmalloc", "pages": 1, "as": "a"}]"#,
    ));
    assert_eq!(e.path, "ops[1].as");
    assert!(
        e.message
            .contains("already bound in this scope (at ops[0])"),
        "{e}"
    );
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op":"repeat","times":2,"ops":[
                    {"op":"alloc","order":0,"as":"x"},{"op":"alloc","order":0,"as":"x"}]}]"#
        )),
        "ops[0].ops[1].as"
    );
    assert_eq!(
        err_path(&ops_doc(r#"[{"op": "alloc", "order": 0, "as": ""}]"#)),
        "ops[0].as"
    );

    // Shadowing in a repeat is fine, and the inner kind wins inside.
    parse(&ops_doc(
        r#"[{"op": "alloc", "order": 0, "as": "a"},
                {"op": "repeat", "times": 3, "ops": [
                    {"op": "free", "ref": "a"},
                    {"op": "vmalloc", "pages": 4, "as": "a"},
                    {"op": "vfree", "ref": "a"},
                    {"op": "repeat", "times": 2, "ops": [{"op": "vfree", "ref": "a"}]}]},
                {"op": "free", "ref": "a"}]"#,
    ))
    .unwrap();
    // ... and after the repeat the outer binding is back.
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op": "alloc", "order": 0, "as": "a"},
                    {"op": "repeat", "times": 1, "ops": [{"op": "vmalloc", "pages": 4, "as": "a"}]},
                    {"op": "vfree", "ref": "a"}]"#
        )),
        "ops[2].ref"
    );

    // A name of an inner scope is gone outside it.
    let e = err(&ops_doc(
        r#"[{"op": "repeat", "times": 1, "ops": [{"op": "alloc", "order": 0, "as": "in"}]},
                {"op": "free", "ref": "in"}]"#,
    ));
    assert_eq!(e.path, "ops[1].ref");
    assert!(e.hint.contains("ops[0].ops[0]"), "{e}");
    assert!(e.hint.contains("scope has ended"), "{e}");
    // Also between two sibling repeats.
    assert_eq!(
        err_path(&ops_doc(
            r#"[{"op": "repeat", "times": 1, "ops": [{"op": "alloc", "order": 0, "as": "in"}]},
                    {"op": "repeat", "times": 1, "ops": [{"op": "free", "ref": "in"}]}]"#
        )),
        "ops[1].ops[0].ref"
    );
}

fn nested_repeats(depth: usize) -> String {
    let mut ops = r#"[{"op": "alloc", "order": 0}]"#.to_string();
    for _ in 0..depth {
        ops = format!(r#"[{{"op": "repeat", "times": 1, "ops": {ops}}}]"#);
    }
    ops_doc(&ops)
}

#[test]
fn repeat_depth() {
    parse(&nested_repeats(16)).unwrap();
    let e = err(&nested_repeats(17));
    let want = format!("ops[0]{}", ".ops[0]".repeat(16));
    assert_eq!(e.path, want);
    assert!(e.message.contains("17 deep"), "{e}");
}

#[test]
fn proc_init_defers_pfn_checks() {
    let text = r#"{"version": 1, "init": {"pagetypeinfo": "text"},
                       "ops": [{"op": "alloc_contig_range", "pfn": 300000, "nr_pages": 1}]}"#;
    let s = parse(text).unwrap();
    assert_eq!(s.static_zone_pages(), None);
    let p = Program::compile(&s.ops);
    let e = validate_with_zone_pages(&s, &p, 262_144).unwrap_err();
    assert_eq!(e.path, "ops[0].pfn");
    validate_with_zone_pages(&s, &p, 524_288).unwrap();
    let e = validate_with_zone_pages(&s, &p, 512).unwrap_err();
    assert_eq!(e.path, "init.pagetypeinfo");

    // With zone.pages, the size is known (any other final size is an error).
    let text = r#"{"version": 1, "init": {"pagetypeinfo": "t", "zoneinfo": "z"},
                       "zone": {"pages": 4096},
                       "ops": [{"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 1}]}"#;
    assert_eq!(err_path(text), "ops[0].pfn");
    let e = validate_with_zone_pages(
        &parse(r#"{"version": 1, "init": {"pagetypeinfo": "t"}, "zone": {"pages": 4096}}"#)
            .unwrap(),
        &Program::default(),
        8192,
    )
    .unwrap_err();
    assert_eq!(e.path, "zone.pages");

    // Pfns below start_pfn are caught without a size.
    let text = r#"{"version": 1, "init": {"pagetypeinfo": "t"}, "zone": {"start_pfn": 1024},
                       "ops": [{"op": "free_contig_range", "pfn": 5, "nr_pages": 1}]}"#;
    assert_eq!(err_path(text), "ops[0].pfn");

    assert_eq!(
        err_path(r#"{"version": 1, "init": {"pagetypeinfo": " "}}"#),
        "init.pagetypeinfo"
    );
    assert_eq!(
        err_path(r#"{"version": 1, "init": {"pagetypeinfo": "t", "zoneinfo": ""}}"#),
        "init.zoneinfo"
    );
    assert_eq!(
        err_path(r#"{"version": 1, "init": {"pagetypeinfo": "t", "zone": "Nor mal"}}"#),
        "init.zone"
    );
}

#[test]
fn proc_zone_size_rule() {
    let proc = |zone: &str, zoneinfo: bool| {
        let zi = if zoneinfo { r#", "zoneinfo": "z""# } else { "" };
        parse(&format!(
            r#"{{"version": 1, "zone": {zone}, "init": {{"pagetypeinfo": "t"{zi}}}}}"#
        ))
        .unwrap()
    };
    // managed wins; zone.pages must agree with it.
    assert_eq!(
        proc("{}", true).resolve_proc_zone_pages(Some(1500), 3),
        Ok(1500)
    );
    assert_eq!(
        proc(r#"{"pages": 2048}"#, true)
            .resolve_proc_zone_pages(Some(1500), 3)
            .unwrap_err()
            .path,
        "zone.pages"
    );
    // else zone.pages, else Σ pageblocks × 512.
    assert_eq!(
        proc(r#"{"pages": 2048}"#, false).resolve_proc_zone_pages(None, 4),
        Ok(2048)
    );
    assert_eq!(proc("{}", false).resolve_proc_zone_pages(None, 8), Ok(4096));
    // counts must sum to ⌈size / 512⌉.
    assert_eq!(
        proc("{}", true)
            .resolve_proc_zone_pages(Some(1500), 2)
            .unwrap_err()
            .path,
        "init.pagetypeinfo"
    );
    assert_eq!(
        proc("{}", false)
            .resolve_proc_zone_pages(None, 1)
            .unwrap_err()
            .path,
        "init.pagetypeinfo"
    );
    assert_eq!(
        Scenario::default().resolve_proc_zone_pages(None, 0),
        Ok(DEFAULT_ZONE_PAGES)
    );
}

#[test]
fn a_compare_pair_kept_as_json_reads_back_through_the_reader() {
    // As a share link of this format has always written it: the sides as the scenario's
    // `compare` writes them, `kernel` absent for "the scenario's", `profile_methods` only when
    // false.
    let old = r#"{"a":{"label":"v7.1","kernel":"v7.1"},
                  "b":{"label":"v7.2, rmqueue_mode memory off","kernel":"v7.2",
                       "rmqueue_mode_memory":false,"profile_methods":false}}"#;
    let pair: ComparePair = serde_json::from_str(old).unwrap();
    assert_eq!(pair.a, CompareSide::kernel(Kernel::V7_1));
    assert_eq!(
        (pair.b.rmqueue_mode_memory, pair.b.profile_methods),
        (Some(false), false)
    );
    let keep = r#"{"a":{"label":"same kernel","rmqueue_mode_memory":null},"b":{"label":"b"}}"#;
    let pair: ComparePair = serde_json::from_str(keep).unwrap();
    assert_eq!((pair.a.kernel, pair.a.rmqueue_mode_memory), (None, None));
    for pair in [
        ComparePair::default_for(&Scenario::default()),
        pair,
        serde_json::from_str(old).unwrap(),
    ] {
        let json = serde_json::to_string(&pair).unwrap();
        assert_eq!(serde_json::from_str::<ComparePair>(&json).unwrap(), pair);
    }
    // A damaged pair is refused, the error naming the field as a scenario's errors do.
    for (bad, path) in [
        (
            r#"{"a":{"label":"x"},"b":{"label":"y","kernel":"v9"}}"#,
            "b.kernel",
        ),
        (r#"{"a":{"label":"x"},"b":{"label":"y"},"c":1}"#, "c"),
        (r#"{"a":{"label":"x"}}"#, "b"),
        (r#"{"a":{"kernel":"v7.1"},"b":{"label":"y"}}"#, "a.label"),
        (
            r#"{"a":{"label":"x","pcp":{"high":0}},"b":{"label":"y"}}"#,
            "a.pcp.high",
        ),
        (
            r#"{"a":{"label":"x"},"b":{"label":"y","pcp":{"batch":0}}}"#,
            "b.pcp.batch",
        ),
    ] {
        let e = serde_json::from_str::<ComparePair>(bad).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!("{path}: ")),
            "{bad}: {e}"
        );
    }
}

/// A compare side's `pcp` replaces the zone's whole (`{}`: the kernel's defaults), reads back
/// as written, and makes the side differ from one without it.
#[test]
fn a_compare_side_replaces_the_zones_pcp() {
    let text = r#"{"version": 1, "zone": {"pages": 4096, "pcp": {"batch": 1, "high_max": 0}},
        "compare": {"a": {"label": "high 0", "pcp": {"batch": 1, "high_min": 0, "high_max": 0}},
                    "b": {"label": "defaults", "pcp": {}}},
        "ops": []}"#;
    let s = parse(text).unwrap();
    let c = s.compare.clone().unwrap();
    let a = c.a.apply(&s);
    assert_eq!(
        (a.zone.pcp.batch, a.zone.pcp.high_min, a.zone.pcp.high_max),
        (Some(1), Some(0), Some(0))
    );
    assert!(c.b.apply(&s).zone.pcp.is_empty());
    assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
    let same = text.replace(
        r#""pcp": {}"#,
        r#""pcp": {"batch": 1, "high_min": 0, "high_max": 0}"#,
    );
    assert_eq!(parse(&same).unwrap_err().path, "compare.b");
}

/// A compare side's `compaction_proactiveness` sets the sysctl in every zone, reads back as
/// written, names its JSON path when out of range, and makes the side differ from one without.
#[test]
fn a_compare_side_sets_compaction_proactiveness() {
    let text = r#"{"version": 1, "zone": {"pages": 4096},
        "compare": {"a": {"label": "off", "compaction_proactiveness": 0},
                    "b": {"label": "default", "compaction_proactiveness": 20}},
        "ops": []}"#;
    let s = parse(text).unwrap();
    let c = s.compare.clone().unwrap();
    assert_eq!(c.a.apply(&s).zone.compaction_proactiveness, Some(0));
    assert_eq!(c.b.apply(&s).zone.compaction_proactiveness, Some(20));
    assert_eq!(s.zone.compaction_proactiveness, None);
    assert_eq!(parse(&s.to_json_pretty()).unwrap(), s);
    for bad in ["101", "-1", "\"20\""] {
        let t = text.replace(
            r#""compaction_proactiveness": 20"#,
            &format!(r#""compaction_proactiveness": {bad}"#),
        );
        assert_eq!(
            parse(&t).unwrap_err().path,
            "compare.b.compaction_proactiveness",
            "{bad}"
        );
    }
    let same = text.replace(
        r#""compaction_proactiveness": 0"#,
        r#""compaction_proactiveness": 20"#,
    );
    assert_eq!(parse(&same).unwrap_err().path, "compare.b");
    let zones = r#"{"version": 1, "zones": [
        {"name": "DMA32", "pages": 4096}, {"name": "Normal", "start_pfn": 4096, "pages": 4096}],
        "compare": {"a": {"label": "off", "compaction_proactiveness": 0}, "b": {"label": "b"}},
        "ops": []}"#;
    let s = parse(zones).unwrap();
    let a = s.compare.as_ref().unwrap().a.apply(&s);
    assert!(a
        .zones
        .iter()
        .all(|z| z.compaction_proactiveness == Some(0)));
}

#[test]
fn validate_checks_scenarios_built_in_code() {
    let mut s = Scenario::default();
    s.ops.push(Op::Alloc {
        order: 12,
        mt: MigrateType::Unmovable,
        highatomic: false,
        as_name: None,
        cpu: None,
        note: None,
        zone: None,
    });
    assert_eq!(validate(&s).unwrap_err().path, "ops[0].order");
    s.ops[0] = Op::Workload {
        seed: 0,
        steps: 1,
        order_weights: [f64::NAN; NR_PAGE_ORDERS],
        mt_weights: MtWeights::default(),
        free_probability: 0.0,
        cpu: None,
        note: None,
    };
    assert_eq!(validate(&s).unwrap_err().path, "ops[0].order_weights[0]");
    s.ops.clear();
    s.version = 3;
    assert_eq!(validate(&s).unwrap_err().path, "version");
}

#[test]
fn scopes_helper() {
    let mut sc: Scopes<u32> = Scopes::new();
    assert_eq!(sc.depth(), 0);
    assert!(sc.pop().is_none(), "the root scope stays");
    sc.bind("a", 1).unwrap();
    assert_eq!(sc.bind("a", 2), Err(2));
    sc.push();
    sc.bind("a", 3).unwrap();
    sc.bind("b", 4).unwrap();
    assert_eq!(sc.lookup("a"), Some(&3));
    assert_eq!(sc.lookup_here("a"), Some(&3));
    *sc.lookup_mut("a").unwrap() += 10;
    assert_eq!(sc.lookup("a"), Some(&13));
    let frame = sc.pop().unwrap();
    assert_eq!(frame.len(), 2);
    assert_eq!(sc.lookup("a"), Some(&1));
    assert_eq!(sc.lookup("b"), None);
}

#[test]
fn suggestions() {
    assert_eq!(suggest("ordr", ["order", "mt"]), Some("order"));
    assert_eq!(suggest("zzzz", ["order", "mt"]), None);
    assert_eq!(
        suggest("Movable", ["unmovable", "movable"]),
        Some("movable")
    );
    assert_eq!(quoted_choices(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
}

/// `get_page` / `put_page`: `ref` and `page` required, strict fields, a vmalloc ref is
/// an error whose hint says which pages a third party can hold.
#[test]
fn get_page_and_put_page_are_validated() {
    let ok = parse(&ops_doc(
        r#"[{"op":"alloc_contig_range","pfn":0,"nr_pages":8,"as":"r"},
            {"op":"get_page","ref":"r","page":3,"note":"scanner"},
            {"op":"put_page","ref":"r","page":3,"cpu":0}]"#,
    ))
    .unwrap();
    assert_eq!(
        ok.ops[1],
        Op::GetPage {
            ref_name: "r".into(),
            page: 3,
            cpu: None,
            note: Some("scanner".into())
        }
    );
    for (ops, path) in [
        (r#"[{"op":"get_page","page":0}]"#, "ops[0].ref"),
        (
            r#"[{"op":"alloc","order":0,"as":"a"},{"op":"get_page","ref":"a"}]"#,
            "ops[1].page",
        ),
        (
            r#"[{"op":"alloc","order":0,"as":"a"},{"op":"put_page","ref":"a","page":-1}]"#,
            "ops[1].page",
        ),
        (
            r#"[{"op":"alloc","order":0,"as":"a"},{"op":"put_page","ref":"a","page":0,"pages":1}]"#,
            "ops[1].pages",
        ),
        (
            r#"[{"op":"alloc","order":0,"as":"a"},{"op":"get_page","ref":"a","page":0,"cpu":3}]"#,
            "ops[1].cpu",
        ),
        (r#"[{"op":"put_page","ref":"nope","page":0}]"#, "ops[0].ref"),
    ] {
        assert_eq!(err_path(&ops_doc(ops)), path, "{ops}");
    }
    let e = err(&ops_doc(
        r#"[{"op":"vmalloc","pages":8,"as":"v"},{"op":"get_page","ref":"v","page":0}]"#,
    ));
    assert_eq!(e.path, "ops[1].ref");
    assert!(
        e.message
            .contains("get_page takes an alloc or an alloc_contig_range"),
        "{e}"
    );
    assert!(e.hint.contains("split_page"), "{e}");
}

/// `cma_alloc` / `cma_release`: the area must exist (one), `nr_pages` 1..=its size, `align` an
/// order, and `cma_release` takes only a `cma_alloc`'s name.
#[test]
fn cma_alloc_and_cma_release_are_validated() {
    let cma =
        r#"{"pages": 4096, "cma": true, "cma_pageblocks": {"start_pfn": 2048, "nr_pages": 1024}}"#;
    let ok = parse(&doc_with(
        cma,
        r#"[{"op":"cma_alloc","nr_pages":1024,"align":9,"as":"c","note":"dma"},
            {"op":"cma_release","ref":"c","cpu":0}]"#,
    ))
    .unwrap();
    assert_eq!(
        ok.ops[0],
        Op::CmaAlloc {
            nr_pages: 1024,
            align: Some(9),
            as_name: Some("c".into()),
            cpu: None,
            note: Some("dma".into())
        }
    );
    assert_eq!(ok.ops[1].reference().map(|r| r.0), Some("c"));
    // Round trip: the printed document reads back to the same ops.
    let json = ok.to_json_pretty();
    assert_eq!(parse(&json).unwrap(), ok, "{json}");
    for (zone, ops, path) in [
        ("{}", r#"[{"op":"cma_alloc","nr_pages":1}]"#, "ops[0]"),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":0}]"#,
            "ops[0].nr_pages",
        ),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":1025}]"#,
            "ops[0].nr_pages",
        ),
        (cma, r#"[{"op":"cma_alloc"}]"#, "ops[0].nr_pages"),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":1,"align":11}]"#,
            "ops[0].align",
        ),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":1,"cpu":1}]"#,
            "ops[0].cpu",
        ),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":1,"pfn":0}]"#,
            "ops[0].pfn",
        ),
        (cma, r#"[{"op":"cma_release"}]"#, "ops[0].ref"),
        (cma, r#"[{"op":"cma_release","ref":"x"}]"#, "ops[0].ref"),
        (
            cma,
            r#"[{"op":"alloc","order":0,"as":"a"},{"op":"cma_release","ref":"a"}]"#,
            "ops[1].ref",
        ),
        (
            cma,
            r#"[{"op":"cma_alloc","nr_pages":8,"as":"c"},{"op":"free","ref":"c"}]"#,
            "ops[1].ref",
        ),
    ] {
        assert_eq!(err_path(&doc_with(zone, ops)), path, "{ops}");
    }
    // Two areas: the model has one.
    let two = r#"{"version": 1, "name": "n", "zones": [
        {"name": "DMA32", "pages": 4096, "start_pfn": 4096, "cma": true,
         "cma_pageblocks": {"start_pfn": 4096, "nr_pages": 512}},
        {"name": "Normal", "pages": 4096, "start_pfn": 1048576, "cma": true,
         "cma_pageblocks": {"start_pfn": 1048576, "nr_pages": 512}}],
        "ops": [{"op":"cma_alloc","nr_pages":1}]}"#;
    let e = err(two);
    assert_eq!(e.path, "ops[0]");
    assert!(e.message.contains("2 CMA areas"), "{e}");
}

/// Three ops: alloc (order 2), free, drain; `tour` spliced in.
fn tour_doc(tour: &str) -> String {
    format!(
        r#"{{"version": 1, "zone": {{"pages": 4096}}, "ops": [
            {{"op": "alloc", "order": 2, "as": "a"}},
            {{"op": "free", "ref": "a"}},
            {{"op": "drain"}}], "tour": {tour}}}"#
    )
}

fn static_err(tour: &str) -> ScenarioError {
    parse(&tour_doc(tour)).expect_err("expected a static error")
}

#[test]
fn tour_shape_errors_carry_the_json_path() {
    let e = static_err(r#"{"op": 1}"#);
    assert_eq!(e.path, "tour");
    assert!(e.message.contains("an array of tour stops"), "{e}");
    let e = static_err(r#"[{"op": 1, "caption": "x"}, {"caption": "y"}]"#);
    assert_eq!(e.path, "tour[1].op");
    assert!(e.message.contains("missing field `op`"), "{e}");
    let e = static_err(r#"[{"op": 1, "caption": "x", "captoin": "y"}]"#);
    assert_eq!(e.path, "tour[0].captoin");
    assert!(e.hint.contains("did you mean `caption`"), "{e}");
    let e = static_err(r#"[{"op": -1, "caption": "x"}]"#);
    assert_eq!(e.path, "tour[0].op");
    let e = static_err(r#"[{"op": 1, "caption": 7}]"#);
    assert_eq!(e.path, "tour[0].caption");
    let e = static_err(r#"[{"op": 1, "event": "2", "caption": "x"}]"#);
    assert_eq!(e.path, "tour[0].event");
}

#[test]
fn tour_static_rules_order_and_captions() {
    let e = static_err(r#"[{"op": 1, "caption": "  "}]"#);
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("tour[0].caption", "the caption is empty")
    );
    let long = "x".repeat(MAX_CAPTION_CHARS + 1);
    let e = static_err(&format!(r#"[{{"op": 1, "caption": "{long}"}}]"#));
    assert_eq!(e.path, "tour[0].caption");
    let e = static_err(r#"[{"op": 2, "caption": "a"}, {"op": 1, "caption": "b"}]"#);
    assert_eq!(e.path, "tour[1].op");
    assert!(e.message.contains("not after stop 1"), "{e}");
    let e = static_err(
        r#"[{"op": 1, "event": 3, "caption": "a"}, {"op": 1, "event": 3, "caption": "b"}]"#,
    );
    assert_eq!(e.path, "tour[1].op");
    let many: Vec<String> = (0..=MAX_TOUR_STOPS)
        .map(|i| format!(r#"{{"op": {i}, "caption": "c"}}"#))
        .collect();
    let e = static_err(&format!("[{}]", many.join(",")));
    assert_eq!(e.path, format!("tour[{MAX_TOUR_STOPS}]"));
}

// The program: ops numbered once, walked without recursion.

fn program(ops: &str) -> Program {
    parse_valid(&format!(r#"{{"version": 1, "ops": {ops}}}"#))
        .unwrap()
        .program()
        .clone()
}

#[test]
fn ops_are_numbered_in_definition_order_with_their_paths() {
    let p = program(
        r#"[{"op": "alloc", "order": 0, "as": "a"},
            {"op": "repeat", "times": 3, "ops": [
                {"op": "alloc", "order": 1, "as": "b"},
                {"op": "repeat", "times": 0, "ops": [{"op": "free", "ref": "b"}]},
                {"op": "free", "ref": "a"}]},
            {"op": "free", "ref": "a"}]"#,
    );
    let paths: Vec<&str> = p.defs().iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "ops[0]",
            "ops[1]",
            "ops[1].ops[0]",
            "ops[1].ops[1]",
            "ops[1].ops[1].ops[0]",
            "ops[1].ops[2]",
            "ops[2]"
        ]
    );
    assert_eq!(p.body(1), 2..6);
    assert_eq!(p.body(3), 4..5);
    assert_eq!(p.body(0), 1..1);
    assert_eq!(p.parent(4), Some(3));
    assert_eq!(p.depth(4), 2);
    assert_eq!(p.position(4), [1, 1, 0]);
    assert_eq!((p.runs(2), p.runs(4), p.runs(6)), (3, 0, 1));
    // Names bound to the op that defines them, in the scope the ref sees.
    assert_eq!(p.target(4), Some(2));
    assert_eq!(p.target(5), Some(0));
    assert_eq!(p.target(6), Some(0));
    assert!(matches!(p.op(1), Op::Repeat { ops, .. } if ops.is_empty()));
    // alloc, 3 × (alloc, free), free.
    assert_eq!(p.executed_ops(), 1 + 3 * 2 + 1);
}

#[test]
fn a_walk_visits_each_body_once_and_a_run_once_per_iteration() {
    let p = program(
        r#"[{"op": "repeat", "times": 2, "ops": [
                {"op": "drain"},
                {"op": "repeat", "times": 0, "ops": [{"op": "tick"}]}]},
            {"op": "drain"}]"#,
    );
    let show = |w: Walk<'_>| {
        w.map(|v| match v {
            Visit::Op(id, _) => format!("{id}"),
            Visit::Enter { repeat, iteration } => format!("<{repeat}.{iteration}"),
            Visit::Leave { repeat } => format!("{repeat}>"),
        })
        .collect::<Vec<_>>()
        .join(" ")
    };
    assert_eq!(show(p.walk()), "0 <0.0 1 2 <2.0 3 2> 0> 4");
    assert_eq!(show(p.run_order()), "0 <0.0 1 2 0> <0.1 1 2 0> 4");
}

/// The start of a scenario that boots, read without its ops and tour, is the full reader's
/// scenario with its ops and tour cleared, checked again: for every built-in that boots (and
/// none for the others).
#[test]
fn the_boot_start_is_the_full_readers_start() {
    for b in builtin::ALL {
        let full = parse_valid(b.json()).unwrap();
        let got = parse_boot_start(b.json()).unwrap();
        if !matches!(full.init, Init::Boot) {
            assert_eq!(got, None, "{}", b.id);
            continue;
        }
        let mut start = full.into_scenario();
        start.ops.clear();
        start.tour.clear();
        assert_eq!(got, Some(ValidScenario::new(start).unwrap()), "{}", b.id);
    }
}

/// What the boot start reads it reports as the full reader does; its ops and tour it does not
/// look at; any other `init` is left to the full reader.
#[test]
fn the_boot_start_reads_and_checks_all_but_the_ops() {
    let bad = [
        r#"{"version": 2}"#,
        r#"{"version": 1, "zone": {"pages": 3}}"#,
        r#"{"version": 1, "zone": {"cpus": 0}}"#,
        r#"{"version": 1, "kernel": "v9.9"}"#,
        r#"{"version": 1, "nme": "x"}"#,
        r#"{"version": 1, "zone": {"start_pfn": 1000}}"#,
        r#"{"version": 1, "zones": []}"#,
        r#"{"version": 1, "compare": {"a": {"label": "x"}}}"#,
        r#"{"version": 1, "zone": {"name": "two words"}}"#,
        r#"[1]"#,
        r#"{"version": 1, "version": 1}"#,
    ];
    for text in bad {
        let full = parse_valid(text).unwrap_err();
        assert_eq!(parse_boot_start(text).unwrap_err(), full, "{text}");
    }
    let ops_and_tour = r#"{"version": 1, "ops": [{"op": "nope"}], "tour": 3}"#;
    assert!(parse_valid(ops_and_tour).is_err());
    let start = parse_boot_start(ops_and_tour).unwrap().unwrap();
    assert!(start.ops.is_empty() && start.tour.is_empty() && start.program().is_empty());
    let proc = r#"{"version": 1, "init": {"pagetypeinfo": ""}}"#;
    assert_eq!(parse_boot_start(proc).unwrap(), None);
    assert_eq!(
        parse_boot_start(r#"{"version": 1, "init": 5}"#).unwrap(),
        None
    );
}

/// For every character, `lowercase_against_ascii` gives what `to_lowercase` gives, or one
/// non-ASCII character where that gives one non-ASCII character: the same distance to any ASCII
/// name (`suggest`'s candidates).
#[test]
fn lowercase_against_ascii_is_to_lowercase_for_the_distance() {
    for c in (0..=0x10ffff).filter_map(char::from_u32) {
        let word = c.to_string();
        let unicode = word.to_lowercase();
        let ours = super::read::lowercase_against_ascii(&word);
        let one_non_ascii = |s: &str| s.chars().count() == 1 && !s.is_ascii();
        assert!(
            ours == unicode || (one_non_ascii(&ours) && one_non_ascii(&unicode)),
            "U+{:04X}: {ours:?} against {unicode:?}",
            c as u32
        );
    }
    // In a word (to_lowercase's one rule of context, a final Σ, gives one non-ASCII character
    // either way).
    assert_eq!(
        super::read::lowercase_against_ascii("Zone.\u{212a}ELVIN.\u{130}"),
        "zone.kelvin.i\u{307}"
    );
    assert_eq!(
        super::read::lowercase_against_ascii("ΟΔΟΣ").chars().count(),
        "ΟΔΟΣ".to_lowercase().chars().count()
    );
}
