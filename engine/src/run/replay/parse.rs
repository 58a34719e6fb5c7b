//! Import of an ftrace text trace (`/sys/kernel/tracing/trace`, `trace-cmd report`, or
//! `buddyscope run --format trace`) with the kmem events of kernel-model.md §9.
//!
//! Streaming: [`TraceReader`] reads one line at a time from any `BufRead`, so a trace of a
//! million lines never sits in memory as text.
//!
//! What is tolerated: any columns before the event name (`comm-pid`, `[cpu]`, flags, tgid,
//! timestamp: the line is matched on `": <event>: "`, or the event name at column 1 as the engine
//! prints it), `#` comment lines, blank lines, lines of other events (`kmalloc`, `sched_*`, …)
//! and `trace-cmd report` header lines (skipped and counted), fields in any order, unknown extra
//! fields, `page=` in any form (it is ignored: the pfn is authoritative), `mm_page_free_batched`
//! (not an event: the same folios also produced `mm_page_free` with their real order; its pfn,
//! CPU, task and context are kept on the next event line, [`TraceLine::batched`]), the lab's
//! `free_one_page` kprobe event (`lab/run.sh --probe free_one_page`: not an event either, a fact
//! about the free before it, kept on the next event line, [`TraceLine::free_one_page`]).
//!
//! What is rejected, with the line and column: a §9 event line with a missing or malformed field
//! (`pfn=` not hex, an order above `MAX_PAGE_ORDER`, a migratetype outside 0..=5, an unknown
//! `gfp_flags` name, a `0`/`1` flag that is something else).

use crate::mm::{
    gfp, CompactDefer, CompactFeedback, CompactPriority, CompactResult, DeferPoint,
    KcompactdWakePoint, ReclaimRetryCheck, ZoneType, MAX_PAGE_ORDER,
};

/// The order of x86_64's gigantic hugetlb folio (PUD_ORDER: 1 GiB of 4 KiB pages), the only
/// order above MAX_PAGE_ORDER an `mm_page_free` line can carry there.
pub const GIGANTIC_ORDER: u8 = 18;
use std::fmt;
use std::io::BufRead;

/// One §9 event as traced. pfns are absolute, migratetypes the kernel's numbers (their meaning
/// depends on `CONFIG_CMA`, which the zone knows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// `mm_page_alloc`; `pfn` is `None` for a failed allocation (NULL page, `pfn=0x0`).
    Alloc {
        /// The page (`None`: failed).
        pfn: Option<u64>,
        /// The order.
        order: u8,
        /// `migratetype`.
        mt: u8,
        /// `gfp_flags`.
        gfp: u32,
    },
    /// `mm_page_free`.
    Free {
        /// The page.
        pfn: u64,
        /// The order.
        order: u8,
    },
    /// `mm_page_alloc_zone_locked`.
    ZoneLocked {
        /// The page.
        pfn: u64,
        /// The order.
        order: u8,
        /// `migratetype`.
        mt: u8,
        /// Taken to refill a pcp list.
        percpu_refill: bool,
    },
    /// `mm_page_pcpu_drain`.
    PcpuDrain {
        /// The page.
        pfn: u64,
        /// The order.
        order: u8,
        /// `migratetype`.
        mt: u8,
    },
    /// `mm_page_alloc_extfrag`.
    Extfrag {
        /// The page.
        pfn: u64,
        /// The order asked for.
        alloc_order: u8,
        /// The order of the block taken.
        fallback_order: u8,
        /// The type asked for.
        alloc_mt: u8,
        /// The block's type.
        fallback_mt: u8,
        /// The pageblock changed type.
        change_ownership: bool,
    },
    /// Engine annotation `# free_prepared_contig_range: chunk pfn P order O`: the order-0
    /// pages just traced by `mm_page_free` go back as one `FPI_PREPARED` chunk (7.2), a step
    /// no tracepoint shows.
    Chunk {
        /// First page of the chunk.
        pfn: u64,
        /// Its order.
        order: u8,
    },
    /// Engine annotation `# alloc_contig_range: N pages from pfn P are allocated`: the range
    /// leaves the buddy without a tracepoint.
    ContigAlloc {
        /// First page of the range.
        pfn: u64,
        /// Pages in it.
        nr: u64,
    },
    /// Engine annotation `# set_migratetype_isolate: pageblock N (pfn P) changes type T →
    /// Isolate`: the pageblock at `pfn` is isolated (no tracepoint shows it).
    Isolate {
        /// A page of the pageblock.
        pfn: u64,
    },
    /// Engine annotation `# unset_migratetype_isolate: pageblock N (pfn P) changes type Isolate
    /// → T`: the isolation is undone.
    Unisolate {
        /// A page of the pageblock.
        pfn: u64,
    },
    /// An `mm_compaction_*` line (include/trace/events/compaction.h).
    Compaction(CompactionLine),
}

/// The `mm_compaction_*` events the replay reads, with their fields as traced (absolute pfns;
/// `zone` is the `zone_idx` the zone name stands for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionLine {
    /// `mm_compaction_begin`.
    Begin {
        /// `zone_start`.
        zone_start: u64,
        /// `migrate_pfn`.
        migrate_pfn: u64,
        /// `free_pfn`.
        free_pfn: u64,
        /// `zone_end`.
        zone_end: u64,
        /// `mode=sync`.
        sync: bool,
    },
    /// `mm_compaction_end`.
    End {
        /// `zone_start`.
        zone_start: u64,
        /// `migrate_pfn`.
        migrate_pfn: u64,
        /// `free_pfn`.
        free_pfn: u64,
        /// `zone_end`.
        zone_end: u64,
        /// `mode=sync`.
        sync: bool,
        /// `status`.
        status: CompactResult,
    },
    /// `mm_compaction_isolate_migratepages`: `range=(start ~ end)`.
    IsolateMigratepages {
        /// First pfn scanned.
        start: u64,
        /// Where the scan stopped.
        end: u64,
        /// `nr_scanned`.
        nr_scanned: u64,
        /// `nr_taken`.
        nr_taken: u64,
    },
    /// `mm_compaction_isolate_freepages`: the free blocks `isolate_freepages_block` took off
    /// the buddy in `range=(start ~ end)` (no `mm_page_alloc` line shows them).
    IsolateFreepages {
        /// First pfn scanned.
        start: u64,
        /// Where the scan stopped.
        end: u64,
        /// `nr_scanned`.
        nr_scanned: u64,
        /// `nr_taken`: pages isolated.
        nr_taken: u64,
    },
    /// `mm_compaction_fast_isolate_freepages`: the search window `range=(min_pfn ~
    /// free_pfn)` and what the search took; not which block.
    FastIsolateFreepages {
        /// `min_pfn`: the lowest pfn a candidate may have.
        min_pfn: u64,
        /// `cc->free_pfn`.
        free_pfn: u64,
        /// `nr_scanned`: list entries looked at, plus the pages of the block taken but one.
        nr_scanned: u64,
        /// `nr_taken`: the pages of the block taken (0 or a power of two).
        nr_taken: u64,
    },
    /// `mm_compaction_migratepages`.
    Migratepages {
        /// `nr_migrated`.
        nr_migrated: u64,
        /// `nr_failed`.
        nr_failed: u64,
    },
    /// `mm_compaction_try_to_compact_pages`.
    TryToCompactPages {
        /// `order`.
        order: u8,
        /// `gfp_mask`.
        gfp: u32,
        /// `priority`.
        prio: u8,
    },
    /// `mm_compaction_suitable`.
    Suitable {
        /// `zone_idx` of `zone=`.
        zone: u8,
        /// `order`.
        order: u8,
        /// `ret`.
        ret: CompactResult,
    },
    /// `mm_compaction_finished`.
    Finished {
        /// `zone_idx` of `zone=`.
        zone: u8,
        /// `order` (-1 for `compact_memory` and proactive compaction).
        order: i8,
        /// `ret`.
        ret: CompactResult,
    },
    /// `mm_compaction_wakeup_kcompactd`, `mm_compaction_kcompactd_wake`.
    KcompactdWake {
        /// Which of the two.
        point: KcompactdWakePoint,
        /// `order` (-1: the `compaction_proactiveness` sysctl's wakeup).
        order: i8,
        /// `zone_idx` of `classzone_idx=` (`highest_zoneidx`).
        zone: u8,
    },
    /// `mm_compaction_kcompactd_sleep`.
    KcompactdSleep {
        /// `nid`.
        nid: u8,
    },
    /// `mm_compaction_deferred`, `_defer_compaction`, `_defer_reset`.
    Defer {
        /// Which of the three.
        point: DeferPoint,
        /// `zone_idx` of `zone=`.
        zone: u8,
        /// `order`.
        order: u8,
        /// The zone's deferral state the line prints (`order_failed`, `consider`,
        /// `limit` = `1 << compact_defer_shift`).
        state: CompactDefer,
    },
    /// `compact_retry` (include/trace/events/oom.h): `should_compact_retry`'s decision.
    CompactRetry {
        /// `order`.
        order: u8,
        /// `priority` (`enum compact_priority`: 0 `SYNC_FULL` … 2 `ASYNC`).
        prio: u8,
        /// `compaction_result`.
        feedback: CompactFeedback,
        /// `retries`.
        retries: u8,
        /// `max_retries`.
        max_retries: u8,
        /// `should_retry`.
        ret: bool,
    },
    /// `reclaim_retry_zone` (oom.h): one zone of `should_reclaim_retry`'s check.
    ReclaimRetryZone {
        /// `zone_idx` of `zone=`.
        zone: u8,
        /// `reclaimable`.
        reclaimable: u32,
        /// `available`.
        available: u32,
        /// `order`, `min_wmark`, `no_progress_loops`, `wmark_check`.
        check: ReclaimRetryCheck,
    },
}

/// A parsed event line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// 1-based line number in the input.
    pub line: u64,
    /// The `[NNN]` CPU column, when the line has one; in the engine's own trace (no columns),
    /// the CPU of the last `# on CPU N` line, if any.
    pub cpu: Option<u32>,
    /// The timestamp column (`1234.567890:`) in nanoseconds, when the line has one.
    pub ts_ns: Option<u64>,
    /// The task column (`comm-pid`) of an `mm_page_alloc` line, when the line has one (kept
    /// for that event only: it is who allocated the page).
    pub task: Option<String>,
    pub event: TraceEvent,
    /// An `mm_page_free_batched` line came between the previous event line and this one:
    /// the `mm_page_free` lines before it were a folio batch (`free_unref_folios` traces
    /// every page's free, then commits each with `mm_page_free_batched`), not a contiguous
    /// range's run.
    pub after_batched: bool,
    /// The pid of the task of the last of those `mm_page_free_batched` lines, when it has one.
    pub batched_by: Option<u32>,
    /// Those `mm_page_free_batched` lines themselves, in file order: the CPU each folio was
    /// committed on (`free_unref_folios` traces it under that CPU's pcp lock).
    pub batched: Vec<BatchedLine>,
    /// The `free_one_page` kprobe lines (the lab's `--probe free_one_page`) between the previous
    /// event line and this one, in file order: a free that reached the buddy through
    /// `free_one_page`, not a pcp list.
    pub free_one_page: Vec<FreeOnePageLine>,
    /// The `free_frozen_page_commit` (6.12: `free_unref_page_commit`) kprobe lines (the lab's
    /// second probe) between the previous event line and this one, in file order: a page put
    /// on a pcp list, in the order of the kernel's `list_add` calls.
    pub pcp_commit: Vec<PcpCommitLine>,
    /// Lines the reader skipped between the previous event line and this one.
    pub skipped_before: u32,
    /// The CPUs of those lines, a bit each ([`SKIPPED_UNREAD`]: a line whose CPU the reader
    /// did not read, or that is not an `mm_page_free_batched` line).
    pub skipped_cpus: u64,
    /// From the irq-info flags column (`d..1.`), when the line has one: irqs on, no hard or
    /// soft irq, preempt depth 0, i.e. a context that may sleep.
    pub preemptible: Option<bool>,
    /// From the same column: the line ran in hard or soft irq context (an interrupt of the
    /// task the line names).
    pub in_irq: Option<bool>,
    /// The pid of the task column (`comm-pid`), when the line has one.
    pub pid: Option<u32>,
}

/// An `mm_page_free_batched` line: `free_unref_folios`' second loop is committing the folio
/// at `pfn` to the pcp list of the CPU it runs on (the line's CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchedLine {
    /// The folio's (head) pfn.
    pub pfn: u64,
    /// The `[NNN]` CPU column.
    pub cpu: Option<u32>,
    /// The pid of the task column.
    pub pid: Option<u32>,
    /// The irq-info column's hard or soft irq.
    pub in_irq: Option<bool>,
}

/// A line the importer rejects, or a read error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceParseError {
    /// 1-based line number.
    pub line: u64,
    /// 1-based column of the offending field, where there is one.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "line {}, column {}: {}", self.line, c, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

/// A line of the lab's kprobe event on `free_one_page` (mm/page_alloc.c), which prints
/// `free_one_page: (free_one_page+0x0/0x90) pfn=0x… order=N`: the block freed before it (by the
/// same task, in the same context) went to the buddy without the pcp (an isolated pageblock, a
/// failed `pcp_spin_trylock`, an order above the pcp's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeOnePageLine {
    /// The block's pfn (`free_one_page`'s `pfn` argument).
    pub pfn: u64,
    /// Its order (`free_one_page`'s `order` argument).
    pub order: u8,
    /// The `[NNN]` CPU column.
    pub cpu: Option<u32>,
    /// The pid of the task column.
    pub pid: Option<u32>,
    /// The irq-info column's hard or soft irq.
    pub in_irq: Option<bool>,
}

/// A line of the lab's kprobe event at the entry of `free_frozen_page_commit` (6.12:
/// `free_unref_page_commit`), which prints `free_frozen_page_commit: (free_frozen_page_commit+0x0/0x4a6)
/// page=0xffffea… order=N`. The function runs with the pcp lock held and puts the page at the
/// head of its pcp list, so these lines come in the list's order. The probe reads the page
/// pointer (the third argument); the reader maps it to a pfn through the `struct page` array
/// base it learns from the trace itself (a probe line right after an `mm_page_free` of the
/// same task and context on its CPU is that free's commit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcpCommitLine {
    /// The `page` argument, as printed.
    pub page: u64,
    /// Its pfn, once the reader has learned the array's base (`None` before).
    pub pfn: Option<u64>,
    /// The `order` argument.
    pub order: u8,
    /// The `[NNN]` CPU column: the CPU whose pcp list the page goes on.
    pub cpu: Option<u32>,
    /// The pid of the task column.
    pub pid: Option<u32>,
    /// The irq-info column's hard or soft irq.
    pub in_irq: Option<bool>,
}

impl std::error::Error for TraceParseError {}

/// The events the importer understands, by tracepoint name.
const EVENTS: &[&str] = &[
    "mm_page_alloc",
    "mm_page_free",
    "mm_page_free_batched",
    FREE_ONE_PAGE,
    PCP_COMMIT[0],
    PCP_COMMIT[1],
    "mm_page_alloc_zone_locked",
    "mm_page_pcpu_drain",
    "mm_page_alloc_extfrag",
    "mm_compaction_begin",
    "mm_compaction_end",
    "mm_compaction_isolate_migratepages",
    "mm_compaction_isolate_freepages",
    "mm_compaction_fast_isolate_freepages",
    "mm_compaction_migratepages",
    "mm_compaction_try_to_compact_pages",
    "mm_compaction_suitable",
    "mm_compaction_finished",
    "mm_compaction_deferred",
    "mm_compaction_defer_compaction",
    "mm_compaction_defer_reset",
    "mm_compaction_wakeup_kcompactd",
    "mm_compaction_kcompactd_wake",
    "mm_compaction_kcompactd_sleep",
    "compact_retry",
    "reclaim_retry_zone",
];

/// The lab's kprobe event on `free_one_page` (lab/capture-lib.sh `cap_enable_probes`).
const FREE_ONE_PAGE: &str = "free_one_page";
/// The lab's kprobe events on the pcp commit: 7.x's name, 6.12's.
const PCP_COMMIT: [&str; 2] = ["free_frozen_page_commit", "free_unref_page_commit"];

/// [`TraceLine::skipped_cpus`]' bit for a skipped line of no known CPU, or other than an
/// `mm_page_free_batched` line.
pub const SKIPPED_UNREAD: u64 = 1 << 63;

/// Streams [`TraceLine`]s out of a `BufRead`, one line at a time.
pub struct TraceReader<R> {
    input: R,
    buf: String,
    line: u64,
    /// Lines skipped: comments, blanks, other events, headers, `mm_page_free_batched`.
    pub skipped: u64,
    /// Progress: bytes consumed so far.
    pub bytes: u64,
    /// The CPU of the engine trace's last `# on CPU N` line: the CPU of the lines without a
    /// `[cpu]` column that follow.
    hint_cpu: Option<u32>,
    /// An `mm_page_free_batched` line was skipped since the last event line, and its task.
    batched: bool,
    batched_by: Option<u32>,
    batched_lines: Vec<BatchedLine>,
    free_one_page_lines: Vec<FreeOnePageLine>,
    pcp_commit_lines: Vec<PcpCommitLine>,
    /// Per CPU (below 64): the last line read there, when it was an `mm_page_free` (its pid,
    /// irq context, pfn): a commit probe line right after it of the same task and context is
    /// that page's commit.
    last_free: Vec<Option<LastFree>>,
    /// (page, pfn) pairs so read, until they give the `struct page` array ([`PageArray`]).
    page_pairs: Vec<(u64, u64)>,
    page_array: Option<PageArray>,
    /// Lines skipped since the last event line, and their CPUs (see [`TraceLine`]).
    skipped_before: u32,
    skipped_cpus: u64,
}

impl<R: BufRead> TraceReader<R> {
    pub fn new(input: R) -> Self {
        TraceReader {
            input,
            buf: String::new(),
            line: 0,
            skipped: 0,
            bytes: 0,
            hint_cpu: None,
            batched: false,
            batched_by: None,
            batched_lines: Vec::new(),
            free_one_page_lines: Vec::new(),
            pcp_commit_lines: Vec::new(),
            last_free: vec![None; 64],
            page_pairs: Vec::new(),
            page_array: None,
            skipped_before: 0,
            skipped_cpus: 0,
        }
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.line
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceLine, TraceParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.input.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(n) => self.bytes += n as u64,
                Err(e) => {
                    return Some(Err(TraceParseError {
                        line: self.line + 1,
                        column: None,
                        message: format!("read error: {e}"),
                    }))
                }
            }
            self.line += 1;
            if let Some(c) = cpu_hint(&self.buf) {
                self.hint_cpu = Some(c);
                self.skipped += 1;
                self.skipped_before += 1;
                self.skipped_cpus |= SKIPPED_UNREAD;
                continue;
            }
            match parse_line(self.line, &self.buf) {
                Ok(Some(mut l)) => {
                    if l.cpu.is_none() {
                        l.cpu = self.hint_cpu;
                    }
                    l.after_batched = std::mem::take(&mut self.batched);
                    l.batched_by = self.batched_by.take();
                    l.batched = std::mem::take(&mut self.batched_lines);
                    l.free_one_page = std::mem::take(&mut self.free_one_page_lines);
                    l.pcp_commit = std::mem::take(&mut self.pcp_commit_lines);
                    if let Some(c) = l.cpu.filter(|&c| c < 64) {
                        self.last_free[c as usize] = match l.event {
                            TraceEvent::Free { pfn, .. } => Some((l.pid, l.in_irq, pfn)),
                            _ => None,
                        };
                    }
                    l.skipped_before = std::mem::take(&mut self.skipped_before);
                    l.skipped_cpus = std::mem::take(&mut self.skipped_cpus);
                    return Some(Ok(l));
                }
                Ok(None) => {
                    self.skipped += 1;
                    self.skipped_before += 1;
                    let mut cpu = None;
                    if self.buf.contains("mm_page_free_batched:") {
                        self.batched = true;
                        self.batched_by = task_pid(&self.buf);
                        cpu = cpu_column(&self.buf).filter(|&c| c < 63);
                        if let Some(b) = batched_line(&self.buf) {
                            self.batched_lines.push(b);
                        }
                    } else if let Some(b) = free_one_page_line(&self.buf) {
                        cpu = b.cpu.filter(|&c| c < 63);
                        self.free_one_page_lines.push(b);
                    } else if let Some(c) = pcp_commit_line(&self.buf) {
                        cpu = c.cpu.filter(|&c| c < 63);
                        let c = self.commit_pfn(c);
                        self.pcp_commit_lines.push(c);
                    }
                    if let Some(c) = cpu_column(&self.buf).filter(|&c| c < 64) {
                        self.last_free[c as usize] = None;
                    }
                    self.skipped_cpus |= cpu.map_or(SKIPPED_UNREAD, |c| 1 << c);
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// A CPU's last line when it was an `mm_page_free`: its pid, irq context and pfn.
type LastFree = (Option<u32>, Option<bool>, u64);

/// The `struct page` array (vmemmap): `page = base + pfn * size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PageArray {
    base: u64,
    size: u64,
}

impl PageArray {
    fn pfn(&self, page: u64) -> Option<u64> {
        let off = page.checked_sub(self.base)?;
        (off % self.size == 0).then_some(off / self.size)
    }

    /// The array two pairs of different pfns give (`None`: they give no whole positive size).
    fn from_pairs((p1, f1): (u64, u64), (p2, f2): (u64, u64)) -> Option<PageArray> {
        let (dp, df) = if f2 > f1 {
            (p2.checked_sub(p1)?, f2 - f1)
        } else {
            (p1.checked_sub(p2)?, f1.checked_sub(f2)?)
        };
        if df == 0 || dp % df != 0 || dp == 0 {
            return None;
        }
        let size = dp / df;
        Some(PageArray {
            base: p1.checked_sub(f1.checked_mul(size)?)?,
            size,
        })
    }
}

impl<R> TraceReader<R> {
    /// The commit line with its pfn: learns the page array from the commits that follow their
    /// own `mm_page_free` line on their CPU ([`learn_page_array`]: an interrupt's commit
    /// between a free and its own commit is never such a pair, since the interrupt's line
    /// before it is its own free or commit).
    fn commit_pfn(&mut self, mut c: PcpCommitLine) -> PcpCommitLine {
        if self.page_array.is_none() {
            if let Some(Some((pid, in_irq, pfn))) =
                c.cpu.and_then(|k| self.last_free.get(k as usize))
            {
                if *pid == c.pid && *in_irq == c.in_irq {
                    if self.page_pairs.len() == PAGE_ARRAY_PAIRS {
                        self.page_pairs.remove(0);
                    }
                    self.page_pairs.push((c.page, *pfn));
                }
            }
            self.page_array = learn_page_array(&self.page_pairs);
        }
        c.pfn = self.page_array.and_then(|a| a.pfn(c.page));
        c
    }
}

/// Consecutive (page, pfn) pairs that must agree before the page array is taken: on the 7.2.13
/// fragment capture about 0.4 % of the commit lines right after a free of the same task and
/// context are another page's (825 of the first 200,000), never several in a row.
const PAGE_ARRAY_PAIRS: usize = 8;

/// The page array the last [`PAGE_ARRAY_PAIRS`] pairs all agree with, from the first of them
/// and the next of another pfn.
fn learn_page_array(pairs: &[(u64, u64)]) -> Option<PageArray> {
    let last = pairs.get(pairs.len().checked_sub(PAGE_ARRAY_PAIRS)?..)?;
    let first = last[0];
    let second = last.iter().find(|p| p.1 != first.1)?;
    let a = PageArray::from_pairs(first, *second)?;
    last.iter()
        .all(|&(page, pfn)| a.pfn(page) == Some(pfn))
        .then_some(a)
}

/// The fields of a pcp commit kprobe line (`None`: not one, or no readable `page=` and
/// `order=`).
fn pcp_commit_line(raw: &str) -> Option<PcpCommitLine> {
    let line = raw.trim_end_matches(['\n', '\r']);
    let (name, fields_at, prefix) = find_event(line)?;
    if !PCP_COMMIT.contains(&name) {
        return None;
    }
    let f = Fields::new(0, line, fields_at);
    Some(PcpCommitLine {
        page: f.hex("page").ok()?,
        pfn: None,
        order: f.free_order("order").ok()?,
        cpu: cpu_column(prefix),
        pid: task_pid(prefix),
        in_irq: irq_flags(prefix).map(|f| f[2] != b'.'),
    })
}

/// Parses one line: `Ok(None)` for a line that is not a §9 event (comment, blank, other event).
pub fn parse_line(line_no: u64, raw: &str) -> Result<Option<TraceLine>, TraceParseError> {
    let line = raw.trim_end_matches(['\n', '\r']);
    let trimmed = line.trim_start();
    if let Some(c) = trimmed.strip_prefix('#') {
        return Ok(engine_hint(c.trim_start()).map(|event| TraceLine {
            line: line_no,
            cpu: None,
            ts_ns: None,
            task: None,
            event,
            after_batched: false,
            skipped_before: 0,
            skipped_cpus: 0,
            preemptible: None,
            in_irq: None,
            pid: None,
            batched_by: None,
            batched: Vec::new(),
            free_one_page: Vec::new(),
            pcp_commit: Vec::new(),
        }));
    }
    if trimmed.is_empty() {
        return Ok(None);
    }
    let Some((name, fields_at, prefix)) = find_event(line) else {
        return Ok(None);
    };
    if name == "mm_page_free_batched" || name == FREE_ONE_PAGE || PCP_COMMIT.contains(&name) {
        return Ok(None);
    }
    let cpu = cpu_column(prefix);
    let f = Fields::new(line_no, line, fields_at);
    let event = match name {
        "mm_page_alloc" => {
            let pfn = f.hex("pfn")?;
            let page = f.raw("page").map(|(_, v)| v);
            // A failed allocation prints a NULL page and pfn 0; pfn 0 with a real page is a
            // real allocation of pfn 0.
            let failed = pfn == 0 && page.is_some_and(|p| p.bytes().all(|b| b == b'0'));
            TraceEvent::Alloc {
                pfn: if failed { None } else { Some(pfn) },
                order: f.order("order")?,
                mt: f.mt("migratetype")?,
                gfp: f.gfp("gfp_flags")?,
            }
        }
        "mm_page_free" => TraceEvent::Free {
            pfn: f.hex("pfn")?,
            order: f.free_order("order")?,
        },
        "mm_page_alloc_zone_locked" => TraceEvent::ZoneLocked {
            pfn: f.hex("pfn")?,
            order: f.order("order")?,
            mt: f.mt("migratetype")?,
            percpu_refill: f.flag("percpu_refill")?,
        },
        "mm_page_pcpu_drain" => TraceEvent::PcpuDrain {
            pfn: f.hex("pfn")?,
            order: f.order("order")?,
            mt: f.mt("migratetype")?,
        },
        "mm_page_alloc_extfrag" => TraceEvent::Extfrag {
            pfn: f.hex("pfn")?,
            alloc_order: f.order("alloc_order")?,
            fallback_order: f.order("fallback_order")?,
            alloc_mt: f.mt("alloc_migratetype")?,
            fallback_mt: f.mt("fallback_migratetype")?,
            change_ownership: f.flag("change_ownership")?,
        },
        _ => TraceEvent::Compaction(compaction_line(name, &f)?),
    };
    let task = match event {
        TraceEvent::Alloc { .. } => task_column(prefix),
        _ => None,
    };
    Ok(Some(TraceLine {
        line: line_no,
        cpu,
        ts_ns: timestamp(prefix),
        task,
        event,
        after_batched: false,
        batched_by: None,
        batched: Vec::new(),
        free_one_page: Vec::new(),
        pcp_commit: Vec::new(),
        skipped_before: 0,
        skipped_cpus: 0,
        preemptible: preemptible(prefix),
        in_irq: irq_flags(prefix).map(|f| f[2] != b'.'),
        pid: task_pid(prefix),
    }))
}

/// The fields of an `mm_page_free_batched` line (`None`: not one, or no readable `pfn=`).
fn batched_line(raw: &str) -> Option<BatchedLine> {
    let line = raw.trim_end_matches(['\n', '\r']);
    let (name, fields_at, prefix) = find_event(line)?;
    if name != "mm_page_free_batched" {
        return None;
    }
    let pfn = Fields::new(0, line, fields_at).hex("pfn").ok()?;
    Some(BatchedLine {
        pfn,
        cpu: cpu_column(prefix),
        pid: task_pid(prefix),
        in_irq: irq_flags(prefix).map(|f| f[2] != b'.'),
    })
}

/// The fields of a `free_one_page` kprobe line (`None`: not one, or no readable `pfn=` and
/// `order=`).
fn free_one_page_line(raw: &str) -> Option<FreeOnePageLine> {
    let line = raw.trim_end_matches(['\n', '\r']);
    let (name, fields_at, prefix) = find_event(line)?;
    if name != FREE_ONE_PAGE {
        return None;
    }
    let f = Fields::new(0, line, fields_at);
    Some(FreeOnePageLine {
        pfn: f.hex("pfn").ok()?,
        order: f.free_order("order").ok()?,
        cpu: cpu_column(prefix),
        pid: task_pid(prefix),
        in_irq: irq_flags(prefix).map(|f| f[2] != b'.'),
    })
}

/// The fields of an `mm_compaction_*` line, in include/trace/events/compaction.h's formats.
fn compaction_line(name: &str, f: &Fields<'_>) -> Result<CompactionLine, TraceParseError> {
    let mode = |f: &Fields<'_>| -> Result<bool, TraceParseError> {
        let (o, v) = f.get("mode")?;
        match v {
            "sync" => Ok(true),
            "async" => Ok(false),
            _ => Err(f.err(o, format!("`mode={v}`: expected sync or async"))),
        }
    };
    Ok(match name {
        "mm_compaction_begin" => CompactionLine::Begin {
            zone_start: f.hex("zone_start")?,
            migrate_pfn: f.hex("migrate_pfn")?,
            free_pfn: f.hex("free_pfn")?,
            zone_end: f.hex("zone_end")?,
            sync: mode(f)?,
        },
        "mm_compaction_end" => CompactionLine::End {
            zone_start: f.hex("zone_start")?,
            migrate_pfn: f.hex("migrate_pfn")?,
            free_pfn: f.hex("free_pfn")?,
            zone_end: f.hex("zone_end")?,
            sync: mode(f)?,
            status: f.compact_result("status")?,
        },
        "mm_compaction_isolate_migratepages"
        | "mm_compaction_isolate_freepages"
        | "mm_compaction_fast_isolate_freepages" => {
            let (start, end) = f.range()?;
            let nr_scanned = f.count("nr_scanned")?;
            let nr_taken = f.count("nr_taken")?;
            if name == "mm_compaction_fast_isolate_freepages" {
                CompactionLine::FastIsolateFreepages {
                    min_pfn: start,
                    free_pfn: end,
                    nr_scanned,
                    nr_taken,
                }
            } else if name == "mm_compaction_isolate_freepages" {
                CompactionLine::IsolateFreepages {
                    start,
                    end,
                    nr_scanned,
                    nr_taken,
                }
            } else {
                CompactionLine::IsolateMigratepages {
                    start,
                    end,
                    nr_scanned,
                    nr_taken,
                }
            }
        }
        "mm_compaction_migratepages" => CompactionLine::Migratepages {
            nr_migrated: f.count("nr_migrated")?,
            nr_failed: f.count("nr_failed")?,
        },
        "mm_compaction_try_to_compact_pages" => {
            let (o, prio) = f.int("priority")?;
            if !(0..=2).contains(&prio) {
                return Err(f.err(o, format!("`priority={prio}`: expected 0..=2")));
            }
            CompactionLine::TryToCompactPages {
                order: f.order("order")?,
                gfp: f.gfp("gfp_mask")?,
                prio: prio as u8,
            }
        }
        "mm_compaction_suitable" => CompactionLine::Suitable {
            zone: f.zone()?,
            order: f.order("order")?,
            ret: f.compact_result("ret")?,
        },
        "mm_compaction_wakeup_kcompactd" | "mm_compaction_kcompactd_wake" => {
            let (o, order) = f.int("order")?;
            if !(-1..=MAX_PAGE_ORDER as i64).contains(&order) {
                return Err(f.err(
                    o,
                    format!("`order={order}`: expected -1..={MAX_PAGE_ORDER}"),
                ));
            }
            CompactionLine::KcompactdWake {
                point: if name == "mm_compaction_kcompactd_wake" {
                    KcompactdWakePoint::KcompactdWake
                } else {
                    KcompactdWakePoint::WakeupKcompactd
                },
                order: order as i8,
                zone: f.zone_named("classzone_idx")?,
            }
        }
        "compact_retry" => {
            let (o, v) = f.get("priority")?;
            let prio = [
                CompactPriority::SyncFull,
                CompactPriority::SyncLight,
                CompactPriority::Async,
            ]
            .into_iter()
            .find(|p| p.kernel_name() == v)
            .ok_or_else(|| f.err(o, format!("`priority={v}`: not a COMPACTION_PRIORITY")))?;
            let (o, v) = f.get("compaction_result")?;
            let feedback = CompactFeedback::ALL
                .into_iter()
                .find(|r| r.as_str() == v)
                .ok_or_else(|| {
                    f.err(
                        o,
                        format!("`compaction_result={v}`: expected failed, withdrawn or progress"),
                    )
                })?;
            CompactionLine::CompactRetry {
                order: f.order("order")?,
                prio: prio as u8,
                feedback,
                retries: f.small("retries", u8::MAX as i64)? as u8,
                max_retries: f.small("max_retries", u8::MAX as i64)? as u8,
                ret: f.small("should_retry", 1)? != 0,
            }
        }
        "reclaim_retry_zone" => {
            let pages = |key: &str| -> Result<u32, TraceParseError> {
                Ok(f.small(key, i64::from(u32::MAX))? as u32)
            };
            CompactionLine::ReclaimRetryZone {
                zone: f.zone()?,
                reclaimable: pages("reclaimable")?,
                available: pages("available")?,
                check: ReclaimRetryCheck {
                    order: f.order("order")?,
                    min_wmark: f.small("min_wmark", i64::from(ReclaimRetryCheck::MAX_MIN_WMARK))?
                        as u32,
                    no_progress_loops: f
                        .small("no_progress_loops", i64::from(ReclaimRetryCheck::MAX_LOOPS))?
                        as u8,
                    wmark_check: f.small("wmark_check", 1)? != 0,
                },
            }
        }
        "mm_compaction_kcompactd_sleep" => {
            let (o, nid) = f.int("nid")?;
            if !(0..=u8::MAX as i64).contains(&nid) {
                return Err(f.err(o, format!("`nid={nid}`: not a node id")));
            }
            CompactionLine::KcompactdSleep { nid: nid as u8 }
        }
        "mm_compaction_finished" => {
            let (o, order) = f.int("order")?;
            if !(-1..=MAX_PAGE_ORDER as i64).contains(&order) {
                return Err(f.err(
                    o,
                    format!("`order={order}`: expected -1..={MAX_PAGE_ORDER}"),
                ));
            }
            CompactionLine::Finished {
                zone: f.zone()?,
                order: order as i8,
                ret: f.compact_result("ret")?,
            }
        }
        _ => {
            let point = match name {
                "mm_compaction_deferred" => DeferPoint::Deferred,
                "mm_compaction_defer_compaction" => DeferPoint::DeferCompaction,
                _ => DeferPoint::DeferReset,
            };
            let (o, order_failed) = f.int("order_failed")?;
            if !(0..=MAX_PAGE_ORDER as i64 + 1).contains(&order_failed) {
                return Err(f.err(
                    o,
                    format!(
                        "`order_failed={order_failed}`: expected 0..={}",
                        MAX_PAGE_ORDER + 1
                    ),
                ));
            }
            let (o, considered) = f.int("consider")?;
            if !(0..=64).contains(&considered) {
                return Err(f.err(o, format!("`consider={considered}`: expected 0..=64")));
            }
            let (o, limit) = f.int("limit")?;
            if !(1..=64).contains(&limit) || (limit as u64).count_ones() != 1 {
                return Err(f.err(
                    o,
                    format!("`limit={limit}`: expected a power of two up to 64"),
                ));
            }
            CompactionLine::Defer {
                point,
                zone: f.zone()?,
                order: f.order("order")?,
                state: CompactDefer {
                    considered: considered as u8,
                    defer_shift: limit.trailing_zeros() as u8,
                    order_failed: order_failed as u8,
                },
            }
        }
    })
}

/// The task column of ftrace's prefix (`            bash-1234    [001] …`, trace-cmd's
/// `bash-1234 [001] …`): what stands before the `[cpu]` column, without the `(tgid)` column the
/// `record-tgid` option adds. `None` for the engine's own trace (no columns).
fn task_column(prefix: &str) -> Option<String> {
    let (before, _) = prefix.split_once('[')?;
    let mut t = before.trim();
    if let Some(i) = t.rfind('(') {
        if t.ends_with(')') {
            t = t[..i].trim_end();
        }
    }
    (!t.is_empty()).then(|| t.to_string())
}

/// The engine trace's `# on CPU N` line (printed where the CPU of the events changes, on a
/// zone of several CPUs): its CPU.
fn cpu_hint(raw: &str) -> Option<u32> {
    raw.trim()
        .strip_prefix("# on CPU ")
        .and_then(|n| n.parse().ok())
}

/// The timestamp column of ftrace's prefix (`… [001] d..1.  1234.567890: `), in nanoseconds:
/// the last token before the event name, seconds with up to 9 decimals.
fn timestamp(prefix: &str) -> Option<u64> {
    let tok = prefix.trim_end().strip_suffix(':')?.rsplit(' ').next()?;
    let (s, frac) = tok.split_once('.')?;
    if s.is_empty() || frac.is_empty() || frac.len() > 9 {
        return None;
    }
    if !s.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ns = frac.parse::<u64>().ok()? * 10u64.pow(9 - frac.len() as u32);
    s.parse::<u64>()
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(ns)
}

/// The two `#` lines of buddyscope's own trace that stand for kernel steps no tracepoint
/// shows (a kernel's trace has neither, and every other comment is skipped).
fn engine_hint(c: &str) -> Option<TraceEvent> {
    let hex = |s: &str| u64::from_str_radix(s.strip_prefix("0x")?, 16).ok();
    if let Some(rest) = c.strip_prefix("free_prepared_contig_range: chunk pfn ") {
        let (pfn, order) = rest.split_once(" order ")?;
        let order: u8 = order.trim().parse().ok()?;
        (order <= MAX_PAGE_ORDER).then_some(TraceEvent::Chunk {
            pfn: hex(pfn)?,
            order,
        })
    } else if let Some(rest) = c.strip_prefix("alloc_contig_range: ") {
        let (nr, rest) = rest.split_once(" pages from pfn ")?;
        let pfn = rest.strip_suffix(" are allocated")?;
        Some(TraceEvent::ContigAlloc {
            pfn: hex(pfn)?,
            nr: nr.parse().ok()?,
        })
    } else if let Some(rest) = c
        .strip_prefix("set_migratetype_isolate: pageblock ")
        .filter(|r| r.ends_with("→ Isolate"))
    {
        let pfn = rest.split_once("(pfn ")?.1.split_once(')')?.0;
        Some(TraceEvent::Isolate { pfn: hex(pfn)? })
    } else if let Some(rest) = c
        .strip_prefix("unset_migratetype_isolate: pageblock ")
        .filter(|r| r.contains("changes type Isolate →"))
    {
        let pfn = rest.split_once("(pfn ")?.1.split_once(')')?.0;
        Some(TraceEvent::Unisolate { pfn: hex(pfn)? })
    } else {
        None
    }
}

/// Finds `": <event>: "` (or `"<event>: "` at the start): the event name, the byte offset of
/// its fields, and the columns before it.
fn find_event(line: &str) -> Option<(&'static str, usize, &str)> {
    let try_at = |start: usize| -> Option<(&'static str, usize)> {
        let rest = &line[start..];
        let colon = rest.find(':')?;
        let name = &rest[..colon];
        let ev = EVENTS.iter().find(|&&e| e == name)?;
        let after = &rest[colon + 1..];
        if !(after.is_empty() || after.starts_with(' ')) {
            return None;
        }
        Some((ev, start + colon + 1))
    };
    if let Some((ev, at)) = try_at(0) {
        return Some((ev, at, ""));
    }
    let mut from = 0;
    while let Some(i) = line[from..].find(": ") {
        let start = from + i + 2;
        if let Some((ev, at)) = try_at(start) {
            return Some((ev, at, &line[..start]));
        }
        from = start;
    }
    None
}

/// The `[NNN]` column of the prefix (the first bracketed all-digit token).
fn cpu_column(prefix: &str) -> Option<u32> {
    let mut rest = prefix;
    while let Some(i) = rest.find('[') {
        let tail = &rest[i + 1..];
        let Some(j) = tail.find(']') else { break };
        let inner = &tail[..j];
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
            return inner.parse().ok();
        }
        rest = &tail[j + 1..];
    }
    None
}

/// The irq-info flags column after `[cpu]` (`irqs-off`, `need-resched`, `hardirq/softirq`,
/// `preempt-depth`, then optionally `migrate-disable`): `Some(true)` for irqs on, no irq context
/// and preempt depth 0.
fn preemptible(prefix: &str) -> Option<bool> {
    let flags = irq_flags(prefix)?;
    Some(flags[0] == b'.' && flags[2] == b'.' && flags[3] == b'.')
}

/// The irq-info flags token after `[cpu]`, when the line has one.
fn irq_flags(prefix: &str) -> Option<&[u8]> {
    let after = &prefix[prefix.find("] ")? + 2..];
    let flags = after.split_whitespace().next()?.as_bytes();
    // Without irq-info the token is the timestamp (`12.5:`).
    if !(4..=5).contains(&flags.len()) || flags.contains(&b':') {
        return None;
    }
    Some(flags)
}

/// The pid of the task column (`bash-1234` → 1234).
fn task_pid(prefix: &str) -> Option<u32> {
    let (before, _) = prefix.split_once('[')?;
    let t = before.trim();
    let t = match t.rfind('(') {
        Some(i) if t.ends_with(')') => t[..i].trim_end(),
        _ => t,
    };
    t.rsplit_once('-')?.1.parse().ok()
}

/// The `key=value` fields of one event line.
struct Fields<'a> {
    line_no: u64,
    line: &'a str,
    /// `(byte offset of the key, key, value)`.
    kv: Vec<(usize, &'a str, &'a str)>,
    end: usize,
}

impl<'a> Fields<'a> {
    fn new(line_no: u64, line: &'a str, at: usize) -> Fields<'a> {
        let mut kv = Vec::with_capacity(9);
        let mut off = at;
        for tok in line[at..].split(' ') {
            if let Some(eq) = tok.find('=') {
                kv.push((off, &tok[..eq], &tok[eq + 1..]));
            }
            off += tok.len() + 1;
        }
        Fields {
            line_no,
            line,
            kv,
            end: line.len(),
        }
    }

    fn err(&self, at: usize, message: String) -> TraceParseError {
        TraceParseError {
            line: self.line_no,
            column: Some(self.line[..at.min(self.end)].chars().count() + 1),
            message,
        }
    }

    fn raw(&self, key: &str) -> Option<(usize, &'a str)> {
        self.kv
            .iter()
            .find(|(_, k, _)| *k == key)
            .map(|&(o, _, v)| (o, v))
    }

    fn get(&self, key: &str) -> Result<(usize, &'a str), TraceParseError> {
        self.raw(key)
            .ok_or_else(|| self.err(self.end, format!("missing field `{key}=`")))
    }

    fn hex(&self, key: &str) -> Result<u64, TraceParseError> {
        let (o, v) = self.get(key)?;
        // `zone_end=0x1000,` in mm_compaction_begin/end.
        let v = v.strip_suffix(',').unwrap_or(v);
        let digits = v
            .strip_prefix("0x")
            .or_else(|| v.strip_prefix("0X"))
            .unwrap_or(v);
        u64::from_str_radix(digits, 16)
            .map_err(|_| self.err(o, format!("`{key}={v}`: expected a hex number")))
    }

    fn int(&self, key: &str) -> Result<(usize, i64), TraceParseError> {
        let (o, v) = self.get(key)?;
        v.parse::<i64>()
            .map(|n| (o, n))
            .map_err(|_| self.err(o, format!("`{key}={v}`: expected an integer")))
    }

    /// A non-negative count (`%lu`).
    fn count(&self, key: &str) -> Result<u64, TraceParseError> {
        let (o, v) = self.get(key)?;
        v.parse::<u64>()
            .map_err(|_| self.err(o, format!("`{key}={v}`: expected a count")))
    }

    /// `range=(0x%lx ~ 0x%lx)`.
    fn range(&self) -> Result<(u64, u64), TraceParseError> {
        let (o, _) = self.get("range")?;
        let text = &self.line[o..];
        let bad = || self.err(o, "`range=`: expected `(0xSTART ~ 0xEND)`".to_string());
        let inner = text
            .strip_prefix("range=(")
            .and_then(|t| t.split_once(')'))
            .ok_or_else(bad)?
            .0;
        let (a, b) = inner.split_once(" ~ ").ok_or_else(bad)?;
        let hex =
            |v: &str| u64::from_str_radix(v.trim().trim_start_matches("0x"), 16).map_err(|_| bad());
        Ok((hex(a)?, hex(b)?))
    }

    /// `zone=%-8s`: the zone's `zone_idx`.
    fn zone(&self) -> Result<u8, TraceParseError> {
        self.zone_named("zone")
    }

    /// The `zone_idx` a zone name (`ZONE_TYPE`'s symbols) at `key` stands for.
    fn zone_named(&self, key: &str) -> Result<u8, TraceParseError> {
        let (o, v) = self.get(key)?;
        ZoneType::from_name(v)
            .map(|t| t.idx() as u8)
            .ok_or_else(|| self.err(o, format!("`zone={v}`: not a zone name")))
    }

    /// A `COMPACTION_STATUS` string.
    fn compact_result(&self, key: &str) -> Result<CompactResult, TraceParseError> {
        let (o, v) = self.get(key)?;
        CompactResult::ALL
            .into_iter()
            .find(|r| r.as_str() == v)
            .ok_or_else(|| self.err(o, format!("`{key}={v}`: not a compaction result")))
    }

    /// An integer field in `0..=max`.
    fn small(&self, key: &str, max: i64) -> Result<i64, TraceParseError> {
        let (o, n) = self.int(key)?;
        if !(0..=max).contains(&n) {
            return Err(self.err(o, format!("`{key}={n}`: expected 0..={max}")));
        }
        Ok(n)
    }

    fn order(&self, key: &str) -> Result<u8, TraceParseError> {
        let (o, n) = self.int(key)?;
        if !(0..=MAX_PAGE_ORDER as i64).contains(&n) {
            return Err(self.err(
                o,
                format!("`{key}={n}`: an order must be 0..={MAX_PAGE_ORDER}"),
            ));
        }
        Ok(n as u8)
    }

    /// `mm_page_free`'s order: a buddy order, or a gigantic folio's. `free_frozen_pages(folio,
    /// folio_order(folio))` of a 1 GiB hugetlb folio reaches `__free_pages_ok` →
    /// `__free_pages_prepare`, which traces the folio's own order (v7.2.13 mm/page_alloc.c:1578);
    /// on x86_64 the only gigantic hstate is PUD_ORDER (`hugepagesz=1G`), so that is the one
    /// order above MAX_PAGE_ORDER a free may have.
    fn free_order(&self, key: &str) -> Result<u8, TraceParseError> {
        let (o, n) = self.int(key)?;
        if n == i64::from(GIGANTIC_ORDER) {
            return Ok(GIGANTIC_ORDER);
        }
        if !(0..=MAX_PAGE_ORDER as i64).contains(&n) {
            return Err(self.err(
                o,
                format!(
                    "`{key}={n}`: an order must be 0..={MAX_PAGE_ORDER}, or {GIGANTIC_ORDER} for \
                     a freed 1 GiB folio"
                ),
            ));
        }
        Ok(n as u8)
    }

    fn mt(&self, key: &str) -> Result<u8, TraceParseError> {
        let (o, n) = self.int(key)?;
        if !(0..=5).contains(&n) {
            return Err(self.err(
                o,
                format!("`{key}={n}`: a migratetype must be 0..=5 (§9 numbering)"),
            ));
        }
        Ok(n as u8)
    }

    fn flag(&self, key: &str) -> Result<bool, TraceParseError> {
        let (o, n) = self.int(key)?;
        match n {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.err(o, format!("`{key}={n}`: expected 0 or 1"))),
        }
    }

    /// `show_gfp_flags()` output back to bits, by name (composites differ by version, §9).
    fn gfp(&self, key: &str) -> Result<u32, TraceParseError> {
        let (o, v) = self.get(key)?;
        if v == "none" {
            return Ok(0);
        }
        let mut bits = 0u32;
        for name in v.split('|') {
            if let Some(&(mask, _)) = gfp::NAMES.iter().find(|(_, n)| *n == name) {
                bits |= mask;
            } else if let Some(h) = name.strip_prefix("0x") {
                bits |= u32::from_str_radix(h, 16)
                    .map_err(|_| self.err(o, format!("`{key}`: `{name}` is not a hex leftover")))?;
            } else if name.starts_with("__GFP_") {
                // A config-dependent bit the model does not know (e.g. `__GFP_KASAN`): it
                // never changes a freelist outcome.
                continue;
            } else {
                return Err(self.err(o, format!("`{key}`: unknown gfp flag `{name}`")));
            }
        }
        Ok(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ftrace_and_engine_lines() {
        let l = "  kworker/0:1-42    [003] d..2.  1234.567890: mm_page_alloc: page=ffffea0004000000 pfn=0x100000 order=2 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO";
        let t = parse_line(7, l).unwrap().unwrap();
        assert_eq!(t.cpu, Some(3));
        assert_eq!(t.ts_ns, Some(1_234_567_890_000));
        assert_eq!(t.task.as_deref(), Some("kworker/0:1-42"));
        assert_eq!(
            t.event,
            TraceEvent::Alloc {
                pfn: Some(0x100000),
                order: 2,
                mt: 1,
                gfp: gfp::GFP_HIGHUSER_MOVABLE | gfp::__GFP_ZERO
            }
        );
        // trace-cmd report, with a tgid column.
        let l = "bash-1234  (   1234) [001] .... 55.000001: mm_page_free: page=(____ptrval____) pfn=0x2a order=0";
        let t = parse_line(1, l).unwrap().unwrap();
        assert_eq!(t.cpu, Some(1));
        assert_eq!(
            t.event,
            TraceEvent::Free {
                pfn: 0x2a,
                order: 0
            }
        );
        // The task of an allocation, without the tgid column; other events keep none.
        assert_eq!(t.task, None);
        let l = "bash-1234  (   1234) [001] .... 55.000001: mm_page_alloc: page=ffffea0000000000 pfn=0x0 order=0 migratetype=1 gfp_flags=GFP_USER";
        let t = parse_line(1, l).unwrap().unwrap();
        assert_eq!(t.task.as_deref(), Some("bash-1234"));
        // The engine's own lines have no columns.
        let l = "mm_page_pcpu_drain: page=ffffea0000000000 pfn=0x0 order=9 migratetype=0\n";
        let t = parse_line(1, l).unwrap().unwrap();
        assert_eq!(t.cpu, None);
        assert_eq!(
            t.event,
            TraceEvent::PcpuDrain {
                pfn: 0,
                order: 9,
                mt: 0
            }
        );
        let l = "mm_page_alloc: page=0000000000000000 pfn=0x0 order=10 migratetype=0 gfp_flags=GFP_KERNEL";
        assert_eq!(parse_line(1, l).unwrap().unwrap().task, None);
        match parse_line(1, l).unwrap().unwrap().event {
            TraceEvent::Alloc { pfn, .. } => assert_eq!(pfn, None),
            e => panic!("{e:?}"),
        }
    }

    /// include/trace/events/oom.h's `compact_retry` and `reclaim_retry_zone`, as a kernel with
    /// its `oom` events enabled prints them; a value the event cannot hold is refused.
    #[test]
    fn the_retry_lines_as_the_kernel_prints_them() {
        let ev = |l: &str| match parse_line(1, l).unwrap().unwrap().event {
            TraceEvent::Compaction(c) => c,
            e => panic!("{e:?}"),
        };
        assert_eq!(
            ev("stress-812 [002] ..... 301.000101: compact_retry: order=9 priority=COMPACT_PRIO_SYNC_LIGHT compaction_result=progress retries=3 max_retries=4 should_retry=1"),
            CompactionLine::CompactRetry {
                order: 9,
                prio: 1,
                feedback: CompactFeedback::Progress,
                retries: 3,
                max_retries: 4,
                ret: true
            }
        );
        assert_eq!(
            ev("stress-812 [002] ..... 301.000102: reclaim_retry_zone: node=0 zone=DMA32    order=3 reclaimable=41235 available=52011 min_wmark=5120 no_progress_loops=2 wmark_check=1"),
            CompactionLine::ReclaimRetryZone {
                zone: 1,
                reclaimable: 41235,
                available: 52011,
                check: ReclaimRetryCheck {
                    order: 3,
                    min_wmark: 5120,
                    no_progress_loops: 2,
                    wmark_check: true
                }
            }
        );
        for bad in [
            "compact_retry: order=3 priority=COMPACT_PRIO_FAST compaction_result=failed retries=0 max_retries=16 should_retry=0",
            "compact_retry: order=3 priority=COMPACT_PRIO_ASYNC compaction_result=complete retries=0 max_retries=16 should_retry=0",
            "compact_retry: order=3 priority=COMPACT_PRIO_ASYNC compaction_result=failed retries=0 max_retries=16 should_retry=2",
            "reclaim_retry_zone: node=0 zone=Normal   order=3 reclaimable=0 available=4294967296 min_wmark=1 no_progress_loops=0 wmark_check=0",
            "reclaim_retry_zone: node=0 zone=Normal   order=3 reclaimable=0 available=1 min_wmark=1 no_progress_loops=32 wmark_check=0",
        ] {
            assert!(parse_line(1, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn compaction_lines_as_the_kernel_prints_them() {
        let ev = |l: &str| match parse_line(1, l).unwrap().unwrap().event {
            TraceEvent::Compaction(c) => c,
            e => panic!("{e:?}"),
        };
        assert_eq!(
            ev("kcompactd0-40 [001] ..... 64.878241: mm_compaction_begin: zone_start=0x1 migrate_pfn=0x1 free_pfn=0xe00 zone_end=0x1000, mode=sync"),
            CompactionLine::Begin { zone_start: 1, migrate_pfn: 1, free_pfn: 0xe00, zone_end: 0x1000, sync: true }
        );
        assert_eq!(
            ev("mm_compaction_end: zone_start=0x1000 migrate_pfn=0x18400 free_pfn=0x3fe00 zone_end=0x3ffdd, mode=async status=success"),
            CompactionLine::End { zone_start: 0x1000, migrate_pfn: 0x18400, free_pfn: 0x3fe00, zone_end: 0x3ffdd, sync: false, status: CompactResult::Success }
        );
        assert_eq!(
            ev("kcompactd0-40 [001] ..... 64.883889: mm_compaction_isolate_freepages: range=(0xe00 ~ 0xe40) nr_scanned=64 nr_taken=64"),
            CompactionLine::IsolateFreepages { start: 0xe00, end: 0xe40, nr_scanned: 64, nr_taken: 64 }
        );
        // The 7.3.4 compaction capture's one fast search: (min_pfn ~ cc->free_pfn).
        assert_eq!(
            ev("labload-123 [000] ..... 65.752905: mm_compaction_fast_isolate_freepages: range=(0x2c000 ~ 0x3fe00) nr_scanned=135 nr_taken=128"),
            CompactionLine::FastIsolateFreepages { min_pfn: 0x2c000, free_pfn: 0x3fe00, nr_scanned: 135, nr_taken: 128 }
        );
        assert_eq!(
            ev("mm_compaction_finished: node=0 zone=DMA      order=-1 ret=continue"),
            CompactionLine::Finished {
                zone: 0,
                order: -1,
                ret: CompactResult::Continue
            }
        );
        assert_eq!(
            ev("mm_compaction_defer_reset: node=0 zone=DMA32    order=9 order_failed=10 consider=1 limit=1"),
            CompactionLine::Defer {
                point: DeferPoint::DeferReset,
                zone: 1,
                order: 9,
                state: CompactDefer { considered: 1, defer_shift: 0, order_failed: 10 }
            }
        );
        assert_eq!(
            ev("mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE priority=2"),
            CompactionLine::TryToCompactPages {
                order: 9,
                gfp: gfp::GFP_TRANSHUGE | gfp::__GFP_NORETRY | gfp::__GFP_THISNODE,
                prio: 2
            }
        );
        // kcompactd's lines: the 7.3.4 compaction capture's sleep line; the wake lines in
        // kcompactd_wake_template's "nid=%d order=%d classzone_idx=%-8s".
        assert_eq!(
            ev("kcompactd0-40 [001] ..... 66.162416: mm_compaction_kcompactd_sleep: nid=0"),
            CompactionLine::KcompactdSleep { nid: 0 }
        );
        assert_eq!(
            ev("kswapd0-39 [000] ..... 70.1: mm_compaction_wakeup_kcompactd: nid=0 order=9 classzone_idx=Normal  "),
            CompactionLine::KcompactdWake { point: KcompactdWakePoint::WakeupKcompactd, order: 9, zone: 2 }
        );
        assert_eq!(
            ev("kcompactd0-40 [001] ..... 70.2: mm_compaction_kcompactd_wake: nid=0 order=9 classzone_idx=DMA32   "),
            CompactionLine::KcompactdWake { point: KcompactdWakePoint::KcompactdWake, order: 9, zone: 1 }
        );
        assert_eq!(
            ev("sysctl-1 [000] ..... 70.3: mm_compaction_wakeup_kcompactd: nid=0 order=-1 classzone_idx=Movable "),
            CompactionLine::KcompactdWake { point: KcompactdWakePoint::WakeupKcompactd, order: -1, zone: 3 }
        );
        for bad in [
            "mm_compaction_kcompactd_wake: nid=0 order=11 classzone_idx=Normal  ",
            "mm_compaction_kcompactd_wake: nid=0 order=9 classzone_idx=Highmem ",
            "mm_compaction_kcompactd_sleep: nid=x",
            "mm_compaction_isolate_freepages: range=(0xe00 - 0xe40) nr_scanned=64 nr_taken=64",
            "mm_compaction_finished: node=0 zone=Highmem order=-1 ret=continue",
            "mm_compaction_end: zone_start=0x1 migrate_pfn=0x1 free_pfn=0x1 zone_end=0x2, mode=sync status=done",
            "mm_compaction_deferred: node=0 zone=DMA order=9 order_failed=10 consider=1 limit=3",
        ] {
            assert!(parse_line(1, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn skips_what_is_not_a_kmem_event() {
        for l in [
            "# tracer: nop",
            "",
            "cpus=2",
            "  <idle>-0     [000] d.h.  1.0: kmalloc: call_site=foo ptr=0x1 bytes_req=8",
            "x-1 [000] .... 1.0: mm_page_free_batched: page=0 pfn=0x1 order=0",
            "x-1 [000] .... 1.0: sched_switch: prev_comm=mm_page_alloc: x",
            "# alloc_contig_range: order-10 block at pfn 0x2000 leaves the Movable list",
        ] {
            assert_eq!(parse_line(1, l).unwrap(), None, "{l}");
        }
    }

    /// The lab's kprobe line (lab/capture-lib.sh `cap_enable_probes`) as 6.12.117 prints it:
    /// not an event, kept on the next event line with its pfn, order, CPU, task and context.
    #[test]
    fn free_one_page_probe_lines_are_kept_on_the_next_event_line() {
        let text = "\
              rm-979     [001] ..s3.   109.561162: mm_page_free: page=00000000d2dc3621 pfn=0x10076a order=1
              rm-979     [001] ..s3.   109.561163: free_one_page: (free_one_page+0x0/0x80) pfn=0x10076a order=1
              rm-979     [001] .....   109.561170: mm_page_free: page=00000000d2dc3622 pfn=0x100770 order=0
";
        let lines: Vec<TraceLine> = TraceReader::new(text.as_bytes())
            .map(|l| l.unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].free_one_page.is_empty());
        assert_eq!(
            lines[1].free_one_page,
            vec![FreeOnePageLine {
                pfn: 0x10076a,
                order: 1,
                cpu: Some(1),
                pid: Some(979),
                in_irq: Some(true),
            }]
        );
        assert_eq!(lines[1].skipped_before, 1);
        assert_eq!(lines[1].skipped_cpus, 1 << 1);
    }

    #[test]
    fn engine_hints() {
        let t = parse_line(1, "# free_prepared_contig_range: chunk pfn 0x80 order 5").unwrap();
        assert_eq!(
            t.unwrap().event,
            TraceEvent::Chunk {
                pfn: 0x80,
                order: 5
            }
        );
        let t = parse_line(
            1,
            "# alloc_contig_range: 57344 pages from pfn 0x2000 are allocated",
        );
        assert_eq!(
            t.unwrap().unwrap().event,
            TraceEvent::ContigAlloc {
                pfn: 0x2000,
                nr: 57344
            }
        );
        let t = parse_line(
            1,
            "# set_migratetype_isolate: pageblock 1 (pfn 0x200) changes type Movable → Isolate",
        );
        assert_eq!(
            t.unwrap().unwrap().event,
            TraceEvent::Isolate { pfn: 0x200 }
        );
        let t = parse_line(
            1,
            "# unset_migratetype_isolate: pageblock 1 (pfn 0x200) changes type Isolate → Movable",
        );
        assert_eq!(
            t.unwrap().unwrap().event,
            TraceEvent::Unisolate { pfn: 0x200 }
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_line(12, "mm_page_free: page=0 pfn=0xzz order=0").unwrap_err();
        assert_eq!(e.line, 12);
        assert_eq!(e.column, Some(22));
        assert!(
            e.to_string().starts_with("line 12, column 22: `pfn=0xzz`"),
            "{e}"
        );
        let e = parse_line(3, "mm_page_free: page=0 pfn=0x1").unwrap_err();
        assert_eq!(e.to_string(), "line 3, column 29: missing field `order=`");
        let e = parse_line(4, "mm_page_free: pfn=0x1 order=11").unwrap_err();
        assert!(e.message.contains("0..=10"), "{e}");
        // A freed 1 GiB folio carries its own order; other events never do.
        let t = parse_line(4, "mm_page_free: pfn=0x140000 order=18").unwrap();
        assert_eq!(
            t.unwrap().event,
            TraceEvent::Free {
                pfn: 0x140000,
                order: 18
            }
        );
        for l in [
            "mm_page_free: pfn=0x1 order=19",
            "mm_page_pcpu_drain: pfn=0x0 order=18 migratetype=0",
            "mm_page_alloc: page=1 pfn=0x0 order=18 migratetype=0 gfp_flags=GFP_KERNEL",
        ] {
            assert!(parse_line(4, l).is_err(), "{l}");
        }
        let e = parse_line(
            5,
            "mm_page_alloc: pfn=0x1 order=0 migratetype=0 gfp_flags=GFP_BOGUS",
        )
        .unwrap_err();
        assert!(e.message.contains("GFP_BOGUS"), "{e}");
        let e = parse_line(
            6,
            "mm_page_alloc_zone_locked: pfn=0x1 order=0 migratetype=7 percpu_refill=1",
        )
        .unwrap_err();
        assert!(e.message.contains("migratetype"), "{e}");
    }

    #[test]
    fn reader_streams_and_counts() {
        let text = "# c\nmm_page_free: page=0 pfn=0x1 order=0\nnoise\nmm_page_free: page=0 pfn=0x2 order=1\n";
        let mut r = TraceReader::new(text.as_bytes());
        let v: Vec<_> = r.by_ref().map(|x| x.unwrap().line).collect();
        assert_eq!(v, vec![2, 4]);
        assert_eq!(r.skipped, 2);
        assert_eq!(r.lines(), 4);
    }
}
