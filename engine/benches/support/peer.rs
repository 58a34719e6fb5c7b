//! The peer, `buddy_system_allocator`, on the mixed sequence: one copy for the criterion bench
//! (`benches/engine.rs`) and the examples `mixed_cpu` and `mixed_one` (`#[path]` modules; the
//! engine's own `bench` module cannot name a dev-dependency).

use buddy_system_allocator::FrameAllocator;
use buddyscope::bench::{MixedStep, MIXED_ZONE_PAGES};

/// The peer's `ORDER`: blocks up to 2^10 pages, as `MAX_PAGE_ORDER`.
pub type Peer = FrameAllocator<11>;

/// A peer holding the mixed workload's zone (`MIXED_ZONE_PAGES` frames from 0).
pub fn mixed_peer() -> Peer {
    let mut p = Peer::new();
    p.add_frame(0, MIXED_ZONE_PAGES as usize);
    p
}

/// Runs `seq` on `p` as `buddyscope::bench::run_mixed_engine` runs it on the engine; returns
/// how many blocks are still allocated.
#[inline(never)]
pub fn run_mixed_peer(p: &mut Peer, seq: &[MixedStep]) -> usize {
    let mut live: Vec<(usize, usize)> = Vec::with_capacity(8192);
    for s in seq {
        match *s {
            MixedStep::Alloc { order, .. } => {
                let n = 1usize << order;
                live.push((p.alloc(n).expect("mixed alloc"), n));
            }
            MixedStep::Free { slot } => {
                let (f, n) = live.swap_remove(slot as usize);
                p.dealloc(f, n);
            }
        }
    }
    live.len()
}
