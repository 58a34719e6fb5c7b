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
pub mod summary;
pub mod tally;

pub(crate) use forced::{by_kind_text, KindCount};
pub use forced::{
    replay, replay_text, Divergence, DivergenceKind, Replay, ReplayError, ReplayOptions,
    TracedAllocs,
};
pub use model_choice::reissue;
pub use predict::{Cause, PredictReport};
pub use summary::{summary, ReplaySummary};
