//! Edge cases of the scenario contract found by the independent cross-check
//! (tools/crosscheck): names that were freed, pages freed behind a name's back.

use buddyscope::{
    mm::check_invariants,
    run::{Outcome, Timeline},
};

fn run_checked(doc: &str) -> buddyscope::run::Run {
    let r = buddyscope::parse_valid(doc)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .unwrap();
    let ends: Vec<u32> = r.ops.iter().map(|o| o.end).collect();
    let mut tl = Timeline::new(r.clone());
    for e in ends {
        tl.seek(e);
        check_invariants(tl.zone()).unwrap();
    }
    r
}

/// "later ops that ref a failed or already freed allocation are skipped": the page `a` had is
/// now `b`'s and must not be freed through `a`.
#[test]
fn free_contig_range_of_a_freed_name_is_skipped() {
    let r = run_checked(
        r#"{"version":1,"kernel":"v7.2","zone":{"pages":4096},"ops":[
        {"op":"alloc","order":0,"as":"a"},{"op":"free","ref":"a"},
        {"op":"alloc","order":0,"as":"b"},{"op":"free_contig_range","ref":"a"}]}"#,
    );
    assert!(
        matches!(&r.ops[3].outcome, Outcome::Skipped(w) if w.contains("already freed")),
        "{}",
        r.ops[3].outcome
    );
    assert_eq!(r.ops[3].cost.pages_prepared, 0);
}

/// `vfree` after a pfn-based free released part of the area frees only what is still held:
/// no page is freed twice (this used to corrupt the pcp count and panic later).
#[test]
fn vfree_after_a_partial_pfn_free_never_double_frees() {
    let r = run_checked(
        r#"{"version":1,"kernel":"v7.2","zone":{"pages":4096,"pcp":{"batch":15,"high_min":4,"high_max":2000}},
        "ops":[{"op":"vmalloc","pages":513,"strategy":"bulk","as":"n1"},
        {"op":"free_contig_range","pfn":314,"nr_pages":107,"method":"chunked"},
        {"op":"vfree","ref":"n1","method":"per_page"},
        {"op":"alloc_contig_range","pfn":3824,"nr_pages":1,"as":"n8"}]}"#,
    );
    let z = &r.final_zone;
    assert!(z.nr_free_pages() + z.pcp_pages() <= 4096);
}

/// Freeing only the head of an unsplit block by pfn follows the contract's refcount rule: the
/// head goes back as an order-0 page, the tails (refcount 0) stay allocated, and a later `free`
/// of the name finds nothing it still holds.
#[test]
fn pfn_free_of_an_unsplit_head_frees_only_the_head() {
    let r = run_checked(
        r#"{"version":1,"kernel":"v7.1","zone":{"pages":4096},"ops":[
        {"op":"alloc","order":3,"mt":"movable","as":"a"},
        {"op":"free_contig_range","pfn":0,"nr_pages":1},
        {"op":"free","ref":"a"},{"op":"drain"}]}"#,
    );
    assert_eq!(r.ops[1].cost.pages_prepared, 1);
    assert!(
        matches!(&r.ops[2].outcome, Outcome::Skipped(w) if w.contains("already freed")),
        "{}",
        r.ops[2].outcome
    );
    assert_eq!(r.final_zone.nr_free_pages(), 4096 - 7);
}
