//! The scenario layer: the format, its reader and checks, and the inputs a scenario names.

pub mod builtin;
mod error;
mod format;
pub(crate) mod json;
pub mod node_snapshot;
pub mod pair;
pub mod procfs;
pub(crate) mod read;
mod scopes;
#[cfg(test)]
mod tests;
mod tour;
mod validate;
pub mod workload;
pub mod zone_snapshot;
mod zones;

pub use error::ScenarioError;
pub use format::*;
pub use read::suggest;
pub use scopes::Scopes;
pub use tour::{tour_positions, TourStop, MAX_CAPTION_CHARS, MAX_TOUR_STOPS};
