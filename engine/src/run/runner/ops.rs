//! The semantics of each op as the scenario contract pins them: one function per op, each
//! returning its outcome in words (and the pageblocks it touched where that is a figure).

use super::{alloc_gfp, mt_gfp, pageblocks_of, pageblocks_of_zoned, Exec, Handle, Outcome};
use crate::mm::PageKind;
use crate::mm::Step;
use crate::mm::VMALLOC_GFP;
use crate::mm::*;
use crate::scenario::{DrainTarget, Op};
use crate::scenario::{Workload, WorkloadStep};

/// The gfp zone modifier that makes the zone type an op names (`"zone": "DMA32"`) the highest
/// zone of a request.
fn zone_gfp(name: &str) -> u32 {
    use crate::mm::gfp::*;
    match ZoneType::from_name(name) {
        Some(ZoneType::Dma) => __GFP_DMA,
        Some(ZoneType::Dma32) => __GFP_DMA32,
        _ => 0,
    }
}

impl Exec<'_, '_> {
    /// One leaf op as one op record: the op's own function does the work and returns the
    /// outcome text and the pageblocks it touched.
    pub(super) fn run_leaf(&mut self, op: &Op, def: u32) {
        let start = self.begin(def);
        let cpu = op.cpu() as usize;
        let (outcome, touched) = match op {
            Op::Alloc {
                order,
                mt,
                highatomic,
                zone,
                ..
            } => self.op_alloc(op, def, *order, *mt, *highatomic, zone.as_deref(), cpu),
            Op::Split { ref_name, .. } => (self.op_split(ref_name), 0),
            Op::Free { ref_name, page, .. } => (self.op_free(ref_name, *page, cpu), 0),
            Op::AllocContigRange { pfn, nr_pages, .. } => {
                self.op_alloc_contig_range(op, def, *pfn, *nr_pages)
            }
            Op::FreeContigRange {
                ref_name,
                pfn,
                nr_pages,
                method,
                ..
            } => {
                let method = self.s.free_contig_range_method(*method);
                let outcome =
                    self.op_free_contig_range(ref_name.as_deref(), *pfn, *nr_pages, method, cpu);
                (outcome, 0)
            }
            Op::Vmalloc {
                pages, strategy, ..
            } => self.op_vmalloc(op, def, *pages, *strategy, cpu),
            Op::Vfree {
                ref_name, method, ..
            } => (self.op_vfree(ref_name, *method, cpu), 0),
            Op::Drain { cpu: target, .. } => (self.op_drain(target), 0),
            Op::Tick { cpu: target, .. } => (self.op_tick(target), 0),
            Op::CompactMemory { .. } => self.op_compact_memory(cpu),
            Op::Kcompactd { order, .. } => self.op_kcompactd(cpu, *order),
            Op::Compact {
                order,
                zone,
                priority,
                ..
            } => self.op_compact(cpu, *order, zone.as_deref(), *priority),
            Op::GetPage { ref_name, page, .. } => (self.op_get_page(ref_name, *page), 0),
            Op::PutPage { ref_name, page, .. } => (self.op_put_page(ref_name, *page, cpu), 0),
            Op::CmaAlloc {
                nr_pages, align, ..
            } => self.op_cma_alloc(op, def, *nr_pages, align.unwrap_or(0), cpu),
            Op::CmaRelease { ref_name, .. } => (self.op_cma_release(ref_name, cpu), 0),
            Op::Repeat { .. } | Op::Workload { .. } => unreachable!("handled by run_program"),
        };
        // Direct compaction in an allocation's slow path moved these folios: names follow.
        for m in self.engine.take_direct_migrations() {
            self.follow(&m);
        }
        self.end(def, start, touched, outcome);
    }

    /// `alloc`: `alloc_pages` with the gfp of [`alloc_gfp`] (`GFP_ATOMIC` for `highatomic`),
    /// plus `GFP_DMA32` / `GFP_DMA` for a `zone` of that name.
    #[allow(clippy::too_many_arguments)]
    fn op_alloc(
        &mut self,
        op: &Op,
        def: u32,
        order: u8,
        mt: MigrateType,
        highatomic: bool,
        zone: Option<&str>,
        cpu: usize,
    ) -> (Outcome, u32) {
        let owner = self.new_owner(def, mt, 0);
        let gfp = alloc_gfp(mt, highatomic) | zone.map_or(0, zone_gfp);
        let lru = mt == MigrateType::Movable;
        match self.engine.alloc_pages(gfp, order, cpu, owner, lru) {
            Some(pfn) => {
                self.bind(
                    op,
                    Handle::Alloc {
                        pfn,
                        order,
                        split: false,
                        owner,
                        cpu,
                    },
                );
                let outcome = Outcome::Allocated {
                    order,
                    pfn: self.engine.zone().abs_pfn(pfn),
                };
                (outcome, 1)
            }
            None => {
                self.bind(op, Handle::Failed);
                self.engine.message(
                    Step::OpFailure,
                    MsgLevel::Failure,
                    format!("alloc order {order} failed"),
                );
                (Outcome::Failed, 0)
            }
        }
    }

    /// `split`: `split_page` of a held high-order allocation into order-0 pages.
    fn op_split(&mut self, ref_name: &str) -> Outcome {
        if let Some(h) = self.lookup() {
            self.enter_zone_of(h);
        }
        match self.lookup().map(|h| (h, self.handles[h].clone())) {
            Some((
                h,
                Handle::Alloc {
                    pfn,
                    order,
                    split,
                    owner,
                    cpu: c,
                },
            )) => {
                let hz = self.handle_zones[h] as usize;
                if self.held(hz, pfn, 1, owner).is_empty() {
                    self.warn(format!("split {ref_name}: already freed, skipped"))
                } else if split || order == 0 {
                    Outcome::NothingToSplit
                } else {
                    let head = self.enter_page(hz, owner, pfn);
                    self.engine.split_page(head, order);
                    self.handles[h] = Handle::Alloc {
                        pfn,
                        order,
                        split: true,
                        owner,
                        cpu: c,
                    };
                    Outcome::Split {
                        pages: 1u32 << order,
                    }
                }
            }
            _ => self.warn(format!("split {ref_name}: the allocation failed, skipped")),
        }
    }

    /// `alloc_contig_range`: isolate, drain, migrate the movable pages out, take the range;
    /// all or nothing (migrations already done stay, and the names follow their pages).
    fn op_alloc_contig_range(
        &mut self,
        op: &Op,
        def: u32,
        pfn: Pfn,
        nr_pages: u64,
    ) -> (Outcome, u32) {
        let owner = self.new_owner(def, MigrateType::Movable, 0);
        let rel = self
            .engine
            .select_zone_of(Step::PageZone, pfn)
            .unwrap_or_else(|| self.engine.zone().zone_pfn(pfn));
        let n = nr_pages as u32;
        let cpu = op.cpu() as usize;
        let out = self.engine.alloc_contig_frozen_range(
            rel,
            n,
            owner,
            cpu,
            crate::mm::IsolateMode::Other,
        );
        for m in &out.migrated {
            self.follow(m);
        }
        let migrated = out.migrated.len() as u32;
        match out.result {
            Ok(()) => {
                self.bind(
                    op,
                    Handle::Contig {
                        pfn: rel,
                        nr: n,
                        owner,
                    },
                );
                let outcome = if migrated == 0 {
                    Outcome::ContigAllocated { nr: n, pfn }
                } else {
                    Outcome::ContigMigrated {
                        nr: n,
                        pfn,
                        migrated,
                    }
                };
                (outcome, pageblocks_of(rel..rel + n))
            }
            Err(e) => {
                self.bind(op, Handle::Failed);
                match e {
                    crate::mm::ContigError::Busy(_) => (Outcome::RangeInUse, 0),
                    crate::mm::ContigError::NoMem(_) => (Outcome::ContigNoMem { migrated }, 0),
                }
            }
        }
    }

    /// `cma_alloc`: a free run of the area's bitmap, taken with `alloc_contig_frozen_range`;
    /// the names of migrated pages follow them, as for `alloc_contig_range`.
    fn op_cma_alloc(
        &mut self,
        op: &Op,
        def: u32,
        nr_pages: u64,
        align: u8,
        cpu: usize,
    ) -> (Outcome, u32) {
        let Some(mut area) = self.cma.take() else {
            return (self.warn("cma_alloc: no CMA area".into()), 0);
        };
        self.engine.select_zone_of(Step::PageZone, area.base_pfn);
        let owner = self.new_owner(def, MigrateType::Movable, 0);
        let n = nr_pages as u32;
        let out = self.engine.cma_alloc(&mut area, n, align, owner, cpu);
        self.cma = Some(area);
        for m in &out.migrated {
            self.follow(m);
        }
        let migrated = out.migrated.len() as u32;
        let retries = out.busy.len() as u32;
        match out.pfn {
            Some(rel) => {
                self.bind(
                    op,
                    Handle::Contig {
                        pfn: rel,
                        nr: n,
                        owner,
                    },
                );
                let outcome = Outcome::CmaAllocated {
                    nr: n,
                    pfn: self.engine.zone().abs_pfn(rel),
                    migrated,
                    retries,
                };
                (outcome, pageblocks_of(rel..rel + n))
            }
            None => {
                self.bind(op, Handle::Failed);
                (
                    Outcome::CmaFailed {
                        ret: out.ret,
                        retries,
                    },
                    0,
                )
            }
        }
    }

    /// `cma_release`: the pages of a `cma_alloc` freed as the profile frees frozen pages.
    fn op_cma_release(&mut self, name: &str, cpu: usize) -> Outcome {
        let Some(h) = self.lookup() else {
            return self.warn(format!("cma_release {name}: unknown name"));
        };
        self.enter_zone_of(h);
        match self.handles[h].clone() {
            Handle::Contig { pfn, nr, owner } => {
                let held = self
                    .held(self.handle_zones[h] as usize, pfn, nr, owner)
                    .len() as u32;
                if held == 0 {
                    return self.warn(format!("cma_release {name}: already released, skipped"));
                }
                if held != nr {
                    // The kernel would free those pages a second time (their refcount is 0).
                    return self.warn(format!(
                        "cma_release {name}: {} of its pages were already freed by pfn (free_contig_range); refused",
                        nr - held
                    ));
                }
                let Some(mut area) = self.cma.take() else {
                    return self.warn(format!("cma_release {name}: no CMA area"));
                };
                self.engine.cma_release(&mut area, pfn, nr, cpu);
                self.cma = Some(area);
                let k = self.engine.zone().cfg.kernel;
                Outcome::ContigFreed {
                    nr,
                    chunked: k.cma_frozen() && k.default_free_method() == FreeMethod::Chunked,
                }
            }
            Handle::Failed => {
                self.warn(format!("cma_release {name}: the cma_alloc failed, skipped"))
            }
            _ => self.warn(format!("cma_release {name}: not a cma_alloc")),
        }
    }

    /// `vmalloc`: populate an area by the strategy; a failed area is freed again at once.
    fn op_vmalloc(
        &mut self,
        op: &Op,
        def: u32,
        pages: u64,
        strategy: Option<VmallocStrategy>,
        cpu: usize,
    ) -> (Outcome, u32) {
        let strategy = self.s.vmalloc_strategy(strategy);
        let owner = self.new_owner(def, MigrateType::Unmovable, 0);
        let (area, ok) = self.engine.vmalloc(
            u32::try_from(pages).unwrap_or(u32::MAX),
            strategy,
            cpu,
            owner,
            VMALLOC_GFP,
        );
        let large: Vec<(u8, bool)> = area
            .attempts
            .iter()
            .filter(|a| a.0 > 0 || !a.1)
            .copied()
            .collect();
        let touched = pageblocks_of_zoned(area.all_pages_zoned().into_iter());
        if ok {
            let out = Outcome::Vmalloc {
                pages: area.pages.len(),
                large,
                order0: area.attempts.iter().filter(|a| a.0 == 0 && a.1).count(),
            };
            self.bind(
                op,
                Handle::Vmalloc {
                    area,
                    owner,
                    freed: false,
                },
            );
            (out, touched)
        } else {
            let method = self.s.vfree_method(None);
            let when = if self.s.kernel == Kernel::V6_18 {
                "immediately"
            } else {
                "deferred"
            };
            self.engine.message(
                Step::OpFailure,
                MsgLevel::Failure,
                format!(
                    "vmalloc of {pages} pages failed after {} pages; area freed ({when})",
                    area.pages.len()
                ),
            );
            self.engine.vfree(&area, method, cpu);
            self.bind(op, Handle::Failed);
            (Outcome::Failed, touched)
        }
    }

    /// `vfree`: free what a vmalloc area still holds.
    fn op_vfree(&mut self, ref_name: &str, method: Option<FreeMethod>, cpu: usize) -> Outcome {
        let method = self.s.vfree_method(method);
        match self.lookup() {
            Some(h) => match self.handles[h].clone() {
                Handle::Vmalloc {
                    area,
                    owner,
                    freed: false,
                } => {
                    // Pages a pfn-based free_contig_range already released are no
                    // longer the area's (the contract leaves this undefined): free only
                    // what the area still holds, never a page twice.
                    let held = self.held_area(&area, owner);
                    if held.pages.len() + held.array.as_ref().map_or(0, |a| a.all_pages().len())
                        < area.all_pages().len()
                    {
                        self.warn(format!(
                            "vfree {ref_name}: some pages were already freed by pfn; only the pages still held are freed"
                        ));
                    }
                    self.engine.vfree(&held, method, cpu);
                    self.handles[h] = Handle::Vmalloc {
                        area,
                        owner,
                        freed: true,
                    };
                    Outcome::Vfreed
                }
                Handle::Vmalloc { .. } => {
                    self.warn(format!("vfree {ref_name}: already freed, skipped"))
                }
                _ => self.warn(format!("vfree {ref_name}: the allocation failed, skipped")),
            },
            None => self.warn(format!("vfree {ref_name}: unknown name")),
        }
    }

    /// `tick`: one vmstat interval: `decay_pcp_high` on one CPU's pcp or on every CPU's.
    fn op_tick(&mut self, target: &DrainTarget) -> Outcome {
        let cpus = match target {
            DrainTarget::Cpu(c) => *c as usize..*c as usize + 1,
            DrainTarget::All => 0..self.engine.zone().pcp.len(),
        };
        let mut drained = 0;
        for c in cpus {
            // refresh_cpu_vm_stats: every populated zone, in order.
            for z in 0..self.engine.node().nr_zones() {
                self.engine.select_zone(Step::PageZone, z);
                drained += self.engine.decay_pcp_high(c);
            }
        }
        Outcome::Ticked { drained }
    }

    /// `compact_memory`: `compact_node` of every zone; the names of moved pages follow them.
    /// The pageblocks touched are those a folio left or went to.
    fn op_compact_memory(&mut self, cpu: usize) -> (Outcome, u32) {
        let out = self.engine.compact_node(cpu);
        self.compacted(out)
    }

    /// `compact`: one zone of `try_to_compact_pages` at `order` (the named zone, else the
    /// node's last: the highest type); the names of moved pages follow them.
    fn op_compact(
        &mut self,
        cpu: usize,
        order: u8,
        zone: Option<&str>,
        priority: Option<u8>,
    ) -> (Outcome, u32) {
        use crate::mm::CompactPriority;
        let node = self.engine.node();
        let idx = zone
            .and_then(|name| node.zone_named(name))
            .unwrap_or(node.home_index());
        let prio = if priority == Some(1) {
            CompactPriority::SyncLight
        } else {
            CompactPriority::SyncFull
        };
        let out = self.engine.compact_zone_order(cpu, idx, order, prio);
        self.compacted(out)
    }

    /// The outcome of a compaction: each moved folio's name follows it.
    /// `kcompactd`: one wakeup, with the scenario's `vm.compaction_proactiveness`; the names
    /// of moved pages follow them.
    fn op_kcompactd(&mut self, cpu: usize, order: Option<u8>) -> (Outcome, u32) {
        let proactiveness = self
            .s
            .zone
            .compaction_proactiveness
            .or_else(|| self.s.zones.iter().find_map(|z| z.compaction_proactiveness))
            .unwrap_or(crate::mm::COMPACTION_PROACTIVENESS);
        let k = self.engine.kcompactd(order, proactiveness, cpu);
        let (score_before, score_after) = k.score;
        let (do_work, proactive) = (k.do_work, k.proactive);
        let (c, blocks) = self.compacted(k.compacted);
        let Outcome::Compacted {
            migrated, pages, ..
        } = c
        else {
            unreachable!("compacted returns Outcome::Compacted")
        };
        (
            Outcome::Kcompactd {
                do_work,
                proactive,
                score_before,
                score_after,
                migrated,
                pages,
            },
            blocks,
        )
    }

    fn compacted(&mut self, out: crate::mm::CompactOutcome) -> (Outcome, u32) {
        let mut blocks: Vec<(u8, u32)> = Vec::new();
        for m in &out.migrated {
            self.follow(m);
            blocks.push((m.from_zone, m.from >> PAGEBLOCK_ORDER));
            blocks.push((m.to_zone, m.to >> PAGEBLOCK_ORDER));
        }
        blocks.sort_unstable();
        blocks.dedup();
        let pages: u64 = out.migrated.iter().map(|m| 1u64 << m.order).sum();
        let outcome = Outcome::Compacted {
            migrated: out.migrated.len() as u32,
            pages,
            zones: out.results.len() as u32,
        };
        (outcome, blocks.len() as u32)
    }

    /// `drain`: `drain_pages_zone` for one CPU, or for every CPU whose pcp holds pages.
    fn op_drain(&mut self, target: &DrainTarget) -> Outcome {
        match target {
            // drain_pages(cpu): every zone of the node, in order.
            DrainTarget::Cpu(c) => {
                for z in 0..self.engine.node().nr_zones() {
                    self.engine.select_zone(Step::DrainEveryZone, z);
                    self.engine.drain_pages_zone(*c as usize);
                }
            }
            DrainTarget::All => self.engine.drain_all_pages(),
        }
        Outcome::Drained
    }

    fn op_free(&mut self, name: &str, page: Option<u64>, cpu: usize) -> Outcome {
        let Some(h) = self.lookup() else {
            return self.warn(format!("free {name}: unknown name"));
        };
        self.enter_zone_of(h);
        let hz = self.handle_zones[h] as usize;
        match self.handles[h].clone() {
            Handle::Failed => self.warn(format!("free {name}: the allocation failed, skipped")),
            Handle::Vmalloc { .. } => self.warn(format!("free {name}: use vfree for a vmalloc")),
            Handle::Alloc {
                pfn,
                order,
                split,
                owner,
                ..
            } => {
                let n = 1u32 << order;
                if let Some(i) = page {
                    if !split && order > 0 {
                        return self.warn(format!(
                            "free {name} page {i}: the order-{order} block is not split; refused"
                        ));
                    }
                    if i >= n as u64 {
                        return self.warn(format!(
                            "free {name} page {i}: beyond the {n}-page allocation; refused"
                        ));
                    }
                    let p = pfn + i as u32;
                    if self.held(hz, p, 1, owner).is_empty() {
                        return self.warn(format!("free {name} page {i}: already freed; refused"));
                    }
                    let p = self.enter_page(hz, owner, p);
                    return self.free_one_page_of(p, i, cpu);
                }
                if split {
                    let held = self.held(hz, pfn, n, owner);
                    if held.is_empty() {
                        return self.warn(format!("free {name}: already freed, skipped"));
                    }
                    self.free_each(&held, cpu);
                    Outcome::FreedOneByOne { pages: held.len() }
                } else {
                    if self.held(hz, pfn, 1, owner).is_empty() {
                        return self.warn(format!("free {name}: already freed, skipped"));
                    }
                    let p = self.enter_page(hz, owner, pfn);
                    if order == 0 {
                        if let o @ Outcome::StillReferenced { .. } =
                            self.free_one_page_of(p, 0, cpu)
                        {
                            return o;
                        }
                    } else {
                        self.engine.free_pages(p, order, cpu);
                    }
                    Outcome::BlockFreed { order }
                }
            }
            Handle::Contig { pfn, nr, owner } => {
                if let Some(i) = page {
                    if i >= nr as u64 {
                        return self.warn(format!(
                            "free {name} page {i}: beyond the {nr}-page range; refused"
                        ));
                    }
                    let p = pfn + i as u32;
                    if self.held(hz, p, 1, owner).is_empty() {
                        return self.warn(format!("free {name} page {i}: already freed; refused"));
                    }
                    let p = self.enter_page(hz, owner, p);
                    return self.free_one_page_of(p, i, cpu);
                }
                let held = self.held(hz, pfn, nr, owner);
                if held.is_empty() {
                    return self.warn(format!("free {name}: already freed, skipped"));
                }
                self.free_each(&held, cpu);
                Outcome::FreedOneByOne { pages: held.len() }
            }
        }
    }

    fn op_free_contig_range(
        &mut self,
        name: Option<&str>,
        pfn: Option<u64>,
        nr: Option<u64>,
        method: FreeMethod,
        cpu: usize,
    ) -> Outcome {
        let hz = name.and_then(|_| self.lookup()).map(|h| {
            self.enter_zone_of(h);
            self.handle_zones[h] as usize
        });
        let hz = hz.unwrap_or(0);
        let (start, n) = match name {
            Some(name) => match self.lookup().map(|h| self.handles[h].clone()) {
                Some(Handle::Alloc {
                    pfn,
                    order,
                    split,
                    owner,
                    ..
                }) => {
                    // A name counts as freed once all its pages are: skip, never free pages
                    // that have been handed to someone else since.
                    if self.held(hz, pfn, 1 << order, owner).is_empty() {
                        return self
                            .warn(format!("free_contig_range {name}: already freed, skipped"));
                    }
                    if !split && order > 0 {
                        return self.warn(format!(
                            "free_contig_range {name}: order-{order} block is not split (tail pages have refcount 0); refused"
                        ));
                    }
                    // Migrated pages may no longer be one physical range.
                    let head = self.page(hz, owner, pfn);
                    if (1..1u32 << order)
                        .any(|i| self.page(hz, owner, pfn + i) != (head.0, head.1 + i))
                    {
                        return self.warn(format!(
                            "free_contig_range {name}: alloc_contig_range migrated some of its pages, they are no longer one range; refused"
                        ));
                    }
                    (self.enter_page(hz, owner, pfn), 1u32 << order)
                }
                Some(Handle::Contig { pfn, nr, owner }) => {
                    if self.held(hz, pfn, nr, owner).is_empty() {
                        return self
                            .warn(format!("free_contig_range {name}: already freed, skipped"));
                    }
                    (pfn, nr)
                }
                Some(Handle::Failed) => {
                    return self.warn(format!(
                        "free_contig_range {name}: the allocation failed, skipped"
                    ))
                }
                _ => return self.warn(format!("free_contig_range {name}: not a page range")),
            },
            None => {
                let abs = pfn.unwrap_or(0);
                let p = self
                    .engine
                    .select_zone_of(Step::PageZone, abs)
                    .unwrap_or_else(|| self.engine.zone().zone_pfn(abs));
                (p, nr.unwrap_or(0) as u32)
            }
        };
        let z = self.engine.zone();
        // The contract's refusal rule is the refcount: the head of an unsplit block has
        // refcount 1, so freeing it alone by pfn goes ahead (its tails stay allocated, as the
        // kernel's `__free_page` of such a head would leave them). A page with extra
        // references (`get_page`) is an allocation's page all the same: its free drops the
        // owner's reference only. A page only a `get_page` reference still holds (its
        // allocation freed it) is not the caller's to free: `put_page` frees it.
        let extra = |p: ZonePfn| self.extra_refs.get(&z.abs_pfn(p)).copied().unwrap_or(0);
        if let Some(bad) = (start..start + n).find(|&p| {
            let refs = u32::from(z.mem_map[p as usize].refcount);
            refs == 0 || refs <= extra(p) || z.mem_map[p as usize].kind != PageKind::Other
        }) {
            let refs = z.mem_map[bad as usize].refcount;
            let why = if refs > 0 && z.mem_map[bad as usize].kind == PageKind::Other {
                "is held only by get_page references (its allocation freed it; put_page frees it)"
            } else {
                "does not have refcount 1 (freed, never allocated, or part of an unsplit block)"
            };
            return self.warn(format!(
                "free_contig_range: page {:#x} {why}; refused, nothing freed",
                z.abs_pfn(bad)
            ));
        }
        let held = (start..start + n)
            .filter(|&p| z.mem_map[p as usize].refcount > 1)
            .count() as u32;
        match method {
            FreeMethod::PerPage => self.engine.free_contig_range_per_page(start, n, cpu),
            FreeMethod::Chunked => self.engine.free_contig_range_chunked(start, n, cpu),
        }
        let chunked = method == FreeMethod::Chunked;
        if held > 0 {
            Outcome::ContigFreedHeld {
                nr: n,
                chunked,
                held,
            }
        } else {
            Outcome::ContigFreed { nr: n, chunked }
        }
    }

    /// One page of an allocation freed by its owner (`__free_pages(page, 0)`): freed, or,
    /// when a `get_page` reference still holds it, only the owner's reference dropped.
    fn free_one_page_of(&mut self, p: ZonePfn, index: u64, cpu: usize) -> Outcome {
        let held = self.engine.zone().mem_map[p as usize].refcount > 1;
        self.engine.free_pages(p, 0, cpu);
        if held {
            Outcome::StillReferenced { index }
        } else {
            Outcome::PageFreed { index }
        }
    }

    /// The page `page` of allocation `name` for `get_page`/`put_page`: only a page with its
    /// own refcount (an order-0 or split alloc, a page of an alloc_contig_range).
    fn ref_page(
        &mut self,
        op: &str,
        name: &str,
        page: u64,
    ) -> Result<(usize, ZonePfn, u32), Outcome> {
        let Some(h) = self.lookup() else {
            return Err(self.warn(format!("{op} {name}: unknown name")));
        };
        self.enter_zone_of(h);
        let (pfn, n, owner) = match self.handles[h].clone() {
            Handle::Alloc {
                pfn,
                order,
                split,
                owner,
                ..
            } => {
                if !split && order > 0 {
                    return Err(self.warn(format!(
                        "{op} {name} page {page}: the order-{order} block is not split, so only its head has a refcount (a reference on it would make __free_pages free the tail halves); a third party can hold only a page with its own refcount: split it first, or use an order-0 alloc or an alloc_contig_range; refused"
                    )));
                }
                (pfn, 1u32 << order, owner)
            }
            Handle::Contig { pfn, nr, owner } => (pfn, nr, owner),
            Handle::Vmalloc { .. } => {
                return Err(self.warn(format!(
                    "{op} {name}: a vmalloc area's pages are the area's; refused"
                )))
            }
            Handle::Failed => {
                return Err(self.warn(format!("{op} {name}: the allocation failed, skipped")))
            }
        };
        if page >= u64::from(n) {
            return Err(self.warn(format!(
                "{op} {name} page {page}: beyond the {n}-page allocation; refused"
            )));
        }
        Ok((self.handle_zones[h] as usize, pfn + page as u32, owner))
    }

    /// `get_page`: a third party takes a reference on a page the allocation still holds
    /// (`get_page_unless_zero` would fail on a freed page).
    fn op_get_page(&mut self, name: &str, page: u64) -> Outcome {
        let (hz, p, owner) = match self.ref_page("get_page", name, page) {
            Ok(x) => x,
            Err(o) => return o,
        };
        if self.held(hz, p, 1, owner).is_empty() {
            return self.warn(format!(
                "get_page {name} page {page}: the allocation no longer holds it (freed); refused"
            ));
        }
        // Where the page lives now, if alloc_contig_range migrated it.
        let p = self.enter_page(hz, owner, p);
        if self.engine.zone().mem_map[p as usize].refcount == u8::MAX {
            return self.warn(format!(
                "get_page {name} page {page}: the model counts at most {} references; refused",
                u8::MAX
            ));
        }
        self.engine.get_page(p);
        let abs = self.engine.zone().abs_pfn(p);
        *self.extra_refs.entry(abs).or_insert(0) += 1;
        Outcome::PageRefTaken {
            index: page,
            refcount: self.engine.zone().mem_map[p as usize].refcount,
        }
    }

    /// `put_page`: drops a reference a `get_page` took; the last reference frees the page,
    /// also after the allocation itself was freed.
    fn op_put_page(&mut self, name: &str, page: u64, cpu: usize) -> Outcome {
        let (hz, p, owner) = match self.ref_page("put_page", name, page) {
            Ok(x) => x,
            Err(o) => return o,
        };
        if self.owned_page(hz, owner, p).is_none() {
            return self.warn(format!(
                "put_page {name} page {page}: freed, and another page of the allocation migrated there since; refused"
            ));
        }
        let p = self.enter_page(hz, owner, p);
        let abs = self.engine.zone().abs_pfn(p);
        let Some(refs) = self.extra_refs.get_mut(&abs).filter(|r| **r > 0) else {
            return self.warn(format!(
                "put_page {name} page {page}: no get_page reference is held on it; refused"
            ));
        };
        *refs -= 1;
        if *refs == 0 {
            self.extra_refs.remove(&abs);
        }
        let freed = self.engine.zone().mem_map[p as usize].refcount == 1;
        self.engine.put_page_and_free(p, cpu);
        Outcome::PageRefDropped { index: page, freed }
    }

    /// `workload`: the steps of [`Workload`], each its own op record so the UI can step
    /// through it.
    pub(super) fn run_workload(&mut self, op: &Op, def: u32) {
        let Op::Workload {
            seed,
            steps,
            order_weights,
            mt_weights,
            free_probability,
            ..
        } = op
        else {
            return;
        };
        let cpu = op.cpu() as usize;
        if let Some(n) = self.rec.op_defs()[def as usize].note.clone() {
            self.engine.message(Step::OpNote, MsgLevel::Note, n);
        }
        let mut workload = Workload::new(*seed, *order_weights, mt_weights, *free_probability);
        // (pfn, order, node index of its zone)
        let mut live: Vec<(u32, u8, usize)> = Vec::new();
        for i in 0..*steps {
            if self.ops_done >= self.max_ops {
                return;
            }
            let start = self.begin_quiet();
            let outcome;
            let mut touched = 0;
            match workload.next_step(live.len()) {
                WorkloadStep::Free(k) => {
                    let (pfn, order, zone) = live.swap_remove(k);
                    self.engine.select_zone(Step::PageZone, zone);
                    self.engine.free_pages(pfn, order, cpu);
                    outcome = Outcome::WorkloadFree {
                        step: i + 1,
                        order,
                        pfn: self.engine.zone().abs_pfn(pfn),
                    };
                }
                WorkloadStep::Alloc { order, mt } => {
                    let owner = self.new_owner(def, mt, (i + 1) as u32);
                    let got = self.engine.alloc_pages(
                        mt_gfp(mt),
                        order,
                        cpu,
                        owner,
                        mt == MigrateType::Movable,
                    );
                    if let Some(p) = got {
                        live.push((p, order, self.engine.node().active_index()));
                        touched = 1;
                    }
                    // Direct compaction in this allocation's slow path moved these folios:
                    // the workload's own blocks and the named ones follow them, so a later
                    // free frees the page the folio lives on.
                    for m in self.engine.take_direct_migrations() {
                        if let Some(l) = live.iter_mut().find(|l| {
                            (l.0, l.2) == (m.from, usize::from(m.from_zone)) && l.1 == m.order
                        }) {
                            (l.0, l.2) = (m.to, usize::from(m.to_zone));
                        }
                        self.follow(&m);
                    }
                    outcome = Outcome::WorkloadAlloc {
                        step: i + 1,
                        order,
                        mt,
                        pfn: got.map(|p| self.engine.zone().abs_pfn(p)),
                    };
                }
            }
            self.end(def, start, touched, outcome);
        }
    }
}
