//! Short pseudocode of each modelled kernel function, written for this project (not kernel
//! source): the lines that the [`Step`](crate::mm::Step)s of events point into, so the UI
//! can highlight "where we are" for any event.

use crate::mm::KernelFn;
// Until the crate's consumers import it from the layer.
pub use crate::mm::Step;

/// The pseudocode of a function, one line per entry.
pub fn lines(f: KernelFn) -> &'static [&'static str] {
    use KernelFn::*;
    match f {
        alloc_pages => &[
            "mt = gfp_migratetype(gfp); flags = WMARK_LOW | KSWAPD | (NOFRAGMENT if zone is Normal)",
            "page = get_page_from_freelist(order, flags)      // fast path",
            "if !page: page = __alloc_pages_slowpath(...)      // WMARK_MIN attempts",
            "if page:",
            "    prep_new_page(page): refcount 1, owner set",
            "trace mm_page_alloc(page, order, mt, gfp)",
            "return page                                       // NULL = failure",
        ],
        get_page_from_freelist => &[
            "retry:",
            "  if !BELOW_HIGH and watermark_ok(high): goto try_zone",
            "  else set ZONE_BELOW_HIGH",
            "  if !watermark_ok(mark of flags): goto failed",
            "try_zone: page = rmqueue(order, flags); if page: return page",
            "failed:",
            "  if ALLOC_NOFRAGMENT: clear it; goto retry       // now claim < 9 and steal",
            "  return NULL",
            "several zones: the lines above run for each zone of the zonelist (type ≤ highest_zoneidx, highest first); watermark_ok(mark + lowmem_reserve[highest_zoneidx])",
        ],
        __alloc_pages_slowpath => &[
            "flags = WMARK_MIN | CPUSET | KSWAPD | (NON_BLOCK, HIGHATOMIC if atomic)",
            "attempts = 2 (6.18) | 1 + cpuset_dropped + compact_first (7.x)",
            "repeat attempts:",
            "    page = get_page_from_freelist(order, flags); if page: return page",
            "if can_direct_reclaim (not a NORETRY give-up): page = __alloc_pages_direct_reclaim(); if page: return page",
            "fail: the kernel would retry reclaim / compaction, then OOM (not modelled)",
            "__alloc_pages_direct_compact(prio): 7.x compact_first (costly, or order > 0 not movable; ASYNC) before reclaim, then SYNC_LIGHT after it; 6.x the same ASYNC one after the first attempt, then after reclaim (costly NORETRY: SKIPPED/DEFERRED or THISNODE give up, ASYNC again)",
        ],
        __alloc_pages_direct_compact => &[
            "capc = {order, migratetype}; current->capture_control = &capc; result = try_to_compact_pages(prio, &capc)",
            "result SKIPPED (7.2+: or DEFERRED): return NULL; count_vm_event(COMPACTSTALL)",
            "page = capc.page (a block captured as it was freed) ?: get_page_from_freelist(order, alloc_flags)",
            "page: compact_blockskip_flush = false; compaction_defer_reset(zone, order, true); count_vm_event(COMPACTSUCCESS); return page",
            "count_vm_event(COMPACTFAIL); return NULL",
        ],
        kcompactd => &[
            "trace mm_compaction_kcompactd_sleep; wait for wakeup_kcompactd (kswapd: an order) or the HPAGE_FRAG_CHECK_INTERVAL_MSEC (500 ms) timeout",
            "woken for an order: kcompactd_do_work(pgdat)",
            "timed out: should_proactive_compact_node: proactiveness > 0 and fragmentation_score_node (each zone's extfrag_for_order(zone, 9) × present_pages / (node_present_pages + 1)) > fragmentation_score_wmark(high) = wmark_low + min(10, wmark_low / 2), wmark_low = 100 - proactiveness",
            "    compact_node(pgdat, proactive): compact_zone(order -1, MIGRATE_SYNC_LIGHT, whole zone) of every zone, COMPACT_SUCCESS once fragmentation_score_zone <= wmark_low; count KCOMPACTD_MIGRATE_SCANNED, KCOMPACTD_FREE_SCANNED",
            "    the score did not go down: the next timeout is 64 times longer (<< COMPACT_MAX_DEFER_SHIFT)",
        ],
        kcompactd_do_work => &[
            "trace mm_compaction_kcompactd_wake(nid, order, highest_zoneidx); count_compact_event(KCOMPACTD_WAKE)",
            "for each populated zone up to highest_zoneidx: compaction_deferred(zone, order) → next; compaction_suit_allocation_order(zone, order, ALLOC_WMARK_MIN) != COMPACT_CONTINUE → next",
            "    status = compact_zone(order, MIGRATE_SYNC_LIGHT, GFP_KERNEL, skip hints honoured, not direct: every pageblock type is a source)",
            "    SUCCESS: compaction_defer_reset(zone, order, false); COMPLETE or PARTIAL_SKIPPED: drain_all_pages(zone), defer_compaction(zone, order)",
            "    count_compact_events(KCOMPACTD_MIGRATE_SCANNED, total_migrate_scanned), (KCOMPACTD_FREE_SCANNED, total_free_scanned)",
            "kcompactd_max_order = 0; kcompactd_highest_zoneidx = nr_zones - 1   // done until woken again",
        ],
        try_to_compact_pages => &[
            "trace mm_compaction_try_to_compact_pages(order, gfp, prio)",
            "for each zone of the zonelist: prio > SYNC_FULL and compaction_deferred: rc = max(rc, DEFERRED), next; capc->zone = zone; status = compact_zone_order(zone, order, prio: ASYNC → MIGRATE_ASYNC, else SYNC_LIGHT; SYNC_FULL: whole zone, skip hints and block suitability ignored); captured: SUCCESS; rc = max(rc, status); SUCCESS: compaction_defer_reset(zone, order, false), stop; not ASYNC and COMPLETE/PARTIAL_SKIPPED: defer_compaction",
        ],
        __alloc_pages_direct_reclaim => &[
            "progress = __perform_reclaim()    // not modelled: no page reclaimed, assumed progress",
            "retry: page = get_page_from_freelist(order, flags)",
            "if !page and !drained:           // pages may sit on pcp lists or in highatomic reserves",
            "    unreserve_highatomic_pageblock(ac, force = false)",
            "    drain_all_pages(NULL); drained = true; goto retry",
            "return page",
        ],
        unreserve_highatomic_pageblock => &[
            "if !force and nr_reserved_highatomic <= 512: return     // keep one pageblock",
            "lock zone; for order in 0..=10: page = first HighAtomic block of that order",
            "    nr_reserved_highatomic -= max(512, 1 << order)",
            "    if order < 9: move_freepages_block(HighAtomic → ac.migratetype)",
            "    else: move_to_free_list + change_pageblock_range(ac.migratetype)",
            "    unlock zone; return",
        ],
        rmqueue => &[
            "if pcp_allowed_order(order): page = rmqueue_pcplist(order, mt)",
            "if !page: page = rmqueue_buddy(order, mt)",
            "if KSWAPD and ZONE_BOOSTED_WATERMARK:",
            "    clear flag, wake kswapd; boost = 0           // policy (b)",
            "return page",
        ],
        rmqueue_pcplist => &[
            "lock this CPU's pcp",
            "pcp.free_count >>= 1",
            "list = pcp.lists[order_to_pindex(mt, order)]",
            "if list empty: n = nr_pcp_alloc(order)",
            "    if ALLOC_HIGHATOMIC (7.x): return NULL      // rmqueue_buddy uses/grows the reserve",
            "    pcp.count += rmqueue_bulk(order, n, list) << order",
            "    if list still empty: return NULL",
            "page = pop_front(list); pcp.count -= 1 << order",
        ],
        nr_pcp_alloc => &[
            "high = clamp(pcp.high, high_min, high_max); if high < batch: return 1",
            "b = order == 0 ? batch << alloc_factor : batch",
            "if high_min != high_max and !BELOW_HIGH: high = min(high + b, high_max)",
            "if order == 0 and b <= (m = max(high - count - batch, batch)): alloc_factor++ (max 5)",
            "if order == 0: b = min(b, m)",
            "return b > 1 ? max(b >> order, 2) : b",
        ],
        rmqueue_bulk => &[
            "lock zone (held for the whole batch)",
            "mode = RMQUEUE_NORMAL",
            "for i in 0..count: page = __rmqueue(order, mt, &mode); if !page: break",
            "    list_add_tail(page, list)                     // arrive in returned order",
            "return i",
        ],
        rmqueue_buddy => &[
            "lock zone",
            "if HIGHATOMIC: page = __rmqueue_smallest(order, HighAtomic)",
            "if !page: mode = NORMAL; page = __rmqueue(order, mt, &mode)",
            "if !page and (OOM|NON_BLOCK): page = __rmqueue_smallest(order, HighAtomic)",
            "if page and HIGHATOMIC: reserve_highatomic_pageblock(page)   // 7.x",
            "return page",
        ],
        __rmqueue => &[
            "switch mode:                                      // falls through",
            "  NORMAL: if (p = __rmqueue_smallest(order, mt)): return p",
            "  CMA:    if ALLOC_CMA and (p = smallest(order, CMA)): mode = CMA; return p",
            "  CLAIM:  if (p = __rmqueue_claim(order, mt)): mode = NORMAL; return p",
            "  STEAL:  if !NOFRAGMENT and (p = __rmqueue_steal(order, mt)):",
            "              mode = STEAL; return p              // next refill page starts here",
            "return NULL",
        ],
        __rmqueue_smallest => &[
            "for o in order..=10:",
            "    page = front(free_area[o].free_list[mt]); if !page: continue",
            "    del_from_free_list(page, o, mt)",
            "    expand(page, order, o, mt)                    // give back upper halves",
            "    trace mm_page_alloc_zone_locked; return page",
            "return NULL",
        ],
        expand => &[
            "while high > low:",
            "    high -= 1",
            "    upper = page + 2^high",
            "    add_to_free_list(upper, high, mt, HEAD)        // keep the LOWER half",
            "    set_buddy_order(upper, high)",
            "account_freepages(-(2^high_orig - added), mt)",
        ],
        __rmqueue_claim => &[
            "min = NOFRAGMENT and order < 9 ? 9 : order",
            "for o in 10 down to min:                          // top-down",
            "    f = find_suitable_fallback(o, mt, claimable)",
            "    if f == -1: continue; if f == -2: break",
            "    page = front(free_list[o][f])",
            "    if try_to_claim_block(page, o, order, mt, f):",
            "        trace mm_page_alloc_extfrag; return page",
            "return NULL                                       // refused: next lower order",
        ],
        find_suitable_fallback => &[
            "if claimable and !should_try_claim_block(order, mt): return -2",
            "if free_area[order].nr_free == 0: return -1",
            "return first fallbacks[mt] with a non-empty list, else -1",
        ],
        try_to_claim_block => &[
            "if current_order >= 9:                            // whole pageblock(s)",
            "    del_page_from_free_list(page)",
            "    change_pageblock_range(page, mt); expand(...); return page",
            "// partial pageblock",
            "boost_watermark(); if KSWAPD: set ZONE_BOOSTED_WATERMARK",
            "free, movable = walk the pageblock",
            "alike = mt == MOVABLE ? movable : block MOVABLE ? 512 - free - movable : 0",
            "if free + alike >= 256: move every free block to mt's lists (tail)",
            "    set_pageblock_migratetype(block, mt)",
            "    return __rmqueue_smallest(order, mt)",
            "return NULL                                       // claim refused",
        ],
        __rmqueue_steal => &[
            "for o in order..=10:                              // bottom-up",
            "    f = find_suitable_fallback(o, mt, false); if f == -1: continue",
            "    page = front(free_list[o][f])",
            "    del + expand on f's lists (block keeps its type); trace extfrag",
            "    return page",
            "return NULL",
        ],
        reserve_highatomic_pageblock => &[
            "if managed/100 < 512 or reserved >= ALIGN(managed/100, 512): return",
            "lock zone; recheck the limit; if block type not mergeable: unlock, return",
            "if order < 9: move the block's free pages to HighAtomic; reserved += 512",
            "else: change_pageblock_range(page, order, HighAtomic); reserved += 1 << order",
            "unlock zone",
        ],
        zone_watermark_ok => &[
            "free = NR_FREE_PAGES - unusable (highatomic, cma)",
            "if free <= mark: return false",
            "return order == 0 or some buddy list of order >= order is non-empty",
        ],
        __free_pages => &[
            "if put_page_testzero(page): __free_frozen_pages(page, order)",
            "else: the page stays allocated; the last put_page frees it (order 0 here)",
            "zone = page_zone(page)    // several zones: the zone that holds the page",
        ],
        __free_frozen_pages => &[
            "if !pcp_allowed_order(order): __free_pages_ok(page, order); return",
            "free_pages_prepare(page, order)                   // mm_page_free",
            "mt = get_pfnblock_migratetype(page)",
            "if mt == ISOLATE: free_one_page(); return",
            "if mt is HighAtomic or CMA: mt = MOVABLE",
            "lock pcp; free_frozen_page_commit(pcp, page, mt, order)",
        ],
        free_pages_prepare => {
            &["trace mm_page_free(page, order) unless FPI_PREPARED; checks; reset state"]
        }
        free_frozen_page_commit => &[
            "pcp.alloc_factor >>= 1",
            "list_add(page, pcp.lists[pindex]); pcp.count += 2^order   // FRONT",
            "free_high = order 1..3 and free_count large and prev free was high-order",
            "free_count += 2^order (capped at batch << 5)",
            "high = nr_pcp_high(batch, free_high)",
            "if pcp.count < high: return",
            "free_pcppages_bulk(nr_pcp_free(...), pindex)       // 6.19+: batch-sized chunks",
            "if BELOW_HIGH and watermark_ok(high): clear BELOW_HIGH",
        ],
        free_pcppages_bulk => &[
            "count = min(pcp.count, count)",
            "lock zone",
            "while count > 0:",
            "    pick the next non-empty list, starting at pindex",
            "    page = pop_back(list)                         // oldest first",
            "    mt = get_pfnblock_migratetype(page); __free_one_page(page, order, mt)",
            "    trace mm_page_pcpu_drain; until list empty or count <= 0",
        ],
        free_one_page => &[
            "lock zone; split_large_buddy: at most one pageblock at a time",
            "    __free_one_page(piece, order, get_pfnblock_migratetype(piece))",
        ],
        __free_one_page => &[
            "account_freepages(+2^order, mt)",
            "while order < 10:",
            "    buddy = pfn ^ (1 << order)",
            "    if buddy is not a free block of exactly this order: break",
            "    if order >= 9 and types differ and one is not mergeable: break",
            "    del_from_free_list(buddy)",
            "    if buddy type differs: change_pageblock_range(buddy, mt)",
            "    pfn = pfn & buddy; order += 1                 // merged",
            "set_buddy_order(pfn, order)",
            "if FPI_TO_TAIL or buddy_merge_likely(): add_to_free_list(TAIL)",
            "else add_to_free_list(HEAD)",
            "// first in each turn of the loop: compaction_capture(capc, page, order, mt): a direct compaction of this zone asking this order (not CMA/isolated; a MOVABLE block below order 9 only for a movable request) takes the block: account_freepages(-2^order), return",
        ],
        split_page => &["every tail page gets refcount 1: now 2^order separate pages"],
        decay_pcp_high => &[
            "if high > high_min: high = max3(count - (batch << 5), high - high / 8, high_min)",
            "to_drain = count - high",
            "6.18: if to_drain > 0: lock pcp; free_pcppages_bulk(to_drain, pindex 0)",
            "7.x: while to_drain > 0: lock pcp; free_pcppages_bulk(min(to_drain, batch), 0); to_drain -= that",
        ],
        drain_all_pages => &[
            "for each CPU whose pcp holds pages, in CPU order: drain_pages_zone(cpu)",
            "several zones: for each such CPU: for each zone: drain_pages_zone(cpu, zone)",
        ],
        drain_pages_zone => &[
            "lock pcp; while pcp.count:",
            "    free_pcppages_bulk(min(count, batch << 5), pindex 0)",
        ],
        free_contig_range => &[
            "for pfn in range, ascending:                      // ≤ 7.1",
            "    __free_page(pfn)                              // order-0 pcp list each",
        ],
        __free_contig_range_common => &[
            "for pfn in range, ascending:                      // 7.2",
            "    put_page_testzero(pfn); free_pages_prepare(pfn, 0)",
            "    not freeable: free_prepared_contig_range(run); start a new run",
            "free_prepared_contig_range(last run)",
        ],
        free_prepared_contig_range => &[
            "while n > 0:",
            "    o = min(ctz(pfn) or 10, ilog2(n), 10)          // largest aligned chunk",
            "    __free_frozen_pages(pfn, o, FPI_PREPARED)      // pcp if o <= 3 or 9",
            "    pfn += 2^o; n -= 2^o",
        ],
        alloc_contig_range => &[
            "start_isolate_page_range(start, end)           // fails: -EBUSY",
            "drain_all_pages()",
            "__alloc_contig_migrate_range(start, end)       // in-use movable pages move out",
            "outer_start = find_large_buddy(start); test_pages_isolated(outer_start, end)",
            "isolate_freepages_range(outer_start, end)      // free blocks off the isolate lists",
            "the range's pages are allocated, refcount 1 each",
            "__free_contig_frozen_range([outer_start, start)), ([end, outer_end))  // still isolated",
            "done: undo_isolate_page_range(start, end); return ret",
        ],
        start_isolate_page_range => &[
            "isolate_single_pageblock(pageblock_start(start), after the boundary)",
            "isolate_single_pageblock(pageblock_align(end), before the boundary)",
            "for each pageblock between: set_migratetype_isolate(pb, start, end)",
            "    fails: undo_isolate_page_range(what was isolated); return -EBUSY",
        ],
        isolate_single_pageblock => &[
            "set_migratetype_isolate(pageblock)             // unless already done",
            "for pfn from ALIGN_DOWN(pageblock, MAX_ORDER_NR_PAGES) to the boundary:",
            "    free buddy: skip it; in-use compound page ending before the boundary: skip it",
            "    in-use compound page straddling the boundary: unset_migratetype_isolate; -EBUSY",
        ],
        set_migratetype_isolate => &[
            "lock zone; already isolated: -EBUSY",
            "has_unmovable_pages(range ∩ pageblock)          // CMA block: movable only for cma_alloc",
            "    found: -EBUSY (not LRU, not movable_ops, or a non-LRU compound page)",
            "pageblock_isolate_and_move_free_pages(pageblock):",
            "    part of a free block > pageblock: take it, set the isolate bit, split_large_buddy",
            "    else move every free block of the pageblock to the TAIL of the isolate list; set the bit",
        ],
        unset_migratetype_isolate => &[
            "lock zone; not isolated: return",
            "free order-9 block whose buddy is free and not isolated: __isolate_free_page; clear the bit; __free_one_page(FPI_TO_TAIL)",
            "else pageblock_unisolate_and_move_free_pages(pageblock):",
            "    every free block of the pageblock to the TAIL of its type's list; clear the bit",
        ],
        undo_isolate_page_range => &["for each isolated pageblock of the range: unset_migratetype_isolate"],
        split_large_buddy => &[
            "order = min(order, pageblock_order)",
            "for each pageblock-sized piece: __free_one_page(piece, its pageblock's type)  // head",
        ],
        __alloc_contig_migrate_range => &[
            "while pfn < end: isolate_migratepages_range(pfn, end)   // up to 32 pages of LRU folios",
            "    migrate_pages(list, alloc_migration_target)",
        ],
        migrate_pages => &[
            "for each folio: dst = get_new_folio(folio)  // alloc_migration_target (GFP_KERNEL|__GFP_MOVABLE|__GFP_RETRY_MAYFAIL) or compaction_alloc",
            "    no dst: -ENOMEM; the rest go back",
            "for each folio: move the contents; the owner now maps dst; folio_put(src)  // isolated: to the isolate list",
            "compaction_alloc: first isolated free page of order >= the folio's (none: isolate_freepages once); the rest back at the list heads; post_alloc_hook",
        ],
        compact_node => &[
            "for each populated zone: compact_zone(order = -1, MIGRATE_SYNC, ignore_skip_hint, whole_zone)",
            "// echo 1 > /proc/sys/vm/compact_memory: compact_nodes → lru_add_drain_all, compact_node(each node)",
        ],
        compact_zone => &[
            "migrate_pfn = zone_start; free_pfn = pageblock_start(zone_end - 1)   // whole_zone",
            "trace mm_compaction_begin",
            "while compact_finished() == COMPACT_CONTINUE:   // scanners met: COMPLETE; order -1 never stops early; else a free block of order..10 on the MOVABLE/CMA list or a claimable fallback at a pageblock boundary: SUCCESS; trace mm_compaction_finished",
            "    isolate_migratepages(): ISOLATE_NONE → next round",
            "    migrate_pages(migratepages, compaction_alloc, compaction_free); trace mm_compaction_migratepages",
            "    -ENOMEM before the scanners met: COMPACT_CONTENDED, stop",
            "release_free_list(freepages); trace mm_compaction_end",
            "// compact op, one zone of try_to_compact_pages: prio > MIN_COMPACT_PRIORITY and compaction_deferred (++compact_considered < 1 << compact_defer_shift): COMPACT_DEFERRED, trace mm_compaction_deferred",
            "// order >= 0: compaction_suit_allocation_order: order meets the min watermark → SUCCESS; compaction_suitable: min + compact_gap (2 << order, + low - min above order 3) fails → SKIPPED; order > 3 and 0 <= fragmentation_index <= extfrag_threshold (500) → NOT_SUITABLE_ZONE; trace mm_compaction_suitable",
            "// COMPACT_SUCCESS: compaction_defer_reset(zone, order, false): compact_order_failed = order + 1; trace mm_compaction_defer_reset",
            "// COMPACT_COMPLETE / PARTIAL_SKIPPED: defer_compaction: compact_considered = 0, compact_defer_shift++ (max 6), compact_order_failed = min(it, order); trace mm_compaction_defer_compaction",
            "compaction_restarting (deferred 64 times at order >= order_failed) and compact_blockskip_flush (a direct compaction's scanners met): __reset_isolation_suitable clears the skip bits of blocks with an LRU page (from the start) or a free page (from the end)",
            "// a direct compaction (capture_control): a block of cc->order freed in this zone goes to the allocation (compaction_capture in __free_one_page): stop, COMPACT_SUCCESS",
            "// MIGRATE_ASYNC / SYNC_LIGHT: -ENOMEM inside a pageblock → rescan the rest of it (finish_pageblock) so it gets its skip bit",
            "// kcompactd's proactive compact_node (order -1, MIGRATE_SYNC_LIGHT): after the scanners-met check, COMPACT_SUCCESS once fragmentation_score_zone <= fragmentation_score_wmark(low), else CONTINUE",
        ],
        isolate_migratepages => &[
            "for each pageblock from migrate_pfn while block_end <= free_pfn:",
            "    a THP (compound order >= pageblock_order) at its start: not a source, next   // skip bits ignored",
            "    isolate_migratepages_block: free buddy: skip it; not LRU, pinned or order >= 9: fail, go on; else take the folio",
            "    whole block scanned, nothing taken: set_pageblock_skip",
            "    32 pages (COMPACT_CLUSTER_MAX) taken and not finishing the block: stop; trace mm_compaction_isolate_migratepages",
            "// a direct compaction at MIGRATE_ASYNC takes only suitable_migration_source blocks: 7.2+ MOVABLE/CMA for a movable or pageblock-order request, else the request's own type; 6.12-7.1 the request's type (MOVABLE and CMA for a movable one); compact_memory and kcompactd take every type",
            "// MIGRATE_ASYNC (skip_on_failure): a page that cannot be taken gives up its cc->order-aligned block: what was taken there goes back, the scan goes on at the next block",
        ],
        isolate_freepages => &[
            "for each pageblock from free_pfn down while block_start >= pageblock_end(migrate_pfn):",
            "    not MOVABLE/CMA, or a free block >= pageblock_order at its start: next",
            "    isolate_freepages_block, every stride-th pfn: lock zone (dropped every 32 pfns)",
            "        PageBuddy: __isolate_free_page: min watermark + 2^order ok → off its free list, no mm_page_alloc",
            "        order >= pageblock_order - 1: its pageblocks become MOVABLE (move_freepages_block)",
            "        free pages cover the folios to move: stop; whole block scanned: set_pageblock_skip",
            "    trace mm_compaction_isolate_freepages; nothing isolated: stride doubles (up to 32)",
        ],
        release_free_list => &[
            "for each order, each isolated free page left: mark_allocated(page); __free_pages(page, order)",
        ],
        __free_contig_frozen_range => &[
            "≤ 7.1: for each pfn: free_frozen_pages(page, 0)",
            "7.2: free_pages_prepare each page; free_prepared_contig_range(pfn, n)",
        ],
        cma_alloc => &[
            "mask = 2^align - 1; offset = base_pfn & mask; start = 0    // one bit a page",
            "retry: bitmap_no = bitmap_find_next_zero_area_off(bitmap, start, count, mask, offset)",
            "    count > available, or no free run: stop (-EBUSY)",
            "bitmap_set(bitmap_no, count); available -= count",
            "ret = alloc_contig_frozen_range(base_pfn + bitmap_no, count, ACR_FLAGS_CMA)  // CMA blocks isolate",
            "ret == -EBUSY: cma_clear_bitmap; start = bitmap_no + mask + 1; goto retry",
            "other error: cma_clear_bitmap; stop",
            "failed: pr_err(\"alloc failed, req-size: count pages, ret\"); else set_pages_refcounted",
        ],
        cma_release => &[
            "find_cma_memrange(pages, count)                 // not in the area: return false",
            "7.x: for each page: put_page_testzero(page)     // refcount 1 → 0: frozen",
            "free_contig_frozen_range(pfn, count)            // 6.18/6.19: free_contig_range",
            "cma_clear_bitmap(pfn, count); available += count",
        ],
        vmalloc => &[
            "if pages > 512: array = nested vmalloc(8 × pages bytes)",
            "vm_area_alloc_pages(GFP_KERNEL | __GFP_NOWARN, nr_pages)",
            "fewer pages than asked: failure, free the area",
        ],
        vm_area_alloc_pages => &[
            "large = min(10, ilog2(remaining))                 // 6.19+",
            "while large > 0 and remaining:",
            "    page = alloc_pages(gfp & ~DIRECT_RECLAIM, large)",
            "    if !page: large -= 1; continue                // never back up",
            "    split_page(page, large); large = min(last, ilog2(remaining))",
            "while allocated < n: alloc_pages_bulk(min(100, n - allocated))",
            "while allocated < n: alloc_pages(gfp, 0)          // single-page fallback",
        ],
        alloc_pages_bulk => &[
            "if nr == 1: goto single",
            "if !watermark_ok(low + nr): goto single",
            "lock pcp",
            "while populated < nr: page = __rmqueue_pcplist(0, mt); prep_new_page",
            "single: alloc_pages(gfp, 0)",
            "a node of several zones: the gate walks the zonelist; the batch comes from the first zone that passes",
        ],
        vfree => &[
            "remove_vm_area()",
            "≤ 7.1: for each page: __free_page(page)",
            "7.2: free_pages_bulk: each run of consecutive pfns → __free_contig_range",
            "free the page array",
        ],
        get_page => &[
            "folio_ref_inc(page)        // a third party holds it: compaction's pfn scanner, a GUP pin",
        ],
        put_page => &[
            "if put_page_testzero(page): __folio_put → free_frozen_pages(page, 0)",
            "else: refcount - 1; the page stays allocated",
        ],
        memblock_free_all => &[
            "for each free range, ascending:",
            "    o = largest aligned order that fits; __free_pages_ok(o, FPI_TO_TAIL)",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_points_at_a_line() {
        for &s in Step::ALL {
            let l = lines(s.func());
            assert!(
                s.line() < l.len(),
                "{:?} line {} of {}",
                s,
                s.line(),
                s.func().name()
            );
        }
    }
}
