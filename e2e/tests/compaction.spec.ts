// Compaction on the map: while compact_zone runs, the map rings its two scanners and the legend
// names them with their pfns, which are where the CLI's mm_compaction_* trace lines put them; after
// the run the free lists are the CLI's buddyinfo.
import { test, expect, openApp, runCli, saveScreenshot, hoverMapPage, ARTIFACTS_DIR, type Page } from '../fixtures';
import { scanScreen, blocking } from './support/axe';
import { scannersFromTrace, isolatedFromTrace } from './support/compaction';
import * as path from 'node:path';

const ID = 'compact-memory-fragmented';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

test.use({ viewport: { width: 1280, height: 720 } });

async function narration(page: Page): Promise<string> {
  return ((await page.getByTestId('narration').textContent()) ?? '').trim();
}

/** The zone pages (absolute pfns) whose cells on the map canvas hold colour `css` (an
 * `rgb(r, g, b)`), read off the canvas's pixels through its data-* geometry, and the pages near
 * the scanners' rings at `marks` (absolute pfns), whose cells the rings may cover. */
async function isolatedCells(page: Page, css: string, marks: number[]): Promise<{ cells: number[]; near: number[] }> {
  return page.getByTestId('memory-map').evaluate(
    (c: HTMLCanvasElement, [css, marks]) => {
      const n = (k: string) => Number(c.getAttribute(k));
      if (c.getAttribute('data-lod') !== 'pages') throw new Error('the map is drawn by pageblocks');
      const [vx, vy] = c.getAttribute('data-view')!.split(',').map(Number);
      const dpr = n('data-dpr');
      const start = n('data-start-pfn');
      const rgb = css.match(/\d+/g)!.map(Number);
      const img = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      const cell = n('data-cell');
      const cells: number[] = [];
      const near: number[] = [];
      const label = c.getAttribute('aria-label') ?? '';
      const total = Number(/: (\d+) pages in /.exec(label)![1]);
      for (let idx = 0; idx < total; idx++) {
        const pb = Math.floor(idx / 512);
        const local = idx % 512;
        const x0 = (pb % n('data-per-row')) * n('data-tile-w') + n('data-pad') + (local % 32) * cell - vx;
        const y0 = Math.floor(pb / n('data-per-row')) * n('data-tile-h') + n('data-pad') + Math.floor(local / 32) * cell - vy;
        if ((marks as number[]).some((m) => {
          const q = m - start;
          return Math.floor(q / 512) === pb && Math.abs((q % 512) % 32 - local % 32) <= 3 && Math.abs(Math.floor((q % 512) / 32) - Math.floor(local / 32)) <= 3;
        })) {
          near.push(start + idx);
          continue;
        }
        let hit = false;
        for (let y = Math.round(y0 * dpr); y < Math.round((y0 + cell) * dpr) && !hit; y++) {
          for (let x = Math.round(x0 * dpr); x < Math.round((x0 + cell) * dpr) && !hit; x++) {
            if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
            const p = (y * img.width + x) * 4;
            hit = img.data[p] === rgb[0] && img.data[p + 1] === rgb[1] && img.data[p + 2] === rgb[2];
          }
        }
        if (hit) cells.push(start + idx);
      }
      return { cells, near };
    },
    [css, marks] as [string, number[]],
  );
}

test('compact_memory: the map shows the scanners where the trace puts them; the end is the CLI buddyinfo', async ({ page }) => {
  test.setTimeout(120_000);
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

  // The free scanner's pages: at compaction_alloc's first hand-out (the current event touches
  // only the page handed out), the cells in the isolated colour are exactly the pfns the trace
  // says are on cc->freepages, the tooltip names one in the kernel's terms and the map's text
  // summary counts them.
  for (let i = 0; i < 50 && !text.startsWith('migrate_pages: '); i++) {
    await page.keyboard.press('ArrowRight');
    text = await narration(page);
  }
  expect(text).toMatch(/^migrate_pages: order-\d+ block at pfn 0x[0-9a-f]+ is handed out$/);
  const handedAt = lines.indexOf(`# ${text}`, at);
  expect(handedAt).toBeGreaterThan(at);
  const isolated = isolatedFromTrace(lines, handedAt);
  expect(isolated.length).toBeGreaterThan(1);
  const legendIsolated = page.getByTestId('map-legend-isolated');
  await expect(legendIsolated).toHaveText("isolated by the free scanner (cc->freepages)");
  const colour = await legendIsolated.locator('.swatch').evaluate((e) => getComputedStyle(e).backgroundColor);
  const marks = await scanners.evaluate((e) => [e.getAttribute('data-migrate-pfn'), e.getAttribute('data-free-pfn')].map(Number));
  const drawn = await isolatedCells(page, colour, marks);
  // Pages ringed by a scanner marker (the ring covers the cells around it) are not read.
  const readable = isolated.filter((p) => !drawn.near.includes(p));
  expect(readable.length).toBeGreaterThan(isolated.length - 50);
  expect(drawn.cells).toEqual(readable);
  await expect(page.getByTestId('memory-map')).toHaveAttribute(
    'aria-label',
    new RegExp(`, ${isolated.length} isolated by compaction's free scanner \\(cc->freepages\\), `),
  );
  const start = Number(await page.getByTestId('memory-map').getAttribute('data-start-pfn'));
  const last = isolated[isolated.length - 1];
  await hoverMapPage(page, last - start);
  const tip = page.getByTestId('map-tooltip');
  await expect(tip).toContainText(`pfn 0x${last.toString(16)}`);
  await expect(tip).toContainText(/isolated by compaction's free scanner: order-\d+ block at 0x[0-9a-f]+ on cc->freepages/);
  await expect(tip).not.toContainText('reserved');
  await page.mouse.move(0, 0);
  await saveScreenshot(page, 'compaction-isolated-map', page.getByTestId('memory-map'));

  // After the run: no compaction in progress, and the free lists are the CLI's.
  await page.keyboard.press('End');
  await expect(legendIsolated).toHaveCount(0);
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
