//! The answer key of an exercise set in plain text: what `buddyscope check-exercises` prints,
//! for a teacher to read before the class.

use super::set::{ExerciseSet, ResolvedExercise, ResolvedQuestion};
use std::fmt::Write;

/// Per exercise, per question: the position, the prompt, the answer and a short explanation
/// (with the pseudocode line of the first revealing event); the last line is `N questions`.
pub fn answer_key(set: &ExerciseSet, resolved: &[ResolvedExercise]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", set.id, set.title);
    let mut n = 0;
    for (i, ex) in resolved.iter().enumerate() {
        let scenario = match &ex.builtin {
            Some(id) => format!("built-in {id}"),
            None => "inline scenario".to_string(),
        };
        let _ = writeln!(
            out,
            "\nexercise {}: {} ({scenario}, {} ops)",
            i + 1,
            ex.title,
            ex.ops
        );
        for (j, q) in ex.questions.iter().enumerate() {
            n += 1;
            write_question(&mut out, j, q);
        }
    }
    let _ = writeln!(out, "\n{n} questions");
    out
}

fn write_question(out: &mut String, j: usize, q: &ResolvedQuestion) {
    // The absolute event is the app's "event N / T" at the question. At an op's end where the
    // ops before ran no events, the position is where an earlier op ended: say which.
    let mut at = if q.event > 0 {
        format!("op {}, event {} (event {}", q.op, q.event, q.asked_at)
    } else {
        format!("op {} (event {}", q.op, q.asked_at)
    };
    if q.event == 0 && q.asked_in_op != q.op {
        match q.asked_in_op {
            0 => at.push_str(", before any event"),
            j => {
                let _ = write!(at, ", where op {j} ended");
            }
        }
    }
    at.push(')');
    let _ = writeln!(
        out,
        "  {}. [{at}: before op {} `{}`; {}] {}",
        j + 1,
        q.op + 1,
        q.next_op,
        q.ask.name(),
        q.prompt
    );
    let _ = writeln!(out, "     answer: {}", q.answer_text);
    let _ = writeln!(out, "     why: {}", q.summary);
    if let Some(l) = q.explanation.first() {
        let _ = writeln!(out, "     code: {}: {}", l.function, l.code.trim());
    }
}
