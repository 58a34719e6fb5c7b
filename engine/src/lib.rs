//! buddyscope engine: a deterministic, steppable model of the Linux buddy page allocator
//! (`mm/page_alloc.c`, `mm/vmalloc.c`) with Linux 6.18, 7.1 and 7.2 behaviour profiles.
//!
//! Pure Rust: no wasm, no UI. The app and the `buddyscope` CLI both drive it.

#[cfg(feature = "bench")]
pub mod bench;
pub mod builtin;
pub mod cma;
pub mod compare;
pub mod events;
pub mod exercises;
pub mod fallback;
pub mod focus;
pub mod history;
pub mod limits;
pub mod locks;
pub mod metrics;
pub mod narrate;
pub mod ops;
pub mod outcome;
pub mod page_alloc;
pub mod pollution;
pub mod procfs;
pub mod pseudocode;
pub mod replay;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod setup;
pub mod snapshot;
pub mod snapshot_node;
pub mod stats;
pub mod timeline;
pub mod types;
pub mod vmalloc;
pub mod whereis;
pub mod workload;
pub mod zone;
