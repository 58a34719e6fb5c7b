//! What changed: the engine's one-line narration of the current event (also announced through
//! an ARIA live region, muted while playing), the kernel function it happened in, and the
//! current operation's summary, note and outcome.

use buddyscope::narrate::{narrate, Ctx};
use leptos::prelude::*;

use super::op_label;
use crate::state::AppState;

#[derive(Clone, Default, PartialEq)]
struct Now {
    func: String,
    line: String,
    op: String,
    note: Option<String>,
    outcome: String,
}

#[component]
pub fn Narration() -> impl IntoView {
    let state = AppState::get();
    let now = Memo::new(move |_| {
        state
            .with(|s| {
                let tl = &s.timeline;
                let (func, line) = match tl.current() {
                    Some(ev) => (
                        ev.step.func().name().to_string(),
                        narrate(&Ctx::of(tl.zone()), &tl.run.log, ev),
                    ),
                    None => (
                        String::new(),
                        format!(
                            "Start of \u{201c}{}\u{201d}: {} operations, {} events. Press \u{2192} to step, Shift+\u{2192} for a whole operation, Space to play.",
                            s.scenario.name,
                            tl.run.ops.len(),
                            tl.len()
                        ),
                    ),
                };
                let (op, note, outcome) = match tl.op_index() {
                    Some(i) => {
                        let rec = tl.op(i);
                        let def = &tl.run.op_defs[rec.def as usize];
                        let done = tl.pos() >= rec.end;
                        (
                            format!("op {} / {}: {}", i + 1, tl.run.ops.len(), op_label(&tl.run, i)),
                            def.note.clone(),
                            if done {
                                rec.outcome.clone()
                            } else if tl.pos() <= rec.start {
                                "about to start".to_string()
                            } else {
                                format!("in progress: event {} of {}", tl.pos() - rec.start, rec.end - rec.start)
                            },
                        )
                    }
                    None => (String::new(), None, String::new()),
                };
                Now {
                    func,
                    line,
                    op,
                    note,
                    outcome,
                }
            })
            .unwrap_or_default()
    });
    view! {
        <section class="narration-bar" aria-label="What changed">
            <div class="narr-main">
                <code class="narr-func" class:empty=move || now.with(|n| n.func.is_empty())>
                    {move || now.with(|n| n.func.clone())}
                </code>
                <p
                    class="narration"
                    data-testid="narration"
                    aria-live=move || if state.playing.get() { "off" } else { "polite" }
                    aria-atomic="true"
                >
                    {move || now.with(|n| n.line.clone())}
                </p>
            </div>
            <div class="narr-op" data-testid="op-info">
                <strong class="op-summary">{move || now.with(|n| n.op.clone())}</strong>
                {move || now.with(|n| n.note.clone()).map(|t| view! { <span class="op-note">{t}</span> })}
                <span class="op-outcome" data-testid="op-outcome">{move || now.with(|n| n.outcome.clone())}</span>
            </div>
        </section>
    }
}
