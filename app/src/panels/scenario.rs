//! The scenario picker, description, JSON editor (Run, Ctrl/Cmd+Enter), validation errors at
//! the op and field, open from a file and download.
//!
//! An invalid edit never replaces the last good run: [`AppState::load_text`] keeps the session
//! and only sets `error`.

use buddyscope::scenario::builtin;
use leptos::html::Textarea;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::PanelFrame;
use crate::model::Command;
use crate::shell::{Shell, View};

/// Runs the editor's text; keeps the built-in id when the text is a built-in unchanged.
fn run_text(shell: Shell, text: &str) {
    let id = builtin::ALL
        .iter()
        .find(|b| b.json() == text)
        .map(|b| b.id)
        .unwrap_or("custom");
    shell.dispatch(Command::Load {
        text: text.to_string(),
        id: id.to_string(),
    });
}

// --- locating a JSON path in the text -------------------------------------------------------

struct Locator<'a> {
    s: &'a [u8],
    i: usize,
    target: &'a str,
    /// Longest matched path prefix and its byte span.
    best: Option<(usize, usize, usize)>,
}

impl Locator<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        self.i += 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    let out = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    self.i += 1;
                    return Some(out);
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn note(&mut self, path: &str, start: usize, end: usize) {
        let matches = self.target.starts_with(path)
            && matches!(
                self.target.as_bytes().get(path.len()),
                None | Some(b'.') | Some(b'[')
            );
        if matches && self.best.is_none_or(|(l, _, _)| path.len() >= l) {
            self.best = Some((path.len(), start, end));
        }
    }

    /// Walks one value at `self.i`; returns false on a syntax error.
    fn value(&mut self, path: &mut String, span_start: usize) -> bool {
        self.ws();
        let ok = match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            break true;
                        }
                        Some(b',') => self.i += 1,
                        Some(b'"') => {
                            let key_start = self.i;
                            let Some(key) = self.string() else {
                                return false;
                            };
                            self.ws();
                            if self.s.get(self.i) != Some(&b':') {
                                return false;
                            }
                            self.i += 1;
                            let len = path.len();
                            if !path.is_empty() {
                                path.push('.');
                            }
                            path.push_str(&key);
                            let ok = self.value(path, key_start);
                            path.truncate(len);
                            if !ok {
                                return false;
                            }
                        }
                        _ => return false,
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut n = 0;
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b']') => {
                            self.i += 1;
                            break true;
                        }
                        Some(b',') => self.i += 1,
                        Some(_) => {
                            let len = path.len();
                            path.push_str(&format!("[{n}]"));
                            let start = self.i;
                            let ok = self.value(path, start);
                            path.truncate(len);
                            if !ok {
                                return false;
                            }
                            n += 1;
                        }
                        None => return false,
                    }
                }
            }
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b'}' | b']') {
                    self.i += 1;
                }
                true
            }
            None => false,
        };
        if ok {
            let end = self.i;
            let p = path.clone();
            self.note(&p, span_start, end);
        }
        ok
    }
}

/// The byte span in `text` of the value at `path` (e.g. `ops[2].ops[0].order`), or of the
/// deepest enclosing value that exists; `None` for an empty path or unparsable text.
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    if path.is_empty() {
        return None;
    }
    let mut l = Locator {
        s: text.as_bytes(),
        i: 0,
        target: path,
        best: None,
    };
    let mut p = String::new();
    l.value(&mut p, 0);
    l.best
        .filter(|&(len, _, _)| len > 0)
        .map(|(_, s, e)| (s, e))
}

/// 1-based line of a byte offset.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// UTF-16 index of a byte offset (textarea selections count UTF-16 units).
fn utf16_index(text: &str, at: usize) -> u32 {
    text[..at.min(text.len())].encode_utf16().count() as u32
}

// --- file open / download ---------------------------------------------------------------------

fn open_file(shell: Shell, input: web_sys::HtmlInputElement) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r = reader.clone();
    let onload = Closure::once(move |_: web_sys::Event| {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            shell.dispatch(Command::Load {
                text,
                id: "custom".to_string(),
            });
        }
        // Picking the same file again fires `change` again.
        input.set_value("");
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// Points the anchor at a fresh Blob URL of `text` (before the browser follows it).
pub(crate) fn set_download_href(anchor: &web_sys::HtmlAnchorElement, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let old = anchor.href();
    if old.starts_with("blob:") {
        let _ = web_sys::Url::revoke_object_url(&old);
    }
    anchor.set_href(&url);
}

#[component]
pub fn ScenarioPanel() -> impl IntoView {
    let view = View::here();
    let shell = view.shell;
    let editor = NodeRef::<Textarea>::new();

    let info = Memo::new(move |_| {
        view.with_run(|s| {
            (
                s.scenario.name.clone(),
                s.scenario.description.clone().unwrap_or_default(),
                s.scenario.kernel.as_str(),
                s.scenario.ops.len(),
            )
        })
        .unwrap_or_default()
    });
    let run = move || {
        let text = editor
            .get_untracked()
            .map(|t| t.value())
            .unwrap_or_else(|| view.shell.ui.editor_text.get_untracked());
        run_text(shell, &text);
    };
    // Where the error is in the text: (line, utf16 start, utf16 end).
    let error_at = Memo::new(move |_| {
        let err = view.shell.ui.error.get()?;
        view.shell.ui.editor_text.with(|text| {
            let (s, e) = locate(text, &err.path)?;
            Some((line_of(text, s), utf16_index(text, s), utf16_index(text, e)))
        })
    });
    // Select the offending value in the editor (without stealing focus from the Run button).
    Effect::new(move |_| {
        if let (Some((line, s, e)), Some(t)) = (error_at.get(), editor.get_untracked()) {
            let _ = t.set_selection_range(s, e);
            // Scroll the error into view, a few lines from the top.
            let lines = t.value().lines().count().max(1) as f64;
            let per_line = t.scroll_height() as f64 / lines;
            t.set_scroll_top(((line.saturating_sub(4)) as f64 * per_line) as i32);
        }
    });

    view! {
        <PanelFrame key="scenario" title="Scenario" testid="scenario">
            <label class="field">
                <span>"Built-in scenarios"</span>
                <select
                    data-testid="scenario-select"
                    prop:value=move || view.shell.ui.scenario_id.get()
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        if id != "custom" {
                            shell.dispatch(Command::LoadBuiltin(id));
                        }
                    }
                >
                    {builtin::ALL
                        .iter()
                        .map(|b| view! { <option value=b.id>{b.title}</option> })
                        .collect_view()}
                    <option value="custom" disabled=true hidden=move || view.shell.ui.scenario_id.get() != "custom">
                        "Custom (edited or opened)"
                    </option>
                </select>
            </label>
            <div class="scenario-desc" data-testid="scenario-description">
                <h3 data-testid="scenario-title">{move || info.get().0}</h3>
                <p class="scenario-desc-text">{move || info.get().1}</p>
                <p class="muted small">
                    {move || {
                        let (_, _, kernel, ops) = info.get();
                        format!("Linux {kernel} model · {ops} top-level op{}", if ops == 1 { "" } else { "s" })
                    }}
                </p>
                <super::runstatus::RunMemoryLine/>
            </div>
            <details class="editor-box" open=true>
                <summary>"Edit the scenario (JSON)"</summary>
                <textarea
                    node_ref=editor
                    class="editor"
                    data-testid="scenario-editor"
                    aria-label="Scenario JSON"
                    spellcheck="false"
                    autocomplete="off"
                    autocapitalize="off"
                    wrap="off"
                    rows="16"
                    prop:value=move || view.shell.ui.editor_text.get()
                    on:input=move |ev| shell.dispatch(Command::Edit(event_target_value(&ev)))
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                            ev.prevent_default();
                            run();
                        }
                    }
                ></textarea>
                <Show when=move || view.shell.ui.error.with(|e| e.is_some())>
                    <div class="editor-error" data-testid="scenario-error" role="alert">
                        {move || {
                            shell
                                .ui
                                .error
                                .get()
                                .map(|e| {
                                    let at = error_at.get().map(|(l, _, _)| format!(" (line {l})")).unwrap_or_default();
                                    view! {
                                        <p>
                                            <strong>"Not run: "</strong>
                                            {(!e.path.is_empty()).then(|| view! { <code class="editor-error-path">{e.path.clone()}</code>": " })}
                                            <span class="editor-error-message">{e.message.clone()}</span>
                                            {at}
                                        </p>
                                        {(!e.hint.is_empty()).then(|| view! { <p class="editor-error-hint">"Hint: "{e.hint.clone()}</p> })}
                                        <p class="muted small">"The last good run stays on screen."</p>
                                    }
                                })
                        }}
                    </div>
                </Show>
                <div class="editor-actions">
                    <button type="button" class="primary" data-testid="scenario-run" on:click=move |_| run() title="Run the JSON above (Ctrl+Enter or ⌘+Enter in the editor)">
                        "Run"
                    </button>
                    <span class="muted small">"Ctrl/⌘ + Enter"</span>
                    <label class="file-button">
                        <span>"Open file…"</span>
                        <input
                            type="file"
                            accept=".json,application/json"
                            data-testid="scenario-file"
                            on:change=move |ev| {
                                if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                    open_file(shell, input);
                                }
                            }
                        />
                    </label>
                    <a
                        class="link-button"
                        href="#"
                        download="scenario.json"
                        data-testid="scenario-download"
                        title="Download the editor's JSON as scenario.json"
                        on:click=move |ev| {
                            if let Some(a) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::HtmlAnchorElement>().ok()) {
                                let text = editor
                                    .get_untracked()
                                    .map(|t| t.value())
                                    .unwrap_or_else(|| view.shell.ui.editor_text.get_untracked());
                                set_download_href(&a, &text);
                            }
                        }
                    >
                        "Download"
                    </a>
                </div>
            </details>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::{line_of, locate};

    const DOC: &str = "{\n  \"version\": 1,\n  \"ops\": [\n    {\"op\": \"alloc\", \"order\": 11},\n    {\"op\": \"repeat\", \"times\": 2, \"ops\": [{\"op\": \"free\", \"ref\": \"a\"}]}\n  ]\n}";

    #[test]
    fn locates_a_field_of_an_op() {
        let (s, e) = locate(DOC, "ops[0].order").unwrap();
        assert_eq!(&DOC[s..e], "\"order\": 11");
        assert_eq!(line_of(DOC, s), 4);
    }

    #[test]
    fn locates_nested_ops_and_falls_back_to_the_enclosing_op() {
        let (s, e) = locate(DOC, "ops[1].ops[0].ref").unwrap();
        assert_eq!(&DOC[s..e], "\"ref\": \"a\"");
        let (s, e) = locate(DOC, "ops[1].ops[0].mt").unwrap();
        assert_eq!(&DOC[s..e], "{\"op\": \"free\", \"ref\": \"a\"}");
        assert_eq!(locate(DOC, ""), None);
        assert_eq!(locate(DOC, "zone.pages"), None);
    }
}
