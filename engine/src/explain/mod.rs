//! Explaining a run: narration, pseudocode, reports, exercises and the views' analyses.

pub mod exercises;
pub mod fallback;
pub mod narrate;
pub mod pollution;
pub mod pseudocode;
pub mod replay_report;
pub mod report;
pub mod tour;
pub mod whereis;
