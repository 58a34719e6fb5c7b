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

/// The texts' reader ([`buddyscope::scenario::texts::install`]: a deserializer and the tables
/// it fills, code the first frame does not need).
#[cfg(target_arch = "wasm32")]
#[leptos::wasm_split::wasm_split(runner, wasm_split_path = ::leptos::wasm_split)]
fn install_texts_fn() -> fn(&str) -> Result<(), String> {
    buddyscope::scenario::texts::install
}

/// Fetches the module `runner` (once) and installs its functions; on the page, with the texts
/// of the built-ins and exercise sets (the data file [`fetch_texts`] reads), so that whatever
/// waits for the runner can name a built-in.
pub async fn load() {
    if late::installed() {
        return;
    }
    // Asked for first: it downloads while the split module does.
    #[cfg(target_arch = "wasm32")]
    let texts = texts_request();
    let parse_valid = parse_fn().await;
    let validate = validate_fn().await;
    let run = run_fn().await;
    let decode_share = decode_fn().await;
    let scenario_json = json_fn().await;
    let read_saved = read_saved_fn().await;
    #[cfg(target_arch = "wasm32")]
    if let Some(texts) = texts {
        install_texts(texts, install_texts_fn().await).await;
    }
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

/// The request for the data file of the texts the wasm does not carry (the built-ins other
/// than the default, the exercise sets: [`buddyscope::scenario::texts`]), named in index.html
/// by scripts/wasm-split.sh (`<meta name="buddyscope-texts">`, content-hashed, so the service
/// worker keeps it for offline use). None in the run worker, which never names a built-in.
#[cfg(target_arch = "wasm32")]
fn texts_request() -> Option<(String, js_sys::Promise)> {
    if buddyscope::scenario::texts::installed() {
        return None;
    }
    let window = web_sys::window()?;
    let url = window
        .document()?
        .query_selector("meta[name=buddyscope-texts]")
        .ok()??
        .get_attribute("content")?;
    let request = window.fetch_with_str(&url);
    Some((url, request))
}

/// Reads the data file and installs its texts. A failure (offline before the file was ever
/// cached) is said on the console; naming a built-in then stops on the panic banner.
#[cfg(target_arch = "wasm32")]
async fn install_texts(
    (url, request): (String, js_sys::Promise),
    install: fn(&str) -> Result<(), String>,
) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let text = async {
        let response: web_sys::Response = JsFuture::from(request)
            .await
            .map_err(|_| "network error".to_string())?
            .dyn_into()
            .map_err(|_| "not a response".to_string())?;
        if !response.ok() {
            return Err(format!("HTTP {}", response.status()));
        }
        let text = response.text().map_err(|_| "cannot be read".to_string())?;
        JsFuture::from(text)
            .await
            .ok()
            .and_then(|t| t.as_string())
            .ok_or_else(|| "not text".to_string())
    };
    if let Err(e) = text.await.and_then(|t| install(&t)) {
        leptos::logging::error!("{url}: {e}");
    }
}
