//! Replay of a real kernel's page-allocator trace (kernel-model.md §9).
//!
//! [`parse`] streams the kmem tracepoint lines out of an ftrace text trace; [`forced`] applies
//! them to the model as *forced transitions* (the model takes the traced pages instead of
//! choosing its own) through the engine's own primitives, so the result is an ordinary
//! recorded [`crate::run::runner::Run`] that the timeline steps through, plus the list of points
//! where the trace and the model disagree ([`Divergence`]).

pub mod forced;
pub mod model_choice;
pub mod order;
pub mod parse;
pub mod predict;
pub mod report;
pub mod summary;

pub use forced::{
    replay, replay_text, Divergence, DivergenceKind, KindCount, Replay, ReplayError, ReplayOptions,
    TracedAlloc, TracedAllocs,
};
pub use model_choice::{compare, Comparison, Difference};
pub use parse::{parse_line, TraceEvent, TraceLine, TraceParseError, TraceReader};
pub use predict::{Cause, PredictReport};
pub use summary::{summary, ReplaySummary};

use crate::mm::page_alloc::Engine;
use crate::scenario::{Scenario, ScenarioError, ValidScenario};

/// The start state a replay begins from: the zone `s`'s `init` builds, through the same two
/// stages as a run ([`ValidScenario::new`] → [`crate::run::setup::build`]); the ops are ignored.
pub(crate) fn start_engine(s: &Scenario) -> Result<Engine, ScenarioError> {
    Ok(crate::run::setup::build(ValidScenario::new(s.clone())?)?.engine)
}
