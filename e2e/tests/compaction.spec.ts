// Compaction on the map: while compact_zone runs, the map rings its two scanners and the legend
// names them with their pfns, which are where the CLI's mm_compaction_* trace lines put them; after
// the run the free lists are the CLI's buddyinfo.
import { test, expect, openApp, runCli, saveScreenshot, ARTIFACTS_DIR, type Page } from '../fixtures';
import { scanScreen, blocking } from './support/axe';
import * as path from 'node:path';

const ID = 'compact-memory-fragmented';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

test.use({ viewport: { width: 1280, height: 720 } });

/** The scanners after trace line `at` of `lines` (the compact_zone in progress there), as the
 * trace says: mm_compaction_begin's migrate_pfn and free_pfn, then the end of the last
 * mm_compaction_isolate_migratepages / _freepages range since it. */
function scannersFromTrace(lines: string[], at: number): { migrate: string; free: string } {
  let migrate: string | undefined;
  let free: string | undefined;
  for (let i = at; i >= 0; i--) {
    const l = lines[i];
    if (l.startsWith('mm_compaction_end:')) throw new Error(`no compaction in progress at line ${at}`);
    const iso = /^mm_compaction_isolate_(migrate|free)pages: range=\(0x[0-9a-f]+ ~ (0x[0-9a-f]+)\)/.exec(l);
    if (iso && iso[1] === 'migrate') migrate ??= iso[2];
    if (iso && iso[1] === 'free') free ??= iso[2];
    const begin = /^mm_compaction_begin: .*migrate_pfn=(0x[0-9a-f]+) free_pfn=(0x[0-9a-f]+)/.exec(l);
    if (begin) return { migrate: migrate ?? begin[1], free: free ?? begin[2] };
  }
  throw new Error(`no mm_compaction_begin before line ${at}`);
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
