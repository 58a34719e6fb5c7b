//! The scenario layer: the format, its reader and checks, and the inputs a scenario names.

mod bounds;
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
mod valid;
mod validate;
pub mod workload;
pub mod zone_snapshot;
mod zones;

pub use bounds::*;
pub(crate) use error::join;
pub use error::ScenarioError;
pub use format::*;
pub use read::suggest;
pub use scopes::Scopes;
pub use valid::*;
