//! `Timeline::seek` takes a checkpoint or walks, whichever costs less (a zone copy is counted as
//! `pages × 16 / 256` events of replay): on a 1 GiB zone (a copy worth 16,384 events) in a run of
//! about 100,000 events, far jumps restore a checkpoint and nearer ones walk, forwards and
//! backwards. Either way the zone must be the one forward replay reaches.

use buddyscope::run::Timeline;

const SCENARIO: &str = r#"{
  "version": 1,
  "name": "seek both ways",
  "zone": {"pages": 262144},
  "ops": [{"op": "repeat", "times": 6000, "ops": [
    {"op": "alloc", "order": 0, "mt": "movable", "as": "x"},
    {"op": "alloc", "order": 2, "mt": "unmovable", "as": "y"},
    {"op": "free", "ref": "x"},
    {"op": "free", "ref": "y"}
  ]}]
}"#;

#[test]
fn far_and_near_jumps_reach_the_forward_replay_state() {
    let run = buddyscope::parse_valid(SCENARIO)
        .and_then(|s| buddyscope::Runner::new(s).run())
        .expect("runs");
    let len = run.log.events.len() as u32;
    assert!(len > 60_000, "a long enough run: {len} events");
    assert!(
        run.checkpoints.len() > 2,
        "{} checkpoints",
        run.checkpoints.len()
    );
    // Far and near targets in a fixed scrambled order (golden-ratio steps), then the ends.
    let mut targets: Vec<u32> = (0..24)
        .map(|i| ((0.3 + i as f64 * 0.618_033_988_7) % 1.0 * len as f64) as u32)
        .collect();
    targets.extend([len, 0, len / 2, len / 2 + 3000, len / 2 - 3000, 1]);
    // The reference: forward replay only, event by event, to each target in ascending order.
    let mut sorted = targets.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let mut fwd = Timeline::new(run.clone());
    let mut want = std::collections::HashMap::new();
    for &t in &sorted {
        while fwd.pos() < t {
            let next = fwd.pos() + 1;
            fwd.seek(next);
        }
        want.insert(t, fwd.zone().clone());
    }
    let mut tl = Timeline::new(run);
    for &t in &targets {
        tl.seek(t);
        assert_eq!(tl.pos(), t);
        assert!(tl.zone() == &want[&t], "seek to {t} of {len}");
    }
}
