//! Exercises: predict, then reveal. An exercise set is a JSON document
//! (`docs/exercise-format.md`): exercises, each a scenario (a built-in's id or an inline scenario)
//! plus questions at positions of its run. A question names *what* to ask from a fixed
//! vocabulary ([`Ask`]); the answer is never written by the author: [`resolve`] runs the scenario
//! through the normal pipeline (`parse_valid` → `run::Runner`) and reads the
//! answer off the run's event log at that position, so an exercise cannot be wrong about the
//! model, and it stays right when the model changes.
//!
//! Errors are [`ScenarioError`]s with JSON paths (`exercises[2].questions[0].op`), built with the
//! scenario reader's own machinery, so a teacher gets the same messages a scenario author gets.
//! Checking goes in two steps, as for tours: [`parse_exercise_set`] checks the document's shape
//! (fields, types, ask names, built-in ids, inline scenarios); [`resolve`] runs every scenario and
//! refuses positions beyond the run and asks that do not apply there ("merged_order at op 3, but
//! op 4 … puts no block on a buddy free list").

mod key;
mod read;
mod resolve;
mod set;
#[cfg(test)]
mod tests;

pub use crate::scenario::ScenarioError;
pub use key::answer_key;
pub use read::parse_exercise_set;
pub use resolve::{asks_at, resolve};

pub use set::*;
