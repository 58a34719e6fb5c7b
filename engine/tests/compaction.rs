//! Golden tests for `compact_memory` (`compact_node` → `compact_zone`, mm/compaction.c
//! v7.2.13; the same functions in v6.12.117), worked by hand from the C. Each expected line
//! says which lines of the C give its numbers.

#[path = "support/thp_capture.rs"]
mod thp_capture;

use buddyscope::{
    explain::trace_text,
    mm::{MigrateType, PageKind, NO_OWNER},
    run::Run,
};

fn run(text: &str) -> Run {
    buddyscope::parse_valid(text)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The owner id of the allocation named `name` (the op whose summary ends `as NAME`).
fn owner_of(r: &Run, name: &str) -> u32 {
    let suffix = format!(" as {name}");
    r.owners
        .iter()
        .position(|o| r.op_defs[o.def as usize].summary.ends_with(&suffix))
        .unwrap_or_else(|| panic!("no allocation {name}")) as u32
}

/// The `mm_compaction_*` and `mm_page_free` lines of the run's trace.
fn compaction_lines(run: &Run) -> Vec<String> {
    let text = trace_text(run);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("mm_compaction_begin"))
        .expect("a compaction ran");
    lines[first..]
        .iter()
        // mm_compaction_finished (one per turn of compact_zone's loop) has its own test.
        .filter(|l| {
            (l.starts_with("mm_compaction") && !l.starts_with("mm_compaction_finished"))
                || l.starts_with("mm_page_free")
        })
        .map(|l| {
            // "mm_page_free: page=... pfn=0x2 order=0" → keep pfn and order.
            if let Some(rest) = l.strip_prefix("mm_page_free: ") {
                let fields: Vec<&str> = rest.split(' ').skip(1).collect();
                format!("mm_page_free: {}", fields.join(" "))
            } else {
                l.clone()
            }
        })
        .collect()
}

/// A 4096-page zone at pfn 0 (pageblocks 0..=7; four order-10 MOVABLE blocks at boot): a, b, c
/// are pfns 0, 1, 2 (the pcp refill splits the first order-10 block from the bottom), b is
/// freed, `extra` ops, then every pcp page back to the buddy. After the drain the free blocks
/// are 1 and 3 (order 0), 4 (2), 8 (3) … 512 (9) and 1024, 2048, 3072 (10).
fn three_pages(extra: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "compact", "kernel": "v7.2",
 "zone": {{"pages": 4096, "cpus": 1}},
 "ops": [
  {{"op": "alloc", "order": 0, "mt": "movable", "as": "a"}},
  {{"op": "alloc", "order": 0, "mt": "movable", "as": "b"}},
  {{"op": "alloc", "order": 0, "mt": "movable", "as": "c"}},
  {{"op": "free", "ref": "b"}}{extra},
  {{"op": "drain", "cpu": "all"}},
  {{"op": "compact_memory"}}
 ]}}"#
    )
}

/// No migration target: every pageblock above the migration scanner is one free order-10
/// block's half.
///
/// * `compact_zone` (v7.2.13 :2612-2614, `whole_zone`): migrate_pfn 0, free_pfn
///   `pageblock_start_pfn(4096 - 1)` = 0xe00.
/// * First round: `finish_pageblock` (:2660-2663) is true, `last_migrated_pfn` 0 and the
///   iteration start 0 share pageblock 0. `isolate_migratepages_block(0, 0x200)` (:855-1330)
///   scans all 512 pfns once (a buddy counts `2^order` at once, :1012-1019), takes a and c
///   (LRU, one reference) and does not stop at 32 (`finish_pageblock`): nr_taken 2.
/// * `migrate_pages` → `compaction_alloc` (:1846) finds no free page → `isolate_freepages`
///   (:1726): low_pfn `pageblock_end_pfn(0x200)` = 0x400, stride 1 (sync). Pageblock 7 (0xe00)
///   is the top half of the order-10 block at 0xc00: not PageBuddy, MOVABLE → suitable
///   (:1428-1452); 512 pfns scanned, none is a buddy head: 0 taken; the whole block scanned →
///   `update_pageblock_skip` (:1793-1795); nothing isolated → stride 2 (:1815-1820).
///   Pageblock 6 (0xc00) starts with a free order-10 block: `suitable_migration_target` says no
///   (`buddy_order >= pageblock_order`, :1433-1441). Pageblock 5: 256 pfns at stride 2, stride
///   4; pageblock 4 (0x800, order-10 head) skipped; pageblock 3: 128 pfns at stride 4; block 2
///   (0x400) is below low_pfn: free_pfn = 0x200 (:1831).
/// * No target: -ENOMEM, nr_migrated 0 nr_failed 2 (:2701-2704); the scanners met
///   (0x200 >> 9 <= 0x200 >> 9, :1467-1471) so not CONTENDED; `__compact_finished` →
///   COMPACT_COMPLETE (:2288-2306).
#[test]
fn compact_memory_finds_no_target_beside_whole_free_order10_blocks() {
    let r = run(&three_pages(""));
    assert_eq!(
        compaction_lines(&r),
        [
            "mm_compaction_begin: zone_start=0x0 migrate_pfn=0x0 free_pfn=0xe00 zone_end=0x1000, mode=sync",
            "mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512 nr_taken=2",
            "mm_compaction_isolate_freepages: range=(0xe00 ~ 0x1000) nr_scanned=512 nr_taken=0",
            "mm_compaction_isolate_freepages: range=(0xa00 ~ 0xc00) nr_scanned=256 nr_taken=0",
            "mm_compaction_isolate_freepages: range=(0x600 ~ 0x800) nr_scanned=128 nr_taken=0",
            "mm_compaction_migratepages: nr_migrated=0 nr_failed=2",
            "mm_compaction_end: zone_start=0x0 migrate_pfn=0x200 free_pfn=0x200 zone_end=0x1000, mode=sync status=complete",
        ]
    );
    let s = r.stats;
    // count_compact_events (:2792-2793, :693-703, :1325-1327): 512; 512 + 256 + 128; 2 + 0.
    assert_eq!(
        (
            s.compact_migrate_scanned,
            s.compact_free_scanned,
            s.compact_isolated
        ),
        (512, 896, 2)
    );
    // Pageblocks 7, 5 and 3 got their skip bits (the free scanner scanned them whole); the
    // migration scanner took pages in pageblock 0 (`skip_updated`, :1171-1177): no bit there.
    let skipped: Vec<u32> = (0..8)
        .filter(|&pb| r.final_node.active().pageblock_skip(pb))
        .collect();
    assert_eq!(skipped, [3, 5, 7]);
    // Nothing moved: a and c are where they were.
    assert_ne!(r.final_node.active().page_owner(0), NO_OWNER);
    assert_ne!(r.final_node.active().page_owner(2), NO_OWNER);
}

/// An `alloc_contig_range` of pfn 0xe00 splits the top order-10 block: 0xc00/o9 and, above
/// the taken page, 0xe01/o0, 0xe02/o1, 0xe04/o2 … 0xf00/o8 (7.2's prepared chunks, freed while
/// isolated, back at the list tails).
///
/// * Round 1 as above up to `isolate_freepages`: pageblock 7 starts with the allocated page
///   (not compound, not buddy: suitable). `isolate_freepages_block(0xe00, 0x1000)` (:574-711):
///   0xe00 fails (1 scanned); 0xe01/o0 → `__isolate_free_page` (1 page, 1 free < 2 to migrate);
///   0xe02/o1 → 2 pages, 3 ≥ 2: `blockpfn += isolated; break` (:649-652). nr_scanned 1 + 1 +
///   (1 + 2 - 1) = 4, taken 3, range (0xe00 ~ 0xe04). free_pfn stays 0xe04 (:1800-1807).
/// * `compaction_alloc` in list order (`list_add`, :1196: c first): c → 0xe01 (freepages[0]);
///   a → 0xe02 of freepages[1], its other half 0xe03 to freepages[0] (:1868-1875). Both sources
///   freed (`migrate_folio_done` → `folio_put`: `mm_page_free` of 0x2, then 0x0).
/// * Rounds 2-7: `finish_pageblock` false; pageblocks 1..6 have nothing to take: 512, 1024
///   (order-10 buddy at 0x400: `low_pfn += 1023`, clamped to the block end, :1340), 512, 1024,
///   512, 512 scanned; each gets its skip bit (:1318-1322). Then block_end 0x1000 > free_pfn:
///   ISOLATE_NONE, the scanners met: COMPLETE.
/// * `release_free_list` (:91-113): 0xe03 marked allocated and freed (`mm_page_free`).
#[test]
fn compact_memory_moves_two_pages_into_the_top_pageblock() {
    let r = run(&three_pages(
        r#",
  {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"}"#,
    ));
    assert_eq!(
        compaction_lines(&r),
        [
            "mm_compaction_begin: zone_start=0x0 migrate_pfn=0x0 free_pfn=0xe00 zone_end=0x1000, mode=sync",
            "mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512 nr_taken=2",
            "mm_compaction_isolate_freepages: range=(0xe00 ~ 0xe04) nr_scanned=4 nr_taken=3",
            "mm_page_free: pfn=0x2 order=0",
            "mm_page_free: pfn=0x0 order=0",
            "mm_compaction_migratepages: nr_migrated=2 nr_failed=0",
            "mm_compaction_isolate_migratepages: range=(0x200 ~ 0x400) nr_scanned=512 nr_taken=0",
            "mm_compaction_isolate_migratepages: range=(0x400 ~ 0x600) nr_scanned=1024 nr_taken=0",
            "mm_compaction_isolate_migratepages: range=(0x600 ~ 0x800) nr_scanned=512 nr_taken=0",
            "mm_compaction_isolate_migratepages: range=(0x800 ~ 0xa00) nr_scanned=1024 nr_taken=0",
            "mm_compaction_isolate_migratepages: range=(0xa00 ~ 0xc00) nr_scanned=512 nr_taken=0",
            "mm_compaction_isolate_migratepages: range=(0xc00 ~ 0xe00) nr_scanned=512 nr_taken=0",
            "mm_page_free: pfn=0xe03 order=0",
            "mm_compaction_end: zone_start=0x0 migrate_pfn=0xe00 free_pfn=0xe04 zone_end=0x1000, mode=sync status=complete",
        ]
    );
    let z = r.final_node.active();
    let s = r.stats;
    assert_eq!(
        (
            s.compact_migrate_scanned,
            s.compact_free_scanned,
            s.compact_isolated
        ),
        (4608, 4, 5)
    );
    // The owners moved with their pages: c at 0xe01, a at 0xe02; 0 and 2 are free (on the pcp).
    let (a, c) = (owner_of(&r, "a"), owner_of(&r, "c"));
    assert_eq!(
        (z.page_owner(0xe01), z.page_owner(0xe02)),
        (c, a),
        "c went first (the migrate list is in reverse scan order)"
    );
    assert_eq!(z.page_kind(0), PageKind::Pcp);
    assert_eq!(z.page_kind(2), PageKind::Pcp);
    let skipped: Vec<u32> = (0..8).filter(|&pb| z.pageblock_skip(pb)).collect();
    assert_eq!(skipped, [1, 2, 3, 4, 5, 6]);
}

/// A pinned page (`get_page`: a reference beyond its mapping) is not isolated
/// (`isolate_migratepages_block` :1095-1103, `goto isolate_fail_put`), and for compact_memory
/// (not direct, so `skip_on_failure` is false, :887-890) the scan of its pageblock goes on:
/// a is taken (nr_taken 1), one free page is enough (0xe01, range (0xe00 ~ 0xe02)), a moves
/// and c stays at pfn 2.
#[test]
fn a_pinned_page_stays_and_the_scan_goes_on() {
    let r = run(&three_pages(
        r#",
  {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"},
  {"op": "get_page", "ref": "c", "page": 0}"#,
    ));
    let lines = compaction_lines(&r);
    assert_eq!(
        lines[1..4],
        [
            "mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512 nr_taken=1",
            "mm_compaction_isolate_freepages: range=(0xe00 ~ 0xe02) nr_scanned=2 nr_taken=1",
            "mm_page_free: pfn=0x0 order=0",
        ]
    );
    let z = r.final_node.active();
    assert_eq!(z.page_owner(2), owner_of(&r, "c"), "the pinned page stays");
    assert_eq!(z.page_owner(0xe01), owner_of(&r, "a"));
    assert_eq!(z.page_refcount(2), 2);
}

/// The issue's scenario: a zone filled with movable pages, every other one freed (order-1
/// allocations split, page 1 of each freed), has no free block of order 9 or more; after
/// `compact_memory` (and the drain that puts the freed sources back to the buddy) it has.
/// Unmovable pages allocated first stay where they were (their pageblock is UNMOVABLE: not a
/// migration target, and an unmovable page is not on an LRU, so no source either).
#[test]
fn compact_memory_rebuilds_order9_blocks_and_leaves_unmovable_pages_alone() {
    let text = |compact: bool| {
        format!(
            r#"{{"version": 1, "name": "fragmented", "kernel": "v7.2",
 "zone": {{"pages": 4096, "cpus": 1}},
 "ops": [
  {{"op": "repeat", "times": 8, "ops": [{{"op": "alloc", "order": 0, "mt": "unmovable"}}]}},
  {{"op": "repeat", "times": 1970, "ops": [
     {{"op": "alloc", "order": 1, "mt": "movable", "as": "pair"}},
     {{"op": "split", "ref": "pair"}},
     {{"op": "free", "ref": "pair", "page": 1}}]}},
  {{"op": "drain", "cpu": "all"}}{}
 ]}}"#,
            if compact {
                r#",
  {"op": "compact_memory"},
  {"op": "drain", "cpu": "all"}"#
            } else {
                ""
            }
        )
    };
    let before = run(&text(false));
    let after = run(&text(true));
    let big = |r: &Run| r.final_node.active().nr_free()[9..].iter().sum::<u64>();
    assert_eq!(big(&before), 0, "fragmented: no free order-9 block");
    assert!(
        big(&after) >= 2,
        "compaction rebuilt free order-9+ blocks: {:?}",
        after.final_node.active().nr_free()
    );
    let zb = before.final_node.active();
    let za = after.final_node.active();
    let unmovable: Vec<u32> = (0..zb.pages())
        .filter(|&p| {
            zb.page_owner(p) != NO_OWNER
                && before.owner_mt(zb.page_owner(p)) != Some(MigrateType::Movable)
        })
        .collect();
    assert_eq!(unmovable.len(), 8);
    for p in unmovable {
        assert_eq!(
            za.page_owner(p),
            zb.page_owner(p),
            "unmovable page {p:#x} moved"
        );
    }
    assert!(after.stats.compact_isolated > 0);
}

/// The `mm_compaction_*` lines of a run's trace, without the scanners' own
/// (`isolate_*`, `migratepages`) and the `finished ... continue`/`no_suitable_page` turns.
fn compact_decisions(run: &Run) -> Vec<String> {
    trace_text(run)
        .lines()
        .filter(|l| l.starts_with("mm_compaction"))
        .filter(|l| {
            !l.starts_with("mm_compaction_isolate")
                && !l.starts_with("mm_compaction_fast_isolate")
                && !l.starts_with("mm_compaction_migratepages")
                && !(l.starts_with("mm_compaction_finished")
                    && (l.ends_with("ret=continue") || l.ends_with("ret=no_suitable_page")))
        })
        .map(str::to_string)
        .collect()
}

/// `compact` at an order the zone already has (the boot's order-10 blocks):
/// `compaction_suit_allocation_order` finds the min watermark met at order 2
/// (v7.2.13 mm/compaction.c:2533-2536) and `compact_zone` returns COMPACT_SUCCESS before
/// `mm_compaction_begin`; `try_to_compact_pages` then calls `compaction_defer_reset(zone, 2,
/// false)` (:2886): `compact_order_failed` 0 → 3, considered and the shift unchanged (0, limit 1).
#[test]
fn compact_at_an_order_the_zone_has_only_resets_the_deferral() {
    let r = run(&three_pages("").replace(
        r#"{"op": "compact_memory"}"#,
        r#"{"op": "compact", "order": 2}"#,
    ));
    assert_eq!(
        compact_decisions(&r),
        ["mm_compaction_defer_reset: node=0 zone=Normal   order=2 order_failed=3 consider=0 limit=1"]
    );
}

/// Seven free order-9 blocks and nothing larger: 15 order-9 movable blocks
/// allocated in an 8192-page zone (the 16th fails its watermark), the even ones of the first 14
/// freed. Order 10 fails the min watermark, so `compaction_suitable` runs (:2436): the order-0
/// check min 396 + compact_gap 2048 + (low 495 − min 396) = 2543 ≤ 3584 free holds, but
/// `fragmentation_index(zone, 10)` = 1000 − (1000 + 3584·1000/1024) / 7 = 1000 − 642 = 358
/// ≤ extfrag_threshold 500 (:2466): COMPACT_NOT_SUITABLE_ZONE, the failure is a lack of
/// memory; compact_zone returns COMPACT_SKIPPED, which defers nothing. Order 9 is met at once.
#[test]
fn a_lack_of_memory_is_not_suitable_for_compaction() {
    let mut ops: Vec<String> = (0..15)
        .map(|i| format!(r#"{{"op": "alloc", "order": 9, "mt": "movable", "as": "b{i}"}}"#))
        .collect();
    ops.extend(
        (0..14)
            .step_by(2)
            .map(|i| format!(r#"{{"op": "free", "ref": "b{i}"}}"#)),
    );
    ops.push(r#"{"op": "compact", "order": 10}"#.into());
    ops.push(r#"{"op": "compact", "order": 9}"#.into());
    let text = format!(
        r#"{{"version": 1, "name": "lack of memory", "kernel": "v7.2",
 "zone": {{"pages": 8192, "cpus": 1}}, "ops": [{}]}}"#,
        ops.join(",\n")
    );
    let r = run(&text);
    assert_eq!(r.final_node.active().nr_free()[9], 7);
    assert_eq!(
        compact_decisions(&r),
        [
            "mm_compaction_suitable: node=0 zone=Normal   order=10 ret=not_suitable_zone",
            "mm_compaction_defer_reset: node=0 zone=Normal   order=9 order_failed=10 consider=0 limit=1",
        ]
    );
}

/// Deferral (:126-158) at `COMPACT_PRIO_SYNC_LIGHT`: an 8192-page zone, 8 unmovable pages,
/// 3000 movable pages one free page apart, then one page taken by `alloc_contig_range` in each
/// order-10 block above the first (pfn 1024·k + 5): no compaction can free 1024 aligned pages.
/// 1st `compact` order 10: `compaction_deferred`: order_failed 0 ≤ 10, ++considered = 1 ≥
///   limit 1 (1 << 0), not deferred; scanners meet → COMPACT_COMPLETE → `defer_compaction`:
///   considered 0, shift 1 (limit 2), order_failed min(0, 10) = 0.
/// 2nd: ++considered = 1 < 2: deferred (`mm_compaction_deferred` consider=1 limit=2).
/// 3rd: ++considered = 2 ≥ 2: considered = 2, runs (the skip bits the 1st left are honoured: the
///   scanners meet elsewhere), COMPLETE → defer: considered 0, shift 2 (limit 4).
/// 4th: ++considered = 1 < 4: deferred.
#[test]
fn a_failed_compaction_is_deferred_then_retried() {
    let pins: String = (1..8)
        .map(|k| {
            format!(
                r#", {{"op": "alloc_contig_range", "pfn": {}, "nr_pages": 1, "as": "pin{k}"}}"#,
                1024 * k + 5
            )
        })
        .collect();
    let text = format!(
        r#"{{"version": 1, "name": "deferred", "kernel": "v7.2",
 "zone": {{"pages": 8192, "cpus": 1}},
 "ops": [
  {{"op": "repeat", "times": 8, "ops": [{{"op": "alloc", "order": 0, "mt": "unmovable"}}]}},
  {{"op": "repeat", "times": 3000, "ops": [
     {{"op": "alloc", "order": 1, "mt": "movable", "as": "pair"}},
     {{"op": "split", "ref": "pair"}},
     {{"op": "free", "ref": "pair", "page": 1}}]}},
  {{"op": "drain", "cpu": "all"}}{pins},
  {{"op": "compact", "order": 10, "priority": 1}},
  {{"op": "compact", "order": 10, "priority": 1}},
  {{"op": "compact", "order": 10, "priority": 1}},
  {{"op": "compact", "order": 10, "priority": 1}}
 ]}}"#
    );
    let r = run(&text);
    let d = compact_decisions(&r);
    let not_scan: Vec<&str> = d
        .iter()
        .map(String::as_str)
        .filter(|l| !l.starts_with("mm_compaction_begin") && !l.starts_with("mm_compaction_end"))
        .collect();
    assert_eq!(
        not_scan,
        [
            "mm_compaction_suitable: node=0 zone=Normal   order=10 ret=continue",
            "mm_compaction_finished: node=0 zone=Normal   order=10 ret=complete",
            "mm_compaction_defer_compaction: node=0 zone=Normal   order=10 order_failed=0 consider=0 limit=2",
            "mm_compaction_deferred: node=0 zone=Normal   order=10 order_failed=0 consider=1 limit=2",
            "mm_compaction_suitable: node=0 zone=Normal   order=10 ret=continue",
            "mm_compaction_finished: node=0 zone=Normal   order=10 ret=complete",
            "mm_compaction_defer_compaction: node=0 zone=Normal   order=10 order_failed=0 consider=0 limit=4",
            "mm_compaction_deferred: node=0 zone=Normal   order=10 order_failed=0 consider=1 limit=4",
        ]
    );
    assert!(d
        .iter()
        .filter(|l| l.starts_with("mm_compaction_end"))
        .all(|l| l.ends_with("status=complete")));
    assert_eq!(r.final_node.active().nr_free()[10], 0);
}

/// `compact_zone`'s loop asks `compact_finished` before every turn and traces each answer
/// (:2394-2403): for `compact_memory` (order -1) `continue` until the scanners meet, then
/// `complete`, one line more than the turns that scanned a pageblock here.
#[test]
fn compact_finished_is_traced_on_every_turn() {
    let r = run(&three_pages(""));
    let text = trace_text(&r);
    let finished: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("mm_compaction_finished"))
        .collect();
    let turns = text
        .lines()
        .filter(|l| l.starts_with("mm_compaction_isolate_migratepages"))
        .count();
    assert_eq!(finished.len(), turns + 1);
    assert!(finished[..turns]
        .iter()
        .all(|l| *l == "mm_compaction_finished: node=0 zone=Normal   order=-1 ret=continue"));
    assert_eq!(
        finished[turns],
        "mm_compaction_finished: node=0 zone=Normal   order=-1 ret=complete"
    );
}

/// A fragmented zone (the issue's scenario) compacted for order 9 at the default priority stops
/// as soon as `__compact_finished` sees a free order-9 block at a pageblock boundary
/// (COMPACT_SUCCESS, :2354-2357), long before the scanners meet; `compaction_defer_reset`
/// follows (order_failed 10).
#[test]
fn compact_for_order9_stops_at_the_first_free_order9_block() {
    let text = r#"{"version": 1, "name": "fragmented", "kernel": "v7.2",
 "zone": {"pages": 4096, "cpus": 1},
 "ops": [
  {"op": "repeat", "times": 8, "ops": [{"op": "alloc", "order": 0, "mt": "unmovable"}]},
  {"op": "repeat", "times": 1970, "ops": [
     {"op": "alloc", "order": 1, "mt": "movable", "as": "pair"},
     {"op": "split", "ref": "pair"},
     {"op": "free", "ref": "pair", "page": 1}]},
  {"op": "drain", "cpu": "all"},
  {"op": "compact", "order": 9}
 ]}"#;
    let r = run(text);
    let d = compact_decisions(&r);
    assert_eq!(
        d[0],
        "mm_compaction_suitable: node=0 zone=Normal   order=9 ret=continue"
    );
    assert_eq!(
        d.last().unwrap(),
        "mm_compaction_defer_reset: node=0 zone=Normal   order=9 order_failed=10 consider=0 limit=1"
    );
    assert!(d.contains(&"mm_compaction_finished: node=0 zone=Normal   order=9 ret=success".into()));
    let end = d
        .iter()
        .find(|l| l.starts_with("mm_compaction_end"))
        .unwrap();
    assert!(end.ends_with("status=success"), "{end}");
    assert!(r.final_node.active().nr_free()[9..].iter().sum::<u64>() >= 1);
}

/// A 4096-page v7.2 zone at pfn 0x1000: a, b, c (order-10 movable) split and every other page
/// freed, d and e (order-9 unmovable) hold the last order-10 block; after the drain 1536 order-0
/// pages are free and no block above order 0. A movable order-9 request fails the fast path; the
/// slow path's `compact_first` (v7.2.13 mm/page_alloc.c:4833, costly order) runs
/// `__alloc_pages_direct_compact` at `COMPACT_PRIO_ASYNC` (2) before any reclaim:
/// `compaction_deferred` lets it run, `compaction_suitable` says continue. `compact_zone` is
/// not `whole_zone` (v7.3.4 mm/compaction.c:2614-2629): the zone's cached pfns are still 0,
/// below the zone, so the scanners start at its ends (0x1000, 0x1e00) and 0x1000 is above
/// `compact_init_migrate_pfn` (0). `fast_find_migrateblock` (:1969) searches (order 9 > 3,
/// movable, at the zone start, `finish_pageblock` clear: `last_migrated_pfn` 0 is another
/// pageblock): the MOVABLE lists of orders 8..3 are empty, nothing found, `fast_search_fail`
/// 1, no `fast_start_pfn`: the linear scan from 0x1000, which takes 32 pages
/// (`COMPACT_CLUSTER_MAX`) of a's, every other page, and stops at 0x1040. The first target
/// asked for runs `fast_isolate_freepages` (:1553-1719): free_pfn 0x1e00, migrate_pfn 0x1040,
/// distance 0xdc0, so `low_pfn` `pageblock_start_pfn(0x1e00 - 0x370)` = 0x1a00 and `min_pfn`
/// `pageblock_start_pfn(0x1e00 - 0x6e0)` = 0x1600 (:1580-1582); free_pfn is at or above
/// `compact_init_free_pfn` (0), so the search is the starting one, `limit` 256 (:1572-1575);
/// orders 8..1 have no free block (:1603), the order-0 MOVABLE list walked from its tail holds
/// a's pages first: 256 entries, none at or above `min_pfn`, nothing taken (:1610-1636).
/// `highest` is below `min_pfn`, so a direct compaction takes the min mark: free_pfn = 0x1600
/// (:1693-1702); the ASYNC direct compaction does not search around it (:1518). The linear
/// free scanner then runs from 0x1600 down (stride 32). The migration scanner goes on in
/// batches of 32 through pageblock 0 (a's 256 pages); once it has left that order-9 block
/// (0x1220), `check_drain` drains the pcp of the freed sources (:2750-2766), they merge, and
/// `compaction_capture` hands the order-9 block at 0x1000 to the allocation: `COMPACT_SUCCESS`,
/// `compact_stall` and `compact_success` (mm/page_alloc.c:4218-4233).
#[test]
fn a_thp_direct_compaction_starts_its_free_scanner_at_the_fast_search_min_mark() {
    let mut ops = thp_capture::fragmented_before_thp();
    let before = ops.len();
    ops.push(r#"{"op": "alloc", "order": 9, "mt": "movable", "as": "thp"}"#.into());
    let text = format!(
        r#"{{"version": 1, "name": "thp", "kernel": "v7.2", "zone": {{"pages": 4096, "start_pfn": 4096, "cpus": 1}}, "ops": [{}]}}"#,
        ops.join(",\n")
    );
    let r = run(&text);
    let trace = trace_text(&r);
    let lines: Vec<&str> = trace.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("mm_compaction_try_to_compact_pages"))
        .expect("direct compaction ran");
    assert_eq!(
        lines[first],
        "mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_HIGHUSER_MOVABLE priority=2"
    );
    let scanners: Vec<&str> = lines[first..]
        .iter()
        .filter(|l| {
            l.starts_with("mm_compaction") && (l.contains("isolate_") || l.contains("begin"))
        })
        .take(4)
        .copied()
        .collect();
    assert_eq!(
        scanners,
        [
            "mm_compaction_begin: zone_start=0x1000 migrate_pfn=0x1000 free_pfn=0x1e00 zone_end=0x2000, mode=async",
            "mm_compaction_isolate_migratepages: range=(0x1000 ~ 0x1040) nr_scanned=64 nr_taken=32",
            "mm_compaction_fast_isolate_freepages: range=(0x1600 ~ 0x1e00) nr_scanned=256 nr_taken=0",
            // Stride 32 (ASYNC): every 32nd pfn of pageblock 3, its 16 free ones among them.
            "mm_compaction_isolate_freepages: range=(0x1600 ~ 0x1800) nr_scanned=16 nr_taken=16",
        ]
    );
    assert!(lines[first..].iter().any(|l| l.starts_with(
        "mm_compaction_end: zone_start=0x1000 migrate_pfn=0x1220 free_pfn=0x141f zone_end=0x2000, mode=async status=success"
    )));
    assert!(lines[first..]
        .iter()
        .any(|l| l.contains("compaction_capture: the order-9 block at 0x1000")));
    let z = r.final_node.active();
    assert_eq!(z.page_kind(0), PageKind::Other);
    assert_eq!(z.page_owner(0), owner_of(&r, "thp"));
    let vm = buddyscope::scenario::procfs::vmstat_compaction(&r.final_node, &r.stats);
    assert!(
        vm.contains("compact_stall 1\ncompact_fail 0\ncompact_success 1\n"),
        "{vm}"
    );
    assert_eq!(r.op_defs.len(), before + 1);
}

/// The zone of `compact-memory-fragmented` before its `compact_memory` (every other page of a
/// 4096-page zone free: 2000 order-0 pages and an order-5 and an order-6 block, 2096 free, none
/// of order 9), then `extra` ops; `zone` adds zone fields.
fn fragmented(zone: &str, extra: &str) -> Run {
    run(&format!(
        r#"{{"version": 1, "name": "kcompactd", "kernel": "v7.3",
 "zone": {{"pages": 4096, "cpus": 1{zone}}},
 "ops": [
  {{"op": "repeat", "times": 2000, "ops": [
     {{"op": "alloc", "order": 1, "mt": "movable", "as": "pair"}},
     {{"op": "split", "ref": "pair"}},
     {{"op": "free", "ref": "pair", "page": 1}}]}},
  {{"op": "drain", "cpu": "all"}}{extra}
 ]}}"#
    ))
}

fn vmstat(r: &Run) -> String {
    buddyscope::scenario::procfs::vmstat_compaction(&r.final_node, &r.stats)
}

/// `fragmentation_score_wmark` (v7.3.4 mm/compaction.c:2260): low = 100 − proactiveness,
/// high = low + min(10, low / 2), capped at 100; `fragmentation_score_zone` =
/// `extfrag_for_order(zone, 9)` (mm/vmstat.c:1142): the fragmented zone's 2096 free pages are
/// all below order 9: 100; weighted by 4096 / (4096 + 1) for the node: 99.
#[test]
fn fragmentation_score_and_its_watermarks() {
    use buddyscope::mm::{
        fragmentation_score_node, fragmentation_score_wmark, fragmentation_score_zone,
    };
    assert_eq!(
        [0, 20, 90, 100].map(|p| (
            fragmentation_score_wmark(p, true),
            fragmentation_score_wmark(p, false)
        )),
        [(100, 100), (80, 90), (10, 15), (0, 0)]
    );
    let r = fragmented("", "");
    assert_eq!(
        r.final_node.active().nr_free()[..7],
        [2000, 0, 0, 0, 0, 1, 1]
    );
    assert_eq!(fragmentation_score_zone(r.final_node.active()), 100);
    assert_eq!(fragmentation_score_node(&r.final_node), 99);
}

/// `{"op": "kcompactd", "order": 9}`: `kcompactd_do_work` counts `KCOMPACTD_WAKE`; the zone
/// is not deferred (`compact_order_failed` 0, the first consideration reaches the limit 1),
/// `compaction_suit_allocation_order` says continue (no order-9 block at the min watermark;
/// 2096 free ≥ min + `compact_gap(9)` + low − min; fragmentation index 998 > 500);
/// `compact_zone` in `MIGRATE_SYNC_LIGHT` (`mode=sync`), not direct, so every pageblock is a
/// source and the request's type (`GFP_KERNEL`: unmovable) finishes on a claimable Movable
/// block of order 9 or more (`find_suitable_fallback`): `COMPACT_SUCCESS`,
/// `compaction_defer_reset`. Every page compaction scanned was kcompactd's, so
/// `compact_daemon_*_scanned` equal `compact_*_scanned`; no direct compaction: no stall.
#[test]
fn kcompactd_do_work_compacts_for_the_order_asked() {
    let r = fragmented(
        r#", "start_pfn": 4096"#,
        r#", {"op": "kcompactd", "order": 9}"#,
    );
    let trace = trace_text(&r);
    let ends: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("mm_compaction_begin") || l.starts_with("mm_compaction_end"))
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(ends[0].ends_with("migrate_pfn=0x1000 free_pfn=0x1e00 zone_end=0x2000, mode=sync"));
    assert!(ends[1].ends_with("status=success"), "{}", ends[1]);
    assert!(trace.contains("mm_compaction_defer_reset: node=0 zone=Normal   order=9"));
    let vm = vmstat(&r);
    let get = |k: &str| -> u64 {
        vm.lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix(' ')?.parse().ok())
            .unwrap()
    };
    assert_eq!(get("compact_daemon_wake"), 1);
    assert_eq!(get("compact_stall"), 0);
    assert!(get("compact_migrate_scanned") > 0);
    assert_eq!(
        get("compact_daemon_migrate_scanned"),
        get("compact_migrate_scanned")
    );
    assert_eq!(
        get("compact_daemon_free_scanned"),
        get("compact_free_scanned")
    );
    assert!(r.final_node.active().nr_free()[9..].iter().sum::<u64>() >= 1);
}

/// kcompactd's own lines (include/trace/events/compaction.h: `kcompactd_wake_template`
/// "nid=%d order=%d classzone_idx=%-8s", `mm_compaction_kcompactd_sleep` "nid=%d"), worked
/// from v7.3.4 mm/compaction.c on the fragmented zone (one Normal zone, no free order-9 block,
/// 2096 free pages, fragmentation index 998):
/// * kswapd's `wakeup_kcompactd(pgdat, 9, ZONE_NORMAL)` (:3164): kcompactd sleeps, so
///   `kcompactd_node_suitable` (:3058) asks `compaction_suit_allocation_order` at
///   `ALLOC_WMARK_MIN`: the order-9 watermark check fails, `compaction_suitable` says
///   `continue` (its `mm_compaction_suitable` line), and the wakeup is traced (:3185);
/// * `kcompactd_do_work` (:3084) traces `mm_compaction_kcompactd_wake` with `cc.order` 9 and
///   `cc.highest_zoneidx` Normal (:3103) and counts `KCOMPACTD_WAKE`; not deferred; its own
///   `compaction_suit_allocation_order` (:3117), then `compact_zone`'s (`suitable` twice more),
///   `COMPACT_SUCCESS`, `compaction_defer_reset`;
/// * back in `kcompactd`'s loop: `mm_compaction_kcompactd_sleep: nid=0` (:3215).
///
/// A zone with a free order-9 block: `compaction_suit_allocation_order` says `COMPACT_SUCCESS`
/// (no `suitable` line), `kcompactd_node_suitable` is false and `wakeup_kcompactd` returns
/// before its line; `kcompactd_do_work` still runs (the order stays requested:
/// `kcompactd_work_requested` at the next timeout, :3052) and compacts nothing. The timeout
/// wakeup writes no wake line, only the sleep. The replay reads the lines back: the same
/// lines, `compact_daemon_wake` from the wake line, the daemon's scans from the compactions
/// between it and the sleep.
#[test]
fn kcompactd_writes_its_wake_and_sleep_lines() {
    let kcompactd_lines = |r: &Run| -> Vec<String> {
        trace_text(r)
            .lines()
            .skip_while(|l| !(l.starts_with("# op ") && l.contains(": kcompactd")))
            .filter(|l| {
                l.contains("kcompactd")
                    || l.starts_with("mm_compaction_suitable")
                    || l.starts_with("mm_compaction_begin")
                    || l.starts_with("mm_compaction_end")
                    || l.starts_with("mm_compaction_defer")
            })
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                // The zone's ends and the scanners' stops are the other tests'.
                l.split(": zone_start").next().unwrap().to_string()
            })
            .collect()
    };
    let r = fragmented(
        r#", "start_pfn": 4096"#,
        r#", {"op": "kcompactd", "order": 9}"#,
    );
    assert_eq!(
        kcompactd_lines(&r),
        [
            "mm_compaction_suitable: node=0 zone=Normal   order=9 ret=continue",
            "mm_compaction_wakeup_kcompactd: nid=0 order=9 classzone_idx=Normal  ",
            "mm_compaction_kcompactd_wake: nid=0 order=9 classzone_idx=Normal  ",
            "mm_compaction_suitable: node=0 zone=Normal   order=9 ret=continue",
            "mm_compaction_suitable: node=0 zone=Normal   order=9 ret=continue",
            "mm_compaction_begin",
            "mm_compaction_end",
            "mm_compaction_defer_reset: node=0 zone=Normal   order=9 order_failed=10 consider=1 limit=1",
            "mm_compaction_kcompactd_sleep: nid=0",
        ]
    );
    // The same zone after compact_memory has free order-9 blocks: no wakeup line.
    let done = fragmented(
        "",
        r#", {"op": "compact_memory"}, {"op": "drain", "cpu": "all"}, {"op": "kcompactd", "order": 9}"#,
    );
    assert!(done.final_node.active().nr_free()[9..].iter().sum::<u64>() > 0);
    assert_eq!(
        kcompactd_lines(&done),
        [
            "mm_compaction_kcompactd_wake: nid=0 order=9 classzone_idx=Normal  ",
            "mm_compaction_kcompactd_sleep: nid=0",
        ]
    );
    let timeout = fragmented("", r#", {"op": "kcompactd"}"#);
    let lines = kcompactd_lines(&timeout);
    assert!(!lines.iter().any(|l| l.contains("wake")), "{lines:?}");
    assert_eq!(
        lines.last().unwrap(),
        "mm_compaction_kcompactd_sleep: nid=0"
    );

    // The replay reads them: the same lines, and the daemon's counters.
    use buddyscope::run::replay::{replay_text, ReplayOptions};
    for r in [&r, &done, &timeout] {
        let trace = trace_text(r);
        let rep = replay_text(&r.scenario, &trace, &ReplayOptions::default()).unwrap();
        assert_eq!(rep.divergence_count, 0);
        let mm = |t: &str| {
            t.lines()
                .filter(|l| l.starts_with("mm_compaction"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(mm(&trace_text(&rep.run)), mm(&trace));
        let got = vmstat(&rep.run);
        let want = vmstat(r);
        let line = |v: &str, k: &str| v.lines().find(|l| l.starts_with(k)).unwrap().to_string();
        assert_eq!(
            line(&got, "compact_daemon_wake"),
            line(&want, "compact_daemon_wake")
        );
        if std::ptr::eq(r, &timeout) {
            // Proactive compaction has no line of its own in a trace without task columns:
            // its scans are not told from compact_memory's.
            assert_eq!(
                line(&got, "compact_daemon_migrate_scanned"),
                "compact_daemon_migrate_scanned 0"
            );
        } else {
            assert_eq!(got, want);
        }
    }
}

/// The timeout wakeup (`{"op": "kcompactd"}`): with the default proactiveness 20 the node's
/// score 99 is above the high watermark 90, so `compact_node(pgdat, true)` compacts until the
/// zone's score is at most 80 (`__compact_finished`'s proactive check: `COMPACT_SUCCESS`); no
/// `KCOMPACTD_WAKE` (only `kcompactd_do_work` counts it), the scans counted as the daemon's.
/// With `compaction_proactiveness` 0 nothing runs.
#[test]
fn kcompactd_timeout_runs_proactive_compaction_above_the_high_watermark() {
    use buddyscope::mm::fragmentation_score_zone;
    use buddyscope::run::Outcome;
    let r = fragmented("", r#", {"op": "kcompactd"}"#);
    let Outcome::Kcompactd {
        do_work,
        proactive,
        score_before,
        score_after,
        migrated,
        ..
    } = r.ops.last().unwrap().outcome.clone()
    else {
        panic!("{:?}", r.ops.last().unwrap().outcome)
    };
    assert_eq!((do_work, proactive, score_before), (false, true, 99));
    assert!(migrated > 0);
    assert!(
        fragmentation_score_zone(r.final_node.active()) <= 80,
        "{score_after}"
    );
    let trace = trace_text(&r);
    assert!(trace.contains("mm_compaction_finished: node=0 zone=Normal   order=-1 ret=success"));
    let vm = vmstat(&r);
    assert!(vm.contains("compact_daemon_wake 0\n"), "{vm}");
    assert!(!vm.contains("compact_daemon_migrate_scanned 0\n"), "{vm}");
    let off = fragmented(
        r#", "compaction_proactiveness": 0"#,
        r#", {"op": "kcompactd"}"#,
    );
    assert!(!trace_text(&off).contains("mm_compaction_begin"));
    assert!(vmstat(&off).contains("compact_daemon_migrate_scanned 0\n"));
    assert_eq!(
        off.final_node.active().nr_free()[..7],
        [2000, 0, 0, 0, 0, 1, 1]
    );
}

/// `explain::compaction_scanners` on the worked example of
/// `compact_memory_moves_two_pages_into_the_top_pageblock`: before `mm_compaction_begin` and
/// after `mm_compaction_end` no scanner; after the begin line the zone's ends (0x0, 0xe00); the
/// migration scanner at the end of each `isolate_migratepages` range (0x200 after pageblock 0),
/// the free scanner where its scan of pageblock 7 stopped (0xe04); just before the end line both
/// where `mm_compaction_end` puts them (0xe00, 0xe04).
#[test]
fn the_scanners_follow_the_compaction_lines() {
    use buddyscope::explain::compaction_scanners;
    use buddyscope::mm::{Annotation, EventKind, Tracepoint};
    let r = run(&three_pages(
        r#",
  {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"}"#,
    ));
    let first = |f: &dyn Fn(&Tracepoint) -> bool| -> u32 {
        (0..r.log.events.len())
            .find(|&i| matches!(r.log.events[i].kind(), EventKind::Annotation(Annotation::Trace(tp)) if f(&tp)))
            .unwrap() as u32
    };
    let begin = first(&|t| matches!(t, Tracepoint::MmCompactionBegin { .. }));
    let mig = first(&|t| matches!(t, Tracepoint::MmCompactionIsolateMigratepages { .. }));
    let free = first(&|t| matches!(t, Tracepoint::MmCompactionIsolateFreepages { .. }));
    let end = first(&|t| matches!(t, Tracepoint::MmCompactionEnd { .. }));
    let z = r.final_node.active();
    let at = |i: u32| compaction_scanners(&r, z, i).map(|s| (s.migrate_pfn, s.free_pfn));
    assert_eq!(at(begin), None);
    assert_eq!(at(begin + 1), Some((0, 0xe00)));
    assert_eq!(compaction_scanners(&r, z, begin + 1).unwrap().begin, begin);
    assert_eq!(at(mig + 1), Some((0x200, 0xe00)));
    assert_eq!(at(free + 1), Some((0x200, 0xe04)));
    assert_eq!(at(end), Some((0xe00, 0xe04)));
    assert_eq!(at(end + 1), None);
    assert_eq!(at(r.log.events.len() as u32), None);
}

/// `explain::compaction_freepages` on the same worked example: `cc->freepages` is empty until
/// `isolate_freepages_block(0xe00, 0x1000)` takes 0xe01 (order 0) and 0xe02 (order 1);
/// `compaction_alloc` hands 0xe01 to c, then splits 0xe02 for a (a gets 0xe02, 0xe03 goes back
/// on the list, v7.2.13 :1868-1875); `release_free_list` frees 0xe03 before `mm_compaction_end`.
/// Outside the compaction there is no list at all.
#[test]
fn the_free_scanners_pages_follow_compaction_alloc_and_release_free_list() {
    use buddyscope::explain::compaction_freepages;
    use buddyscope::mm::{Annotation, EventKind, Mutation, Step, Tracepoint};
    let r = run(&three_pages(
        r#",
  {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"}"#,
    ));
    let n = r.log.events.len();
    let all = |f: &dyn Fn(usize) -> bool| -> Vec<u32> {
        (0..n).filter(|&i| f(i)).map(|i| i as u32).collect()
    };
    let tp = |i: usize, f: &dyn Fn(&Tracepoint) -> bool| matches!(r.log.events[i].kind(), EventKind::Annotation(Annotation::Trace(t)) if f(&t));
    let prep = |i: usize, step: Step| {
        r.log.events[i].step == step
            && matches!(
                r.log.events[i].kind(),
                EventKind::Mutation(Mutation::PrepNewPage { .. })
            )
    };
    let begin = all(&|i| tp(i, &|t| matches!(t, Tracepoint::MmCompactionBegin { .. })))[0];
    let end = all(&|i| tp(i, &|t| matches!(t, Tracepoint::MmCompactionEnd { .. })))[0];
    let free = all(&|i| {
        tp(i, &|t| {
            matches!(t, Tracepoint::MmCompactionIsolateFreepages { .. })
        })
    })[0];
    let targets = all(&|i| prep(i, Step::CompactionAllocTarget));
    let release = all(&|i| prep(i, Step::ReleaseFreeList));
    assert_eq!((targets.len(), release.len()), (2, 1));
    assert!(begin < free && free < targets[0] && targets[1] < release[0] && release[0] < end);
    let at = |i: u32| compaction_freepages(&r, i);
    assert_eq!(at(begin), None);
    assert_eq!(at(begin + 1), Some(vec![]));
    assert_eq!(at(free), Some(vec![(0xe01, 0), (0xe02, 1)]));
    assert_eq!(at(targets[0]), Some(vec![(0xe01, 0), (0xe02, 1)]));
    assert_eq!(at(targets[0] + 1), Some(vec![(0xe02, 1)]));
    assert_eq!(at(targets[1] + 1), Some(vec![(0xe03, 0)]));
    assert_eq!(at(release[0]), Some(vec![(0xe03, 0)]));
    assert_eq!(at(release[0] + 1), Some(vec![]));
    assert_eq!(at(end + 1), None);
    assert_eq!(at(n as u32), None);
}

/// The free scanner by v7.3.4 mm/compaction.c `isolate_freepages`, on the two runs whose lines
/// are worked out elsewhere in this file and in the built-in `compact-memory-fragmented`.
///
/// `compact_memory` on the built-in (4096 pages, pageblocks of 0x200): the first scan,
/// `range=(0xe00 ~ 0x1000)`, reaches `block_end_pfn` = min(0xe00 + 0x200, zone end 0x1000)
/// (:1753-1754), so `isolate_start_pfn` becomes `block_start_pfn - pageblock_nr_pages` = 0xc00
/// whether enough pages were isolated (:1807-1813) or not (the loop's step, :1764-1766), and
/// `cc->free_pfn` = 0xc00 (:1838), not the range's end. The next, `(0xc00 ~ 0xda0)`, stops
/// inside its pageblock: the break at :1806-1815 keeps where it stopped, 0xda0; `(0xda0 ~
/// 0xde0)` likewise 0xde0; `(0xde0 ~ 0xe00)` reaches the pageblock's end: 0xc00 - 0x200 = 0xa00.
///
/// `compact` order 9 on [`fragmented`] (the lines of the test below): the first fast search
/// takes the order-6 block at 0xfc0 and `fast_isolate_around` (:1507-1533) scans 0xe00 ~ 0xf80
/// with its own `start_pfn`: `cc->free_pfn` stays `mm_compaction_begin`'s 0xe00. The second
/// takes 0xfa0 and looks at nothing. The third takes nothing: a starting search with `highest`
/// below `min_pfn` sets `cc->free_pfn = min_pfn` = 0x800 (:1693-1702) and looks around there
/// (0x800 ~ 0x9c0), which does not start at the search's printed free_pfn 0xe00: the free
/// scanner is at 0x800.
#[test]
fn the_free_scanner_follows_isolate_freepages() {
    use buddyscope::explain::compaction_scanners;
    use buddyscope::mm::{Annotation, EventKind, Tracepoint};
    let free_after_each_line = |r: &Run| -> Vec<(u32, u32, u32)> {
        let z = r.final_node.active();
        (0..r.log.events.len())
            .filter_map(|i| match r.log.events[i].kind() {
                EventKind::Annotation(Annotation::Trace(
                    Tracepoint::MmCompactionIsolateFreepages { start, end, .. },
                )) => Some((
                    start,
                    end,
                    compaction_scanners(r, z, i as u32 + 1).unwrap().free_pfn,
                )),
                _ => None,
            })
            .collect()
    };
    let builtin = run(include_str!("../scenarios/compact-memory-fragmented.json"));
    assert_eq!(
        free_after_each_line(&builtin)[..4],
        [
            (0xe00, 0x1000, 0xc00),
            (0xc00, 0xda0, 0xda0),
            (0xda0, 0xde0, 0xde0),
            (0xde0, 0xe00, 0xa00),
        ]
    );
    let r = fragmented("", r#", {"op": "compact", "order": 9}"#);
    assert_eq!(
        free_after_each_line(&r)[..2],
        [(0xe00, 0xf80, 0xe00), (0x800, 0x9c0, 0x800)]
    );
    // The index of the compactions answers the same at every position as a walk back would.
    let spans = r.compactions();
    assert!(!spans.is_empty());
    assert!(spans.iter().all(|s| s.end.is_some_and(|e| e > s.begin)));
    assert!(spans.windows(2).all(|w| w[0].end.unwrap() < w[1].begin));
    let z = r.final_node.active();
    for s in spans {
        assert_eq!(compaction_scanners(&r, z, s.begin), None);
        assert_eq!(
            compaction_scanners(&r, z, s.begin + 1).unwrap().begin,
            s.begin
        );
        assert!(compaction_scanners(&r, z, s.end.unwrap()).is_some());
        assert_eq!(compaction_scanners(&r, z, s.end.unwrap() + 1), None);
    }
}

/// `fast_isolate_freepages` (v7.3.4 mm/compaction.c:1553-1719) in `compact` for order 9 on the
/// zone of [`fragmented`]: every odd pfn below 4000 free (order 0), an order-5 block at 0xfa0
/// and an order-6 block at 0xfc0. `compact_zone_order` starts the search at the order
/// (`search_order` 9, :2807), both scanners at the zone's ends (free_pfn 0xe00, which is
/// `compact_init_free_pfn`, so every search here is a starting one: `limit` 256, :1572-1575).
///
/// 1. The migration scanner takes pageblock 0's 256 movable pages (MIGRATE_SYNC_LIGHT finishes
///    the block). The first target runs the search: migrate_pfn 0x200, distance 0xc00, `low_pfn`
///    `pageblock_start_pfn(0xe00 - 0x300)` = 0xa00, `min_pfn` `pageblock_start_pfn(0xe00 -
///    0x600)` = 0x800 (:1580-1582); `search_order` min(9 - 1, 9) = 8 (:1592); orders 8 and 7
///    have nothing free (:1603), order 6's MOVABLE list holds 0xfc0 ≥ `low_pfn`: taken
///    (:1620-1624, :1651-1656): nr_scanned 1 + 63, nr_taken 64, `search_order` 6. 64 < 256
///    pages, so `fast_isolate_around(0xfc0)` (:1507-1533; not an ASYNC direct compaction)
///    scans its pageblock 0xe00 with stride 1 until the free pages cover the batch: 192 odd
///    pages up to 0xf80 (384 scanned).
/// 2. The next batch (32 pages from 0x200): migrate_pfn 0x23f, distance 0xbc1, `min_pfn`
///    `pageblock_start_pfn(0xe00 - 0x5e0)` = 0x800; from order 6 (empty, `next_search_order`
///    :1536 → 5), the order-5 block at 0xfa0 is taken: 1 + 31 scanned, 32 taken; 32 ≥ 32, no
///    search around.
/// 3. The third batch (224 pages up to 0x400): from order 5 down, only order 0 has free
///    blocks; its list from the tail holds the odd pages of pageblock 0 (all below `min_pfn`):
///    256 looked at (the limit), none taken; the list turns so the 256th is first
///    (`move_freelist_head`, :1647); the round robin comes back to order 5 and stops. Nothing
///    found on a starting scan, `highest` (0) below `min_pfn`: the direct compaction takes the
///    min mark, free_pfn 0x800 (:1693-1702), and `fast_isolate_around(0x800)` takes the 224
///    odd pages from 0x800.
#[test]
fn fast_isolate_freepages_takes_the_top_quarters_blocks_then_falls_back_to_the_min_mark() {
    let r = fragmented("", r#", {"op": "compact", "order": 9}"#);
    let trace = trace_text(&r);
    let lines: Vec<&str> = trace
        .lines()
        .filter(|l| {
            l.starts_with("mm_compaction_isolate")
                || l.starts_with("mm_compaction_fast")
                || l.starts_with("mm_compaction_migratepages")
        })
        .take(10)
        .collect();
    assert_eq!(
        lines,
        [
            "mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512 nr_taken=256",
            "mm_compaction_fast_isolate_freepages: range=(0x800 ~ 0xe00) nr_scanned=64 nr_taken=64",
            "mm_compaction_isolate_freepages: range=(0xe00 ~ 0xf80) nr_scanned=384 nr_taken=192",
            "mm_compaction_migratepages: nr_migrated=256 nr_failed=0",
            "mm_compaction_isolate_migratepages: range=(0x200 ~ 0x23f) nr_scanned=63 nr_taken=32",
            "mm_compaction_fast_isolate_freepages: range=(0x800 ~ 0xe00) nr_scanned=32 nr_taken=32",
            "mm_compaction_migratepages: nr_migrated=32 nr_failed=0",
            "mm_compaction_isolate_migratepages: range=(0x23f ~ 0x400) nr_scanned=449 nr_taken=224",
            "mm_compaction_fast_isolate_freepages: range=(0x800 ~ 0xe00) nr_scanned=256 nr_taken=0",
            "mm_compaction_isolate_freepages: range=(0x800 ~ 0x9c0) nr_scanned=448 nr_taken=224",
        ]
    );
    assert!(trace.contains(
        "# fast_isolate_freepages: the order-0 Movable list turns so the block at pfn 0x1ff is first"
    ));
    // The fast searches' pages are counted as the kernel counts them (COMPACTISOLATED in the
    // search, total_free_scanned at the end).
    let fast: u64 = 64 + 32 + 256;
    let linear: u64 = 384 + 448;
    assert!(r.stats.compact_free_scanned >= fast + linear);
}

/// The fragmented zone of `compact-memory-fragmented` (pcp high 0) at `start_pfn`, a kernel
/// v7.3, then `extra` ops.
fn fragmented_at(start_pfn: u64, extra: &str) -> Run {
    run(&format!(
        r#"{{"version": 1, "name": "cached", "kernel": "v7.3",
 "zone": {{"pages": 4096, "start_pfn": {start_pfn}, "cpus": 1, "pcp": {{"batch": 1, "high_min": 0, "high_max": 0}}}},
 "ops": [
  {{"op": "repeat", "times": 2000, "ops": [
     {{"op": "alloc", "order": 1, "mt": "movable", "as": "pair"}},
     {{"op": "split", "ref": "pair"}},
     {{"op": "free", "ref": "pair", "page": 1}}]}},
  {{"op": "drain", "cpu": "all"}}{extra}
 ]}}"#
    ))
}

/// The `mm_compaction_begin` and `mm_compaction_end` lines of a run, in order.
fn begin_end(r: &Run) -> Vec<String> {
    trace_text(r)
        .lines()
        .filter(|l| l.starts_with("mm_compaction_begin") || l.starts_with("mm_compaction_end"))
        .map(str::to_string)
        .collect()
}

/// The zone's compaction restart points as its JSON has them: `[migrate async, migrate sync,
/// free, init migrate, init free]`.
fn cached(r: &Run) -> [u64; 5] {
    let z = serde_json::to_value(r.final_node.active()).unwrap();
    let c = &z["compact_cached"];
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    [
        n(&c["migrate"][0]),
        n(&c["migrate"][1]),
        n(&c["free"]),
        n(&c["init_migrate"]),
        n(&c["init_free"]),
    ]
}

/// The cached scanner positions, worked from v7.3.4 mm/compaction.c (the same in v6.12.117), on
/// the fragmented zone at pfn 0x1000 (every other page free; the free blocks above order 0
/// are an order-5 at 0x1fa0 and an order-6 at 0x1fc0):
///
/// * `compact` at order 9, `COMPACT_PRIO_SYNC_LIGHT`: `compact_zone_order` is not `whole_zone`
///   (:2815), so `compact_zone` reads `compact_cached_migrate_pfn[1]` and
///   `compact_cached_free_pfn` (:2615-2616): still 0, below the zone, so the free scanner starts
///   at `pageblock_start_pfn(0x1fff)` = 0x1e00 and the migration scanner at 0x1000, both written
///   back (:2617-2625); 0x1000 is above `compact_init_migrate_pfn` (0): not `whole_zone`
///   (:2627). `fast_find_migrateblock` finds nothing below `high_pfn` 0x1600 (the order-5 and
///   -6 blocks are above it), so the linear scan takes 32 pages of pageblock 0, migrates them,
///   then (`finish_pageblock`: the same pageblock as `last_migrated_pfn`) the other 224 to the
///   pageblock's end: `update_cached_migrate(0x1200)` (:1306-1312) sets both cached migrate
///   pfns to `pageblock_end_pfn(0x1200)` = 0x1400 (:435-451). The first fast search took the
///   order-6 block, in pageblock 0x1e00 = `compact_cached_free_pfn`, so the cached free pfn
///   becomes 0x1e00 - 0x200 = 0x1c00 (:1708-1711). Pageblock 0 freed whole: `COMPACT_SUCCESS`.
/// * The order-9 block is allocated; the next `compact` starts where the first stopped:
///   migrate 0x1400, free 0x1c00.
///
/// With a pinned page in every pageblock no order-9 block can form: the first compaction's
/// scanners meet (0x1800); `__compact_finished` calls `reset_cached_positions` (:2289:
/// migrate pfns 0x1000, free pfn 0x1e00) and, not `whole_zone`, says `COMPACT_PARTIAL_SKIPPED`
/// (:2300-2303), which defers (`defer_compaction`); the second is deferred, the third begins
/// at the zone's ends again.
///
/// A zone at pfn 0: the zeroed cached pfns are inside it, so the first compaction that is not
/// `whole_zone` starts with both scanners at pfn 0, `whole_zone` because 0 is at
/// `compact_init_migrate_pfn` (0): met at once, `COMPACT_COMPLETE`, and the positions reset.
#[test]
fn a_compaction_starts_where_the_last_one_stopped_and_anew_after_the_scanners_met() {
    let compact = r#", {"op": "compact", "order": 9, "priority": 1}"#;
    let alloc = r#", {"op": "alloc", "order": 9, "mt": "unmovable"}"#;
    let first = fragmented_at(4096, compact);
    assert_eq!(
        begin_end(&first),
        [
            "mm_compaction_begin: zone_start=0x1000 migrate_pfn=0x1000 free_pfn=0x1e00 zone_end=0x2000, mode=sync",
            "mm_compaction_end: zone_start=0x1000 migrate_pfn=0x1200 free_pfn=0x1e00 zone_end=0x2000, mode=sync status=success",
        ]
    );
    // compact_init_* are set by __reset_isolation_suitable only.
    assert_eq!(cached(&first), [0x1400, 0x1400, 0x1c00, 0, 0]);
    let second = fragmented_at(4096, &format!("{compact}{alloc}{compact}"));
    assert_eq!(
        begin_end(&second)[2],
        "mm_compaction_begin: zone_start=0x1000 migrate_pfn=0x1400 free_pfn=0x1c00 zone_end=0x2000, mode=sync"
    );

    let pins: String = (0..8)
        .map(|k| {
            format!(
                r#", {{"op": "alloc_contig_range", "pfn": {}, "nr_pages": 1}}"#,
                0x1000 + 0x200 * k + 5
            )
        })
        .collect();
    let met = fragmented_at(4096, &format!("{pins}{compact}"));
    assert_eq!(
        begin_end(&met)[1],
        "mm_compaction_end: zone_start=0x1000 migrate_pfn=0x1800 free_pfn=0x1800 zone_end=0x2000, mode=sync status=partial_skipped"
    );
    assert_eq!(cached(&met), [0x1000, 0x1000, 0x1e00, 0, 0]);
    let again = fragmented_at(4096, &format!("{pins}{compact}{compact}{compact}"));
    let trace = trace_text(&again);
    assert!(trace.contains(
        "mm_compaction_deferred: node=0 zone=Normal   order=9 order_failed=0 consider=1 limit=2"
    ));
    assert_eq!(
        begin_end(&again)[2],
        "mm_compaction_begin: zone_start=0x1000 migrate_pfn=0x1000 free_pfn=0x1e00 zone_end=0x2000, mode=sync"
    );

    let at_zero = fragmented_at(0, compact);
    assert_eq!(
        begin_end(&at_zero),
        [
            "mm_compaction_begin: zone_start=0x0 migrate_pfn=0x0 free_pfn=0x0 zone_end=0x1000, mode=sync",
            "mm_compaction_end: zone_start=0x0 migrate_pfn=0x0 free_pfn=0x0 zone_end=0x1000, mode=sync status=complete",
        ]
    );
    assert_eq!(cached(&at_zero), [0, 0, 0xe00, 0, 0]);
}

/// A 4096-page zone at pfn 0 on `kernel` with pcp high 0, every other page of the zone
/// allocated as `fill` (2048 order-1 blocks split, their upper pages freed): 2048 free order-0
/// pages, no two of them buddies, then an order-3 request of type `mt`.
fn every_other_page(kernel: &str, fill: &str, mt: &str) -> Run {
    run(&format!(
        r#"{{"version": 1, "name": "retry", "kernel": "{kernel}",
 "zone": {{"pages": 4096, "cpus": 1, "pcp": {{"batch": 1, "high_min": 0, "high_max": 0}}}},
 "ops": [
  {{"op": "repeat", "times": 2048, "ops": [
     {{"op": "alloc", "order": 1, "mt": "{fill}", "as": "pair"}},
     {{"op": "split", "ref": "pair"}},
     {{"op": "free", "ref": "pair", "page": 1}}]}},
  {{"op": "drain", "cpu": "all"}},
  {{"op": "alloc", "order": 3, "mt": "{mt}", "as": "req"}}
 ]}}"#
    ))
}

/// The slow path's passes as the trace and the narration show them: each
/// `mm_compaction_try_to_compact_pages` line, each `mm_compaction_end`, the retry decisions and
/// the failure.
fn slowpath_passes(r: &Run) -> Vec<String> {
    trace_text(r)
        .lines()
        .filter(|l| {
            l.starts_with("mm_compaction_try_to_compact_pages")
                || l.starts_with("mm_compaction_end")
                || l.contains("should_compact_retry")
                || l.contains("allocation failed after")
        })
        .map(str::to_string)
        .collect()
}

/// `should_compact_retry` raises the priority to `COMPACT_PRIO_SYNC_FULL` (v7.3.4
/// mm/page_alloc.c:4249-4318, v6.12.117 :3809-3873, the same for a non-costly order): an
/// order-3 GFP_HIGHUSER_MOVABLE request is neither costly nor unmovable, so no compaction runs
/// before reclaim (7.3 `compact_first` false; 6.12 the early ASYNC one needs the same
/// condition) and the first is at `DEF_COMPACT_PRIORITY` (SYNC_LIGHT).
///
/// * Pass 1: `get_page_from_freelist` fails (no free block above order 0), direct reclaim
///   (not modelled) fails, `try_to_compact_pages` priority=1. The zone's cached pfns are
///   still 0 (`struct zone` zeroed), inside a zone at pfn 0: `compact_zone` (v7.3.4
///   mm/compaction.c:2611-2629) starts both scanners at 0, `whole_zone` because 0 is at
///   `compact_init_migrate_pfn`; they have met: `COMPACT_COMPLETE` at once.
/// * Not `__GFP_NORETRY`, not costly; `should_reclaim_retry`: reclaim made progress below the
///   costly order (`no_progress_loops` 0), but no zone's min watermark holds at order 3 (no
///   free block of order ≥ 3; reclaimable pages are not modelled): no reclaim retry, and no
///   highatomic block to unreserve.
/// * `should_compact_retry(COMPACT_COMPLETE)`: not skipped, not success; `min_priority` =
///   `MIN_COMPACT_PRIORITY` (SYNC_FULL) for order 3 ≤ `PAGE_ALLOC_COSTLY_ORDER`; SYNC_LIGHT >
///   SYNC_FULL: priority 0, `compaction_retries` 0, `goto retry`.
/// * Pass 2: priority=0, `whole_zone` and `ignore_skip_hint`: the migration scanner starts at
///   the zone start (`reset_cached_positions` put the free scanner at 0xe00), empties
///   pageblock 0 and the order-3 block freed there is captured: `COMPACT_SUCCESS`.
#[test]
fn should_compact_retry_raises_the_priority_to_sync_full() {
    for kernel in ["v6.12", "v7.3"] {
        let r = every_other_page(kernel, "movable", "movable");
        let passes = slowpath_passes(&r);
        assert_eq!(
            passes[..4],
            [
                "mm_compaction_try_to_compact_pages: order=3 gfp_mask=GFP_HIGHUSER_MOVABLE priority=1",
                "mm_compaction_end: zone_start=0x0 migrate_pfn=0x0 free_pfn=0x0 zone_end=0x1000, mode=sync status=complete",
                "# info: should_compact_retry: order=3 priority=COMPACT_PRIO_SYNC_LIGHT compaction_result=complete retries=0 max_retries=16: retry at COMPACT_PRIO_SYNC_FULL",
                "mm_compaction_try_to_compact_pages: order=3 gfp_mask=GFP_HIGHUSER_MOVABLE priority=0",
            ],
            "{kernel}"
        );
        assert_eq!(passes.len(), 5, "{kernel}: {passes:#?}");
        assert!(
            passes[4].starts_with("mm_compaction_end: zone_start=0x0 migrate_pfn=0x")
                && passes[4].ends_with("mode=sync status=success"),
            "{kernel}: {}",
            passes[4]
        );
        let z = r.final_node.active();
        let req = (0..4096).find(|&p| z.page_owner(p) == owner_of(&r, "req"));
        assert!(
            req.is_some_and(|p| p % 8 == 0 && p < 0x200),
            "{kernel}: {req:?}"
        );
        assert!(
            vmstat(&r).contains("compact_stall 2\ncompact_fail 1\ncompact_success 1\n"),
            "{kernel}: {}",
            vmstat(&r)
        );
    }
}

/// The escalation runs out: every other page is Unmovable (not LRU: no compaction can move
/// it), so every priority's compaction scans the zone and isolates nothing. An order-3
/// GFP_KERNEL request is not movable, so its first compaction is `INIT_COMPACT_PRIORITY`
/// (ASYNC) before reclaim: 7.3's `compact_first` (v7.3.4 mm/page_alloc.c:4836-4840), 6.12's
/// compaction after the first attempt (v6.12.117 :4389-4420).
///
/// * ASYNC: the cached pfns 0 lie in the zone: met at once, `COMPACT_COMPLETE`. 7.3: not
///   `__GFP_NORETRY`: priority back to `DEF_COMPACT_PRIORITY`, `goto retry`; 6.12: not costly,
///   the loop's priority is still `DEF_COMPACT_PRIORITY`.
/// * Reclaim, SYNC_LIGHT from the zone's ends (`reset_cached_positions`): the scanners meet
///   at 0xe00 with nothing isolated, `COMPACT_COMPLETE`; `should_reclaim_retry` no (no order-3
///   block); `should_compact_retry`: SYNC_LIGHT > SYNC_FULL → SYNC_FULL, retry.
/// * Reclaim, SYNC_FULL (whole zone, skip hints ignored): the same, `COMPACT_COMPLETE`;
///   `should_compact_retry`: priority already `MIN_COMPACT_PRIORITY`, no retry: the kernel's
///   next step is the OOM killer, which the model does not run: the request fails after three
///   `get_page_from_freelist` attempts, three stalls, three fails.
#[test]
fn should_compact_retry_gives_up_at_min_compact_priority() {
    for kernel in ["v6.12", "v7.3"] {
        let r = every_other_page(kernel, "unmovable", "unmovable");
        let passes = slowpath_passes(&r);
        assert_eq!(
            passes,
            [
                "mm_compaction_try_to_compact_pages: order=3 gfp_mask=GFP_KERNEL priority=2",
                "mm_compaction_end: zone_start=0x0 migrate_pfn=0x0 free_pfn=0x0 zone_end=0x1000, mode=async status=complete",
                "mm_compaction_try_to_compact_pages: order=3 gfp_mask=GFP_KERNEL priority=1",
                "mm_compaction_end: zone_start=0x0 migrate_pfn=0xe00 free_pfn=0xe00 zone_end=0x1000, mode=sync status=complete",
                "# info: should_compact_retry: order=3 priority=COMPACT_PRIO_SYNC_LIGHT compaction_result=complete retries=0 max_retries=16: retry at COMPACT_PRIO_SYNC_FULL",
                "mm_compaction_try_to_compact_pages: order=3 gfp_mask=GFP_KERNEL priority=0",
                "mm_compaction_end: zone_start=0x0 migrate_pfn=0xe00 free_pfn=0xe00 zone_end=0x1000, mode=sync status=complete",
                "# info: should_compact_retry: order=3 priority=COMPACT_PRIO_SYNC_FULL compaction_result=complete retries=0 max_retries=16: no retry",
                "# failure: order-3 Unmovable allocation failed after 3 slow-path attempt(s): reclaim and compaction gave up; the kernel would now invoke the OOM killer (not modelled)",
            ],
            "{kernel}"
        );
        assert!(
            vmstat(&r).contains("compact_stall 3\ncompact_fail 3\ncompact_success 0\n"),
            "{kernel}: {}",
            vmstat(&r)
        );
    }
}

/// The retry decisions of `should_compact_retry_gives_up_at_min_compact_priority`'s request as
/// the kernel traces them (include/trace/events/oom.h): `should_reclaim_retry` writes
/// `reclaim_retry_zone` for each zone it checks (v7.3.4 mm/page_alloc.c:4691, v6.12.117
/// :4225) and `should_compact_retry` writes `compact_retry` at `out:` (v7.3.4 :4314, v6.12.117
/// :3870), with the priority and retries from before its decision and the result through
/// `compact_result_to_feedback` (`COMPACT_COMPLETE` is `failed`).
///
/// * After the SYNC_LIGHT pass: reclaim made progress and order 3 is not costly, so
///   `no_progress_loops` = 0; the zone has no reclaimable pages in the model, `available` is its
///   2048 free pages, `min_wmark` its min watermark (195 for 4096 pages), and with no free block
///   of order 3 or more `__zone_watermark_ok` fails: `wmark_check=0`. `should_compact_retry`:
///   SYNC_LIGHT above `MIN_COMPACT_PRIORITY`, so `should_retry=1` (the priority becomes
///   SYNC_FULL, printed as it was before: SYNC_LIGHT).
/// * After the SYNC_FULL pass: the same zone line; at `MIN_COMPACT_PRIORITY`: `should_retry=0`.
#[test]
fn the_retry_decisions_are_traced_as_oom_h_prints_them() {
    for kernel in ["v6.12", "v7.3"] {
        let r = every_other_page(kernel, "unmovable", "unmovable");
        let lines: Vec<String> = trace_text(&r)
            .lines()
            .filter(|l| l.starts_with("compact_retry:") || l.starts_with("reclaim_retry_zone:"))
            .map(str::to_string)
            .collect();
        let zone = "reclaim_retry_zone: node=0 zone=Normal   order=3 reclaimable=0 available=2048 min_wmark=195 no_progress_loops=0 wmark_check=0";
        assert_eq!(
            lines,
            [
                zone,
                "compact_retry: order=3 priority=COMPACT_PRIO_SYNC_LIGHT compaction_result=failed retries=0 max_retries=16 should_retry=1",
                zone,
                "compact_retry: order=3 priority=COMPACT_PRIO_SYNC_FULL compaction_result=failed retries=0 max_retries=16 should_retry=0",
            ],
            "{kernel}"
        );
        let z = r.final_node.active();
        assert_eq!(
            z.nr_free()
                .iter()
                .enumerate()
                .map(|(o, n)| n << o)
                .sum::<u64>(),
            2048
        );
    }
}

/// A costly request retries only with `__GFP_RETRY_MAYFAIL` (v7.3.4 mm/page_alloc.c:5004-5006;
/// v6.12.117 :4504-4506), and its priority stops at `MIN_COMPACT_COSTLY_PRIORITY` (SYNC_LIGHT):
/// an order-9 request in the unmovable-filled zone gets one ASYNC and one SYNC_LIGHT
/// compaction either way. With the flag, `should_compact_retry(COMPACT_COMPLETE)` at
/// SYNC_LIGHT is at the costly floor: no retry. Without it, the loop stops before asking.
#[test]
fn a_costly_request_never_compacts_at_sync_full() {
    use buddyscope::mm::{
        boot_engine, gfp::*, Annotation, EventKind, Kernel, Step, Tracepoint, ZoneParams,
    };
    for kernel in [Kernel::V6_12, Kernel::V7_3] {
        for gfp in [GFP_KERNEL, GFP_KERNEL | __GFP_RETRY_MAYFAIL] {
            let mut p = ZoneParams::new(4096);
            p.kernel = kernel;
            p.high_max = Some(0);
            let mut e = boot_engine(&p);
            let pages: Vec<u32> = (0..4096u32)
                .map_while(|i| e.alloc_pages(GFP_KERNEL, 0, 0, i + 1, false))
                .collect();
            for &pfn in pages.iter().filter(|&&pfn| pfn % 2 == 1) {
                e.free_pages(pfn, 0, 0);
            }
            e.drain_all_pages();
            e.log.events.clear();
            assert!(e.alloc_pages(gfp, 9, 0, 9999, false).is_none());
            let count = |s: Step| e.log.events.iter().filter(|ev| ev.step == s).count();
            assert_eq!(count(Step::TryToCompactPages), 2, "{kernel:?} {gfp:#x}");
            // Each should_compact_retry decision writes one compact_retry line.
            let asked = usize::from(gfp & __GFP_RETRY_MAYFAIL != 0);
            let decisions = e
                .log
                .events
                .iter()
                .filter(|ev| {
                    matches!(
                        ev.kind(),
                        EventKind::Annotation(Annotation::Trace(Tracepoint::CompactRetry { .. }))
                    )
                })
                .count();
            assert_eq!(decisions, asked, "{kernel:?} {gfp:#x}");
        }
    }
}
