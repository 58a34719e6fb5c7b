//! Pseudocode of the kernel function at the cursor, the call chain and an elixir link.

use buddyscope::{explain::lines, Annotation, Event, KernelFn, Step, Timeline};
use leptos::prelude::*;

use super::frame::PanelFrame;
use crate::shell::View;

/// What the pane shows for one cursor position (`None` before the first step).
#[derive(Clone, Debug, PartialEq)]
pub struct PseudocodeModel {
    pub func: KernelFn,
    /// Outermost first.
    pub chain: Vec<KernelFn>,
    /// The line of the current step in `func`.
    pub current: Option<usize>,
    /// The line executed just before it in the same function (if different).
    pub previous: Option<usize>,
    pub url: String,
    pub kernel: &'static str,
}

/// True if the event carries a real pseudocode line (not call bookkeeping or an engine note).
fn has_line(e: &Event) -> bool {
    !matches!(
        e.kind().annotation(),
        Some(Annotation::Enter { .. } | Annotation::Exit { .. })
    ) && !matches!(
        e.step,
        Step::Enter | Step::Exit | Step::OpNote | Step::OpWarning
    )
}

/// How far back to look for a function's lines (keeps a step O(1)-ish on huge ops).
const SCAN_LIMIT: usize = 20_000;

pub fn view_model(t: &Timeline) -> Option<PseudocodeModel> {
    let pos = t.pos() as usize;
    t.current()?;
    let chain = t.call_chain();
    let func = *chain.last()?;
    let start = t
        .op_index()
        .map(|i| t.op(i).start as usize)
        .unwrap_or(0)
        .min(pos);
    let lo = start.max(pos.saturating_sub(SCAN_LIMIT));
    let events = t.run.log.events.range(lo..pos);
    let mut in_func = events
        .iter()
        .rev()
        .filter(|e| has_line(e) && e.step.func() == func)
        .map(|e| e.step.line());
    let current = in_func.next();
    let previous = in_func.find(|&l| Some(l) != current);
    let kernel = t.run.scenario.kernel;
    Some(PseudocodeModel {
        func,
        chain,
        current,
        previous,
        url: func.elixir_url(kernel),
        kernel: kernel.elixir_tag(),
    })
}

#[component]
pub fn PseudocodePanel() -> impl IntoView {
    let view = View::here();
    let view_data = Memo::new(move |_| view.with(|s| view_model(&s.timeline)).flatten());
    // Split so that a move rebuilds only what changed: the listing and its link when the
    // function changes, a chain entry when the chain does, and otherwise only the two
    // highlighted lines' marks (each line's mark is its own reactive leaf).
    let shown = Memo::new(move |_| view_data.with(Option::is_some));
    let head = Memo::new(move |_| {
        view_data.with(|v| v.as_ref().map(|v| (v.func, v.url.clone(), v.kernel)))
    });
    let chain = Memo::new(move |_| {
        view_data.with(|v| {
            v.as_ref()
                .map(|v| v.chain.iter().copied().enumerate().collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    let depth = Memo::new(move |_| chain.with(Vec::len));
    let marks = Memo::new(move |_| {
        view_data.with(|v| v.as_ref().map_or((None, None), |v| (v.current, v.previous)))
    });
    let mark = move |i: usize| {
        marks.with(|&(cur, prev)| {
            let c = cur == Some(i);
            (c, !c && prev == Some(i))
        })
    };

    // Keyed by the function (and its link): another function builds a fresh listing rather
    // than rewriting every attribute of the old one in place.
    let listing = move |(func, url, kernel): (KernelFn, String, &'static str)| {
        let code = lines(func)
            .iter()
            .enumerate()
            .map(|(i, l)| {
                view! {
                    <li
                        class="code-line"
                        class:code-current=move || mark(i).0
                        class:code-previous=move || mark(i).1
                        data-testid=move || match mark(i) {
                            (true, _) => "pseudocode-current",
                            (_, true) => "pseudocode-previous",
                            _ => "pseudocode-line",
                        }
                        aria-current=move || mark(i).0.then_some("step")
                    >
                        <span class="code-lineno">{i + 1}</span>
                        <code>{*l}</code>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="code-head">
                <code class="code-func">{func.name()}"()"</code>
                <a
                    class="code-elixir"
                    data-testid="elixir-link"
                    href=url
                    target="_blank"
                    rel="noopener"
                    title=format!("{} in {} of Linux {} on elixir.bootlin.com (opens a new tab)", func.name(), func.source_file(), kernel)
                >
                    {format!("source ({}, {}) ↗", func.source_file(), kernel)}
                </a>
            </div>
            <ol class="code-lines" aria-label="Pseudocode (written for buddyscope, not kernel source)">
                {code}
            </ol>
        }
    };

    view! {
        <PanelFrame key="pseudocode" title="Kernel code" testid="pseudocode">
            {move || if !shown.get() {
                view! {
                    <p class="muted" data-testid="pseudocode-empty">
                        "Step forward to see the kernel function that runs, line by line."
                    </p>
                }
                .into_any()
            } else {
                view! {
                    <ol class="call-chain" data-testid="call-chain" aria-label="Call chain, outermost first">
                        <For
                            each=move || chain.get()
                            key=|entry| *entry
                            children=move |(i, f)| {
                                view! {
                                    <li class:chain-current=move || depth.get() == i + 1>
                                        {(i > 0).then(|| view! { <span class="chain-arrow" aria-hidden="true">" → "</span> })}
                                        <code>{f.name()}</code>
                                    </li>
                                }
                            }
                        />
                    </ol>
                    <For each=move || head.get() key=|h| h.clone() children=listing/>
                    <p class="code-legend muted">
                        <span class="mini-swatch code-current"></span>" current step "
                        <span class="mini-swatch code-previous"></span>" just executed"
                    </p>
                }
                .into_any()
            }}
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Session;

    #[test]
    fn every_visible_stop_of_the_seed_has_a_function_and_a_current_line() {
        let mut s = Session::load(buddyscope::scenario::builtin::default().json()).unwrap();
        let t = &mut s.timeline;
        assert_eq!(view_model(t), None);
        let mut seen_prev = false;
        for _ in 0..400 {
            t.step_forward();
            let v = view_model(t).expect("a function after a step");
            assert_eq!(v.chain.last(), Some(&v.func));
            let n = lines(v.func).len();
            assert!(v.current.is_some_and(|l| l < n), "{:?}", v);
            seen_prev |= v.previous.is_some();
            // The current event's own line, when it belongs to the function shown.
            let ev = t.current().unwrap();
            if has_line(ev) && ev.step.func() == v.func {
                assert_eq!(v.current, Some(ev.step.line()));
            }
            assert!(v.url.contains("elixir.bootlin.com/linux/v"));
        }
        assert!(seen_prev);
    }
}
