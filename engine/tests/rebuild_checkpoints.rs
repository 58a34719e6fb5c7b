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
            let run = buddyscope::parse_valid(b.json)
                .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
                .unwrap();
            let (checkpoints, final_zone) =
                rebuild_checkpoints(&run.initial, &run.log.events, &run.ops, budget);
            let at: Vec<u32> = checkpoints.iter().map(|c| c.0).collect();
            let want: Vec<u32> = run.checkpoints.iter().map(|c| c.0).collect();
            assert_eq!(at, want, "{} (budget {budget})", b.id);
            assert!(checkpoints == run.checkpoints, "{}: zones differ", b.id);
            assert!(final_zone == run.final_zone, "{}: final zone differs", b.id);
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
        let run = buddyscope::parse_valid(b.json)
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
            let (checkpoints, final_zone) = r.finish(&run.log.events);
            assert!(
                checkpoints == run.checkpoints,
                "{id}: zones differ (slices of {n})"
            );
            assert!(
                final_zone == run.final_zone,
                "{id}: final zone differs (slices of {n})"
            );
        }
    }
}

/// A run computed elsewhere (the app's worker sends its events, op records, owners and names)
/// comes back, through `CheckpointRebuild::into_run`, as the run itself: the same op
/// definitions (from the scenario's program), checkpoints, final zone and lock holds.
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
        let run = buddyscope::parse_valid(b.json)
            .and_then(|s| buddyscope::Runner::new(s).options(&opts).run())
            .unwrap();
        let start = build(buddyscope::parse_valid(b.json).unwrap());
        let mut r = CheckpointRebuild::new(&start.engine.zone, budget);
        r.step(&run.log.events, &run.ops, usize::MAX);
        let back = r.into_run(
            start.scenario,
            start.engine.zone,
            run.log.clone(),
            run.ops.clone(),
            run.owners.clone(),
            run.names.clone(),
        );
        assert_eq!(back.scenario, run.scenario, "{id}");
        assert_eq!(back.op_defs, run.op_defs, "{id}");
        assert_eq!(back.owners, run.owners, "{id}");
        assert_eq!(back.lock_holds, run.lock_holds, "{id}");
        assert!(back.initial == run.initial, "{id}: initial zone differs");
        assert!(back.checkpoints == run.checkpoints, "{id}: zones differ");
        assert!(
            back.final_zone == run.final_zone,
            "{id}: final zone differs"
        );
    }
}
