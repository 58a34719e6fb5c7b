//! An open exercise set in the app: the engine's resolved questions, in order over the set's
//! exercises, and the student's answers. The engine is the source of truth for everything a
//! question knows (where it is asked, how far the reveal plays, the right answer, the
//! explanation) and for judging an answer ([`buddyscope::explain::exercises::check`]); this module only
//! walks the questions and words the answers for the list of saved progress. Pure: no browser
//! API, tested natively.

use buddyscope::{
    explain::exercises::{
        self, Answer, AnswerKind, ExerciseSet, Expected, ResolvedExercise, ResolvedQuestion,
        ScenarioError,
    },
    MigrateType,
};

use crate::saved::{Progress, SavedAnswer};

/// A parsed and resolved set.
pub struct OpenSet {
    pub set: ExerciseSet,
    /// The set's JSON text (saved with the progress, so the set reopens from it).
    pub text: String,
    /// Where it came from: a shipped set's id, a file name or a URL.
    pub source: String,
    pub exercises: Vec<ResolvedExercise>,
    /// `(exercise, question)` for every question, in order: question `i` of the set.
    pub order: Vec<(usize, usize)>,
    /// The scenario text and id the app runs for each exercise ([`OpenSet::scenario_text`]),
    /// made when the set is opened.
    texts: Vec<(String, String)>,
}

impl OpenSet {
    /// Parses, checks and resolves `text` (every exercise's scenario is run once).
    pub fn open(text: &str, source: &str) -> Result<OpenSet, ScenarioError> {
        let set = exercises::parse_exercise_set(text)?;
        let resolved = exercises::resolve(&set)?;
        let order = resolved
            .iter()
            .enumerate()
            .flat_map(|(e, ex)| (0..ex.questions.len()).map(move |q| (e, q)))
            .collect();
        let texts = resolved.iter().map(exercise_text).collect();
        Ok(OpenSet {
            set,
            text: text.to_string(),
            source: source.to_string(),
            exercises: resolved,
            order,
            texts,
        })
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Question `i` of the set and its exercise.
    pub fn question(&self, i: usize) -> Option<(&ResolvedExercise, &ResolvedQuestion)> {
        let &(e, q) = self.order.get(i)?;
        let ex = &self.exercises[e];
        Some((ex, &ex.questions[q]))
    }

    /// The exercise index of question `i`.
    pub fn exercise_of(&self, i: usize) -> Option<usize> {
        self.order.get(i).map(|&(e, _)| e)
    }

    /// The scenario text the app runs for exercise `e`, and its id: the built-in's own text
    /// when the exercise names one (the picker then shows it), else the scenario as JSON.
    pub fn scenario_text(&self, e: usize) -> (String, String) {
        self.texts[e].clone()
    }

    /// Fresh progress (nothing answered), or `saved` when it belongs to this very set text
    /// (a changed set starts over: its answers would sit on other questions).
    pub fn progress(&self, saved: Option<Progress>) -> Progress {
        match saved {
            Some(p) if p.set_text == self.text && p.answers.len() == self.len() => Progress {
                current: p.current.min(self.len().saturating_sub(1)),
                ..p
            },
            _ => Progress {
                set_id: self.set.id.clone(),
                set_text: self.text.clone(),
                answers: vec![None; self.len()],
                current: 0,
            },
        }
    }
}

/// What [`OpenSet::scenario_text`] says for one exercise.
fn exercise_text(ex: &ResolvedExercise) -> (String, String) {
    if let Some(b) = ex
        .builtin
        .as_deref()
        .and_then(buddyscope::scenario::builtin::get)
    {
        return (b.json().to_string(), b.id.to_string());
    }
    (
        crate::late::scenario_json(&ex.scenario),
        "custom".to_string(),
    )
}

/// Judges `answer` to question `q` with the engine and words it for the saved progress.
pub fn judge(q: &ResolvedQuestion, answer: &Answer) -> SavedAnswer {
    SavedAnswer {
        given: answer_words(q, answer),
        correct: exercises::check(q, answer),
    }
}

/// The answer kind the student gives (a number ask offered as choices is a choice).
pub fn kind(q: &ResolvedQuestion) -> AnswerKind {
    q.expected.kind()
}

/// `free_area[3].free_list[Movable]`: a free list as the engine's answer key words it.
pub fn list_words(order: u8, mt: MigrateType) -> String {
    format!("free_area[{order}].free_list[{}]", mt.kernel_name())
}

/// An answer in words: the chosen label, the number, the pfn, the free list.
pub fn answer_words(q: &ResolvedQuestion, answer: &Answer) -> String {
    match (answer, &q.expected) {
        (Answer::Choice(i), Expected::Choice { labels, .. }) => labels
            .get(*i)
            .cloned()
            .unwrap_or_else(|| format!("choice {}", i + 1)),
        (Answer::Choice(i), _) => format!("choice {}", i + 1),
        (Answer::Number(n), _) => n.to_string(),
        (Answer::Page(pfn), _) => format!("pfn {pfn:#x}"),
        (Answer::List { order, mt }, _) => list_words(*order, *mt),
    }
}

/// Parses a number typed by the student: decimal, or hex with `0x`.
pub fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim().replace(['_', ','], "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The first unanswered question at or after `from` (wrapping), or `from` when all are.
pub fn next_unanswered(p: &Progress, from: usize) -> usize {
    let n = p.answers.len();
    (0..n)
        .map(|k| (from + k) % n.max(1))
        .find(|&i| p.answers[i].is_none())
        .unwrap_or(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shipped set opens, and its answer key is judged right by the engine, a wrong answer
    /// of the same kind wrong.
    #[test]
    fn shipped_sets_open_and_the_engine_judges_them() {
        let sets = exercises::builtin_sets();
        for b in sets {
            let open = OpenSet::open(b.json(), b.id).unwrap_or_else(|e| panic!("{}: {e}", b.id));
            assert_eq!(open.set.id, b.id);
            assert!(open.len() > 0);
            for i in 0..open.len() {
                let (ex, q) = open.question(i).unwrap();
                assert!(q.asked_at <= q.reveal_to && q.reveal_to <= ex.events);
                let (right, wrong) = match &q.expected {
                    Expected::Choice { labels, correct } => (
                        Answer::Choice(*correct),
                        Answer::Choice((correct + 1) % labels.len()),
                    ),
                    Expected::Number(n) => (Answer::Number(*n), Answer::Number(n + 1)),
                    Expected::Page { first, count } => {
                        (Answer::Page(*first), Answer::Page(first + count))
                    }
                    Expected::List { order, mt } => (
                        Answer::List {
                            order: *order,
                            mt: *mt,
                        },
                        Answer::List {
                            order: (order + 1) % 11,
                            mt: *mt,
                        },
                    ),
                };
                assert!(judge(q, &right).correct, "{} {}", b.id, q.path);
                assert!(!judge(q, &wrong).correct, "{} {}", b.id, q.path);
                let (text, _) = open.scenario_text(open.exercise_of(i).unwrap());
                assert!(buddyscope::parse_valid(&text).is_ok());
            }
        }
    }

    #[test]
    fn saved_progress_applies_only_to_the_same_set() {
        let Some(b) = exercises::builtin_sets().first() else {
            return;
        };
        let open = OpenSet::open(b.json(), b.id).unwrap();
        let mut p = open.progress(None);
        assert_eq!(p.answers.len(), open.len());
        assert_eq!(p.current, 0);
        p.answers[0] = Some(SavedAnswer {
            given: "1".into(),
            correct: true,
        });
        p.current = 1;
        assert_eq!(open.progress(Some(p.clone())), p);
        assert_eq!(next_unanswered(&p, 0), 1.min(open.len() - 1));
        let changed = Progress {
            set_text: format!("{} ", p.set_text),
            ..p
        };
        assert_eq!(open.progress(Some(changed)).current, 0);
    }

    #[test]
    fn numbers_and_lists_in_words() {
        assert_eq!(parse_number(" 42 "), Some(42));
        assert_eq!(parse_number("0x200"), Some(512));
        assert_eq!(parse_number("1,024"), Some(1024));
        assert_eq!(parse_number("four"), None);
        assert_eq!(
            list_words(3, MigrateType::Movable),
            "free_area[3].free_list[Movable]"
        );
    }

    #[test]
    fn a_broken_set_names_the_field() {
        let err = OpenSet::open(
            r#"{"id": "x", "title": "t", "exercises": [{"title": "e", "scenario": "fallback-claim", "questions": [{"op": 0, "ask": "merged_ordr"}]}]}"#,
            "test",
        )
        .err()
        .expect("an unknown ask is refused");
        assert_eq!(err.path, "exercises[0].questions[0].ask");
    }
}
