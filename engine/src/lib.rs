//! buddyscope engine: a deterministic, steppable model of the Linux buddy page allocator
//! (`mm/page_alloc.c`, `mm/vmalloc.c`) with Linux 6.18, 7.1 and 7.2 behaviour profiles.
//!
//! Pure Rust: no wasm, no UI. The app and the `buddyscope` CLI both drive it.

pub mod bench;
pub mod explain;
pub mod mm;
pub mod run;
pub mod scenario;

// The modules' paths before the layers, for the crate's consumers until they use the layers.
pub use explain::{exercises, fallback, narrate, pollution, pseudocode, report, whereis};
pub use mm::{
    boot, cma, events, locks, metrics, page_alloc, stats, steps, trace, types, vmalloc, zone,
};
pub use run::{focus, history, limits, outcome, replay, runner, setup, timeline};
pub use scenario::zone_snapshot as snapshot;
pub use scenario::{builtin, node_snapshot as snapshot_node, pair as compare, procfs, workload};
