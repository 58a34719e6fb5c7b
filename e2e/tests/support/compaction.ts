// What the CLI's trace says about a compact_zone in progress at a line: where its two scanners
// are, and which pages the free scanner holds. Shared by the compaction specs, which check the
// app's map against these.

/** The index of the mm_compaction_begin of the compaction in progress at line `at`. */
function beginOf(lines: string[], at: number): number {
  for (let b = at; b >= 0; b--) {
    if (lines[b].startsWith('mm_compaction_begin:')) return b;
    if (lines[b].startsWith('mm_compaction_end:')) break;
  }
  throw new Error(`no compaction in progress at line ${at}`);
}

/** The scanners after trace line `at` of `lines` (the compact_zone in progress there), by the
 * rules of v7.3.4 mm/compaction.c isolate_freepages (explain::compaction_scanners): from
 * mm_compaction_begin's migrate_pfn and free_pfn, the migration scanner at the end of each
 * mm_compaction_isolate_migratepages range; the free scanner, after an
 * mm_compaction_isolate_freepages line of the linear scan, at the range's end when the scan
 * stopped inside its pageblock and one pageblock below the pageblock when it reached its end
 * (:1801-1838). The first isolate_freepages line after an mm_compaction_fast_isolate_freepages
 * that took a block is fast_isolate_around's look and moves nothing; after one that took
 * nothing, a first line not starting at the search's free_pfn is the look around the
 * free_pfn the search set, which is its start. */
export function scannersFromTrace(lines: string[], at: number): { migrate: string; free: string } {
  const b = beginOf(lines, at);
  const begin = /zone_start=(0x[0-9a-f]+) migrate_pfn=(0x[0-9a-f]+) free_pfn=(0x[0-9a-f]+) zone_end=(0x[0-9a-f]+)/.exec(
    lines[b],
  )!;
  const zoneStart = Number(begin[1]);
  const zoneEnd = Number(begin[4]);
  const PAGEBLOCK = 512;
  let migrate = Number(begin[2]);
  let free = Number(begin[3]);
  // After a fast search: 'took' if it took a block, else the free_pfn it printed.
  let fast: 'took' | number | undefined;
  for (let i = b + 1; i <= at; i++) {
    const l = lines[i];
    const range = /range=\((0x[0-9a-f]+) ~ (0x[0-9a-f]+)\)/.exec(l);
    if (l.startsWith('mm_compaction_isolate_migratepages:')) {
      migrate = Number(range![2]);
      fast = undefined;
    } else if (l.startsWith('mm_compaction_migratepages:')) {
      fast = undefined;
    } else if (l.startsWith('mm_compaction_fast_isolate_freepages:')) {
      fast = / nr_taken=0\b/.test(l) ? Number(range![2]) : 'took';
    } else if (l.startsWith('mm_compaction_isolate_freepages:')) {
      const start = Number(range![1]);
      const end = Number(range![2]);
      const f = fast;
      fast = undefined;
      if (f === 'took') continue;
      if (typeof f === 'number' && start !== f) {
        free = start;
        continue;
      }
      const blockStart = Math.floor(start / PAGEBLOCK) * PAGEBLOCK;
      const blockEnd = Math.min(blockStart + PAGEBLOCK, zoneEnd);
      free = end >= blockEnd ? Math.max(blockStart - PAGEBLOCK, zoneStart) : end;
    }
  }
  const hex = (n: number) => `0x${n.toString(16)}`;
  return { migrate: hex(migrate), free: hex(free) };
}

/** The pfns on the free scanner's list (cc->freepages) after trace line `at`: every block the
 * narration says `isolate_freepages` or `fast_isolate_freepages` took off a free list since the
 * compaction's mm_compaction_begin (`# isolate_freepages: order-N block at pfn X leaves the …
 * list`), less the pages `compaction_alloc` handed to a migrating folio (`# migrate_pages:
 * order-N block at pfn X is handed out`) and those freed again (`# __free_pages: the owner
 * drops the order-N block at pfn X`, release_free_list's give-back). Absolute pfns, ascending. */
export function isolatedFromTrace(lines: string[], at: number): number[] {
  const held = new Set<number>();
  const block = (l: string) => {
    const m = /order-(\d+) block at pfn (0x[0-9a-f]+)/.exec(l)!;
    const pfn = Number(m[2]);
    return [...Array(1 << Number(m[1])).keys()].map((i) => pfn + i);
  };
  for (let i = beginOf(lines, at) + 1; i <= at; i++) {
    const l = lines[i];
    if (/^# (fast_)?isolate_freepages: order-\d+ block at pfn 0x[0-9a-f]+ leaves the /.test(l)) {
      for (const p of block(l)) held.add(p);
    } else if (/^# migrate_pages: order-\d+ block at pfn 0x[0-9a-f]+ is handed out$/.test(l)) {
      for (const p of block(l)) {
        if (!held.delete(p)) throw new Error(`line ${i}: ${l}: not on the free scanner's list`);
      }
    } else if (/^# __free_pages: the owner drops the order-\d+ block at pfn /.test(l)) {
      for (const p of block(l)) held.delete(p);
    }
  }
  return [...held].sort((a, b) => a - b);
}
