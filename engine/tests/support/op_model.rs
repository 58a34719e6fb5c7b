//! A test driver for random operation sequences: one booted engine, the allocations it handed
//! out (tracked independently of the zone), and the checks run after every operation.
//!
//! Shared by `tests/proptest_ops.rs` (proptest strategies build the [`Op`]s) and the
//! `op_sequence` fuzz target (which decodes them from bytes with [`decode`]). Every [`Op`] is
//! interpreted against the current state (`pick` selects among the live allocations modulo their
//! number, `cpu` modulo the CPU count), so any sequence is valid and shrinks well.

#![allow(dead_code)]

use buddyscope::{
    mm::{boot_engine, check_invariants, Engine, PageKind, VmArea, ZoneParams, VMALLOC_GFP, *},
    run::alloc_gfp,
};

/// The zone a sequence runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    pub pages: u32,
    pub cpus: u32,
    pub kernel: Kernel,
    pub rmqueue_mode_memory: bool,
    pub cma: bool,
    /// In order-10 blocks (scenario rule: `start_pfn` is a multiple of 1024).
    pub start_block: u32,
    /// Record events (the log is cleared after every op to bound memory).
    pub recording: bool,
}

impl Cfg {
    pub fn params(&self) -> ZoneParams {
        let mut p = ZoneParams::new(self.pages);
        p.kernel = self.kernel;
        p.cpus = self.cpus;
        p.rmqueue_mode_memory = self.rmqueue_mode_memory;
        p.cma = self.cma;
        p.start_pfn = self.start_block as u64 * 1024;
        p
    }
}

/// Requestable migratetypes of an `alloc`.
pub const MTS: [MigrateType; 3] = [
    MigrateType::Unmovable,
    MigrateType::Movable,
    MigrateType::Reclaimable,
];

/// One operation, interpreted against the state it meets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `alloc_pages(alloc_gfp(MTS[mt % 3], highatomic), order)` on `cpu`.
    Alloc {
        order: u8,
        mt: u8,
        highatomic: bool,
        cpu: u8,
    },
    /// Free a live block or page range (not a vmalloc): an unsplit block whole; a split block
    /// or contiguous range one held page (`one`) or every held page one by one.
    Free {
        pick: u32,
        one: bool,
        page: u32,
        cpu: u8,
    },
    /// `split_page` of a live unsplit block of order > 0.
    Split { pick: u32 },
    /// `free_contig_range` of a live split block or contiguous range whose pages are all held.
    FreeContig { pick: u32, chunked: bool, cpu: u8 },
    /// `alloc_contig_range`: from inside a free block (`near_free`) or anywhere.
    AllocContig { at: u32, nr: u32, near_free: bool },
    /// `vmalloc(pages)`; a failed area is freed at once (as the runner does).
    Vmalloc {
        pages: u32,
        large_order: bool,
        chunked_on_fail: bool,
        cpu: u8,
    },
    /// `vfree` of a live vmalloc area.
    Vfree { pick: u32, chunked: bool, cpu: u8 },
    /// `drain_pages_zone(cpu)`, or every CPU with pcp pages (`all`).
    Drain { cpu: u8, all: bool },
    /// One vmstat interval: `decay_pcp_high` on `cpu`, or on every CPU (`all`).
    Tick { cpu: u8, all: bool },
    /// `get_page` on a held page of a live split block or contiguous range.
    GetPage { pick: u32, page: u32 },
    /// `put_page` dropping one of the references `GetPage` took (the last frees the page).
    PutPage { pick: u32, cpu: u8 },
    /// `compact_memory`: `compact_node`, every page's owner follows a migration.
    CompactMemory { cpu: u8 },
    /// `compact`: one zone of `try_to_compact_pages` at `order`, `priority` 0 or 1.
    Compact { order: u8, priority: bool, cpu: u8 },
    /// `kcompactd`: one wakeup for `order` (`kcompactd_do_work`), or the timeout's proactive
    /// compaction with `proactiveness`.
    Kcompactd {
        order: Option<u8>,
        proactiveness: u32,
        cpu: u8,
    },
}

/// A live allocation as the test sees it.
#[derive(Clone, Debug)]
enum Live {
    /// An unsplit block: head refcount 1, tails 0.
    Block {
        pfn: u32,
        order: u8,
        owner: u32,
    },
    /// Order-0 references over `[pfn, pfn + held.len())` (a split block or an
    /// `alloc_contig_range`); `held[i]` while page `i` is still held; `at[i]`: where page `i`
    /// lives now (`pfn + i` until an `alloc_contig_range` migrates it).
    Pages {
        pfn: u32,
        held: Vec<bool>,
        at: Vec<u32>,
        nheld: u32,
        owner: u32,
    },
    Vm {
        area: VmArea,
        owner: u32,
    },
}

impl Live {
    fn pages_held(&self) -> u64 {
        match self {
            Live::Block { order, .. } => 1 << order,
            Live::Pages { nheld, .. } => *nheld as u64,
            Live::Vm { area, .. } => vm_pages(area),
        }
    }
}

fn vm_pages(a: &VmArea) -> u64 {
    a.pages.len() as u64 + a.array.as_ref().map_or(0, |x| vm_pages(x))
}

/// Counts of what the ops did (a sequence that does nothing is no test).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub ops: u64,
    pub allocs_ok: u64,
    pub allocs_failed: u64,
    pub frees: u64,
    pub splits: u64,
    pub contig_frees: u64,
    pub contig_allocs_ok: u64,
    pub contig_allocs_failed: u64,
    /// Blocks an `alloc_contig_range` migrated out of its range.
    pub contig_migrations: u64,
    pub vmallocs_ok: u64,
    pub vmallocs_failed: u64,
    pub vfrees: u64,
    pub drains: u64,
    /// Ops that found no target (free with nothing live, ...).
    pub noops: u64,
    pub ticks: u64,
    /// Pages `decay_pcp_high` freed.
    pub tick_drained: u64,
    pub get_pages: u64,
    pub put_pages: u64,
    /// `put_page`s that dropped the last reference and freed the page.
    pub put_page_frees: u64,
    /// Frees by the owner of a page a `get_page` reference still held.
    pub held_frees: u64,
    /// `compact_memory` runs and the folios they migrated.
    pub compactions: u64,
    pub compact_migrations: u64,
    /// Allocations that succeeded after reclaim's `drain_all_pages` (`__alloc_pages_direct_reclaim`).
    pub reclaim_rescues: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.ops += o.ops;
        self.allocs_ok += o.allocs_ok;
        self.allocs_failed += o.allocs_failed;
        self.frees += o.frees;
        self.splits += o.splits;
        self.contig_frees += o.contig_frees;
        self.contig_allocs_ok += o.contig_allocs_ok;
        self.contig_allocs_failed += o.contig_allocs_failed;
        self.contig_migrations += o.contig_migrations;
        self.vmallocs_ok += o.vmallocs_ok;
        self.vmallocs_failed += o.vmallocs_failed;
        self.vfrees += o.vfrees;
        self.drains += o.drains;
        self.noops += o.noops;
        self.ticks += o.ticks;
        self.tick_drained += o.tick_drained;
        self.get_pages += o.get_pages;
        self.put_pages += o.put_pages;
        self.put_page_frees += o.put_page_frees;
        self.held_frees += o.held_frees;
        self.reclaim_rescues += o.reclaim_rescues;
        self.compactions += o.compactions;
        self.compact_migrations += o.compact_migrations;
    }
}

pub struct Harness {
    pub engine: Engine,
    live: Vec<Live>,
    next_owner: u32,
    pub tally: Tally,
    /// Check that every page of every live allocation is still held as the test expects
    /// (O(allocated pages) per op).
    pub check_owners: bool,
    /// References `GetPage` took and `PutPage` has not dropped, per zone pfn.
    extra: std::collections::BTreeMap<u32, u8>,
}

impl Harness {
    pub fn new(cfg: &Cfg) -> Harness {
        let mut engine = boot_engine(&cfg.params());
        engine.recording = cfg.recording;
        let h = Harness {
            engine,
            live: Vec::new(),
            next_owner: 0,
            tally: Tally::default(),
            check_owners: std::env::var("NO_OWNERS").is_err(),
            extra: std::collections::BTreeMap::new(),
        };
        h.check().unwrap_or_else(|e| panic!("after boot: {e}"));
        h
    }

    fn owner(&mut self) -> u32 {
        self.next_owner += 1;
        self.next_owner
    }

    fn cpu(&self, c: u8) -> usize {
        c as usize % self.engine.zone().pcp().len()
    }

    /// Indices of live allocations matching `f`; `None` if there are none.
    fn pick(&self, pick: u32, f: impl Fn(&Live) -> bool) -> Option<usize> {
        let idx: Vec<usize> = (0..self.live.len()).filter(|&i| f(&self.live[i])).collect();
        if idx.is_empty() {
            None
        } else {
            Some(idx[pick as usize % idx.len()])
        }
    }

    /// Runs one op, then every check; `Err` describes the first violation.
    /// The owners of migrated blocks: their pages now live at the targets.
    fn follow(&mut self, migrated: &[buddyscope::mm::Migration]) {
        for m in migrated {
            for l in &mut self.live {
                match l {
                    Live::Block { pfn, owner, .. } if *owner == m.owner && *pfn == m.from => {
                        *pfn = m.to
                    }
                    Live::Pages { at, owner, .. } if *owner == m.owner => {
                        for p in at.iter_mut().filter(|p| **p == m.from) {
                            *p = m.to;
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    pub fn apply(&mut self, op: &Op) -> Result<(), String> {
        self.step_and_follow(op);
        self.tally.ops += 1;
        if self.engine.recording {
            self.engine.log.events.clear();
            self.engine.log.messages.clear();
        }
        self.check()
            .map_err(|e| format!("after op #{} {op:?}: {e}", self.tally.ops))
    }

    pub fn apply_nocheck(&mut self, op: &Op) {
        self.step_and_follow(op);
    }

    /// The op, then the folios direct compaction moved in an allocation's slow path follow.
    fn step_and_follow(&mut self, op: &Op) {
        self.step(op);
        let moved = self.engine.take_direct_migrations();
        if !moved.is_empty() {
            self.tally.compact_migrations += moved.len() as u64;
            self.follow(&moved);
        }
    }

    fn step(&mut self, op: &Op) {
        match *op {
            Op::Alloc {
                order,
                mt,
                highatomic,
                cpu,
            } => {
                let mt = MTS[mt as usize % 3];
                let owner = self.owner();
                let cpu = self.cpu(cpu);
                let gfp = alloc_gfp(mt, highatomic);
                let drains = self.engine.stats().pcp_drains;
                match self
                    .engine
                    .alloc_pages(gfp, order, cpu, owner, mt == MigrateType::Movable)
                {
                    Some(pfn) => {
                        self.tally.allocs_ok += 1;
                        // An allocation drains a pcp only in reclaim's drain_all_pages.
                        if self.engine.stats().pcp_drains != drains {
                            self.tally.reclaim_rescues += 1;
                        }
                        self.live.push(Live::Block { pfn, order, owner });
                    }
                    None => self.tally.allocs_failed += 1,
                }
            }
            Op::Free {
                pick,
                one,
                page,
                cpu,
            } => {
                let cpu = self.cpu(cpu);
                let Some(i) = self.pick(pick, |l| !matches!(l, Live::Vm { .. })) else {
                    self.tally.noops += 1;
                    return;
                };
                self.tally.frees += 1;
                match &mut self.live[i] {
                    Live::Block { pfn, order, .. } => {
                        let (pfn, order) = (*pfn, *order);
                        self.engine.free_pages(pfn, order, cpu);
                        self.live.swap_remove(i);
                    }
                    Live::Pages {
                        held, at, nheld, ..
                    } => {
                        let targets: Vec<u32> = if one {
                            let held_idx: Vec<u32> = (0..held.len() as u32)
                                .filter(|&k| held[k as usize])
                                .collect();
                            vec![held_idx[page as usize % held_idx.len()]]
                        } else {
                            (0..held.len() as u32)
                                .filter(|&k| held[k as usize])
                                .collect()
                        };
                        for &k in &targets {
                            held[k as usize] = false;
                        }
                        *nheld -= targets.len() as u32;
                        let empty = *nheld == 0;
                        let at = at.clone();
                        for k in targets {
                            let p = at[k as usize];
                            if self.extra.contains_key(&p) {
                                self.tally.held_frees += 1;
                            }
                            self.engine.free_pages(p, 0, cpu);
                        }
                        if empty {
                            self.live.swap_remove(i);
                        }
                    }
                    Live::Vm { .. } => unreachable!(),
                }
            }
            Op::Split { pick } => {
                let Some(i) = self.pick(
                    pick,
                    |l| matches!(l, Live::Block { order, .. } if *order > 0),
                ) else {
                    self.tally.noops += 1;
                    return;
                };
                let Live::Block { pfn, order, owner } = self.live[i] else {
                    unreachable!()
                };
                self.engine.split_page(pfn, order);
                self.tally.splits += 1;
                self.live[i] = Live::Pages {
                    pfn,
                    held: vec![true; 1 << order],
                    at: (pfn..pfn + (1 << order)).collect(),
                    nheld: 1 << order,
                    owner,
                };
            }
            Op::FreeContig { pick, chunked, cpu } => {
                let cpu = self.cpu(cpu);
                let Some(i) = self.pick(pick, |l| matches!(l, Live::Pages { pfn, held, at, nheld, .. } if *nheld as usize == held.len() && at.iter().enumerate().all(|(k, &p)| p == pfn + k as u32))) else {
                    self.tally.noops += 1;
                    return;
                };
                let Live::Pages { pfn, nheld, .. } = self.live.swap_remove(i) else {
                    unreachable!()
                };
                self.tally.held_frees += (pfn..pfn + nheld)
                    .filter(|p| self.extra.contains_key(p))
                    .count() as u64;
                if chunked {
                    self.engine.free_contig_range_chunked(pfn, nheld, cpu);
                } else {
                    self.engine.free_contig_range_per_page(pfn, nheld, cpu);
                }
                self.tally.contig_frees += 1;
            }
            Op::AllocContig { at, nr, near_free } => {
                let n = self.engine.zone().pages();
                let mut start = at % n;
                let mut max = 64;
                if near_free {
                    if let Some((head, o, _)) = self.engine.free_block_containing(start) {
                        start = head + (at >> 8) % (1 << o);
                        max = 1 << o.max(2);
                    }
                }
                let nr = 1 + nr % max.min(n - start);
                let owner = self.owner();
                let out = self.engine.alloc_contig_frozen_range(
                    start,
                    nr,
                    owner,
                    0,
                    buddyscope::mm::IsolateMode::Other,
                );
                // Migrated blocks: their owners' pages now live elsewhere.
                self.tally.contig_migrations += out.migrated.len() as u64;
                self.follow(&out.migrated);
                if out.result.is_ok() {
                    self.tally.contig_allocs_ok += 1;
                    self.live.push(Live::Pages {
                        pfn: start,
                        held: vec![true; nr as usize],
                        at: (start..start + nr).collect(),
                        nheld: nr,
                        owner,
                    });
                } else {
                    self.tally.contig_allocs_failed += 1;
                }
            }
            Op::Vmalloc {
                pages,
                large_order,
                chunked_on_fail,
                cpu,
            } => {
                let cpu = self.cpu(cpu);
                let strategy = if large_order {
                    VmallocStrategy::LargeOrder
                } else {
                    VmallocStrategy::Bulk
                };
                let owner = self.owner();
                let (area, ok) =
                    self.engine
                        .vmalloc(pages.max(1), strategy, cpu, owner, VMALLOC_GFP);
                if ok {
                    self.tally.vmallocs_ok += 1;
                    self.live.push(Live::Vm { area, owner });
                } else {
                    self.tally.vmallocs_failed += 1;
                    let m = if chunked_on_fail {
                        FreeMethod::Chunked
                    } else {
                        FreeMethod::PerPage
                    };
                    self.engine.vfree(&area, m, cpu);
                }
            }
            Op::Vfree { pick, chunked, cpu } => {
                let cpu = self.cpu(cpu);
                let Some(i) = self.pick(pick, |l| matches!(l, Live::Vm { .. })) else {
                    self.tally.noops += 1;
                    return;
                };
                let Live::Vm { area, .. } = self.live.swap_remove(i) else {
                    unreachable!()
                };
                let m = if chunked {
                    FreeMethod::Chunked
                } else {
                    FreeMethod::PerPage
                };
                self.engine.vfree(&area, m, cpu);
                self.tally.vfrees += 1;
            }
            Op::Drain { cpu, all } => {
                if all {
                    for c in 0..self.engine.zone().pcp().len() {
                        if self.engine.zone().pcp()[c].count != 0 {
                            self.engine.drain_pages_zone(c);
                        }
                    }
                } else {
                    let c = self.cpu(cpu);
                    self.engine.drain_pages_zone(c);
                }
                self.tally.drains += 1;
            }
            Op::CompactMemory { cpu } => {
                let cpu = self.cpu(cpu);
                let out = self.engine.compact_node(cpu);
                self.tally.compactions += 1;
                self.tally.compact_migrations += out.migrated.len() as u64;
                self.follow(&out.migrated);
            }
            Op::Compact {
                order,
                priority,
                cpu,
            } => {
                use buddyscope::mm::CompactPriority;
                let cpu = self.cpu(cpu);
                let prio = if priority {
                    CompactPriority::SyncLight
                } else {
                    CompactPriority::SyncFull
                };
                let zone = self.engine.node().active_index();
                let out = self.engine.compact_zone_order(cpu, zone, order % 11, prio);
                self.tally.compactions += 1;
                self.tally.compact_migrations += out.migrated.len() as u64;
                self.follow(&out.migrated);
            }
            Op::Kcompactd {
                order,
                proactiveness,
                cpu,
            } => {
                let cpu = self.cpu(cpu);
                let out = self
                    .engine
                    .kcompactd(order.map(|o| o % 11), proactiveness % 101, cpu);
                self.tally.compactions += 1;
                self.tally.compact_migrations += out.compacted.migrated.len() as u64;
                self.follow(&out.compacted.migrated);
            }
            Op::Tick { cpu, all } => {
                let cpus = if all {
                    0..self.engine.zone().pcp().len()
                } else {
                    let c = self.cpu(cpu);
                    c..c + 1
                };
                for c in cpus {
                    self.tally.tick_drained += self.engine.decay_pcp_high(c);
                }
                self.tally.ticks += 1;
            }
            Op::GetPage { pick, page } => {
                let Some(i) = self.pick(
                    pick,
                    |l| matches!(l, Live::Pages { nheld, .. } if *nheld > 0),
                ) else {
                    self.tally.noops += 1;
                    return;
                };
                let Live::Pages { held, at, .. } = &self.live[i] else {
                    unreachable!()
                };
                let idx: Vec<u32> = (0..held.len() as u32)
                    .filter(|&k| held[k as usize])
                    .collect();
                // Where the page lives now (alloc_contig_range may have migrated it).
                let p = at[idx[page as usize % idx.len()] as usize];
                if self.extra.get(&p).is_some_and(|&n| n >= 100) {
                    self.tally.noops += 1;
                    return;
                }
                self.engine.get_page(p);
                *self.extra.entry(p).or_insert(0) += 1;
                self.tally.get_pages += 1;
            }
            Op::PutPage { pick, cpu } => {
                if self.extra.is_empty() {
                    self.tally.noops += 1;
                    return;
                }
                let cpu = self.cpu(cpu);
                let p = *self
                    .extra
                    .keys()
                    .nth(pick as usize % self.extra.len())
                    .unwrap();
                let last = self.engine.zone().page_refcount(p) == 1;
                self.engine.put_page_and_free(p, cpu);
                let n = self.extra.get_mut(&p).unwrap();
                *n -= 1;
                if *n == 0 {
                    self.extra.remove(&p);
                }
                self.tally.put_pages += 1;
                if last {
                    self.tally.put_page_frees += 1;
                }
            }
        }
    }

    /// Pages only `get_page` references still hold (their allocation freed them).
    fn orphans(&self) -> Vec<u32> {
        let z = self.engine.zone();
        self.extra
            .keys()
            .copied()
            .filter(|&p| z.page_owner(p) == buddyscope::mm::NO_OWNER)
            .collect()
    }

    /// `check_invariants`, page conservation, and (optionally) every live page's state.
    pub fn check(&self) -> Result<(), String> {
        let z = self.engine.zone();
        check_invariants(z)?;
        let buddy: u64 = (0..NR_PAGE_ORDERS).map(|o| z.nr_free()[o] << o).sum();
        let pcp = z.pcp_pages();
        if pcp < 0 {
            return Err(format!("negative pcp count {pcp}"));
        }
        // Isolation never outlives an op: alloc_contig_range undoes it on every path.
        if let Some(pb) = (0..z.nr_pageblocks()).find(|&pb| z.pb_mt(pb) == MigrateType::Isolate) {
            return Err(format!("pageblock {pb} is still isolated"));
        }
        if let Some(o) =
            (0..NR_PAGE_ORDERS as u8).find(|&o| z.free_list(o, MigrateType::Isolate).len != 0)
        {
            return Err(format!(
                "a free block is left on the order-{o} Isolate list"
            ));
        }
        let held: u64 = self.live.iter().map(Live::pages_held).sum();
        let orphans = self.orphans();
        if buddy + pcp as u64 + held + orphans.len() as u64 != z.pages() as u64 {
            return Err(format!(
                "page conservation: {buddy} buddy + {pcp} pcp + {held} held by {} live allocations + {} held only by get_page != {} zone pages",
                self.live.len(),
                orphans.len(),
                z.pages()
            ));
        }
        // A page only get_page references hold is allocated, with exactly those references.
        for p in orphans {
            let want = self.extra[&p];
            if z.page_kind(p) != PageKind::Other || z.page_refcount(p) != want {
                return Err(format!(
                    "page {p:#x} held by {want} get_page reference(s) only: kind {:?} refcount {}",
                    z.page_kind(p),
                    z.page_refcount(p)
                ));
            }
        }
        if self.check_owners {
            for l in &self.live {
                self.check_live(l)?;
            }
        }
        Ok(())
    }

    fn check_live(&self, l: &Live) -> Result<(), String> {
        let z = self.engine.zone();
        let page = |p: u32, owner: u32, refs: u8| -> Result<(), String> {
            if z.page_kind(p) != PageKind::Other
                || z.page_owner(p) != owner
                || z.page_refcount(p) != refs
            {
                return Err(format!(
                    "page {p:#x} should be held by owner {owner} with refcount {refs}: kind {:?} owner {} refcount {}",
                    z.page_kind(p), z.page_owner(p), z.page_refcount(p)
                ));
            }
            Ok(())
        };
        match l {
            Live::Block { pfn, order, owner } => {
                page(*pfn, *owner, 1)?;
                for p in pfn + 1..pfn + (1 << order) {
                    page(p, *owner, 0)?;
                }
            }
            Live::Pages {
                held, at, owner, ..
            } => {
                for (k, &h) in held.iter().enumerate() {
                    let p = at[k];
                    if h {
                        page(p, *owner, 1 + self.extra.get(&p).copied().unwrap_or(0))?;
                    } else if z.page_kind(p) == PageKind::Other
                        && z.page_owner(p) == *owner
                        // A migration target may reuse the frame of a page freed before.
                        && !(0..held.len()).any(|j| held[j] && at[j] == p)
                    {
                        // (A pcp head's `owner` is its CPU: only allocated pages count.)
                        return Err(format!("freed page {p:#x} still owned by {owner}"));
                    }
                }
            }
            Live::Vm { area, owner } => {
                let mut a = Some(area);
                while let Some(x) = a {
                    for &p in &x.pages {
                        page(p, *owner, 1)?;
                    }
                    a = x.array.as_deref();
                }
            }
        }
        Ok(())
    }

    /// Frees everything still live, drains every pcp and checks the zone is whole again.
    pub fn teardown(&mut self) -> Result<(), String> {
        // `pick: 0` takes the first live allocation of the matching kind; each op retires one.
        while !self.live.is_empty() {
            let op = if self.live.iter().any(|l| !matches!(l, Live::Vm { .. })) {
                Op::Free {
                    pick: 0,
                    one: false,
                    page: 0,
                    cpu: 0,
                }
            } else {
                Op::Vfree {
                    pick: 0,
                    chunked: false,
                    cpu: 0,
                }
            };
            self.apply(&op)?;
        }
        while !self.extra.is_empty() {
            self.apply(&Op::PutPage { pick: 0, cpu: 0 })?;
        }
        self.apply(&Op::Drain { cpu: 0, all: true })?;
        let z = self.engine.zone();
        let free: u64 = (0..NR_PAGE_ORDERS).map(|o| z.nr_free()[o] << o).sum();
        if free != z.pages() as u64 || z.pcp_pages() != 0 {
            return Err(format!(
                "after freeing everything: {free} of {} pages free",
                z.pages()
            ));
        }
        Ok(())
    }
}

/// Runs `ops` on a fresh zone of `cfg`, checking after every op; returns the tally.
pub fn run_sequence(cfg: &Cfg, ops: &[Op]) -> Result<Tally, String> {
    let mut h = Harness::new(cfg);
    for op in ops {
        h.apply(op)?;
    }
    Ok(h.tally)
}

// ------------------------------------------------------------------------------------------
// Decoding from raw bytes (the fuzz target)
// ------------------------------------------------------------------------------------------

/// A little-endian byte reader that yields zeros once the input is exhausted.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
}

/// Decodes a zone (`min_pages..=max_pages` pages, min ≥ 1024) and an op sequence from fuzzer
/// bytes. `grouped_only`: CMA is dropped where it would disable mobility grouping (a zone of
/// 2560..3072 pages), so with `min_pages` ≥ 2560 grouping is always on.
pub fn decode(data: &[u8], min_pages: u32, max_pages: u32, grouped_only: bool) -> (Cfg, Vec<Op>) {
    let mut b = Bytes::new(data);
    let flags = b.u8();
    let min_pages = min_pages.max(1024);
    let span = max_pages.saturating_sub(min_pages) + 1;
    let pages = min_pages + b.u16() as u32 % span;
    let cfg = Cfg {
        pages,
        cpus: 1 + (flags & 3) as u32,
        kernel: [Kernel::V6_18, Kernel::V7_1, Kernel::V7_2][((flags >> 2) & 3) as usize % 3],
        rmqueue_mode_memory: flags & 16 != 0,
        cma: flags & 32 != 0 && !(grouped_only && pages < 3072),
        start_block: ((flags >> 6) & 1) as u32,
        recording: flags & 128 != 0,
    };
    let mut ops = Vec::new();
    while !b.is_empty() {
        let tag = b.u8();
        let x = b.u8();
        let cpu = x >> 5;
        let op = match tag % 16 {
            0..=4 => Op::Alloc {
                order: [0, 0, 0, 1, 2, 3, 0, 1, 4, 5, 6, 7, 8, 9, 9, 10][(x & 15) as usize],
                mt: (tag >> 4) % 3,
                highatomic: x & 16 != 0 && tag & 0x40 != 0,
                cpu,
            },
            5..=7 => Op::Free {
                pick: b.u16() as u32,
                one: x & 1 != 0,
                page: b.u16() as u32,
                cpu,
            },
            8 => Op::Split {
                pick: b.u16() as u32,
            },
            9 => Op::FreeContig {
                pick: b.u16() as u32,
                chunked: x & 1 != 0,
                cpu,
            },
            10 => Op::AllocContig {
                at: b.u32(),
                nr: b.u16() as u32,
                near_free: x & 1 != 0,
            },
            11 | 12 => Op::Vmalloc {
                pages: 1 + if x & 2 != 0 {
                    b.u16() as u32 % 600
                } else {
                    (x >> 2) as u32 % 8 * 4 + b.u8() as u32 % 4
                },
                large_order: x & 1 != 0,
                chunked_on_fail: tag & 0x80 != 0,
                cpu,
            },
            13 | 14 => Op::Vfree {
                pick: b.u16() as u32,
                chunked: x & 1 != 0,
                cpu,
            },
            // Tag 15: the pcp and reference ops, by the low bits of `x`.
            _ => match x & 6 {
                0 => Op::Drain {
                    cpu,
                    all: x & 1 != 0,
                },
                2 => Op::Tick {
                    cpu,
                    all: x & 1 != 0,
                },
                4 => Op::GetPage {
                    pick: b.u16() as u32,
                    page: b.u16() as u32,
                },
                _ => Op::PutPage {
                    pick: b.u16() as u32,
                    cpu,
                },
            },
        };
        ops.push(op);
    }
    (cfg, ops)
}

// ------------------------------------------------------------------------------------------
// Failure reduction
// ------------------------------------------------------------------------------------------

/// Runs `ops` (then the teardown) and returns the failure, a check's or a panic's, if any.
pub fn failure(cfg: &Cfg, ops: &[Op]) -> Option<String> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut h = Harness::new(cfg);
        for op in ops {
            h.apply(op)?;
        }
        h.teardown()
    }));
    match r {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(p) => Some(format!("panic: {}", panic_text(&*p))),
    }
}

/// The message of a caught panic.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Removes ops while the sequence still fails (delta debugging, chunks halving down to one
/// op), silencing the panic hook meanwhile. Returns the reduced sequence and its failure.
pub fn minimize(cfg: &Cfg, ops: &[Op]) -> (Vec<Op>, Option<String>) {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    // Keep the kind of failure: a panic stays a panic, a violated check a violated check.
    let kind = |f: &str| f.starts_with("panic: ");
    let want = failure(cfg, ops).map(|f| kind(&f));
    let still_fails = |cand: &[Op]| failure(cfg, cand).is_some_and(|f| Some(kind(&f)) == want);
    let mut cur = ops.to_vec();
    let mut chunk = cur.len().div_ceil(2).max(1);
    loop {
        let mut i = 0;
        while i < cur.len() {
            let mut cand = cur[..i].to_vec();
            cand.extend_from_slice(&cur[(i + chunk).min(cur.len())..]);
            if still_fails(&cand) {
                cur = cand;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    let f = failure(cfg, &cur);
    std::panic::set_hook(hook);
    (cur, f)
}
