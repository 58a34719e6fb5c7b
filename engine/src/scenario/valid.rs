//! Reading a scenario (format v1, `design/scenario-format.md`) and its validation.
//!
//! A scenario is the one artefact shared by the app, the CLI and the tests, so its errors must
//! point at the exact spot of the document. Parsing therefore goes in steps:
//!
//! 1. text → [`serde_json::Value`], rejecting duplicate keys (serde_json would silently keep the
//!    last one, and the contract says a typo must never be ignored); a syntax error reports its
//!    line and column;
//! 2. `Value` → [`Scenario`] field by field, so every type error and every unknown field carries
//!    its JSON path (`ops[2].ops[0].ref`) — serde's derived errors carry none; this reader is the
//!    only one: a scenario kept in other state is kept as its JSON and read back here;
//! 3. [`validate`]: every check the contract makes "before anything runs" (ranges, CPUs, names,
//!    pfn ranges), on the typed value, so a scenario built in code (the app's editor) gets exactly
//!    the checks a scenario read from text gets; the ops are numbered once ([`Program`]) and
//!    every `ref` bound to the op that defines its name;
//! 4. the checks that need the zones `init` lays out ([`ValidScenario::new`]): a `/proc` text is
//!    read (once: the start state is built from what was read) and the ops' pfn ranges are
//!    checked against the zone or node it gives, as against a zone whose size is written.

use std::str::FromStr;

use super::error::ScenarioError;
use super::format::Scenario;
use super::json::parse_json;
use super::layout::Layout;
use super::program::Program;
use super::read::{boot_start_from_value, scenario_from_value};
use super::validate::{check_boot_start, check_scenario};

/// A scenario that passed every check, the static ones ([`validate`]) and those of the zones
/// its `init` lays out, with its ops numbered ([`ValidScenario::program`]): the first stage of a
/// run, and the only input of the next one. A run goes one way through: [`parse_valid`] (or
/// [`ValidScenario::new`]) → [`crate::run::build`] (the start state, which checks nothing) →
/// [`crate::run::Runner`] (the ops) → [`crate::run::Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValidScenario {
    scenario: Scenario,
    program: Program,
    layout: Layout,
}

impl ValidScenario {
    /// Validates a scenario built in code (the app's editor, tests) exactly as [`parse_valid`]
    /// does.
    pub fn new(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
        let mut program = Program::compile(&scenario.ops);
        let targets = check_scenario(
            &scenario,
            &program,
            scenario.static_zone_pages().map(|p| (p, "zone.pages")),
        )?;
        program.bind(targets);
        let layout = Layout::resolve(&scenario, &program)?;
        Ok(ValidScenario {
            scenario,
            program,
            layout,
        })
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Its ops, numbered in definition order, every `ref` bound to the op that defines its name.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// What validation read of the zones `init` lays out (the `/proc` import).
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The same start without ops (a trace replay's: its ops are the trace's). Still valid: no
    /// check of the rest of a scenario depends on its ops.
    pub fn without_ops(mut self) -> ValidScenario {
        self.scenario.ops.clear();
        self.program = Program::default();
        self
    }

    /// The scenario, to change it (it has to be validated again).
    pub fn into_scenario(self) -> Scenario {
        self.scenario
    }
}

impl std::ops::Deref for ValidScenario {
    type Target = Scenario;
    fn deref(&self) -> &Scenario {
        &self.scenario
    }
}

/// Parses and validates a scenario completely ([`ValidScenario::new`]): with `init` from
/// `/proc`, the text is read here and the ops' pfn ranges checked against the zone it gives.
pub fn parse_valid(text: &str) -> Result<ValidScenario, ScenarioError> {
    ValidScenario::new(read(text)?)
}

/// The start of a scenario whose `init` is `"boot"` (or absent): the [`ValidScenario`] of its
/// other fields without its `ops` and `tour`, which are neither read nor checked, read and
/// checked as [`parse_valid`] reads and checks them (the same errors, the same value as
/// [`ValidScenario::new`] of the scenario with its ops and tour cleared). `Ok(None)` for another
/// `init`. It links none of the ops' readers and checks, nor the `/proc` and snapshot readers:
/// the app's first frame shows this start state before the module with those has arrived.
pub fn parse_boot_start(text: &str) -> Result<Option<ValidScenario>, ScenarioError> {
    let Some(scenario) = boot_start_from_value(&parse_json(text)?)? else {
        return Ok(None);
    };
    check_boot_start(&scenario)?;
    Ok(Some(ValidScenario {
        scenario,
        program: Program::default(),
        layout: Layout::AsWritten,
    }))
}

/// Reads a scenario with the static checks ([`validate`]), for a caller that wants the plain
/// [`Scenario`] (to edit or serialize it); a `/proc` text is not read yet ([`parse_valid`]
/// reads it).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let s = read(text)?;
    validate(&s)?;
    Ok(s)
}

/// A replay's start state from a file's `text`: a scenario, or a bare drgn snapshot (version 1
/// or 2, as `tools/drgn/snapshot.py` writes it), which starts a scenario of its own (its errors
/// name its fields under `init.snapshot`). A node snapshot that says its release (`uname -r`)
/// gets that release's profile ([`crate::mm::Kernel::from_uname`]), if one exists. `name` is the
/// file's, for the messages and the scenario's name.
pub fn parse_start_state(text: &str, name: &str) -> Result<Scenario, String> {
    let v: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => return parse(text).map_err(|e| format!("{name}: {e}")),
    };
    let bare =
        v.get("pageblocks").is_some() || (v.get("zones").is_some() && v.get("node").is_some());
    if !bare {
        return parse(text).map_err(|e| format!("{name}: {e}"));
    }
    let profile = v
        .get("kernel")
        .and_then(|k| k.as_str())
        .and_then(crate::mm::Kernel::from_uname);
    let mut doc = serde_json::json!({
        "version": 1,
        "name": format!("replay from {name}"),
        "init": {"snapshot": v},
    });
    if let Some(k) = profile {
        doc["kernel"] = k.as_str().into();
    }
    parse(&doc.to_string())
        .map_err(|e| format!("{name} (a bare snapshot, read as init.snapshot): {e}"))
}

/// Steps 1 and 2: text → [`Scenario`], every error with its JSON path.
fn read(text: &str) -> Result<Scenario, ScenarioError> {
    scenario_from_value(&parse_json(text)?)
}

/// Every static check of the contract, with the zone size [`Scenario::static_zone_pages`] knows.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    check_scenario(
        s,
        &Program::compile(&s.ops),
        s.static_zone_pages().map(|p| (p, "zone.pages")),
    )
    .map(drop)
}

impl FromStr for Scenario {
    type Err = ScenarioError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}
