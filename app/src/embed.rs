//! Embedding: `?embed=1&panel=<freelists|pcp|counters|narration|code|charts>` shows the memory
//! map and one panel with no chrome (for an iframe in a slide deck or a course page), and a
//! message API lets the host page drive it.
//!
//! Protocol (host → embed, `iframe.contentWindow.postMessage(msg, origin)`):
//! `{type:"step", n?}` (n events, negative = back, default 1), `{type:"op", n?}` (n whole
//! operations), `{type:"seek", pos}` (event index), `{type:"play", playing?, speed?}` (toggle
//! when `playing` is absent), `{type:"load", id}` / `{type:"load", text}` / `{type:"load",
//! share}` (a built-in id, a scenario text, or a share-link fragment value `1.…`, optionally
//! with `pos`), `{type:"tour", stop}` (stop N, 1-based, of the scenario's tour: in compare
//! mode both sides go to the stop's op), `{type:"get"}`.
//! In compare mode (a share link or `?compare=` turned it on) `step` and `op` move both sides
//! as the controls do, `seek` is refused (the sides' event counts differ), and the state
//! carries both sides' frames (`sides`).
//! Embed → host: `{type:"ready"}` once the app runs, then `{type:"state", …}` ([`EmbedState`])
//! after every accepted command and every change of position or run (playback included), and
//! `{type:"error", message}` for a command it cannot carry out. A long run goes to the run
//! worker (`crate::runjob`): `ready` for a share link of one, and the reply to a `load` of one,
//! wait until that run is on screen (at `pos`, when given).
//!
//! Origin policy: commands are accepted only from the embedding window (`event.source ===
//! window.parent`, so another tab or a nested ad frame cannot drive it); with `&origin=<url>`
//! in the iframe's address also only from that origin. Replies go to the origin of the last
//! accepted command (`"*"` only when the host is a `file://` page, whose origin is the opaque
//! `"null"`). Nothing a host sends is rendered as HTML; scenario text goes through the same
//! strict parser as the editor.

use buddyscope::{
    mm::{PerCpuPages, NR_PAGE_ORDERS},
    MigrateType, Stats, Timeline,
};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::model::{tour, Command, Slot};
use crate::panels::{narration, op_label};
use crate::shell::Shell;

/// One `free_area[order].free_list[mt]` length.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FreeListLen {
    pub order: u8,
    pub mt: MigrateType,
    pub count: u32,
}

/// The `{type:"state"}` event: the frame at the cursor, built from the engine's own types.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbedState {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Events applied (the share link's and `seek`'s position).
    pub pos: u32,
    /// Events in the run.
    pub len: u32,
    /// 1-based number of the current operation (0 before the first).
    pub op: usize,
    pub ops: usize,
    /// The current operation's label (empty before the first).
    pub op_label: String,
    /// The engine's sentence for the current event (what the narration bar shows).
    pub narration: String,
    pub scenario_id: String,
    pub scenario_name: String,
    pub playing: bool,
    /// `nr_free` per order, as /proc/buddyinfo prints it.
    pub nr_free: [u64; NR_PAGE_ORDERS],
    /// Every list of the zone's migratetypes, order-major.
    pub free_lists: Vec<FreeListLen>,
    /// The per-CPU pagesets (`struct per_cpu_pages`).
    pub pcp: Vec<PerCpuPages>,
    /// The cumulative cost counters.
    pub counters: Stats,
    pub nr_free_pages: i64,
    /// The tour stop on screen (1-based), if the cursor is at one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tour_stop: Option<usize>,
    /// Compare mode: side A's and side B's frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sides: Option<Box<[EmbedState; 2]>>,
}

/// The state event for the timeline's current frame.
pub fn embed_state(t: &Timeline, scenario_id: &str, playing: bool) -> EmbedState {
    let z = t.zone();
    let (op, label) = match t.op_index() {
        Some(i) if t.pos() > 0 => (i + 1, op_label(&t.run, i)),
        _ => (0, String::new()),
    };
    let free_lists = (0..NR_PAGE_ORDERS as u8)
        .flat_map(|order| {
            MigrateType::kernel_types(z.cfg().cma)
                .into_iter()
                .map(move |mt| (order, mt))
        })
        .map(|(order, mt)| FreeListLen {
            order,
            mt,
            count: z.free_list(order, mt).len,
        })
        .collect();
    EmbedState {
        kind: "state",
        pos: t.pos(),
        len: t.len(),
        op,
        ops: t.run.ops.len(),
        op_label: label,
        narration: narration::view_model(t).line,
        scenario_id: scenario_id.to_string(),
        scenario_name: t.run.scenario.name.clone(),
        playing,
        nr_free: *z.nr_free(),
        free_lists,
        pcp: z.pcp().to_vec(),
        counters: *t.stats(),
        nr_free_pages: z.nr_free_pages(),
        tour_stop: None,
        sides: None,
    }
}

/// A message from the host.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum HostMessage {
    Step {
        #[serde(default)]
        n: Option<i32>,
    },
    Op {
        #[serde(default)]
        n: Option<i32>,
    },
    Seek {
        pos: u32,
    },
    Play {
        #[serde(default)]
        playing: Option<bool>,
        #[serde(default)]
        speed: Option<f64>,
    },
    Load {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        share: Option<String>,
        #[serde(default)]
        pos: Option<u32>,
    },
    Tour {
        stop: usize,
    },
    Get,
}

/// Carries out a host's message as the model's commands. `Err` is the message of the
/// `{type:"error"}` reply.
pub fn run_message(shell: Shell, msg: HostMessage) -> Result<(), String> {
    match msg {
        // The controls' commands, so compare mode (if a share link turned it on) moves both
        // sides as the controls do.
        HostMessage::Step { n } => {
            shell.dispatch(Command::Pause);
            let n = n.unwrap_or(1);
            for _ in 0..n.unsigned_abs() {
                shell.dispatch(if n < 0 {
                    Command::StepBack
                } else {
                    Command::StepForward
                });
            }
        }
        HostMessage::Op { n } => {
            shell.dispatch(Command::Pause);
            let n = n.unwrap_or(1);
            for _ in 0..n.unsigned_abs() {
                shell.dispatch(if n < 0 {
                    Command::OpBack
                } else {
                    Command::OpForward
                });
            }
        }
        HostMessage::Seek { pos } => {
            shell.dispatch(Command::Pause);
            if shell.read(|m| m.comparing()) {
                return Err("seek: in compare mode the two sides have different event counts; use op or tour".to_string());
            }
            shell.dispatch(Command::Seek(pos));
        }
        HostMessage::Tour { stop: n } => {
            shell.dispatch(Command::Pause);
            let stops = shell.read(|m| tour::positions(m).len());
            let i = tour::tour_query(&n.to_string(), stops)?;
            shell.dispatch(Command::TourGo(i));
        }
        HostMessage::Play { playing, speed } => {
            if let Some(s) = speed.filter(|s| s.is_finite() && *s > 0.0) {
                shell.prefs.speed.set(s.min(4096.0));
            }
            shell.dispatch(match playing {
                Some(true) => Command::Play,
                Some(false) => Command::Pause,
                None => Command::TogglePlay,
            });
        }
        HostMessage::Load {
            id,
            text,
            share,
            pos,
        } => {
            shell.dispatch(Command::Pause);
            match (id, text, share) {
                (Some(id), None, None) => {
                    if buddyscope::scenario::builtin::get(&id).is_none() {
                        return Err(crate::model::no_builtin(&id).to_string());
                    }
                    shell.dispatch(Command::LoadBuiltin(id));
                }
                (None, Some(text), None) => {
                    shell.dispatch(Command::Load {
                        text,
                        id: "custom".to_string(),
                    });
                }
                (None, None, Some(share)) => {
                    let v = crate::share::fragment_value(&share).unwrap_or(&share);
                    let p = crate::share::decode(v).map_err(|e| e.to_string())?;
                    shell.dispatch(Command::Share(Box::new(p)));
                    if let Some(e) = shell.read(|m| m.share_error.clone()) {
                        return Err(e);
                    }
                }
                _ => return Err("load needs exactly one of id, text or share".to_string()),
            }
            if let Some(e) = shell.read(|m| m.error.clone()) {
                return Err(e.to_string());
            }
            if let crate::model::RunStatus::Refused(why) = shell.read(|m| m.run_status.clone()) {
                return Err(why);
            }
            // A long run is in the worker: `pos` is the new run's, so it waits for it.
            if let Some(pos) = pos {
                shell.when_loaded(move |loaded| {
                    if loaded.is_ok() {
                        shell.dispatch(Command::Seek(pos))
                    }
                });
            }
        }
        HostMessage::Get => {}
    }
    Ok(())
}

mod wire {
    //! The browser side: the `message` listener and `postMessage` to the parent.
    use super::*;
    use wasm_bindgen::JsValue;

    fn post(msg: &JsValue, target: &str) {
        let Some(w) = web_sys::window() else { return };
        if let Ok(Some(parent)) = w.parent() {
            let _ = parent.post_message(msg, target);
        }
    }

    fn to_js<T: Serialize>(v: &T) -> JsValue {
        // Plain objects (not Maps), numbers for the counters.
        v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .unwrap_or(JsValue::NULL)
    }

    fn message(kind: &str, text: Option<&str>) -> JsValue {
        let o = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&o, &"type".into(), &kind.into());
        if let Some(t) = text {
            let _ = js_sys::Reflect::set(&o, &"message".into(), &t.into());
        }
        o.into()
    }

    /// Listens for host commands (only when framed) and reports state changes to the host.
    pub fn install(shell: Shell, allowed_origin: Option<String>) {
        let Some(w) = web_sys::window() else { return };
        let framed = w
            .parent()
            .ok()
            .flatten()
            .is_some_and(|p| !js_sys::Object::is(&p, &w));
        if !framed {
            return;
        }
        // Where replies go: unknown until the host speaks (or the origin the page was told).
        let target = StoredValue::new_local(allowed_origin.clone());
        let handle = window_event_listener(leptos::ev::message, move |ev| {
            let Some(w) = web_sys::window() else { return };
            let from_parent = match (ev.source(), w.parent().ok().flatten()) {
                (Some(src), Some(p)) => js_sys::Object::is(&src, &p),
                _ => false,
            };
            if !from_parent {
                return;
            }
            let origin = ev.origin();
            if allowed_origin.as_deref().is_some_and(|o| o != origin) {
                return;
            }
            let reply_to = if origin == "null" {
                "*".to_string()
            } else {
                origin
            };
            target.set_value(Some(reply_to.clone()));
            let msg: Result<HostMessage, _> = serde_wasm_bindgen::from_value(ev.data());
            let result = msg
                .map_err(|e| format!("unknown message: {e}"))
                .and_then(|c| run_message(shell, c));
            match result {
                // A load that went to the run worker is answered when its run is on screen
                // (or with the reason it will not be), not with the run it replaces.
                Ok(()) => shell.when_loaded(move |loaded| match loaded {
                    Ok(()) => post_state(shell, &reply_to),
                    Err(e) => post(&message("error", Some(&e)), &reply_to),
                }),
                Err(e) => post(&message("error", Some(&e)), &reply_to),
            }
        });
        on_cleanup(move || handle.remove());
        // Every change of run or position (playback too) is reported once the host has spoken.
        Effect::new(move |_| {
            for s in Slot::ALL {
                shell.cursor(s);
            }
            shell.ui.playing.track();
            // Not while a loaded run is in the worker: the host hears that run when it is on
            // screen (the load's reply), not the one it replaces.
            if shell.read(|m| m.pending()) {
                return;
            }
            if let Some(t) = target.get_value() {
                post_state(shell, &t);
            }
        });
        // Tell the host the app is up (no data: the origin of the host is not known yet), once
        // the run it was opened with is on screen: a share link of a long run runs in the
        // worker first, and a host that drives the frame on `ready` must drive that run.
        shell.when_loaded(move |_| {
            let ready_target = target.get_value().unwrap_or_else(|| "*".to_string());
            post(&message("ready", None), &ready_target);
        });
    }

    fn post_state(shell: Shell, target: &str) {
        // The state of the run, not the first frame's zone.
        shell.dispatch(Command::FinishFirstRun);
        let s = shell.read(|m| {
            let id = &m.scenario_id;
            let mut s = embed_state(&m.main().timeline, id, m.playing);
            s.tour_stop = tour::here(m).map(|i| i + 1);
            s.sides = m.pair().map(|p| {
                Box::new([
                    embed_state(&p.a.timeline, id, m.playing),
                    embed_state(&p.b.timeline, id, m.playing),
                ])
            });
            s
        });
        post(&to_js(&s), target);
    }
}

pub use wire::install;

/// The embedded app (`?embed=1`): the host's message API and the chrome-less view. Split off
/// into the wasm module `embed` (scripts/wasm-split.sh): a page that is not embedded never
/// downloads it. The host hears `ready` once it is installed.
#[leptos::wasm_split::wasm_split(embed, wasm_split_path = ::leptos::wasm_split)]
pub fn embed_app(shell: Shell, allowed_origin: Option<String>, panel: String) -> AnyView {
    install(shell, allowed_origin);
    view! { <EmbedView panel=panel/> }.into_any()
}

/// The chrome-less view: the memory map and the chosen panel.
#[component]
pub fn EmbedView(panel: String) -> impl IntoView {
    use crate::panels::charts::ChartsPanel;
    use crate::panels::counters::CountersPanel;
    use crate::panels::freelists::FreeListsPanel;
    use crate::panels::memmap::MemoryMapPanel;
    use crate::panels::narration::NarrationBar;
    use crate::panels::pcp::PcpPanel;
    use crate::panels::pseudocode::PseudocodePanel;
    let shell = Shell::get();
    crate::shell::player::install(shell);
    crate::shell::keys::install_stepping(shell);
    let side = match panel.as_str() {
        "pcp" => view! { <PcpPanel/> }.into_any(),
        "counters" => view! { <CountersPanel/> }.into_any(),
        "narration" => view! { <NarrationBar/> }.into_any(),
        "code" | "pseudocode" => view! { <PseudocodePanel/> }.into_any(),
        "charts" => view! { <ChartsPanel/> }.into_any(),
        "none" => ().into_any(),
        _ => view! { <FreeListsPanel/> }.into_any(),
    };
    view! {
        <main
            class="embed"
            data-testid="embed-view"
            data-panel=panel.clone()
            data-run=move || crate::panels::deferred::run_marker(shell.ui.first_run_done.get())
        >
            <MemoryMapPanel/>
            <div class="embed-panel">{side}</div>
        </main>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    #[test]
    fn state_reports_the_frame_the_panels_show() {
        let mut t = timeline("fallback-claim");
        t.op_forward();
        let s = embed_state(&t, "fallback-claim", false);
        assert_eq!(s.pos, t.pos());
        assert_eq!(s.op, 1);
        let fl = crate::panels::freelists::view_model(&t);
        for l in &s.free_lists {
            assert_eq!(l.count, fl.cells[l.order as usize][l.mt.idx()].count);
        }
        assert_eq!(s.nr_free, fl.nr_free);
        assert_eq!(s.narration, narration::view_model(&t).line);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["type"], "state");
        assert!(json["counters"]["zone_lock"].is_u64());
    }

    #[test]
    fn commands_parse_from_host_messages() {
        let c: HostMessage = serde_json::from_str(r#"{"type":"step","n":-2}"#).unwrap();
        assert_eq!(c, HostMessage::Step { n: Some(-2) });
        let c: HostMessage = serde_json::from_str(r#"{"type":"op"}"#).unwrap();
        assert_eq!(c, HostMessage::Op { n: None });
        let c: HostMessage =
            serde_json::from_str(r#"{"type":"load","id":"fallback-steal","pos":5}"#).unwrap();
        assert!(matches!(c, HostMessage::Load { pos: Some(5), .. }));
        assert!(serde_json::from_str::<HostMessage>(r#"{"type":"format-disk"}"#).is_err());
        assert!(serde_json::from_str::<HostMessage>(r#"{"type":"seek"}"#).is_err());
        let c: HostMessage = serde_json::from_str(r#"{"type":"tour","stop":3}"#).unwrap();
        assert_eq!(c, HostMessage::Tour { stop: 3 });
    }
}
