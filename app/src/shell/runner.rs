//! The wasm module `runner`: what the first frame does not need ([`crate::late`]: the
//! scenario's reader and checks, the runner, the share link's reader, the scenario's JSON writer, the saved work's reader) arrives after
//! the first download. The page asks for it after the first paint (`panels::deferred`), or before
//! mounting when its address opens more than the default scenario (`main`); the run worker
//! before its first run.

use buddyscope::scenario::{Scenario, ValidScenario};

use crate::late::{self, DecodeFn, JsonFn, ParseFn, ReadSavedFn, RunFn, ValidateFn};

// The split points: each hands over one function (a pointer: one word through the split's
// call), so its code, and everything only it calls, is in the module `runner`.

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn parse_fn() -> ParseFn {
    buddyscope::scenario::parse_valid
}

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn validate_fn() -> ValidateFn {
    ValidScenario::new
}

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn run_fn() -> RunFn {
    crate::model::session::execute_bounded
}

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn decode_fn() -> DecodeFn {
    crate::share::decode_now
}

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn json_fn() -> JsonFn {
    Scenario::to_json_pretty
}

#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn read_saved_fn() -> ReadSavedFn {
    crate::saved::read_all_items
}

/// Fetches the module `runner` (once) and installs its functions.
pub async fn load() {
    if late::installed() {
        return;
    }
    let parse_valid = parse_fn().await;
    let validate = validate_fn().await;
    let run = run_fn().await;
    let decode_share = decode_fn().await;
    let scenario_json = json_fn().await;
    let read_saved = read_saved_fn().await;
    #[cfg(target_arch = "wasm32")]
    late::install(late::Late {
        parse_valid,
        validate,
        run,
        decode_share,
        scenario_json,
        read_saved,
    });
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (
        parse_valid,
        validate,
        run,
        decode_share,
        scenario_json,
        read_saved,
    );
}
