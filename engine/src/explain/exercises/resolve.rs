//! Answers from the run: each [`Ask`] reads the events from the question's position to the end
//! of the next op, the events the reveal plays. Nothing here is typed by an exercise's author.

use std::collections::HashMap;

use super::set::Ask;
use super::set::{
    AnswerKind, Exercise, ExerciseSet, Expected, ExplainLine, Question, ResolvedExercise,
    ResolvedQuestion, ScenarioSource, MAX_EXPLAIN_LINES,
};
use crate::explain::narrate::{narrate, Ctx};
use crate::explain::pseudocode::{self, Step};
use crate::mm::KernelFn;
use crate::mm::{to_abs_pfn, NR_PAGE_ORDERS, PAGEBLOCK_NR_PAGES};
use crate::mm::{
    Annotation, CompactResult, CounterId, DeferPoint, Event, EventKind, Mutation, Tracepoint,
};
use crate::run::{op_at, Run, RunOptions, Runner};
use crate::scenario::{self, Op, Scenario, ScenarioError, ValidScenario};

type Res<T> = Result<T, ScenarioError>;

/// The run options of an exercise: the event log is what answers are read from; no rewind
/// checkpoints are needed (the app builds its own timeline).
fn run_options() -> RunOptions {
    RunOptions {
        record: true,
        checkpoint_budget: 0,
        max_ops: None,
    }
}

/// The scenario an exercise runs (a built-in's text parsed, or the inline one).
pub fn exercise_scenario(ex: &Exercise) -> Scenario {
    match &ex.scenario {
        ScenarioSource::Builtin(id) => {
            let b = crate::scenario::builtin::get(id).expect("parse_exercise_set checked the id");
            scenario::parse(b.json()).expect("every built-in scenario is valid")
        }
        ScenarioSource::Inline(s) => (**s).clone(),
    }
}

/// Runs exercise `index` of a set (`ValidScenario::new` → `Runner`).
fn run_exercise(ex: &Exercise, index: usize) -> Res<Run> {
    let valid = ValidScenario::new(exercise_scenario(ex)).map_err(|e| at_scenario(e, index))?;
    Runner::new(valid).options(&run_options()).run()
}

fn at_scenario(mut e: ScenarioError, index: usize) -> ScenarioError {
    let p = format!("exercises[{index}].scenario");
    e.path = if e.path.is_empty() {
        p
    } else {
        format!("{p}.{}", e.path)
    };
    e
}

/// Runs every exercise's scenario and computes every answer; refuses a position beyond its run
/// or an ask that does not apply there, naming the question's path. A built-in used by several
/// exercises runs once.
pub fn resolve(set: &ExerciseSet) -> Result<Vec<ResolvedExercise>, ScenarioError> {
    let mut runs: HashMap<String, Run> = HashMap::new();
    let mut out = Vec::with_capacity(set.exercises.len());
    for (i, ex) in set.exercises.iter().enumerate() {
        let owned;
        let run = match &ex.scenario {
            ScenarioSource::Builtin(id) => {
                if !runs.contains_key(id) {
                    runs.insert(id.clone(), run_exercise(ex, i)?);
                }
                &runs[id]
            }
            ScenarioSource::Inline(_) => {
                owned = run_exercise(ex, i)?;
                &owned
            }
        };
        out.push(resolved_exercise(ex, i, run)?);
    }
    Ok(out)
}

fn resolved_exercise(ex: &Exercise, index: usize, run: &Run) -> Res<ResolvedExercise> {
    Ok(ResolvedExercise {
        title: ex.title.clone(),
        intro: ex.intro.clone(),
        builtin: match &ex.scenario {
            ScenarioSource::Builtin(id) => Some(id.clone()),
            ScenarioSource::Inline(_) => None,
        },
        scenario: run.scenario.scenario().clone(),
        ops: run.ops.len(),
        events: run.log.events.len() as u32,
        questions: resolve_questions(ex, index, run)?,
    })
}

/// The questions of exercise `index` answered from `run`, a run of [`exercise_scenario`] (the
/// app may pass the run it steps through; it must have recorded its events).
pub fn resolve_questions(ex: &Exercise, index: usize, run: &Run) -> Res<Vec<ResolvedQuestion>> {
    ex.questions
        .iter()
        .enumerate()
        .map(|(j, q)| resolve_question(q, &format!("exercises[{index}].questions[{j}]"), j, run))
        .collect()
}

/// Every ask that applies after `op` executed ops of `run` (a recorded run), with the engine's
/// answer: an authoring aid, so a teacher sees which questions a position allows before writing
/// them (`buddyscope exercise-asks`). Empty past the last op.
pub fn asks_at(run: &Run, op: u32) -> Vec<ResolvedQuestion> {
    Ask::ALL
        .iter()
        .filter_map(|&ask| {
            let q = Question {
                op,
                event: None,
                ask,
                prompt: None,
                labels: Default::default(),
                choices: None,
            };
            resolve_question(&q, &format!("op {op}"), 0, run).ok()
        })
        .collect()
}

/// The events a question looks at: `[asked_at, reveal_to)`, and the op's index.
struct Window {
    asked_at: u32,
    reveal_to: u32,
    /// Index into `run.ops` of the op the question is about (op `q.op + 1`).
    op: usize,
}

fn window(q: &Question, path: &str, j: usize, run: &Run) -> Res<Window> {
    let ops = &run.ops;
    let k = q.op as usize;
    if k >= ops.len() {
        let (msg, hint) = if ops.is_empty() {
            (
                "the run has 0 ops".to_string(),
                "add ops to the scenario".to_string(),
            )
        } else {
            (
                format!(
                    "question {} is asked after op {k}, but the run has {} ops, so no op follows",
                    j + 1,
                    ops.len()
                ),
                format!("use 0..={}", ops.len() - 1),
            )
        };
        return Err(ScenarioError::new(format!("{path}.op"), msg, hint));
    }
    let base = if k == 0 { 0 } else { ops[k - 1].end };
    let e = q.event.unwrap_or(0);
    let room = ops[k].end - base;
    if e > 0 && e >= room {
        return Err(ScenarioError::new(
            format!("{path}.event"),
            format!(
                "op {} has {room} events, event {e} is at or beyond its end",
                k + 1
            ),
            format!("use 0..={}, or a later op", room.saturating_sub(1)),
        ));
    }
    Ok(Window {
        asked_at: base + e,
        reveal_to: ops[k].end,
        op: k,
    })
}

/// The op the app's position readout names at event index `pos`, 1-based ([`op_at`]); 0 at the
/// start, before any event.
fn asked_in_op(run: &Run, pos: u32) -> u32 {
    match op_at(&run.ops, pos) {
        Some(i) if pos > 0 => i as u32 + 1,
        _ => 0,
    }
}

/// What an ask found: the answer, its words, a sentence, and the revealing events.
struct Found {
    expected: Expected,
    answer_text: String,
    summary: String,
    events: Vec<u32>,
}

fn resolve_question(q: &Question, path: &str, j: usize, run: &Run) -> Res<ResolvedQuestion> {
    let w = window(q, path, j, run)?;
    let rec = &run.ops[w.op];
    let next_op = run.op_defs[rec.def as usize].summary.clone();
    let found = find(q.ask, run, &w).ok_or_else(|| {
        let at = match q.event {
            Some(e) if e > 0 => format!("op {}, event {e}", q.op),
            _ => format!("op {}", q.op),
        };
        ScenarioError::new(
            format!("{path}.ask"),
            format!(
                "{} at {at}, but op {} ({next_op}) {}",
                q.ask.name(),
                w.op + 1,
                q.ask.needs()
            ),
            "ask it at another position, or ask something that happens there",
        )
    })?;
    let expected = present(q, path, found.expected, &found.answer_text)?;
    // A choice ask's answer in words is the label the student sees.
    let answer_text = match &expected {
        Expected::Choice { labels, correct } if q.ask.kind() == AnswerKind::Choice => {
            labels[*correct].clone()
        }
        _ => found.answer_text,
    };
    let (explanation, explanation_more) = explain(run, &found.events);
    Ok(ResolvedQuestion {
        path: path.to_string(),
        op: q.op,
        event: q.event.unwrap_or(0),
        ask: q.ask,
        prompt: q
            .prompt
            .clone()
            .unwrap_or_else(|| q.ask.default_prompt().to_string()),
        asked_at: w.asked_at,
        asked_in_op: asked_in_op(run, w.asked_at),
        reveal_to: w.reveal_to,
        next_op,
        expected,
        answer_text,
        summary: found.summary,
        explanation,
        explanation_more,
    })
}

/// Applies the question's presentation: a choice ask's offered outcomes and labels, a number
/// ask's `choices`. Refuses an offer that leaves out the computed answer.
fn present(q: &Question, path: &str, e: Expected, answer: &str) -> Res<Expected> {
    match e {
        Expected::Choice { labels, correct } if !q.labels.is_empty() => {
            // `labels` here are the outcome keys' default labels; re-map by key.
            let outcomes = q.ask.outcomes();
            let key = outcomes[correct].0;
            let offered: Vec<(&str, &str)> = outcomes
                .iter()
                .filter_map(|(k, _)| q.labels.get(*k).map(|l| (*k, l.as_str())))
                .collect();
            let Some(c) = offered.iter().position(|(k, _)| *k == key) else {
                return Err(ScenarioError::new(
                    format!("{path}.labels"),
                    format!(
                        "the answer is \"{key}\" ({}), which labels does not offer",
                        labels[correct]
                    ),
                    format!("add a label for \"{key}\""),
                ));
            };
            Ok(Expected::Choice {
                labels: offered.iter().map(|(_, l)| l.to_string()).collect(),
                correct: c,
            })
        }
        Expected::Number(n) => match &q.choices {
            Some(ch) => {
                let Some(c) = ch.iter().position(|x| *x == n) else {
                    return Err(ScenarioError::new(
                        format!("{path}.choices"),
                        format!("the answer is {n} ({answer}), which choices does not offer"),
                        format!("add {n} to choices"),
                    ));
                };
                Ok(Expected::Choice {
                    labels: ch.iter().map(u64::to_string).collect(),
                    correct: c,
                })
            }
            None => Ok(Expected::Number(n)),
        },
        e => Ok(e),
    }
}

/// The explanation lines: the first revealing events and always the last (the block put on the
/// list after many merges, the last chunk), at most [`MAX_EXPLAIN_LINES`].
fn explain(run: &Run, events: &[u32]) -> (Vec<ExplainLine>, usize) {
    let ctx = Ctx::of(run.initial.active());
    let shown: Vec<u32> = if events.len() > MAX_EXPLAIN_LINES {
        let mut v = events[..MAX_EXPLAIN_LINES - 1].to_vec();
        v.extend(events.last());
        v
    } else {
        events.to_vec()
    };
    let lines = shown
        .iter()
        .map(|&i| {
            let ev = &run.log.events[i as usize];
            let f = ev.step.func();
            ExplainLine {
                event: i,
                narration: narrate(&ctx, &run.log, ev),
                function: f.name().to_string(),
                line: ev.step.line(),
                code: pseudocode::lines(f)
                    .get(ev.step.line())
                    .copied()
                    .unwrap_or("")
                    .to_string(),
            }
        })
        .collect();
    (lines, events.len().saturating_sub(MAX_EXPLAIN_LINES))
}

/// The events of the window with their indices.
fn events<'r>(run: &'r Run, w: &Window) -> impl Iterator<Item = (u32, &'r Event)> + 'r {
    let (a, b) = (w.asked_at, w.reveal_to);
    (a..b).map(move |i| (i, &run.log.events[i as usize]))
}

fn choice(ask: Ask, key: &str) -> Expected {
    let outcomes = ask.outcomes();
    Expected::Choice {
        labels: outcomes.iter().map(|(_, l)| l.to_string()).collect(),
        correct: outcomes
            .iter()
            .position(|(k, _)| *k == key)
            .expect("a known outcome"),
    }
}

fn find(ask: Ask, run: &Run, w: &Window) -> Option<Found> {
    let ctx = Ctx::of(run.initial.active());
    let abs = |p| to_abs_pfn(ctx.start_pfn, p);
    let say = |i: u32| narrate(&ctx, &run.log, &run.log.events[i as usize]);
    match ask {
        // kernel-model §3.4: __free_one_page merges while the buddy is free, then adds the
        // result at the head or tail.
        Ask::MergedOrder => {
            let (add, order) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Mutation(Mutation::FreeListAdd { order, .. })
                    if matches!(ev.step, Step::FreeOneAddTail | Step::FreeOneAddHead) =>
                {
                    Some((i, order))
                }
                _ => None,
            })?;
            // This call's merges: back to its FreeOneAccount (the start of __free_one_page).
            let start = (w.asked_at..add)
                .rev()
                .find(|&i| run.log.events[i as usize].step == Step::FreeOneAccount)
                .unwrap_or(w.asked_at);
            let mut evs: Vec<u32> = (start..add)
                .filter(|&i| {
                    matches!(
                        run.log.events[i as usize].kind(),
                        EventKind::Annotation(Annotation::Merge { .. })
                    )
                })
                .collect();
            let merges = evs.len();
            evs.push(add);
            Some(Found {
                expected: Expected::Number(u64::from(order)),
                answer_text: format!("order {order}"),
                summary: format!(
                    "{merges} merge(s) with a free buddy, then {}",
                    strip_fn(&say(add))
                ),
                events: evs,
            })
        }
        // kernel-model §2.6: __rmqueue_smallest takes the first block of order ≥ the request
        // from the request's migratetype; fallbacks take from another type's list.
        Ask::AllocList => {
            let (i, order, mt) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Mutation(Mutation::FreeListDel { order, mt, .. })
                    if matches!(
                        ev.step,
                        Step::SmallestTake | Step::StealTake | Step::ClaimWholeDel
                    ) =>
                {
                    Some((i, order, mt))
                }
                _ => None,
            })?;
            Some(Found {
                expected: Expected::List { order, mt },
                answer_text: format!("free_area[{order}].free_list[{}]", mt.kernel_name()),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        Ask::AllocPage => {
            let (i, pfn, order) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAlloc {
                    pfn: Some(p),
                    order,
                    ..
                })) => Some((i, p, order)),
                _ => None,
            })?;
            let first = abs(pfn);
            let count = 1u64 << order;
            Some(Found {
                expected: Expected::Page { first, count },
                answer_text: if count == 1 {
                    format!("pfn {first:#x}")
                } else {
                    format!(
                        "the order-{order} block at pfn {first:#x} (any of pfns {first:#x}–{:#x})",
                        first + count - 1
                    )
                },
                summary: format!("alloc_pages returns pfn {first:#x} (order {order})"),
                events: vec![i],
            })
        }
        // kernel-model §5.2 / §5.3: free_prepared_contig_range frees the largest naturally aligned
        // chunks that fit the rest of the range.
        Ask::Chunks => {
            let chunks: Vec<(u32, u8)> = events(run, w)
                .filter_map(|(i, ev)| match ev.kind() {
                    EventKind::Annotation(Annotation::Chunk { order, .. })
                        if ev.step == Step::ContigChunk =>
                    {
                        Some((i, order))
                    }
                    _ => None,
                })
                .collect();
            if chunks.is_empty() {
                return None;
            }
            let orders: Vec<String> = chunks.iter().map(|(_, o)| o.to_string()).collect();
            let n = chunks.len();
            Some(Found {
                expected: Expected::Number(n as u64),
                answer_text: format!("{n} chunk(s)"),
                summary: format!(
                    "free_prepared_contig_range frees {n} chunk(s) of orders {}",
                    abbreviate(&orders)
                ),
                events: chunks.iter().map(|(i, _)| *i).collect(),
            })
        }
        // kernel-model §2.7: __rmqueue tries __rmqueue_claim (try_to_claim_block re-types the
        // pageblock) before __rmqueue_steal (the pageblock keeps its type).
        Ask::Fallback => {
            let mut first_alloc = None;
            for (i, ev) in events(run, w) {
                match ev.kind() {
                    EventKind::Annotation(Annotation::Claimed { .. }) => {
                        return Some(Found {
                            expected: choice(ask, "claim"),
                            answer_text: "claim".into(),
                            summary: strip_fn(&say(i)).to_string(),
                            events: vec![i],
                        });
                    }
                    EventKind::Annotation(Annotation::Stolen { .. }) => {
                        return Some(Found {
                            expected: choice(ask, "steal"),
                            answer_text: "steal".into(),
                            summary: strip_fn(&say(i)).to_string(),
                            events: vec![i],
                        });
                    }
                    EventKind::Mutation(Mutation::FreeListDel { .. })
                        if ev.step == Step::SmallestTake && first_alloc.is_none() =>
                    {
                        first_alloc = Some(i);
                    }
                    _ => {}
                }
            }
            let i = first_alloc?;
            Some(Found {
                expected: choice(ask, "none"),
                answer_text: "none".into(),
                summary: format!(
                    "no fallback: __rmqueue_smallest finds a block of the request's own \
                     migratetype ({})",
                    strip_fn(&say(i))
                ),
                events: vec![i],
            })
        }
        // kernel-model §4.4 / §2.8: rmqueue_pcplist refills an empty pcp list with rmqueue_bulk,
        // `batch` blocks (nr_pcp_alloc), fewer if the buddy runs out.
        Ask::RefillPages => {
            let (i, order, got) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::PcpRefill { order, got, .. }) => {
                    Some((i, order, got))
                }
                _ => None,
            })?;
            let pages = u64::from(got) << order;
            Some(Found {
                expected: Expected::Number(pages),
                answer_text: format!("{pages} page(s)"),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        // kernel-model §4.6: free_pcppages_bulk frees min(count, pcp->count) pages.
        Ask::DrainPages => {
            let (i, count) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::PcpDrain { count, .. }) => Some((i, count)),
                _ => None,
            })?;
            Some(Found {
                expected: Expected::Number(u64::from(count)),
                answer_text: format!("{count} page(s)"),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        // kernel-model §2.7: a claim re-types the pageblock(s) of the claimed block
        // (change_pageblock_range: a block above pageblock order spans several, re-typed in
        // one go); a merge across pageblocks (§3.4) re-types the buddy's.
        Ask::RetypedPageblock => {
            // Compaction's skip bit (PB_migrate_skip) is not a type change.
            let retype = |old: u8, new: u8| old ^ new != crate::mm::PB_SKIP;
            let (i, pb) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Mutation(Mutation::SetPageblock { pb, old, new })
                    if retype(old, new) =>
                {
                    Some((i, pb))
                }
                _ => None,
            })?;
            // The pageblocks re-typed together: the run of SetPageblock events that follows.
            let mut evs = vec![i];
            let mut last = pb;
            for j in i + 1..w.reveal_to {
                match run.log.events[j as usize].kind() {
                    EventKind::Mutation(Mutation::SetPageblock { pb: next, old, new })
                        if next == last + 1 && retype(old, new) =>
                    {
                        evs.push(j);
                        last = next;
                    }
                    _ => break,
                }
            }
            let first = abs(pb * PAGEBLOCK_NR_PAGES);
            let count = u64::from((last - pb + 1) * PAGEBLOCK_NR_PAGES);
            let which = if last == pb {
                format!("pageblock {pb}")
            } else {
                format!("pageblocks {pb}–{last}")
            };
            Some(Found {
                expected: Expected::Page { first, count },
                answer_text: format!("{which} (any of pfns {first:#x}–{:#x})", first + count - 1),
                summary: strip_fn(&say(i)).to_string(),
                events: evs,
            })
        }
        // kernel-model §6.2 / §6.3 / §6.5: bulk gets order-0 pages; large_order tries
        // min(ilog2(remaining), last order that worked) and splits each block (split_page),
        // the rest (< 2 pages) comes as order-0 pages.
        Ask::VmallocOrders => {
            let rec = &run.ops[w.op];
            let Some(&Op::Vmalloc { pages, .. }) = op_by_def(run, rec.def) else {
                return None;
            };
            // The data pages' attempts only: a page array of more than a page is a nested
            // vmalloc (§6.1) whose attempts come first, one vmalloc deeper.
            let mut depth = 0u32;
            let mut nested = false;
            let mut attempts: Vec<(u32, u8, bool)> = Vec::new();
            let mut singles = 0usize;
            for i in rec.start..rec.end {
                match run.log.events[i as usize].kind() {
                    EventKind::Annotation(Annotation::Enter {
                        func: KernelFn::vmalloc,
                    }) => {
                        depth += 1;
                        nested |= depth > 1;
                    }
                    EventKind::Annotation(Annotation::Exit {
                        func: KernelFn::vmalloc,
                    }) => depth = depth.saturating_sub(1),
                    EventKind::Annotation(Annotation::VmallocAttempt { order, ok })
                        if depth == 1 =>
                    {
                        attempts.push((i, order, ok));
                    }
                    // An order-0 page of the data: alloc_pages_bulk's or alloc_pages'.
                    EventKind::Mutation(Mutation::PrepNewPage { order: 0, .. }) if depth == 1 => {
                        singles += 1;
                    }
                    _ => {}
                }
            }
            let mut blocks: Vec<u8> = attempts
                .iter()
                .filter(|(_, _, ok)| *ok)
                .map(|(_, o, _)| *o)
                .collect();
            blocks.extend(std::iter::repeat_n(0, singles));
            let got: u64 = blocks.iter().map(|o| 1u64 << o).sum();
            let (labels, correct) = vmalloc_choices(pages, &blocks);
            let answer_text = labels[correct].clone();
            let mut evs: Vec<u32> = attempts.iter().map(|(i, _, _)| *i).collect();
            if evs.is_empty() {
                evs.extend(
                    (rec.start..rec.end)
                        .find(|&i| run.log.events[i as usize].step == Step::BulkPrep),
                );
            }
            Some(Found {
                expected: Expected::Choice { labels, correct },
                summary: format!(
                    "vmalloc of {pages} page(s) gets {answer_text}{}{}",
                    if nested {
                        " (after the nested vmalloc of its page array)"
                    } else {
                        ""
                    },
                    if got < pages {
                        format!(": only {got} pages, the vmalloc fails")
                    } else {
                        String::new()
                    }
                ),
                answer_text,
                events: evs,
            })
        }
        // kernel-model §2.2 / §7.1: get_page_from_freelist tries the zone when the high-watermark
        // gate passes or zone_watermark_fast passes the allocation's mark.
        Ask::WatermarkOk => {
            let (i, ok) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::Watermark { ok, .. })
                    if ev.step != Step::GpffHighGate || ok =>
                {
                    Some((i, ok))
                }
                _ => None,
            })?;
            let key = if ok { "pass" } else { "fail" };
            Some(Found {
                expected: choice(ask, key),
                answer_text: key.into(),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        // mm/compaction.c compact_finished: the scanners meet when the free scanner's
        // pageblock is at or below the migration scanner's (`free_pfn >> pageblock_order <=
        // migrate_pfn >> pageblock_order`); compact_zone then ends COMPACT_COMPLETE
        // (mm_compaction_end shows both positions).
        Ask::ScannersMet => {
            let (i, m, f) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::Trace(Tracepoint::MmCompactionEnd {
                    migrate_pfn,
                    free_pfn,
                    status: CompactResult::Complete | CompactResult::PartialSkipped,
                    ..
                })) => Some((i, migrate_pfn, free_pfn)),
                _ => None,
            })?;
            let pages = run.initial.active().pages();
            let lo = m.min(f) & !(PAGEBLOCK_NR_PAGES - 1);
            let hi = (m.max(f) & !(PAGEBLOCK_NR_PAGES - 1)) + PAGEBLOCK_NR_PAGES;
            let (first, count) = (abs(lo), u64::from(hi.min(pages).max(lo + 1) - lo));
            Some(Found {
                expected: Expected::Page { first, count },
                answer_text: format!(
                    "pageblock {} (any of pfns {first:#x}–{:#x})",
                    lo / PAGEBLOCK_NR_PAGES,
                    first + count - 1
                ),
                summary: format!(
                    "the migration scanner stopped at {:#x}, the free scanner at {:#x}: {}",
                    abs(m),
                    abs(f),
                    strip_fn(&say(i))
                ),
                events: vec![i],
            })
        }
        // mm/compaction.c isolate_migratepages_block / isolate_freepages: a pageblock with
        // nothing to isolate gets PB_migrate_skip (set_pageblock_skip), which later
        // compactions honour unless they ignore the skip hints.
        Ask::SkippedPageblock => {
            let (i, pb) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Mutation(Mutation::SetPageblock { pb, old, new })
                    if old ^ new == crate::mm::PB_SKIP && new & crate::mm::PB_SKIP != 0 =>
                {
                    Some((i, pb))
                }
                _ => None,
            })?;
            let first = abs(pb * PAGEBLOCK_NR_PAGES);
            let count = u64::from(PAGEBLOCK_NR_PAGES.min(run.initial.active().pages()));
            Some(Found {
                expected: Expected::Page { first, count },
                answer_text: format!(
                    "pageblock {pb} (any of pfns {first:#x}–{:#x})",
                    first + count - 1
                ),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        // mm/compaction.c: try_to_compact_pages / compact_zone_order's result, the first one
        // the window decides: compaction_deferred (mm_compaction_deferred), compaction_suitable
        // refusing (mm_compaction_suitable), or compact_zone's end status.
        Ask::CompactResult => {
            let (i, r) = events(run, w).find_map(|(i, ev)| match ev.kind() {
                EventKind::Annotation(Annotation::Trace(tp)) => match tp {
                    Tracepoint::MmCompactionEnd { status, .. } => Some((i, status)),
                    Tracepoint::MmCompactionSuitable { ret, .. }
                        if ret != CompactResult::Continue =>
                    {
                        Some((i, ret))
                    }
                    Tracepoint::MmCompactionDefer {
                        point: DeferPoint::Deferred,
                        ..
                    } => Some((i, CompactResult::Deferred)),
                    _ => None,
                },
                _ => None,
            })?;
            let key = match r {
                CompactResult::Success => "success",
                CompactResult::Complete => "complete",
                CompactResult::PartialSkipped => "partial_skipped",
                CompactResult::Skipped => "skipped",
                CompactResult::NotSuitableZone => "not_suitable_zone",
                CompactResult::Deferred => "deferred",
                _ => return None,
            };
            Some(Found {
                expected: choice(ask, key),
                answer_text: key.into(),
                summary: strip_fn(&say(i)).to_string(),
                events: vec![i],
            })
        }
        // mm/page_alloc.c __alloc_pages_direct_compact counts COMPACTSTALL, then COMPACTSUCCESS
        // or COMPACTFAIL; /proc/vmstat sums the vm events.
        Ask::CompactStallAfter | Ask::CompactSuccessAfter => {
            let (id, k) = if ask == Ask::CompactStallAfter {
                (CounterId::compact_stall, 0)
            } else {
                (CounterId::compact_success, 2)
            };
            let stalls: Vec<u32> = events(run, w)
                .filter(|(_, ev)| {
                    matches!(
                        ev.kind(),
                        EventKind::Mutation(Mutation::Counter {
                            id: CounterId::compact_stall,
                            ..
                        })
                    )
                })
                .map(|(i, _)| i)
                .collect();
            if stalls.is_empty() {
                return None;
            }
            let start: i64 = run
                .initial
                .zones()
                .iter()
                .map(|z| z.compact_events[k])
                .sum();
            let mut counted = Vec::new();
            let mut n = start;
            for i in 0..w.reveal_to {
                if let EventKind::Mutation(Mutation::Counter { id: c, delta, .. }) =
                    run.log.events[i as usize].kind()
                {
                    if c == id {
                        n += i64::from(delta);
                        if i >= w.asked_at {
                            counted.push(i);
                        }
                    }
                }
            }
            let name = if id == CounterId::compact_stall {
                "compact_stall"
            } else {
                "compact_success"
            };
            let n = n.max(0) as u64;
            Some(Found {
                expected: Expected::Number(n),
                answer_text: format!("{name} {n}"),
                summary: format!(
                    "{} direct compaction(s) in the op; {name} reads {n} after it",
                    stalls.len()
                ),
                events: if counted.is_empty() { stalls } else { counted },
            })
        }
        Ask::FreePagesAfter => {
            let rec = &run.ops[w.op];
            let pages: u64 = (0..NR_PAGE_ORDERS).map(|o| rec.nr_free_after[o] << o).sum();
            let last = (w.asked_at..w.reveal_to)
                .rev()
                .find(|&i| run.log.events[i as usize].is_visible());
            let per: Vec<String> = rec.nr_free_after.iter().map(u64::to_string).collect();
            Some(Found {
                expected: Expected::Number(pages),
                answer_text: format!("{pages} page(s)"),
                summary: format!(
                    "nr_free per order after the op: [{}]; Σ nr_free[order] × 2^order = {pages}",
                    per.join(" ")
                ),
                events: last.into_iter().collect(),
            })
        }
    }
}

/// The narration without its leading `function: ` (the explanation names the function).
fn strip_fn(s: &str) -> &str {
    s.split_once(": ").map_or(s, |(_, rest)| rest)
}

/// `a, b, c` or `a, b, …, z (N in all)` for long lists.
fn abbreviate(items: &[String]) -> String {
    if items.len() <= 12 {
        items.join(", ")
    } else {
        format!(
            "{}, …, {} ({} in all)",
            items[..10].join(", "),
            items[items.len() - 1],
            items.len()
        )
    }
}

/// The op `def` of a run's program (a replay's ops are none of the scenario's).
fn op_by_def(run: &Run, def: u32) -> Option<&Op> {
    let program = run.scenario.program();
    ((def as usize) < program.len()).then(|| program.op(def))
}

/// `order 5 + order 4 + order 1`, `50 × order 0`, `order 2 + order 0`.
fn blocks_label(blocks: &[u8]) -> String {
    let mut groups: Vec<(u8, usize)> = Vec::new();
    for &o in blocks {
        match groups.last_mut() {
            Some((g, n)) if *g == o => *n += 1,
            _ => groups.push((o, 1)),
        }
    }
    groups
        .iter()
        .map(|(o, n)| {
            if *n == 1 {
                format!("order {o}")
            } else {
                format!("{n} × order {o}")
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The model's blocks and up to three misconceptions: all order-0 pages (the bulk path), the
/// largest block then order-0 pages, one block covering the whole request, and blocks one order
/// below the largest. Ordered by block count, so the position does not give the answer away.
fn vmalloc_choices(pages: u64, blocks: &[u8]) -> (Vec<String>, usize) {
    let pages = pages.max(1);
    let top = (63 - pages.leading_zeros()).min(10) as u8;
    let mut cands: Vec<Vec<u8>> = vec![blocks.to_vec()];
    let mut push = |b: Vec<u8>| {
        if cands.len() < 4 && !cands.contains(&b) {
            cands.push(b);
        }
    };
    push(vec![0; pages as usize]);
    let mut d = vec![top];
    d.extend(std::iter::repeat_n(0, (pages - (1u64 << top)) as usize));
    push(d);
    let cover = (64 - (pages - 1).leading_zeros()).min(10) as u8;
    push(vec![cover; pages.div_ceil(1u64 << cover) as usize]);
    let below = top.saturating_sub(1);
    push(vec![below; pages.div_ceil(1u64 << below) as usize]);
    let correct = blocks_label(blocks);
    let mut labelled: Vec<(usize, String)> =
        cands.iter().map(|b| (b.len(), blocks_label(b))).collect();
    labelled.sort();
    let labels: Vec<String> = labelled.into_iter().map(|(_, l)| l).collect();
    let at = labels.iter().position(|l| *l == correct).unwrap_or(0);
    (labels, at)
}
