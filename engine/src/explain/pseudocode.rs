//! Short pseudocode of each modelled kernel function, written for this project (not kernel
//! source): the lines that the [`Step`](crate::mm::Step)s of events point into, so the UI
//! can highlight "where we are" for any event.
//!
//! The text is `pseudocode.json` beside this file (each function's name and its lines).
//! Natively it is compiled in and read on first use; the browser build leaves it out of its
//! wasm (data is never split off a module, so it would be in the first download) and gets it
//! with the other texts after the first paint ([`crate::scenario::texts`]): the first frame is
//! at event 0, which points into no function.

use crate::mm::KernelFn;
// Until the crate's consumers import it from the layer.
pub use crate::mm::Step;

/// The pseudocode of a function, one line per entry (none in the browser until the texts are in).
pub fn lines(f: KernelFn) -> &'static [&'static str] {
    #[cfg(target_arch = "wasm32")]
    return crate::scenario::pseudocode_text(f.name());
    #[cfg(not(target_arch = "wasm32"))]
    compiled_in(f)
}

#[cfg(not(target_arch = "wasm32"))]
fn compiled_in(f: KernelFn) -> &'static [&'static str] {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static LINES: OnceLock<HashMap<String, &'static [&'static str]>> = OnceLock::new();
    LINES
        .get_or_init(|| {
            crate::scenario::read_pseudocode(include_str!("pseudocode.json"))
                .expect("pseudocode.json is a map of function names to lines")
        })
        .get(f.name())
        .copied()
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function has its lines, and every function named in the file exists.
    #[test]
    fn every_function_has_lines() {
        for f in KernelFn::ALL {
            assert!(!lines(f).is_empty(), "{}", f.name());
        }
        let all = crate::scenario::read_pseudocode(include_str!("pseudocode.json")).unwrap();
        for name in all.keys() {
            assert!(KernelFn::ALL.iter().any(|f| f.name() == name), "{name}");
        }
    }

    #[test]
    fn every_step_points_at_a_line() {
        for &s in Step::ALL {
            let l = lines(s.func());
            assert!(
                s.line() < l.len(),
                "{:?} line {} of {}",
                s,
                s.line(),
                s.func().name()
            );
        }
    }
}
