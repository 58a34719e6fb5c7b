//! [`ScenarioError`]: every error of a scenario, pointing at the spot of the document to fix.

use std::fmt;

use serde::Serialize;

/// A document error: where (`path`, a JSON path such as `ops[2].ops[0].ref`, `zone.pages`;
/// empty for the document itself, e.g. a syntax error, whose message then gives line and
/// column), what (`message`) and what to do (`hint`, possibly empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioError {
    /// The JSON path of the spot to fix (`ops[2].ops[0].ref`; empty: the document).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do (possibly empty).
    pub hint: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn new(
        path: impl Into<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub(super) fn or_hint(mut self, hint: &str) -> Self {
        if self.hint.is_empty() {
            self.hint = hint.to_string();
        }
        self
    }
}

/// `path: message; hint`, e.g.
/// `ops[3].order: order 11 is above MAX_PAGE_ORDER (10); use 0..=10`.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)?;
        if !self.hint.is_empty() {
            write!(f, "; {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

pub(crate) type Res<T> = Result<T, ScenarioError>;

/// The JSON path of member `key` of the value at `path`.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
