//! Side panels: pseudocode of the current kernel function, cost counters, charts and the
//! scenario picker/editor. Each reads the shared [`crate::state::AppState`] and renders engine
//! data at the cursor; none re-derives allocator state. All scenario text (names,
//! descriptions, notes) is rendered as text nodes or drawn on a canvas, never as HTML.

pub mod charts;
pub mod counters;
pub mod pseudocode;
pub mod scenario;

pub use charts::ChartsPanel;
pub use counters::CountersPanel;
pub use pseudocode::PseudocodePanel;
pub use scenario::ScenarioPanel;

use buddyscope::timeline::Timeline;

/// Number of ops completed at the cursor: the charts show the state after that many ops
/// (chart data changes once per op, not once per event).
pub fn ops_done(t: &Timeline) -> usize {
    let pos = t.pos();
    t.run.ops.partition_point(|o| o.end <= pos)
}
