//! Panic hook: logs the panic to the console (console_error_panic_hook) and puts a visible banner
//! with the message and a Reload button at the top of the page.
//!
//! The banner is built with plain web-sys DOM calls, not Leptos: after a panic the reactive runtime
//! (and, with `panic = "abort"`, the whole wasm instance) is unusable, so the banner must not need
//! it. The Reload button's handler is a plain JS function for the same reason.

use std::panic::PanicHookInfo;

use wasm_bindgen::JsCast;

/// `data-testid` of the banner (the e2e tests look for it).
pub const BANNER_TEST_ID: &str = "error-banner";

/// Query-string flag that makes the app panic right after mounting, to check the banner by hand
/// or from the e2e suite: `/?debug-panic`.
const DEBUG_PANIC_FLAG: &str = "debug-panic";

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&panic_message(info));
    }));
}

/// Panics on purpose when the page URL carries `?debug-panic`.
pub fn maybe_debug_panic() {
    if crate::browser::query_param(DEBUG_PANIC_FLAG).is_some() {
        panic!("debug panic requested by ?{DEBUG_PANIC_FLAG}");
    }
}

/// The panic's message and location, e.g. `index out of bounds (at app/src/x.rs:3:5)`.
pub fn panic_message(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    };
    match info.location() {
        Some(loc) => format!(
            "{message} (at {}:{}:{})",
            loc.file(),
            loc.line(),
            loc.column()
        ),
        None => message,
    }
}

/// Inserts (or updates) the banner. Never panics: every DOM failure is ignored, a panic inside the
/// panic hook would abort without any message.
fn show_banner(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let selector = format!("[data-testid=\"{BANNER_TEST_ID}\"]");
    if let Ok(Some(existing)) = document.query_selector(&selector) {
        // A second panic: add its message under the first.
        if let Ok(Some(pre)) = existing.query_selector("pre") {
            let text = pre.text_content().unwrap_or_default();
            pre.set_text_content(Some(&format!("{text}\n{message}")));
        }
        return;
    }
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    let _ = banner.set_attribute("data-testid", BANNER_TEST_ID);
    let _ = banner.set_attribute("role", "alert");
    banner.set_class_name("error-banner");

    if let Ok(title) = document.create_element("strong") {
        title.set_text_content(Some("buddyscope crashed. This is a bug; the message was:"));
        let _ = banner.append_child(&title);
    }
    if let Ok(pre) = document.create_element("pre") {
        pre.set_class_name("error-banner__message");
        let _ = pre.set_attribute("data-testid", "error-message");
        pre.set_text_content(Some(message));
        let _ = banner.append_child(&pre);
    }
    if let Ok(button) = document.create_element("button") {
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-testid", "error-reload");
        button.set_text_content(Some("Reload"));
        if let Ok(button) = button.dyn_into::<web_sys::HtmlElement>() {
            // `location.reload` bound to `location`: a plain JS function, so it works after the
            // wasm instance has trapped, and needs no eval (CSP-safe).
            if let Some(window) = web_sys::window() {
                let location = window.location();
                if let Ok(reload) = js_sys::Reflect::get(&location, &"reload".into()) {
                    if let Ok(reload) = reload.dyn_into::<js_sys::Function>() {
                        button.set_onclick(Some(&reload.bind0(&location)));
                    }
                }
            }
            let _ = banner.append_child(&button);
        }
    }
    let _ = body.insert_before(&banner, body.first_child().as_ref());
}
