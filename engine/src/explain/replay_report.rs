//! The CLI's `json` and `summary` outputs of a replay: those of a run plus the divergences.

use crate::run::replay::{by_kind_text, Divergence, KindCount, Replay};
use serde::Serialize;

#[derive(Serialize)]
struct ReplayOut<'a> {
    trace_events: u64,
    lines: u64,
    skipped_lines: u64,
    reordered_lines: u64,
    late_lines: u64,
    divergence_count: u64,
    /// Untraced `alloc_pages_bulk` takes inferred, and their pages (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    untraced_bulk_takes: u64,
    #[serde(skip_serializing_if = "is_zero")]
    untraced_bulk_pages: u64,
    /// Freed blocks found in the buddy instead of on a pcp list (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    freed_straight_to_buddy: u64,
    /// The start snapshot's `kernel` (`uname -r`), when it says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_kernel: Option<&'a str>,
    divergences_by_kind: &'a [KindCount],
    divergences: &'a [Divergence],
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn out(r: &Replay) -> ReplayOut<'_> {
    ReplayOut {
        trace_events: r.trace_events,
        lines: r.lines,
        skipped_lines: r.skipped_lines,
        reordered_lines: r.reordered_lines,
        late_lines: r.late_lines,
        divergence_count: r.divergence_count,
        untraced_bulk_takes: r.tally.untraced_bulk_takes,
        untraced_bulk_pages: r.tally.untraced_bulk_pages,
        freed_straight_to_buddy: r.tally.freed_straight_to_buddy,
        snapshot_kernel: snapshot_kernel(r),
        divergences_by_kind: &r.divergences_by_kind,
        divergences: &r.divergences,
    }
}

/// `--format json`: the run's JSON with a `"replay"` member (events, divergences), and with
/// `--predict` a `"predict"` member ([`crate::run::replay::PredictReport`]).
pub fn json(r: &Replay) -> String {
    let base = crate::explain::report::json(&r.run);
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
    let mut o = crate::explain::report::summary(&r.run);
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
    if let Some(k) = snapshot_kernel(r) {
        let profile = crate::mm::Kernel::from_uname(k).map_or("no profile".to_string(), |p| {
            format!("profile {}", p.as_str())
        });
        let _ = writeln!(
            o,
            "snapshot kernel: {k} ({profile}; replayed with {})",
            r.run.scenario.kernel.as_str()
        );
    }
    if r.tally.untraced_bulk_takes > 0 {
        let _ = writeln!(
            o,
            "untraced alloc_pages_bulk takes inferred: {} ({} pages)",
            r.tally.untraced_bulk_takes, r.tally.untraced_bulk_pages
        );
    }
    if r.tally.freed_straight_to_buddy > 0 {
        let _ = writeln!(
            o,
            "frees inferred to have gone straight to the buddy (pcp_spin_trylock failed): {}",
            r.tally.freed_straight_to_buddy
        );
    }
    let _ = writeln!(o, "divergences: {}", r.divergence_count);
    if !r.divergences_by_kind.is_empty() {
        let _ = writeln!(
            o,
            "divergences by kind: {}",
            by_kind_text(&r.divergences_by_kind)
        );
    }
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

/// The `kernel` (`uname -r`) of the node snapshot the replay started from, if it says it.
pub fn snapshot_kernel(r: &Replay) -> Option<&str> {
    match &r.run.scenario.init {
        crate::scenario::Init::NodeSnapshot(s) => s.kernel.as_deref(),
        _ => None,
    }
}
