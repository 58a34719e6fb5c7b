//! `runner::rebuild_checkpoints` gives back exactly the checkpoints and final zone the run
//! itself kept (the app's run worker relies on it: it sends events, not zone copies), and
//! `CheckpointRebuild::into_run` the whole run.

use buddyscope::run::{rebuild_checkpoints, RunOptions};

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
            let run = buddyscope::parse_valid(b.json())
                .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
                .unwrap();
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
        let run = buddyscope::parse_valid(b.json())
            .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
            .unwrap();
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

/// A run computed elsewhere (the app's worker sends its events, op records, owners and names)
/// comes back, through `CheckpointRebuild::into_run`, as the run itself: the same op
/// definitions (from the scenario's program), checkpoints, final node, counters and lock holds.
#[test]
fn a_run_rebuilt_from_its_records_is_the_run() {
    use buddyscope::run::{build, CheckpointRebuild};
    let budget = 24 << 20;
    for id in [
        "fallback-claim",
        "free-contig-range-held-page",
        "dma32-machine",
        "cma-alloc-release",
    ] {
        let b = buddyscope::scenario::builtin::get(id).unwrap();
        let opts = RunOptions {
            checkpoint_budget: budget,
            ..RunOptions::default()
        };
        let run = buddyscope::parse_valid(b.json())
            .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
            .unwrap();
        let start = build(buddyscope::parse_valid(b.json()).unwrap());
        let mut r = CheckpointRebuild::new(start.engine.node(), budget);
        r.step(&run.log.events, &run.ops, usize::MAX);
        let back = r.into_run(
            start.scenario,
            start.engine.into_node(),
            run.log.clone(),
            run.ops.clone(),
            run.owners.clone(),
            run.names.clone(),
        );
        assert_eq!(back.scenario, run.scenario, "{id}");
        assert_eq!(back.op_defs, run.op_defs, "{id}");
        assert_eq!(back.owners, run.owners, "{id}");
        assert_eq!(back.lock_holds, run.lock_holds, "{id}");
        assert!(back.initial == run.initial, "{id}: initial node differs");
        assert!(back.checkpoints == run.checkpoints, "{id}: nodes differ");
        assert!(
            back.final_node == run.final_node,
            "{id}: final node differs"
        );
        assert_eq!(back.stats, run.stats, "{id}: counters differ");
    }
}
