//! Test fixtures: runs of the built-in scenarios.

use buddyscope::run::Timeline;
use buddyscope::scenario::{parse, ValidScenario};
use buddyscope::scenario::{ComparePair, Side};

/// The timeline of a built-in scenario, cursor at the start.
pub fn timeline(id: &str) -> Timeline {
    let b = buddyscope::scenario::builtin::get(id).expect("a built-in");
    crate::model::Session::load(b.json())
        .expect("runs")
        .timeline
}

/// Both sides of a built-in scenario's own compare pair, cursors at the start.
pub fn compare_sides(id: &str) -> (Timeline, Timeline) {
    let b = buddyscope::scenario::builtin::get(id).unwrap();
    let s = parse(b.json()).unwrap();
    let pair = ComparePair::default_for(&s);
    let run = |side: Side| {
        let v = ValidScenario::new(pair.side(side).apply(&s)).unwrap();
        let r = buddyscope::run::Runner::new(v)
            .options(&buddyscope::run::RunOptions {
                record: true,
                checkpoint_budget: 16 << 20,
                max_ops: None,
            })
            .run()
            .unwrap();
        Timeline::new(r)
    };
    (run(Side::A), run(Side::B))
}
