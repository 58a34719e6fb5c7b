//! Stepping controls: buttons, play/pause at a speed, and the position readout. The keyboard
//! shortcuts and the player are the shell's (`crate::shell::keys`, `crate::shell::player`).

use leptos::prelude::*;

use buddyscope::Timeline;

use super::op_label;
use crate::model::Command;
use crate::shell::View;

/// Speeds offered, events per second.
pub const SPEEDS: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

#[component]
pub fn Controls() -> impl IntoView {
    let view = View::here();
    let shell = view.shell;
    let playing = shell.ui.playing;
    let speed = shell.prefs.speed;

    let btn =
        move |id: &'static str, label: &'static str, title: &'static str, cmd: fn() -> Command| {
            view! {
                <button
                    type="button"
                    class="ctl"
                    data-testid=id
                    title=title
                    aria-label=title
                    on:click=move |_| shell.dispatch(cmd())
                >
                    {label}
                </button>
            }
        };

    view! {
        <div class="controls" role="toolbar" aria-label="Stepping">
            {btn("jump-start", "\u{21e4}", "Jump to the start (Home)", || Command::JumpStart)}
            {btn("op-back", "\u{25c0}\u{25c0}", "Previous operation (Shift+\u{2190}, PageUp)", || Command::OpBack)}
            {btn("step-back", "\u{2759}\u{25c0}", "Previous event (\u{2190})", || Command::StepBack)}
            <button
                type="button"
                class="ctl play"
                data-testid="play"
                aria-pressed=move || playing.get().to_string()
                title="Play / pause (Space)"
                aria-label=move || if playing.get() { "Pause (Space)" } else { "Play (Space)" }
                on:click=move |_| shell.dispatch(Command::TogglePlay)
            >
                {move || if playing.get() { "\u{275a}\u{275a}" } else { "\u{25b6}" }}
            </button>
            {btn("step-forward", "\u{25b6}\u{2759}", "Next event (\u{2192})", || Command::StepForward)}
            {btn("op-forward", "\u{25b6}\u{25b6}", "Next operation (Shift+\u{2192}, PageDown)", || Command::OpForward)}
            {btn("jump-end", "\u{21e5}", "Jump to the end (End)", || Command::JumpEnd)}
            <label class="speed">
                <span class="speed-label">"speed"</span>
                <select
                    data-testid="speed"
                    aria-label="Playback speed, events per second"
                    prop:value=move || (speed.get() as u32).to_string()
                    on:change=move |ev| {
                        // The options are SPEEDS, whole numbers: no float parser (its tables
                        // would be in the first download).
                        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
                            speed.set(f64::from(v));
                        }
                    }
                >
                    {SPEEDS
                        .iter()
                        .map(|&s| view! { <option value=s.to_string()>{format!("{s}/s")}</option> })
                        .collect_view()}
                </select>
            </label>
        </div>
    }
}

/// The position readout: "event i / n · op k / m: summary".
pub fn position_text(t: &Timeline) -> String {
    let ops = t.run.ops.len();
    let op = match t.op_index() {
        Some(_) if t.pos() == 0 => format!("before op 1 / {ops}"),
        Some(i) => format!("op {} / {ops}: {}", i + 1, op_label(&t.run, i)),
        None => "no ops".to_string(),
    };
    format!("event {} / {} \u{b7} {op}", t.pos(), t.len())
}

#[component]
pub fn Position() -> impl IntoView {
    let view = View::here();
    let text = move || {
        // The first frame's zone has no ops yet: say they are coming (panels::deferred).
        if !view.shell.ui.first_run_done.get() {
            return "event 0 \u{b7} running the scenario\u{2026}".to_string();
        }
        view.with(|s| position_text(&s.timeline))
            .unwrap_or_default()
    };
    view! { <div class="position" data-testid="position">{text}</div> }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    #[test]
    fn position_names_the_event_and_the_op() {
        let mut t = timeline("free-contig-range-thp");
        let n = t.run.ops.len();
        assert_eq!(
            position_text(&t),
            format!("event 0 / {} \u{b7} before op 1 / {n}", t.len())
        );
        t.op_forward();
        let want = format!(
            "event {} / {} \u{b7} op 1 / {n}: {}",
            t.pos(),
            t.len(),
            op_label(&t.run, 0)
        );
        assert_eq!(position_text(&t), want);
    }
}
