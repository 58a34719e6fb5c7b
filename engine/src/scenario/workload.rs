//! The `workload` op's generator: a seeded alloc/free mix (an implementation-defined stream,
//! stable per seed within a build). The runner executes each step as its own op record.

use super::format::MtWeights;
use crate::mm::{MigrateType, NR_PAGE_ORDERS};

/// The types a workload allocates, in the order its `mt_weights` are drawn.
const WORKLOAD_MTS: [MigrateType; 3] = [
    MigrateType::Unmovable,
    MigrateType::Movable,
    MigrateType::Reclaimable,
];

/// `splitmix64`: a small deterministic PRNG (no dependency, identical on every target).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn pick(rng: &mut SplitMix64, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = rng.next_f64() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// One step of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadStep {
    /// Free the live allocation at this index (the runner `swap_remove`s it).
    Free(usize),
    /// Allocate a block of this order and type.
    Alloc {
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
    },
}

/// The stream of a `workload` op's steps.
pub struct Workload {
    rng: SplitMix64,
    order_weights: [f64; NR_PAGE_ORDERS],
    mt_weights: [f64; WORKLOAD_MTS.len()],
    free_probability: f64,
}

impl Workload {
    /// The stream of a `workload` op with these fields.
    pub fn new(
        seed: u64,
        order_weights: [f64; NR_PAGE_ORDERS],
        mt_weights: &MtWeights,
        free_probability: f64,
    ) -> Self {
        Workload {
            rng: SplitMix64(seed),
            order_weights,
            mt_weights: WORKLOAD_MTS.map(|m| mt_weights.get(m)),
            free_probability,
        }
    }

    /// The next step with `live` allocations outstanding: a free with probability
    /// `free_probability` (never with none live), else an allocation drawn by the weights.
    pub fn next_step(&mut self, live: usize) -> WorkloadStep {
        if live != 0 && self.rng.next_f64() < self.free_probability {
            WorkloadStep::Free((self.rng.next_u64() % live as u64) as usize)
        } else {
            let order = pick(&mut self.rng, &self.order_weights) as u8;
            let mt = WORKLOAD_MTS[pick(&mut self.rng, &self.mt_weights)];
            WorkloadStep::Alloc { order, mt }
        }
    }
}
