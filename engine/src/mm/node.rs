//! A node (`pg_data_t`): its zones (`pgdat->node_zones`) and the one the allocator is working
//! on.
//!
//! A machine of one zone is a node of one zone. A node changes only through [`Node::apply`] of a
//! [`Mutation`] event: [`Mutation::ZoneSwitch`] changes which zone is worked on, every other
//! mutation changes that zone (the events name its pages). Every mutation is undone by
//! [`Node::unapply`], so a timeline steps back exactly and replays from a checkpoint through the
//! code the live run used.

use crate::mm::events::{Event, EventKind, Mutation};
use crate::mm::types::{Kernel, Pfn};
use crate::mm::zone::{Zone, ZoneConfig, ZoneType, MAX_NR_ZONES};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A node: `node_zones` and the zone being worked on.
///
/// As the kernel's `pgdat->node_zones[MAX_NR_ZONES]`, the zones are an array of `MAX_NR_ZONES`
/// in the node itself (the slots no zone fills hold empty zones of no pages). The engine reaches
/// the zone being worked on at every step of every allocation and free, so that zone is kept in
/// slot 0: its fields are at fixed offsets from the node, with no index to read, scale and
/// bound after every store. A zone switch swaps two slots; `slot` keeps each zone's slot, and
/// everything outside this file sees the zones in pfn order ([`Node::zones`]).
#[derive(Clone)]
pub struct Node {
    /// The zones by slot; `slots[0]` is the zone being worked on.
    slots: [Zone; MAX_NR_ZONES],
    /// `slot[i]`: the slot of zone `i` (pfn order, ascending zone type), for `i < nr`.
    slot: [u8; MAX_NR_ZONES],
    /// Populated zones: at least one.
    nr: u8,
    /// The index (pfn order) of the zone being worked on: the one the allocation and free code
    /// operate on and the events' pfns are in. Below `nr`; `slot[active]` is 0.
    active: u8,
}

/// A slot of `node_zones` no zone fills: no pages.
fn empty_zone() -> Zone {
    Zone::new_empty(ZoneConfig {
        name: String::new(),
        zone_type: ZoneType::Movable,
        kernel: Kernel::default(),
        start_pfn: 0,
        pages: 0,
        cpus: 0,
        cma: false,
        rmqueue_mode_memory: false,
        mobility_disabled: false,
        thp: false,
        nofragment_first_pass: false,
    })
}

impl From<Zone> for Node {
    /// A node of one zone.
    fn from(zone: Zone) -> Node {
        Node::new(vec![zone])
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.active == other.active && self.zones() == other.zones()
    }
}

impl Eq for Node {}

impl std::fmt::Debug for Node {
    /// The zones in pfn order (the empty slots after them), whatever slot each is in.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nr = self.nr as usize;
        let empty = (0..MAX_NR_ZONES).filter(|s| !self.slot[..nr].contains(&(*s as u8)));
        let order: Vec<&Zone> = self.slot[..nr]
            .iter()
            .map(|&s| s as usize)
            .chain(empty)
            .map(|s| &self.slots[s])
            .collect();
        f.debug_struct("Node")
            .field("zones", &order)
            .field("nr", &self.nr)
            .field("active", &self.active)
            .finish()
    }
}

impl Node {
    /// A node of `zones` (pfn order, at least one, at most `MAX_NR_ZONES`), working on the
    /// highest: the preferred zone of `GFP_KERNEL` on a node without a Movable zone.
    pub fn new(zones: Vec<Zone>) -> Node {
        let nr = zones.len();
        assert!(
            (1..=MAX_NR_ZONES).contains(&nr),
            "a node has 1 to {MAX_NR_ZONES} zones, not {nr}"
        );
        let mut it = zones.into_iter();
        let mut node = Node {
            slots: std::array::from_fn(|_| it.next().unwrap_or_else(empty_zone)),
            slot: std::array::from_fn(|i| i as u8),
            nr: nr as u8,
            active: 0,
        };
        node.set_active((nr - 1) as u8);
        node
    }

    /// The zones, in pfn order.
    pub fn into_zones(self) -> Vec<Zone> {
        let nr = self.nr as usize;
        let slot = self.slot;
        let mut slots = self.slots.map(Some);
        slot[..nr]
            .iter()
            .map(|&s| slots[s as usize].take().expect("each zone in its own slot"))
            .collect()
    }

    /// Every zone, in pfn order (the kernel's order in `/proc`).
    pub fn zones(&self) -> Zones<'_> {
        Zones {
            slots: &self.slots,
            slot: &self.slot[..self.nr as usize],
        }
    }

    /// Zone `i`, in pfn order.
    pub fn zone(&self, i: usize) -> &Zone {
        self.zones().get(i).expect("a zone of the node")
    }

    /// Zones in the node (1 for a machine of one zone).
    pub fn nr_zones(&self) -> usize {
        self.nr as usize
    }

    /// More than one zone: a zone switch, a zonelist walk and per-zone views can happen.
    pub fn several_zones(&self) -> bool {
        self.nr > 1
    }

    /// The index of the zone being worked on.
    pub fn active_index(&self) -> usize {
        self.active as usize
    }

    /// The zone being worked on.
    #[inline(always)]
    pub fn active(&self) -> &Zone {
        &self.slots[0]
    }

    /// The zone being worked on, to change in setup (boot, the `/proc` import, a snapshot):
    /// after setup a zone changes only through [`Node::apply`].
    #[inline(always)]
    pub(crate) fn active_mut(&mut self) -> &mut Zone {
        &mut self.slots[0]
    }

    /// Works on zone `i` from now on: it moves to slot 0, the zone there to its slot.
    fn set_active(&mut self, i: u8) {
        assert!(i < self.nr, "zone {i} of a node of {}", self.nr);
        if i == self.active {
            return;
        }
        let s = self.slot[i as usize];
        self.slots.swap(0, s as usize);
        self.slot[self.active as usize] = s;
        self.slot[i as usize] = 0;
        self.active = i;
    }

    /// The index of the highest zone: where an allocation starts when nothing names a zone, and
    /// where a run's ops end.
    pub fn home_index(&self) -> usize {
        self.nr as usize - 1
    }

    /// The index of the zone holding absolute pfn `pfn` (`page_zone`), if any.
    pub fn zone_index_of(&self, pfn: Pfn) -> Option<usize> {
        self.zones()
            .iter()
            .position(|z| pfn >= z.cfg.start_pfn && pfn < z.cfg.start_pfn + z.cfg.pages as Pfn)
    }

    /// The index of the zone named `name`, if any.
    pub fn zone_named(&self, name: &str) -> Option<usize> {
        self.zones().iter().position(|z| z.cfg.name == name)
    }

    /// Heap bytes of the node: its zones' ([`Zone::heap_bytes`]).
    pub fn heap_bytes(&self) -> usize {
        self.zones().iter().map(Zone::heap_bytes).sum::<usize>()
    }

    /// What differs first between `self` and `other` (`None` if equal): a diagnostic for tests
    /// comparing two ways to the same state.
    pub fn first_difference(&self, other: &Node) -> Option<&'static str> {
        if self.nr != other.nr {
            return Some("zones");
        }
        if self.active != other.active {
            return Some("zone being worked on");
        }
        self.zones()
            .iter()
            .zip(other.zones())
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
                Mutation::ZoneSwitch { to, .. } => self.set_active(to),
                m => self.active_mut().mutate(m),
            }
        }
    }

    /// Undoes `apply(ev)`; must be called in reverse event order.
    pub fn unapply(&mut self, ev: &Event) {
        if let EventKind::Mutation(m) = ev.kind() {
            match m {
                Mutation::ZoneSwitch { from, .. } => self.set_active(from),
                m => self.active_mut().unmutate(m),
            }
        }
    }
}

/// A node's zones in pfn order ([`Node::zones`]): iterated, indexed and compared like the
/// slice of them it stands for.
#[derive(Clone, Copy)]
pub struct Zones<'a> {
    slots: &'a [Zone; MAX_NR_ZONES],
    /// The slot of each zone, in pfn order.
    slot: &'a [u8],
}

impl<'a> Zones<'a> {
    /// The number of zones.
    pub fn len(&self) -> usize {
        self.slot.len()
    }

    /// No zones (never, for a node's).
    pub fn is_empty(&self) -> bool {
        self.slot.is_empty()
    }

    /// The zones in pfn order.
    pub fn iter(&self) -> ZonesIter<'a> {
        ZonesIter {
            slots: self.slots,
            slot: self.slot.iter(),
        }
    }

    /// Zone `i` (pfn order), if there is one.
    pub fn get(&self, i: usize) -> Option<&'a Zone> {
        self.slot.get(i).map(|&s| &self.slots[s as usize])
    }

    /// The first zone (the lowest).
    pub fn first(&self) -> Option<&'a Zone> {
        self.iter().next()
    }

    /// The last zone (the highest).
    pub fn last(&self) -> Option<&'a Zone> {
        self.iter().next_back()
    }

    /// The zones, as a vector of references.
    pub fn to_vec(&self) -> Vec<&'a Zone> {
        self.iter().collect()
    }
}

impl<'a> std::ops::Index<usize> for Zones<'a> {
    type Output = Zone;
    fn index(&self, i: usize) -> &Zone {
        &self.slots[self.slot[i] as usize]
    }
}

impl PartialEq for Zones<'_> {
    fn eq(&self, other: &Zones<'_>) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Zones<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Zones<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'a> IntoIterator for Zones<'a> {
    type Item = &'a Zone;
    type IntoIter = ZonesIter<'a>;
    fn into_iter(self) -> ZonesIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Zones<'a> {
    type Item = &'a Zone;
    type IntoIter = ZonesIter<'a>;
    fn into_iter(self) -> ZonesIter<'a> {
        self.iter()
    }
}

/// The iterator of [`Zones`].
#[derive(Clone)]
pub struct ZonesIter<'a> {
    slots: &'a [Zone; MAX_NR_ZONES],
    slot: std::slice::Iter<'a, u8>,
}

impl<'a> Iterator for ZonesIter<'a> {
    type Item = &'a Zone;
    fn next(&mut self) -> Option<&'a Zone> {
        self.slot.next().map(|&s| &self.slots[s as usize])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slot.size_hint()
    }
}

impl DoubleEndedIterator for ZonesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.slot.next_back().map(|&s| &self.slots[s as usize])
    }
}

impl ExactSizeIterator for ZonesIter<'_> {}

/// A node's serialized form: its zones (pfn order) and the index of the one being worked on.
#[derive(Serialize)]
struct NodeOut<'a> {
    zones: Zones<'a>,
    active: u8,
}

#[derive(Deserialize)]
struct NodeIn {
    zones: Vec<Zone>,
    active: u8,
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        NodeOut {
            zones: self.zones(),
            active: self.active,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        use serde::de::Error as _;
        let n = NodeIn::deserialize(d)?;
        if n.zones.is_empty() || n.zones.len() > MAX_NR_ZONES || n.active as usize >= n.zones.len()
        {
            return Err(D::Error::custom(format!(
                "a node has 1 to {MAX_NR_ZONES} zones and works on one of them"
            )));
        }
        let mut node = Node::new(n.zones);
        node.set_active(n.active);
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use crate::mm::zone::ZoneType;

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
