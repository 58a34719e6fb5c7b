//! Words for events: the kernel's tracepoint lines (kernel-model.md §9, scenario-format.md
//! "trace") and a one-line narration for the UI.

use crate::mm::EventLog;
use crate::mm::*;
use crate::mm::{gfp, to_abs_pfn, Pfn, ZonePfn, PAGEBLOCK_ORDER};
use crate::mm::{pcp_list_name, pindex_to_order};

/// Zone facts a line needs: the pfn offset and the migratetype numbering.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// The zone's first pfn: zone pfns print as absolute ones.
    pub start_pfn: Pfn,
    /// The zone has CMA: migratetype numbers are `CONFIG_CMA`'s.
    pub cma: bool,
    /// The zone's pages (`zone_end` of the compaction lines).
    pub pages: u32,
    /// The zone's type (`zone=` of `reclaim_retry_zone`).
    pub zone_type: crate::mm::ZoneType,
}

impl Ctx {
    /// The context of zone `z`.
    pub fn of(z: &crate::mm::Zone) -> Ctx {
        Ctx {
            start_pfn: z.cfg.start_pfn,
            cma: z.cfg.cma,
            pages: z.cfg.pages,
            zone_type: z.zone_type(),
        }
    }
    fn pfn(&self, p: ZonePfn) -> Pfn {
        to_abs_pfn(self.start_pfn, p)
    }
    /// `page=%p` as `no_hash_pointers` prints it with x86_64's default vmemmap.
    fn page(&self, p: ZonePfn) -> String {
        format!("{:016x}", 0xffff_ea00_0000_0000u64 + 64 * self.pfn(p))
    }
    fn mt(&self, mt: crate::mm::MigrateType) -> u32 {
        mt.kernel_number(self.cma)
    }
}

/// The tracepoint line of an event (`EVENT: FIELDS`), if it is one.
pub fn trace_line(ctx: &Ctx, t: &Tracepoint) -> String {
    match *t {
        Tracepoint::MmPageAlloc { pfn, order, mt, gfp: g } => match pfn {
            Some(p) => format!(
                "mm_page_alloc: page={} pfn={:#x} order={} migratetype={} gfp_flags={}",
                ctx.page(p),
                ctx.pfn(p),
                order,
                ctx.mt(mt),
                gfp::format(g)
            ),
            None => format!(
                "mm_page_alloc: page=0000000000000000 pfn=0x0 order={} migratetype={} gfp_flags={}",
                order,
                ctx.mt(mt),
                gfp::format(g)
            ),
        },
        Tracepoint::MmPageFree { pfn, order } => format!(
            "mm_page_free: page={} pfn={:#x} order={}",
            ctx.page(pfn),
            ctx.pfn(pfn),
            order
        ),
        Tracepoint::MmPageAllocZoneLocked { pfn, order, mt, percpu_refill } => format!(
            "mm_page_alloc_zone_locked: page={} pfn={:#x} order={} migratetype={} percpu_refill={}",
            ctx.page(pfn),
            ctx.pfn(pfn),
            order,
            ctx.mt(mt),
            percpu_refill as u8
        ),
        Tracepoint::MmPagePcpuDrain { pfn, order, mt } => format!(
            "mm_page_pcpu_drain: page={} pfn={:#x} order={} migratetype={}",
            ctx.page(pfn),
            ctx.pfn(pfn),
            order,
            ctx.mt(mt)
        ),
        Tracepoint::MmPageAllocExtfrag { pfn, alloc_order, fallback_order, alloc_mt, fallback_mt, change_ownership } => format!(
            "mm_page_alloc_extfrag: page={} pfn={:#x} alloc_order={} fallback_order={} pageblock_order={} alloc_migratetype={} fallback_migratetype={} fragmenting={} change_ownership={}",
            ctx.page(pfn),
            ctx.pfn(pfn),
            alloc_order,
            fallback_order,
            PAGEBLOCK_ORDER,
            ctx.mt(alloc_mt),
            ctx.mt(fallback_mt),
            (fallback_order < PAGEBLOCK_ORDER) as u8,
            change_ownership as u8
        ),
        Tracepoint::MmCompactionBegin { migrate_pfn, free_pfn, sync } => format!(
            "mm_compaction_begin: zone_start={:#x} migrate_pfn={:#x} free_pfn={:#x} zone_end={:#x}, mode={}",
            ctx.pfn(0),
            ctx.pfn(migrate_pfn),
            ctx.pfn(free_pfn),
            ctx.pfn(ctx.pages),
            if sync { "sync" } else { "async" }
        ),
        Tracepoint::MmCompactionEnd { migrate_pfn, free_pfn, sync, status } => format!(
            "mm_compaction_end: zone_start={:#x} migrate_pfn={:#x} free_pfn={:#x} zone_end={:#x}, mode={} status={}",
            ctx.pfn(0),
            ctx.pfn(migrate_pfn),
            ctx.pfn(free_pfn),
            ctx.pfn(ctx.pages),
            if sync { "sync" } else { "async" },
            status.as_str()
        ),
        Tracepoint::MmCompactionIsolateMigratepages { start, end, nr_scanned, nr_taken } => format!(
            "mm_compaction_isolate_migratepages: range=({:#x} ~ {:#x}) nr_scanned={} nr_taken={}",
            ctx.pfn(start),
            ctx.pfn(end),
            nr_scanned,
            nr_taken
        ),
        Tracepoint::MmCompactionIsolateFreepages { start, end, nr_scanned, nr_taken } => format!(
            "mm_compaction_isolate_freepages: range=({:#x} ~ {:#x}) nr_scanned={} nr_taken={}",
            ctx.pfn(start),
            ctx.pfn(end),
            nr_scanned,
            nr_taken
        ),
        Tracepoint::MmCompactionFastIsolateFreepages { start, end, nr_scanned, nr_taken, wrapped } => format!(
            "mm_compaction_fast_isolate_freepages: range=({:#x} ~ {:#x}) nr_scanned={} nr_taken={}",
            ctx.pfn(start) | (u64::from(wrapped) << 63),
            ctx.pfn(end),
            nr_scanned,
            nr_taken
        ),
        Tracepoint::MmCompactionMigratepages { nr_migrated, nr_failed } => format!(
            "mm_compaction_migratepages: nr_migrated={nr_migrated} nr_failed={nr_failed}"
        ),
        // "order=%d gfp_mask=%s priority=%d".
        Tracepoint::MmCompactionTryToCompactPages { order, gfp: g, prio } => format!(
            "mm_compaction_try_to_compact_pages: order={order} gfp_mask={} priority={prio}",
            gfp::format(g)
        ),
        // mm_compaction_suitable_template: "node=%d zone=%-8s order=%d ret=%s".
        Tracepoint::MmCompactionSuitable { zone_type, order, ret } => format!(
            "mm_compaction_suitable: node=0 zone={:<8} order={order} ret={}",
            crate::mm::ZoneType::ALL[zone_type as usize].name(),
            ret.as_str()
        ),
        Tracepoint::MmCompactionFinished { zone_type, order, ret } => format!(
            "mm_compaction_finished: node=0 zone={:<8} order={order} ret={}",
            crate::mm::ZoneType::ALL[zone_type as usize].name(),
            ret.as_str()
        ),
        // kcompactd_wake_template: "nid=%d order=%d classzone_idx=%-8s" (highest_zoneidx,
        // __print_symbolic ZONE_TYPE).
        Tracepoint::MmCompactionKcompactdWake { point, order, zone_type } => format!(
            "{}: nid=0 order={order} classzone_idx={:<8}",
            point.tracepoint(),
            crate::mm::ZoneType::ALL[zone_type as usize].name()
        ),
        // "nid=%d".
        Tracepoint::MmCompactionKcompactdSleep { nid } => {
            format!("mm_compaction_kcompactd_sleep: nid={nid}")
        }
        // include/trace/events/oom.h: "order=%d priority=%s compaction_result=%s retries=%d
        // max_retries=%d should_retry=%d" (COMPACTION_PRIORITY, COMPACTION_FEEDBACK).
        Tracepoint::CompactRetry { order, prio, feedback, retries, max_retries, ret } => format!(
            "compact_retry: order={order} priority={} compaction_result={} retries={retries} max_retries={max_retries} should_retry={}",
            crate::mm::CompactPriority::from_kernel(prio).kernel_name(),
            feedback.as_str(),
            u8::from(ret)
        ),
        // oom.h: "node=%d zone=%-8s order=%d reclaimable=%lu available=%lu min_wmark=%lu
        // no_progress_loops=%d wmark_check=%d".
        Tracepoint::ReclaimRetryZone { reclaimable, available, check } => format!(
            "reclaim_retry_zone: node=0 zone={:<8} order={} reclaimable={reclaimable} available={available} min_wmark={} no_progress_loops={} wmark_check={}",
            ctx.zone_type.name(),
            { check.order },
            { check.min_wmark },
            { check.no_progress_loops },
            u8::from(check.wmark_check)
        ),
        // mm_compaction_defer_template: "node=%d zone=%-8s order=%d order_failed=%d
        // consider=%u limit=%lu".
        Tracepoint::MmCompactionDefer { point, zone_type, order, state } => format!(
            "{}: node=0 zone={:<8} order={order} order_failed={} consider={} limit={}",
            point.tracepoint(),
            crate::mm::ZoneType::ALL[zone_type as usize].name(),
            state.order_failed,
            state.considered,
            1u64 << state.defer_shift
        ),
    }
}

/// One line in words for an event, naming the function it is in.
pub fn narrate(ctx: &Ctx, log: &EventLog, ev: &Event) -> String {
    let f = ev.step.func().name();
    let x = |p: ZonePfn| format!("{:#x}", ctx.pfn(p));
    match ev.kind() {
        EventKind::Mutation(m) => narrate_mutation(f, &x, m),
        EventKind::Annotation(a) => narrate_annotation(ctx, log, f, &x, a),
    }
}

/// [`narrate`] for a mutation.
fn narrate_mutation(f: &str, x: &dyn Fn(ZonePfn) -> String, m: Mutation) -> String {
    let end = |e: End| if e == End::Head { "head" } else { "tail" };
    match m {
        Mutation::FreeListAdd {
            pfn,
            order,
            mt,
            end: e,
        } => format!(
            "{f}: order-{order} block at pfn {} goes to the {} of the {} list",
            x(pfn),
            end(e),
            mt.kernel_name()
        ),
        Mutation::FreeListDel { pfn, order, mt, .. } => format!(
            "{f}: order-{order} block at pfn {} leaves the {} list",
            x(pfn),
            mt.kernel_name()
        ),
        Mutation::FreeListMove {
            pfn,
            order,
            from,
            to,
            ..
        } => format!(
            "{f}: order-{order} block at pfn {} moves from the {} to the tail of the {} list",
            x(pfn),
            from.kernel_name(),
            to.kernel_name()
        ),
        Mutation::FreeListRotate { order, mt, head, .. } => format!(
            "{f}: the order-{order} {} list turns so the block at pfn {} is first (move_freelist_head: what the search looked at goes to the tail)",
            mt.kernel_name(),
            x(head)
        ),
        Mutation::Account { mt, delta } => {
            format!("{f}: NR_FREE_PAGES {delta:+} ({})", mt.kernel_name())
        }
        Mutation::PcpAdd {
            cpu,
            pindex,
            pfn,
            end: e,
        } => format!(
            "{f}: order-{} block at pfn {} goes to the {} of CPU {cpu}'s {} pcp list",
            pindex_to_order(pindex as usize),
            x(pfn),
            end(e),
            pcp_list_name(pindex as usize)
        ),
        Mutation::PcpDel {
            cpu,
            pindex,
            pfn,
            prev,
        } => format!(
            "{f}: order-{} block at pfn {} taken from the {} of CPU {cpu}'s {} pcp list",
            pindex_to_order(pindex as usize),
            x(pfn),
            if prev == NIL { "head" } else { "tail" },
            pcp_list_name(pindex as usize)
        ),
        // Who sets PB_migrate_skip says why (mm/compaction.c): the free scanner after scanning a
        // pageblock whole (isolate_freepages: update_pageblock_skip), the migration scanner when
        // it finished one without isolating or while finishing it (isolate_migratepages_block),
        // __reset_isolation_suitable when compaction restarts.
        Mutation::SetPageblock { pb, old, new } if old ^ new == crate::mm::PB_SKIP => {
            let why = if new & crate::mm::PB_SKIP == 0 {
                "compaction will scan it again"
            } else if f == "isolate_freepages" {
                "the free scanner scanned it whole; later compactions pass it by"
            } else {
                "the migration scanner is done with it; later compactions pass it by"
            };
            format!(
                "{f}: pageblock {pb} (pfn {}) {} its skip bit (PB_migrate_skip: {why})",
                x(pb << PAGEBLOCK_ORDER),
                if new & crate::mm::PB_SKIP != 0 { "gets" } else { "loses" }
            )
        }
        Mutation::SetPageblock { pb, old, new } => format!(
            "{f}: pageblock {pb} (pfn {}) changes type {} → {}",
            x(pb << PAGEBLOCK_ORDER),
            pb_name(old),
            pb_name(new)
        ),
        Mutation::Counter { id, delta, .. }
            if matches!(
                id,
                CounterId::compact_cached_migrate_pfn_async
                    | CounterId::compact_cached_migrate_pfn_sync
                    | CounterId::compact_cached_free_pfn
                    | CounterId::compact_init_migrate_pfn
                    | CounterId::compact_init_free_pfn
            ) =>
        {
            let sign = if delta < 0 { '-' } else { '+' };
            format!(
                "{f}: zone->{id:?} moves by {sign}{:#x} pages (where a later compaction's scanner starts)",
                delta.unsigned_abs()
            )
        }
        Mutation::Counter { id, cpu, delta } => format!("{f}: {id:?} {delta:+} (cpu {cpu})"),
        Mutation::PrepNewPage { pfn, order, .. } => {
            format!("{f}: order-{order} block at pfn {} is handed out", x(pfn))
        }
        Mutation::SplitPage { pfn, order } => format!(
            "{f}: the order-{order} block at pfn {} becomes {} separate pages",
            x(pfn),
            1u32 << order
        ),
        Mutation::PutPage {
            pfn, order, owner, ..
        } => {
            if owner == crate::mm::NO_OWNER {
                format!(
                    "{f}: the last reference on the page at pfn {} is dropped: the page is freed",
                    x(pfn)
                )
            } else {
                format!(
                    "{f}: the owner drops the order-{order} block at pfn {}",
                    x(pfn)
                )
            }
        }
        Mutation::ContigAlloc { pfn, nr, .. } => {
            format!("{f}: {nr} pages from pfn {} are allocated", x(pfn))
        }
        Mutation::GetPage { pfn } => format!(
            "{f}: a third party takes an extra reference on the page at pfn {} (compaction's pfn scanner, a GUP pin)",
            x(pfn)
        ),
        Mutation::PutPageRef { pfn, release, .. } => {
            if release {
                format!(
                    "{f}: the owner drops its reference on the page at pfn {}; someone else still holds it, so it is not freed: the last put_page frees it",
                    x(pfn)
                )
            } else {
                format!(
                    "{f}: one reference on the page at pfn {} is dropped; the page is still referenced and stays allocated",
                    x(pfn)
                )
            }
        }
        Mutation::ZoneSwitch { from, to } => format!(
            "{f}: on from the node's zone {from} to its zone {to} (the pfns that follow are in zone {to})"
        ),
        Mutation::CompactDefer { old, new } => format!(
            "{f}: the zone's compaction deferral: compact_considered {} → {}, limit {} → {} (1 << compact_defer_shift), compact_order_failed {} → {}",
            old.considered,
            new.considered,
            1u32 << old.defer_shift,
            1u32 << new.defer_shift,
            old.order_failed,
            new.order_failed
        ),
    }
}

/// [`narrate`] for an annotation.
fn narrate_annotation(
    ctx: &Ctx,
    log: &EventLog,
    f: &str,
    x: &dyn Fn(ZonePfn) -> String,
    a: Annotation,
) -> String {
    match a {
        Annotation::Lock { zone, cpu } => {
            if zone {
                format!("{f}: zone->lock taken")
            } else {
                format!("{f}: CPU {cpu}'s pcp lock taken")
            }
        }
        Annotation::Enter { func } => format!("→ {}", func.name()),
        Annotation::Exit { func } => format!("← {}", func.name()),
        Annotation::Trace(t) => trace_line(ctx, &t),
        Annotation::FallbackProbe { order, start_mt, found, refused } => {
            if refused {
                format!(
                    "{f}: order {order} is too small to claim for a {} request: stop",
                    start_mt.kernel_name()
                )
            } else {
                match found {
                    Some(m) => format!(
                        "{f}: order {order}: {} list has a block for a {} request",
                        m.kernel_name(),
                        start_mt.kernel_name()
                    ),
                    None => format!("{f}: order {order}: no fallback block"),
                }
            }
        }
        Annotation::Claimed { pfn, order, from, to, pageblocks, free, alike } => {
            if order >= PAGEBLOCK_ORDER && pageblocks > 1 || free == 1 << order {
                format!(
                    "{f}: claims {pageblocks} whole pageblock(s) at pfn {}: {} → {}",
                    x(pfn),
                    from.kernel_name(),
                    to.kernel_name()
                )
            } else {
                format!(
                    "{f}: claims pageblock at pfn {} ({free} free + {alike} alike ≥ 256): {} → {}",
                    x(pfn),
                    from.kernel_name(),
                    to.kernel_name()
                )
            }
        }
        Annotation::ClaimRefused { pfn, order, free, alike } => format!(
            "{f}: claim of the order-{order} block at pfn {} refused ({free} free + {alike} alike < 256)",
            x(pfn)
        ),
        Annotation::Stolen { pfn, order, alloc_order, from } => format!(
            "{f}: steals {} page(s) from the {} order-{order} block at pfn {}; the pageblock keeps its type",
            1u32 << alloc_order,
            from.kernel_name(),
            x(pfn)
        ),
        Annotation::Watermark { order, mark, free, ok } => format!(
            "{f}: watermark check order {order}: free {free} vs mark {mark}: {}",
            if ok { "ok" } else { "FAIL" }
        ),
        Annotation::PcpRefill { cpu, order, mt, want, got } => format!(
            "{f}: CPU {cpu} refilled its order-{order} {} pcp list with {got} of {want} blocks",
            mt.kernel_name()
        ),
        Annotation::PcpDrain { cpu, count, pindex } => format!(
            "{f}: CPU {cpu} frees {count} pcp pages to the buddy, starting at list {pindex}"
        ),
        Annotation::Merge { pfn, buddy, order } => format!(
            "{f}: merges with its buddy at pfn {} into an order-{order} block at pfn {}",
            x(buddy),
            x(pfn)
        ),
        Annotation::Chunk { pfn, order } => format!("{f}: chunk pfn {} order {order}", x(pfn)),
        Annotation::Run { pfn, nr } => {
            format!("{f}: {nr} consecutive pages from pfn {} go to __free_contig_range", x(pfn))
        }
        Annotation::VmallocAttempt { order, ok } => format!(
            "{f}: order-{order} attempt {}",
            if ok { "succeeded" } else { "failed: try the next lower order" }
        ),
        Annotation::Message { level, id } => {
            format!("{}: {}", level_word(level), log.message(id))
        }
        // Worded as the message it replaced, so the trace's `#` line is unchanged.
        Annotation::Migrate {
            from,
            to,
            order,
            contig,
            ..
        } => format!(
            "{}: migrate: the order-{order} movable {} at {} now lives at {}",
            level_word(MsgLevel::Info),
            if contig { "block" } else { "folio" },
            x(from),
            x(to)
        ),
    }
}

fn level_word(l: MsgLevel) -> &'static str {
    match l {
        MsgLevel::Note => "note",
        MsgLevel::Info => "info",
        MsgLevel::Warning => "warning",
        MsgLevel::Failure => "failure",
    }
}

fn pb_name(bits: u8) -> &'static str {
    if bits & crate::mm::PB_ISOLATE != 0 {
        "Isolate"
    } else {
        crate::mm::MigrateType::from_idx((bits & 7) as usize).kernel_name()
    }
}

/// The CLI's `trace` output: tracepoint lines, `# note:` lines, and `#` lines for failures,
/// warnings and the op boundaries.
pub fn trace_text(run: &crate::run::Run) -> String {
    trace_text_upto(run, run.log.events.len() as u32)
}

/// [`trace_text`] of the first `end` events: at an op boundary (`end` = `ops[K-1].end`) it
/// is what `buddyscope run … --format trace --ops K` prints; the app exports it at its cursor.
pub fn trace_text_upto(run: &crate::run::Run, end: u32) -> String {
    let mut ctx = Ctx::of(run.initial.active());
    let mut out = String::new();
    let mut next_op = 0usize;
    let end = (end as usize).min(run.log.events.len());
    // A zone of several CPUs: an op's tracepoint lines happen on the CPU whose pcp lock it
    // takes first (a free traces `mm_page_free` before it locks); `# on CPU N` says so where
    // it changes, as a kernel's `[cpu]` column would.
    let several_cpus = run.initial.active().pcp.len() > 1;
    let (mut op_cpu, mut printed_cpu) = (0u8, 0u8);
    for (i, ev) in run.log.events.range(0..end).enumerate() {
        while next_op < run.ops.len() && run.ops[next_op].start as usize <= i {
            let o = &run.ops[next_op];
            let d = &run.op_defs[o.def as usize];
            out.push_str(&format!("# op {}: {}\n", d.path, d.summary));
            if several_cpus {
                let first_pcp_lock = run
                    .log
                    .events
                    .range(o.start as usize..o.end as usize)
                    .find_map(|e| match e.kind() {
                        EventKind::Annotation(Annotation::Lock { zone: false, cpu }) => Some(cpu),
                        _ => None,
                    });
                op_cpu = first_pcp_lock.unwrap_or(op_cpu);
            }
            next_op += 1;
        }
        if several_cpus && op_cpu != printed_cpu {
            if let EventKind::Annotation(Annotation::Trace(_)) = ev.kind() {
                out.push_str(&format!("# on CPU {op_cpu}\n"));
                printed_cpu = op_cpu;
            }
        }
        if let EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) = ev.kind() {
            // A node of several zones: the pfns that follow are zone `to`'s.
            ctx = Ctx::of(run.initial.zone(to as usize));
        }
        match ev.kind() {
            EventKind::Annotation(Annotation::Trace(t)) => {
                out.push_str(&trace_line(&ctx, &t));
                out.push('\n');
            }
            EventKind::Annotation(Annotation::Message { level, id }) => {
                for line in run.log.message(id).lines() {
                    out.push_str(&format!("# {}: {}\n", level_word(level), line));
                }
            }
            // The engine's own finer steps, as `#` lines (trace comparisons ignore them).
            _ if ev.is_visible() => {
                out.push_str("# ");
                out.push_str(&narrate(&ctx, &run.log, ev));
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunOptions;

    /// The trace of the first K ops of a full run is the trace of a run stopped after K ops
    /// (what `--format trace --ops K` prints).
    #[test]
    fn trace_upto_an_op_end_is_the_trace_of_k_ops() {
        let b = crate::scenario::builtin::get("pcp-overflow-2cpu").expect("a built-in");
        let full = crate::scenario::parse_valid(b.json())
            .and_then(|s| crate::run::Runner::new(s).run())
            .expect("runs");
        assert_eq!(
            trace_text_upto(&full, full.log.events.len() as u32),
            trace_text(&full)
        );
        for k in [1, 2, full.ops.len() / 2, full.ops.len()] {
            let short = crate::scenario::parse_valid(b.json())
                .and_then(|s| {
                    crate::run::Runner::new(s)
                        .options(&RunOptions {
                            max_ops: Some(k),
                            ..RunOptions::default()
                        })
                        .run()
                })
                .expect("runs");
            assert_eq!(
                trace_text_upto(&full, full.ops[k - 1].end),
                trace_text(&short),
                "K = {k}"
            );
        }
    }
}
