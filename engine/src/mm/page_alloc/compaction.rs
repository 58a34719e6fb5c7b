//! Memory compaction as `mm/compaction.c` does it for `/proc/sys/vm/compact_memory`
//! (`compact_node` → `compact_zone` with `order = -1`, `MIGRATE_SYNC`, `ignore_skip_hint`,
//! `whole_zone`; v7.2.13, the same functions in v6.12.117 but for the `defrag_mode` branch of
//! `__compact_finished`, which `compact_memory` never reaches).
//!
//! The migration scanner walks up from the zone start (`isolate_migratepages` →
//! `isolate_migratepages_block`), taking movable LRU folios in batches of
//! [`COMPACT_CLUSTER_MAX`] pages; the free scanner walks down from the zone end
//! (`isolate_freepages` → `isolate_freepages_block` → `__isolate_free_page`), taking free
//! blocks off the buddy lists whole, uncounted and without an `mm_page_alloc` line;
//! `migrate_pages` moves each folio into one of them (`compaction_alloc`, the owner and its
//! name follow the page) and frees the source through the ordinary free path. What is left of
//! the free pages goes back at the end (`release_free_list`). The scanners meeting ends the
//! zone (`COMPACT_COMPLETE`, or `COMPACT_PARTIAL_SKIPPED` for a compaction that did not start
//! at the zone's ends).
//!
//! A compaction that is not `whole_zone` starts its scanners at the zone's cached restart
//! points (`compact_cached_migrate_pfn[2]`, `compact_cached_free_pfn`), which the scanners move
//! as they go and `reset_cached_positions` puts back at the zone's ends when they meet. For a
//! compaction at an order, `fast_find_migrateblock` searches the free lists for a source
//! pageblock before the linear migration scanner and `fast_isolate_freepages` for targets
//! before the linear free scanner. Not modelled here: `too_many_isolated`, hugetlb and non-LRU
//! movable (`movable_ops`) pages.

use std::collections::VecDeque;

use super::isolation::COMPACT_CLUSTER_MAX;
use super::isolation::{in_use_block, Migration};
use super::Engine;
use crate::mm::events::*;
use crate::mm::node::Node;
use crate::mm::steps::KernelFn;
use crate::mm::steps::Step;
use crate::mm::types::alloc_flags::*;
use crate::mm::types::*;
use crate::mm::zone::*;

/// `struct compact_control`, the fields `compact_memory`'s compaction uses.
struct CompactControl {
    /// Absolute pfn of the zone's first page (the scanners' arithmetic is the kernel's, on
    /// absolute pfns: `finish_pageblock` compares with `last_migrated_pfn = 0`).
    zone_start: Pfn,
    zone_end: Pfn,
    migrate_pfn: Pfn,
    free_pfn: Pfn,
    /// `cc->freepages[order]`: isolated free blocks (absolute pfns), head first.
    freepages: [VecDeque<Pfn>; NR_PAGE_ORDERS],
    nr_freepages: u32,
    /// `cc->migratepages`: `(head, order, owner)`, head first (`list_add`).
    migratepages: VecDeque<(Pfn, u8, u32)>,
    nr_migratepages: u32,
    finish_pageblock: bool,
    /// `cc->order`: `None` for `compact_memory`'s -1.
    order: Option<u8>,
    /// `cc->ignore_skip_hint` (`compact_memory`, `MIN_COMPACT_PRIORITY`).
    ignore_skip_hint: bool,
    /// `cc->ignore_block_suitable` (`MIN_COMPACT_PRIORITY` of a direct compaction).
    ignore_block_suitable: bool,
    /// `zone_idx` of the zone, for the tracepoints that name it.
    zone_type: u8,
    /// `cc->mode`.
    mode: MigrateMode,
    /// `cc->direct_compaction`: run for an allocation (`compact_zone_order`).
    direct: bool,
    /// `cc->migratetype`: `gfp_migratetype` of the request (MOVABLE for `compact_memory`).
    migratetype: MigrateType,
    /// `cc->alloc_flags` of the request.
    alloc_flags: u32,
    /// `cc->proactive_compaction`: `fragmentation_score_wmark(true)`, the zone's score at or
    /// below which `__compact_finished` says `COMPACT_SUCCESS`.
    proactive_wmark_low: Option<u64>,
    /// `cc->search_order`: the order `fast_isolate_freepages` starts its search at.
    search_order: i32,
    /// `cc->fast_search_fail`: fast searches that found nothing in a row.
    fast_search_fail: u32,
    /// `zone->compact_init_free_pfn`: a free scanner at or above it is starting its scan.
    init_free_pfn: Pfn,
    /// `cc->whole_zone`: the scanners started at the zone's ends, so meeting is
    /// `COMPACT_COMPLETE` (else `COMPACT_PARTIAL_SKIPPED`).
    whole_zone: bool,
    /// `cc->fast_start_pfn`: the lowest free block `fast_find_migrateblock` found (0: none
    /// yet; `Pfn::MAX`: used by `reinit_migrate_pfn`).
    fast_start_pfn: Pfn,
}

/// What `fast_isolate_freepages` is asked with: the fields of `compact_control` its search
/// reads and changes. The replay builds one from the trace's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FastSearch {
    /// `cc->order` (> 0).
    pub(crate) order: u8,
    /// `cc->search_order`.
    pub(crate) search_order: i32,
    /// `cc->fast_search_fail`.
    pub(crate) fast_search_fail: u32,
    /// `cc->free_pfn >= zone->compact_init_free_pfn`: a deeper search.
    pub(crate) scan_start: bool,
    /// `cc->free_pfn`, absolute.
    pub(crate) free_pfn: Pfn,
    /// `cc->migrate_pfn`, absolute.
    pub(crate) migrate_pfn: Pfn,
    /// `cc->nr_freepages` and `cc->nr_migratepages` when the search starts.
    pub(crate) nr_freepages: u32,
    pub(crate) nr_migratepages: u32,
}

/// How `fast_isolate_freepages`' search takes the block it chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FastTake {
    /// As the kernel: reorder the lists, `__isolate_free_page` with its watermark check.
    Live,
    /// As a trace says it went: reorder the lists, the isolation succeeds when `bool`.
    Replay(bool),
    /// Change nothing; the isolation succeeds when `bool` (the replay's trial of a search).
    Probe(bool),
}

/// What the search did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FastFound {
    /// `min_pfn`, absolute.
    pub(crate) min_pfn: Pfn,
    /// `nr_scanned` as traced.
    pub(crate) nr_scanned: u32,
    /// The block taken (zone pfn, order).
    pub(crate) taken: Option<(ZonePfn, u8)>,
    /// A page was chosen (taken, or its isolation failed: `page` is reset then).
    pub(crate) page: Option<Pfn>,
    /// `highest`: the highest pageblock start a listed block was seen in (0: none).
    pub(crate) highest: Pfn,
    /// The search's `cc->search_order` and `cc->fast_search_fail` after it.
    pub(crate) search_order: i32,
    pub(crate) fast_search_fail: u32,
}

/// `enum migrate_mode` as compaction sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MigrateMode {
    /// `MIGRATE_ASYNC` (`COMPACT_PRIO_ASYNC`).
    Async,
    /// `MIGRATE_SYNC_LIGHT` (`compact_zone_order` above `COMPACT_PRIO_ASYNC`).
    SyncLight,
    /// `MIGRATE_SYNC` (`compact_memory`).
    Sync,
}

/// What a `compact_zone` is asked for: `compact_node`'s or `compact_zone_order`'s control.
#[derive(Clone, Copy, Debug)]
struct CompactRequest {
    /// `cc->order` (`None`: -1).
    order: Option<u8>,
    prio: CompactPriority,
    /// `cc->direct_compaction`.
    direct: bool,
    /// `gfp_migratetype(cc->gfp_mask)`.
    migratetype: MigrateType,
    /// `cc->alloc_flags`.
    alloc_flags: u32,
    /// `compact_node(pgdat, true)`'s `proactive_compaction`: the low score watermark.
    proactive_wmark_low: Option<u64>,
}

/// `struct capture_control` (`current->capture_control` of a direct compaction): a block of
/// `order` freed in the zone being compacted is handed to the allocation
/// (`compaction_capture`) instead of going back to the free lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CaptureControl {
    /// `capc->zone`: the node index of the zone `compact_zone_order` is compacting (`None`
    /// between zones).
    pub(crate) zone: Option<usize>,
    /// `capc->order`.
    pub(crate) order: u8,
    /// `capc->migratetype`.
    pub(crate) migratetype: MigrateType,
    /// `capc->page`: the block captured.
    pub(crate) page: Option<ZonePfn>,
}

/// `COMPACTION_HPAGE_ORDER`: a THP.
const COMPACTION_HPAGE_ORDER: u8 = 9;

/// `sysctl_compaction_proactiveness` default (mm/compaction.c).
pub const COMPACTION_PROACTIVENESS: u32 = 20;

/// `fragmentation_score_zone`: `extfrag_for_order(zone, COMPACTION_HPAGE_ORDER)` (mm/vmstat.c
/// :1142): the percentage of free pages not in blocks of order 9 or more; 0 with none free.
pub fn fragmentation_score_zone(z: &Zone) -> u64 {
    let info = crate::mm::metrics::contig_page_info_of(z.nr_free(), COMPACTION_HPAGE_ORDER);
    if info.free_pages == 0 {
        return 0;
    }
    (info.free_pages - (info.free_blocks_suitable << COMPACTION_HPAGE_ORDER)) * 100
        / info.free_pages
}

/// `fragmentation_score_node`: each populated zone's score weighted by its share of the node
/// (`zone->present_pages * score / (node_present_pages + 1)`, v7.3.4 mm/compaction.c:2228-2257).
pub fn fragmentation_score_node(node: &Node) -> u64 {
    let present: u64 = node.zones().iter().map(|z| u64::from(z.pages())).sum();
    node.zones()
        .iter()
        .filter(|z| z.pages() > 0)
        .map(|z| u64::from(z.pages()) * fragmentation_score_zone(z) / (present + 1))
        .sum()
}

/// `fragmentation_score_wmark(low)` for `proactiveness` (mm/compaction.c:2260): low is
/// `100 - proactiveness`, high adds `min(10, low / 2)`, at most 100.
pub fn fragmentation_score_wmark(proactiveness: u32, low: bool) -> u64 {
    let wmark_low = 100 - u64::from(proactiveness.min(100));
    let leeway = 10.min(wmark_low / 2);
    if low {
        wmark_low
    } else {
        (wmark_low + leeway).min(100)
    }
}

/// What one kcompactd wakeup did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KcompactdOutcome {
    /// `kcompactd_do_work` ran (a wakeup for an order) rather than the timeout's proactive check.
    pub do_work: bool,
    /// Proactive compaction ran (`should_proactive_compact_node`).
    pub proactive: bool,
    /// `fragmentation_score_node` before and after.
    pub score: (u64, u64),
    /// The folios moved and each compacted zone's result.
    pub compacted: CompactOutcome,
}

/// `COMPACT_MAX_DEFER_SHIFT`: compaction is skipped at most 64 times in a row.
pub const COMPACT_MAX_DEFER_SHIFT: u8 = 6;
/// `sysctl_extfrag_threshold` (default 500).
pub const EXTFRAG_THRESHOLD: i64 = 500;
/// `PAGE_ALLOC_COSTLY_ORDER`.
const PAGE_ALLOC_COSTLY_ORDER: u8 = 3;

/// `enum compact_priority`: the sync priorities the `compact` op takes. Ordered as the C's
/// values: a lower one is a stronger compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CompactPriority {
    /// `COMPACT_PRIO_SYNC_FULL` = `MIN_COMPACT_PRIORITY`: the whole zone, skip hints and
    /// block suitability ignored, never deferred.
    SyncFull = 0,
    /// `COMPACT_PRIO_SYNC_LIGHT` = `DEF_COMPACT_PRIORITY`: `compaction_deferred` is asked
    /// first, skip bits honoured, `MIGRATE_SYNC_LIGHT`.
    SyncLight = 1,
    /// `COMPACT_PRIO_ASYNC` = `INIT_COMPACT_PRIORITY`: `MIGRATE_ASYNC`, a page that cannot be
    /// taken gives up its `cc->order` block (`skip_on_failure`), only pageblocks of the
    /// request's type are sources.
    Async = 2,
}

impl CompactPriority {
    /// The priority of `enum compact_priority`'s value `v` (0, 1, else `ASYNC`).
    pub fn from_kernel(v: u8) -> CompactPriority {
        match v {
            0 => CompactPriority::SyncFull,
            1 => CompactPriority::SyncLight,
            _ => CompactPriority::Async,
        }
    }

    /// The `COMPACTION_PRIORITY` name (include/trace/events/mmflags.h).
    pub fn kernel_name(self) -> &'static str {
        match self {
            CompactPriority::SyncFull => "COMPACT_PRIO_SYNC_FULL",
            CompactPriority::SyncLight => "COMPACT_PRIO_SYNC_LIGHT",
            CompactPriority::Async => "COMPACT_PRIO_ASYNC",
        }
    }
}

/// What `compact_node` did in the zones it compacted: the folios moved (for the runner's names)
/// and each zone's `compact_zone` result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompactOutcome {
    /// The folios moved, in order.
    pub migrated: Vec<Migration>,
    pub(crate) results: Vec<CompactResult>,
}

fn pageblock_start(pfn: Pfn) -> Pfn {
    pfn & !(PAGEBLOCK_NR_PAGES as Pfn - 1)
}

fn pageblock_end(pfn: Pfn) -> Pfn {
    pageblock_start(pfn) + PAGEBLOCK_NR_PAGES as Pfn
}

fn pageblock_aligned(pfn: Pfn) -> bool {
    pfn.is_multiple_of(PAGEBLOCK_NR_PAGES as Pfn)
}

/// Whether `fast_find_migrateblock` searches at all (v7.3.4 mm/compaction.c:1980-2013): not
/// when skip hints are ignored or the pageblock must be finished, not in the middle of a
/// pageblock (a restart after `COMPACT_CLUSTER_MAX`), not at or below
/// `PAGE_ALLOC_COSTLY_ORDER`, and not for a direct compaction of a request that is not
/// movable (7.2+: below pageblock order only; v6.12.117 :2001, v7.2.13 :2013).
pub(crate) fn fast_find_migrateblock_runs(
    kernel: Kernel,
    order: u8,
    ignore_skip_or_finish: bool,
    migrate_pfn: Pfn,
    zone_start: Pfn,
    direct_not_movable: bool,
) -> bool {
    !ignore_skip_or_finish
        && (migrate_pfn == zone_start || pageblock_aligned(migrate_pfn))
        && order > PAGE_ALLOC_COSTLY_ORDER
        && !(direct_not_movable
            && (!kernel.fast_find_migrateblock_whole_block_exempt() || order < PAGEBLOCK_ORDER))
}

/// `fast_find_migrateblock`'s `limit` (`freelist_scan_limit`: `(COMPACT_CLUSTER_MAX >>
/// min(fast_search_fail, BITS_PER_LONG - 1)) + 1`) and `high_pfn`: the first half of the
/// space between the scanners when the migration scanner is at the zone start, else the first
/// eighth (v7.3.4 mm/compaction.c:1456-1462, :2021-2024).
pub(crate) fn fast_find_migrateblock_window(
    fast_search_fail: u32,
    migrate_pfn: Pfn,
    free_pfn: Pfn,
    zone_start: Pfn,
) -> (u32, Pfn) {
    let limit = COMPACT_CLUSTER_MAX
        .checked_shr(fast_search_fail)
        .unwrap_or(0)
        + 1;
    let mut distance = free_pfn.wrapping_sub(migrate_pfn) >> 1;
    if migrate_pfn != zone_start {
        distance >>= 2;
    }
    (limit, pageblock_start(migrate_pfn.wrapping_add(distance)))
}

impl CompactControl {
    /// `compact_scanners_met`.
    fn scanners_met(&self) -> bool {
        self.free_pfn >> PAGEBLOCK_ORDER <= self.migrate_pfn >> PAGEBLOCK_ORDER
    }
}

impl Engine {
    /// `echo 1 > /proc/sys/vm/compact_memory` on this node: `compact_nodes` →
    /// `compact_node(pgdat, false)`: `compact_zone` of every populated zone in zone order;
    /// `cpu` is the CPU of the writer (the migration sources are freed to its pcp).
    pub fn compact_node(&mut self, cpu: usize) -> CompactOutcome {
        self.enter(KernelFn::compact_node);
        let home = self.node.active_index();
        let mut out = CompactOutcome::default();
        for z in 0..self.node.nr_zones() {
            self.select_zone(Step::CompactNodeZone, z);
            if self.zone().pages() == 0 {
                continue;
            }
            let r = self.compact_zone(cpu, z, &mut out.migrated);
            out.results.push(r);
        }
        self.select_zone(Step::CompactNodeZone, home);
        self.exit(KernelFn::compact_node);
        out
    }

    /// One wakeup of the node's kcompactd thread (v7.3.4 mm/compaction.c `kcompactd` :3194):
    /// woken by `wakeup_kcompactd` for `order` (`Some`), `kcompactd_do_work`; woken by its
    /// `HPAGE_FRAG_CHECK_INTERVAL_MSEC` timeout (`None`), the proactive check
    /// `should_proactive_compact_node` and `compact_node(pgdat, true)`. `proactiveness` is
    /// `sysctl_compaction_proactiveness`. For an order, kswapd's `wakeup_kcompactd` comes
    /// first (`mm_compaction_wakeup_kcompactd` when `kcompactd_node_suitable`); the wakeup
    /// ends with `mm_compaction_kcompactd_sleep` as the thread's loop goes back to wait
    /// (:3215; the sleep before this wakeup is the previous op's, or before the trace).
    pub fn kcompactd(
        &mut self,
        order: Option<u8>,
        proactiveness: u32,
        cpu: usize,
    ) -> KcompactdOutcome {
        self.enter(KernelFn::kcompactd);
        let home = self.node.active_index();
        let mut out = KcompactdOutcome {
            score: (fragmentation_score_node(&self.node), 0),
            ..Default::default()
        };
        match order {
            Some(o) if o > 0 => {
                self.wakeup_kcompactd(o);
                out.do_work = true;
                self.kcompactd_do_work(o, cpu, &mut out.compacted);
            }
            _ => {
                let high = fragmentation_score_wmark(proactiveness, false);
                let go = proactiveness > 0 && out.score.0 > high;
                self.message(
                    Step::KcompactdProactive,
                    MsgLevel::Info,
                    format!(
                        "should_proactive_compact_node: proactiveness {proactiveness}, fragmentation_score_node {} {} fragmentation_score_wmark(high) {high}: {}",
                        out.score.0,
                        if out.score.0 > high { ">" } else { "<=" },
                        if go {
                            "compact_node(pgdat, proactive)"
                        } else if proactiveness == 0 {
                            "proactive compaction is off (compaction_proactiveness 0: kcompactd sleeps without a timeout, MAX_SCHEDULE_TIMEOUT)"
                        } else {
                            "back to sleep"
                        }
                    ),
                );
                if go {
                    out.proactive = true;
                    let low = fragmentation_score_wmark(proactiveness, true);
                    self.proactive_compact_node(low, cpu, &mut out.compacted);
                }
            }
        }
        self.select_zone(Step::KcompactdSleep, home);
        out.score.1 = fragmentation_score_node(&self.node);
        // With compaction_proactiveness 0 the thread sleeps without a timeout
        // (MAX_SCHEDULE_TIMEOUT, :3213-3214): no timeout wakeup, so no sleep line after one.
        if order.is_some() || proactiveness > 0 {
            self.trace(
                Step::KcompactdSleep,
                Tracepoint::MmCompactionKcompactdSleep { nid: 0 },
            );
        }
        self.message(
            Step::KcompactdSleep,
            MsgLevel::Info,
            format!(
                "kcompactd: back to sleep (mm_compaction_kcompactd_sleep); fragmentation_score_node {} → {}",
                out.score.0, out.score.1
            ),
        );
        self.exit(KernelFn::kcompactd);
        out
    }

    /// `wakeup_kcompactd(pgdat, order, highest_zoneidx)` as kswapd calls it before it sleeps
    /// (mm/vmscan.c `kswapd_try_to_sleep`; kswapd is not modelled, the op's order stands for
    /// its request, `highest_zoneidx` the node's highest zone). The thread is asleep between
    /// wakeups (`wq_has_sleeper`); `kcompactd_node_suitable` (v7.3.4 mm/compaction.c:3058-3082)
    /// asks each populated zone `compaction_suit_allocation_order` at `ALLOC_WMARK_MIN` with
    /// the node's `highest_zoneidx` (its `mm_compaction_suitable` lines are kswapd's) until one
    /// says `COMPACT_CONTINUE`; only then is `mm_compaction_wakeup_kcompactd` written
    /// (:3164-3187). Unsuitable, kcompactd is not woken, but `kcompactd_max_order` stays set and
    /// its next timeout finds the work requested (`kcompactd_work_requested`): the op runs
    /// `kcompactd_do_work` either way.
    fn wakeup_kcompactd(&mut self, order: u8) {
        self.enter(KernelFn::wakeup_kcompactd);
        let home = self.node.active_index();
        let saved_zoneidx = self.highest_zoneidx;
        let highest = self.node.zone(self.node.nr_zones() - 1).zone_type();
        let mut suitable = false;
        for z in 0..self.node.nr_zones() {
            self.select_zone(Step::WakeupKcompactdSuitable, z);
            if self.zone().pages() == 0 {
                continue;
            }
            self.highest_zoneidx = highest;
            if self.compaction_suit_allocation_order(order, ALLOC_WMARK_MIN, false)
                == CompactResult::Continue
            {
                suitable = true;
                break;
            }
        }
        self.highest_zoneidx = saved_zoneidx;
        self.select_zone(Step::WakeupKcompactdSuitable, home);
        if suitable {
            self.trace(
                Step::WakeupKcompactdTrace,
                Tracepoint::MmCompactionKcompactdWake {
                    point: KcompactdWakePoint::WakeupKcompactd,
                    order: order as i8,
                    zone_type: highest.idx() as u8,
                },
            );
        } else {
            self.message(
                Step::WakeupKcompactdSuitable,
                MsgLevel::Info,
                format!("kcompactd_node_suitable: no zone needs compaction for order {order}: kcompactd is not woken; it finds the order requested at its next timeout"),
            );
        }
        self.exit(KernelFn::wakeup_kcompactd);
    }

    /// `kcompactd_do_work` for `order` (`kcompactd_max_order`), every populated zone up to the
    /// node's highest (`kcompactd_highest_zoneidx` as `kcompactd` resets it).
    fn kcompactd_do_work(&mut self, order: u8, cpu: usize, out: &mut CompactOutcome) {
        self.enter(KernelFn::kcompactd_do_work);
        let saved_zoneidx = self.highest_zoneidx;
        let highest = self.node.zone(self.node.nr_zones() - 1).zone_type();
        // trace_mm_compaction_kcompactd_wake(nid, cc.order, cc.highest_zoneidx);
        // count_compact_event(KCOMPACTD_WAKE) (v7.3.4 mm/compaction.c:3103-3105).
        self.trace(
            Step::KcompactdWake,
            Tracepoint::MmCompactionKcompactdWake {
                point: KcompactdWakePoint::KcompactdWake,
                order: order as i8,
                zone_type: highest.idx() as u8,
            },
        );
        self.counter(Step::KcompactdWake, CounterId::compact_daemon_wake, 0, 1);
        for z in 0..self.node.nr_zones() {
            self.select_zone(Step::KcompactdZone, z);
            if self.zone().pages() == 0 {
                continue;
            }
            if self.compaction_deferred(order) {
                continue;
            }
            // compaction_suit_allocation_order(zone, cc.order, zoneid, ...): the zone's own
            // index, no lowmem reserve (v7.3.4 mm/compaction.c:3117-3119; v6.12.117 the same
            // `zoneid`); compact_zone then checks with cc.highest_zoneidx, the node's highest.
            self.highest_zoneidx = self.zone().zone_type();
            let ret = self.compaction_suit_allocation_order(order, ALLOC_WMARK_MIN, false);
            self.highest_zoneidx = highest;
            if ret != CompactResult::Continue {
                continue;
            }
            let before = *self.stats();
            let req = CompactRequest {
                order: Some(order),
                prio: CompactPriority::SyncLight,
                direct: false,
                // gfp_migratetype(GFP_KERNEL).
                migratetype: MigrateType::Unmovable,
                alloc_flags: ALLOC_WMARK_MIN,
                proactive_wmark_low: None,
            };
            let status = self.compact_zone_cc(cpu, z, req, &mut out.migrated);
            out.results.push(status);
            match status {
                CompactResult::Success => self.compaction_defer_reset(order, false),
                CompactResult::PartialSkipped | CompactResult::Complete => {
                    // Pages stranded on pcp lists could coalesce: drain_all_pages(zone).
                    for c in 0..self.zone().pcp.len() {
                        if self.zone().pcp[c].count != 0 {
                            self.drain_pages_zone(c);
                        }
                    }
                    self.defer_compaction(order);
                }
                _ => {}
            }
            self.count_daemon_scanned(&before);
        }
        self.highest_zoneidx = saved_zoneidx;
        self.exit(KernelFn::kcompactd_do_work);
    }

    /// `compact_node(pgdat, true)`: `compact_zone(order -1, MIGRATE_SYNC_LIGHT,
    /// ignore_skip_hint, whole_zone, proactive_compaction)` of every populated zone, each until
    /// its score is at most `wmark_low`; the daemon's scan counters.
    fn proactive_compact_node(&mut self, wmark_low: u64, cpu: usize, out: &mut CompactOutcome) {
        self.enter(KernelFn::compact_node);
        for z in 0..self.node.nr_zones() {
            self.select_zone(Step::CompactNodeZone, z);
            if self.zone().pages() == 0 {
                continue;
            }
            let before = *self.stats();
            let req = CompactRequest {
                order: None,
                prio: CompactPriority::SyncLight,
                direct: false,
                migratetype: MigrateType::Unmovable,
                alloc_flags: 0,
                proactive_wmark_low: Some(wmark_low),
            };
            let r = self.compact_zone_cc(cpu, z, req, &mut out.migrated);
            out.results.push(r);
            self.count_daemon_scanned(&before);
        }
        self.exit(KernelFn::compact_node);
    }

    /// `count_compact_events(KCOMPACTD_MIGRATE_SCANNED / _FREE_SCANNED)` of the zone's
    /// compaction since `before` (`cc.total_migrate_scanned`, `cc.total_free_scanned`).
    fn count_daemon_scanned(&mut self, before: &crate::mm::stats::Stats) {
        let s = *self.stats();
        let m = s.compact_migrate_scanned - before.compact_migrate_scanned;
        let f = s.compact_free_scanned - before.compact_free_scanned;
        self.counter(
            Step::KcompactdScanned,
            CounterId::compact_daemon_migrate_scanned,
            0,
            m as i64,
        );
        self.counter(
            Step::KcompactdScanned,
            CounterId::compact_daemon_free_scanned,
            0,
            f as i64,
        );
    }

    /// `compact_zone` for `compact_node`'s control: the whole zone, `order = -1`.
    fn compact_zone(
        &mut self,
        cpu: usize,
        zone_idx: usize,
        migrated: &mut Vec<Migration>,
    ) -> CompactResult {
        let req = CompactRequest {
            order: None,
            prio: CompactPriority::SyncFull,
            direct: false,
            migratetype: MigrateType::Movable,
            alloc_flags: 0,
            proactive_wmark_low: None,
        };
        self.compact_zone_cc(cpu, zone_idx, req, migrated)
    }

    /// `compact_zone` with the control `compact_node` (`req.order` `None`: -1) or
    /// `compact_zone_order` (`req.prio`) builds.
    fn compact_zone_cc(
        &mut self,
        cpu: usize,
        zone_idx: usize,
        req: CompactRequest,
        migrated: &mut Vec<Migration>,
    ) -> CompactResult {
        let (order, prio) = (req.order, req.prio);
        self.enter(KernelFn::compact_zone);
        if let Some(o) = order {
            // compaction_suit_allocation_order (v7.2.13 mm/compaction.c:2523).
            let ret = self.compaction_suit_allocation_order(
                o,
                req.alloc_flags,
                prio == CompactPriority::Async,
            );
            if ret != CompactResult::Continue {
                self.exit(KernelFn::compact_zone);
                return ret;
            }
            // compaction_restarting: deferred to the limit and about to retry.
            if self.compaction_restarting(o) {
                self.__reset_isolation_suitable();
            }
        }
        // __isolate_free_page checks the watermark with classzone 0: no lowmem_reserve.
        let saved_zoneidx = self.highest_zoneidx;
        self.highest_zoneidx = ZoneType::Dma;
        let zone_start = self.zone().cfg.start_pfn;
        let zone_end = zone_start + self.zone().pages() as Pfn;
        let mut cc = CompactControl {
            zone_start,
            zone_end,
            migrate_pfn: zone_start,
            free_pfn: pageblock_start(zone_end - 1),
            freepages: Default::default(),
            nr_freepages: 0,
            migratepages: VecDeque::new(),
            nr_migratepages: 0,
            finish_pageblock: false,
            order,
            // compact_zone_order: whole_zone, ignore_skip_hint and ignore_block_suitable
            // at MIN_COMPACT_PRIORITY; compact_node sets ignore_skip_hint only.
            ignore_skip_hint: order.is_none() || prio == CompactPriority::SyncFull,
            ignore_block_suitable: order.is_some() && prio == CompactPriority::SyncFull,
            zone_type: self.zone().zone_type() as u8,
            mode: match (order, prio) {
                // compact_node: MIGRATE_SYNC_LIGHT when proactive (kcompactd), else SYNC.
                (None, _) if req.proactive_wmark_low.is_some() => MigrateMode::SyncLight,
                (None, _) => MigrateMode::Sync,
                (Some(_), CompactPriority::Async) => MigrateMode::Async,
                (Some(_), _) => MigrateMode::SyncLight,
            },
            direct: req.direct,
            migratetype: req.migratetype,
            alloc_flags: req.alloc_flags,
            proactive_wmark_low: req.proactive_wmark_low,
            // compact_zone_order and kcompactd_do_work start the search at the order
            // (v7.3.4 mm/compaction.c:2807, :3094).
            search_order: order.map_or(0, i32::from),
            fast_search_fail: 0,
            init_free_pfn: self.zone().compact_cached.init_free,
            // compact_node and MIN_COMPACT_PRIORITY (compact_zone_order) compact the whole
            // zone; kcompactd_do_work and the other priorities start at the cached positions.
            whole_zone: order.is_none() || prio == CompactPriority::SyncFull,
            fast_start_pfn: 0,
        };
        let sync = cc.mode != MigrateMode::Async;
        if !cc.whole_zone {
            self.compact_cached_start(&mut cc, sync);
        }
        // Keep the two cached migrate pfns together while an ASYNC compaction finds no
        // candidate (v7.3.4 mm/compaction.c:2641-2642).
        let mut update_cached = !sync && {
            let c = self.zone().compact_cached;
            c.migrate[0] == c.migrate[1]
        };
        let rel = |p: Pfn| (p - zone_start) as ZonePfn;
        self.trace(
            Step::CompactBegin,
            Tracepoint::MmCompactionBegin {
                migrate_pfn: rel(cc.migrate_pfn),
                free_pfn: rel(cc.free_pfn),
                sync,
            },
        );
        let mut last_migrated_pfn: Pfn = 0;
        let ret = 'compact: loop {
            let r = self.compact_finished(&mut cc);
            if r != CompactResult::Continue {
                break r;
            }
            let iteration_start_pfn = cc.migrate_pfn;
            cc.finish_pageblock =
                pageblock_start(last_migrated_pfn) == pageblock_start(iteration_start_pfn);
            // rescan:
            loop {
                if !self.isolate_migratepages(&mut cc) {
                    // ISOLATE_NONE: goto check_drain.
                    if update_cached {
                        let m = self.zone().compact_cached.migrate[0];
                        self.set_compact_cached(
                            Step::UpdateCachedMigrate,
                            CounterId::compact_cached_migrate_pfn_sync,
                            m,
                        );
                    }
                    self.compact_check_drain(&cc, cpu, &mut last_migrated_pfn);
                    continue 'compact;
                }
                update_cached = false;
                last_migrated_pfn = cc.zone_start.max(pageblock_start(cc.migrate_pfn - 1));
                let nr_migratepages = cc.nr_migratepages;
                let (nr_succeeded, nomem) =
                    self.migrate_pages_compaction(&mut cc, cpu, zone_idx, migrated);
                self.trace(
                    Step::CompactMigrated,
                    Tracepoint::MmCompactionMigratepages {
                        nr_migrated: nr_succeeded,
                        nr_failed: nr_migratepages - nr_succeeded,
                    },
                );
                // All pages were either migrated or put back (putback_movable_pages).
                cc.migratepages.clear();
                cc.nr_migratepages = 0;
                if nomem {
                    if !cc.scanners_met() {
                        break 'compact CompactResult::Contended;
                    }
                    // An ASYNC or SYNC_LIGHT failure inside a pageblock: scan the rest of
                    // it, so it is marked skip.
                    if !pageblock_aligned(cc.migrate_pfn)
                        && !cc.ignore_skip_hint
                        && !cc.finish_pageblock
                        && cc.mode < MigrateMode::Sync
                    {
                        cc.finish_pageblock = true;
                        if cc.order == Some(COMPACTION_HPAGE_ORDER) {
                            last_migrated_pfn = 0;
                        }
                        continue;
                    }
                }
                break;
            }
            // Stop if a page has been captured.
            if self.capture.is_some_and(|c| c.page.is_some()) {
                break CompactResult::Success;
            }
            self.compact_check_drain(&cc, cpu, &mut last_migrated_pfn);
        };
        if cc.nr_freepages > 0 {
            // Only go back, not forward: the cached pfn may have been reset to the zone end
            // (v7.3.4 mm/compaction.c:2775-2788).
            let free_pfn = pageblock_start(self.release_free_list(&mut cc, cpu));
            if free_pfn > self.zone().compact_cached.free {
                self.set_compact_cached(
                    Step::ResetCachedPositions,
                    CounterId::compact_cached_free_pfn,
                    free_pfn,
                );
            }
        }
        self.trace(
            Step::CompactEnd,
            Tracepoint::MmCompactionEnd {
                migrate_pfn: rel(cc.migrate_pfn),
                free_pfn: rel(cc.free_pfn),
                sync,
                status: ret,
            },
        );
        self.highest_zoneidx = saved_zoneidx;
        self.exit(KernelFn::compact_zone);
        ret
    }

    /// Sets one of the zone's compaction restart points (absolute pfn), undoably.
    fn set_compact_cached(&mut self, step: Step, id: CounterId, new: Pfn) {
        let c = self.zone().compact_cached;
        let old = match id {
            CounterId::compact_cached_migrate_pfn_async => c.migrate[0],
            CounterId::compact_cached_migrate_pfn_sync => c.migrate[1],
            CounterId::compact_cached_free_pfn => c.free,
            CounterId::compact_init_migrate_pfn => c.init_migrate,
            CounterId::compact_init_free_pfn => c.init_free,
            _ => unreachable!("not a compaction restart point: {id:?}"),
        };
        self.counter(step, id, 0, new.wrapping_sub(old) as i64);
    }

    /// `compact_zone`'s start when not `whole_zone` (v7.3.4 mm/compaction.c:2614-2629; v6.12.117
    /// the same): the scanners start at the cached pfns; one outside the zone (the zeroed
    /// fields of a zone no compaction touched, unless it starts at pfn 0) is set to its end
    /// of the zone and written back; a migration scanner at or below
    /// `compact_init_migrate_pfn` makes the compaction `whole_zone`.
    fn compact_cached_start(&mut self, cc: &mut CompactControl, sync: bool) {
        let step = Step::CompactCachedStart;
        let c = self.zone().compact_cached;
        cc.migrate_pfn = c.migrate[sync as usize];
        cc.free_pfn = c.free;
        let (start, end) = (cc.zone_start, cc.zone_end);
        if cc.free_pfn < start || cc.free_pfn >= end {
            cc.free_pfn = pageblock_start(end - 1);
            self.set_compact_cached(step, CounterId::compact_cached_free_pfn, cc.free_pfn);
        }
        if cc.migrate_pfn < start || cc.migrate_pfn >= end {
            cc.migrate_pfn = start;
            self.set_compact_cached(step, CounterId::compact_cached_migrate_pfn_async, start);
            self.set_compact_cached(step, CounterId::compact_cached_migrate_pfn_sync, start);
        }
        if cc.migrate_pfn <= self.zone().compact_cached.init_migrate {
            cc.whole_zone = true;
        }
    }

    /// `reset_cached_positions` (v7.3.4 mm/compaction.c:198): the migration scanner back to
    /// the zone start, the free scanner to the zone's last pageblock.
    fn reset_cached_positions(&mut self) {
        let step = Step::ResetCachedPositions;
        let start = self.zone().cfg.start_pfn;
        let last = pageblock_start(start + self.zone().pages() as Pfn - 1);
        self.set_compact_cached(step, CounterId::compact_cached_migrate_pfn_async, start);
        self.set_compact_cached(step, CounterId::compact_cached_migrate_pfn_sync, start);
        self.set_compact_cached(step, CounterId::compact_cached_free_pfn, last);
    }

    /// `update_cached_migrate` (v7.3.4 mm/compaction.c:435): the restart point of an `ASYNC`
    /// compaction, and of a sync one unless this one is `ASYNC`, moves up to the end of the
    /// pageblock holding `pfn`.
    fn update_cached_migrate(&mut self, cc: &CompactControl, pfn: Pfn) {
        let pfn = pageblock_end(pfn);
        let c = self.zone().compact_cached;
        if pfn > c.migrate[0] {
            self.set_compact_cached(
                Step::UpdateCachedMigrate,
                CounterId::compact_cached_migrate_pfn_async,
                pfn,
            );
        }
        if cc.mode != MigrateMode::Async && pfn > c.migrate[1] {
            self.set_compact_cached(
                Step::UpdateCachedMigrate,
                CounterId::compact_cached_migrate_pfn_sync,
                pfn,
            );
        }
    }

    /// `update_pageblock_skip(cc, page, pfn)` (v7.3.4 mm/compaction.c:457): the skip bit of
    /// `page`'s pageblock, and the free scanner's restart point down to `pfn`.
    fn update_pageblock_skip(&mut self, page: Pfn, pfn: Pfn) {
        self.set_pageblock_skip(Step::IsolateFreeSkip, page);
        if pfn < self.zone().compact_cached.free {
            self.set_compact_cached(
                Step::UpdateCachedFree,
                CounterId::compact_cached_free_pfn,
                pfn,
            );
        }
    }

    /// `fast_find_migrateblock` (v7.3.4 mm/compaction.c:1969-2083; v6.12.117 :1958, the same
    /// but that a direct compaction for a request that is not movable never searches, where
    /// 7.2+ lets a pageblock-order one): a short search of the MOVABLE free lists below the
    /// order for a free block low in the zone, whose pageblock the migration scanner takes
    /// next. The walk is [`Engine::fast_find_migrateblock_walk`], which the replay runs too.
    fn fast_find_migrateblock(&mut self, cc: &mut CompactControl) -> Pfn {
        let pfn = cc.migrate_pfn;
        let Some(order) = cc.order else {
            return pfn;
        };
        let kernel = self.zone().cfg.kernel;
        if !fast_find_migrateblock_runs(
            kernel,
            order,
            cc.ignore_skip_hint || cc.finish_pageblock,
            pfn,
            cc.zone_start,
            cc.direct && cc.migratetype != MigrateType::Movable,
        ) {
            return pfn;
        }
        let (limit, high_pfn) =
            fast_find_migrateblock_window(cc.fast_search_fail, pfn, cc.free_pfn, cc.zone_start);
        let skip =
            |z: &Zone, p: ZonePfn| z.pageblock[(p >> PAGEBLOCK_ORDER) as usize] & PB_SKIP != 0;
        match self.fast_find_migrateblock_walk(order, limit, high_pfn, &skip) {
            Some(free_pfn) => {
                // update_fast_start_pfn.
                if cc.fast_start_pfn != Pfn::MAX {
                    cc.fast_start_pfn = if cc.fast_start_pfn == 0 {
                        free_pfn
                    } else {
                        cc.fast_start_pfn.min(free_pfn)
                    };
                }
                cc.fast_search_fail = 0;
                pageblock_start(free_pfn).max(cc.zone_start)
            }
            None => {
                cc.fast_search_fail += 1;
                // reinit_migrate_pfn: restart the linear scan at the lowest block found.
                if cc.fast_start_pfn == 0 || cc.fast_start_pfn == Pfn::MAX {
                    return cc.migrate_pfn;
                }
                cc.migrate_pfn = cc.fast_start_pfn;
                cc.fast_start_pfn = Pfn::MAX;
                cc.migrate_pfn
            }
        }
    }

    /// `set_pageblock_skip`.
    fn set_pageblock_skip(&mut self, step: Step, pfn: Pfn) {
        let pb = self.zone().zone_pfn(pfn) >> PAGEBLOCK_ORDER;
        let old = self.zone().pageblock[pb as usize];
        if old & PB_SKIP == 0 {
            self.emit(
                step,
                Mutation::SetPageblock {
                    pb,
                    old,
                    new: old | PB_SKIP,
                },
            );
        }
    }

    /// `pageblock_skip_persistent`: the first page is part of an in-use compound page of
    /// order ≥ pageblock_order (a THP): the block cannot be a migration source.
    fn pageblock_skip_persistent(&self, p: ZonePfn) -> bool {
        let z = self.zone();
        if z.block_containing(p).is_some() || z.mem_map[p as usize].owner == NO_OWNER {
            return false;
        }
        let (_, nr) = in_use_block(z, p);
        nr >= PAGEBLOCK_NR_PAGES
    }

    /// `isolate_migratepages`: the first suitable pageblock from `cc.migrate_pfn` below the
    /// free scanner, scanned by `isolate_migratepages_block`. True for `ISOLATE_SUCCESS`.
    fn isolate_migratepages(&mut self, cc: &mut CompactControl) -> bool {
        self.enter(KernelFn::isolate_migratepages);
        let mut low_pfn = self.fast_find_migrateblock(cc);
        // fast_find_migrateblock checked the skip bit of the block it found (v7.3.4
        // mm/compaction.c:2117).
        let mut fast_find_block = low_pfn != cc.migrate_pfn && cc.fast_search_fail == 0;
        let mut block_end = pageblock_end(low_pfn);
        while block_end <= cc.free_pfn {
            let block_start = pageblock_start(low_pfn).max(cc.zone_start);
            // isolation_suitable: a pageblock marked skip is passed over unless the hint is
            // ignored (checked once per block, at its start).
            let skipped = !cc.ignore_skip_hint
                && (pageblock_aligned(low_pfn) || low_pfn == cc.zone_start)
                && !fast_find_block
                && self.pageblock_skip(block_start);
            if !skipped {
                // suitable_migration_source allows every block type for a compaction that is
                // not direct; an unsuitable block still moves the cached pfn (:2171-2173).
                if self.suitable_migration_source(cc, block_start) {
                    self.isolate_migratepages_block(cc, low_pfn, block_end);
                    break;
                }
                self.update_cached_migrate(cc, block_end);
            }
            fast_find_block = false;
            cc.migrate_pfn = block_end;
            low_pfn = block_end;
            block_end += PAGEBLOCK_NR_PAGES as Pfn;
        }
        self.exit(KernelFn::isolate_migratepages);
        cc.nr_migratepages > 0
    }

    /// `suitable_migration_source` (its rules per profile: [`Kernel::compaction_source_cma_rule`]).
    fn suitable_migration_source(&self, cc: &CompactControl, block_start: Pfn) -> bool {
        if self.pageblock_skip_persistent(self.zone().zone_pfn(block_start)) {
            return false;
        }
        if !cc.direct {
            return true;
        }
        let bmt = self.zone().pageblock_mt(self.zone().zone_pfn(block_start));
        let movable = matches!(bmt, MigrateType::Movable | MigrateType::Cma);
        if self.zone().cfg.kernel.compaction_source_cma_rule() {
            if bmt == MigrateType::Cma && cc.alloc_flags & ALLOC_CMA == 0 {
                return false;
            }
            if cc.mode != MigrateMode::Async {
                return true;
            }
            if cc.migratetype == MigrateType::Movable
                || cc.order.is_some_and(|o| o >= PAGEBLOCK_ORDER)
            {
                movable
            } else {
                bmt == cc.migratetype
            }
        } else if cc.mode != MigrateMode::Async {
            true
        } else if cc.migratetype == MigrateType::Movable {
            movable
        } else {
            bmt == cc.migratetype
        }
    }

    /// `isolate_migratepages_block(cc, low_pfn, end_pfn, ISOLATE_UNEVICTABLE)`. For an
    /// `ASYNC` direct compaction (`skip_on_failure`) a page that cannot be taken gives up its
    /// `cc->order` aligned block: what was taken goes back, the scan goes on past the block;
    /// otherwise it does not end anything.
    fn isolate_migratepages_block(
        &mut self,
        cc: &mut CompactControl,
        start_pfn: Pfn,
        end_pfn: Pfn,
    ) {
        cc.migrate_pfn = start_pfn;
        let mut low_pfn = start_pfn;
        let (mut nr_scanned, mut nr_isolated) = (0u32, 0u32);
        let mut valid_page: Option<Pfn> = None;
        let mut skip_updated = false;
        // block_end_pfn(pfn, order): the end of the cc->order aligned block holding pfn.
        let block_end_of = |pfn: Pfn, o: u8| (pfn + 1).next_multiple_of(1 << o);
        let skip_order = cc.order.unwrap_or(0);
        let skip_on_failure = cc.direct && cc.mode == MigrateMode::Async;
        let mut next_skip_pfn = if skip_on_failure {
            block_end_of(low_pfn, skip_order)
        } else {
            0
        };
        // isolate_fail: with skip_on_failure, what was taken goes back
        // (putback_movable_pages) and the scan resumes at the next order-aligned block.
        macro_rules! isolate_fail {
            () => {{
                if skip_on_failure {
                    if nr_isolated > 0 {
                        cc.migratepages.clear();
                        cc.nr_migratepages = 0;
                        nr_isolated = 0;
                    }
                    if low_pfn < next_skip_pfn {
                        low_pfn = next_skip_pfn - 1;
                        next_skip_pfn += 1 << skip_order;
                    }
                }
                low_pfn += 1;
                continue;
            }};
        }
        while low_pfn < end_pfn {
            if skip_on_failure && low_pfn >= next_skip_pfn {
                // All candidates of the previous order-aligned block taken: migrate them.
                if nr_isolated > 0 {
                    break;
                }
                next_skip_pfn = block_end_of(low_pfn, skip_order);
            }
            nr_scanned += 1;
            if valid_page.is_none() && (pageblock_aligned(low_pfn) || low_pfn == cc.zone_start) {
                if !cc.ignore_skip_hint && self.pageblock_skip(low_pfn) {
                    low_pfn = end_pfn; // isolate_abort
                    break;
                }
                valid_page = Some(low_pfn);
            }
            let p = self.zone().zone_pfn(low_pfn);
            let z = self.zone();
            if z.mem_map[p as usize].kind == PageKind::Buddy {
                let o = z.mem_map[p as usize].order as Pfn;
                if o > 0 {
                    low_pfn += (1 << o) - 1;
                    nr_scanned += (1 << o) - 1;
                }
                low_pfn += 1;
                continue;
            }
            // A free page on a pcp list, a page compaction isolated itself, or a page nobody
            // owns: not on an LRU (isolate_fail, the scan goes on).
            if z.mem_map[p as usize].kind == PageKind::Pcp
                || z.mem_map[p as usize].owner == NO_OWNER
            {
                isolate_fail!();
            }
            let (head, nr) = in_use_block(z, p);
            if head != p {
                // A tail page: folio_get_nontail_page fails.
                isolate_fail!();
            }
            // skip_isolation_on_order(order, cc->order): a folio at least as large as the
            // target order, or of pageblock order (the only case for -1).
            if nr >= PAGEBLOCK_NR_PAGES || cc.order.is_some_and(|o| nr >= 1 << o) {
                low_pfn += nr as Pfn - 1;
                nr_scanned += nr - 1;
                isolate_fail!();
            }
            // !PageLRU, or a pinned anonymous folio: references beyond the mapping.
            if z.mem_map[p as usize].flags & PF_LRU == 0 || z.mem_map[p as usize].refcount != 1 {
                isolate_fail!();
            }
            let owner = z.mem_map[p as usize].owner;
            // The first folio taken: test_and_set_skip, which ignore_skip_hint turns off (the
            // block's skip bit was clear when valid_page was taken).
            if !skip_updated {
                if let Some(v) = valid_page {
                    skip_updated = true;
                    if !cc.ignore_skip_hint {
                        self.set_pageblock_skip(Step::IsolateMigrateSkip, v);
                    }
                }
            }
            low_pfn += nr as Pfn - 1;
            cc.migratepages
                .push_front((low_pfn + 1 - nr as Pfn, nr.trailing_zeros() as u8, owner));
            cc.nr_migratepages += nr;
            nr_isolated += nr;
            nr_scanned += nr - 1;
            if cc.nr_migratepages >= COMPACT_CLUSTER_MAX && !cc.finish_pageblock {
                low_pfn += 1;
                break;
            }
            low_pfn += 1;
        }
        low_pfn = low_pfn.min(end_pfn);
        if low_pfn == end_pfn && (nr_isolated == 0 || cc.finish_pageblock) {
            if let (Some(v), false) = (valid_page, skip_updated) {
                self.set_pageblock_skip(Step::IsolateMigrateSkip, v);
            }
            self.update_cached_migrate(cc, low_pfn);
        }
        let rel = |p: Pfn| (p - cc.zone_start) as ZonePfn;
        self.trace(
            Step::IsolateMigrateBlock,
            Tracepoint::MmCompactionIsolateMigratepages {
                start: rel(start_pfn),
                end: rel(low_pfn),
                nr_scanned: nr_scanned as u16,
                nr_taken: nr_isolated as u16,
            },
        );
        cc.migrate_pfn = low_pfn;
    }

    /// `suitable_migration_target` without `ignore_block_suitable`: a MOVABLE or CMA
    /// pageblock whose first page is not a free block of pageblock order or more.
    fn suitable_migration_target(&self, cc: &CompactControl, pfn: Pfn) -> bool {
        let p = self.zone().zone_pfn(pfn);
        let z = self.zone();
        let order = cc.order.filter(|&o| o > 0).unwrap_or(PAGEBLOCK_ORDER);
        if z.mem_map[p as usize].kind == PageKind::Buddy && z.mem_map[p as usize].order >= order {
            return false;
        }
        if cc.ignore_block_suitable {
            return true;
        }
        matches!(z.pageblock_mt(p), MigrateType::Movable | MigrateType::Cma)
    }

    /// `get_pageblock_skip`.
    fn pageblock_skip(&self, pfn: Pfn) -> bool {
        let pb = self.zone().zone_pfn(pfn) >> PAGEBLOCK_ORDER;
        self.zone().pageblock[pb as usize] & PB_SKIP != 0
    }

    /// `isolate_freepages`: pageblocks from `cc.free_pfn` down to the one after the
    /// migration scanner's, until the free pages cover the folios to migrate.
    fn isolate_freepages(&mut self, cc: &mut CompactControl) {
        self.enter(KernelFn::isolate_freepages);
        // Try a small search of the free lists first (v7.3.4 mm/compaction.c:1736-1738).
        self.fast_isolate_freepages(cc);
        if cc.nr_freepages > 0 {
            self.exit(KernelFn::isolate_freepages);
            return;
        }
        let mut isolate_start_pfn = cc.free_pfn;
        let mut block_start = pageblock_start(isolate_start_pfn);
        let mut block_end = (block_start + PAGEBLOCK_NR_PAGES as Pfn).min(cc.zone_end);
        let low_pfn = pageblock_end(cc.migrate_pfn);
        let mut stride = if cc.mode == MigrateMode::Async {
            COMPACT_CLUSTER_MAX
        } else {
            1
        };
        while block_start >= low_pfn {
            if self.suitable_migration_target(cc, block_start)
                && (cc.ignore_skip_hint || !self.pageblock_skip(block_start))
            {
                let nr_isolated =
                    self.isolate_freepages_block(cc, &mut isolate_start_pfn, block_end, stride);
                // The whole pageblock scanned: update_pageblock_skip(cc, page,
                // block_start_pfn - pageblock_nr_pages) (v7.3.4 mm/compaction.c:1801-1803).
                if isolate_start_pfn == block_end {
                    self.update_pageblock_skip(
                        block_start,
                        block_start.wrapping_sub(PAGEBLOCK_NR_PAGES as Pfn),
                    );
                }
                if cc.nr_freepages >= cc.nr_migratepages {
                    if isolate_start_pfn >= block_end {
                        isolate_start_pfn = block_start - PAGEBLOCK_NR_PAGES as Pfn;
                    }
                    break;
                } else if isolate_start_pfn < block_end {
                    break;
                }
                stride = if nr_isolated > 0 {
                    1
                } else {
                    COMPACT_CLUSTER_MAX.min(stride << 1)
                };
            }
            block_end = block_start;
            block_start -= PAGEBLOCK_NR_PAGES as Pfn;
            isolate_start_pfn = block_start;
        }
        cc.free_pfn = isolate_start_pfn;
        self.exit(KernelFn::isolate_freepages);
    }

    /// `fast_isolate_freepages` (v7.3.4 mm/compaction.c:1553-1719; v6.12.117 :1540-1707 is the
    /// same but for a `set_page_private` of the order, bookkeeping the model does not need):
    /// for a compaction at an order, a short search of the MOVABLE free lists below the order
    /// for a block in the top quarter of the space between the scanners (in the top half at
    /// worst), taken before the linear free scanner runs.
    fn fast_isolate_freepages(&mut self, cc: &mut CompactControl) {
        // Full compaction passes in a negative order.
        let Some(order) = cc.order.filter(|&o| o > 0) else {
            return;
        };
        self.enter(KernelFn::fast_isolate_freepages);
        let fs = FastSearch {
            order,
            search_order: cc.search_order,
            fast_search_fail: cc.fast_search_fail,
            scan_start: cc.free_pfn >= cc.init_free_pfn,
            free_pfn: cc.free_pfn,
            migrate_pfn: cc.migrate_pfn,
            nr_freepages: cc.nr_freepages,
            nr_migratepages: cc.nr_migratepages,
        };
        let found = self.fast_isolate_search(&fs, FastTake::Live);
        cc.search_order = found.search_order;
        cc.fast_search_fail = found.fast_search_fail;
        if let Some((p, o)) = found.taken {
            cc.nr_freepages += 1 << o;
            cc.freepages[o as usize].push_back(self.zone().abs_pfn(p));
        }
        let rel = |p: Pfn| (p - cc.zone_start) as ZonePfn;
        let nr_taken = found.taken.map_or(0, |(_, o)| 1u32 << o);
        let wrapped = found.min_pfn >> 63 != 0;
        self.trace(
            Step::FastIsolateTrace,
            Tracepoint::MmCompactionFastIsolateFreepages {
                start: rel(found.min_pfn & !(1 << 63)),
                end: rel(cc.free_pfn),
                nr_scanned: found.nr_scanned as u16,
                nr_taken: nr_taken as u16,
                wrapped,
            },
        );
        let mut page = found.page;
        if page.is_none() {
            cc.fast_search_fail += 1;
            if fs.scan_start {
                // Use the highest pfn found above min; else, for a direct compaction, the
                // min mark (:1682-1704).
                if found.highest >= found.min_pfn {
                    page = Some(found.highest);
                    cc.free_pfn = found.highest;
                } else if cc.direct && found.min_pfn < cc.zone_end && found.min_pfn >= cc.zone_start
                {
                    let start = found.min_pfn.max(cc.zone_start);
                    page = self
                        .suitable_migration_target(cc, start)
                        .then_some(found.min_pfn);
                    cc.free_pfn = found.min_pfn;
                }
                self.message(
                    Step::FastIsolateMiss,
                    MsgLevel::Info,
                    format!(
                        "fast_isolate_freepages found no block: the free scanner goes on from {:#x}",
                        cc.free_pfn
                    ),
                );
            }
        }
        // The next linear scan starts below the highest block seen (:1708-1711).
        if found.highest != 0 && found.highest >= self.zone().compact_cached.free {
            self.set_compact_cached(
                Step::UpdateCachedFree,
                CounterId::compact_cached_free_pfn,
                found.highest - PAGEBLOCK_NR_PAGES as Pfn,
            );
        }
        if let Some(pfn) = page {
            self.fast_isolate_around(cc, pfn);
        }
        self.exit(KernelFn::fast_isolate_freepages);
    }

    /// The search of `fast_isolate_freepages` (v7.3.4 mm/compaction.c:1555-1677): the orders from
    /// `cc->search_order` down in the round robin of `next_search_order`, each order's MOVABLE
    /// list walked from its tail, the list reordered so that the next search starts past what
    /// this one looked at (`move_freelist_head`); at most one block is taken.
    pub(crate) fn fast_isolate_search(&mut self, fs: &FastSearch, take: FastTake) -> FastFound {
        let zone_start = self.zone().cfg.start_pfn;
        let cc_order = i32::from(fs.order);
        // freelist_scan_limit: (COMPACT_CLUSTER_MAX >> fast_search_fail) + 1.
        let scan_limit = COMPACT_CLUSTER_MAX
            .checked_shr(fs.fast_search_fail)
            .unwrap_or(0)
            + 1;
        let mut limit = if fs.scan_start {
            PAGEBLOCK_NR_PAGES >> 1
        } else {
            (scan_limit >> 1).max(1)
        };
        // Unsigned long arithmetic: with the free scanner below the migration scanner (they met
        // inside a migration batch) the distance wraps and the window lies above every pfn.
        let distance = fs.free_pfn.wrapping_sub(fs.migrate_pfn);
        let mut low_pfn = pageblock_start(fs.free_pfn.wrapping_sub(distance >> 2));
        let min_pfn = pageblock_start(fs.free_pfn.wrapping_sub(distance >> 1));
        if min_pfn > low_pfn {
            low_pfn = min_pfn;
        }
        let mut search_order = (cc_order - 1).min(fs.search_order);
        let mut fast_search_fail = fs.fast_search_fail;
        let (mut nr_scanned, mut highest) = (0u32, 0 as Pfn);
        let mut page: Option<Pfn> = None;
        let mut taken = None;
        // next_search_order: round robin below cc->order; -1 when the search wrapped around.
        let next_search_order = |order: i32, search_order: &mut i32| {
            let mut order = order - 1;
            if order < 0 {
                order = cc_order - 1;
            }
            if order == *search_order {
                *search_order -= 1;
                if *search_order < 0 {
                    *search_order = cc_order - 1;
                }
                return -1;
            }
            order
        };
        let mut order = search_order;
        while page.is_none() && order >= 0 {
            let o = order as u8;
            if self.zone().nr_free()[o as usize] == 0 {
                order = next_search_order(order, &mut search_order);
                continue;
            }
            // Each order's walk is under the zone lock.
            if take == FastTake::Live {
                self.lock_zone(Step::FastIsolateReorder);
            }
            let list = *self.zone().free_list(o, MigrateType::Movable);
            let (mut order_scanned, mut high_pfn) = (0u32, 0 as Pfn);
            // list_for_each_entry_reverse; `freepage` is where the walk stopped (the list
            // head itself, NIL, when it ran to the end: no reorder then).
            let mut freepage = NIL;
            let mut cur = list.tail;
            while cur != NIL {
                order_scanned += 1;
                nr_scanned += 1;
                let pfn = self.zone().abs_pfn(cur);
                if pfn >= highest {
                    highest = pageblock_start(pfn).max(zone_start);
                }
                if pfn >= low_pfn {
                    fast_search_fail = 0;
                    search_order = order;
                    page = Some(pfn);
                    freepage = cur;
                    break;
                }
                if pfn >= min_pfn && pfn > high_pfn {
                    high_pfn = pfn;
                    // Shorten the scan if a candidate is found.
                    limit >>= 1;
                }
                if order_scanned >= limit {
                    freepage = cur;
                    break;
                }
                cur = self.zone().mem_map[cur as usize].prev;
            }
            // Use a maximum candidate pfn if a preferred one was not found.
            if page.is_none() && high_pfn != 0 {
                page = Some(high_pfn);
                freepage = self.zone().zone_pfn(high_pfn);
            }
            // move_freelist_head: the next search starts past what this one looked at.
            if freepage != NIL && freepage != list.head && !matches!(take, FastTake::Probe(_)) {
                self.emit(
                    Step::FastIsolateReorder,
                    Mutation::FreeListRotate {
                        order: o,
                        mt: MigrateType::Movable,
                        head: freepage,
                        old_head: list.head,
                    },
                );
            }
            if let Some(pfn) = page {
                let p = self.zone().zone_pfn(pfn);
                let ok = match take {
                    FastTake::Live => self.__isolate_free_page(Step::FastIsolateTake, p, o) > 0,
                    FastTake::Replay(ok) => {
                        if ok {
                            let mt = self.zone().pageblock_mt(p);
                            self.isolate_free_block(Step::FastIsolateTake, p, o, mt);
                        }
                        ok
                    }
                    FastTake::Probe(ok) => ok,
                };
                if ok {
                    let nr_isolated = 1u32 << o;
                    nr_scanned += nr_isolated - 1;
                    taken = Some((p, o));
                } else {
                    // If isolation fails, abort the search.
                    order = search_order + 1;
                    page = None;
                }
            }
            if take == FastTake::Live {
                self.unlock_zone();
            }
            let nr_freepages = fs.nr_freepages + taken.map_or(0, |(_, o)| 1u32 << o);
            // Skip the fast search if enough free pages are isolated.
            if nr_freepages >= fs.nr_migratepages {
                break;
            }
            // Smaller scan on the next order so the total is related to freelist_scan_limit.
            if order_scanned >= limit {
                limit = (limit >> 1).max(1);
            }
            order = next_search_order(order, &mut search_order);
        }
        FastFound {
            min_pfn,
            nr_scanned,
            taken,
            page,
            highest,
            search_order,
            fast_search_fail,
        }
    }

    /// `fast_isolate_around` (v7.3.4 mm/compaction.c:1507-1533): the free blocks of the chosen
    /// page's pageblock, unless enough were isolated or the compaction is direct and ASYNC.
    fn fast_isolate_around(&mut self, cc: &mut CompactControl, pfn: Pfn) {
        if cc.nr_freepages >= cc.nr_migratepages {
            return;
        }
        if cc.direct && cc.mode == MigrateMode::Async {
            return;
        }
        let mut start_pfn = pageblock_start(pfn).max(cc.zone_start);
        let end_pfn = pageblock_end(pfn).min(cc.zone_end);
        self.isolate_freepages_block(cc, &mut start_pfn, end_pfn, 1);
        // Skip this pageblock in the future as it is full or nearly full (no_set_skip_hint
        // is only alloc_contig_range's).
        if start_pfn == end_pfn {
            self.set_pageblock_skip(Step::FastIsolateAround, pageblock_start(pfn));
        }
    }

    /// `isolate_freepages_block(cc, start, end, freelist, stride, strict = false)`.
    fn isolate_freepages_block(
        &mut self,
        cc: &mut CompactControl,
        start_pfn: &mut Pfn,
        end_pfn: Pfn,
        stride: u32,
    ) -> u32 {
        let (mut nr_scanned, mut total_isolated) = (0u32, 0u32);
        let mut locked = false;
        let mut blockpfn = *start_pfn;
        while blockpfn < end_pfn {
            // compact_unlock_should_abort: the lock is dropped every COMPACT_CLUSTER_MAX pfns.
            if blockpfn.is_multiple_of(COMPACT_CLUSTER_MAX as Pfn) && locked {
                self.unlock_zone();
                locked = false;
            }
            nr_scanned += 1;
            let p = self.zone().zone_pfn(blockpfn);
            let z = self.zone();
            if z.mem_map[p as usize].kind != PageKind::Buddy {
                // PageCompound: a compound head skips its folio when it ends in the block.
                if z.mem_map[p as usize].kind == PageKind::Other
                    && z.mem_map[p as usize].owner != NO_OWNER
                {
                    let (head, nr) = in_use_block(z, p);
                    if head == p && nr > 1 && blockpfn + nr as Pfn <= end_pfn {
                        blockpfn += nr as Pfn - 1;
                        nr_scanned += nr - 1;
                    }
                }
                blockpfn += stride as Pfn;
                continue;
            }
            if !locked {
                self.lock_zone(Step::IsolateFreeLock);
                locked = true;
            }
            let order = self.zone().mem_map[p as usize].order;
            let isolated = self.__isolate_free_page(Step::IsolateFreeTake, p, order);
            if isolated == 0 {
                break;
            }
            nr_scanned += isolated - 1;
            total_isolated += isolated;
            cc.nr_freepages += isolated;
            cc.freepages[order as usize].push_back(blockpfn);
            if cc.nr_migratepages <= cc.nr_freepages {
                blockpfn += isolated as Pfn;
                break;
            }
            blockpfn += isolated as Pfn - 1;
            blockpfn += stride as Pfn;
        }
        if locked {
            self.unlock_zone();
        }
        blockpfn = blockpfn.min(end_pfn);
        let rel = |p: Pfn| (p - cc.zone_start) as ZonePfn;
        self.trace(
            Step::IsolateFreeTrace,
            Tracepoint::MmCompactionIsolateFreepages {
                start: rel(*start_pfn),
                end: rel(blockpfn),
                nr_scanned: nr_scanned as u16,
                nr_taken: total_isolated as u16,
            },
        );
        *start_pfn = blockpfn;
        total_isolated
    }

    /// `__isolate_free_page`: the order-0 watermark raised by the block (the min watermark
    /// plus 2^order, `ALLOC_CMA`, classzone 0) must hold; then the block leaves its free list,
    /// uncounted; a block of at least half a pageblock makes its pageblocks MOVABLE
    /// (`move_freepages_block` for each mergeable one).
    fn __isolate_free_page(&mut self, step: Step, p: ZonePfn, order: u8) -> u32 {
        let mt = self.zone().pageblock_mt(p);
        if mt != MigrateType::Isolate {
            let mark = self.zone().watermark[WMARK_MIN] + (1u64 << order);
            if !self.zone_watermark_ok(0, mark, ALLOC_CMA, self.zone().nr_free_pages) {
                self.message(
                    step,
                    MsgLevel::Note,
                    format!(
                        "__isolate_free_page: the order-{order} block at {:#x} would take the zone below its min watermark; the free scanner stops",
                        self.zone().abs_pfn(p)
                    ),
                );
                return 0;
            }
        }
        self.isolate_free_block(step, p, order, mt);
        1u32 << order
    }

    /// The part of `__isolate_free_page` past its watermark check: the block leaves its free
    /// list, uncounted, and a block of at least half a pageblock makes its pageblocks MOVABLE.
    fn isolate_free_block(&mut self, step: Step, p: ZonePfn, order: u8, mt: MigrateType) {
        self.del_from_free_list(step, p, order, mt);
        self.account_freepages(step, -(1i64 << order), mt);
        self.handled(1 << order);
        if order >= PAGEBLOCK_ORDER - 1 {
            let end = p + (1u32 << order) - 1;
            let mut q = p;
            while q < end {
                let bmt = self.zone().pageblock_mt(q);
                let start = q & !(PAGEBLOCK_NR_PAGES - 1);
                // prep_move_freepages_block: a pageblock past the zone's end is left alone.
                if bmt.is_mergeable() && start + PAGEBLOCK_NR_PAGES <= self.zone().pages() {
                    let moved = self.__move_freepages_block(
                        Step::IsolateFreeMoveBlock,
                        start,
                        start + PAGEBLOCK_NR_PAGES,
                        bmt,
                        MigrateType::Movable,
                    );
                    self.handled(moved);
                    self.set_pageblock_migratetype(
                        Step::IsolateFreeMoveBlock,
                        start >> PAGEBLOCK_ORDER,
                        MigrateType::Movable,
                    );
                }
                q += PAGEBLOCK_NR_PAGES;
            }
        }
    }

    /// For the trace replay of an `mm_compaction_isolate_freepages` line (`range=(start ~
    /// end)`, `nr_scanned`, `nr_taken`; zone pfns): the free blocks `isolate_freepages_block`
    /// took. The line does not print the scan's stride (1 for a sync compaction, from
    /// `COMPACT_CLUSTER_MAX` down for `MIGRATE_ASYNC`, v7.3.4 mm/compaction.c:1756), so the walk
    /// of the C (a free block head is taken whole, a compound folio that ends in the range is
    /// stepped over, :620-690) is tried with each stride until one scans and takes what the
    /// line says; else stride 1 up to `nr_taken` pages. Each block taken leaves the buddy as
    /// `__isolate_free_page` takes it (no watermark check: the kernel did take it) and is
    /// allocated to `owner` until compaction uses it or `release_free_list` frees it. Returns
    /// the blocks and the pages taken.
    pub fn replay_isolate_freepages_block(
        &mut self,
        start: ZonePfn,
        end: ZonePfn,
        nr_scanned: u64,
        nr_taken: u64,
        owner: u32,
    ) -> (Vec<(ZonePfn, u8)>, u64) {
        let walk = |z: &Zone, stride: u32, limit: u64| {
            let (mut scanned, mut taken) = (0u64, 0u64);
            let mut blocks = Vec::new();
            let mut blockpfn = start;
            while blockpfn < end.min(z.pages()) && taken < limit {
                scanned += 1;
                let p = blockpfn as usize;
                if z.mem_map[p].kind != PageKind::Buddy {
                    if z.mem_map[p].kind == PageKind::Other && z.mem_map[p].owner != NO_OWNER {
                        let (head, nr) = in_use_block(z, blockpfn);
                        if head == blockpfn && nr > 1 && blockpfn + nr <= end {
                            blockpfn += nr - 1;
                            scanned += u64::from(nr) - 1;
                        }
                    }
                    blockpfn += stride;
                    continue;
                }
                let order = z.mem_map[p].order;
                let n = 1u32 << order;
                blocks.push((blockpfn, order));
                scanned += u64::from(n) - 1;
                taken += u64::from(n);
                blockpfn += n - 1 + stride;
            }
            (blocks, scanned, taken)
        };
        let strides = [1, 32, 16, 8, 4, 2];
        let blocks = strides
            .iter()
            .map(|&stride| walk(self.zone(), stride, u64::MAX))
            .find(|(_, scanned, taken)| *scanned == nr_scanned && *taken == nr_taken)
            .map(|(b, ..)| b)
            .unwrap_or_else(|| walk(self.zone(), 1, nr_taken).0);
        let mut taken = 0;
        for &(p, order) in &blocks {
            let mt = self.zone().pageblock_mt(p);
            self.isolate_free_block(Step::IsolateFreeTake, p, order, mt);
            self.emit(
                Step::IsolateFreeTake,
                Mutation::PrepNewPage {
                    pfn: p,
                    order,
                    owner,
                    lru: false,
                },
            );
            taken += 1u64 << order;
        }
        (blocks, taken)
    }

    /// For the trace replay of an `mm_compaction_fast_isolate_freepages` line: the line prints
    /// the search window and the counts, not the block taken, so the search of
    /// `fast_isolate_freepages` is run on the model's free lists with each of `candidates` (the
    /// `compact_control` fields the replay believes first, then the ones it cannot see:
    /// `fast_search_fail` moves in `fast_find_migrateblock` without a line) until one scans
    /// `nr_scanned` and takes `nr_taken` pages. That search is then applied as the kernel ran
    /// it (the lists reordered, the block off the buddy, allocated to `owner` until compaction
    /// uses it or `release_free_list` frees it). None: no candidate gives the line's counts,
    /// nothing is changed.
    pub(crate) fn replay_fast_isolate_freepages(
        &mut self,
        candidates: &[FastSearch],
        nr_scanned: u64,
        nr_taken: u64,
        owner: u32,
    ) -> Option<(FastSearch, FastFound)> {
        let ok = nr_taken > 0;
        let fs = *candidates.iter().find(|fs| {
            let f = self.fast_isolate_search(fs, FastTake::Probe(ok));
            u64::from(f.nr_scanned) == nr_scanned
                && f.taken.map_or(0, |(_, o)| 1u64 << o) == nr_taken
        })?;
        let found = self.fast_isolate_search(&fs, FastTake::Replay(ok));
        if let Some((p, order)) = found.taken {
            self.emit(
                Step::FastIsolateTake,
                Mutation::PrepNewPage {
                    pfn: p,
                    order,
                    owner,
                    lru: false,
                },
            );
        }
        Some((fs, found))
    }

    /// The list walk of `fast_find_migrateblock` (v7.3.4 mm/compaction.c:2026-2073; v6.12.117
    /// :2015-2062, the same): the MOVABLE lists of the orders below `order` down to
    /// `PAGE_ALLOC_COSTLY_ORDER`, each from its head, `limit` entries in all; a block below
    /// `high_pfn` whose pageblock is not `skipped` is the one found; the list is turned so
    /// that the entries looked at go to its tail (`move_freelist_tail`), at the block found or
    /// where the limit stopped the walk. Returns the block found (absolute pfn).
    pub(crate) fn fast_find_migrateblock_walk(
        &mut self,
        order: u8,
        limit: u32,
        high_pfn: Pfn,
        skipped: &dyn Fn(&Zone, ZonePfn) -> bool,
    ) -> Option<Pfn> {
        let mut nr_scanned = 0u32;
        let mut o = order;
        while o > PAGE_ALLOC_COSTLY_ORDER && nr_scanned < limit {
            o -= 1;
            if self.zone().nr_free()[o as usize] == 0 {
                continue;
            }
            let list = *self.zone().free_list(o, MigrateType::Movable);
            let mut cur = list.head;
            while cur != NIL {
                let stop = nr_scanned >= limit;
                nr_scanned += 1;
                let found =
                    !stop && self.zone().abs_pfn(cur) < high_pfn && !skipped(self.zone(), cur);
                if stop || found {
                    // move_freelist_tail: the head up to this block goes to the tail.
                    let next = self.zone().mem_map[cur as usize].next;
                    if next != NIL {
                        self.emit(
                            Step::FastFindMigrateReorder,
                            Mutation::FreeListRotate {
                                order: o,
                                mt: MigrateType::Movable,
                                head: next,
                                old_head: list.head,
                            },
                        );
                    }
                    if found {
                        return Some(self.zone().abs_pfn(cur));
                    }
                    break;
                }
                cur = self.zone().mem_map[cur as usize].next;
            }
        }
        None
    }

    /// `compaction_alloc`: the first isolated free block of the folio's order or more (the
    /// free scanner runs once when there is none); the rest of a larger block goes back to
    /// the lists at their head; `post_alloc_hook` makes it the folio's new home.
    fn compaction_alloc(&mut self, cc: &mut CompactControl, order: u8, owner: u32) -> Option<Pfn> {
        let mut has_isolated_pages = false;
        loop {
            let start_order =
                (order as usize..NR_PAGE_ORDERS).find(|&o| !cc.freepages[o].is_empty());
            let Some(mut start_order) = start_order else {
                if has_isolated_pages {
                    return None;
                }
                self.isolate_freepages(cc);
                has_isolated_pages = true;
                continue;
            };
            let freepage = cc.freepages[start_order]
                .pop_front()
                .expect("a non-empty list");
            let mut size: Pfn = 1 << start_order;
            while start_order > order as usize {
                start_order -= 1;
                size >>= 1;
                cc.freepages[start_order].push_front(freepage + size);
            }
            self.emit(
                Step::CompactionAllocTarget,
                Mutation::PrepNewPage {
                    pfn: self.zone().zone_pfn(freepage),
                    order,
                    owner,
                    lru: true,
                },
            );
            cc.nr_freepages -= 1 << order;
            cc.nr_migratepages -= 1 << order;
            return Some(freepage);
        }
    }

    /// `migrate_pages(&cc->migratepages, compaction_alloc, compaction_free, MIGRATE_SYNC,
    /// MR_COMPACTION)`: a target for each folio in list order, then each folio moves and its
    /// source is freed (`migrate_folio_done` → `folio_put`). Returns the folios' pages that
    /// moved and whether a target was missing (`-ENOMEM`).
    fn migrate_pages_compaction(
        &mut self,
        cc: &mut CompactControl,
        cpu: usize,
        zone_idx: usize,
        migrated: &mut Vec<Migration>,
    ) -> (u32, bool) {
        self.enter(KernelFn::migrate_pages);
        let batch: Vec<(Pfn, u8, u32)> = cc.migratepages.iter().copied().collect();
        let mut targets = Vec::with_capacity(batch.len());
        let mut nomem = false;
        for &(from, order, owner) in &batch {
            match self.compaction_alloc(cc, order, owner) {
                Some(to) => targets.push(to),
                None => {
                    self.message(
                        Step::MigrateNoMem,
                        MsgLevel::Note,
                        format!(
                            "compaction_alloc: no free page left for the order-{order} folio at {from:#x} (-ENOMEM); the rest go back to the LRU"
                        ),
                    );
                    nomem = true;
                    break;
                }
            }
        }
        let mut succeeded = 0;
        for (&(from, order, owner), &to) in batch.iter().zip(&targets) {
            let f = self.zone().zone_pfn(from);
            self.note(
                Step::MigrateMove,
                Annotation::Migrate {
                    from: f,
                    to: self.zone().zone_pfn(to),
                    order,
                    zone: zone_idx as u8,
                    contig: false,
                },
            );
            self.free_pages(f, order, cpu);
            migrated.push(Migration {
                owner,
                from: f,
                to: self.zone().zone_pfn(to),
                order,
                from_zone: zone_idx as u8,
                to_zone: zone_idx as u8,
            });
            succeeded += 1u32 << order;
        }
        self.exit(KernelFn::migrate_pages);
        (succeeded, nomem)
    }

    /// `release_free_list`: every isolated free block left, order by order, becomes an
    /// allocated page again (`mark_allocated`) and is freed with `__free_pages`.
    fn release_free_list(&mut self, cc: &mut CompactControl, cpu: usize) -> Pfn {
        self.enter(KernelFn::release_free_list);
        let mut high_pfn: Pfn = 0;
        for order in 0..NR_PAGE_ORDERS {
            while let Some(pfn) = cc.freepages[order].pop_front() {
                high_pfn = high_pfn.max(pfn);
                let p = self.zone().zone_pfn(pfn);
                self.emit(
                    Step::ReleaseFreeList,
                    Mutation::PrepNewPage {
                        pfn: p,
                        order: order as u8,
                        owner: NO_OWNER,
                        lru: false,
                    },
                );
                self.free_pages(p, order as u8, cpu);
            }
        }
        cc.nr_freepages = 0;
        self.exit(KernelFn::release_free_list);
        high_pfn
    }

    /// `compact_finished` → `__compact_finished` (v7.2.13 mm/compaction.c:2282), traced as
    /// `mm_compaction_finished`; `COMPACT_NO_SUITABLE_PAGE` goes on as `COMPACT_CONTINUE`.
    fn compact_finished(&mut self, cc: &mut CompactControl) -> CompactResult {
        let ret = self.__compact_finished(cc);
        self.trace(
            Step::CompactFinished,
            Tracepoint::MmCompactionFinished {
                zone_type: cc.zone_type,
                order: cc.order.map_or(-1, |o| o as i8),
                ret,
            },
        );
        if ret == CompactResult::NoSuitablePage {
            CompactResult::Continue
        } else {
            ret
        }
    }

    fn __compact_finished(&mut self, cc: &mut CompactControl) -> CompactResult {
        if cc.scanners_met() {
            // Let the next compaction start anew.
            self.reset_cached_positions();
            // A direct compaction asks for the skip bits to be cleared
            // (compact_blockskip_flush, read by __reset_isolation_suitable).
            if cc.direct && !self.zone().compact_blockskip_flush {
                self.set_flag(
                    Step::CompactFinished,
                    CounterId::compact_blockskip_flush,
                    0,
                    false,
                    true,
                );
            }
            return if cc.whole_zone {
                CompactResult::Complete
            } else {
                CompactResult::PartialSkipped
            };
        }
        // Proactive compaction (v7.3.4 mm/compaction.c:2305-2323, `goto out`): the zone's
        // fragmentation score at or below the low watermark is a success (kswapd is not
        // modelled, so never running).
        if let Some(wmark_low) = cc.proactive_wmark_low {
            return if fragmentation_score_zone(self.zone()) > wmark_low {
                CompactResult::Continue
            } else {
                CompactResult::Success
            };
        }
        // is_via_compact_memory.
        let Some(order) = cc.order else {
            return CompactResult::Continue;
        };
        // Always finish scanning a pageblock.
        if !pageblock_aligned(cc.migrate_pfn) {
            return CompactResult::Continue;
        }
        // defrag_mode (v7.x, sysctl default 0) is off: the direct compactor's check.
        let mt = cc.migratetype;
        for o in order as usize..NR_PAGE_ORDERS {
            if self.zone().free_lists[o][mt.idx()].len > 0 {
                return CompactResult::Success;
            }
            if mt == MigrateType::Movable
                && self.zone().cfg.cma
                && self.zone().free_lists[o][MigrateType::Cma.idx()].len > 0
            {
                return CompactResult::Success;
            }
            if let super::Fallback::Found(_) =
                self.find_suitable_fallback(Step::CompactFinished, o as u8, mt, true)
            {
                return CompactResult::Success;
            }
        }
        CompactResult::NoSuitablePage
    }

    /// `compact_zone`'s `check_drain`: once the migration scanner has left the `cc->order`
    /// aligned block it last migrated from, `lru_add_drain_cpu_zone` drains this CPU's pcp of
    /// the zone so the freed sources can merge.
    fn compact_check_drain(
        &mut self,
        cc: &CompactControl,
        cpu: usize,
        last_migrated_pfn: &mut Pfn,
    ) {
        let Some(order) = cc.order.filter(|&o| o > 0) else {
            return;
        };
        if *last_migrated_pfn == 0 {
            return;
        }
        let current_block_start = cc.migrate_pfn & !((1 << order) - 1);
        if *last_migrated_pfn < current_block_start {
            self.drain_pages_zone(cpu);
            *last_migrated_pfn = 0;
        }
    }

    /// `compaction_suit_allocation_order(zone, order, highest_zoneidx, alloc_flags, async,
    /// kcompactd = false)`: `COMPACT_SUCCESS` when the order already meets the request's
    /// watermark, `COMPACT_SKIPPED` when `compaction_suitable` says no, or (6.19+; 6.18 taken as
    /// 6.19, kernel-src has no 6.18 compaction.c) for a costly async request without
    /// `ALLOC_CMA` when the order-0 watermark plus `compact_gap` fails without the CMA pages'
    /// exemption (v7.2.13 mm/compaction.c:2541-2547; v6.12.117 has no such check).
    fn compaction_suit_allocation_order(
        &mut self,
        order: u8,
        alloc_flags: u32,
        async_: bool,
    ) -> CompactResult {
        let watermark = self.zone().watermark[(alloc_flags & ALLOC_WMARK_MASK) as usize];
        let free = self.zone().nr_free_pages;
        if self.zone_watermark_ok(order, watermark, alloc_flags, free) {
            return CompactResult::Success;
        }
        if self.zone().cfg.kernel != Kernel::V6_12
            && order > PAGE_ALLOC_COSTLY_ORDER
            && async_
            && alloc_flags & ALLOC_CMA == 0
            && !self.zone_watermark_ok(0, watermark + (2u64 << order), 0, free)
        {
            return CompactResult::Skipped;
        }
        if !self.compaction_suitable(order, watermark) {
            return CompactResult::Skipped;
        }
        CompactResult::Continue
    }

    /// `compaction_zonelist_suitable` (v7.3.4 mm/compaction.c:2479-2509; v6.12.117 :2454,
    /// the same test): a zone of the zonelist that would pass `__compaction_suitable` at the
    /// min watermark with its free pages and a `1/order` share of its reclaimable ones (none:
    /// the LRU is not modelled). No tracepoint: `__compaction_suitable` has none.
    pub(crate) fn compaction_zonelist_suitable(&mut self, order: u8) -> bool {
        for zone in self.zonelist() {
            self.select_zone(Step::ZonelistNext, zone);
            let mut mark = self.zone().watermark[WMARK_MIN] + (2u64 << order);
            if order > PAGE_ALLOC_COSTLY_ORDER {
                mark += self.zone().watermark[WMARK_LOW] - self.zone().watermark[WMARK_MIN];
            }
            if self.zone_watermark_ok(0, mark, ALLOC_CMA, self.zone().nr_free_pages) {
                return true;
            }
        }
        false
    }

    /// `compaction_suitable` (v7.2.13 mm/compaction.c:2436): the order-0 watermark plus
    /// `compact_gap(order)` (and low − min above the costly order) must hold, and above
    /// `PAGE_ALLOC_COSTLY_ORDER` a fragmentation index in `0..=extfrag_threshold` means the
    /// failure is a lack of memory, not fragmentation.
    pub(crate) fn compaction_suitable(&mut self, order: u8, watermark: u64) -> bool {
        let mut mark = watermark + (2u64 << order); // compact_gap
        if order > PAGE_ALLOC_COSTLY_ORDER {
            mark += self.zone().watermark[WMARK_LOW] - self.zone().watermark[WMARK_MIN];
        }
        let mut suitable = self.zone_watermark_ok(0, mark, ALLOC_CMA, self.zone().nr_free_pages);
        let ret = if suitable {
            let mut r = CompactResult::Continue;
            if order > PAGE_ALLOC_COSTLY_ORDER {
                let fragindex = crate::mm::metrics::fragmentation_index(self.zone(), order);
                if (0..=EXTFRAG_THRESHOLD).contains(&fragindex) {
                    suitable = false;
                    r = CompactResult::NotSuitableZone;
                }
            }
            r
        } else {
            CompactResult::Skipped
        };
        self.trace(
            Step::CompactSuitable,
            Tracepoint::MmCompactionSuitable {
                zone_type: self.zone().zone_type().idx() as u8,
                order,
                ret,
            },
        );
        suitable
    }

    /// For the trace replay: `count_compact_event(KCOMPACTD_WAKE)` of an
    /// `mm_compaction_kcompactd_wake` line (v7.3.4 mm/compaction.c:3105).
    pub fn replay_kcompactd_wake(&mut self) {
        self.counter(Step::KcompactdWake, CounterId::compact_daemon_wake, 0, 1);
    }

    /// For the trace replay: the vm events of one `__alloc_pages_direct_compact` that did not
    /// give up: `COMPACTSTALL`, then `COMPACTSUCCESS` or `COMPACTFAIL` (v7.3.4
    /// mm/page_alloc.c:4218-4241).
    pub fn replay_direct_compact_counted(&mut self, success: bool) {
        self.counter(Step::DirectCompactStall, CounterId::compact_stall, 0, 1);
        if success {
            self.counter(Step::DirectCompactSuccess, CounterId::compact_success, 0, 1);
        } else {
            self.counter(Step::DirectCompactFail, CounterId::compact_fail, 0, 1);
        }
    }

    /// For the trace replay: `KCOMPACTD_MIGRATE_SCANNED` and `KCOMPACTD_FREE_SCANNED` of the
    /// pages kcompactd's compactions scanned (`kcompactd_do_work` :3147-3150, `compact_node`
    /// for proactive compaction :2946-2951).
    pub fn replay_kcompactd_scanned(&mut self, migrate: u64, free: u64) {
        self.counter(
            Step::KcompactdScanned,
            CounterId::compact_daemon_migrate_scanned,
            0,
            migrate as i64,
        );
        self.counter(
            Step::KcompactdScanned,
            CounterId::compact_daemon_free_scanned,
            0,
            free as i64,
        );
    }

    /// For the trace replay: the zone's deferral state an `mm_compaction_*defer*` line prints.
    pub fn replay_set_compact_defer(&mut self, step: Step, new: CompactDefer) {
        self.set_compact_defer(step, new);
    }

    fn set_compact_defer(&mut self, step: Step, new: CompactDefer) {
        let old = self.zone().compact_defer;
        if old != new {
            self.emit(step, Mutation::CompactDefer { old, new });
        }
    }

    fn trace_defer(&mut self, step: Step, point: DeferPoint, order: u8) {
        self.trace(
            step,
            Tracepoint::MmCompactionDefer {
                point,
                zone_type: self.zone().zone_type().idx() as u8,
                order,
                state: self.zone().compact_defer,
            },
        );
    }

    /// `defer_compaction` (v7.2.13 mm/compaction.c:126).
    fn defer_compaction(&mut self, order: u8) {
        let mut d = self.zone().compact_defer;
        d.considered = 0;
        d.defer_shift = (d.defer_shift + 1).min(COMPACT_MAX_DEFER_SHIFT);
        d.order_failed = d.order_failed.min(order);
        self.set_compact_defer(Step::DeferCompaction, d);
        self.trace_defer(Step::DeferCompaction, DeferPoint::DeferCompaction, order);
    }

    /// `compaction_deferred` (v7.2.13 mm/compaction.c:141): true to skip the zone this time.
    fn compaction_deferred(&mut self, order: u8) -> bool {
        let mut d = self.zone().compact_defer;
        if order < d.order_failed {
            return false;
        }
        let defer_limit = 1u8 << d.defer_shift;
        d.considered += 1;
        if d.considered >= defer_limit {
            d.considered = defer_limit;
            self.set_compact_defer(Step::CompactionDeferred, d);
            return false;
        }
        self.set_compact_defer(Step::CompactionDeferred, d);
        self.trace_defer(Step::CompactionDeferred, DeferPoint::Deferred, order);
        true
    }

    /// `compaction_defer_reset(zone, order, alloc_success)` (v7.2.13 mm/compaction.c:164).
    fn compaction_defer_reset(&mut self, order: u8, alloc_success: bool) {
        let mut d = self.zone().compact_defer;
        if alloc_success {
            d.considered = 0;
            d.defer_shift = 0;
        }
        if order >= d.order_failed {
            d.order_failed = order + 1;
        }
        self.set_compact_defer(Step::CompactDeferReset, d);
        self.trace_defer(Step::CompactDeferReset, DeferPoint::DeferReset, order);
    }

    /// One zone of `try_to_compact_pages` (v7.2.13 mm/compaction.c:2836) for a movable request
    /// of `order` at `prio`, without the allocation after it: `compaction_deferred` above
    /// `MIN_COMPACT_PRIORITY`, `compact_zone_order`, then `compaction_defer_reset` on success or
    /// `defer_compaction` when the zone was scanned through. `zone_idx` is the zone of the node.
    pub fn compact_zone_order(
        &mut self,
        cpu: usize,
        zone_idx: usize,
        order: u8,
        prio: CompactPriority,
    ) -> CompactOutcome {
        let home = self.node.active_index();
        let saved_zoneidx = self.highest_zoneidx;
        self.select_zone(Step::CompactNodeZone, zone_idx);
        self.highest_zoneidx = self.zone().zone_type();
        let mut out = CompactOutcome::default();
        let req = CompactRequest {
            order: Some(order),
            prio,
            direct: true,
            migratetype: MigrateType::Movable,
            alloc_flags: ALLOC_WMARK_MIN | ALLOC_CMA,
            proactive_wmark_low: None,
        };
        let status = self.try_to_compact_zone(cpu, zone_idx, req, &mut out.migrated);
        out.results.push(status);
        self.highest_zoneidx = saved_zoneidx;
        self.select_zone(Step::CompactNodeZone, home);
        out
    }

    /// The body of `try_to_compact_pages`' loop for one zone (selected): `compaction_deferred`
    /// above `MIN_COMPACT_PRIORITY`, `compact_zone_order`, a captured page makes it
    /// `COMPACT_SUCCESS`, then `compaction_defer_reset(zone, order, false)` on success, or
    /// `defer_compaction` after a sync compaction that scanned the zone through.
    fn try_to_compact_zone(
        &mut self,
        cpu: usize,
        zone_idx: usize,
        req: CompactRequest,
        migrated: &mut Vec<Migration>,
    ) -> CompactResult {
        let order = req.order.expect("an allocation's order");
        if req.prio != CompactPriority::SyncFull && self.compaction_deferred(order) {
            return CompactResult::Deferred;
        }
        if let Some(c) = self.capture.as_mut() {
            c.zone = Some(zone_idx);
        }
        let mut st = self.compact_zone_cc(cpu, zone_idx, req, migrated);
        if let Some(c) = self.capture.as_mut() {
            c.zone = None;
            if c.page.is_some() {
                st = CompactResult::Success;
            }
        }
        match st {
            CompactResult::Success => self.compaction_defer_reset(order, false),
            CompactResult::Complete | CompactResult::PartialSkipped
                if req.prio != CompactPriority::Async =>
            {
                self.defer_compaction(order)
            }
            _ => {}
        }
        st
    }

    /// `try_to_compact_pages(gfp, order, alloc_flags, ac, prio, capc)`: each zone of the
    /// zonelist (`ac->highest_zoneidx` is the engine's), the results combined by `max`, the
    /// first `COMPACT_SUCCESS` stops. Leaves the zone of a captured page selected.
    pub(crate) fn try_to_compact_pages(
        &mut self,
        cpu: usize,
        gfp: u32,
        order: u8,
        alloc_flags: u32,
        mt: MigrateType,
        prio: CompactPriority,
    ) -> CompactResult {
        self.enter(KernelFn::try_to_compact_pages);
        self.trace(
            Step::TryToCompactPages,
            Tracepoint::MmCompactionTryToCompactPages {
                order,
                gfp,
                prio: prio as u8,
            },
        );
        let mut rc = CompactResult::Skipped;
        let mut migrated = Vec::new();
        for zone in self.zonelist() {
            self.select_zone(Step::TryToCompactZone, zone);
            let req = CompactRequest {
                order: Some(order),
                prio,
                direct: true,
                migratetype: mt,
                alloc_flags,
                proactive_wmark_low: None,
            };
            let status = self.try_to_compact_zone(cpu, zone, req, &mut migrated);
            rc = rc.max(status);
            if status == CompactResult::Success {
                break;
            }
        }
        self.direct_migrated.extend(migrated);
        self.exit(KernelFn::try_to_compact_pages);
        rc
    }

    /// `compaction_restarting`: the zone was deferred to the limit and is retried now.
    fn compaction_restarting(&self, order: u8) -> bool {
        let d = self.zone().compact_defer;
        order >= d.order_failed
            && d.defer_shift == COMPACT_MAX_DEFER_SHIFT
            && d.considered as u32 >= 1u32 << d.defer_shift
    }

    /// `__reset_isolation_suitable` (v7.3.4 mm/compaction.c:350-401; v6.12.117 :382, the same):
    /// after a direct compaction's scanners met (`compact_blockskip_flush`), both ends of the
    /// zone are walked a pageblock at a time and a block's skip bit is cleared where a sample
    /// of its pages (every 8th) holds an LRU page (from the start) or a free one (from the
    /// end, MOVABLE blocks only once the target scanner's start is found). The first block
    /// found from each end is where the scanners restart (`compact_init_*_pfn` and
    /// `compact_cached_*_pfn`); none found, the cached pfns are left with no distance.
    fn __reset_isolation_suitable(&mut self) {
        if !self.zone().compact_blockskip_flush {
            return;
        }
        self.set_flag(
            Step::ResetIsolationSuitable,
            CounterId::compact_blockskip_flush,
            0,
            true,
            false,
        );
        let pages = self.zone().pages();
        if pages == 0 {
            return;
        }
        let start = self.zone().cfg.start_pfn;
        let step = Step::ResetIsolationSuitable;
        // Absolute pfns, as the C (the walk ends where the two meet).
        let mut migrate_pfn: Pfn = start;
        let mut free_pfn: Pfn = start + pages as Pfn - 1;
        let (mut reset_migrate, mut reset_free) = (free_pfn, migrate_pfn);
        let (mut source_set, mut free_set) = (false, false);
        while migrate_pfn < free_pfn {
            let m = (migrate_pfn - start) as ZonePfn;
            if self.__reset_isolation_pfn(m, true, source_set) && migrate_pfn < reset_migrate {
                source_set = true;
                reset_migrate = migrate_pfn;
                self.set_compact_cached(step, CounterId::compact_init_migrate_pfn, reset_migrate);
                self.set_compact_cached(
                    step,
                    CounterId::compact_cached_migrate_pfn_async,
                    reset_migrate,
                );
                self.set_compact_cached(
                    step,
                    CounterId::compact_cached_migrate_pfn_sync,
                    reset_migrate,
                );
            }
            let f = (free_pfn - start) as ZonePfn;
            if self.__reset_isolation_pfn(f, free_set, true) && free_pfn > reset_free {
                free_set = true;
                reset_free = free_pfn;
                self.set_compact_cached(step, CounterId::compact_init_free_pfn, reset_free);
                self.set_compact_cached(step, CounterId::compact_cached_free_pfn, reset_free);
            }
            migrate_pfn += PAGEBLOCK_NR_PAGES as Pfn;
            // Below the zone start (a zone under two pageblocks) the walk ends.
            free_pfn = match free_pfn.checked_sub(PAGEBLOCK_NR_PAGES as Pfn) {
                Some(f) if f >= start => f,
                _ => break,
            };
        }
        // Leave no distance if no suitable block was reset.
        if reset_migrate >= reset_free {
            self.set_compact_cached(
                step,
                CounterId::compact_cached_migrate_pfn_async,
                migrate_pfn,
            );
            self.set_compact_cached(
                step,
                CounterId::compact_cached_migrate_pfn_sync,
                migrate_pfn,
            );
            self.set_compact_cached(step, CounterId::compact_cached_free_pfn, free_pfn);
        }
    }

    /// `__reset_isolation_pfn(zone, pfn, check_source, check_target)` (zone-relative pfns).
    fn __reset_isolation_pfn(
        &mut self,
        p: ZonePfn,
        check_source: bool,
        check_target: bool,
    ) -> bool {
        if self.pageblock_skip_persistent(p) {
            return false;
        }
        let start = p & !(PAGEBLOCK_NR_PAGES - 1);
        let pb = start >> PAGEBLOCK_ORDER;
        let skip = self.zone().pageblock[pb as usize] & PB_SKIP != 0;
        if check_source && check_target && !skip {
            return true;
        }
        if !check_source && check_target && self.zone().pageblock_mt(p) != MigrateType::Movable {
            return false;
        }
        let end = (start + PAGEBLOCK_NR_PAGES - 1).min(self.zone().pages() - 1);
        let mut q = start;
        while q <= end {
            let z = self.zone();
            let lru = z.mem_map[q as usize].kind == PageKind::Other
                && z.mem_map[q as usize].owner != NO_OWNER
                && z.mem_map[q as usize].flags & PF_LRU != 0;
            let buddy = z.mem_map[q as usize].kind == PageKind::Buddy;
            if (check_source && lru) || (check_target && buddy) {
                let old = z.pageblock[pb as usize];
                if old & PB_SKIP != 0 {
                    self.emit(
                        Step::ResetIsolationSuitable,
                        Mutation::SetPageblock {
                            pb,
                            old,
                            new: old & !PB_SKIP,
                        },
                    );
                }
                return true;
            }
            q += 1 << PAGE_ALLOC_COSTLY_ORDER;
        }
        false
    }

    /// `__alloc_pages_direct_compact` (v7.3.4 mm/page_alloc.c:4155; v6.12.117 :3750): with the
    /// capture control set, `try_to_compact_pages`; nothing is counted if every zone was skipped
    /// (7.2+: or deferred); else `COMPACTSTALL`, then the captured block (prepared by the
    /// caller's `prep_new_page`) or `get_page_from_freelist`, and `COMPACTSUCCESS` with
    /// `compaction_defer_reset(zone, order, true)`, or `COMPACTFAIL`. Returns the page and the
    /// result.
    pub(crate) fn __alloc_pages_direct_compact(
        &mut self,
        gfp: u32,
        order: u8,
        flags: u32,
        mt: MigrateType,
        cpu: usize,
        prio: CompactPriority,
    ) -> (Option<ZonePfn>, CompactResult) {
        if order == 0 {
            return (None, CompactResult::Skipped);
        }
        self.enter(KernelFn::__alloc_pages_direct_compact);
        self.capture = Some(CaptureControl {
            zone: None,
            order,
            migratetype: mt,
            page: None,
        });
        let mut result = self.try_to_compact_pages(cpu, gfp, order, flags, mt, prio);
        let captured = self.capture.take().and_then(|c| c.page);
        if captured.is_some() {
            result = CompactResult::Success;
        }
        let gives_up = result == CompactResult::Skipped
            || (result == CompactResult::Deferred
                && self.zone().cfg.kernel.direct_compact_deferred_is_skipped());
        if gives_up {
            self.exit(KernelFn::__alloc_pages_direct_compact);
            return (None, result);
        }
        self.counter(Step::DirectCompactStall, CounterId::compact_stall, 0, 1);
        let page = match captured {
            Some(p) => {
                self.message(
                    Step::DirectCompactCaptured,
                    MsgLevel::Info,
                    format!(
                        "compaction_capture: the order-{order} block at {:#x} freed during compaction is the allocation's",
                        self.zone().abs_pfn(p)
                    ),
                );
                Some(p)
            }
            None => self.get_page_from_freelist::<true>(gfp, order, flags, mt, cpu),
        };
        if page.is_some() {
            if self.zone().compact_blockskip_flush {
                self.set_flag(
                    Step::DirectCompactSuccess,
                    CounterId::compact_blockskip_flush,
                    0,
                    true,
                    false,
                );
            }
            self.compaction_defer_reset(order, true);
            self.counter(Step::DirectCompactSuccess, CounterId::compact_success, 0, 1);
        } else {
            self.counter(Step::DirectCompactFail, CounterId::compact_fail, 0, 1);
        }
        self.exit(KernelFn::__alloc_pages_direct_compact);
        (page, result)
    }

    /// The folios direct compaction moved since the last call, for the runner's names.
    pub fn take_direct_migrations(&mut self) -> Vec<Migration> {
        std::mem::take(&mut self.direct_migrated)
    }
}
