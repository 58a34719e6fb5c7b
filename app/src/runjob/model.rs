//! What the run status strip and the memory line say: pure functions of numbers, tested
//! natively.

/// A byte count for people: `512 B`, `4.0 KiB`, `12.3 MiB`, `1.50 GiB`.
pub fn format_bytes(n: u64) -> String {
    const K: f64 = 1024.0;
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < K * K {
        format!("{:.1} KiB", f / K)
    } else if f < K * K * K {
        format!("{:.1} MiB", f / (K * K))
    } else {
        format!("{:.2} GiB", f / (K * K * K))
    }
}

/// An integer with thousands separators: `1,234,567`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whole percent of `done` in `total`, 0..=100 (100 for an empty run).
pub fn percent(done: u64, total: u64) -> u32 {
    if total == 0 {
        return 100;
    }
    ((done.min(total) as u128 * 100) / total as u128) as u32
}

/// The progress bar's text and `aria-valuetext`: `12,345 of 1,000,000 ops (1%)`.
pub fn progress_text(done: u64, total: u64) -> String {
    format!(
        "{} of {} ops ({}%)",
        group(done.min(total)),
        group(total),
        percent(done, total)
    )
}

/// What a run holds in memory, from the engine's accounting (`Run::trace_bytes`,
/// `Run::memory_bytes`), taken once when the run is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunMemory {
    /// The event trace (and its message texts).
    pub trace: u64,
    /// Everything the run holds: the trace, the checkpoints, the initial and final zones and
    /// the op records.
    pub total: u64,
}

impl RunMemory {
    pub fn of(run: &buddyscope::Run) -> RunMemory {
        RunMemory {
            trace: run.trace_bytes() as u64,
            total: run.memory_bytes() as u64,
        }
    }
}

/// The memory line of a run with its limits, e.g. `trace 4.0 MiB (limit 384.0 MiB) ·
/// checkpoints and op records 21.0 MiB (checkpoints limit 96.0 MiB) · total 25.0 MiB`.
pub fn memory_text(m: RunMemory, trace_limit: u64, checkpoint_budget: u64) -> String {
    format!(
        "trace {} (limit {}) · checkpoints and op records {} (checkpoints limit {}) · total {}",
        format_bytes(m.trace),
        format_bytes(trace_limit),
        format_bytes(m.total.saturating_sub(m.trace)),
        format_bytes(checkpoint_budget),
        format_bytes(m.total)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_like_people_write_them() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(4096), "4.0 KiB");
        assert_eq!(format_bytes(12_897_485), "12.3 MiB");
        assert_eq!(format_bytes(3 << 29), "1.50 GiB");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn progress_says_ops_done_of_total() {
        assert_eq!(progress_text(0, 1_000_000), "0 of 1,000,000 ops (0%)");
        assert_eq!(
            progress_text(12_345, 1_000_000),
            "12,345 of 1,000,000 ops (1%)"
        );
        assert_eq!(
            progress_text(1_000_000, 1_000_000),
            "1,000,000 of 1,000,000 ops (100%)"
        );
        // Never more than the total, never a division by zero, no overflow near u64::MAX.
        assert_eq!(progress_text(7, 5), "5 of 5 ops (100%)");
        assert_eq!(percent(0, 0), 100);
        assert_eq!(percent(u64::MAX / 2, u64::MAX), 49);
    }

    #[test]
    fn memory_line_names_both_parts_and_the_limits() {
        let m = RunMemory {
            trace: 4 << 20,
            total: 25 << 20,
        };
        assert_eq!(
            memory_text(m, 384 << 20, 96 << 20),
            "trace 4.0 MiB (limit 384.0 MiB) · checkpoints and op records 21.0 MiB \
             (checkpoints limit 96.0 MiB) · total 25.0 MiB"
        );
    }

    /// The figures are the engine's: a run's trace is its events at 16 bytes, a call at 1 (and the
    /// message texts), and the total holds at least the trace and two zone copies.
    #[test]
    fn run_memory_comes_from_the_engine() {
        let t = crate::panels::testutil::timeline("fallback-claim");
        let m = RunMemory::of(&t.run);
        assert!(m.trace >= t.run.log.events.min_bytes() as u64, "{m:?}");
        assert!(
            m.total >= m.trace + 2 * u64::from(t.run.initial.pages()) * 16,
            "{m:?}"
        );
    }
}
