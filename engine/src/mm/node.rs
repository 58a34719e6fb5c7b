//! A node (`pg_data_t`): its zones in pfn order (`pgdat->node_zones`, the populated ones) and
//! the one the allocator is working on.
//!
//! A machine of one zone is a node of one zone. A node changes only through [`Node::apply`] of a
//! [`Mutation`] event: [`Mutation::ZoneSwitch`] changes which zone is worked on, every other
//! mutation changes that zone (the events name its pages). Every mutation is undone by
//! [`Node::unapply`], so a timeline steps back exactly and replays from a checkpoint through the
//! code the live run used.

use crate::mm::events::{Event, EventKind, Mutation};
use crate::mm::types::Pfn;
use crate::mm::zone::Zone;
use serde::{Deserialize, Serialize};

/// A node: `node_zones` and the zone being worked on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The zones, in pfn order (ascending zone type); at least one.
    zones: Vec<Zone>,
    /// The index in `zones` of the zone being worked on: the one the allocation and free code
    /// operate on and the events' pfns are in.
    active: u8,
}

impl From<Zone> for Node {
    /// A node of one zone.
    fn from(zone: Zone) -> Node {
        Node {
            zones: vec![zone],
            active: 0,
        }
    }
}

impl Node {
    /// A node of `zones` (pfn order, at least one), working on the highest: the preferred zone
    /// of `GFP_KERNEL` on a node without a Movable zone.
    pub fn new(zones: Vec<Zone>) -> Node {
        assert!(!zones.is_empty(), "a node has a zone");
        debug_assert!(zones.len() <= crate::mm::zone::MAX_NR_ZONES);
        let active = (zones.len() - 1) as u8;
        Node { zones, active }
    }

    /// The zones, in pfn order.
    pub fn into_zones(self) -> Vec<Zone> {
        self.zones
    }

    /// Every zone, in pfn order (the kernel's order in `/proc`).
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// Zone `i`, in pfn order.
    pub fn zone(&self, i: usize) -> &Zone {
        &self.zones[i]
    }

    /// Zones in the node (1 for a machine of one zone).
    pub fn nr_zones(&self) -> usize {
        self.zones.len()
    }

    /// More than one zone: a zone switch, a zonelist walk and per-zone views can happen.
    pub fn several_zones(&self) -> bool {
        self.zones.len() > 1
    }

    /// The index of the zone being worked on.
    pub fn active_index(&self) -> usize {
        self.active as usize
    }

    /// The zone being worked on.
    #[inline(always)]
    pub fn active(&self) -> &Zone {
        &self.zones[self.active as usize]
    }

    /// The zone being worked on, to change in setup (boot, the `/proc` import, a snapshot):
    /// after setup a zone changes only through [`Node::apply`].
    #[inline(always)]
    pub(crate) fn active_mut(&mut self) -> &mut Zone {
        &mut self.zones[self.active as usize]
    }

    /// The index of the highest zone: where an allocation starts when nothing names a zone, and
    /// where a run's ops end.
    pub fn home_index(&self) -> usize {
        self.zones.len() - 1
    }

    /// The index of the zone holding absolute pfn `pfn` (`page_zone`), if any.
    pub fn zone_index_of(&self, pfn: Pfn) -> Option<usize> {
        self.zones
            .iter()
            .position(|z| pfn >= z.cfg.start_pfn && pfn < z.cfg.start_pfn + z.cfg.pages as Pfn)
    }

    /// The index of the zone named `name`, if any.
    pub fn zone_named(&self, name: &str) -> Option<usize> {
        self.zones.iter().position(|z| z.cfg.name == name)
    }

    /// Heap bytes of the node: its zones' ([`Zone::heap_bytes`]) and the zone array.
    pub fn heap_bytes(&self) -> usize {
        self.zones.iter().map(Zone::heap_bytes).sum::<usize>()
            + self.zones.capacity() * std::mem::size_of::<Zone>()
    }

    /// What differs first between `self` and `other` (`None` if equal): a diagnostic for tests
    /// comparing two ways to the same state.
    pub fn first_difference(&self, other: &Node) -> Option<&'static str> {
        if self.zones.len() != other.zones.len() {
            return Some("zones");
        }
        if self.active != other.active {
            return Some("zone being worked on");
        }
        self.zones
            .iter()
            .zip(&other.zones)
            .find_map(|(a, b)| a.first_difference(b))
    }

    /// Applies an event forwards: a mutation changes the node; an annotation changes nothing
    /// here (the run's cost counters count it: [`crate::mm::Stats::apply`]).
    #[inline(always)]
    pub fn apply(&mut self, ev: &Event) {
        self.apply_kind(ev.kind());
    }

    /// `apply` of an event not yet stored (the engine's `emit`: no decoding).
    ///
    /// Always inlined: every `Engine::emit` site builds one known variant, so the match folds to
    /// that arm.
    #[inline(always)]
    pub(crate) fn apply_kind(&mut self, kind: EventKind) {
        if let EventKind::Mutation(m) = kind {
            match m {
                Mutation::ZoneSwitch { to, .. } => self.active = to,
                m => self.active_mut().mutate(m),
            }
        }
    }

    /// Undoes `apply(ev)`; must be called in reverse event order.
    pub fn unapply(&mut self, ev: &Event) {
        if let EventKind::Mutation(m) = ev.kind() {
            match m {
                Mutation::ZoneSwitch { from, .. } => self.active = from,
                m => self.active_mut().unmutate(m),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::boot::{boot_node, ZoneParams};
    use crate::mm::events::Event;
    use crate::mm::gfp::GFP_KERNEL;
    use crate::mm::steps::Step;
    use crate::mm::zone::ZoneType;

    /// DMA32 (4096 pages at 1 GiB) under Normal (4096 pages at 4 GiB).
    fn two_zones() -> Vec<ZoneParams> {
        let mut dma32 = ZoneParams::new(4096);
        dma32.name = "DMA32".into();
        dma32.start_pfn = 0x4_0000;
        let mut normal = ZoneParams::new(4096);
        normal.start_pfn = 0x10_0000;
        vec![dma32, normal]
    }

    #[test]
    fn a_node_works_on_its_highest_zone_and_knows_each_zones_type() {
        let e = boot_node(&two_zones());
        let node = e.node();
        assert_eq!(node.nr_zones(), 2);
        assert!(node.several_zones());
        assert_eq!((node.active_index(), node.home_index()), (1, 1));
        let types: Vec<ZoneType> = node.zones().iter().map(Zone::zone_type).collect();
        assert_eq!(types, [ZoneType::Dma32, ZoneType::Normal]);
        assert_eq!(node.zone_index_of(0x4_0000 + 4095), Some(0));
        assert_eq!(node.zone_index_of(0x10_0000), Some(1));
        assert_eq!(node.zone_index_of(0x4_0000 + 4096), None);
        assert_eq!(node.zone_named("DMA32"), Some(0));
        let one = Node::from(node.zone(1).clone());
        assert!(!one.several_zones());
        assert_eq!((one.active_index(), one.home_index()), (0, 0));
    }

    /// A switch changes which zone is worked on and nothing else; an allocation the zonelist
    /// takes to DMA32 changes that zone only; undoing every event gives the node back, and
    /// applying them again the engine's node. (`assert!`, not `assert_eq!`: a zone's Debug text
    /// is long.)
    #[test]
    fn a_switch_moves_the_work_and_every_event_undoes() {
        use crate::mm::gfp::__GFP_DMA32;
        let mut e = boot_node(&two_zones());
        let start = e.node().clone();
        e.select_zone(Step::PageZone, 0);
        assert_eq!(e.node().active_index(), 0);
        assert!(e.node().zones() == start.zones());
        e.select_zone(Step::PageZone, 1);
        let p = e
            .alloc_pages(GFP_KERNEL | __GFP_DMA32, 0, 0, 7, false)
            .expect("a page");
        assert_eq!(e.node().active_index(), 0, "the page is DMA32's");
        assert_eq!(e.zone().page_owner(p), 7);
        assert!(e.node().zone(1) == start.zone(1), "Normal is untouched");
        assert!(e.node().zone(0) != start.zone(0));
        let events: Vec<Event> = e.log.events.iter().copied().collect();
        let mut back = e.node().clone();
        for ev in events.iter().rev() {
            back.unapply(ev);
        }
        assert_eq!(back.first_difference(&start), None);
        let mut again = start.clone();
        for ev in &events {
            again.apply(ev);
        }
        assert!(&again == e.node());
    }

    #[test]
    fn zone_types_are_the_kernels() {
        assert_eq!(
            ZoneType::ALL.map(ZoneType::name),
            ["DMA", "DMA32", "Normal", "Movable"]
        );
        assert_eq!(ZoneType::from_name("DMA32"), Some(ZoneType::Dma32));
        assert_eq!(ZoneType::from_name("HighMem"), None);
        assert_eq!(ZoneType::for_zone_named("sandbox"), ZoneType::Normal);
        assert!(ZoneType::Dma < ZoneType::Dma32 && ZoneType::Normal < ZoneType::Movable);
        assert_eq!(
            serde_json::to_string(&ZoneType::Dma32).unwrap(),
            "\"DMA32\""
        );
    }
}
