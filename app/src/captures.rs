//! Real kernels on stage: the lab captures the trace panel replays as they come
//! (`www/captures.txt`, staged into the build by `scripts/stage-captures.sh`): the kernel's own
//! trace from its drgn snapshot, cut at the lab's snapshot markers, as `buddyscope replay
//! trace.txt --scenario snapshot-before.json --from-marker … --to-marker …` replays it. A
//! window of a long capture (`lab/capture.py window`) has no markers: it is replayed whole,
//! from the model's state at its first line.

/// The marker the lab writes where it took the before snapshot.
pub const BEFORE: &str = "buddyscope: snapshot before";
/// The marker the lab writes where it took the after snapshot.
pub const AFTER: &str = "buddyscope: snapshot after";

/// One capture the app offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    /// `<version>/<workload>`: its folder under `captures/` in the build (and under
    /// `engine/tests/fixtures/lab/` in the repository).
    pub dir: &'static str,
    /// What it shows.
    pub what: &'static str,
}

/// The captures, in `www/captures.txt`'s order (the build stages the same list).
pub fn captures() -> Vec<Capture> {
    include_str!("../../www/captures.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(dir, what)| Capture { dir, what })
        .collect()
}

impl Capture {
    /// The URL of one of its files, relative to the app.
    pub fn url(&self, file: &str) -> String {
        format!("captures/{}/{file}", self.dir)
    }

    /// The name the replay goes by: the kernel it ran and the command line it booted with
    /// (the lab's own `buddyscope.*` and console options left out), from its `capture.json`.
    pub fn title(&self, capture_json: &str) -> Result<String, String> {
        let v: serde_json::Value = serde_json::from_str(capture_json)
            .map_err(|e| format!("{}: capture.json: {e}", self.dir))?;
        let field = |k: &str| {
            v[k].as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{}: capture.json has no \"{k}\"", self.dir))
        };
        let (kernel, cmdline, workload) = (field("kernel")?, field("cmdline")?, field("workload")?);
        let options: Vec<&str> = cmdline
            .split_whitespace()
            .filter(|o| {
                !o.starts_with("buddyscope.")
                    && !o.starts_with("console=")
                    && !o.starts_with("panic=")
            })
            .collect();
        let booted = if options.is_empty() {
            String::new()
        } else {
            format!(", booted with {}", options.join(" "))
        };
        Ok(match Self::window(&v) {
            Some((first, last)) => format!(
                "the lab's {workload} capture, trace lines {}–{} from the model's state at the first (Linux {kernel}{booted})",
                crate::panels::runstatus::group(first),
                crate::panels::runstatus::group(last)
            ),
            None => format!("the lab's {workload} capture (Linux {kernel}{booted})"),
        })
    }

    /// Whether the capture is a stretch of a longer one (`lab/capture.py window`): its trace
    /// has no snapshot markers and is replayed whole, from the model's state at its first line.
    pub fn is_window(capture_json: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(capture_json)
            .is_ok_and(|v| Self::window(&v).is_some())
    }

    fn window(v: &serde_json::Value) -> Option<(u64, u64)> {
        let w = v.get("window")?;
        Some((w["first_line"].as_u64()?, w["last_line"].as_u64()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_capture_is_a_lab_folder_with_a_title() {
        let list = captures();
        assert!(list.len() >= 2, "{list:?}");
        for c in &list {
            let dir = format!(
                "{}/../engine/tests/fixtures/lab/{}",
                env!("CARGO_MANIFEST_DIR"),
                c.dir
            );
            let json = std::fs::read_to_string(format!("{dir}/capture.json")).unwrap();
            let title = c.title(&json).unwrap();
            assert!(title.contains("Linux "), "{title}");
            for f in ["snapshot-before.json.gz", "trace.txt.gz"] {
                assert!(
                    std::path::Path::new(&format!("{dir}/{f}")).exists(),
                    "{dir}/{f}"
                );
            }
        }
        let cma = list.iter().find(|c| c.dir == "7.3.4/gigantic-cma").unwrap();
        let json = include_str!("../../engine/tests/fixtures/lab/7.3.4/gigantic-cma/capture.json");
        assert_eq!(
            cma.title(json).unwrap(),
            "the lab's gigantic-cma capture (Linux 7.3.4+deb13-amd64, booted with hugetlb_cma=2G)"
        );
        assert_eq!(
            cma.url("trace.txt"),
            "captures/7.3.4/gigantic-cma/trace.txt"
        );
        assert!(cma.title("{}").unwrap_err().contains("no \"kernel\""));
        assert!(!Capture::is_window(json));
        let w = list
            .iter()
            .find(|c| c.dir == "7.3.4/fragment-fallbacks")
            .unwrap();
        let json =
            include_str!("../../engine/tests/fixtures/lab/7.3.4/fragment-fallbacks/capture.json");
        assert!(Capture::is_window(json));
        assert_eq!(
            w.title(json).unwrap(),
            "the lab's fragment capture, trace lines 3,520,000–3,540,000 from the model's state at the first (Linux 7.3.4+deb13-amd64)"
        );
    }
}
