//! `init.zone` `"all"` at a real machine's size: a zone of
//! the imported node may be as large as the node (64 GiB in all), as in `zones`; and the ops'
//! pfn ranges are checked after the import against the zones it built, with the errors and
//! JSON paths of a `zones` scenario.

use buddyscope::scenario::{procfs, ScenarioError};

const TYPES: [&str; 5] = [
    "Unmovable",
    "Movable",
    "Reclaimable",
    "HighAtomic",
    "Isolate",
];

/// One zone of the synthetic machine: its name, free blocks per type (orders 0..=10, in
/// [`TYPES`] order) and pageblocks per type.
struct SynthZone {
    name: &'static str,
    free: [[u64; 11]; 5],
    blocks: [u64; 5],
}

/// `/proc/pagetypeinfo` as v6.18's `mm/vmstat.c` prints it (`pagetypeinfo_showfree_print`:
/// `"Node %4d, zone %8s, type %12s "` then `"%6lu "` per order;
/// `pagetypeinfo_showblockcount_print`: `"Node %d, zone %8s "` then `"%12lu "` per type).
fn pagetypeinfo_text(zones: &[SynthZone]) -> String {
    let mut t = String::from(
        "Page block order: 9\nPages per block:  512\n\n\
         Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 \n",
    );
    for z in zones {
        for (ty, counts) in TYPES.iter().zip(&z.free) {
            t += &format!("Node {:4}, zone {:>8}, type {:>12} ", 0, z.name, ty);
            for c in counts {
                assert!(*c <= 100_000, "the kernel prints >100000 above this");
                t += &format!("{c:6} ");
            }
            t += "\n";
        }
    }
    t += "\nNumber of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate \n";
    for z in zones {
        t += &format!("Node 0, zone {:>8} ", z.name);
        for b in z.blocks {
            t += &format!("{b:12} ");
        }
        t += "\n";
    }
    t
}

/// A 64 GiB x86_64 machine: DMA 16 MiB (8 pageblocks, pfn 0), DMA32 up to 4 GiB (2040
/// pageblocks, ~3.98 GiB from pfn 0x1000), Normal 60 GiB above it (30720 pageblocks,
/// 15,728,640 pages from pfn 0x100000): 16,777,216 pages, exactly a node's limit. Normal alone
/// is 3.75 times the one-zone limit of 16 GiB.
fn machine_64_gib() -> Vec<SynthZone> {
    let z = [0u64; 11];
    vec![
        SynthZone {
            name: "DMA",
            // The DMA rows of tests/fixtures/machine-6.18-pagetypeinfo.txt.
            free: [
                [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
                [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3],
                z,
                z,
                z,
            ],
            blocks: [1, 7, 0, 0, 0],
        },
        SynthZone {
            name: "DMA32",
            free: [
                [20, 10, 0, 2, 0, 0, 0, 0, 0, 0, 0],
                [300, 200, 100, 50, 20, 10, 5, 3, 2, 50, 900],
                [5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
                z,
                z,
            ],
            blocks: [30, 2000, 10, 0, 0],
        },
        SynthZone {
            name: "Normal",
            free: [
                [3000, 1500, 800, 300, 100, 40, 10, 5, 2, 20, 10],
                [
                    50000, 20000, 8000, 3000, 1000, 500, 200, 100, 50, 2000, 10000,
                ],
                [2000, 1000, 400, 100, 30, 10, 4, 2, 1, 10, 5],
                [4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                z,
            ],
            blocks: [1200, 29000, 500, 20, 0],
        },
    ]
}

/// The `Node` rows of a pagetypeinfo text, trailing blanks cut.
fn rows(t: &str) -> Vec<String> {
    t.lines()
        .filter(|l| l.starts_with("Node"))
        .map(|l| l.trim_end().to_string())
        .collect()
}

#[test]
fn a_64_gib_machines_pagetypeinfo_imports_whole_and_round_trips() {
    let zones = machine_64_gib();
    let pti = pagetypeinfo_text(&zones);
    let doc = serde_json::json!({
        "version": 1,
        "kernel": "v6.18",
        "zone": {"cpus": 4},
        "init": {"pagetypeinfo": pti, "zone": "all"},
        "ops": [
            {"op": "alloc", "order": 9, "mt": "movable", "as": "thp"},
            {"op": "free", "ref": "thp"},
            {"op": "alloc", "order": 0, "zone": "DMA32", "as": "d"},
            {"op": "free", "ref": "d"},
            // A free order-10 Movable block of Normal at 39 GiB, far above any 16 GiB zone:
            // Normal's layout starts with Unmovable's 10 order-10 blocks (20 pageblocks), then
            // Movable's, two pageblocks each; this is Movable's 9001st.
            {"op": "alloc_contig_range", "pfn": 0x10_0000 + (20 + 2 * 9000) * 512, "nr_pages": 1024, "as": "c"},
            {"op": "free_contig_range", "ref": "c"},
            // The node's top pageblock, the last of Normal: HighAtomic, its allocated pages
            // unmovable, so the kernel's -EBUSY path.
            {"op": "alloc_contig_range", "pfn": 0x100_0000 - 512, "nr_pages": 512}
        ]
    });
    let run = buddyscope::parse_valid(&doc.to_string())
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("imports and runs");
    let spans: Vec<(u64, u32, &str)> = run
        .initial
        .zones()
        .map(|z| (z.cfg().start_pfn, z.pages(), z.cfg().name.as_str()))
        .collect();
    assert_eq!(
        spans,
        [
            (0, 4096, "DMA"),
            (0x1000, 1_044_480, "DMA32"),
            (0x10_0000, 15_728_640, "Normal")
        ]
    );
    let total: u64 = run.initial.zones().map(|z| u64::from(z.pages())).sum();
    assert_eq!(total, 16 << 20, "a node's limit, 64 GiB");
    // /proc/pagetypeinfo prints the pasted text back, row for row.
    assert_eq!(rows(&procfs::pagetypeinfo(&run.initial)), rows(&pti));
    // buddyinfo: per zone, the orders' sums over the types.
    let bi = procfs::buddyinfo(&run.initial);
    let lines: Vec<&str> = bi.lines().collect();
    assert_eq!(lines.len(), 3, "{bi}");
    for (line, z) in lines.iter().zip(&zones) {
        let want: Vec<u64> = (0..11).map(|o| z.free.iter().map(|c| c[o]).sum()).collect();
        let got: Vec<u64> = line
            .split_whitespace()
            .skip(4)
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(got, want, "{line}");
        assert!(line.starts_with(&format!("Node 0, zone {:>8} ", z.name)));
    }
    // zoneinfo: each zone's size and start as the kernel prints them.
    let zi = procfs::zoneinfo(&run.initial);
    assert!(zi.contains("Node 0, zone   Normal"), "{zi}");
    assert!(zi.contains("        managed  15728640\n"), "{zi}");
    assert!(zi.contains("  start_pfn:           1048576\n"), "{zi}");
    // The ops ran at the imported zones' pfns.
    assert_eq!(run.ops.len(), 7);
    let outcome = |i: usize| run.ops[i].outcome.to_string();
    assert!(outcome(4).contains("0x9cc800"), "{}", outcome(4));
    assert!(!outcome(4).contains("failed"), "{}", outcome(4));
    assert_eq!(outcome(6), "failed: range in use");
    // The end state rewinds to the import exactly.
    let mut z = run.final_zone.clone();
    for ev in run.log.events.iter().rev() {
        z.unapply(ev);
    }
    // (`first_difference`, not `assert_eq!`: a 64 GiB node's Debug text is gigabytes.)
    assert_eq!(z.first_difference(&run.initial), None);
    assert!(z == run.initial);
    // One pageblock more is past a node's 64 GiB: refused where the text gives the sizes.
    let mut bigger = machine_64_gib();
    bigger[2].blocks[1] += 1;
    let doc = serde_json::json!({
        "version": 1,
        "init": {"pagetypeinfo": pagetypeinfo_text(&bigger), "zone": "all"}
    });
    let e = buddyscope::parse_valid(&doc.to_string())
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect_err("over 64 GiB");
    assert_eq!(e.path, "init.pagetypeinfo");
    assert_eq!(
        e.message,
        "the zones up to Normal have 16777728 pages, more than a node's 16777216 (64 GiB)"
    );
}

/// The machine fixture's node as `init.zone` `"all"` builds it (DMA [0, 4096), DMA32
/// [4096, 786432), Normal [1048576, 2916352)), with `ops`; and the same node written as `zones`.
fn fixture_docs(ops: serde_json::Value) -> (String, String) {
    let pti = include_str!("fixtures/machine-6.18-pagetypeinfo.txt");
    let import = serde_json::json!({
        "version": 1,
        "kernel": "v6.18",
        "init": {"pagetypeinfo": pti, "zone": "all"},
        "ops": ops
    });
    let zones = serde_json::json!({
        "version": 1,
        "kernel": "v6.18",
        "zones": [
            {"name": "DMA", "start_pfn": 0, "pages": 4096},
            {"name": "DMA32", "start_pfn": 4096, "pages": 782336},
            {"name": "Normal", "start_pfn": 1048576, "pages": 1867776}
        ],
        "ops": ops
    });
    (import.to_string(), zones.to_string())
}

/// A pfn range on `init.zone` `"all"` is checked once the import has built the zones: inside
/// one of them it runs (and rewinds exactly); outside, or across a zone's end, it is refused
/// with the path, message and hint a `zones` scenario of the same node gives.
#[test]
fn pfn_ranges_on_an_import_of_all_zones_are_checked_against_its_zones() {
    // Accepted: a range of DMA32 (its free order-10 blocks lie from pfn 0x1000 up).
    let (doc, _) = fixture_docs(serde_json::json!([
        {"op": "alloc_contig_range", "pfn": 4096, "nr_pages": 1024, "as": "c"},
        {"op": "free_contig_range", "ref": "c"},
        {"op": "alloc_contig_range", "pfn": 1048576, "nr_pages": 16}
    ]));
    buddyscope::scenario::parse_valid(&doc).expect("checked at build, not before");
    let run = buddyscope::parse_valid(&doc)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("in DMA32 and in Normal");
    assert_eq!(run.ops.len(), 3);
    assert!(
        run.ops[0].outcome.to_string().contains("0x1000"),
        "{}",
        run.ops[0].outcome
    );
    let mut z = run.final_zone.clone();
    for ev in run.log.events.iter().rev() {
        z.unapply(ev);
    }
    assert_eq!(z.first_difference(&run.initial), None);
    // Refused: in the hole between DMA32 and Normal, across DMA32's end, past the node.
    for (op, path) in [
        (
            serde_json::json!({"op": "alloc_contig_range", "pfn": 786432, "nr_pages": 1}),
            "ops[1].pfn",
        ),
        (
            serde_json::json!({"op": "alloc_contig_range", "pfn": 786000, "nr_pages": 1024}),
            "ops[1].nr_pages",
        ),
        (
            serde_json::json!({"op": "free_contig_range", "pfn": 2916352, "nr_pages": 1}),
            "ops[1].pfn",
        ),
    ] {
        let ops = serde_json::json!([{"op": "alloc", "order": 0}, op]);
        let (import, zones) = fixture_docs(ops);
        let got: ScenarioError = buddyscope::parse_valid(&import)
            .and_then(|s| buddyscope::Runner::new(s).run())
            .expect_err("refused");
        let want = buddyscope::scenario::parse_valid(&zones).expect_err("refused as zones");
        assert_eq!(got.path, path, "{got}");
        assert_eq!(
            (got.path, got.message, got.hint),
            (want.path, want.message, want.hint)
        );
    }
}
