//! The exercise panel: the set picker (shipped sets, a file, a URL), the current question with
//! its answer area, the verdict while the step plays, and the result with the engine's
//! explanation. Exercise mode itself is the model's ([`crate::model::exercises`]).

use buddyscope::explain::exercises::{builtin_sets, Answer, AnswerKind, Expected};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::PanelFrame;
use crate::exercise::{self, list_words};
use crate::model::exercises::{ExerciseCommand, Phase};
use crate::model::Command;
use crate::saved::Progress;
use crate::shell::Shell;

/// What the panel reads of exercise mode, and sends to it.
#[derive(Clone, Copy)]
struct Ex {
    shell: Shell,
    progress: Memo<Option<Progress>>,
    phase: Memo<Phase>,
    pending: Memo<Option<Answer>>,
    number: Memo<String>,
    pfn: Memo<String>,
    error: Memo<Option<buddyscope::explain::exercises::ScenarioError>>,
    note: Memo<Option<String>>,
    loading: Memo<Option<String>>,
}

impl Ex {
    fn get() -> Ex {
        let shell = Shell::get();
        let x = shell.ui.exercise;
        Ex {
            shell,
            progress: Memo::new(move |_| x.with(|x| x.progress.clone())),
            phase: Memo::new(move |_| x.with(|x| x.phase)),
            pending: Memo::new(move |_| x.with(|x| x.pending)),
            number: Memo::new(move |_| x.with(|x| x.number.clone())),
            pfn: Memo::new(move |_| x.with(|x| x.pfn.clone())),
            error: Memo::new(move |_| x.with(|x| x.error.clone())),
            note: Memo::new(move |_| x.with(|x| x.note.clone())),
            loading: Memo::new(move |_| x.with(|x| x.loading.clone())),
        }
    }

    fn send(self, c: ExerciseCommand) {
        self.shell.dispatch(Command::Exercise(c));
    }

    /// Reads the open set (tracking which set is open).
    fn with_set<R>(self, f: impl FnOnce(&exercise::OpenSet) -> R) -> Option<R> {
        self.shell.ui.exercise.with(|x| x.rev);
        self.with_set_untracked(f)
    }

    fn with_set_untracked<R>(self, f: impl FnOnce(&exercise::OpenSet) -> R) -> Option<R> {
        self.shell.read(|m| m.exercises.set.as_ref().map(f))
    }

    fn is_open(self) -> bool {
        self.with_set(|_| ()).is_some()
    }

    /// The current question's index.
    fn current(self) -> Option<usize> {
        self.progress.with(|p| p.as_ref().map(|p| p.current))
    }
}

/// Reads a picked file and opens it as a set.
fn open_file(ctl: Ex, input: web_sys::HtmlInputElement) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r = reader.clone();
    let name = file.name();
    let onload = Closure::once(move |_: web_sys::Event| {
        if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
            ctl.send(ExerciseCommand::OpenText { text, source: name });
        }
        // Picking the same file again fires `change` again.
        input.set_value("");
    });
    reader.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    let _ = reader.read_as_text(&file);
}

/// The titles of the shipped sets with their question counts, for the picker.
fn shipped() -> Vec<(&'static str, String)> {
    builtin_sets()
        .iter()
        .map(|b| {
            let title = buddyscope::explain::exercises::parse_exercise_set(b.json())
                .map(|s| format!("{} ({} questions)", s.title, s.question_count()))
                .unwrap_or_else(|_| b.id.to_string());
            (b.id, title)
        })
        .collect()
}

#[component]
fn SetPicker() -> impl IntoView {
    let ctl = Ex::get();
    let url = RwSignal::new(String::new());
    let sets = shipped();
    view! {
        <div class="ex-pick">
            <label class="field">
                <span>"Exercise set"</span>
                <select
                    data-testid="exercise-set"
                    prop:value=move || {
                        ctl.progress.with(|p| p.as_ref().map(|p| p.set_id.clone())).unwrap_or_default()
                    }
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        if !id.is_empty() {
                            ctl.send(ExerciseCommand::OpenBuiltin(id));
                        }
                    }
                >
                    <option value="">"Choose a set\u{2026}"</option>
                    {sets
                        .into_iter()
                        .map(|(id, title)| view! { <option value=id>{title}</option> })
                        .collect_view()}
                </select>
            </label>
            <label class="file-button">
                <span>"Open file\u{2026}"</span>
                <input
                    type="file"
                    accept=".json,application/json"
                    data-testid="exercise-file"
                    aria-label="Open an exercise set from a file"
                    on:change=move |ev| {
                        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            open_file(ctl, input);
                        }
                    }
                />
            </label>
            <form
                class="ex-url"
                on:submit=move |ev| {
                    ev.prevent_default();
                    ctl.send(ExerciseCommand::OpenUrl(url.get_untracked()));
                }
            >
                <input
                    // Text, not `url`: a relative address is fine to fetch.
                    type="text"
                    inputmode="url"
                    data-testid="exercise-url"
                    aria-label="Exercise set URL"
                    placeholder="https://\u{2026}/set.json"
                    prop:value=move || url.get()
                    on:input=move |ev| url.set(event_target_value(&ev))
                />
                <button type="submit" data-testid="exercise-url-open">"Open URL"</button>
            </form>
        </div>
    }
    .into_any()
}

#[component]
fn SetError() -> impl IntoView {
    let ctl = Ex::get();
    view! {
        <Show when=move || ctl.error.with(Option::is_some)>
            <div class="editor-error" data-testid="exercise-error" role="alert">
                {move || {
                    ctl.error.get().map(|e| {
                        view! {
                            <p>
                                <strong>"\u{26a0} Exercise set not opened: "</strong>
                                {(!e.path.is_empty()).then(|| view! { <code class="editor-error-path">{e.path.clone()}</code>": " })}
                                <span>{e.message.clone()}</span>
                            </p>
                            {(!e.hint.is_empty()).then(|| view! { <p class="editor-error-hint">"Hint: "{e.hint.clone()}</p> })}
                            <p class="muted small">"What was open stays open."</p>
                        }
                    })
                }}
            </div>
        </Show>
    }
    .into_any()
}

/// The answer area of the current question.
#[component]
fn AnswerArea(i: usize) -> impl IntoView {
    let ctl = Ex::get();
    let Some((kind, labels)) = ctl
        .with_set_untracked(|s| {
            s.question(i).map(|(_, q)| {
                let labels = match &q.expected {
                    Expected::Choice { labels, .. } => labels.clone(),
                    _ => Vec::new(),
                };
                (exercise::kind(q), labels)
            })
        })
        .flatten()
    else {
        return ().into_any();
    };
    let asking = move || ctl.phase.get() == Phase::Asking;
    let pending_words = move || {
        let a = ctl.pending.get()?;
        Some(match a {
            Answer::Page(p) => format!("pfn {p:#x}"),
            Answer::List { order, mt } => list_words(order, mt),
            _ => return None,
        })
    };
    let body = match kind {
        AnswerKind::Choice => view! {
            <div class="ex-choices" role="radiogroup" aria-labelledby="exercise-q">
                {labels
                    .into_iter()
                    .enumerate()
                    .map(|(n, label)| {
                        view! {
                            <label class="ex-choice">
                                <input
                                    type="radio"
                                    name="exercise-choice"
                                    data-testid=format!("exercise-choice-{n}")
                                    prop:checked=move || ctl.pending.get() == Some(Answer::Choice(n))
                                    disabled=move || !asking()
                                    on:change=move |_| ctl.send(ExerciseCommand::Choose(n))
                                />
                                <span>{label}</span>
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
        }
        .into_any(),
        AnswerKind::Number => view! {
            <label class="field ex-number">
                <span>"Your answer"</span>
                <input
                    type="text"
                    inputmode="numeric"
                    autocomplete="off"
                    data-testid="exercise-answer"
                    aria-describedby="exercise-q"
                    disabled=move || !asking()
                    prop:value=move || ctl.number.get()
                    on:input=move |ev| ctl.send(ExerciseCommand::Number(event_target_value(&ev)))
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            ctl.send(ExerciseCommand::Submit);
                        }
                    }
                />
            </label>
        }
        .into_any(),
        AnswerKind::Page => view! {
            <p class="ex-how">"Click a page on the memory map, or type its pfn:"</p>
            <label class="field ex-number">
                <span>"pfn"</span>
                <input
                    type="text"
                    autocomplete="off"
                    data-testid="exercise-pfn"
                    placeholder="0x\u{2026}"
                    disabled=move || !asking()
                    prop:value=move || ctl.pfn.get()
                    on:input=move |ev| {
                        ctl.send(ExerciseCommand::Pfn(event_target_value(&ev)));
                    }
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            ctl.send(ExerciseCommand::Submit);
                        }
                    }
                />
            </label>
        }
        .into_any(),
        AnswerKind::List => view! {
            <p class="ex-how">
                "Click a free list in the free-list table (or Tab to a cell and press Enter)."
            </p>
        }
        .into_any(),
    };
    view! {
        {body}
        <p class="ex-pending" data-testid="exercise-pending">
            {move || pending_words().map(|w| format!("Your answer: {w}"))}
        </p>
    }
    .into_any()
}

/// The result of question `i` once revealed: right or wrong in words and an icon, the engine's
/// answer and explanation.
#[component]
fn ResultView(i: usize) -> impl IntoView {
    let ctl = Ex::get();
    let given = ctl
        .progress
        .with_untracked(|p| p.as_ref().and_then(|p| p.answers.get(i).cloned()).flatten());
    let Some((answer_text, summary, lines, more)) = ctl
        .with_set_untracked(|s| {
            s.question(i).map(|(_, q)| {
                (
                    q.answer_text.clone(),
                    q.summary.clone(),
                    q.explanation.clone(),
                    q.explanation_more,
                )
            })
        })
        .flatten()
    else {
        return ().into_any();
    };
    let Some(given) = given else {
        return ().into_any();
    };
    let (icon, verdict, class) = if given.correct {
        ("\u{2714}", "Right", "ex-result right")
    } else {
        ("\u{2718}", "Wrong", "ex-result wrong")
    };
    view! {
        <div class=class data-testid="exercise-result" data-correct=given.correct.to_string() tabindex="-1">
            <p class="ex-verdict">
                <span class="ex-icon" aria-hidden="true">{icon}</span>
                <strong>{verdict}</strong>
                {format!(" \u{2014} your answer: {}. The answer: {answer_text}.", given.given)}
            </p>
            <p class="ex-summary">{summary}</p>
            <ol class="ex-explain" aria-label="What the kernel did">
                {lines
                    .into_iter()
                    .map(|l| {
                        view! {
                            <li>
                                <span class="ex-narration">{l.narration}</span>
                                <code class="ex-code">{format!("{}: {}", l.function, l.code.trim())}</code>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            {(more > 0).then(|| view! { <p class="muted small">{format!("\u{2026} and {more} more event(s) of this step.")}</p> })}
        </div>
    }
    .into_any()
}

#[component]
fn QuestionCard() -> impl IntoView {
    let ctl = Ex::get();
    // Keyed by the question: the card (and its live region) is rebuilt only when it changes.
    let cur = Memo::new(move |_| ctl.current());
    let head = Memo::new(move |_| {
        let i = cur.get()?;
        ctl.with_set(|s| {
            let (ex, q) = s.question(i)?;
            let first_of_exercise = s.order.get(i).is_some_and(|&(_, qi)| qi == 0);
            Some((
                (i, s.len()),
                s.set.title.clone(),
                s.source.clone(),
                format!("Question {} / {}", i + 1, s.len()),
                ex.title.clone(),
                first_of_exercise.then(|| ex.intro.clone()).flatten(),
                q.prompt.clone(),
                format!("{} \u{2014} asked at event {}", q.next_op, q.asked_at),
            ))
        })
        .flatten()
    });
    let score = move || {
        ctl.progress
            .with(|p| p.as_ref().map(Progress::score_text))
            .unwrap_or_default()
    };
    view! {
        {move || {
            let ((i, n), set_title, source, counter, ex_title, intro, prompt, at) = head.get()?;
            Some(view! {
                <div class="ex-head">
                    <strong class="ex-set-title" title=format!("from {source}")>{set_title}</strong>
                    <span class="ex-counter" data-testid="exercise-counter">{counter}</span>
                    <span class="ex-score-box">
                        "Score: "<span data-testid="exercise-score">{score}</span>
                    </span>
                    <button type="button" class="icon-btn" data-testid="exercise-close" on:click=move |_| ctl.send(ExerciseCommand::Close)>
                        "Close set"
                    </button>
                </div>
                <h3 class="ex-title">{ex_title}</h3>
                {intro.map(|t| view! { <p class="ex-intro">{t}</p> })}
                <p class="ex-question" id="exercise-q" data-testid="exercise-question" tabindex="-1">{prompt}</p>
                <p class="muted small ex-at">{at}</p>
                <AnswerArea i=i/>
                <Show when=move || ctl.note.with(Option::is_some)>
                    <p class="ex-note" role="alert">{move || ctl.note.get()}</p>
                </Show>
                <div class="ex-actions">
                    <button
                        type="button"
                        class="primary"
                        data-testid="exercise-submit"
                        disabled=move || ctl.phase.get() != Phase::Asking
                        on:click=move |_| ctl.send(ExerciseCommand::Submit)
                    >
                        "Submit"
                    </button>
                    <button
                        type="button"
                        data-testid="exercise-prev"
                        disabled=move || i == 0
                        on:click=move |_| ctl.send(ExerciseCommand::GoFocus(i.saturating_sub(1)))
                    >
                        "Previous question"
                    </button>
                    <button
                        type="button"
                        data-testid="exercise-next"
                        disabled=move || { i + 1 >= n || ctl.phase.get() == Phase::Revealing }
                        on:click=move |_| ctl.send(ExerciseCommand::GoFocus(i + 1))
                    >
                        "Next question"
                    </button>
                </div>
                <div class="ex-live" role="status" aria-live="polite">
                    {move || match ctl.phase.get() {
                        Phase::Asking => None,
                        // The verdict at once (the engine judged it on Submit); the step plays
                        // to show why, and Skip ends it.
                        Phase::Revealing => {
                            let correct = ctl
                                .progress
                                .with_untracked(|p| p.as_ref().and_then(|p| p.answers.get(i).cloned()).flatten())
                                .map(|a| a.correct);
                            let verdict = match correct {
                                Some(true) => "\u{2714} Right \u{2014} playing the step to show why\u{2026}",
                                Some(false) => "\u{2718} Wrong \u{2014} playing the step to show why\u{2026}",
                                None => "Playing the step\u{2026}",
                            };
                            Some(view! {
                                <p class="ex-verdict-early" data-testid="exercise-verdict-early" data-correct=correct.map(|c| c.to_string())>
                                    {verdict}
                                    " "
                                    <button type="button" data-testid="exercise-skip-reveal" on:click=move |_| ctl.send(ExerciseCommand::FinishReveal)>"Skip"</button>
                                </p>
                            }.into_any())
                        }
                        Phase::Revealed => Some(view! { <ResultView i=i/> }.into_any()),
                    }}
                </div>
            })
        }}
    }
    .into_any()
}

#[component]
pub fn ExercisePanel() -> impl IntoView {
    let ctl = Ex::get();
    let sub = Signal::derive(move || {
        ctl.progress
            .with(|p| p.as_ref().map(|p| format!("score {}", p.score_text())))
            .unwrap_or_default()
    });
    view! {
        <PanelFrame
            key="exercises"
            title="Exercises"
            testid="exercise-panel"
            sub=sub
            help="Predict, then reveal: answer each question before the step plays. The engine computes every answer."
        >
            <SetPicker/>
            <SetError/>
            {move || ctl.loading.get().map(|m| view! { <p class="muted small" role="status">{m}</p> })}
            <Show when=move || ctl.is_open()>
                <QuestionCard/>
            </Show>
        </PanelFrame>
    }
    .into_any()
}
