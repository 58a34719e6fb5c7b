//! Replay of a real kernel's page-allocator trace (kernel-model.md §9).
//!
//! [`parse`] streams the kmem tracepoint lines out of an ftrace text trace; [`forced`] applies
//! them to the model as *forced transitions* (the model takes the traced pages instead of
//! choosing its own) through the engine's own primitives, so the result is an ordinary
//! recorded [`crate::run::Run`] that the timeline steps through, plus the list of points
//! where the trace and the model disagree ([`Divergence`]).

mod cut;
mod forced;
mod model_choice;
mod order;
mod parse;
mod predict;
mod summary;
mod tally;

pub use cut::{cut_at_markers, marker_text, MissingMarker};
pub(crate) use forced::by_kind_text;
pub use forced::{
    op_defs, replay, replay_text, Divergence, DivergenceKind, KindCount, OpTimes, Replay,
    ReplayError, ReplayOptions, TracedAlloc, TracedAllocs,
};
pub use model_choice::{reissue, Comparison, Difference};
pub use parse::{CompactionLine, TraceEvent, TraceParseError};
pub use predict::{Cause, CauseCount, Miss, PredictReport};
pub use summary::{
    migratetype_name, summary, text as summary_text, AllocCount, FallbackCount, FragPoint,
    ModelDifference, ModelSummary, PageblockChange, ReplaySummary,
};
pub use tally::{thinned_indices, FreeSample, Sampler, Tally, Thinned, MAX_SAMPLES};
