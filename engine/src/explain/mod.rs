//! Explaining a run, the top layer: the narration of its events and their tracepoint lines,
//! the pseudocode of the kernel functions, the CLI's reports, the exercises' answers, and the
//! views' analyses (the fallback matrix, mixed pageblocks and their polluters and why a pageblock became mixed, a run's series
//! over time, where a page is).
//!
//! It imports from [`crate::mm`], [`crate::scenario`] and [`crate::run`].

pub mod exercises;
pub mod fallback;
pub mod mixing;
mod narrate;
pub mod overtime;
pub mod pollution;
mod pseudocode;
pub mod replay_report;
pub mod report;
mod scanners;
mod tour;
pub mod whereis;

pub use narrate::{narrate, trace_text, trace_text_upto, Ctx};
pub use pseudocode::lines;
pub use scanners::{compaction_freepages, compaction_scanners, Scanners};
pub use tour::tour_positions;
