//! What changed: the engine's one-line narration of the current event (also announced through
//! an ARIA live region, muted while playing), the kernel function it happened in, and the
//! current operation's summary, note and outcome.

use buddyscope::{narrate, Annotation, Ctx, Event, EventKind, Mutation, Timeline};
use leptos::prelude::*;

use super::op_label;
use crate::shell::View;

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

/// Bookkeeping a sentence of its own does not explain: a call's entry or return, a lock, a
/// counter, the walk's switch back to the zonelist's first zone.
fn is_bookkeeping(k: EventKind) -> bool {
    match k {
        EventKind::Annotation(a) => matches!(
            a,
            Annotation::Enter { .. } | Annotation::Exit { .. } | Annotation::Lock { .. }
        ),
        EventKind::Mutation(m) => matches!(
            m,
            Mutation::ZoneSwitch { .. } | Mutation::Account { .. } | Mutation::Counter { .. }
        ),
    }
}

/// The zone's name in a node of several zones (`zone 1` if it has none).
fn zone_name(t: &Timeline, i: usize) -> String {
    let name = &t.node().zone(i).cfg().name;
    if name.is_empty() {
        format!("zone {i}")
    } else {
        name.clone()
    }
}

/// The engine's sentence for event `ev`, in words where the engine's is terse: a call's entry
/// or return, and the zonelist walk's switch from one zone to the next (by zone name).
fn event_words(t: &Timeline, ev: &Event) -> String {
    let f = ev.step.func().name();
    match ev.kind() {
        EventKind::Annotation(Annotation::Enter { func }) => format!("{f}: calls {}", func.name()),
        EventKind::Annotation(Annotation::Exit { func }) => {
            format!("{} returns to {f}", func.name())
        }
        EventKind::Mutation(Mutation::ZoneSwitch { from, to }) => {
            let (from, to) = (zone_name(t, from as usize), zone_name(t, to as usize));
            if f == "get_page_from_freelist" {
                format!("{f}: {from} cannot serve the request; the zonelist walk goes on to {to}")
            } else {
                format!("{f}: done in {from}; back to {to}, the first zone of the zonelist")
            }
        }
        // The zone being worked on (not a zone picked with the tabs): its pfns.
        _ => narrate(&Ctx::of(t.node().active()), &t.run.log, ev),
    }
}

/// At the end of op `i`: what the op did (its outcome, the zone it worked in), and the last
/// change it made, in words; a tour stop and a reveal land here.
fn op_done_words(t: &Timeline, i: usize) -> String {
    let rec = t.op(i);
    let zone = crate::model::tour::worked_zone(t)
        .map(|z| format!(" in {}", zone_name(t, z)))
        .unwrap_or_default();
    let mut s = format!("{}: done{zone}: {}.", op_label(&t.run, i), rec.outcome);
    let last = (rec.start..rec.end)
        .rev()
        .filter_map(|k| t.run.log.events.get(k as usize))
        .find(|e| e.is_visible() && !is_bookkeeping(e.kind()));
    if let Some(e) = last {
        s.push_str(" The last change: ");
        s.push_str(&narrate(&Ctx::of(t.node().active()), &t.run.log, e));
        s.push('.');
    }
    s
}

pub fn view_model(t: &Timeline) -> NarrationModel {
    let at_op_end = t
        .op_index()
        .filter(|&i| t.pos() > 0 && t.pos() == t.op(i).end);
    let (func, line) = match t.current() {
        Some(ev) => (
            ev.step.func().name().to_string(),
            match at_op_end {
                Some(i) if is_bookkeeping(ev.kind()) => op_done_words(t, i),
                _ => event_words(t, ev),
            },
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
    let view = View::here();
    let now = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).unwrap_or_default());
    let note = Memo::new(move |_| now.with(|n| n.note.clone()));
    // Each compare side has its own bar: name them apart.
    let label = match view.side() {
        Some(s) => format!("What changed, side {}", s.as_str().to_ascii_uppercase()),
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
                    aria-live=move || if view.shell.ui.playing.get() { "off" } else { "polite" }
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
    use crate::testutil::timeline;

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

    /// Every op end of every built-in says in words what the op did: never a bare call's
    /// return ("← alloc_pages") or a zone number.
    #[test]
    fn an_op_end_says_what_the_op_did_in_words() {
        for b in buddyscope::scenario::builtin::ALL {
            let mut t = timeline(b.id);
            for i in 0..t.run.ops.len().min(80) {
                t.seek(t.op(i).end);
                let m = view_model(&t);
                assert!(
                    !m.line.starts_with('\u{2190}') && !m.line.starts_with('\u{2192}'),
                    "{}: op {}: {}",
                    b.id,
                    i + 1,
                    m.line
                );
                assert!(
                    !m.line.contains("the node's zone"),
                    "{}: op {}: {}",
                    b.id,
                    i + 1,
                    m.line
                );
                if is_bookkeeping(t.current().unwrap().kind()) {
                    assert!(
                        m.line.contains(": done"),
                        "{}: op {}: {}",
                        b.id,
                        i + 1,
                        m.line
                    );
                    assert!(
                        m.line.contains(&t.op(i).outcome.to_string()),
                        "{}: {}",
                        b.id,
                        m.line
                    );
                }
            }
        }
        // dma32-machine's op 31: the THP came from DMA32, then the walk went back to Normal.
        let mut t = timeline("dma32-machine");
        t.seek(t.op(30).end);
        let line = view_model(&t).line;
        assert!(
            line.contains("done in DMA32: order-9 block at pfn 0x1000"),
            "{line}"
        );
        assert!(line.contains("The last change: "), "{line}");
    }
}
