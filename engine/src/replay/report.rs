//! The CLI's `json` and `summary` outputs of a replay: those of a run plus the divergences.

use super::forced::{Divergence, Replay};
use serde::Serialize;

#[derive(Serialize)]
struct ReplayOut<'a> {
    trace_events: u64,
    lines: u64,
    skipped_lines: u64,
    reordered_lines: u64,
    late_lines: u64,
    divergence_count: u64,
    divergences: &'a [Divergence],
}

fn out(r: &Replay) -> ReplayOut<'_> {
    ReplayOut {
        trace_events: r.trace_events,
        lines: r.lines,
        skipped_lines: r.skipped_lines,
        reordered_lines: r.reordered_lines,
        late_lines: r.late_lines,
        divergence_count: r.divergence_count,
        divergences: &r.divergences,
    }
}

/// `--format json`: the run's JSON with a `"replay"` member (events, divergences), and with
/// `--predict` a `"predict"` member ([`crate::replay::PredictReport`]).
pub fn json(r: &Replay) -> String {
    let base = crate::report::json(&r.run);
    let member = |v: String| v.replace('\n', "\n  ");
    let extra = member(serde_json::to_string_pretty(&out(r)).expect("serializable"));
    let body = base.trim_end().strip_suffix('}').expect("a JSON object");
    let predict = r.predict.as_ref().map_or(String::new(), |p| {
        let p = member(serde_json::to_string_pretty(p).expect("serializable"));
        format!(",\n  \"predict\": {p}")
    });
    format!("{},\n  \"replay\": {extra}{predict}\n}}\n", body.trim_end())
}

/// `--format summary`: the run's summary, then the replay's counts and divergences.
pub fn summary(r: &Replay) -> String {
    use std::fmt::Write;
    let mut o = crate::report::summary(&r.run);
    let _ = writeln!(
        o,
        "\nreplay: {} trace events from {} lines ({} skipped)",
        r.trace_events, r.lines, r.skipped_lines
    );
    if r.reordered_lines + r.late_lines > 0 {
        let _ = writeln!(
            o,
            "timestamp order: {} lines moved before earlier lines of the file, {} too late to move",
            r.reordered_lines, r.late_lines
        );
    }
    let _ = writeln!(o, "divergences: {}", r.divergence_count);
    for d in &r.divergences {
        let _ = writeln!(o, "  {d}");
    }
    if (r.divergences.len() as u64) < r.divergence_count {
        let _ = writeln!(
            o,
            "  … {} more not listed",
            r.divergence_count - r.divergences.len() as u64
        );
    }
    if let Some(p) = &r.predict {
        o.push_str(&p.text());
    }
    o
}
