//! Exercise sets: the shipped sets, one hand-computed answer per ask kind, validation paths,
//! and `check` for every answer kind.

use super::*;
use crate::mm::MigrateType;

/// A set with one exercise on an inline scenario (`ops` spliced in) and `questions`.
fn set_text(zone: &str, ops: &str, questions: &str) -> String {
    format!(
        r#"{{"id": "t", "title": "T", "exercises": [{{"title": "E",
            "scenario": {{"version": 1, "kernel": "v7.2", "zone": {zone}, "ops": {ops}}},
            "questions": {questions}}}]}}"#
    )
}

fn resolve_text(text: &str) -> Result<Vec<ResolvedQuestion>, ScenarioError> {
    let set = parse_exercise_set(text)?;
    let mut r = resolve(&set)?;
    Ok(r.remove(0).questions)
}

fn answers(zone: &str, ops: &str, questions: &str) -> Vec<ResolvedQuestion> {
    resolve_text(&set_text(zone, ops, questions)).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> ScenarioError {
    match resolve_text(text) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn error_of(zone: &str, ops: &str, questions: &str) -> ScenarioError {
    error(&set_text(zone, ops, questions))
}

/// Two order-4 buddies in a 4096-page zone (four free order-10 blocks at boot, §3.7).
const BUDDIES: &str = r#"[{"op": "alloc", "order": 4, "mt": "movable", "as": "a"},
    {"op": "alloc", "order": 4, "mt": "movable", "as": "b"},
    {"op": "free", "ref": "a"}, {"op": "free", "ref": "b"}]"#;
const SMALL: &str = r#"{"pages": 4096}"#;

#[test]
fn every_shipped_set_resolves_with_its_question_count() {
    let want: &[(&str, usize, usize)] = &[
        ("split-and-merge", 4, 10),
        ("pcp-refill-and-drain", 4, 9),
        ("free-contig-range-chunks", 5, 7),
        ("vmalloc-orders", 6, 6),
        ("claim-or-steal", 4, 10),
        ("watermarks", 4, 9),
        ("compaction", 4, 15),
    ];
    assert_eq!(builtin_sets().len(), want.len());
    let (mut exercises, mut questions) = (0, 0);
    for (b, (id, n_ex, n_q)) in builtin_sets().iter().zip(want) {
        let set = parse_exercise_set(b.json()).unwrap_or_else(|e| panic!("{}: {e}", b.id));
        assert_eq!((b.id, set.id.as_str()), (*id, *id));
        let r = resolve(&set).unwrap_or_else(|e| panic!("{}: {e}", b.id));
        assert_eq!(set.exercises.len(), *n_ex, "{id}");
        assert_eq!(set.question_count(), *n_q, "{id}");
        for ex in &r {
            for q in &ex.questions {
                assert!(q.asked_at < q.reveal_to, "{id} {}", q.path);
                assert!(!q.explanation.is_empty(), "{id} {}: no explanation", q.path);
                assert!(!q.summary.is_empty() && !q.answer_text.is_empty());
                // The right answer is accepted, a neighbouring one is not.
                assert!(check(q, &q.expected.right_answer()), "{id} {}", q.path);
                let wrong = match q.expected {
                    Expected::Choice { correct, .. } => Answer::Choice(correct + 1),
                    Expected::Number(n) => Answer::Number(n + 1),
                    Expected::Page { first, count } => Answer::Page(first + count),
                    Expected::List { order, mt } => Answer::List {
                        order: order ^ 1,
                        mt,
                    },
                };
                assert!(!check(q, &wrong), "{id} {}", q.path);
                if let Expected::Choice { labels, correct } = &q.expected {
                    assert!(
                        *correct < labels.len() && labels.len() >= 2,
                        "{id} {}",
                        q.path
                    );
                    if q.ask.kind() == AnswerKind::Choice {
                        assert_eq!(q.answer_text, labels[*correct], "{id} {}", q.path);
                    }
                }
            }
        }
        assert_eq!(parse_exercise_set(&set.to_json_pretty()).unwrap(), set);
        exercises += set.exercises.len();
        questions += set.question_count();
    }
    assert_eq!((exercises, questions), (31, 66));
}

/// §3.4: freeing a, its buddy b (pfn 16) is allocated: no merge, order 4. Freeing b, the
/// buddies at 0 (order 4), 32 (5), 64 (6), …, 512 (9) are all free: it merges up to order 10.
#[test]
fn merged_order_follows_free_buddies() {
    let q = answers(
        SMALL,
        BUDDIES,
        r#"[{"op": 2, "ask": "merged_order"}, {"op": 3, "ask": "merged_order"}]"#,
    );
    assert_eq!(q[0].expected, Expected::Number(4));
    assert_eq!(q[1].expected, Expected::Number(10));
    // The explanation is the six merges and the add, in the pseudocode's words.
    assert_eq!(q[1].explanation.len(), 7);
    assert!(q[1]
        .explanation
        .iter()
        .all(|l| l.function == "__free_one_page"));
    assert!(q[1].explanation[0]
        .narration
        .contains("merges with its buddy at pfn 0x0"));
    assert_eq!(
        q[1].explanation[0].code,
        crate::explain::pseudocode::lines(crate::mm::KernelFn::__free_one_page)[7]
    );
    assert_eq!(q[1].asked_at, q[0].reveal_to);
}

/// §2.6 and §3.7: a fresh zone has only order-10 Movable blocks; __rmqueue_smallest takes the
/// first and expand() keeps the lower half, so the second order-4 request gets pfn 16 (the
/// order-4 upper half expand() put at the head of free_area[4]). Pfns are absolute.
#[test]
fn alloc_list_and_alloc_page_from_expand() {
    let q = answers(
        r#"{"pages": 4096, "start_pfn": 8192}"#,
        BUDDIES,
        r#"[{"op": 0, "ask": "alloc_list"}, {"op": 1, "ask": "alloc_list"},
            {"op": 1, "ask": "alloc_page"}]"#,
    );
    assert_eq!(
        q[0].expected,
        Expected::List {
            order: 10,
            mt: MigrateType::Movable
        }
    );
    assert_eq!(
        q[1].expected,
        Expected::List {
            order: 4,
            mt: MigrateType::Movable
        }
    );
    assert_eq!(
        q[2].expected,
        Expected::Page {
            first: 8192 + 16,
            count: 16
        }
    );
}

/// §5.3: free_contig_range(1000, 100) in the largest aligned chunks: 1000 (order 3, 1000 = 8 ×
/// 125), 1008 (order 4), 1024 (order 6, 76 pages left), 1088 (order 3, 12 left), 1096 (order 2).
#[test]
fn chunks_of_free_contig_range_1000_100() {
    let q = answers(
        r#"{"pages": 8192}"#,
        r#"[{"op": "alloc_contig_range", "pfn": 1000, "nr_pages": 100, "as": "r"},
            {"op": "free_contig_range", "ref": "r", "method": "chunked"}]"#,
        r#"[{"op": 1, "ask": "chunks"}]"#,
    );
    assert_eq!(q[0].expected, Expected::Number(5));
    assert_eq!((q[0].explanation.len(), q[0].explanation_more), (5, 0));
    assert!(
        q[0].summary.ends_with("orders 3, 4, 6, 3, 2"),
        "{}",
        q[0].summary
    );
    // Per page there are no chunks: the ask does not apply.
    let e = error_of(
        r#"{"pages": 8192}"#,
        r#"[{"op": "alloc_contig_range", "pfn": 1000, "nr_pages": 100, "as": "r"},
            {"op": "free_contig_range", "ref": "r", "method": "per_page"}]"#,
        r#"[{"op": 1, "ask": "chunks"}]"#,
    );
    assert_eq!(e.path, "exercises[0].questions[0].ask");
}

/// §2.7: an unmovable request in an all-movable zone falls back to an order-10 Movable block,
/// at least pageblock_order, so try_to_claim_block claims both its pageblocks (0 and 1); a
/// movable request needs no fallback. fallback-steal's pageblocks have 64 free pages (< 256):
/// steal.
#[test]
fn fallback_claim_steal_none_and_retyped_pageblocks() {
    let q = answers(
        SMALL,
        r#"[{"op": "alloc", "order": 4, "mt": "unmovable"},
            {"op": "alloc", "order": 4, "mt": "movable"}]"#,
        r#"[{"op": 0, "ask": "fallback"}, {"op": 0, "ask": "retyped_pageblock"},
            {"op": 1, "ask": "fallback"}]"#,
    );
    let key = |e: &Expected| match e {
        Expected::Choice { correct, .. } => Ask::Fallback.outcomes()[*correct].0,
        _ => panic!("not a choice"),
    };
    assert_eq!(key(&q[0].expected), "claim");
    assert_eq!(
        q[1].expected,
        Expected::Page {
            first: 0,
            count: 1024
        }
    );
    assert_eq!(key(&q[2].expected), "none");
    let text = r#"{"id": "t", "title": "T", "exercises": [{"title": "E",
        "scenario": "fallback-steal", "questions": [{"op": 34, "ask": "fallback"}]}]}"#;
    let q = resolve_text(text).unwrap();
    assert_eq!(key(&q[0].expected), "steal");
}

/// §4.2 / §4.4: zone_batchsize(65536 pages) is 15; an empty order-0 list is refilled with
/// batch blocks, an order-1 list with max(batch >> 1, 2) = 7 blocks = 14 pages.
#[test]
fn refill_pages_is_batch_blocks() {
    let q = answers(
        r#"{"pages": 65536}"#,
        r#"[{"op": "alloc", "order": 0, "mt": "movable"},
            {"op": "alloc", "order": 1, "mt": "movable"}]"#,
        r#"[{"op": 0, "ask": "refill_pages"}, {"op": 1, "ask": "refill_pages"}]"#,
    );
    assert_eq!(crate::mm::zone_batchsize(65536), 15);
    assert_eq!(q[0].expected, Expected::Number(15));
    assert_eq!(q[1].expected, Expected::Number(14));
}

/// §4.7: free_contig_range(1000, 100) page by page leaves 100 order-0 pages on CPU 0's pcp
/// (fewer than high); drain_pages_zone frees them all in one free_pcppages_bulk.
#[test]
fn drain_pages_of_a_drain() {
    let q = answers(
        r#"{"pages": 262144}"#,
        r#"[{"op": "alloc_contig_range", "pfn": 1000, "nr_pages": 100, "as": "r"},
            {"op": "free_contig_range", "ref": "r", "method": "per_page"},
            {"op": "drain", "cpu": 0}]"#,
        r#"[{"op": 2, "ask": "drain_pages"}, {"op": 2, "ask": "free_pages_after"}]"#,
    );
    assert_eq!(q[0].expected, Expected::Number(100));
    assert_eq!(q[1].expected, Expected::Number(262144));
}

/// §6.3 / §6.5: 50 pages with large orders: ilog2(50) = 5 (32), ilog2(18) = 4 (16), ilog2(2) =
/// 1 (2). The choices include the bulk path's 50 order-0 pages.
#[test]
fn vmalloc_orders_large_and_bulk() {
    let q = answers(
        r#"{"pages": 8192}"#,
        r#"[{"op": "vmalloc", "pages": 50, "strategy": "large_order"},
            {"op": "vmalloc", "pages": 50, "strategy": "bulk"}]"#,
        r#"[{"op": 0, "ask": "vmalloc_orders"}, {"op": 1, "ask": "vmalloc_orders"}]"#,
    );
    let Expected::Choice { labels, correct } = &q[0].expected else {
        panic!("not a choice")
    };
    assert_eq!(labels[*correct], "order 5 + order 4 + order 1");
    assert!(labels.contains(&"50 × order 0".to_string()), "{labels:?}");
    assert!((2..=4).contains(&labels.len()));
    let Expected::Choice { labels, correct } = &q[1].expected else {
        panic!("not a choice")
    };
    assert_eq!(labels[*correct], "50 × order 0");
}

/// §6.3: with 12 free pages (order 2 at 1012, order 3 at 1016) 16 pages try order 4 (fails),
/// 3 (ok), then min(3, ilog2(8)) = 3 (fails), 2 (ok), 2 and 1 (fail); the order-0 pages fail too.
#[test]
fn vmalloc_orders_after_failed_attempts() {
    let q = answers(
        r#"{"pages": 1024, "min_free_kbytes": 0}"#,
        r#"[{"op": "alloc_contig_range", "pfn": 0, "nr_pages": 1012},
            {"op": "vmalloc", "pages": 16, "strategy": "large_order"}]"#,
        r#"[{"op": 1, "ask": "vmalloc_orders"}]"#,
    );
    let Expected::Choice { labels, correct } = &q[0].expected else {
        panic!("not a choice")
    };
    assert_eq!(labels[*correct], "order 3 + order 2");
    assert_eq!(
        labels,
        &[
            "order 4",
            "2 × order 3",
            "order 3 + order 2",
            "16 × order 0"
        ]
    );
    assert!(
        q[0].summary.ends_with("only 12 pages, the vmalloc fails"),
        "{}",
        q[0].summary
    );
    // The explanation shows every attempt, failed ones too.
    let tried: Vec<&str> = q[0]
        .explanation
        .iter()
        .map(|l| l.narration.as_str())
        .collect();
    assert_eq!(tried.len(), 6, "{tried:?}");
    assert!(tried[0].ends_with("order-4 attempt failed: try the next lower order"));
}

/// §7.1: min_free_kbytes 1024 gives WMARK_MIN = 1024 / 4 = 256 pages and WMARK_LOW = 256 +
/// max(256 / 4, 4096 × 10 / 10000) = 320. 296 free pages fail the fast path's LOW check; 4096
/// pass (the high-watermark gate already passes). An order-4 block leaves 4080 free. The
/// first block is movable: an unmovable page in the range's first pageblock would make
/// `set_migratetype_isolate` refuse it (-EBUSY, `has_unmovable_pages` scans the whole block).
#[test]
fn watermark_ok_and_free_pages_after() {
    let zone = r#"{"pages": 4096, "min_free_kbytes": 1024}"#;
    let q = answers(
        zone,
        r#"[{"op": "alloc", "order": 4, "mt": "movable"},
            {"op": "alloc_contig_range", "pfn": 16, "nr_pages": 3784},
            {"op": "alloc", "order": 4, "mt": "unmovable"}]"#,
        r#"[{"op": 0, "ask": "watermark_ok"}, {"op": 0, "ask": "free_pages_after"},
            {"op": 1, "ask": "free_pages_after"}, {"op": 2, "ask": "watermark_ok"}]"#,
    );
    assert_eq!(crate::mm::watermarks_for(4096, 1024)[..3], [256, 320, 384]);
    let key = |e: &Expected| match e {
        Expected::Choice { correct, .. } => Ask::WatermarkOk.outcomes()[*correct].0,
        _ => panic!("not a choice"),
    };
    assert_eq!(key(&q[0].expected), "pass");
    assert_eq!(q[1].expected, Expected::Number(4080));
    assert_eq!(q[2].expected, Expected::Number(296));
    assert_eq!(key(&q[3].expected), "fail");
    assert!(q[3].explanation[0]
        .narration
        .contains("free 296 vs mark 320: FAIL"));
}

#[test]
fn labels_and_choices_present_the_computed_answer() {
    let q = answers(
        SMALL,
        BUDDIES,
        r#"[{"op": 1, "ask": "fallback", "labels": {"none": "its own list", "steal": "steal"}},
            {"op": 3, "ask": "merged_order", "choices": [4, 10, 9]}]"#,
    );
    assert_eq!(
        q[0].expected,
        Expected::Choice {
            labels: vec!["steal".into(), "its own list".into()],
            correct: 1
        }
    );
    assert_eq!(
        q[1].expected,
        Expected::Choice {
            labels: vec!["4".into(), "10".into(), "9".into()],
            correct: 1
        }
    );
    let e = error_of(
        SMALL,
        BUDDIES,
        r#"[{"op": 1, "ask": "fallback", "labels": {"claim": "c", "steal": "s"}}]"#,
    );
    assert_eq!(e.path, "exercises[0].questions[0].labels");
    assert!(e.message.contains("the answer is \"none\""), "{e}");
    let e = error_of(
        SMALL,
        BUDDIES,
        r#"[{"op": 3, "ask": "merged_order", "choices": [4, 9]}]"#,
    );
    assert_eq!(e.path, "exercises[0].questions[0].choices");
    assert!(e.message.starts_with("the answer is 10"), "{e}");
}

#[test]
fn check_right_and_wrong_for_each_answer_kind() {
    let q = answers(
        SMALL,
        BUDDIES,
        r#"[{"op": 0, "ask": "alloc_list"}, {"op": 1, "ask": "alloc_page"},
            {"op": 1, "ask": "fallback"}, {"op": 3, "ask": "merged_order"}]"#,
    );
    let (list, page, choice, number) = (&q[0], &q[1], &q[2], &q[3]);
    let movable = MigrateType::Movable;
    assert!(check(
        list,
        &Answer::List {
            order: 10,
            mt: movable
        }
    ));
    assert!(!check(
        list,
        &Answer::List {
            order: 9,
            mt: movable
        }
    ));
    assert!(!check(
        list,
        &Answer::List {
            order: 10,
            mt: MigrateType::Unmovable
        }
    ));
    // The order-4 block at 16: any of its 16 pages.
    assert!(check(page, &Answer::Page(16)) && check(page, &Answer::Page(31)));
    assert!(!check(page, &Answer::Page(15)) && !check(page, &Answer::Page(32)));
    assert!(check(choice, &Answer::Choice(2)));
    assert!(!check(choice, &Answer::Choice(0)) && !check(choice, &Answer::Choice(7)));
    assert!(check(number, &Answer::Number(10)));
    assert!(!check(number, &Answer::Number(9)));
    // An answer of another kind is wrong.
    assert!(!check(number, &Answer::Choice(10)));
    assert!(!check(page, &Answer::Number(16)));
}

#[test]
fn shape_errors_name_the_path() {
    let one = |q: &str| set_text(SMALL, BUDDIES, q);
    let e = error(&one(r#"[{"op": 0, "ask": "alloc_list", "promt": "x"}]"#));
    assert_eq!(e.path, "exercises[0].questions[0].promt");
    assert!(e.hint.contains("did you mean `prompt`"), "{e}");
    let e = error(&one(r#"[{"op": "0", "ask": "alloc_list"}]"#));
    assert_eq!(e.path, "exercises[0].questions[0].op");
    assert!(e.message.contains("expected an integer"), "{e}");
    let e = error(&one(r#"[{"op": 0, "ask": "merged_ordr"}]"#));
    assert_eq!(e.path, "exercises[0].questions[0].ask");
    assert!(e.hint.starts_with("did you mean \"merged_order\"?"), "{e}");
    let e = error(&one(r#"[{"op": 0}]"#));
    assert_eq!(e.path, "exercises[0].questions[0].ask");
    assert!(e.message.contains("missing field `ask`"), "{e}");
    let e = error(&one(
        r#"[{"op": 0, "ask": "fallback", "labels": {"claim": "a", "stael": "b"}}]"#,
    ));
    assert_eq!(e.path, "exercises[0].questions[0].labels.stael");
    assert!(e.hint.starts_with("did you mean \"steal\"?"), "{e}");
    let e = error(&one(
        r#"[{"op": 0, "ask": "alloc_page", "choices": [1, 2]}]"#,
    ));
    assert_eq!(e.path, "exercises[0].questions[0].choices");
    let e = error(&one(
        r#"[{"op": 2, "ask": "alloc_list"}, {"op": 1, "ask": "alloc_list"}]"#,
    ));
    assert_eq!(e.path, "exercises[0].questions[1].op");
    let e = error(&one("[]"));
    assert_eq!(e.path, "exercises[0].questions");
    // The set and the exercise.
    let e = error(r#"{"id": "t", "title": "T", "exercises": [], "descripton": ""}"#);
    assert_eq!(e.path, "descripton");
    assert!(e.hint.contains("did you mean `description`"), "{e}");
    let e = error(r#"{"id": "T T", "title": "T", "exercises": []}"#);
    assert_eq!(e.path, "id");
    let e = error(r#"{"version": 2, "id": "t", "title": "T", "exercises": []}"#);
    assert_eq!(e.path, "version");
    let e = error(r#"{"id": "t", "title": "T", "exercises": []}"#);
    assert_eq!(e.path, "exercises");
    let e = error(r#"{"id": "t", "title": "T", "id": "u", "exercises": []}"#);
    assert!(e.message.contains("duplicate field `id`"), "{e}");
    let e = error(
        r#"{"id": "t", "title": "T", "exercises": [{"title": "E", "scenario": "fallback-clam",
            "questions": [{"op": 0, "ask": "fallback"}]}]}"#,
    );
    assert_eq!(e.path, "exercises[0].scenario");
    assert!(
        e.hint.starts_with("did you mean \"fallback-claim\"?"),
        "{e}"
    );
    // An inline scenario's own errors, under the exercise's path.
    let e = error_of(
        SMALL,
        r#"[{"op": "alloc", "order": 11}]"#,
        r#"[{"op": 0, "ask": "alloc_list"}]"#,
    );
    assert_eq!(e.path, "exercises[0].scenario.ops[0].order");
    let e = error_of(
        SMALL,
        r#"[{"op": "free", "ref": "nope"}]"#,
        r#"[{"op": 0, "ask": "alloc_list"}]"#,
    );
    assert_eq!(e.path, "exercises[0].scenario.ops[0].ref");
}

#[test]
fn positions_and_asks_are_checked_against_the_run() {
    let e = error_of(SMALL, BUDDIES, r#"[{"op": 4, "ask": "merged_order"}]"#);
    assert_eq!(e.path, "exercises[0].questions[0].op");
    assert_eq!(
        e.message,
        "question 1 is asked after op 4, but the run has 4 ops, so no op follows"
    );
    assert_eq!(e.hint, "use 0..=3");
    let e = error_of(
        SMALL,
        BUDDIES,
        r#"[{"op": 2, "event": 100000, "ask": "merged_order"}]"#,
    );
    assert_eq!(e.path, "exercises[0].questions[0].event");
    assert!(e.message.starts_with("op 3 has "), "{e}");
    let e = error_of(SMALL, BUDDIES, r#"[{"op": 0, "ask": "merged_order"}]"#);
    assert_eq!(e.path, "exercises[0].questions[0].ask");
    assert_eq!(
        e.message,
        "merged_order at op 0, but op 1 (alloc order 4 movable as a) puts no block on a buddy \
         free list (__free_one_page)"
    );
    let e = error_of(SMALL, BUDDIES, r#"[{"op": 2, "ask": "vmalloc_orders"}]"#);
    assert!(e.message.contains("op 3 (free a) is not a vmalloc"), "{e}");
    // An event inside the op moves the question (and narrows what it looks at).
    let q = answers(
        SMALL,
        BUDDIES,
        r#"[{"op": 3, "ask": "merged_order"}, {"op": 3, "event": 3, "ask": "merged_order"}]"#,
    );
    assert_eq!(q[1].asked_at, q[0].asked_at + 3);
    assert_eq!(q[1].reveal_to, q[0].reveal_to);
}

#[test]
fn the_answer_key_ends_with_the_question_count() {
    let set = parse_exercise_set(builtin_sets()[0].json()).unwrap();
    let r = resolve(&set).unwrap();
    let key = answer_key(&set, &r);
    assert!(key.ends_with("\n10 questions\n"), "{key}");
    assert!(key.contains("answer: order 10"), "{key}");
}

/// The key names each question's event, what the app's position shows: after an op, inside one
/// (`op K, event E`), and after a `drain all` that ran no events (6.12, empty pcp lists), where
/// the position is the end of the op before.
#[test]
fn the_answer_key_names_the_event_of_each_question() {
    let text = r#"{"id": "t", "title": "T", "exercises": [{"title": "E",
        "scenario": {"version": 1, "kernel": "v6.12",
            "zone": {"pages": 4096, "cpus": 1, "pcp": {"batch": 1, "high_min": 0, "high_max": 0}},
            "ops": [{"op": "alloc", "order": 4, "mt": "movable", "as": "a"},
                {"op": "alloc", "order": 4, "mt": "movable", "as": "b"},
                {"op": "drain", "cpu": "all"}, {"op": "free", "ref": "a"}, {"op": "free", "ref": "b"}]},
        "questions": [{"op": 1, "ask": "alloc_page"}, {"op": 1, "event": 3, "ask": "alloc_page"},
            {"op": 3, "ask": "merged_order"}, {"op": 4, "ask": "merged_order"}]}]}"#;
    let set = parse_exercise_set(text).unwrap();
    let r = resolve(&set).unwrap();
    let q = &r[0].questions;
    let valid =
        crate::scenario::ValidScenario::new(resolve::exercise_scenario(&set.exercises[0])).unwrap();
    let run = crate::run::Runner::new(valid).run().unwrap();
    let end = |k: usize| run.ops[k - 1].end;
    assert_eq!(end(3), end(2), "the drain runs no events");
    let at: Vec<(u32, u32)> = q.iter().map(|q| (q.asked_at, q.asked_in_op)).collect();
    assert_eq!(at, [(end(1), 1), (end(1) + 3, 2), (end(2), 2), (end(4), 4)]);
    let key = answer_key(&set, &r);
    let lines: Vec<&str> = key.lines().filter(|l| l.contains(". [op ")).collect();
    let want = [
        format!("  1. [op 1 (event {}): before op 2 `", end(1)),
        format!("  2. [op 1, event 3 (event {}): before op 2 `", end(1) + 3),
        format!(
            "  3. [op 3 (event {}, where op 2 ended): before op 4 `free a`",
            end(2)
        ),
        format!("  4. [op 4 (event {}): before op 5 `free b`", end(4)),
    ];
    assert_eq!(lines.len(), want.len(), "{key}");
    for (l, w) in lines.iter().zip(&want) {
        assert!(l.starts_with(w.as_str()), "{l:?} does not start with {w:?}");
    }
}

/// A CMA release of 16384 pages from pfn 32768 is 16 order-10 chunks (§5.4); the explanation
/// names the first seven and the last, and counts the rest.
#[test]
fn a_long_explanation_keeps_the_last_event() {
    let text = r#"{"id": "t", "title": "T", "exercises": [{"title": "E",
        "scenario": "cma-frozen-range", "questions": [{"op": 4, "ask": "chunks"}]}]}"#;
    let q = resolve_text(text).unwrap();
    assert_eq!(q[0].expected, Expected::Number(16));
    assert_eq!(q[0].explanation.len(), MAX_EXPLAIN_LINES);
    assert_eq!(q[0].explanation_more, 16 - MAX_EXPLAIN_LINES);
    let last = q[0].explanation.last().unwrap();
    assert!(
        last.narration.ends_with("chunk pfn 0xbc00 order 10"),
        "{}",
        last.narration
    );
}

/// The compaction asks on engine/tests/compaction.rs's worked example (a, b, c at pfns 0-2, b
/// freed, pfn 0xe00 taken by alloc_contig_range, compact_memory): the migration scanner takes a
/// and c from pageblock 0 and marks pageblocks 1..=6 skipped as it passes them (the first is
/// pageblock 1; the free scanner stops inside pageblock 7, so 7 gets no bit); the scanners meet
/// with migrate_pfn 0xe00, free_pfn 0xe04: pageblock 7, COMPACT_COMPLETE. No direct compaction
/// runs, so the counter asks do not apply.
#[test]
fn compaction_asks_on_the_worked_example() {
    let ops = r#"[{"op": "alloc", "order": 0, "mt": "movable", "as": "a"},
        {"op": "alloc", "order": 0, "mt": "movable", "as": "b"},
        {"op": "alloc", "order": 0, "mt": "movable", "as": "c"},
        {"op": "free", "ref": "b"},
        {"op": "alloc_contig_range", "pfn": 3584, "nr_pages": 1, "as": "top"},
        {"op": "drain", "cpu": "all"},
        {"op": "compact_memory"}]"#;
    let zone = r#"{"pages": 4096, "cpus": 1}"#;
    let q = answers(
        zone,
        ops,
        r#"[{"op": 6, "ask": "scanners_met"}, {"op": 6, "ask": "skipped_pageblock"},
            {"op": 6, "ask": "compact_result"}]"#,
    );
    assert_eq!(
        q[0].expected,
        Expected::Page {
            first: 0xe00,
            count: 512
        }
    );
    assert_eq!(
        q[1].expected,
        Expected::Page {
            first: 0x200,
            count: 512
        }
    );
    let key = |e: &Expected| match e {
        Expected::Choice { correct, .. } => Ask::CompactResult.outcomes()[*correct].0,
        _ => panic!("not a choice"),
    };
    assert_eq!(key(&q[2].expected), "complete");
    let e = error_of(zone, ops, r#"[{"op": 6, "ask": "compact_stall_after"}]"#);
    assert_eq!(e.path, "exercises[0].questions[0].ask");
    assert!(e.message.contains("runs no direct compaction"), "{e}");
}

/// The shipped compaction set's direct compaction answers: a THP's ASYNC compaction in a zone
/// at pfn 0 starts at the zeroed cached pfns, inside the zone, and ends at once; the SYNC_LIGHT
/// one after reclaim captures the block (compact_stall 2, compact_success 1). On 6.12 an
/// unmovable order-9 request's ASYNC pass (the zone at pfn 0x1000: the scanners start at its
/// ends) may empty no Movable pageblock (v6.12.117 mm/compaction.c:1408-1411) and meets the
/// free scanner (COMPACT_PARTIAL_SKIPPED: not whole_zone, v7.3.4 :2300-2303), the SYNC_LIGHT one
/// after reclaim succeeds (compact_stall 2, compact_success 1).
#[test]
fn compaction_set_counts_stalls_and_successes() {
    let b = builtin_sets()
        .iter()
        .find(|b| b.id == "compaction")
        .unwrap();
    let r = resolve(&parse_exercise_set(b.json()).unwrap()).unwrap();
    let n = |e: usize, q: usize| r[e].questions[q].expected.clone();
    assert_eq!(
        (n(1, 2), n(1, 3)),
        (
            Expected::Number(2),
            Expected::Choice {
                labels: vec!["0".into(), "1".into(), "2".into()],
                correct: 1
            }
        )
    );
    assert_eq!(
        (n(2, 1), n(2, 2)),
        (Expected::Number(2), Expected::Number(1))
    );
    match n(2, 0) {
        Expected::Choice { labels, correct } => {
            assert!(labels[correct].starts_with("Partial"), "{labels:?}")
        }
        e => panic!("{e:?}"),
    }
}
