//! Running a scenario: its start state, the run, its cursor, and trace replay.

pub mod focus;
pub mod history;
pub mod limits;
pub mod outcome;
pub mod replay;
pub mod runner;
pub mod setup;
pub mod timeline;
