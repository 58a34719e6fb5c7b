//! A trace cut at its `trace_marker` lines (`echo TEXT > /sys/kernel/tracing/trace_marker`):
//! the lab writes one where each snapshot was taken, so a replay from a snapshot starts right
//! after its marker. Line numbers stay: the lines outside the cut read as blank lines.

/// The text of a `trace_marker` line (`tracing_mark_write: TEXT`), if `line` is one.
pub fn marker_text(line: &str) -> Option<&str> {
    line.split_once("tracing_mark_write:")
        .map(|(_, t)| t.trim())
}

/// A marker a cut asked for that the trace does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissingMarker {
    /// No line with the start marker.
    From(String),
    /// No line with the end marker after the start.
    To(String),
}

/// `text` with only the lines after the `from` marker and before the `to` marker kept (either
/// may be absent: the start or the end of the file); the others are blank lines, so every line
/// keeps its number.
pub fn cut_at_markers(
    text: &str,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<String, MissingMarker> {
    let lines: Vec<&str> = text.lines().collect();
    let start = match from {
        None => 0,
        Some(m) => {
            lines
                .iter()
                .position(|l| marker_text(l) == Some(m))
                .ok_or_else(|| MissingMarker::From(m.to_string()))?
                + 1
        }
    };
    let end = match to {
        None => lines.len(),
        Some(m) => lines[start..]
            .iter()
            .position(|l| marker_text(l) == Some(m))
            .map(|i| start + i)
            .ok_or_else(|| MissingMarker::To(m.to_string()))?,
    };
    let mut out = String::with_capacity(text.len());
    for (i, l) in lines.iter().enumerate() {
        if (start..end).contains(&i) {
            out.push_str(l);
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_keeps_the_lines_between_the_markers_and_their_numbers() {
        let t = "a\n x: tracing_mark_write: before\nb\nc\n y: tracing_mark_write: after\nd\n";
        assert_eq!(
            cut_at_markers(t, Some("before"), Some("after")).unwrap(),
            "\n\nb\nc\n\n\n"
        );
        assert_eq!(
            cut_at_markers(t, None, Some("after")).unwrap(),
            "a\n x: tracing_mark_write: before\nb\nc\n\n\n"
        );
        assert_eq!(
            cut_at_markers(t, Some("after"), Some("before")),
            Err(MissingMarker::To("before".into()))
        );
        assert_eq!(
            cut_at_markers(t, Some("gone"), None),
            Err(MissingMarker::From("gone".into()))
        );
    }
}
