//! Exercise-set JSON → [`ExerciseSet`], field by field with the scenario reader's machinery
//! ([`Fields`]): unknown fields with "did you mean", wrong types and missing fields, each with
//! its JSON path. An inline scenario is read and validated by the scenario reader itself, its
//! error paths prefixed with the exercise's (`exercises[1].scenario.ops[0].order`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::set::Ask;
use super::set::{
    AnswerKind, Exercise, ExerciseSet, Question, ScenarioSource, EXERCISE_SET_VERSION,
    MAX_EXERCISES, MAX_QUESTIONS, MAX_TEXT_CHARS,
};
use crate::scenario::{join, ScenarioError, ValidScenario};
use crate::scenario::{
    quoted_choices, read_string, read_u32, read_u64, scenario_from_value, suggest, type_err,
    FieldTable, Fields,
};

type Res<T> = Result<T, ScenarioError>;

/// Every object's fields with a one-line description, as the scenario reader's table.
const FIELDS: FieldTable = &[
    (
        "set",
        "version",
        "1, the only version this build reads (optional)",
    ),
    ("set", "id", "a short slug of a-z, 0-9 and -"),
    ("set", "title", "the set's title"),
    ("set", "description", "what the set teaches (optional)"),
    (
        "set",
        "exercises",
        "an array of exercises {\"title\", \"scenario\", \"questions\"}",
    ),
    ("exercise", "title", "the exercise's title"),
    (
        "exercise",
        "intro",
        "a text shown before the first question (optional)",
    ),
    (
        "exercise",
        "scenario",
        "a built-in scenario's id, or a scenario object (format v1)",
    ),
    (
        "exercise",
        "questions",
        "an array of questions {\"op\", \"ask\", …}, in run order",
    ),
    (
        "question",
        "op",
        "the question is asked after this many executed ops (as `buddyscope run --ops K`)",
    ),
    (
        "question",
        "event",
        "this many events further into the next op (optional, default 0)",
    ),
    (
        "question",
        "ask",
        "what to ask: one of the ask kinds of docs/exercise-format.md",
    ),
    (
        "question",
        "prompt",
        "the question's text (optional: each ask has a default)",
    ),
    (
        "question",
        "labels",
        "choice asks: {\"OUTCOME\": \"LABEL\", …}, the outcomes to offer",
    ),
    (
        "question",
        "choices",
        "number asks: an array of numbers to offer as multiple choice",
    ),
];

fn check_text(path: &str, s: String, what: &str) -> Res<String> {
    if s.trim().is_empty() {
        return Err(ScenarioError::new(
            path,
            format!("the {what} is empty"),
            "write a short text",
        ));
    }
    let n = s.chars().count();
    if n > MAX_TEXT_CHARS {
        return Err(ScenarioError::new(
            path,
            format!("the {what} has {n} characters, more than {MAX_TEXT_CHARS}"),
            "shorten it",
        ));
    }
    Ok(s)
}

fn read_title(v: &Value, path: &str) -> Res<String> {
    check_text(path, read_string(v, path)?, "title")
}

fn read_prompt(v: &Value, path: &str) -> Res<String> {
    check_text(path, read_string(v, path)?, "prompt")
}

fn read_intro(v: &Value, path: &str) -> Res<String> {
    check_text(path, read_string(v, path)?, "intro")
}

fn read_id(v: &Value, path: &str) -> Res<String> {
    let s = read_string(v, path)?;
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok {
        return Err(ScenarioError::new(
            path,
            format!("id {} is not a slug", Value::String(s)),
            "use 1 to 64 characters of a-z, 0-9 and -",
        ));
    }
    Ok(s)
}

fn read_version(v: &Value, path: &str) -> Res<u32> {
    let n = read_u64(v, path)?;
    if n != u64::from(EXERCISE_SET_VERSION) {
        return Err(ScenarioError::new(
            path,
            format!("exercise-set version {n} is not supported"),
            format!("this build reads version {EXERCISE_SET_VERSION}"),
        ));
    }
    Ok(EXERCISE_SET_VERSION)
}

fn read_ask(v: &Value, path: &str) -> Res<Ask> {
    let names: Vec<&str> = Ask::ALL.iter().map(|a| a.name()).collect();
    let s = v
        .as_str()
        .ok_or_else(|| type_err(path, "an ask kind (a string)", v))?;
    Ask::ALL
        .iter()
        .copied()
        .find(|a| a.name() == s)
        .ok_or_else(|| {
            let all = format!("use {}", quoted_choices(&names));
            let hint = match suggest(s, names.iter().copied()) {
                Some(m) => format!("did you mean \"{m}\"? {all}"),
                None => all,
            };
            ScenarioError::new(
                path,
                format!("unknown ask {}", Value::String(s.into())),
                hint,
            )
        })
}

/// `labels`: an object of outcome → label (checked against the ask later, when it is known).
fn read_labels(v: &Value, path: &str) -> Res<BTreeMap<String, String>> {
    let map = v
        .as_object()
        .ok_or_else(|| type_err(path, "an object {\"OUTCOME\": \"LABEL\"}", v))?;
    if map.is_empty() {
        return Err(ScenarioError::new(
            path,
            "labels is empty",
            "name at least two outcomes, or remove labels to offer them all",
        ));
    }
    map.iter()
        .map(|(k, l)| {
            let p = join(path, k);
            let s = read_string(l, &p)?;
            Ok((k.clone(), check_text(&p, s, "label")?))
        })
        .collect()
}

fn read_choices(v: &Value, path: &str) -> Res<Vec<u64>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of numbers", v))?;
    let out: Vec<u64> = items
        .iter()
        .enumerate()
        .map(|(i, x)| read_u64(x, &format!("{path}[{i}]")))
        .collect::<Res<_>>()?;
    if out.len() < 2 {
        return Err(ScenarioError::new(
            path,
            format!(
                "{} choice(s): a multiple choice needs at least 2",
                out.len()
            ),
            "add choices, or remove choices to ask for a number",
        ));
    }
    for (i, x) in out.iter().enumerate() {
        if out[..i].contains(x) {
            return Err(ScenarioError::new(
                format!("{path}[{i}]"),
                format!("{x} is offered twice"),
                "give each choice once",
            ));
        }
    }
    Ok(out)
}

fn question_from_value(v: &Value, path: &str) -> Res<Question> {
    let f = Fields::new_in(FIELDS, v, path, "question", "a question")?;
    f.deny_unknown()?;
    let ask = f.req("ask", read_ask)?;
    let labels = f.or("labels", BTreeMap::new(), read_labels)?;
    let choices = f.opt("choices", read_choices)?;
    if !labels.is_empty() {
        let outcomes = ask.outcomes();
        if outcomes.is_empty() {
            return Err(ScenarioError::new(
                join(path, "labels"),
                format!("{} has no outcomes to label", ask.name()),
                match ask {
                    Ask::VmallocOrders => "vmalloc_orders generates its choices: remove labels",
                    _ => "labels are for the choice asks fallback, watermark_ok and compact_result",
                },
            ));
        }
        let keys: Vec<&str> = outcomes.iter().map(|(k, _)| *k).collect();
        for k in labels.keys() {
            if !keys.contains(&k.as_str()) {
                let all = format!("{} has the outcomes {}", ask.name(), quoted_choices(&keys));
                let hint = match suggest(k, keys.iter().copied()) {
                    Some(m) => format!("did you mean \"{m}\"? {all}"),
                    None => all,
                };
                return Err(ScenarioError::new(
                    join(&join(path, "labels"), k),
                    format!("unknown outcome {}", Value::String(k.clone())),
                    hint,
                ));
            }
        }
        if labels.len() < 2 {
            return Err(ScenarioError::new(
                join(path, "labels"),
                "one label: a multiple choice needs at least 2",
                format!("label at least two of {}", quoted_choices(&keys)),
            ));
        }
    }
    if choices.is_some() && ask.kind() != AnswerKind::Number {
        return Err(ScenarioError::new(
            join(path, "choices"),
            format!("{} is not answered with a number", ask.name()),
            "choices are for the number asks: remove it",
        ));
    }
    Ok(Question {
        op: f.req("op", read_u32)?,
        event: f.opt("event", read_u32)?,
        ask,
        prompt: f.opt("prompt", read_prompt)?,
        labels,
        choices,
    })
}

fn questions_from_value(v: &Value, path: &str) -> Res<Vec<Question>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of questions", v))?;
    if items.is_empty() {
        return Err(ScenarioError::new(
            path,
            "an exercise without questions",
            "ask at least one question",
        ));
    }
    if items.len() > MAX_QUESTIONS {
        return Err(ScenarioError::new(
            format!("{path}[{MAX_QUESTIONS}]"),
            format!(
                "an exercise has at most {MAX_QUESTIONS} questions, this one has {}",
                items.len()
            ),
            "split it into two exercises",
        ));
    }
    let qs: Vec<Question> = items
        .iter()
        .enumerate()
        .map(|(i, q)| question_from_value(q, &format!("{path}[{i}]")))
        .collect::<Res<_>>()?;
    // Questions are asked while the run plays forward.
    for i in 1..qs.len() {
        let key = |q: &Question| (q.op, q.event.unwrap_or(0));
        if key(&qs[i]) < key(&qs[i - 1]) {
            let (op, ev) = key(&qs[i - 1]);
            return Err(ScenarioError::new(
                format!("{path}[{i}].op"),
                format!(
                    "question {} comes before question {i} (op {op}, event {ev})",
                    i + 1
                ),
                "order the questions by position: op ascending, then event",
            ));
        }
    }
    Ok(qs)
}

fn scenario_source(v: &Value, path: &str) -> Res<ScenarioSource> {
    match v {
        Value::String(id) => {
            if crate::scenario::builtin::get(id).is_some() {
                return Ok(ScenarioSource::Builtin(id.clone()));
            }
            let ids: Vec<&str> = crate::scenario::builtin::ALL.iter().map(|b| b.id).collect();
            let all = format!("the built-ins are {}", quoted_choices(&ids));
            let hint = match suggest(id, ids.iter().copied()) {
                Some(m) => format!("did you mean \"{m}\"? {all}"),
                None => all,
            };
            Err(ScenarioError::new(
                path,
                format!("unknown built-in scenario {}", Value::String(id.clone())),
                hint,
            ))
        }
        Value::Object(_) => {
            let prefix = |mut e: ScenarioError| {
                e.path = if e.path.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{}", e.path)
                };
                e
            };
            let s = scenario_from_value(v).map_err(prefix)?;
            let s = ValidScenario::new(s).map_err(prefix)?;
            Ok(ScenarioSource::Inline(Box::new(s.into_scenario())))
        }
        _ => Err(type_err(
            path,
            "a built-in scenario's id or a scenario object",
            v,
        )),
    }
}

fn exercise_from_value(v: &Value, path: &str) -> Res<Exercise> {
    let f = Fields::new_in(FIELDS, v, path, "exercise", "an exercise")?;
    f.deny_unknown()?;
    Ok(Exercise {
        title: f.req("title", read_title)?,
        intro: f.opt("intro", read_intro)?,
        scenario: f.req("scenario", scenario_source)?,
        questions: f.req("questions", questions_from_value)?,
    })
}

fn exercises_from_value(v: &Value, path: &str) -> Res<Vec<Exercise>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of exercises", v))?;
    if items.is_empty() {
        return Err(ScenarioError::new(
            path,
            "a set without exercises",
            "add at least one exercise",
        ));
    }
    if items.len() > MAX_EXERCISES {
        return Err(ScenarioError::new(
            format!("{path}[{MAX_EXERCISES}]"),
            format!(
                "a set has at most {MAX_EXERCISES} exercises, this one has {}",
                items.len()
            ),
            "split it into two sets",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, e)| exercise_from_value(e, &format!("{path}[{i}]")))
        .collect()
}

pub(super) fn set_from_value(v: &Value) -> Res<ExerciseSet> {
    let f = Fields::new_in(FIELDS, v, "", "set", "the exercise set")?;
    // The version first: a newer document should be told so, not that its new fields are unknown.
    f.opt("version", read_version)?;
    f.deny_unknown()?;
    Ok(ExerciseSet {
        id: f.req("id", read_id)?,
        title: f.req("title", read_title)?,
        description: f.or("description", String::new(), read_string)?,
        exercises: f.req("exercises", exercises_from_value)?,
    })
}
/// Parses and statically checks an exercise set (shape, types, ask names, built-in ids, inline
/// scenarios). Positions and whether each ask applies are checked by [`resolve`].
pub fn parse_exercise_set(text: &str) -> Result<ExerciseSet, ScenarioError> {
    let value = crate::scenario::parse_json(text)?;
    set_from_value(&value)
}
