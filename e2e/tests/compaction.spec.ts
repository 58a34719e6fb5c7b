// Compaction on the map: while compact_zone runs, the map rings its two scanners and the legend
// names them with their pfns, which are where the CLI's mm_compaction_* trace lines put them; after
// the run the free lists are the CLI's buddyinfo.
import { test, expect, openApp, runCli, saveScreenshot, ARTIFACTS_DIR, type Page } from '../fixtures';
import { scanScreen, blocking } from './support/axe';
import * as path from 'node:path';

const ID = 'compact-memory-fragmented';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

test.use({ viewport: { width: 1280, height: 720 } });

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
function scannersFromTrace(lines: string[], at: number): { migrate: string; free: string } {
  let b = at;
  while (b >= 0 && !lines[b].startsWith('mm_compaction_begin:')) {
    if (lines[b].startsWith('mm_compaction_end:')) throw new Error(`no compaction in progress at line ${at}`);
    b--;
  }
  if (b < 0) throw new Error(`no mm_compaction_begin before line ${at}`);
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

async function narration(page: Page): Promise<string> {
  return ((await page.getByTestId('narration').textContent()) ?? '').trim();
}

test('compact_memory: the map shows the scanners where the trace puts them; the end is the CLI buddyinfo', async ({ page }) => {
  const lines = runCli(['run', FILE, '--format', 'trace']).split('\n');
  const opStart = lines.findIndex((l) => l.startsWith('# op ') && l.endsWith(': compact_memory'));
  expect(opStart).toBeGreaterThan(0);

  await openApp(page, `?scenario=${ID}`);
  const scanners = page.getByTestId('map-scanners');
  // To the end of the drain before compact_memory: from the end, back over the last drain and
  // compact_memory.
  await page.keyboard.press('End');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('PageUp');
  await expect(page.getByTestId('op-info')).toContainText('drain');
  await expect(scanners).toHaveCount(0);

  // Step into compact_zone up to the free scanner's first pageblock.
  let text = '';
  for (let i = 0; i < 600 && !text.startsWith('mm_compaction_isolate_freepages:'); i++) {
    await page.keyboard.press('ArrowRight');
    text = await narration(page);
  }
  expect(text).toMatch(/^mm_compaction_isolate_freepages: /);
  await expect(page.getByTestId('op-info')).toContainText('compact_memory');
  const at = lines.indexOf(text, opStart);
  expect(at, `the app's line in the CLI trace: ${text}`).toBeGreaterThan(opStart);
  const want = scannersFromTrace(lines, at);
  // Both scanners have moved off compact_zone's start.
  const begin = lines.slice(opStart).find((l) => l.startsWith('mm_compaction_begin:'))!;
  expect(begin).not.toContain(`migrate_pfn=${want.migrate} `);
  expect(begin).not.toContain(`free_pfn=${want.free} `);

  await expect(scanners).toHaveAttribute('data-migrate-pfn', want.migrate);
  await expect(scanners).toHaveAttribute('data-free-pfn', want.free);
  await expect(page.getByTestId('map-scanner-migrate')).toHaveText(
    `migration scanner (isolate_migratepages) at pfn ${want.migrate}`,
  );
  await expect(page.getByTestId('map-scanner-free')).toHaveText(`free scanner (isolate_freepages) at pfn ${want.free}`);

  await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'compaction-scanners-1280x720.png') });
  await saveScreenshot(page, 'compaction-scanners-map', page.getByTestId('memory-map'));
  const results = await scanScreen(page, 'map with the compaction scanners');
  expect(blocking(results)).toEqual([]);

  // After the run: no compaction in progress, and the free lists are the CLI's.
  await page.keyboard.press('End');
  await expect(scanners).toHaveCount(0);
  const cli = runCli(['run', FILE, '--format', 'buddyinfo']).trim().split(/\s+/).slice(-11).map(Number);
  const app = await page.evaluate(() =>
    [...Array(11).keys()].map((o) => Number(document.querySelector(`[data-testid="nr-free-${o}"]`)!.textContent)),
  );
  expect(app).toEqual(cli);
});

test('compact_memory: a migration step draws its move, with the pfns the CLI trace says', async ({ page }) => {
  test.setTimeout(180_000);
  const lines = runCli(['run', FILE, '--format', 'trace']).split('\n');
  const opStart = lines.findIndex((l) => l.startsWith('# op ') && l.endsWith(': compact_memory'));
  expect(opStart).toBeGreaterThan(0);
  const first = lines.slice(opStart).find((l) => l.startsWith('# info: migrate: '))!;
  const m = /^# info: migrate: the order-(\d+) movable folio at (0x[0-9a-f]+) now lives at (0x[0-9a-f]+)$/.exec(first);
  expect(m, first).not.toBeNull();
  const [, , from, to] = m!;

  await openApp(page, `?scenario=${ID}`);
  const migration = page.getByTestId('map-migration');
  await page.keyboard.press('End');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('PageUp');
  await expect(page.getByTestId('op-info')).toContainText('drain');
  await expect(migration).toHaveCount(0);

  // Step to compact_zone's first migration.
  let text = '';
  for (let i = 0; i < 2000 && !text.startsWith('info: migrate: '); i++) {
    await page.keyboard.press('ArrowRight');
    text = await narration(page);
  }
  expect(`# ${text}`).toBe(first);
  await expect(migration).toHaveAttribute('data-from-pfn', from);
  await expect(migration).toHaveAttribute('data-to-pfn', to);
  await expect(migration).toHaveText(`migrate: pfn ${from} → pfn ${to}`);
  // The arrow: halfway between the two cells the canvas has the line's colour, the legend
  // swatch's border (the migration scanner's colour).
  const swatch = await migration.locator('.swatch').evaluate((e) => getComputedStyle(e).borderTopColor);
  const mid = await page.evaluate(
    ([a, b]) => {
      const c = document.querySelector('[data-testid="memory-map"]') as HTMLCanvasElement;
      const n = (k: string) => Number(c.getAttribute(k));
      const [vx, vy] = c.getAttribute('data-view')!.split(',').map(Number);
      const centre = (pfn: number) => {
        const page = pfn - n('data-start-pfn');
        const pb = Math.floor(page / 512);
        const local = page % 512;
        const group = c.getAttribute('data-lod') === 'pages' ? 1 : 4;
        const cols = 32 / group;
        const i = Math.floor(local / 32 / group) * cols + Math.floor((local % 32) / group);
        const cell = n('data-cell');
        return [
          (pb % n('data-per-row')) * n('data-tile-w') + n('data-pad') + (i % cols) * cell + cell / 2,
          Math.floor(pb / n('data-per-row')) * n('data-tile-h') + n('data-pad') + Math.floor(i / cols) * cell + cell / 2,
        ];
      };
      const [p, q] = [centre(a), centre(b)];
      const dpr = n('data-dpr');
      const x = Math.floor(((p[0] + q[0]) / 2 - vx) * dpr);
      const y = Math.floor(((p[1] + q[1]) / 2 - vy) * dpr);
      const d = c.getContext('2d')!.getImageData(x, y, 1, 1).data;
      return `rgb(${d[0]}, ${d[1]}, ${d[2]})`;
    },
    [Number(from), Number(to)],
  );
  expect(mid).toBe(swatch);
  await saveScreenshot(page, 'compaction-migration-map', page.getByTestId('memory-map'));
  expect(blocking(await scanScreen(page, 'map with a migration'))).toEqual([]);

  // The next step is no migration: the legend line goes.
  await page.keyboard.press('ArrowRight');
  await expect(migration).toHaveCount(0);
});

test('kcompactd: stepping back from the end, the narration shows its wake and sleep lines as the CLI trace prints them', async ({ page }) => {
  test.setTimeout(180_000);
  const id = 'kcompactd-proactive';
  const lines = runCli(['run', path.join('engine', 'scenarios', `${id}.json`), '--format', 'trace'])
    .split('\n')
    .map((l) => l.trimEnd());
  const last = lines.findLastIndex((l) => l.startsWith('# op ') && l.includes(': kcompactd order 9'));
  expect(last).toBeGreaterThan(0);
  const op = lines.slice(last);
  const wake = op.find((l) => l.startsWith('mm_compaction_kcompactd_wake: '))!;
  const sleep = op.find((l) => l.startsWith('mm_compaction_kcompactd_sleep: '))!;
  expect(wake).toBe('mm_compaction_kcompactd_wake: nid=0 order=9 classzone_idx=Normal');
  expect(sleep).toBe('mm_compaction_kcompactd_sleep: nid=0');
  // The zone already has its order-9 block: kswapd's wakeup is not traced.
  expect(op.some((l) => l.startsWith('mm_compaction_wakeup_kcompactd'))).toBe(false);

  await openApp(page, `?scenario=${id}`);
  await page.keyboard.press('End');
  await expect(page.getByTestId('op-info')).toContainText('kcompactd');
  const seen: string[] = [];
  for (let i = 0; i < 40 && !seen.includes(wake); i++) {
    seen.push(await narration(page));
    await page.keyboard.press('ArrowLeft');
  }
  expect(seen).toContain(sleep);
  expect(seen).toContain(wake);
  expect(seen.indexOf(sleep)).toBeLessThan(seen.indexOf(wake));
});
