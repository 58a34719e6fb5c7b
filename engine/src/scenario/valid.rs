//! Reading a scenario (format v1, `design/scenario-format.md`) and its static validation.
//!
//! A scenario is the one artefact shared by the app, the CLI and the tests, so its errors must
//! point at the exact spot of the document. Parsing therefore goes in three steps:
//!
//! 1. text → [`serde_json::Value`], rejecting duplicate keys (serde_json would silently keep the
//!    last one, and the contract says a typo must never be ignored); a syntax error reports its
//!    line and column;
//! 2. `Value` → [`Scenario`] field by field, so every type error and every unknown field carries
//!    its JSON path (`ops[2].ops[0].ref`) — serde's derived errors carry none;
//! 3. [`validate`]: every check the contract makes "before anything runs" (ranges, CPUs, names,
//!    pfn ranges), on the typed value, so a scenario built in code (the app's editor) gets exactly
//!    the checks a scenario read from text gets.

use std::str::FromStr;

use super::error::ScenarioError;
use super::format::{Init, Scenario};
use super::json::parse_json;
use super::read::scenario_from_value;
use super::validate::{check_scenario, check_scenario_in};

/// A scenario that passed every static check ([`validate`]): the first stage of a run, and the
/// only input of the next one. A run goes one way through: [`parse_valid`] (or
/// [`ValidScenario::new`]) → [`crate::run::build`] (the start zone, with the `/proc` import)
/// → [`crate::run::execute`] (the ops) → [`crate::run::Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValidScenario(Scenario);

impl ValidScenario {
    /// Validates a scenario built in code (the app's editor, tests) exactly as [`parse`] does.
    pub fn new(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
        validate(&scenario)?;
        Ok(ValidScenario(scenario))
    }

    /// The scenario, to change it (it has to be validated again).
    pub fn into_scenario(self) -> Scenario {
        self.0
    }
}

impl std::ops::Deref for ValidScenario {
    type Target = Scenario;
    fn deref(&self) -> &Scenario {
        &self.0
    }
}

/// Parses and statically validates a scenario. With `init` from `/proc` and no `zone.pages`,
/// the zone size is only known once the `/proc` text is read: the pfn-range checks then wait for
/// [`validate_with_zone_pages`], which [`crate::run::build`] calls.
pub fn parse_valid(text: &str) -> Result<ValidScenario, ScenarioError> {
    let value = parse_json(text)?;
    ValidScenario::new(scenario_from_value(&value)?)
}

/// [`parse_valid`], for a caller that wants the plain [`Scenario`] (to edit or serialize it).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_valid(text).map(ValidScenario::into_scenario)
}

/// Every static check of the contract, with the zone size [`Scenario::static_zone_pages`] knows.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    check_scenario(s, s.static_zone_pages().map(|p| (p, "zone.pages")))
}

/// [`validate`] with the final zone size `pages` (e.g. from [`Scenario::resolve_proc_zone_pages`]),
/// so the pfn ranges of the ops are checked against the zone `init` really builds.
pub fn validate_with_zone_pages(s: &Scenario, pages: u64) -> Result<(), ScenarioError> {
    let origin = match &s.init {
        Init::Boot => "zone.pages",
        Init::Proc {
            zoneinfo: Some(_), ..
        } => "init.zoneinfo",
        Init::Proc { .. } if s.zone.pages.is_some() => "zone.pages",
        Init::Proc { .. } => "init.pagetypeinfo",
        Init::Snapshot(_) => "init.snapshot.pages",
        Init::NodeSnapshot(_) => "init.snapshot.zones",
    };
    check_scenario(s, Some((pages, origin)))
}

/// [`validate`] for `init.zone` `"all"` once the import has built the node: `zones` are its
/// zones' `[start_pfn, end_pfn)` and names in pfn order, and the ops' pfn ranges are checked
/// against them with the errors (and JSON paths) of a `zones` scenario. [`validate`] leaves
/// those ranges to this call, which [`crate::run::build`] makes.
pub fn validate_in_imported_node(
    s: &Scenario,
    zones: Vec<(u64, u64, String)>,
) -> Result<(), ScenarioError> {
    check_scenario_in(
        s,
        s.static_zone_pages().map(|p| (p, "zone.pages")),
        Some(zones),
    )
}

impl FromStr for Scenario {
    type Err = ScenarioError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}
