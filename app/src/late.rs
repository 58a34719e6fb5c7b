//! Code the first frame does not need, reached through pointers: the scenario's reader and
//! checks (the first frame reads only the default scenario's start:
//! [`buddyscope::scenario::parse_boot_start`]), the runner (the engine's every op path), the
//! share link's reader, the scenario's JSON writer and the saved work's reader are in the wasm
//! module `runner`
//! ([`crate::shell::runner`]), fetched while the first frame paints, not with the first
//! download.
//!
//! Why pointers: the splitter (scripts/wasm-split.sh) keeps in the first download every
//! function that a function there calls. The model calls these through [`get`]; only the split
//! point names the functions themselves. Until the module has arrived nothing may call them:
//! [`crate::shell::Shell::dispatch`] keeps the commands until then, and a start that opens more
//! than the default scenario waits for it before mounting (`main`). Off the web (the native
//! tests) they are plain calls.

use buddyscope::run::{Progress, Run};
use buddyscope::scenario::{Scenario, ScenarioError, ValidScenario};

use crate::share::{ShareError, SharePayload};

/// The scenario's reader and checks: [`buddyscope::scenario::parse_valid`].
pub type ParseFn = fn(&str) -> Result<ValidScenario, ScenarioError>;
/// The checks of a scenario built in code: [`ValidScenario::new`].
pub type ValidateFn = fn(Scenario) -> Result<ValidScenario, ScenarioError>;
/// The runner: [`crate::model::session::execute_bounded`].
pub type RunFn = fn(ValidScenario, Progress<'_>) -> Result<Run, ScenarioError>;
/// The share link's reader: [`crate::share::decode_now`].
pub type DecodeFn = fn(&str) -> Result<SharePayload, ShareError>;
/// The scenario's JSON writer: [`Scenario::to_json_pretty`].
pub type JsonFn = fn(&Scenario) -> String;
/// The saved work's reader: [`crate::saved::read_all_items`].
pub type ReadSavedFn = fn(Vec<(String, String)>, &dyn Fn(&str) -> bool) -> crate::saved::Listing;

/// The functions the module `runner` hands over (`crate::shell::runner`).
pub struct Late {
    pub parse_valid: ParseFn,
    pub validate: ValidateFn,
    pub run: RunFn,
    pub decode_share: DecodeFn,
    pub scenario_json: JsonFn,
    pub read_saved: ReadSavedFn,
}

#[cfg(target_arch = "wasm32")]
static INSTALLED: std::sync::OnceLock<Late> = std::sync::OnceLock::new();

/// Installs what the module `runner` handed over.
#[cfg(target_arch = "wasm32")]
pub fn install(late: Late) {
    let _ = INSTALLED.set(late);
}

/// True once the functions can be called (always, off the web).
pub fn installed() -> bool {
    #[cfg(target_arch = "wasm32")]
    return INSTALLED.get().is_some();
    #[cfg(not(target_arch = "wasm32"))]
    true
}

/// The functions; in the browser, once their module has arrived.
pub fn get() -> &'static Late {
    #[cfg(target_arch = "wasm32")]
    return INSTALLED
        .get()
        .expect("the module `runner` is loaded before any command runs (Shell::dispatch)");
    #[cfg(not(target_arch = "wasm32"))]
    &Late {
        parse_valid: buddyscope::scenario::parse_valid,
        validate: ValidScenario::new,
        run: crate::model::session::execute_bounded,
        decode_share: crate::share::decode_now,
        scenario_json: Scenario::to_json_pretty,
        read_saved: crate::saved::read_all_items,
    }
}

/// `text` read and checked ([`buddyscope::scenario::parse_valid`], through
/// [`Late::parse_valid`]).
pub fn parse_valid(text: &str) -> Result<ValidScenario, ScenarioError> {
    (get().parse_valid)(text)
}

/// `scenario` checked ([`ValidScenario::new`], through [`Late::validate`]).
pub fn validate(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
    (get().validate)(scenario)
}

/// `scenario` as pretty JSON ([`Scenario::to_json_pretty`], through [`Late::scenario_json`]).
pub fn scenario_json(scenario: &Scenario) -> String {
    (get().scenario_json)(scenario)
}
