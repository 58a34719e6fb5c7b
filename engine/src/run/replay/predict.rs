//! Prediction: at every traced `mm_page_alloc`, the page the model itself would have chosen.
//!
//! The forced replay keeps the model's state aligned with the kernel's. Just before an
//! allocation's first traced line (its `rmqueue_bulk` refill or fallback lines, else the
//! `mm_page_alloc` itself), the model runs `alloc_pages` with the traced order, gfp flags and
//! CPU from that state, through [`Engine::speculate`] (the whole allocator path: pcp, refill,
//! fallbacks, slow path), and the speculation is undone; the kernel's outcome is then applied
//! as usual. So every allocation is predicted from the state the kernel chose from, and a
//! miss never carries over to the next one.
//!
//! A miss is classified from the model's state at that moment: where the kernel's page was
//! (on which pcp list, on which free list, not free at all) against where the model took its
//! own from ([`Cause`], each naming the kernel function whose choice differs).

use crate::mm::EventLog;
use crate::mm::*;
use crate::mm::{pcp_allowed_order, Engine};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Why the model chose another page than the kernel.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The kernel's allocation failed; the model found a page.
    KernelFailed,
    /// The model failed: it has no free block of the order or larger in the zonelist.
    ModelNoFreePage,
    /// The model failed although it has free blocks of the order: its watermark check refused.
    ModelWatermark,
    /// The kernel's page is in no zone of the model's node.
    OutsideZone,
    /// The kernel's page is in another zone than the model's.
    OtherZone,
    /// The kernel's page was not free in the model (allocated there).
    NotFreeInModel,
    /// Only part of the kernel's block was free in the model.
    PartlyFreeInModel,
    /// The kernel's page was on another CPU's pcp list in the model.
    OtherCpuPcp,
    /// The kernel's page was on this CPU's list for the request, but not at its head.
    PcpListOrder,
    /// The kernel's page was on another pcp list of this CPU (another order or migratetype).
    PcpOtherList,
    /// The kernel's page was on the request's pcp list; the model did not take from it.
    ModelSkippedPcp,
    /// The kernel's page was in the buddy: the kernel refilled its pcp list (or bypassed it)
    /// where the model took a page already on its list.
    RefillNotPredicted,
    /// Same free list and order as the model's block, another block of it.
    BuddyListOrder,
    /// The same migratetype's free list, another order.
    BuddyOtherOrder,
    /// The kernel fell back to another migratetype (its trace has `mm_page_alloc_extfrag`);
    /// the model found a block of the request's own type.
    KernelFellBack,
    /// The model fell back; the kernel did not.
    ModelFellBack,
    /// Both fell back, to different free lists.
    FallbackOtherMigratetype,
    /// Neither fell back, yet the pages are on free lists of different migratetypes.
    OtherFreeList,
}

impl Cause {
    /// Every cause, in report order.
    pub const ALL: [Cause; 18] = [
        Cause::KernelFailed,
        Cause::ModelNoFreePage,
        Cause::ModelWatermark,
        Cause::OutsideZone,
        Cause::OtherZone,
        Cause::NotFreeInModel,
        Cause::PartlyFreeInModel,
        Cause::OtherCpuPcp,
        Cause::PcpListOrder,
        Cause::PcpOtherList,
        Cause::ModelSkippedPcp,
        Cause::RefillNotPredicted,
        Cause::BuddyListOrder,
        Cause::BuddyOtherOrder,
        Cause::KernelFellBack,
        Cause::ModelFellBack,
        Cause::FallbackOtherMigratetype,
        Cause::OtherFreeList,
    ];

    /// The cause's name in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::KernelFailed => "kernel_failed",
            Cause::ModelNoFreePage => "model_no_free_page",
            Cause::ModelWatermark => "model_watermark",
            Cause::OutsideZone => "outside_zone",
            Cause::OtherZone => "other_zone",
            Cause::NotFreeInModel => "not_free_in_model",
            Cause::PartlyFreeInModel => "partly_free_in_model",
            Cause::OtherCpuPcp => "other_cpu_pcp",
            Cause::PcpListOrder => "pcp_list_order",
            Cause::PcpOtherList => "pcp_other_list",
            Cause::ModelSkippedPcp => "model_skipped_pcp",
            Cause::RefillNotPredicted => "refill_not_predicted",
            Cause::BuddyListOrder => "buddy_list_order",
            Cause::BuddyOtherOrder => "buddy_other_order",
            Cause::KernelFellBack => "kernel_fell_back",
            Cause::ModelFellBack => "model_fell_back",
            Cause::FallbackOtherMigratetype => "fallback_other_migratetype",
            Cause::OtherFreeList => "other_free_list",
        }
    }

    /// The kernel function whose decision the miss is about.
    pub fn kernel_fn(self) -> &'static str {
        match self {
            Cause::KernelFailed => "__alloc_pages_slowpath",
            Cause::ModelNoFreePage => "get_page_from_freelist",
            Cause::ModelWatermark => "zone_watermark_fast",
            Cause::OutsideZone => "page_zone",
            Cause::OtherZone => "get_page_from_freelist",
            Cause::NotFreeInModel | Cause::PartlyFreeInModel => "(earlier untraced step)",
            Cause::OtherCpuPcp => "rmqueue_pcplist",
            Cause::PcpListOrder => "__rmqueue_pcplist",
            Cause::PcpOtherList => "order_to_pindex",
            Cause::ModelSkippedPcp => "rmqueue",
            Cause::RefillNotPredicted => "rmqueue_bulk",
            Cause::BuddyListOrder | Cause::BuddyOtherOrder => "__rmqueue_smallest",
            Cause::KernelFellBack | Cause::ModelFellBack => "__rmqueue",
            Cause::FallbackOtherMigratetype => "find_suitable_fallback",
            Cause::OtherFreeList => "__rmqueue",
        }
    }

    /// What it means, in a sentence.
    pub fn explain(self) -> &'static str {
        match self {
            Cause::KernelFailed => "the kernel's allocation failed (reclaim, compaction, cpuset or a failure the model does not have); the model found a page",
            Cause::ModelNoFreePage => "the model has no free block of this order or larger in the zonelist",
            Cause::ModelWatermark => "the model has free blocks of this order but its watermark check refused them",
            Cause::OutsideZone => "the kernel's page is in no zone of the model's node",
            Cause::OtherZone => "the kernel's page is in another zone than the model's choice (zonelist walk, watermarks, lowmem_reserve)",
            Cause::NotFreeInModel => "the kernel's page was allocated in the model: a step the trace does not show, or the state diverged earlier",
            Cause::PartlyFreeInModel => "only part of the kernel's block was free in the model",
            Cause::OtherCpuPcp => "the kernel's page was on another CPU's pcp list in the model",
            Cause::PcpListOrder => "the kernel's page was on the right pcp list, not at its head: the model's list order differs",
            Cause::PcpOtherList => "the kernel's page was on another pcp list of this CPU (another order or migratetype)",
            Cause::ModelSkippedPcp => "the kernel's page was on the request's pcp list; the model did not take from the pcp",
            Cause::RefillNotPredicted => "the kernel's page came from the buddy (an rmqueue_bulk refill, or the pcp bypassed); the model took a page already on its pcp list",
            Cause::BuddyListOrder => "same free list and order: the model's list head is another block (list order)",
            Cause::BuddyOtherOrder => "the same migratetype's free list at another order",
            Cause::KernelFellBack => "the kernel fell back to another migratetype; the model found a block of the requested type",
            Cause::ModelFellBack => "the model fell back to another migratetype; the kernel did not",
            Cause::FallbackOtherMigratetype => "both fell back, to different migratetypes or blocks",
            Cause::OtherFreeList => "neither fell back, but the pages are on free lists of different migratetypes",
        }
    }

    /// The model took from the same list (and order) as the kernel, another entry of it.
    pub fn same_order_and_list(self) -> bool {
        matches!(self, Cause::PcpListOrder | Cause::BuddyListOrder)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a block was in the model when the allocation was predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// In no zone of the node.
    Outside,
    /// Not free (allocated).
    NotFree,
    /// Partly in a free block smaller than it, or in a pcp block of another order.
    PartlyFree,
    /// The head of a pcp block of its order: CPU, list index, position from the head.
    Pcp {
        zone: usize,
        cpu: usize,
        pindex: usize,
        pos: usize,
    },
    /// In the free buddy block of `order` on free list `mt`.
    Buddy {
        zone: usize,
        order: u8,
        mt: MigrateType,
    },
}

/// Where the model's own block came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Taken off a pcp list without a refill.
    Pcp { cpu: usize, pindex: usize },
    /// Taken off a buddy free list, through a refill (`rmqueue_bulk`) or directly.
    Buddy {
        order: u8,
        mt: MigrateType,
        refill: bool,
    },
}

/// The model's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelChoice {
    pub pfn: u64,
    pub zone: usize,
    pub from: Source,
    /// The speculation traced `mm_page_alloc_extfrag`.
    pub fell_back: bool,
}

/// What [`classify`] looks at.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The request's CPU and its pcp list (`None`: not a pcp order).
    pub cpu: usize,
    pub pindex: Option<usize>,
    /// The kernel's block and where the model had it (`None`: the kernel failed).
    pub kernel: Option<(u64, Where)>,
    /// The kernel's trace of this allocation has `mm_page_alloc_extfrag`.
    pub kernel_fell_back: bool,
    /// The model's choice (`None`: the model failed).
    pub model: Option<ModelChoice>,
    /// The model has a free block of the order or larger in some zone.
    pub model_had_free: bool,
}

/// The cause of a miss; `None` when the model chose the kernel's page (or both failed).
pub fn classify(f: &Facts) -> Option<Cause> {
    let (k, m) = match (f.kernel, f.model) {
        (None, None) => return None,
        (None, Some(_)) => return Some(Cause::KernelFailed),
        (Some(_), None) => {
            return Some(if f.model_had_free {
                Cause::ModelWatermark
            } else {
                Cause::ModelNoFreePage
            })
        }
        (Some(k), Some(m)) => (k, m),
    };
    if k.0 == m.pfn {
        return None;
    }
    let kzone = match k.1 {
        Where::Outside => return Some(Cause::OutsideZone),
        Where::NotFree => return Some(Cause::NotFreeInModel),
        Where::PartlyFree => return Some(Cause::PartlyFreeInModel),
        Where::Pcp { zone, .. } | Where::Buddy { zone, .. } => zone,
    };
    if kzone != m.zone {
        return Some(Cause::OtherZone);
    }
    Some(match k.1 {
        Where::Pcp { cpu, pindex, .. } => {
            if cpu != f.cpu {
                Cause::OtherCpuPcp
            } else if Some(pindex) != f.pindex {
                Cause::PcpOtherList
            } else if m.from == (Source::Pcp { cpu, pindex }) {
                Cause::PcpListOrder
            } else {
                Cause::ModelSkippedPcp
            }
        }
        Where::Buddy { order, mt, .. } => match m.from {
            Source::Pcp { .. } => Cause::RefillNotPredicted,
            Source::Buddy {
                order: mo, mt: mmt, ..
            } => {
                if mt == mmt {
                    if order == mo {
                        Cause::BuddyListOrder
                    } else {
                        Cause::BuddyOtherOrder
                    }
                } else {
                    match (f.kernel_fell_back, m.fell_back) {
                        (true, true) => Cause::FallbackOtherMigratetype,
                        (true, false) => Cause::KernelFellBack,
                        (false, true) => Cause::ModelFellBack,
                        (false, false) => Cause::OtherFreeList,
                    }
                }
            }
        },
        _ => unreachable!("handled above"),
    })
}

/// One allocation the model predicted differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Miss {
    /// 1-based trace line of the `mm_page_alloc`.
    pub line: u64,
    /// The request's CPU.
    pub cpu: usize,
    /// The order.
    pub order: u8,
    /// The traced migratetype (kernel number).
    pub migratetype: u8,
    /// The kernel's pfn (`None`: it failed) and the model's.
    pub want_pfn: Option<u64>,
    /// The model's pfn (`None`: it failed).
    pub got_pfn: Option<u64>,
    /// Why they differ.
    pub cause: Cause,
    /// Where each was, in words.
    pub detail: String,
}

/// Counts of one cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CauseCount {
    /// The cause.
    pub cause: Cause,
    /// Misses of it.
    pub count: u64,
    /// The kernel function whose choice it is.
    pub kernel_fn: &'static str,
    /// The cause in a sentence.
    pub explain: &'static str,
}

/// The prediction's outcome: counts always complete, misses listed up to a cap.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PredictReport {
    /// `mm_page_alloc` lines predicted (every one of the trace).
    pub allocations: u64,
    /// The model chose the kernel's pfn (or failed where the kernel failed).
    pub exact: u64,
    /// `exact` plus the misses where the model took from the same list and order as the
    /// kernel, another entry of it.
    pub same_order_and_list: u64,
    /// Allocations the model predicted differently.
    pub miss_count: u64,
    /// Misses by cause, most frequent first.
    pub by_cause: Vec<CauseCount>,
    /// The first misses.
    pub misses: Vec<Miss>,
}

impl PredictReport {
    fn percent(n: u64, of: u64) -> f64 {
        if of == 0 {
            100.0
        } else {
            100.0 * n as f64 / of as f64
        }
    }

    /// `exact` of `allocations`, in percent (100 when there were none).
    pub fn exact_percent(&self) -> f64 {
        Self::percent(self.exact, self.allocations)
    }

    /// `same_order_and_list` of `allocations`, in percent.
    pub fn same_order_and_list_percent(&self) -> f64 {
        Self::percent(self.same_order_and_list, self.allocations)
    }

    /// The rates as `summary` prints them: "68 allocations, 59 exact (86.76 %), 59 same order
    /// and list (86.76 %), 9 misses".
    pub fn rates_text(&self) -> String {
        format!(
            "{} allocations, {} exact ({:.2} %), {} same order and list ({:.2} %), {} misses",
            self.allocations,
            self.exact,
            self.exact_percent(),
            self.same_order_and_list,
            self.same_order_and_list_percent(),
            self.miss_count
        )
    }

    /// `summary`'s lines: the rates, then the misses grouped by cause (the first few listed).
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(o, "\npredict: {}", self.rates_text());
        for c in &self.by_cause {
            let _ = writeln!(
                o,
                "  {} ({}): {} — {}",
                c.cause, c.kernel_fn, c.count, c.explain
            );
            for m in self.misses.iter().filter(|m| m.cause == c.cause).take(5) {
                let _ = writeln!(o, "    {m}");
            }
        }
        if (self.misses.len() as u64) < self.miss_count {
            let _ = writeln!(
                o,
                "  ({} of {} misses listed in --format json)",
                self.misses.len(),
                self.miss_count
            );
        }
        o
    }
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pfn = |p: Option<u64>| p.map_or("failed".to_string(), |p| format!("{p:#x}"));
        write!(
            f,
            "line {}: CPU {} order {} migratetype {}: kernel {}, model {}: {}",
            self.line,
            self.cpu,
            self.order,
            self.migratetype,
            pfn(self.want_pfn),
            pfn(self.got_pfn),
            self.detail
        )
    }
}

/// The request of one traced `mm_page_alloc`.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub line: u64,
    pub cpu: usize,
    pub order: u8,
    pub mt: u8,
    pub gfp: u32,
    /// The kernel's pfn (`None`: it failed).
    pub pfn: Option<u64>,
    /// Its trace has `mm_page_alloc_extfrag`.
    pub fell_back: bool,
}

/// The model's choice for one request, made before its outcome is known.
#[derive(Clone, Copy, Debug)]
pub struct Chosen {
    model: Option<ModelChoice>,
    model_had_free: bool,
}

/// The prediction state of a replay.
pub struct Predictor {
    scratch: EventLog,
    max_listed: usize,
    counts: BTreeMap<Cause, u64>,
    pub report: PredictReport,
}

impl Predictor {
    pub fn new(max_listed: usize) -> Self {
        Predictor {
            scratch: EventLog::default(),
            max_listed,
            counts: BTreeMap::new(),
            report: PredictReport::default(),
        }
    }

    /// Predicts `r` from the engine's current state and scores it.
    pub fn predict(&mut self, e: &mut Engine, r: &Request) {
        let chosen = self.choose(e, r);
        self.score(e, r, chosen);
    }

    /// The model's choice for `r` from the engine's current state (speculated and undone),
    /// scored later by [`Predictor::score`]: a direct compaction's allocation is chosen at its
    /// task's `mm_compaction_try_to_compact_pages` line, before the compaction's lines change
    /// the state, and scored at its `mm_page_alloc`.
    pub fn choose(&mut self, e: &mut Engine, r: &Request) -> Chosen {
        let (model, model_had_free) = choose(e, &mut self.scratch, r);
        Chosen {
            model,
            model_had_free,
        }
    }

    /// Scores a choice against the kernel's outcome `r` (where the kernel's page is in the
    /// model is read now).
    pub fn score(&mut self, e: &mut Engine, r: &Request, chosen: Chosen) {
        let Chosen {
            model,
            model_had_free,
        } = chosen;
        let kernel = r.pfn.map(|p| (p, locate(e, p, r.order)));
        let mt = e.gfp_migratetype(r.gfp);
        let facts = Facts {
            cpu: r.cpu,
            pindex: pcp_allowed_order(r.order).then(|| order_to_pindex(mt, r.order)),
            kernel,
            kernel_fell_back: r.fell_back,
            model,
            model_had_free,
        };
        let rep = &mut self.report;
        rep.allocations += 1;
        let Some(cause) = classify(&facts) else {
            rep.exact += 1;
            rep.same_order_and_list += 1;
            return;
        };
        if cause.same_order_and_list() {
            rep.same_order_and_list += 1;
        }
        rep.miss_count += 1;
        *self.counts.entry(cause).or_default() += 1;
        if rep.misses.len() < self.max_listed {
            rep.misses.push(Miss {
                line: r.line,
                cpu: r.cpu,
                order: r.order,
                migratetype: r.mt,
                want_pfn: r.pfn,
                got_pfn: model.map(|m| m.pfn),
                cause,
                detail: detail(e, &facts),
            });
        }
    }

    /// The finished report (causes sorted, most frequent first).
    pub fn finish(mut self) -> PredictReport {
        let mut v: Vec<CauseCount> = self
            .counts
            .iter()
            .map(|(&cause, &count)| CauseCount {
                cause,
                count,
                kernel_fn: cause.kernel_fn(),
                explain: cause.explain(),
            })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then(a.cause.cmp(&b.cause)));
        self.report.by_cause = v;
        self.report
    }
}

/// What `alloc_pages` would choose now (speculated and undone), and whether the model has a
/// free block of the order or larger at all.
fn choose(e: &mut Engine, scratch: &mut EventLog, r: &Request) -> (Option<ModelChoice>, bool) {
    let had_free = e.node().zones().iter().any(|z| {
        (r.order as usize..NR_PAGE_ORDERS).any(|o| z.nr_free().get(o).is_some_and(|&n| n > 0))
    });
    let lru = e.gfp_migratetype(r.gfp) == MigrateType::Movable;
    let start_zone = e.node().active_index();
    let owner = u32::MAX - 1;
    let got = e.speculate(scratch, |e| {
        e.alloc_pages(r.gfp, r.order, r.cpu, owner, lru)
            .map(|p| (e.node().active_index(), p, e.zone().abs_pfn(p)))
    });
    let Some((zone, zpfn, pfn)) = got else {
        return (None, had_free);
    };
    // Read the speculation: the last buddy removal of a block holding the page, in its zone.
    let (mut cur, mut buddy, mut pcp, mut refill, mut fell_back) =
        (start_zone, None, None, false, false);
    // A block compaction_capture took as it formed (it never reached a free list): the last
    // capture of the speculation in the page's zone is the page's.
    let mut captured = None;
    for ev in scratch.events.iter() {
        if ev.step == Step::FreeOneCapture {
            if let EventKind::Mutation(Mutation::Account { mt, .. }) = ev.kind() {
                if cur == zone {
                    captured = Some(mt);
                }
            }
        }
        match ev.kind() {
            EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) => cur = to as usize,
            EventKind::Mutation(Mutation::FreeListDel { pfn, order, mt, .. })
                if cur == zone && pfn <= zpfn && zpfn < pfn + (1 << order) =>
            {
                buddy = Some((order, mt));
            }
            EventKind::Mutation(Mutation::PcpDel {
                cpu, pindex, pfn, ..
            }) if cur == zone && pfn == zpfn => pcp = Some((cpu as usize, pindex as usize)),
            EventKind::Annotation(Annotation::PcpRefill { .. }) => refill = true,
            EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAllocExtfrag { .. })) => {
                fell_back = true
            }
            _ => {}
        }
    }
    let from = match (captured, buddy, pcp) {
        (Some(mt), ..) => Source::Buddy {
            order: r.order,
            mt,
            refill: false,
        },
        (None, Some((order, mt)), _) => Source::Buddy { order, mt, refill },
        (None, None, Some((cpu, pindex))) => Source::Pcp { cpu, pindex },
        // Neither: cannot happen for a page alloc_pages returned; say buddy, order unknown.
        (None, None, None) => Source::Buddy {
            order: r.order,
            mt: e.gfp_migratetype(r.gfp),
            refill,
        },
    };
    (
        Some(ModelChoice {
            pfn,
            zone,
            from,
            fell_back,
        }),
        had_free,
    )
}

/// Where the model has the block `(pfn, order)` now.
pub fn locate(e: &Engine, pfn: u64, order: u8) -> Where {
    let Some(zi) = e.node().zone_index_of(pfn) else {
        return Where::Outside;
    };
    let z = e.node().zone(zi);
    let p = z.zone_pfn(pfn);
    if order > MAX_PAGE_ORDER || p as u64 + (1u64 << order) > z.pages() as u64 {
        return Where::Outside;
    }
    match z.block_containing(p) {
        None => Where::NotFree,
        Some((h, o, true)) => {
            if h != p || o != order {
                return Where::PartlyFree;
            }
            let cpu = z.mem_map[p as usize].owner as usize;
            (0..NR_PCP_LISTS)
                .find_map(|pi| {
                    z.pcp_list_pfns(cpu, pi)
                        .iter()
                        .position(|&q| q == p)
                        .map(|pos| Where::Pcp {
                            zone: zi,
                            cpu,
                            pindex: pi,
                            pos,
                        })
                })
                .unwrap_or(Where::PartlyFree)
        }
        Some((h, o, false)) => {
            if o < order {
                Where::PartlyFree
            } else {
                Where::Buddy {
                    zone: zi,
                    order: o,
                    mt: z.list_mt_of(h),
                }
            }
        }
    }
}

fn pcp_list_name(pindex: usize) -> String {
    let order = pindex_to_order(pindex);
    if pindex < NR_LOWORDER_PCP_LISTS {
        format!(
            "order-{order} {}",
            MigrateType::from_idx(pindex % MIGRATE_PCPTYPES).kernel_name()
        )
    } else {
        format!("order-{order} (THP)")
    }
}

/// The miss in words: where the kernel's page was, where the model took its own.
fn detail(e: &Engine, f: &Facts) -> String {
    let kernel = match f.kernel {
        None => "the kernel failed".to_string(),
        Some((_, Where::Outside)) => "the kernel's page is outside the node".into(),
        Some((_, Where::NotFree)) => "the kernel's page was allocated in the model".into(),
        Some((_, Where::PartlyFree)) => "the kernel's block was only partly free".into(),
        Some((
            _,
            Where::Pcp {
                cpu, pindex, pos, ..
            },
        )) => format!(
            "the kernel's page was #{} on CPU {cpu}'s {} pcp list",
            pos + 1,
            pcp_list_name(pindex)
        ),
        Some((_, Where::Buddy { zone, order, mt })) => format!(
            "the kernel's page was in a free order-{order} block on the {} list{}",
            mt.kernel_name(),
            zone_name(e, zone)
        ),
    };
    let model = match f.model {
        None => "the model failed".to_string(),
        Some(m) => match m.from {
            Source::Pcp { cpu, pindex } => format!(
                "the model took the head of CPU {cpu}'s {} pcp list",
                pcp_list_name(pindex)
            ),
            Source::Buddy { order, mt, refill } => format!(
                "the model {} an order-{order} block of the {} list{}{}",
                if refill { "refilled from" } else { "took" },
                mt.kernel_name(),
                zone_name(e, m.zone),
                if m.fell_back { " (fallback)" } else { "" }
            ),
        },
    };
    let kfb = if f.kernel_fell_back {
        " (the kernel fell back)"
    } else {
        ""
    };
    format!("{kernel}{kfb}; {model}")
}

fn zone_name(e: &Engine, zone: usize) -> String {
    if e.node().several_zones() {
        format!(" of zone {}", e.node().zone(zone).cfg.name)
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: MigrateType = MigrateType::Movable;
    const U: MigrateType = MigrateType::Unmovable;

    fn facts(kernel: Where, from: Source) -> Facts {
        Facts {
            cpu: 0,
            pindex: Some(order_to_pindex(M, 0)),
            kernel: Some((0x100, kernel)),
            kernel_fell_back: false,
            model: Some(ModelChoice {
                pfn: 0x200,
                zone: 0,
                from,
                fell_back: false,
            }),
            model_had_free: true,
        }
    }

    fn pcp(cpu: usize, pindex: usize) -> Where {
        Where::Pcp {
            zone: 0,
            cpu,
            pindex,
            pos: 2,
        }
    }

    fn buddy(order: u8, mt: MigrateType) -> Where {
        Where::Buddy { zone: 0, order, mt }
    }

    fn from_buddy(order: u8, mt: MigrateType) -> Source {
        Source::Buddy {
            order,
            mt,
            refill: true,
        }
    }

    #[test]
    fn the_same_page_is_no_miss() {
        let mut f = facts(pcp(0, 1), Source::Pcp { cpu: 0, pindex: 1 });
        f.model.as_mut().unwrap().pfn = 0x100;
        assert_eq!(classify(&f), None);
        f.kernel = None;
        f.model = None;
        assert_eq!(classify(&f), None, "both failed");
    }

    #[test]
    fn failures_on_either_side() {
        let mut f = facts(pcp(0, 1), Source::Pcp { cpu: 0, pindex: 1 });
        f.kernel = None;
        assert_eq!(classify(&f), Some(Cause::KernelFailed));
        let mut f = facts(pcp(0, 1), Source::Pcp { cpu: 0, pindex: 1 });
        f.model = None;
        assert_eq!(classify(&f), Some(Cause::ModelWatermark));
        f.model_had_free = false;
        assert_eq!(classify(&f), Some(Cause::ModelNoFreePage));
    }

    #[test]
    fn where_the_kernels_page_was_not_free() {
        let m = Source::Pcp { cpu: 0, pindex: 1 };
        for (w, c) in [
            (Where::Outside, Cause::OutsideZone),
            (Where::NotFree, Cause::NotFreeInModel),
            (Where::PartlyFree, Cause::PartlyFreeInModel),
        ] {
            assert_eq!(classify(&facts(w, m)), Some(c));
        }
        let mut f = facts(buddy(0, M), from_buddy(0, M));
        f.model.as_mut().unwrap().zone = 1;
        assert_eq!(classify(&f), Some(Cause::OtherZone));
    }

    #[test]
    fn pcp_causes() {
        let pi = order_to_pindex(M, 0);
        let own = Source::Pcp { cpu: 0, pindex: pi };
        assert_eq!(classify(&facts(pcp(1, pi), own)), Some(Cause::OtherCpuPcp));
        assert_eq!(classify(&facts(pcp(0, pi), own)), Some(Cause::PcpListOrder));
        let other = order_to_pindex(U, 0);
        assert_eq!(
            classify(&facts(pcp(0, other), own)),
            Some(Cause::PcpOtherList)
        );
        assert_eq!(
            classify(&facts(pcp(0, pi), from_buddy(0, M))),
            Some(Cause::ModelSkippedPcp)
        );
        assert_eq!(
            classify(&facts(buddy(3, M), own)),
            Some(Cause::RefillNotPredicted)
        );
    }

    #[test]
    fn buddy_and_fallback_causes() {
        assert_eq!(
            classify(&facts(buddy(2, M), from_buddy(2, M))),
            Some(Cause::BuddyListOrder)
        );
        assert_eq!(
            classify(&facts(buddy(5, M), from_buddy(2, M))),
            Some(Cause::BuddyOtherOrder)
        );
        let mut f = facts(buddy(10, U), from_buddy(0, M));
        assert_eq!(classify(&f), Some(Cause::OtherFreeList));
        f.kernel_fell_back = true;
        assert_eq!(classify(&f), Some(Cause::KernelFellBack));
        f.model.as_mut().unwrap().fell_back = true;
        assert_eq!(classify(&f), Some(Cause::FallbackOtherMigratetype));
        f.kernel_fell_back = false;
        assert_eq!(classify(&f), Some(Cause::ModelFellBack));
    }

    /// Only the two list-order causes count as the same order and list.
    #[test]
    fn same_order_and_list_is_the_list_order_causes() {
        let same: Vec<Cause> = Cause::ALL
            .into_iter()
            .filter(|c| c.same_order_and_list())
            .collect();
        assert_eq!(same, [Cause::PcpListOrder, Cause::BuddyListOrder]);
        // Every cause has a distinct name and names a kernel function.
        let mut names: Vec<&str> = Cause::ALL.iter().map(|c| c.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Cause::ALL.len());
        assert!(Cause::ALL.iter().all(|c| !c.kernel_fn().is_empty()));
    }
}
