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
