//! What changed: the engine's one-line narration of the current event (also announced through
//! an ARIA live region, muted while playing), the kernel function it happened in, and the
//! current operation's summary, note and outcome.

use buddyscope::narrate::{narrate, Ctx};
use buddyscope::timeline::Timeline;
use leptos::prelude::*;

use super::op_label;
use crate::state::AppState;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NarrationModel {
    /// The kernel function of the current event (empty at the start).
    pub func: String,
    /// The engine's sentence for the current event, or the start-of-run hint.
    pub line: String,
    /// `op k / n: summary` of the current operation.
    pub op: String,
    pub note: Option<String>,
    /// The op's outcome once it is done; before, where the cursor is inside it.
    pub outcome: String,
}

pub fn view_model(t: &Timeline) -> NarrationModel {
    let (func, line) = match t.current() {
        Some(ev) => (
            ev.step.func().name().to_string(),
            // The zone being worked on (not a zone picked with the tabs): its pfns.
            narrate(&Ctx::of(t.node()), &t.run.log, ev),
        ),
        None => (
            String::new(),
            format!(
                "Start of \u{201c}{}\u{201d}: {} operations, {} events. Press \u{2192} to step, Shift+\u{2192} for a whole operation, Space to play.",
                t.run.scenario.name,
                t.run.ops.len(),
                t.len()
            ),
        ),
    };
    let (op, note, outcome) = match t.op_index() {
        Some(i) => {
            let rec = t.op(i);
            let def = &t.run.op_defs[rec.def as usize];
            let outcome = if t.pos() >= rec.end {
                rec.outcome.to_string()
            } else if t.pos() <= rec.start {
                "about to start".to_string()
            } else {
                format!(
                    "in progress: event {} of {}",
                    t.pos() - rec.start,
                    rec.end - rec.start
                )
            };
            (
                format!(
                    "op {} / {}: {}",
                    i + 1,
                    t.run.ops.len(),
                    op_label(&t.run, i)
                ),
                def.note.clone(),
                outcome,
            )
        }
        None => (String::new(), None, String::new()),
    };
    NarrationModel {
        func,
        line,
        op,
        note,
        outcome,
    }
}

#[component]
pub fn NarrationBar() -> impl IntoView {
    let state = AppState::viewed();
    let now = Memo::new(move |_| state.with(|s| view_model(&s.timeline)).unwrap_or_default());
    let note = Memo::new(move |_| now.with(|n| n.note.clone()));
    // Each compare side has its own bar: name them apart.
    let label = match use_context::<crate::state::SideRun>() {
        Some(crate::state::SideRun(s)) => {
            format!("What changed, side {}", s.as_str().to_uppercase())
        }
        None => "What changed".to_string(),
    };
    view! {
        <section class="narration-bar" aria-label=label>
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
                // The note's span stays while the note does (a move within one op writes nothing).
                <Show when=move || note.with(Option::is_some)>
                    <span class="op-note">{move || note.get().unwrap_or_default()}</span>
                </Show>
                <span class="op-outcome" data-testid="op-outcome">{move || now.with(|n| n.outcome.clone())}</span>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panels::testutil::timeline;

    #[test]
    fn start_hint_progress_and_the_engine_outcome() {
        let mut t = timeline("free-contig-range-thp");
        let m = view_model(&t);
        assert!(m.line.starts_with("Start of \u{201c}"), "{}", m.line);
        assert!(m.line.contains(&format!("{} events", t.len())));
        assert!(m.func.is_empty());
        t.step_forward();
        let m = view_model(&t);
        assert!(!m.func.is_empty() && !m.line.is_empty());
        assert!(m.op.starts_with(&format!("op 1 / {}: ", t.run.ops.len())));
        let rec = t.op(0);
        let want = format!(
            "in progress: event {} of {}",
            t.pos() - rec.start,
            rec.end - rec.start
        );
        assert_eq!(m.outcome, want);
        t.op_forward();
        let i = t.op_index().unwrap();
        let m = view_model(&t);
        assert_eq!(t.pos(), t.op(i).end);
        assert_eq!(m.outcome, t.op(i).outcome.to_string());
        assert_eq!(m.func, t.current().unwrap().step.func().name());
    }
}
