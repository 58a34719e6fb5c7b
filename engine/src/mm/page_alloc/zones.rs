//! A node of several zones (`pgdat->node_zones`): the zonelist walk of
//! `get_page_from_freelist`, `gfp_zone`, `page_zone` for frees, and `lowmem_reserve`.
//!
//! The allocation and free code works on [`Engine::zone`], "the zone being worked on", one of the
//! node's zones ([`Node::active_index`](crate::mm::node::Node::active_index)). Moving to another
//! zone is the recorded, invertible [`Mutation::ZoneSwitch`], so a replay, a rewind or a
//! checkpoint is exact. A node of one zone never switches: its traces are byte for byte those of
//! the one-zone model.

use super::Engine;
use crate::mm::events::*;
use crate::mm::steps::Step;
use crate::mm::types::gfp::*;
use crate::mm::types::*;
use crate::mm::zone::*;

/// `gfp_zone(gfp)` on x86_64 (no `CONFIG_HIGHMEM`): the highest zone type the request may use.
/// `__GFP_DMA` → DMA, `__GFP_DMA32` → DMA32, `__GFP_MOVABLE | __GFP_HIGHMEM` → Movable
/// (`GFP_HIGHUSER_MOVABLE`), anything else → Normal (`GFP_ZONE_TABLE`, include/linux/gfp.h).
pub fn gfp_zone(gfp: u32) -> ZoneType {
    if gfp & __GFP_DMA != 0 {
        ZoneType::Dma
    } else if gfp & __GFP_DMA32 != 0 {
        ZoneType::Dma32
    } else if gfp & __GFP_MOVABLE != 0 && gfp & __GFP_HIGHMEM != 0 {
        ZoneType::Movable
    } else {
        ZoneType::Normal
    }
}

/// `sysctl_lowmem_reserve_ratio[]` (mm/page_alloc.c v6.18.2 :231, v7.1.5 same): DMA 256,
/// DMA32 256, Normal 32, Movable 0.
pub const LOWMEM_RESERVE_RATIO: [u64; MAX_NR_ZONES] = [256, 256, 32, 0];

/// `setup_per_zone_lowmem_reserve` (v6.18.2, v7.1.5): for each zone `i` below the top,
/// `lowmem_reserve[j] = (managed pages of the node's zones of types i+1..=j) / ratio[i]`, 0 if
/// the ratio or the zone is empty. `zones` are `(type, managed pages)` in pfn order; returns one
/// array per zone.
pub fn lowmem_reserves(zones: &[(ZoneType, u64)]) -> Vec<[u64; MAX_NR_ZONES]> {
    let managed = |t: usize| -> u64 {
        zones
            .iter()
            .filter(|z| z.0.idx() == t)
            .map(|z| z.1)
            .sum::<u64>()
    };
    zones
        .iter()
        .map(|&(t, pages)| {
            let i = t.idx();
            let mut r = [0u64; MAX_NR_ZONES];
            let ratio = LOWMEM_RESERVE_RATIO[i];
            let clear = ratio == 0 || pages == 0;
            let mut upper = 0u64;
            for (j, slot) in r.iter_mut().enumerate().skip(i + 1) {
                upper += managed(j);
                *slot = if clear { 0 } else { upper / ratio };
            }
            r
        })
        .collect()
}

impl Engine {
    /// Makes zone `idx` of the node the zone being worked on (a recorded [`Mutation::ZoneSwitch`];
    /// nothing in a node of one zone or when it already is). Inlined with the switch out of
    /// line: every allocation asks at least twice, and nearly always nothing changes.
    #[inline(always)]
    pub fn select_zone(&mut self, step: Step, idx: usize) {
        if self.node.several_zones() && idx != self.node.active_index() {
            self.record_zone_switch(step, idx);
        }
    }

    #[inline(never)]
    fn record_zone_switch(&mut self, step: Step, idx: usize) {
        let from = self.node.active_index() as u8;
        self.emit(
            step,
            Mutation::ZoneSwitch {
                from,
                to: idx as u8,
            },
        );
    }

    /// `page_zone()` of absolute pfn `pfn`: selects the zone holding it and returns the pfn's
    /// index in it. `None` if no zone of the node holds it.
    pub fn select_zone_of(&mut self, step: Step, pfn: Pfn) -> Option<ZonePfn> {
        let i = self.node.zone_index_of(pfn)?;
        self.select_zone(step, i);
        Some(self.zone().zone_pfn(pfn))
    }

    /// The zonelist of the node for `ac->highest_zoneidx`: the zones of a type at or below it,
    /// highest first (`for_next_zone_zonelist_nodemask`). `[0]` in a node of one zone.
    /// Inlined with the walk out of line: every allocation asks twice, and a node of one zone
    /// (every built-in but the several-zone ones) needs no walk.
    #[inline(always)]
    pub(crate) fn zonelist(&self) -> Zonelist {
        if !self.node.several_zones() {
            return Zonelist {
                idx: [0; MAX_NR_ZONES],
                len: 1,
            };
        }
        self.zonelist_node()
    }

    #[inline(never)]
    fn zonelist_node(&self) -> Zonelist {
        let mut list = Zonelist {
            idx: [0; MAX_NR_ZONES],
            len: 0,
        };
        for (i, z) in self.node.zones().iter().enumerate().rev() {
            if z.zone_type() <= self.highest_zoneidx {
                list.idx[list.len] = i;
                list.len += 1;
            }
        }
        list
    }

    /// `z->lowmem_reserve[ac->highest_zoneidx]` of the zone being worked on.
    pub(crate) fn lowmem_reserve_now(&self) -> i64 {
        self.zone().lowmem_reserve()[self.highest_zoneidx.idx()] as i64
    }

    /// `drain_all_pages(NULL)` on a node of several zones: for each CPU that has pages on any
    /// zone's pcp, `drain_pages(cpu)` drains every zone in turn (`drain_pages_zone` takes the pcp
    /// lock even where the count is 0). `__drain_all_pages` (v6.18.2, v7.1.5).
    pub(crate) fn drain_all_pages_node(&mut self) {
        let home = self.node.active_index();
        let cpus = self.zone().pcp.len();
        for cpu in 0..cpus {
            let has = self.node.zones().iter().any(|z| z.pcp[cpu].count != 0);
            if !has {
                continue;
            }
            for i in 0..self.node.nr_zones() {
                self.select_zone(Step::DrainEveryZone, i);
                self.drain_pages_zone(cpu);
            }
        }
        self.select_zone(Step::DrainEveryZone, home);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfp_zone_follows_the_zone_table() {
        assert_eq!(gfp_zone(GFP_KERNEL), ZoneType::Normal);
        assert_eq!(gfp_zone(GFP_HIGHUSER_MOVABLE), ZoneType::Movable);
        assert_eq!(gfp_zone(GFP_KERNEL | __GFP_DMA32), ZoneType::Dma32);
        assert_eq!(gfp_zone(GFP_KERNEL | __GFP_DMA), ZoneType::Dma);
        assert_eq!(gfp_zone(__GFP_MOVABLE), ZoneType::Normal);
    }

    /// A 4 GiB DMA32 (1,044,480 managed, say) under a 12 GiB Normal: DMA32's reserve against a
    /// Normal or Movable request is Normal's managed pages / 256; Normal's own is 0 (nothing
    /// above it but an empty Movable).
    #[test]
    fn lowmem_reserve_sums_the_zones_above() {
        let r = lowmem_reserves(&[
            (ZoneType::Dma, 3977),
            (ZoneType::Dma32, 1_044_480),
            (ZoneType::Normal, 3_145_728),
        ]);
        assert_eq!(
            r[0],
            [
                0,
                1_044_480 / 256,
                (1_044_480 + 3_145_728) / 256,
                (1_044_480 + 3_145_728) / 256
            ]
        );
        assert_eq!(r[1], [0, 0, 3_145_728 / 256, 3_145_728 / 256]);
        assert_eq!(r[2], [0, 0, 0, 0]);
    }
}

/// A zonelist: node indices of zones, highest first. A fixed array (a node has at most
/// `MAX_NR_ZONES` zones) rather than a `Vec`, because every allocation walks it: a heap
/// allocation per walk was ~15 % of the engine's time with recording off.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zonelist {
    idx: [usize; MAX_NR_ZONES],
    len: usize,
}

impl std::ops::Deref for Zonelist {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.idx[..self.len]
    }
}

impl IntoIterator for Zonelist {
    type Item = usize;
    type IntoIter = std::iter::Take<std::array::IntoIter<usize, MAX_NR_ZONES>>;
    fn into_iter(self) -> Self::IntoIter {
        self.idx.into_iter().take(self.len)
    }
}

impl<'a> IntoIterator for &'a Zonelist {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.idx[..self.len].iter()
    }
}
