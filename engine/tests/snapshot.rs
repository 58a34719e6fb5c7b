//! `init: {"snapshot": …}`: exact placement from a synthetic snapshot, and strict validation
//! with JSON-path errors.

use buddyscope::{
    mm::MigrateType,
    run::Runner,
    scenario::{self, procfs, ValidScenario},
};

/// A 2048-page zone at pfn 0x100000 on 2 CPUs: pageblock 1 Unmovable; free blocks placed at
/// chosen pfns (list order as given); one order-0 and one order-9 pcp entry.
fn doc(snapshot_patch: &str) -> String {
    let pbs = r#"["Movable", "Unmovable", "Movable", "Reclaimable"]"#;
    format!(
        r#"{{"version": 1, "zone": {{"cpus": 2}}, "init": {{"snapshot": {{
  "version": 1, "zone": "Normal", "start_pfn": 1048576, "pages": 2048,
  "pageblocks": {pbs},
  "free_area": [
    {{"order": 0, "migratetype": "Movable", "pfns": [1048579, 1048577]}},
    {{"order": 3, "migratetype": "Unmovable", "pfns": [1049096]}},
    {{"order": 9, "migratetype": "Movable", "pfns": [1049600]}}
  ],
  "pcp": [{{"cpu": 1, "pindex": 1, "pfns": [1048580]}}, {{"cpu": 0, "pindex": 12, "pfns": [1050112]}}]
  {snapshot_patch}}}}}}}"#
    )
}

#[test]
fn a_snapshot_places_every_block_exactly() {
    let s = scenario::parse(&doc("")).unwrap();
    let r = Runner::new(ValidScenario::new(s.clone()).unwrap())
        .run()
        .unwrap();
    let z = r.final_node.active();
    assert_eq!((z.cfg().start_pfn, z.pages()), (0x100000, 2048));
    assert_eq!(z.free_list_pfns(0, MigrateType::Movable), vec![3, 1]);
    assert_eq!(z.free_list_pfns(3, MigrateType::Unmovable), vec![520]);
    assert_eq!(z.free_list_pfns(9, MigrateType::Movable), vec![1024]);
    assert_eq!(z.pcp_list_pfns(1, 1), vec![4]);
    assert_eq!(z.pcp_list_pfns(0, 12), vec![1536]);
    assert_eq!((z.pcp()[0].count, z.pcp()[1].count), (512, 1));
    assert_eq!(z.pb_mt(1), MigrateType::Unmovable);
    assert_eq!(z.pb_mt(3), MigrateType::Reclaimable);
    assert_eq!(z.nr_free_pages(), 2 + 8 + 512);
    // Every other page is allocated: /proc shows only the buddy blocks.
    let pti = procfs::pagetypeinfo(&r.final_node);
    assert!(
        pti.contains("Number of blocks type     Unmovable      Movable  Reclaimable"),
        "{pti}"
    );
    // The scenario round-trips through its JSON form.
    assert_eq!(scenario::parse(&s.to_json_pretty()).unwrap(), s);
}

#[test]
fn snapshot_errors_name_the_json_path() {
    let cases = [
        (
            doc("").replace("1048579, 1048577", "1048579, 1048579"),
            "init.snapshot.free_area[0].pfns[1]",
            "overlaps",
        ),
        (
            doc("").replace("1049096", "1049097"),
            "init.snapshot.free_area[1].pfns[0]",
            "not aligned",
        ),
        (
            doc("").replace("\"Reclaimable\"]", "\"Sticky\"]"),
            "init.snapshot.pageblocks[3]",
            "unknown migratetype",
        ),
        (
            doc("").replace("\"cpu\": 1", "\"cpu\": 2"),
            "init.snapshot.pcp[0].cpu",
            "2 CPU(s)",
        ),
        (
            doc(", \"extra\": 1"),
            "init.snapshot.extra",
            "unknown field",
        ),
        (
            doc("").replace("\"pages\": 2048", "\"pages\": 4096"),
            "init.snapshot.pageblocks",
            "has 8",
        ),
        (
            doc("").replace("[1050112]", "[1050624]"),
            "init.snapshot.pcp[1].pfns[0]",
            "outside the zone",
        ),
    ];
    for (text, path, msg) in cases {
        let e = scenario::parse_valid(&text).unwrap_err();
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains(msg), "{e}");
    }
}

/// A trace replayed on a snapshot takes exactly the pages the snapshot placed.
#[test]
fn a_trace_replays_on_a_snapshot() {
    use buddyscope::run::replay::{replay_text, DivergenceKind, ReplayOptions};
    let s = scenario::parse(&doc("")).unwrap();
    let trace = "\
 a-1 [001] ..... 1.0: mm_page_alloc: page=0 pfn=0x100004 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE
 a-1 [000] ..... 1.1: mm_page_alloc_zone_locked: page=0 pfn=0x100003 order=0 migratetype=1 percpu_refill=0
 a-1 [000] ..... 1.2: mm_page_alloc: page=0 pfn=0x100003 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE
 a-1 [000] ..... 1.3: mm_page_alloc: page=0 pfn=0x100002 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE
 a-1 [000] ..... 1.4: mm_page_pcpu_drain: page=0 pfn=0x100600 order=9 migratetype=3
";
    let rep = replay_text(&s, trace, &ReplayOptions::default()).unwrap();
    let got: Vec<_> = rep.divergences.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(
        got,
        vec![
            (4, DivergenceKind::AllocOfAllocated),
            (5, DivergenceKind::DrainMigratetype)
        ]
    );
    let z = rep.run.final_node.active();
    assert_eq!((z.pcp()[0].count, z.pcp()[1].count), (0, 0));
    assert_eq!(z.free_list_pfns(0, MigrateType::Movable), vec![1]);
    // The drained order-9 block went to the buddy as its pageblock's type (Reclaimable) and
    // merged with the free order-9 Movable buddy at 1024 (both types mergeable).
    assert_eq!(z.free_list_pfns(10, MigrateType::Reclaimable), vec![1024]);
}

/// What `Scenario::to_json_pretty` writes, the one reader reads back to the same scenario (and
/// validates the same way): every built-in, a zone snapshot, a node snapshot (whose `zone` the
/// reader fills from the snapshot), a `/proc` import of one zone and of every zone.
#[test]
fn every_kind_of_scenario_reads_back_from_its_json() {
    let node = std::fs::read_to_string("tests/fixtures/node-v2/before.json").unwrap();
    let pti = include_str!("fixtures/machine-6.18-pagetypeinfo.txt");
    let zi = include_str!("fixtures/machine-6.18-zoneinfo.txt");
    let mut docs: Vec<String> = scenario::builtin::ALL
        .iter()
        .map(|b| b.json().to_string())
        .collect();
    docs.push(doc(""));
    docs.push(format!(
        r#"{{"version": 1, "kernel": "v6.18", "init": {{"snapshot": {node}}}}}"#
    ));
    for zone in ["Normal", "all"] {
        docs.push(
            serde_json::json!({
                "version": 1,
                "init": {"pagetypeinfo": pti, "zoneinfo": zi, "zone": zone},
                "ops": [{"op": "drain"}]
            })
            .to_string(),
        );
    }
    for text in docs {
        let s = scenario::parse_valid(&text).unwrap();
        let json = s.to_json_pretty();
        let back = scenario::parse_valid(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
        assert_eq!(back, s, "{json}");
    }
}
