//! buddyscope engine: a deterministic, steppable model of the Linux buddy page allocator
//! (`mm/page_alloc.c`, `mm/vmalloc.c`, `mm/compaction.c`, `mm/cma.c`) with Linux 6.12, 6.18, 6.19,
//! 7.1, 7.2 and 7.3 behaviour profiles.
//!
//! Pure Rust: no wasm, no UI. The app and the `buddyscope` CLI both drive it.
//!
//! Four layers, each importing only from the layers before it (`engine/tests/layers.rs` checks
//! it): [`mm`] (the allocator model: node, zone, events, kernel paths), [`scenario`] (the input format
//! and what it names), [`run`] (a scenario's run, its cursor, trace replay) and [`explain`]
//! (words, reports and answers about a run). The names below are the front door: what the CLI
//! and the app use most; everything else is reached through its layer. `bench` (the benchmark
//! sequences) is built with the `bench` feature, which the CLI's `cli` feature turns on.

#![warn(missing_docs)]
#![warn(unnameable_types)]

#[cfg(feature = "bench")]
pub mod bench;
pub mod explain;
pub mod mm;
pub mod run;
pub mod scenario;

pub use explain::{narrate, trace_text, trace_text_upto, Ctx};
pub use mm::{
    Annotation, Event, EventKind, Kernel, KernelFn, MigrateType, Mutation, Node, Pfn, Stats, Step,
    Zone,
};
pub use run::{build, replay, Limits, Run, RunOptions, Runner, Start, Timeline};
pub use scenario::{
    builtin, parse, parse_valid, ComparePair, CompareSide, Init, Scenario, ScenarioError, Side,
    ValidScenario,
};
