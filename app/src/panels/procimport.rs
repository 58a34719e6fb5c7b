//! "Your machine": paste or drop a machine's `/proc/pagetypeinfo` (and optionally
//! `/proc/zoneinfo`, and `/proc/buddyinfo` as a cross-check), pick one of its zones, and start
//! the run from that state.
//!
//! The import is an ordinary scenario with `init` from `/proc` ([`build_import`]), loaded with
//! [`AppState::load_text`] like a scenario typed in the editor: it can then be edited, shared
//! and saved, and a bad paste never replaces the last good run. The summary (zones found,
//! pageblocks per migratetype, free pages per order, what the import assumed and which
//! fallback it used) is the engine's [`buddyscope::scenario::procfs::import_summary`].

use buddyscope::{
    mm::{MAX_CPUS, NR_PAGE_ORDERS},
    scenario::procfs::{
        buddyinfo_mismatches, error_location, import_summary, scan_pagetypeinfo, ImportSummary,
        PasteScan,
    },
    Init, Kernel, Scenario, ScenarioError,
};
use leptos::html::Textarea;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::PanelFrame;
use crate::model::Command;
use crate::shell::View;

/// Which pasted text an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Pagetypeinfo,
    Zoneinfo,
    Buddyinfo,
    /// The zone choice, or the scenario built from the paste.
    Other,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Pagetypeinfo => "pagetypeinfo",
            Field::Zoneinfo => "zoneinfo",
            Field::Buddyinfo => "buddyinfo",
            Field::Other => "import",
        }
    }
}

/// An import error: the text it is about, the message (with the engine's hint), and the line
/// and column in that text when the error names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub field: Field,
    pub message: String,
    pub at: Option<(usize, usize)>,
}

impl ImportError {
    fn from_scenario(e: &ScenarioError) -> ImportError {
        let field = match e.path.as_str() {
            "init.pagetypeinfo" => Field::Pagetypeinfo,
            // `zone.pages` disagrees with `managed`: the import never sets zone.pages, so the
            // cause is the zoneinfo text.
            "init.zoneinfo" | "zone.pages" => Field::Zoneinfo,
            "buddyinfo" => Field::Buddyinfo,
            _ => Field::Other,
        };
        let mut message = e.message.clone();
        if !e.hint.is_empty() {
            message = format!("{message}; {}", e.hint);
        }
        ImportError {
            field,
            message,
            at: error_location(e),
        }
    }

    /// `pagetypeinfo, line 6, column 71: …`: what the message region shows.
    pub fn text(&self) -> String {
        format!("{}, {}", self.field.name(), self.message)
    }
}

/// A checked import: the scenario to load, the engine's summary, and the buddyinfo
/// cross-check (one sentence per difference).
pub struct Imported {
    pub scenario: Scenario,
    pub summary: ImportSummary,
    pub buddyinfo: Option<Vec<String>>,
}

/// The zone to import: `chosen` if the paste has it, else the paste's default (Normal, else
/// the largest).
pub fn pick_zone(scan: &PasteScan, chosen: &str) -> Option<String> {
    if scan.zones.iter().any(|z| z.zone == chosen) {
        return Some(chosen.to_string());
    }
    scan.default_zone().map(str::to_string)
}

/// Builds the scenario of a paste: `init` from `/proc` for `zone`, the zone named after it
/// (the zone type decides `ALLOC_NOFRAGMENT`), `zone.cma` as the paste says, one CPU per CPU
/// `zoneinfo` lists (at most 64), no ops, the current `kernel`.
pub fn build_import(
    pagetypeinfo: &str,
    zoneinfo: &str,
    buddyinfo: &str,
    zone: &str,
    kernel: Kernel,
) -> Result<Imported, ImportError> {
    if pagetypeinfo.trim().is_empty() {
        return Err(ImportError {
            field: Field::Pagetypeinfo,
            message: "empty: paste the output of `sudo cat /proc/pagetypeinfo`".to_string(),
            at: None,
        });
    }
    let scan = scan_pagetypeinfo(pagetypeinfo).map_err(|e| ImportError::from_scenario(&e))?;
    let Some(zone) = pick_zone(&scan, zone) else {
        return Err(ImportError {
            field: Field::Pagetypeinfo,
            message: "no zone found: paste the whole output of `sudo cat /proc/pagetypeinfo`"
                .to_string(),
            at: None,
        });
    };
    let zi = (!zoneinfo.trim().is_empty()).then_some(zoneinfo);
    let summary = import_summary(pagetypeinfo, zi, &zone, scan.cma, None)
        .map_err(|e| ImportError::from_scenario(&e))?;
    let buddyinfo = if buddyinfo.trim().is_empty() {
        None
    } else {
        Some(
            buddyinfo_mismatches(buddyinfo, &summary)
                .map_err(|e| ImportError::from_scenario(&e))?,
        )
    };
    let mut description = format!(
        "Your machine's zone {zone} (node {}), imported from /proc: {} pages. The layout \
         reproduces the counts, not the machine's placement.",
        summary.node, summary.pages
    );
    for f in &summary.fallbacks {
        description.push_str(&format!(" Fallback: {f}."));
    }
    let mut s = Scenario {
        name: format!("Your machine: zone {zone}"),
        description: Some(description),
        kernel,
        init: Init::Proc {
            pagetypeinfo: pagetypeinfo.to_string(),
            zoneinfo: zi.map(str::to_string),
            zone: zone.clone(),
        },
        ..Scenario::default()
    };
    s.zone.name = zone;
    s.zone.cma = scan.cma;
    s.zone.cpus = summary.zoneinfo_cpus.clamp(1, MAX_CPUS);
    Ok(Imported {
        scenario: s,
        summary,
        buddyinfo,
    })
}

/// The UTF-16 range of the token at 1-based (`line`, `column`) of `text` (what a textarea's
/// selection counts), to select the spot an error names.
pub fn token_range(text: &str, line: usize, column: usize) -> Option<(u32, u32)> {
    let mut start = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            let before: String = l.chars().take(column.saturating_sub(1)).collect();
            let tok: String = l
                .chars()
                .skip(column.saturating_sub(1))
                .take_while(|c| !c.is_whitespace() && *c != ',')
                .collect();
            let s = text[..start].encode_utf16().count() + before.encode_utf16().count();
            let e = s + tok.encode_utf16().count().max(1);
            return Some((s as u32, e as u32));
        }
        start += l.len() + 1;
    }
    None
}

/// What to run on the machine: the files the form reads (pagetypeinfo is readable by root only).
const COMMANDS: &str = "sudo cat /proc/pagetypeinfo\ncat /proc/zoneinfo\ncat /proc/buddyinfo";

/// Reads the first file of a pick or a drop into `into`.
fn read_into(file: web_sys::File, into: RwSignal<String>) {
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r = reader.clone();
    let onload = Closure::once(move |_: web_sys::Event| {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            into.set(text);
        }
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// One pasted file: a labelled text area that takes a drop, and a file picker.
#[component]
fn ProcText(
    id: &'static str,
    label: &'static str,
    command: &'static str,
    text: RwSignal<String>,
    area: NodeRef<Textarea>,
    #[prop(optional)] optional: bool,
) -> impl IntoView {
    let over = RwSignal::new(false);
    let area_id = format!("{id}-text");
    let hint_id = format!("{id}-cmd");
    let described = hint_id.clone();
    view! {
        <div class="proc-text">
            <div class="proc-text-head">
                <label for=area_id.clone()>{label}{optional.then_some(" (optional)")}</label>
                <code id=hint_id class="proc-cmd">{command}</code>
                <label class="file-button small">
                    <span>"Open file…"</span>
                    <input
                        type="file"
                        accept=".txt,text/plain"
                        data-testid=format!("{id}-file")
                        aria-label=format!("Open a {label} file")
                        on:change=move |ev| {
                            if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                if let Some(f) = input.files().and_then(|f| f.get(0)) {
                                    read_into(f, text);
                                }
                                input.set_value("");
                            }
                        }
                    />
                </label>
            </div>
            <textarea
                id=area_id
                node_ref=area
                class=move || if over.get() { "proc-area over" } else { "proc-area" }
                data-testid=id
                rows="6"
                spellcheck="false"
                autocomplete="off"
                wrap="off"
                aria-describedby=described
                placeholder="paste here, or drop the file"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:dragover=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    over.set(true);
                }
                on:dragleave=move |_| over.set(false)
                on:drop=move |ev: web_sys::DragEvent| {
                    over.set(false);
                    if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                        ev.prevent_default();
                        read_into(f, text);
                    }
                }
            ></textarea>
        </div>
    }
}

/// The import form and, after an import, its summary.
#[component]
pub fn ProcImportPanel() -> impl IntoView {
    let view = View::here();
    let open = RwSignal::new(false);
    let pti = RwSignal::new(String::new());
    let zi = RwSignal::new(String::new());
    let bi = RwSignal::new(String::new());
    let zone = RwSignal::new(String::new());
    let error = RwSignal::new(None::<ImportError>);
    let done = RwSignal::new(None::<(ImportSummary, Option<Vec<String>>)>);
    let (pti_area, zi_area, bi_area) = (
        NodeRef::<Textarea>::new(),
        NodeRef::<Textarea>::new(),
        NodeRef::<Textarea>::new(),
    );
    // The zones of the paste, read as it is typed (an unreadable paste lists none).
    let scan = Memo::new(move |_| pti.with(|t| scan_pagetypeinfo(t).ok()));
    let names = Memo::new(move |_| {
        scan.with(|s| {
            s.as_ref()
                .map(|s| s.zone_names().into_iter().map(str::to_string).collect())
                .unwrap_or_else(Vec::<String>::new)
        })
    });
    // Keep the choice valid: the user's zone while the paste has it, else the default.
    Effect::new(move |_| {
        names.track();
        let next = scan.with(|s| s.as_ref().and_then(|s| pick_zone(s, &zone.get_untracked())));
        let next = next.unwrap_or_default();
        if next != zone.get_untracked() {
            zone.set(next);
        }
    });

    // The summary describes the imported run: it goes when another scenario is loaded.
    Effect::new(move |_| {
        if view.shell.ui.scenario_id.get() != "custom" {
            done.set(None);
        }
    });

    let select_error = move |e: &ImportError| {
        let (area, text) = match e.field {
            Field::Pagetypeinfo => (pti_area, pti),
            Field::Zoneinfo => (zi_area, zi),
            Field::Buddyinfo => (bi_area, bi),
            Field::Other => return,
        };
        if let (Some((line, col)), Some(t)) = (e.at, area.get_untracked()) {
            if let Some((s, end)) = text.with_untracked(|t| token_range(t, line, col)) {
                let _ = t.set_selection_range(s, end);
                let lines = t.value().lines().count().max(1) as f64;
                let per_line = t.scroll_height() as f64 / lines;
                t.set_scroll_top((line.saturating_sub(3) as f64 * per_line) as i32);
            }
        }
    };
    let import = move |_| {
        let kernel = view.untracked(|s| s.scenario.kernel).unwrap_or_default();
        let built = build_import(
            &pti.get_untracked(),
            &zi.get_untracked(),
            &bi.get_untracked(),
            &zone.get_untracked(),
            kernel,
        );
        let imp = match built {
            Ok(imp) => imp,
            Err(e) => {
                select_error(&e);
                error.set(Some(e));
                return;
            }
        };
        // Through the scenario pipeline, like the editor's Run; on failure the editor and its
        // error stay what they were (the paste, not the editor, was wrong).
        view.dispatch(Command::Import {
            text: imp.scenario.to_json_pretty(),
        });
        match view.shell.read(|m| m.import_error.clone()) {
            None => {
                error.set(None);
                done.set(Some((imp.summary, imp.buddyinfo)));
            }
            Some(e) => {
                let e = ImportError::from_scenario(&e);
                select_error(&e);
                error.set(Some(e));
            }
        }
    };

    view! {
        <PanelFrame
            key="proc-import"
            title="Your machine"
            testid="proc-import-panel"
            help="Start from a real machine's state: paste (or drop) its /proc files, pick a zone, import. The model holds one zone."
        >
            <button
                type="button"
                class="proc-open"
                data-testid="proc-open"
                aria-expanded=move || open.get().to_string()
                aria-controls="proc-form"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                {move || if open.get() { "Hide the import form" } else { "Import from /proc…" }}
            </button>
            <div id="proc-form" class="proc-form" hidden=move || !open.get()>
                <p class="muted small">
                    "On the machine, run these and paste their output (pagetypeinfo is readable by root only):"
                </p>
                <pre class="proc-commands" data-testid="proc-commands"><code>{COMMANDS}</code></pre>
                <ProcText id="proc-pagetypeinfo" label="/proc/pagetypeinfo" command="sudo cat /proc/pagetypeinfo" text=pti area=pti_area/>
                <ProcText id="proc-zoneinfo" label="/proc/zoneinfo" command="cat /proc/zoneinfo" text=zi area=zi_area optional=true/>
                <ProcText id="proc-buddyinfo" label="/proc/buddyinfo, a cross-check" command="cat /proc/buddyinfo" text=bi area=bi_area optional=true/>
                <div class="proc-actions">
                    <label class="field">
                        <span>"Zone"</span>
                        <select
                            data-testid="proc-zone"
                            disabled=move || names.with(Vec::is_empty)
                            on:change=move |ev| zone.set(event_target_value(&ev))
                        >
                            <For each=move || names.get() key=|n| n.clone() let:n>
                                {
                                    let v = n.clone();
                                    let label = n.clone();
                                    view! {
                                        <option value=v selected=move || zone.get() == n>{label}</option>
                                    }
                                }
                            </For>
                        </select>
                    </label>
                    <button type="button" class="primary" data-testid="proc-import" on:click=import>
                        "Import"
                    </button>
                </div>
                <div class="proc-error-region" aria-live="assertive" aria-atomic="true">
                    {move || error.get().map(|e| view! {
                        <div class="editor-error" data-testid="proc-error">
                            <p><strong>"Not imported: "</strong>{e.text()}</p>
                            <p class="muted small">"The last good run stays on screen."</p>
                        </div>
                    })}
                </div>
                <div aria-live="polite">
                    {move || done.get().map(|(sum, bi)| view! { <ImportSummaryView sum=sum buddyinfo=bi/> })}
                </div>
            </div>
        </PanelFrame>
    }
}

/// What the import found and assumed.
#[component]
fn ImportSummaryView(sum: ImportSummary, buddyinfo: Option<Vec<String>>) -> impl IntoView {
    let zones = sum
        .zones
        .iter()
        .map(|z| {
            format!(
                "{} (node {}, {} pageblocks, {} pages free)",
                z.zone, z.node, z.pageblocks, z.free_pages
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let pageblocks = sum
        .pageblocks
        .iter()
        .map(|(mt, n)| {
            view! {
                <tr><th scope="row">{mt.clone()}</th><td data-testid=format!("proc-summary-pageblocks-{}", mt.to_ascii_lowercase())>{*n}</td></tr>
            }
        })
        .collect_view();
    let orders = (0..NR_PAGE_ORDERS)
        .map(|o| view! { <th scope="col">{o}</th> })
        .collect_view();
    let blocks = sum
        .free_blocks
        .iter()
        .map(|n| view! { <td>{*n}</td> })
        .collect_view();
    let pages = sum
        .free_pages
        .iter()
        .enumerate()
        .map(|(o, n)| view! { <td data-testid=format!("proc-summary-free-{o}")>{*n}</td> })
        .collect_view();
    let fallbacks = sum.fallbacks.clone();
    let assumed = sum.assumed.clone();
    view! {
        <div class="proc-summary" data-testid="proc-summary">
            <h3>{format!("Imported zone {} of node {}: {} pages", sum.zone, sum.node, sum.pages)}</h3>
            <p class="small" data-testid="proc-summary-zones"><strong>"Zones in the paste: "</strong>{zones}</p>
            {(!fallbacks.is_empty()).then(|| view! {
                <ul class="proc-fallbacks" data-testid="proc-fallbacks">
                    {fallbacks.into_iter().map(|f| view! {
                        <li data-testid="proc-fallback"><strong>"Fallback: "</strong>{f}</li>
                    }).collect_view()}
                </ul>
            })}
            <div class="proc-tables">
                <table class="proc-table">
                    <caption>"Pageblocks per migratetype"</caption>
                    <tbody>{pageblocks}</tbody>
                </table>
                // Focusable so a keyboard can scroll the wide table (axe: scrollable-region-focusable).
                <div class="proc-scroll" tabindex="0" role="group" aria-label="Free blocks per order (scrolls sideways)">
                    <table class="proc-table">
                        <caption>"Free per order"</caption>
                        <thead><tr><th scope="col">"order"</th>{orders}</tr></thead>
                        <tbody>
                            <tr><th scope="row">"blocks"</th>{blocks}</tr>
                            <tr><th scope="row">"pages"</th>{pages}</tr>
                        </tbody>
                    </table>
                </div>
            </div>
            <p class="small"><strong>"Assumed:"</strong></p>
            <ul class="small proc-assumed">
                {assumed.into_iter().map(|a| view! { <li>{a}</li> }).collect_view()}
            </ul>
            {buddyinfo.map(|m| {
                let text = if m.is_empty() {
                    "buddyinfo agrees with pagetypeinfo at every order.".to_string()
                } else {
                    format!("buddyinfo differs: {}", m.join("; "))
                };
                view! { <p class="small" data-testid="proc-buddyinfo-check">{text}</p> }
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTI: &str = include_str!("../../../engine/tests/fixtures/machine-6.18-pagetypeinfo.txt");
    const ZI: &str = include_str!("../../../engine/tests/fixtures/machine-6.18-zoneinfo.txt");

    #[test]
    fn the_fixture_builds_a_scenario_that_runs() {
        let imp = build_import(PTI, ZI, "", "", Kernel::V6_18).unwrap();
        assert_eq!(imp.scenario.zone.name, "Normal");
        assert_eq!(imp.scenario.zone.cpus, 2);
        assert!(imp.buddyinfo.is_none());
        let text = imp.scenario.to_json_pretty();
        let s = crate::model::Session::load(&text).unwrap();
        assert_eq!(s.timeline.pos(), 0);
        assert_eq!(s.timeline.zone().pages(), 1867776);
        // DMA32: managed ≠ present, the fallback says so.
        let imp = build_import(PTI, ZI, "", "DMA32", Kernel::V6_18).unwrap();
        assert_eq!(imp.summary.fallbacks.len(), 1);
        assert!(imp
            .scenario
            .description
            .unwrap()
            .contains("Fallback: zone size 782336"));
    }

    #[test]
    fn errors_name_the_text_line_and_column() {
        let bad = PTI.replacen("Movable      1", "Movable      q", 1);
        let e = build_import(&bad, "", "", "", Kernel::V7_2).err().unwrap();
        assert_eq!(e.field, Field::Pagetypeinfo);
        let (line, col) = e.at.unwrap();
        assert_eq!(line, 11);
        assert!(
            e.text()
                .starts_with(&format!("pagetypeinfo, line 11, column {col}: ")),
            "{}",
            e.text()
        );
        let (s, end) = token_range(&bad, line, col).unwrap();
        let utf16: Vec<u16> = bad.encode_utf16().collect();
        assert_eq!(
            String::from_utf16(&utf16[s as usize..end as usize]).unwrap(),
            "q"
        );
        let e = build_import(
            PTI,
            "Node 0, zone   Normal\n  managed x\n",
            "",
            "",
            Kernel::V7_2,
        )
        .err()
        .unwrap();
        assert_eq!((e.field, e.at), (Field::Zoneinfo, Some((2, 11))));
        let e = build_import(" \n", "", "", "", Kernel::V7_2).err().unwrap();
        assert_eq!(e.field, Field::Pagetypeinfo);
    }

    #[test]
    fn the_zone_choice_falls_back_to_the_default() {
        let scan = scan_pagetypeinfo(PTI).unwrap();
        assert_eq!(pick_zone(&scan, "DMA").as_deref(), Some("DMA"));
        assert_eq!(pick_zone(&scan, "HighMem").as_deref(), Some("Normal"));
        assert_eq!(pick_zone(&scan, "").as_deref(), Some("Normal"));
    }
}
