// The over-time chart: its CSV export of every series is what `buddyscope run|replay --format
// <series>_over_time` prints; its PNG export is the canvas; its words at the cursor are the
// CLI's row; a replay of a trace with timestamps is charted against the trace's clock; axe finds
// no serious or critical violation in the panel.
import { test, expect, openApp, runCli, saveScreenshot, type Page } from '../fixtures';
import { scanScreen, blocking, summary } from './support/axe';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Downloads get a fresh browser context per test (playwright.config.ts reuses one): once, in
// the reused context, Chromium canceled a download mid-test ("download.path: canceled").
test.use({ reuseContext: false });

const ID = 'fallback-steal';
const SCENARIO = path.join('engine', 'scenarios', `${ID}.json`);
const SERIES = ['free_pages', 'unusable_index', 'extfrag_index', 'mixed_pageblocks', 'fallbacks'];

/** Clicks `testid` and returns the download's suggested name and bytes. */
async function download(page: Page, testid: string): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.getByTestId(testid).click()]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync((await d.path())!) };
}

async function jumpEnd(page: Page) {
  await page.getByTestId('jump-end').click();
  const pos = (await page.getByTestId('position').textContent()) ?? '';
  const m = /event (\d+) \/ (\d+)/.exec(pos);
  expect(m, pos).not.toBeNull();
  expect(m![1]).toBe(m![2]);
}

test('fallback-steal: every series exports the CLI\'s CSV; the chart is a PNG; axe is clean', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page, `?scenario=${ID}`);
  const panel = page.getByTestId('overtime');
  await panel.scrollIntoViewIfNeeded();
  await expect(page.getByTestId('overtime-caption')).toHaveText('mixed pageblocks over time, zone Normal (x: ops done)');
  await expect(page.getByTestId('overtime-summary')).toHaveText('After 0 ops: 0 mixed');
  // A scenario has no clock: the axis stays on ops.
  await expect(page.getByTestId('overtime-axis')).toBeDisabled();
  await jumpEnd(page);
  // The CLI's last row: 39 ops, one mixed Movable pageblock.
  const mixed = runCli(['run', SCENARIO, '--format', 'mixed_pageblocks_over_time']).trimEnd().split('\n');
  expect(mixed.at(-1)).toBe('39,Normal,1,0,1,0,0,0');
  await expect(page.getByTestId('overtime-summary')).toHaveText('After 39 ops: 1 mixed (1 Movable)');
  await expect(page.getByTestId('overtime-canvas')).toHaveAttribute('aria-label', 'After 39 ops: 1 mixed (1 Movable)');

  for (const s of SERIES) {
    await page.getByTestId('overtime-series').selectOption(`${s}_over_time`);
    const d = await download(page, 'overtime-csv');
    expect(d.name).toBe(`${ID}-${s}_over_time.csv`);
    expect(d.bytes.toString('utf8'), s).toBe(runCli(['run', SCENARIO, '--format', `${s}_over_time`]));
  }
  // The extfrag index at the cursor, in words, is the CLI's last row.
  await page.getByTestId('overtime-series').selectOption('extfrag_index_over_time');
  const last = runCli(['run', SCENARIO, '--format', 'extfrag_index_over_time']).trimEnd().split('\n').at(-1)!.split(',').slice(2);
  await expect(page.getByTestId('overtime-summary')).toHaveText(`After 39 ops: ${last.map((v, o) => `${o}: ${v}`).join(', ')}`);

  const png = await download(page, 'overtime-png');
  expect(png.name).toBe(`${ID}-extfrag_index_over_time.png`);
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const canvas = await page.getByTestId('overtime-canvas').evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
  expect([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)]).toEqual(canvas);
  await expect(page.getByTestId('overtime-status')).toContainText(`Saved ${png.name}`);

  await page.getByTestId('overtime-series').selectOption('mixed_pageblocks_over_time');
  await panel.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const results = await scanScreen(page, 'over time');
  console.log(`axe over time: ${summary(results)}`);
  expect(blocking(results)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 720 });
  await panel.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'over-time-1280x720', panel);
});

test('a replay of a trace with timestamps: the x axis may be the trace clock; the CSV is the CLI\'s', async ({ page }) => {
  test.setTimeout(90_000);
  // fallback-steal's own trace, each event line given a timestamp 1 ms after the previous.
  let i = 0;
  const trace = runCli(['run', SCENARIO, '--format', 'trace'])
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      i += 1;
      return `  t-1 [000] ..... ${100 + Math.floor(i / 1000)}.${String((i % 1000) * 1000).padStart(6, '0')}: ${l}`;
    })
    .join('\n') + '\n';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-overtime-'));
  const file = path.join(dir, 'timed.trace');
  fs.writeFileSync(file, trace);
  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('trace-start')).toHaveValue('scenario');
  await page.getByTestId('trace-open').setInputFiles({ name: 'timed.trace', mimeType: 'text/plain', buffer: Buffer.from(trace) });
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of timed.trace');
  await jumpEnd(page);
  const panel = page.getByTestId('overtime');
  await panel.scrollIntoViewIfNeeded();
  await page.getByTestId('overtime-series').selectOption('fallbacks_over_time');
  await expect(page.getByTestId('overtime-axis')).toBeEnabled();
  await page.getByTestId('overtime-axis').selectOption('seconds');
  await expect(page.getByTestId('overtime-caption')).toHaveText(
    "fallbacks (claims, steals) over time, zone Normal (x: seconds since the trace's first event)",
  );
  await expect(panel.locator('.chart-legend li')).toHaveText(['claims per second', 'steals per second']);
  const want = runCli(['replay', file, '--scenario', SCENARIO, '--format', 'fallbacks_over_time']);
  expect(want.split('\n')[0]).toBe('trace_events,time_s,zone,claims,steals,claims_per_s,steals_per_s');
  const d = await download(page, 'overtime-csv');
  expect(d.bytes.toString('utf8')).toBe(want);
  const steals = want.trimEnd().split('\n').at(-1)!.split(',')[4];
  await expect(page.getByTestId('overtime-summary')).toContainText(`0 claims and ${steals} steals so far`);
});

test('page history: why pageblock 15 is mixed, each steal one click from its mm_page_alloc_extfrag', async ({ page }) => {
  await openApp(page, `?scenario=${ID}`);
  // The CLI's 30 steals, in order: the trace's mm_page_alloc_extfrag lines.
  const steals = runCli(['run', SCENARIO, '--format', 'trace'])
    .split('\n')
    .filter((l) => l.startsWith('mm_page_alloc_extfrag:'));
  expect(steals).toHaveLength(30);
  expect(steals[5]).toContain('pfn=0x1fc5 alloc_order=0 fallback_order=0');
  const history = page.getByTestId('page-history');
  await history.scrollIntoViewIfNeeded();
  await page.getByTestId('page-history-pfn').fill('0x1fc5');
  await page.getByTestId('page-history-show').click();
  // Before the steals the block holds no page of another type.
  await expect(page.getByTestId('page-history-mixing')).toHaveCount(0);
  await jumpEnd(page);
  await expect(page.getByTestId('page-history-mixing-headline')).toHaveText(
    'Pageblock 15 (Movable) holds 30 page(s) of another migratetype here. This page is one: Unmovable in a Movable pageblock.',
  );
  const causes = page.getByTestId('page-history-mix-cause');
  await expect(causes).toHaveCount(30);
  const mine = page.locator('[data-testid="page-history-mix-cause"].current');
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText('steal: an order-0 Unmovable allocation took an order-0 block off the Movable free list');
  const button = mine.getByTestId('page-history-mix-event');
  const at = await button.getAttribute('data-pos');
  await button.click();
  // The cursor is on the steal's tracepoint.
  await expect(page.getByTestId('position')).toContainText(`event ${at} /`);
  await expect(page.getByTestId('narration')).toContainText('mm_page_alloc_extfrag');
  await expect(page.getByTestId('narration')).toContainText('pfn=0x1fc5');
});
