//! The texts the browser build does not carry in its wasm: the built-in scenarios other than
//! the default, the shipped exercise sets and the kernel functions' pseudocode. Data is never
//! split off a wasm module (only code is), so every text compiled in would be in the page's
//! first download; instead `scripts/wasm-split.sh` writes them to one data file
//! (`texts-<content hash>.json`: `{"scenarios": {id: text}, "exercise_sets": {id: text},
//! "pseudocode": {function: [line]}}`, read from `engine/scenarios/`, `engine/exercises/` and
//! `engine/src/explain/pseudocode.json`), which the app fetches after the first paint and hands
//! over with `install` before any command that could name a built-in runs. Natively (the CLI,
//! the tests) the texts are compiled in and only `read_pseudocode` is used.

use std::collections::HashMap;
#[cfg(target_arch = "wasm32")]
use std::sync::OnceLock;

#[cfg(target_arch = "wasm32")]
#[derive(serde::Deserialize)]
struct Texts {
    scenarios: HashMap<String, String>,
    exercise_sets: HashMap<String, String>,
    pseudocode: HashMap<String, Vec<String>>,
}

#[cfg(target_arch = "wasm32")]
/// The texts, kept for the life of the page (handed out as `&'static str`, as the compiled-in
/// texts are natively). Looked up by a walk, not a hash: a few dozen names, and the lookup is
/// in the first download while [`install`] is not (the app calls it through its module
/// `runner`).
struct Installed {
    scenarios: Vec<(String, &'static str)>,
    exercise_sets: Vec<(String, &'static str)>,
    pseudocode: Vec<(String, &'static [&'static str])>,
}

#[cfg(target_arch = "wasm32")]
static INSTALLED: OnceLock<Installed> = OnceLock::new();

#[cfg(target_arch = "wasm32")]
fn leak(m: HashMap<String, String>) -> Vec<(String, &'static str)> {
    m.into_iter()
        .map(|(k, v)| (k, &*Box::leak(v.into_boxed_str())))
        .collect()
}

/// `pseudocode.json`'s text (each function's name and its lines), kept for the life of the
/// program.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_pseudocode(
    json: &str,
) -> Result<HashMap<String, &'static [&'static str]>, serde_json::Error> {
    serde_json::from_str(json).map(leak_lines)
}

fn leak_lines(m: HashMap<String, Vec<String>>) -> HashMap<String, &'static [&'static str]> {
    m.into_iter()
        .map(|(k, v)| {
            let lines: Vec<&'static str> = v
                .into_iter()
                .map(|l| &*Box::leak(l.into_boxed_str()))
                .collect();
            (k, &*Box::leak(lines.into_boxed_slice()))
        })
        .collect()
}

#[cfg(target_arch = "wasm32")]
/// Installs the data file's text (once; a second call is ignored). An error says what is wrong
/// with the file.
pub fn install(json: &str) -> Result<(), String> {
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let t: Texts = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let _ = INSTALLED.set(Installed {
        scenarios: leak(t.scenarios),
        exercise_sets: leak(t.exercise_sets),
        pseudocode: leak_lines(t.pseudocode).into_iter().collect(),
    });
    Ok(())
}

#[cfg(target_arch = "wasm32")]
/// True once [`install`] has run.
pub fn installed() -> bool {
    INSTALLED.get().is_some()
}

#[cfg(target_arch = "wasm32")]
fn find<T: Copy>(list: &[(String, T)], name: &str) -> Option<T> {
    list.iter().find(|(n, _)| n == name).map(|&(_, t)| t)
}

#[cfg(target_arch = "wasm32")]
fn get(pick: fn(&Installed) -> &[(String, &'static str)], id: &str) -> &'static str {
    let texts = INSTALLED
        .get()
        .expect("the app installs the fetched texts before anything names a built-in");
    find(pick(texts), id).unwrap_or_else(|| panic!("the texts data file has no \"{id}\""))
}

#[cfg(target_arch = "wasm32")]
/// The JSON text of the built-in scenario `id`.
pub(crate) fn scenario(id: &str) -> &'static str {
    get(|t| &t.scenarios, id)
}

#[cfg(target_arch = "wasm32")]
/// The JSON text of the shipped exercise set `id`.
pub(crate) fn exercise_set(id: &str) -> &'static str {
    get(|t| &t.exercise_sets, id)
}

#[cfg(target_arch = "wasm32")]
/// The pseudocode lines of the kernel function `name` (none until [`install`] has run).
pub(crate) fn pseudocode(name: &str) -> &'static [&'static str] {
    INSTALLED
        .get()
        .and_then(|t| find(&t.pseudocode, name))
        .unwrap_or(&[])
}
