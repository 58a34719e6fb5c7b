//! Running a scenario, the third layer: its start state ([`build`]), the bounds a run is held
//! to ([`Limits`]), the run itself ([`Runner`] → [`Run`], with one [`OpRecord`] an op and its
//! [`Outcome`], and [`Checkpoint`]s of its node), the cursor over it ([`Timeline`]), a page's
//! history, and the replay of a real kernel's
//! trace ([`replay`]).
//!
//! It imports from [`crate::mm`] and [`crate::scenario`].

mod focus;
mod history;
mod limits;
mod outcome;
pub mod replay;
mod runner;
mod setup;
mod timeline;

pub use crate::scenario::OpDef;
pub use focus::op_touched_pageblocks;
pub use history::{page_history, ListChange, PageHistoryEntry, PageList};
pub use limits::{check_limits, estimate, is_cancelled, Cost, Limits, EVENT_BYTES, EVENT_CAP_PATH};
pub use outcome::Outcome;
pub use runner::{
    alloc_gfp, rebuild_checkpoints, Checkpoint, CheckpointRebuild, CompactionSpan, OpRecord,
    OwnerInfo, Progress, Rebuilt, Run, RunOptions, Runner, COUNTERS_ONLY_KEPT_OPS, PROGRESS_EVERY,
};
pub use setup::{build, build_boot, Start};
pub use timeline::{op_at, Timeline};
