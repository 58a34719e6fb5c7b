//! The model's update, natively: every command, and the cases the e2e suite checks in a browser
//! (the first run, a share link of a worker run, compare mode at the same op, a tour stop on both
//! compare sides, a caption that never outlives its stop, `?exercises=` with a typo, …).

use super::RunStatus;
use buddyscope::explain::exercises::{Answer, Expected};
use buddyscope::mm::MigrateType;
use buddyscope::scenario::ScenarioError;

use super::exercises::{ExerciseCommand, Phase};
use super::route::Route;
use super::work::{SavedCommand, StoreWrite};
use super::*;
use crate::saved::{Entry, Listed, Saved, LAST_KEY};
use crate::share::SharePayload;

/// Applies `cmd` and performs the effects the shell answers at once in a test: an exercise
/// set is opened (the shell resolves it in its own wasm module); the other effects are returned.
fn run(m: &mut Model, cmd: Command) -> Vec<Effect> {
    let mut rest = Vec::new();
    for e in update(m, cmd) {
        match e {
            Effect::OpenSet { text, source } => {
                let set = crate::exercise::OpenSet::open(&text, &source).map(Box::new);
                rest.extend(run(m, Command::Exercise(ExerciseCommand::Opened(set))));
            }
            e => rest.push(e),
        }
    }
    rest
}

/// A fresh model with the default scenario's run in.
fn model() -> Model {
    let mut m = Model::new();
    run(&mut m, Command::FinishFirstRun);
    m
}

fn builtin(id: &str) -> &'static str {
    builtin::get(id).expect("a built-in").json()
}

/// A model showing built-in `id`.
fn showing(id: &str) -> Model {
    let mut m = model();
    run(&mut m, Command::LoadBuiltin(id.to_string()));
    assert_eq!(m.scenario_id, id);
    m
}

fn pos(m: &Model) -> u32 {
    m.main().timeline.pos()
}

fn side_pos(m: &Model) -> (u32, u32) {
    let p = m.pair().expect("compare mode");
    (p.a.timeline.pos(), p.b.timeline.pos())
}

/// Performs the effects a test cares about as the shell does: a worker run runs natively and
/// comes back as `WorkerDone`; everything else is returned.
fn perform(m: &mut Model, fx: Vec<Effect>) -> Vec<Effect> {
    let mut rest = Vec::new();
    for e in fx {
        match e {
            Effect::StartWorker { job, text, valid } => {
                let r =
                    session::run_bounded(*valid, &mut |_, _| std::ops::ControlFlow::Continue(()))
                        .expect("the worker's run");
                let more = run(
                    m,
                    Command::WorkerDone {
                        job,
                        session: Box::new(Session::from_run(&text, r)),
                        handover: Handover {
                            bytes: 1000,
                            tasks: 5,
                        },
                    },
                );
                rest.extend(perform(m, more));
            }
            e => rest.push(e),
        }
    }
    rest
}

/// A scenario long enough for the worker: 200,000 ops.
fn long_text() -> String {
    session::tests_support::nested(100_000, 1)
}

#[test]
fn the_model_starts_with_the_default_zone_and_its_run_pending() {
    let mut m = Model::new();
    assert!(!m.first_run_done);
    assert_eq!(m.scenario_id, builtin::default().id);
    assert_eq!(
        m.main().timeline.len(),
        0,
        "the first frame is the zone at event 0"
    );
    let first = m.main().id;
    // A plain address with nothing saved opens nothing: the run stays pending (the first paint
    // pays only for the zone).
    run(&mut m, Command::Open(Box::default()));
    assert!(!m.first_run_done);
    run(&mut m, Command::FinishFirstRun);
    assert!(m.first_run_done);
    assert!(!m.main().timeline.is_empty());
    assert_ne!(m.main().id, first, "the run is another run than the zone's");
    let id = m.main().id;
    run(&mut m, Command::FinishFirstRun);
    assert_eq!(m.main().id, id, "once only");
}

#[test]
fn a_key_or_a_scrubber_click_before_the_run_is_in_acts_on_the_run() {
    let mut m = Model::new();
    run(&mut m, Command::OpForward);
    assert!(m.first_run_done);
    assert!(pos(&m) > 0);
    assert_eq!(m.main().timeline.ops_done(), 1);

    let mut m = Model::new();
    run(&mut m, Command::SeekFraction(0.5));
    let len = m.main().timeline.len();
    assert!(len > 0);
    assert_eq!(pos(&m), (f64::from(len) * 0.5).round() as u32);
    // Outside the track: clamped.
    run(&mut m, Command::SeekFraction(7.0));
    assert_eq!(pos(&m), len);
}

#[test]
fn a_load_replaces_the_run_and_a_bad_text_keeps_it() {
    let mut m = model();
    m.playing = true;
    m.selected_page = Some(3);
    let before = m.main().id;
    run(&mut m, Command::OpForward);
    let fx = run(
        &mut m,
        Command::Load {
            text: builtin("fallback-claim").to_string(),
            id: "fallback-claim".to_string(),
        },
    );
    assert!(fx.is_empty());
    assert_ne!(m.main().id, before);
    assert_eq!(m.scenario_id, "fallback-claim");
    assert_eq!(pos(&m), 0);
    assert!(!m.playing);
    assert_eq!(m.selected_page, None);
    assert_eq!(m.editor_text, builtin("fallback-claim"));

    let id = m.main().id;
    run(
        &mut m,
        Command::Load {
            text: "{\"version\": 1, \"ops\": [{\"op\": \"alloc\", \"order\": 11}]}".to_string(),
            id: "custom".to_string(),
        },
    );
    assert_eq!(m.main().id, id, "the last good run stays");
    assert!(m
        .error
        .as_ref()
        .is_some_and(|e| e.path.starts_with("ops[0]")));
    assert!(m.editor_text.contains("\"order\": 11"));
    assert_eq!(m.scenario_id, "fallback-claim");

    // An unknown built-in changes nothing; a known one clears the error.
    run(&mut m, Command::LoadBuiltin("no-such-scenario".to_string()));
    assert_eq!(m.main().id, id);
    run(&mut m, Command::LoadBuiltin("fallback-steal".to_string()));
    assert_eq!(m.error, None);
    assert_eq!(m.scenario_id, "fallback-steal");
    assert_eq!(
        no_builtin("x").to_string(),
        "no built-in scenario \"x\"; pick one from the list"
    );
}

#[test]
fn editing_changes_only_the_editor() {
    let mut m = model();
    let id = m.main().id;
    run(&mut m, Command::Edit("{ half".to_string()));
    assert_eq!(m.editor_text, "{ half");
    assert_eq!(m.main().id, id);
    assert_eq!(m.error, None);
}

#[test]
fn a_quintillion_ops_are_refused_and_the_previous_run_stays() {
    let mut m = model();
    let id = m.main().id;
    let fx = run(
        &mut m,
        Command::Load {
            text: session::tests_support::nested(1_000_000, 3),
            id: "custom".to_string(),
        },
    );
    assert!(fx.is_empty());
    assert_eq!(m.main().id, id);
    assert_eq!(m.error, None);
    match &m.run_status {
        RunStatus::Refused(msg) => assert!(msg.contains("2000000000000000000 operations")),
        s => panic!("{s:?}"),
    }
    run(&mut m, Command::DismissStatus);
    assert_eq!(m.run_status, RunStatus::Idle);
}

#[test]
fn a_long_run_goes_to_the_worker_and_replaces_the_run_when_it_is_read() {
    let mut m = model();
    let id = m.main().id;
    let fx = run(
        &mut m,
        Command::Load {
            text: long_text(),
            id: "custom".to_string(),
        },
    );
    let [Effect::StartWorker { job, text, .. }] = &fx[..] else {
        panic!("one worker run")
    };
    let (job, text) = (*job, text.clone());
    assert!(m.pending());
    assert!(
        matches!(&m.run_status, RunStatus::Running { total: 200_000, done: 0, name } if name == "nested")
    );
    run(
        &mut m,
        Command::WorkerProgress {
            job,
            done: 5,
            total: 200_000,
        },
    );
    assert!(matches!(m.run_status, RunStatus::Running { done: 5, .. }));
    // A late message of another job is ignored.
    run(
        &mut m,
        Command::WorkerProgress {
            job: JobId(job.0 + 7),
            done: 9,
            total: 200_000,
        },
    );
    assert!(matches!(m.run_status, RunStatus::Running { done: 5, .. }));
    run(&mut m, Command::WorkerReceiving { job, bytes: 4096 });
    assert!(
        matches!(&m.run_status, RunStatus::Receiving { bytes: 4096, name, .. } if name == "nested")
    );
    run(
        &mut m,
        Command::ReceiveProgress {
            job,
            done: 3,
            total: 9,
        },
    );
    assert!(matches!(
        m.run_status,
        RunStatus::Receiving {
            done: 3,
            total: 9,
            ..
        }
    ));
    assert_eq!(
        m.main().id,
        id,
        "the current run stays until the new one is read"
    );
    let r = session::run_bounded(
        buddyscope::scenario::parse_valid(&text).unwrap(),
        &mut |_, _| std::ops::ControlFlow::Continue(()),
    )
    .unwrap();
    run(
        &mut m,
        Command::WorkerDone {
            job,
            session: Box::new(Session::from_run(&text, r)),
            handover: Handover {
                bytes: 4096,
                tasks: 3,
            },
        },
    );
    assert_eq!(m.run_status, RunStatus::Idle);
    assert_ne!(m.main().id, id);
    assert_eq!(m.main().timeline.run.ops.len(), 200_000);
    assert_eq!(pos(&m), 0);
    assert_eq!(m.scenario_id, "custom");
    assert_eq!(
        m.handover,
        Some(Handover {
            bytes: 4096,
            tasks: 3
        })
    );
}

#[test]
fn cancel_and_failure_keep_the_previous_run_and_answer_who_waits() {
    let mut m = model();
    let id = m.main().id;
    run(
        &mut m,
        Command::Load {
            text: long_text(),
            id: "custom".to_string(),
        },
    );
    // Waiting for the run: answered when it will not come.
    assert!(run(&mut m, Command::WhenLoaded(7)).is_empty());
    let fx = run(&mut m, Command::Cancel);
    assert!(matches!(fx[0], Effect::CancelWorker));
    assert!(
        matches!(&fx[1], Effect::Loaded { token: 7, result: Err(e) } if e.contains("cancelled"))
    );
    assert_eq!(m.run_status, RunStatus::Idle);
    assert_eq!(m.main().id, id);

    let fx = run(
        &mut m,
        Command::Load {
            text: long_text(),
            id: "custom".to_string(),
        },
    );
    let Effect::StartWorker { job, .. } = fx[0] else {
        panic!()
    };
    run(&mut m, Command::WhenLoaded(8));
    let fx = run(
        &mut m,
        Command::WorkerFailed {
            job,
            message: "The run failed: boom. The current run stays.".to_string(),
        },
    );
    assert!(matches!(&fx[0], Effect::Loaded { token: 8, result: Err(e) } if e.contains("boom")));
    assert!(matches!(&m.run_status, RunStatus::Failed(e) if e.contains("boom")));
    assert_eq!(m.main().id, id);
    // Not pending: answered at once.
    let fx = run(&mut m, Command::WhenLoaded(9));
    assert!(matches!(
        fx[..],
        [Effect::Loaded {
            token: 9,
            result: Ok(())
        }]
    ));
}

/// A share link of `text` at `pos`, with presenter mode on.
fn link(text: &str, id: &str, pos: u32) -> SharePayload {
    SharePayload {
        text: text.to_string(),
        id: id.to_string(),
        pos,
        mode: crate::share::ShareMode::Single,
        compare: None,
        presenter: crate::share::PresenterState {
            presenter: true,
            tour_stop: None,
            follow: true,
        },
    }
}

fn open_link(m: &mut Model, p: &SharePayload) -> Vec<Effect> {
    let hash = format!("#s={}", crate::share::encode(p));
    run(m, Command::Open(Box::new(Route::parse("", &hash))))
}

#[test]
fn a_share_link_reproduces_its_frame() {
    let mut m = Model::new();
    let fx = open_link(
        &mut m,
        &link(builtin("fallback-claim"), "fallback-claim", 40),
    );
    assert_eq!(m.scenario_id, "fallback-claim");
    assert_eq!(pos(&m), 40);
    assert!(m.first_run_done, "the default scenario's run never runs");
    assert!(matches!(
        fx[..],
        [Effect::Presenter {
            on: true,
            follow: Some(true)
        }]
    ));
    // An edited built-in is "custom" (the link carries the text, not the id).
    let mut m = Model::new();
    let edited = builtin("fallback-claim").replacen("\"name\": \"", "\"name\": \"Mine: ", 1);
    open_link(&mut m, &link(&edited, "fallback-claim", 3));
    assert_eq!(m.scenario_id, "custom");
    assert_eq!(m.main().text, edited);
}

#[test]
fn a_share_link_made_in_compare_mode_reproduces_both_sides() {
    let mut m = showing("fallback-steal");
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    run(&mut m, Command::OpForward);
    run(&mut m, Command::StepForward);
    run(&mut m, Command::TourGo(1));
    let (a, b) = side_pos(&m);
    let p = m.share_payload(true, false);
    assert_eq!(p.mode, crate::share::ShareMode::Compare);

    let mut fresh = Model::new();
    open_link(&mut fresh, &p);
    assert!(fresh.comparing());
    assert_eq!(side_pos(&fresh), (a, b));
    assert_eq!(fresh.tour_stop, Some(1));
    assert_eq!(tour::here(&fresh), Some(1));
    assert_eq!(fresh.share_error, None);
}

#[test]
fn a_damaged_link_says_so_and_shows_the_default_scenario() {
    let mut m = Model::new();
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse("?tour=2", "#s=1.AAAA"))),
    );
    assert!(m
        .share_error
        .as_ref()
        .is_some_and(|e| e.contains("damaged")));
    assert_eq!(m.scenario_id, builtin::default().id);
    assert!(!m.comparing());
    // Presenter state back to the defaults, then the rest of the address applies.
    assert!(matches!(
        fx[0],
        Effect::Presenter {
            on: false,
            follow: Some(false)
        }
    ));
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Presenter { on: true, .. })));
    // A link that runs over the limits: the refusal stays on screen.
    let mut m = Model::new();
    open_link(
        &mut m,
        &link(&session::tests_support::nested(1_000_000, 3), "custom", 0),
    );
    assert!(m
        .share_error
        .as_ref()
        .is_some_and(|e| e.contains("was not run")));
    assert!(matches!(m.run_status, RunStatus::Refused(_)));
    assert_eq!(m.scenario_id, builtin::default().id);
}

#[test]
fn a_share_link_of_a_worker_run_restores_its_position_once_the_run_is_done() {
    let mut m = Model::new();
    let fx = open_link(&mut m, &link(&long_text(), "custom", 12_345));
    assert!(m.pending());
    assert_eq!(pos(&m), 0, "the position waits for its run");
    let rest = perform(&mut m, fx);
    assert!(matches!(rest[..], [Effect::Presenter { on: true, .. }]));
    assert_eq!(m.main().timeline.run.ops.len(), 200_000);
    assert_eq!(pos(&m), 12_345);
    assert_eq!(m.share_error, None);
}

#[test]
fn the_address_opens_a_scenario_in_compare_mode_or_says_why_not() {
    let mut m = Model::new();
    run(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?scenario=cma-frozen-range&compare=1",
            "",
        ))),
    );
    assert_eq!(m.scenario_id, "cma-frozen-range");
    assert_eq!(m.compare(), Some(&m.default_pair()));
    assert_eq!(side_pos(&m), (0, 0));
    assert_ne!(m.pair().unwrap().a.id, m.pair().unwrap().b.id);

    let mut m = Model::new();
    run(
        &mut m,
        Command::Open(Box::new(Route::parse("?compare=v7.1,v7.2", ""))),
    );
    let pair = m.compare().expect("compare mode");
    assert_eq!(pair.a.kernel.map(|k| k.as_str()), Some("v7.1"));
    assert_eq!(pair.b.kernel.map(|k| k.as_str()), Some("v7.2"));

    let mut m = Model::new();
    run(
        &mut m,
        Command::Open(Box::new(Route::parse("?compare=v9.9,x", ""))),
    );
    assert!(!m.comparing());
    assert!(m.compare_error.is_some());
}

#[test]
fn tour_99_says_which_stops_there_are_and_starts_at_stop_1() {
    let mut m = Model::new();
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?scenario=fallback-steal&tour=99",
            "",
        ))),
    );
    assert!(matches!(
        fx[..],
        [Effect::Presenter {
            on: true,
            follow: None
        }]
    ));
    assert_eq!(m.tour_stop, Some(0));
    assert_eq!(tour::here(&m), Some(0));
    let n = tour::positions(&m).len();
    assert!(m
        .tour_notice
        .as_ref()
        .is_some_and(|t| t.contains("no stop 99") && t.contains(&format!("{n} stops"))));
    // ?tour=2: that stop; ?present: the tour from its first stop.
    let mut m = Model::new();
    run(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?scenario=fallback-steal&tour=2",
            "",
        ))),
    );
    assert_eq!(m.tour_stop, Some(1));
    assert_eq!(pos(&m), tour::positions(&m)[1]);
    let mut m = Model::new();
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?scenario=fallback-steal&present",
            "",
        ))),
    );
    assert!(matches!(fx[..], [Effect::Presenter { on: true, .. }]));
    assert_eq!(m.tour_stop, Some(0));
}

#[test]
fn a_typo_in_exercises_says_did_you_mean() {
    let mut m = Model::new();
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse("?exercises=split-and-merg", ""))),
    );
    assert!(fx.is_empty());
    let banner = m.exercises.banner.clone().expect("a banner");
    assert!(banner.contains("no exercise set"), "{banner}");
    assert!(
        banner.contains("Did you mean \u{201c}split-and-merge\u{201d}"),
        "{banner}"
    );
    assert!(m.exercises.error.is_some());
    assert!(m.exercises.set.is_none());
    run(&mut m, Command::Exercise(ExerciseCommand::DismissBanner));
    assert_eq!(m.exercises.banner, None);
    // An address is fetched.
    let mut m = Model::new();
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse("?exercises=sets%2Fmine.json", ""))),
    );
    assert!(matches!(&fx[..], [Effect::FetchSet(u)] if u == "sets/mine.json"));
    assert_eq!(
        m.exercises.loading.as_deref(),
        Some("Fetching sets/mine.json\u{2026}")
    );
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::Fetched {
            url: "sets/mine.json".to_string(),
            result: Err("HTTP 404".to_string()),
        }),
    );
    assert_eq!(m.exercises.loading, None);
    assert!(m
        .exercises
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("HTTP 404")));
}

#[test]
fn the_presenter_part_of_the_address_applies_after_the_set_it_opens() {
    let mut m = Model::new();
    let fx = update(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?exercises=split-and-merge&present",
            "",
        ))),
    );
    // The set is resolved by the shell first: nothing of the presenter yet.
    assert!(matches!(&fx[..], [Effect::OpenSet { source, .. }] if source == "split-and-merge"));
    let Effect::OpenSet { text, source } = &fx[0] else {
        unreachable!()
    };
    let set = crate::exercise::OpenSet::open(text, source).map(Box::new);
    let fx = run(&mut m, Command::Exercise(ExerciseCommand::Opened(set)));
    assert!(m.exercises.set.is_some());
    let question_text = m.main().text.clone();
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Presenter { on: true, .. })));
    assert_eq!(
        m.main().text,
        question_text,
        "presenter mode on the question's scenario"
    );
    // A set that does not open still lets the rest of the address apply.
    let mut m = Model::new();
    update(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?exercises=split-and-merge&tour=1",
            "",
        ))),
    );
    let fx = run(
        &mut m,
        Command::Exercise(ExerciseCommand::Opened(Err(ScenarioError::new(
            "", "no", "",
        )))),
    );
    assert!(m.exercises.error.is_some());
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Presenter { on: true, .. })));
}

/// The answer key's answer to the current question, as commands.
fn answer_right(m: &mut Model) {
    let i = m.exercises.current().unwrap();
    let (_, q) = m.exercises.set.as_ref().unwrap().question(i).unwrap();
    let cmd = match &q.expected {
        Expected::Choice { correct, .. } => Command::Exercise(ExerciseCommand::Choose(*correct)),
        Expected::Number(n) => Command::Exercise(ExerciseCommand::Number(n.to_string())),
        Expected::Page { first, .. } => {
            Command::Exercise(ExerciseCommand::Pfn(format!("{first:#x}")))
        }
        Expected::List { order, mt } => Command::ClickList {
            order: *order,
            mt: *mt,
        },
    };
    run(m, cmd);
}

#[test]
fn an_exercise_is_asked_answered_judged_and_revealed() {
    let mut m = Model::new();
    m.saved.enabled = true;
    let fx = run(
        &mut m,
        Command::Open(Box::new(Route::parse("?exercises=split-and-merge", ""))),
    );
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Focus(Focus::ExercisePanel))));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Store { .. })),
        "progress saved"
    );
    let set = m.exercises.set.as_ref().expect("open");
    let (_, q) = set.question(0).unwrap();
    let (asked_at, reveal_to) = (q.asked_at, q.reveal_to);
    assert_eq!(m.exercises.current(), Some(0));
    assert_eq!(m.exercises.phase, Phase::Asking);
    assert_eq!(pos(&m), asked_at);
    assert!(m.exercises.asking().is_some());

    // No answer yet: a note says what to do.
    run(&mut m, Command::Exercise(ExerciseCommand::Submit));
    assert!(m.exercises.note.is_some());
    assert_eq!(m.exercises.phase, Phase::Asking);

    answer_right(&mut m);
    let fx = run(&mut m, Command::Exercise(ExerciseCommand::Submit));
    assert_eq!(m.exercises.note, None);
    let answered = m.exercises.progress.as_ref().unwrap().answers[0].clone();
    assert!(answered.is_some_and(|a| a.correct));
    assert!(fx.iter().any(|e| matches!(e, Effect::Store {
        write: StoreWrite::Put { key, .. }, ..
    } if key == &crate::saved::progress_key("split-and-merge"))));
    if reveal_to > asked_at {
        assert_eq!(m.exercises.phase, Phase::Revealing);
        assert!(fx
            .iter()
            .any(|e| matches!(e, Effect::Reveal { ms } if *ms > 0.0)));
        run(&mut m, Command::Exercise(ExerciseCommand::RevealFrame(0.5)));
        // Visible steps, as playback takes them.
        assert!(pos(&m) > asked_at);
        assert_eq!(m.exercises.phase, Phase::Revealing);
        let fx = run(&mut m, Command::Exercise(ExerciseCommand::RevealFrame(1.0)));
        assert!(fx.iter().any(|e| matches!(e, Effect::StopReveal)));
        assert!(fx.iter().any(|e| matches!(e, Effect::Focus(Focus::Result))));
    }
    assert_eq!(m.exercises.phase, Phase::Revealed);
    assert_eq!(pos(&m), reveal_to);
    // A later frame of a finished reveal does nothing.
    run(&mut m, Command::Exercise(ExerciseCommand::RevealFrame(1.0)));
    assert_eq!(pos(&m), reveal_to);

    // The next question, by its button: the focus moves to it.
    let fx = run(&mut m, Command::Exercise(ExerciseCommand::GoFocus(1)));
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Focus(Focus::Question))));
    assert_eq!(m.exercises.current(), Some(1));
    // Back to the answered one: at its reveal.
    run(&mut m, Command::Exercise(ExerciseCommand::GoFocus(0)));
    assert_eq!(m.exercises.phase, Phase::Revealed);
    assert_eq!(pos(&m), reveal_to);

    run(&mut m, Command::Exercise(ExerciseCommand::Close));
    assert!(m.exercises.set.is_none());
    assert!(m.exercises.progress.is_none());
}

#[test]
fn the_skip_button_ends_a_reveal_at_its_end() {
    let mut m = Model::new();
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::OpenBuiltin("split-and-merge".into())),
    );
    // The first question whose reveal plays some events.
    let n = m.exercises.set.as_ref().unwrap().len();
    let i = (0..n)
        .find(|&i| {
            let (_, q) = m.exercises.set.as_ref().unwrap().question(i).unwrap();
            q.reveal_to > q.asked_at
        })
        .expect("a question with a step to play");
    run(&mut m, Command::Exercise(ExerciseCommand::GoFocus(i)));
    answer_right(&mut m);
    run(&mut m, Command::Exercise(ExerciseCommand::Submit));
    assert_eq!(m.exercises.phase, Phase::Revealing);
    let fx = run(&mut m, Command::Exercise(ExerciseCommand::FinishReveal));
    assert!(fx.iter().any(|e| matches!(e, Effect::StopReveal)));
    assert_eq!(m.exercises.phase, Phase::Revealed);
    let (_, q) = m.exercises.set.as_ref().unwrap().question(i).unwrap();
    assert_eq!(pos(&m), q.reveal_to);
}

#[test]
fn clicks_answer_exercise_questions_and_otherwise_pick_a_page() {
    let mut m = showing("fallback-claim");
    run(
        &mut m,
        Command::ClickPage {
            slot: Slot::Main,
            page: 17,
        },
    );
    assert_eq!(m.selected_page, Some(17));
    run(&mut m, Command::SelectPage(None));
    assert_eq!(m.selected_page, None);
    // A list click outside exercise mode does nothing.
    run(
        &mut m,
        Command::ClickList {
            order: 3,
            mt: MigrateType::Movable,
        },
    );
    assert_eq!(m.exercises.pending, None);

    // split-and-merge asks a list, then a page.
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::OpenBuiltin("split-and-merge".into())),
    );
    assert_eq!(
        m.exercises.asking(),
        Some(buddyscope::explain::exercises::AnswerKind::List)
    );
    run(
        &mut m,
        Command::ClickList {
            order: 10,
            mt: MigrateType::Movable,
        },
    );
    assert_eq!(
        m.exercises.pending,
        Some(Answer::List {
            order: 10,
            mt: MigrateType::Movable
        })
    );
    run(&mut m, Command::Exercise(ExerciseCommand::GoFocus(1)));
    assert_eq!(
        m.exercises.asking(),
        Some(buddyscope::explain::exercises::AnswerKind::Page)
    );
    let start = m.main().timeline.zone().abs_pfn(0);
    run(
        &mut m,
        Command::ClickPage {
            slot: Slot::Main,
            page: 5,
        },
    );
    assert_eq!(m.exercises.pending, Some(Answer::Page(start + 5)));
    assert_eq!(m.exercises.pfn, format!("{:#x}", start + 5));
    assert_eq!(
        m.selected_page, None,
        "the click answered, it picked no page"
    );
    // Typing a pfn replaces the click.
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::Pfn("0x10".into())),
    );
    assert_eq!(m.exercises.pending, None);
    assert_eq!(m.exercises.pfn, "0x10");
}

#[test]
fn a_set_from_a_file_opens_and_a_broken_one_keeps_the_open_set() {
    let mut m = Model::new();
    let text = buddyscope::explain::exercises::builtin_sets()[0].json();
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::Fetched {
            url: "https://h/set.json".into(),
            result: Ok(text.to_string()),
        }),
    );
    let rev = m.exercises.rev;
    assert!(m
        .exercises
        .set
        .as_ref()
        .is_some_and(|s| s.source == "https://h/set.json"));
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::OpenText {
            text: "{\"id\": 1}".into(),
            source: "bad.json".into(),
        }),
    );
    assert!(m.exercises.error.is_some());
    assert_eq!(m.exercises.rev, rev, "the open set stays");
    // Opening a set leaves compare mode (exercises run in the single view).
    let mut m = showing("fallback-steal");
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::OpenText {
            text: text.to_string(),
            source: "file.json".into(),
        }),
    );
    assert!(!m.comparing());
    assert!(m.exercises.set.is_some());
    run(
        &mut m,
        Command::Exercise(ExerciseCommand::Number("12".into())),
    );
    assert_eq!(m.exercises.number, "12");
}

#[test]
fn stepping_stops_playback_and_playback_stops_at_the_end() {
    let mut m = showing("fallback-claim");
    let len = m.main().timeline.len();
    for cmd in [
        Command::StepForward,
        Command::OpForward,
        Command::StepBack,
        Command::OpBack,
        Command::JumpEnd,
        Command::JumpStart,
        Command::Seek(5),
    ] {
        m.playing = true;
        run(&mut m, cmd);
        assert!(!m.playing);
    }
    assert_eq!(pos(&m), 5);
    run(&mut m, Command::JumpEnd);
    assert_eq!(pos(&m), len);
    // Play from the end starts over.
    run(&mut m, Command::Play);
    assert!(m.playing);
    assert_eq!(pos(&m), 0);
    run(&mut m, Command::Advance(3));
    assert!(m.playing);
    assert!(pos(&m) > 0);
    run(&mut m, Command::TogglePlay);
    assert!(!m.playing);
    run(&mut m, Command::TogglePlay);
    assert!(m.playing);
    run(&mut m, Command::Advance(u32::MAX));
    assert_eq!(pos(&m), len);
    assert!(!m.playing, "playback stops at the end");
    run(&mut m, Command::Play);
    run(&mut m, Command::Pause);
    assert!(!m.playing);
}

#[test]
fn compare_mode_turns_on_and_off_at_the_same_op_and_steps_both_sides() {
    let mut m = showing("cma-frozen-range");
    run(&mut m, Command::OpForward);
    run(&mut m, Command::OpForward);
    let base = m.main().id;
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    let p = m.pair().unwrap();
    assert_eq!((p.a.timeline.ops_done(), p.b.timeline.ops_done()), (2, 2));
    assert_eq!(m.main().id, base, "the single run stays under the pair");
    // Steps move both sides by the lockstep rule.
    let (a0, b0) = side_pos(&m);
    run(&mut m, Command::StepForward);
    let (a1, b1) = side_pos(&m);
    assert!(a1 > a0 || b1 > b0);
    run(&mut m, Command::OpForward);
    let p = m.pair().unwrap();
    assert_eq!((p.a.timeline.ops_done(), p.b.timeline.ops_done()), (3, 3));
    // Playback moves both sides too.
    run(&mut m, Command::Play);
    run(&mut m, Command::Advance(2));
    assert_ne!(side_pos(&m), (p_a_end(&m), 0));
    // A seek moves the single run under the pair, not the sides.
    let sides = side_pos(&m);
    run(&mut m, Command::Seek(1));
    assert_eq!(side_pos(&m), sides);
    assert_eq!(pos(&m), 1);
    // Off: the single view at the op both sides had finished.
    let k = {
        let p = m.pair().unwrap();
        p.a.timeline.ops_done().min(p.b.timeline.ops_done())
    };
    run(&mut m, Command::SetCompare(None));
    assert!(!m.comparing());
    assert_eq!(m.main().id, base);
    assert_eq!(m.main().timeline.ops_done(), k);
    assert_eq!(pos(&m), m.main().timeline.run.ops[k - 1].end);
}

/// Side A's end (a position no step reaches from the start in two events).
fn p_a_end(m: &Model) -> u32 {
    m.pair().unwrap().a.timeline.len()
}

#[test]
fn a_side_changes_its_kernel_at_the_same_op_and_a_new_scenario_keeps_compare_mode() {
    let mut m = showing("fallback-steal");
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    run(&mut m, Command::OpForward);
    run(&mut m, Command::OpForward);
    run(
        &mut m,
        Command::ChangeSide {
            side: Side::B,
            change: SideChange::Kernel(Kernel::V7_1),
        },
    );
    let p = m.pair().unwrap();
    assert_eq!(p.config.b.kernel, Some(Kernel::V7_1));
    assert!(p.config.b.label.starts_with("v7.1"), "{}", p.config.b.label);
    assert_eq!((p.a.timeline.ops_done(), p.b.timeline.ops_done()), (2, 2));
    run(
        &mut m,
        Command::ChangeSide {
            side: Side::A,
            change: SideChange::ModeMemory(false),
        },
    );
    assert_eq!(m.pair().unwrap().config.a.rmqueue_mode_memory, Some(false));
    // Another scenario: compare mode stays, with that scenario's own pair, at its start.
    run(&mut m, Command::LoadBuiltin("cma-frozen-range".into()));
    assert_eq!(m.compare(), Some(&m.default_pair()));
    assert_eq!(side_pos(&m), (0, 0));
}

#[test]
fn a_tour_stop_moves_both_compare_sides_and_its_caption_never_outlives_it() {
    let mut m = showing("fallback-steal");
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    let stops = m.main().scenario.tour.clone();
    for (i, stop) in stops.iter().enumerate() {
        run(&mut m, Command::TourGo(i));
        let p = m.pair().unwrap();
        let (k, e) = (stop.op as usize, stop.event.unwrap_or(0));
        assert!(lockstep::at_stop(&p.a.timeline, &p.b.timeline, k, e));
        assert_eq!(
            lockstep::progress(&p.a.timeline).op,
            lockstep::progress(&p.b.timeline).op
        );
        assert_eq!(tour::here(&m), Some(i));
    }
    // Moved off: the caption goes, the stop stays active; PageUp goes back to it.
    run(&mut m, Command::StepBack);
    assert_eq!(tour::here(&m), None);
    assert_eq!(m.tour_stop, Some(stops.len() - 1));
    run(&mut m, Command::TourPrev);
    assert_eq!(tour::here(&m), Some(stops.len() - 1));
    run(&mut m, Command::TourPrev);
    assert_eq!(m.tour_stop, Some(stops.len() - 2));
    // Next stays at the last stop.
    for _ in 0..stops.len() + 2 {
        run(&mut m, Command::TourNext);
    }
    assert_eq!(m.tour_stop, Some(stops.len() - 1));
    // Compare mode off at a stop: the stop stays on screen in the single view.
    run(&mut m, Command::SetCompare(None));
    assert_eq!(tour::here(&m), Some(stops.len() - 1));
    assert_eq!(pos(&m), tour::positions(&m)[stops.len() - 1]);
    run(&mut m, Command::TourEnd);
    assert_eq!(m.tour_stop, None);
    assert_eq!(tour::here(&m), None);
}

#[test]
fn presenter_mode_starts_and_ends_the_tour() {
    let mut m = showing("fallback-steal");
    run(&mut m, Command::Present(true));
    assert_eq!(m.tour_stop, Some(0));
    run(&mut m, Command::TourNext);
    // Already touring: presenter on again keeps the stop.
    run(&mut m, Command::Present(true));
    assert_eq!(m.tour_stop, Some(1));
    m.tour_notice = Some("x".into());
    run(&mut m, Command::Present(false));
    assert_eq!(m.tour_stop, None);
    assert_eq!(m.tour_notice, None);
    // No tour: nothing starts.
    let mut m = showing("fallback-claim");
    m.main_mut().scenario.tour.clear();
    let no_tour = m.main().timeline.run.scenario.tour.is_empty();
    run(&mut m, Command::Present(true));
    assert_eq!(m.tour_stop.is_none(), no_tour);
}

#[test]
fn a_zone_tab_shows_a_zone_in_its_own_slot() {
    let mut m = showing("dma32-machine");
    run(
        &mut m,
        Command::ShowZone {
            slot: Slot::Main,
            zone: 0,
        },
    );
    assert_eq!(m.main().timeline.view_zone(), Some(0));
    let pair = m.default_pair();
    run(&mut m, Command::SetCompare(Some(pair)));
    run(
        &mut m,
        Command::ShowZone {
            slot: Slot::Side(Side::A),
            zone: 1,
        },
    );
    let p = m.pair().unwrap();
    assert_eq!(p.a.timeline.view_zone(), Some(1));
    assert_eq!(p.b.timeline.view_zone(), None);
    // A side outside compare mode is no slot.
    run(&mut m, Command::SetCompare(None));
    assert!(m.session(Slot::Side(Side::A)).is_none());
    run(
        &mut m,
        Command::ShowZone {
            slot: Slot::Side(Side::A),
            zone: 1,
        },
    );
}

/// What the shell does with [`Effect::StartReplay`], natively: the trace replayed from the
/// effect's scenario, its result (or its error) back as the worker's message.
fn replay_in_worker(m: &mut Model, fx: Vec<Effect>, trace: &str) -> Vec<Effect> {
    let mut rest = Vec::new();
    for e in fx {
        match e {
            Effect::StartReplay {
                job,
                file,
                valid,
                profile,
            } => {
                let cmd = match session::replay_trace(
                    &valid,
                    profile,
                    &file,
                    &mut || trace.as_bytes(),
                    &mut |_| {},
                ) {
                    Ok((run, info)) => Command::WorkerDone {
                        job,
                        session: Box::new(Session::from_replay(run, info)),
                        handover: Handover {
                            bytes: 1000,
                            tasks: 5,
                        },
                    },
                    Err(e) => Command::WorkerFailed {
                        job,
                        message: format!("{file}: {e}"),
                    },
                };
                rest.extend(run(m, cmd));
            }
            e => rest.push(e),
        }
    }
    rest
}

/// A trace file replays in the worker (its progress in the status strip) and replaces the run
/// when it is in; a bad one names its line there and the last good run stays; Cancel keeps the
/// run too.
#[test]
fn a_replayed_trace_replaces_the_run_and_a_bad_one_names_the_line() {
    let mut m = model();
    run(&mut m, Command::TraceStart(TraceStart::Boot));
    assert_eq!(m.trace_start, TraceStart::Boot);
    let trace = "           <...>-1     [000] .....     1.000000: mm_page_alloc: page=0x1 pfn=0x1000 order=0 migratetype=1 gfp_flags=GFP_KERNEL\n";
    let id = m.main().id;
    let fx = run(
        &mut m,
        Command::ReplayFile {
            name: "t.txt".into(),
            bytes: trace.len() as u64,
        },
    );
    let Some(Effect::StartReplay { job, valid, .. }) = fx.first() else {
        panic!("no replay started")
    };
    let job = *job;
    assert_eq!(valid.name, "Replay of t.txt");
    assert!(
        matches!(&m.run_status, RunStatus::Replaying { name, total, .. } if name == "t.txt" && *total == trace.len() as u64)
    );
    run(
        &mut m,
        Command::ReplayProgress {
            job,
            pass: 1,
            bytes: 10,
            total: trace.len() as u64,
            lines: 1,
            events: 1,
        },
    );
    assert!(matches!(
        m.run_status,
        RunStatus::Replaying {
            bytes: 10,
            lines: 1,
            events: 1,
            ..
        }
    ));
    assert_eq!(m.main().id, id, "the run stays until the replay is in");
    replay_in_worker(&mut m, fx, trace);
    assert_ne!(m.main().id, id);
    assert_eq!(m.run_status, RunStatus::Idle);
    assert_eq!(m.scenario_id, "custom");
    assert!(m.main().replay.is_some());
    assert_eq!(m.last_entry(), None, "a replay's text is not the run");

    let id = m.main().id;
    let bad = "  a-1  [000] .....  1.0: mm_page_alloc: page=0x0 pfn=0xzz order=0 migratetype=0 gfp_flags=GFP_KERNEL\n";
    let fx = run(
        &mut m,
        Command::ReplayFile {
            name: "bad.txt".into(),
            bytes: 9,
        },
    );
    replay_in_worker(&mut m, fx, bad);
    assert_eq!(m.main().id, id);
    assert_eq!(m.run_status, RunStatus::Idle);
    let err = m.trace_error.clone().unwrap();
    assert!(err.starts_with("bad.txt: line 1"), "{err}");

    // Cancelled: the worker is stopped, the run stays, its late messages are ignored.
    let fx = run(
        &mut m,
        Command::ReplayFile {
            name: "t.txt".into(),
            bytes: 9,
        },
    );
    assert_eq!(m.trace_error, None);
    let fx2 = run(&mut m, Command::Cancel);
    assert!(matches!(fx2[..], [Effect::CancelWorker]));
    assert_eq!(m.run_status, RunStatus::Idle);
    replay_in_worker(&mut m, fx, trace);
    assert_eq!(m.main().id, id);

    // A start-state file asked for but none open.
    run(&mut m, Command::TraceStart(TraceStart::File));
    let fx = run(
        &mut m,
        Command::ReplayFile {
            name: "t.txt".into(),
            bytes: 9,
        },
    );
    assert!(fx.is_empty());
    assert!(m
        .trace_error
        .as_deref()
        .unwrap()
        .contains("no start-state file is open"));
}

/// A start-state file and a chosen profile reach the replay; M and Shift+M move between the
/// replay's prediction misses, stopping at the first and the last.
#[test]
fn a_start_state_file_a_profile_and_the_misses() {
    let mut m = model();
    run(&mut m, Command::TraceStartFile(Err("s.json: bad".into())));
    assert_eq!(m.trace_start, TraceStart::Scenario);
    assert_eq!(m.trace_error.as_deref(), Some("s.json: bad"));
    let (trace, start) = crate::panels::replay::tests::lab_capture("7.3.4", "idle");
    run(
        &mut m,
        Command::TraceStartFile(Ok(("snapshot-before.json".into(), Box::new(start.clone())))),
    );
    assert_eq!(m.trace_start, TraceStart::File);
    assert_eq!(m.trace_error, None);
    run(&mut m, Command::TraceProfile(Some(Kernel::V7_2)));
    assert_eq!(m.trace_profile, Some(Kernel::V7_2));
    let fx = run(
        &mut m,
        Command::ReplayFile {
            name: "trace.txt".into(),
            bytes: trace.len() as u64,
        },
    );
    replay_in_worker(&mut m, fx, &trace);
    assert_eq!(m.main().scenario.kernel, Kernel::V7_2);
    assert_eq!(
        m.main().replay.as_ref().unwrap().profile,
        "Profile v7.2, as chosen — but the snapshot says 7.3.4+deb13-amd64, which is profile v7.3"
    );
    let at: Vec<u32> = m
        .main()
        .replay
        .as_ref()
        .unwrap()
        .miss_positions
        .iter()
        .map(|p| p.0)
        .collect();
    assert!(at.len() >= 2, "{at:?}");
    run(&mut m, Command::PrevMiss);
    assert_eq!(m.main().timeline.pos(), 0, "no miss before the start");
    run(&mut m, Command::NextMiss);
    assert_eq!(m.main().timeline.pos(), at[0]);
    run(&mut m, Command::NextMiss);
    assert_eq!(m.main().timeline.pos(), at[1]);
    run(&mut m, Command::PrevMiss);
    assert_eq!(m.main().timeline.pos(), at[0]);
    run(&mut m, Command::JumpEnd);
    let end = m.main().timeline.pos();
    run(&mut m, Command::NextMiss);
    assert_eq!(m.main().timeline.pos(), end, "no miss after the end");
    run(&mut m, Command::PrevMiss);
    assert_eq!(m.main().timeline.pos(), *at.last().unwrap());
}

#[test]
fn a_proc_import_that_does_not_load_leaves_the_editor_alone() {
    let mut m = model();
    let editor = m.editor_text.clone();
    run(
        &mut m,
        Command::Import {
            text: "{\"version\": 1, \"zone\": {\"pages\": 3}}".into(),
        },
    );
    assert!(m.import_error.is_some());
    assert_eq!(m.editor_text, editor);
    assert_eq!(m.error, None);
    run(
        &mut m,
        Command::Import {
            text: builtin("fallback-claim").into(),
        },
    );
    assert_eq!(m.import_error, None);
    assert_eq!(m.scenario_id, "custom");
}

fn listed(key: &str, entry: Entry) -> Listed {
    Listed {
        key: key.to_string(),
        entry,
    }
}

#[test]
fn saved_work_lists_saves_opens_and_deletes() {
    let mut m = showing("fallback-claim");
    run(&mut m, Command::Seek(9));
    let fx = run(
        &mut m,
        Command::Saved(SavedCommand::SaveScenario {
            name: "  ".into(),
            stamp: 42,
        }),
    );
    let [Effect::Store {
        write: StoreWrite::Put { key, entry },
        status: Some(status),
    }] = &fx[..]
    else {
        panic!("one write")
    };
    assert_eq!(key, &crate::saved::scenario_key(42));
    assert_eq!(
        entry.name,
        m.main().scenario.name,
        "the scenario's name when none is typed"
    );
    assert!(matches!(&entry.data, Saved::Scenario { pos: 9, id, .. } if id == "fallback-claim"));
    assert!(status.starts_with("Saved"));
    // The shell wrote it and read the store again.
    let last = Entry::new(
        "last",
        "",
        Saved::Last {
            text: builtin("fallback-steal").into(),
            id: "fallback-steal".into(),
            pos: 3,
            exercises: None,
        },
    );
    run(
        &mut m,
        Command::Saved(SavedCommand::Listing {
            entries: vec![listed(key, entry.clone()), listed(LAST_KEY, last)],
            errors: vec!["damaged".into()],
            status: Some(status.clone()),
        }),
    );
    assert!(m.saved.enabled);
    assert_eq!(m.saved.entries.len(), 1, "the last position is apart");
    assert!(m.saved.last.is_some());
    assert_eq!(m.saved.errors, ["damaged"]);
    assert_eq!(m.saved.status, *status);
    run(&mut m, Command::Saved(SavedCommand::DismissErrors));
    assert!(m.saved.errors.is_empty());
    run(
        &mut m,
        Command::Saved(SavedCommand::Refused { name: "big".into() }),
    );
    assert!(m.saved.errors[0].contains("Could not save \u{201c}big\u{201d}"));

    // Opened: at its position.
    run(&mut m, Command::LoadBuiltin("fallback-steal".into()));
    run(&mut m, Command::Saved(SavedCommand::Open(key.clone())));
    assert_eq!(m.scenario_id, "fallback-claim");
    assert_eq!(pos(&m), 9);
    assert!(m.saved.status.starts_with("Opened"));
    let fx = run(&mut m, Command::Saved(SavedCommand::Delete(key.clone())));
    assert!(matches!(&fx[..], [Effect::Store {
        write: StoreWrite::Remove { key: k },
        status: Some(s),
    }] if k == key && s.contains("Deleted")));
}

#[test]
fn a_plain_address_reopens_the_last_position_and_the_open_set() {
    let text = builtin("fallback-steal");
    let set = buddyscope::explain::exercises::builtin_sets()
        .iter()
        .find(|b| b.id == "split-and-merge")
        .unwrap();
    let mut answers = vec![None; 2];
    answers.resize(
        crate::exercise::OpenSet::open(set.json(), set.id)
            .unwrap()
            .len(),
        None,
    );
    let progress = crate::saved::Progress {
        set_id: set.id.into(),
        set_text: set.json().into(),
        answers,
        current: 1,
    };
    let entries = vec![
        listed(
            LAST_KEY,
            Entry::new(
                "last",
                "",
                Saved::Last {
                    text: text.into(),
                    id: "fallback-steal".into(),
                    pos: 30,
                    exercises: None,
                },
            ),
        ),
        listed(
            &crate::saved::progress_key(set.id),
            Entry::new("Split and merge", "", Saved::Progress(progress)),
        ),
    ];
    let mut m = Model::new();
    run(
        &mut m,
        Command::Saved(SavedCommand::Listing {
            entries: entries.clone(),
            errors: Vec::new(),
            status: None,
        }),
    );
    run(&mut m, Command::Open(Box::default()));
    assert_eq!(m.scenario_id, "fallback-steal");
    assert_eq!(pos(&m), 30);
    assert!(m.exercises.set.is_none());

    // With the set that was open: it reopens at its saved question.
    let mut entries = entries;
    if let Saved::Last { exercises, .. } = &mut entries[0].entry.data {
        *exercises = Some(crate::saved::progress_key(set.id));
    }
    let mut m = Model::new();
    run(
        &mut m,
        Command::Saved(SavedCommand::Listing {
            entries: entries.clone(),
            errors: Vec::new(),
            status: None,
        }),
    );
    run(&mut m, Command::Open(Box::default()));
    assert!(m.exercises.set.is_some());
    assert_eq!(m.exercises.current(), Some(1));
    assert!(m.last_entry().is_some_and(|e| matches!(
        e.data,
        Saved::Last {
            exercises: Some(_),
            ..
        }
    )));

    // An address that asks for something does not reopen it; an embedded view neither
    // opens exercises nor a tour.
    let mut m = Model::new();
    run(
        &mut m,
        Command::Saved(SavedCommand::Listing {
            entries,
            errors: Vec::new(),
            status: None,
        }),
    );
    run(
        &mut m,
        Command::Open(Box::new(Route::parse(
            "?embed=1&exercises=split-and-merge&tour=2",
            "",
        ))),
    );
    assert_eq!(m.scenario_id, builtin::default().id);
    assert!(m.exercises.set.is_none());
    assert_eq!(m.tour_stop, None);
}
