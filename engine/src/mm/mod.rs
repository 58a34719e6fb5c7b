//! The allocator model: the kernel's types, the zone and its events, and the kernel paths.

pub mod boot;
pub mod cma;
pub mod contig;
pub mod events;
pub mod locks;
pub mod metrics;
pub(crate) mod packed;
pub mod page_alloc;
pub mod stats;
pub mod steps;
pub mod trace;
pub mod types;
pub mod vmalloc;
pub mod zone;
