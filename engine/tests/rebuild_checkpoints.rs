//! `runner::rebuild_checkpoints` gives back exactly the checkpoints and final zone the run
//! itself kept (the app's run worker relies on it: it sends events, not zone copies).

use buddyscope::run::{rebuild_checkpoints, run_text, RunOptions};

#[test]
fn rebuilt_checkpoints_equal_the_runs_own() {
    // A small budget as well as the default, so that the ring thins out and doubles its
    // interval in some runs: the rebuild must thin identically.
    for budget in [256 << 20, 24 << 20] {
        for b in buddyscope::scenario::builtin::ALL {
            let opts = RunOptions {
                checkpoint_budget: budget,
                ..RunOptions::default()
            };
            let run = run_text(b.json, &opts).unwrap();
            let got = rebuild_checkpoints(&run.initial, &run.log.events, &run.ops, budget);
            let at: Vec<u32> = got.checkpoints.iter().map(|c| c.at).collect();
            let want: Vec<u32> = run.checkpoints.iter().map(|c| c.at).collect();
            assert_eq!(at, want, "{} (budget {budget})", b.id);
            assert!(got.checkpoints == run.checkpoints, "{}: nodes differ", b.id);
            assert!(
                got.final_node == run.final_node,
                "{}: final node differs",
                b.id
            );
            assert_eq!(got.stats, run.stats, "{}: counters differ", b.id);
        }
    }
}

/// A slice at a time (`CheckpointRebuild::step`, as the app's page does it between frames), the
/// rebuild is the same as in one piece, whatever the slice.
#[test]
fn a_rebuild_in_slices_equals_the_runs_own() {
    use buddyscope::run::CheckpointRebuild;
    let budget = 24 << 20;
    for id in [
        "fragmented-sandbox",
        "fallback-claim",
        "vmalloc-large-order",
    ] {
        let b = buddyscope::scenario::builtin::get(id).unwrap();
        let opts = RunOptions {
            checkpoint_budget: budget,
            ..RunOptions::default()
        };
        let run = run_text(b.json, &opts).unwrap();
        for n in [1, 3, 64] {
            let mut r = CheckpointRebuild::new(&run.initial, budget);
            let mut slices = 0;
            while !r.step(&run.log.events, &run.ops, n) {
                slices += 1;
                assert_eq!(r.ops_done(), slices * n, "{id}");
            }
            assert_eq!(r.ops_done(), run.ops.len(), "{id}");
            let got = r.finish(&run.log.events);
            assert!(
                got.checkpoints == run.checkpoints,
                "{id}: nodes differ (slices of {n})"
            );
            assert!(
                got.final_node == run.final_node,
                "{id}: final node differs (slices of {n})"
            );
        }
    }
}
