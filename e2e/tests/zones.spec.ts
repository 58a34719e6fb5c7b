// A node of several zones: the zone tabs above the map pick the zone the map,
// free-list and pcp panels show; the numbers of the second zone match the CLI's /proc output.
import { test, expect, openApp, saveScreenshot, runCli } from '../fixtures';
import * as path from 'node:path';

const ID = 'dma32-machine';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

/** nr_free per order of each zone, from `--format buddyinfo --ops K` (one line per zone). */
function cliBuddyinfo(ops: number): Record<string, number[]> {
  const out = runCli(['run', FILE, '--format', 'buddyinfo', '--ops', String(ops)]);
  const zones: Record<string, number[]> = {};
  for (const line of out.trim().split('\n')) {
    const m = /^Node 0, zone\s+(\S+)\s+(.*)$/.exec(line);
    if (m) zones[m[1]] = m[2].trim().split(/\s+/).map(Number);
  }
  return zones;
}

/** CPU 0's pcp `count` per zone, from `--format zoneinfo --ops K`. */
function cliPcpCount(ops: number): Record<string, number> {
  const out = runCli(['run', FILE, '--format', 'zoneinfo', '--ops', String(ops)]);
  const counts: Record<string, number> = {};
  for (const part of out.split(/^Node 0, zone\s+/m).slice(1)) {
    const name = part.split('\n')[0].trim();
    counts[name] = Number(/^\s+count:\s+(-?\d+)/m.exec(part)![1]);
  }
  return counts;
}

async function appNrFree(page: import('@playwright/test').Page): Promise<number[]> {
  return page.evaluate(() =>
    [...Array(11).keys()].map((o) => Number(document.querySelector(`[data-testid="nr-free-${o}"]`)!.textContent)),
  );
}

test('zone tabs: each zone of the node shows its own free lists and pcp, as the CLI prints them', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, `?scenario=${ID}`);
  const name = JSON.parse(runCli(['builtin', ID])).name as string;
  await expect(page.getByTestId('scenario-name')).toHaveText(name);
  await expect(page.getByTestId('zone-tab-DMA32')).toBeVisible();
  await expect(page.getByTestId('zone-tab-Normal')).toBeVisible();
  // Before any op the engine works in Normal, the highest zone.
  await expect(page.getByTestId('zone-tab-Normal')).toHaveAttribute('aria-pressed', 'true');

  await page.getByTestId('jump-end').click();
  // "event N / N · op K / K" once at the end.
  const at = async () => /event (\d+) \/ (\d+) · (?:op (\d+)|before op 1) \/ (\d+)/.exec((await page.getByTestId('position').textContent()) ?? '');
  await expect.poll(async () => { const m = await at(); return m !== null && m[1] === m[2]; }).toBe(true);
  const ops = Number((await at())![4]);
  const want = cliBuddyinfo(ops);
  const pcp = cliPcpCount(ops);
  expect(Object.keys(want)).toEqual(['DMA32', 'Normal']);

  await page.getByTestId('zone-tab-DMA32').click();
  await expect(page.getByTestId('zone-tab-DMA32')).toHaveAttribute('aria-pressed', 'true');
  expect(await appNrFree(page)).toEqual(want['DMA32']);
  await expect(page.getByTestId('pcp-count-0')).toHaveText(String(pcp['DMA32']));
  await saveScreenshot(page, 'zones-dma32');

  await page.getByTestId('zone-tab-Normal').click();
  expect(await appNrFree(page)).toEqual(want['Normal']);
  await expect(page.getByTestId('pcp-count-0')).toHaveText(String(pcp['Normal']));

  // Mid-run, after the GFP_DMA32 THP (op 63): DMA32 has 832 free pages in the buddy lists.
  await page.getByTestId('jump-start').click();
  for (let i = 0; i < 63; i++) await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).toContainText(`op 63 / ${ops}`);
  await page.getByTestId('zone-tab-DMA32').click();
  const mid = cliBuddyinfo(63)['DMA32'];
  expect(await appNrFree(page)).toEqual(mid);
  expect(mid.reduce((s, n, o) => s + (n << o), 0)).toBe(832);
});

test('zone tabs: the charts follow the zone picked, like the map and the free lists', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('zone-tab-Normal')).toBeVisible();
  await page.getByTestId('jump-end').click();
  const free = page.getByTestId('chart-free-pages');
  const frag = page.getByTestId('chart-fragmentation');
  await free.scrollIntoViewIfNeeded();
  // Without a pick: the highest zone, where the engine is between ops.
  await expect(free).toHaveAttribute('data-zone', 'Normal');
  await expect(frag).toHaveAttribute('data-zone', 'Normal');
  await expect(page.getByTestId('charts')).toContainText('Free pages per order (log scale) over the ops done, zone Normal');
  const pixels = () => free.evaluate((c: HTMLCanvasElement) => c.toDataURL());
  const fragPixels = () => frag.evaluate((c: HTMLCanvasElement) => c.toDataURL());
  // The canvases are painted once on screen: wait for a drawing.
  const blank = await page.evaluate(() => { const c = document.createElement('canvas'); return c.toDataURL(); });
  await expect.poll(pixels).not.toBe(blank);
  await expect.poll(fragPixels).not.toBe(blank);
  const normal = await pixels();
  const normalFrag = await fragPixels();

  await page.getByTestId('zone-tab-DMA32').click();
  await expect(free).toHaveAttribute('data-zone', 'DMA32');
  await expect(frag).toHaveAttribute('data-zone', 'DMA32');
  await expect(page.getByTestId('charts')).toContainText('Fragmentation by order, after the ops done, zone DMA32');
  // DMA32's free pages over the ops are not Normal's: both charts are redrawn.
  await expect.poll(pixels).not.toBe(normal);
  await expect.poll(fragPixels).not.toBe(normalFrag);
  await saveScreenshot(page, 'zones-charts-dma32');

  await page.getByTestId('zone-tab-Normal').click();
  await expect(free).toHaveAttribute('data-zone', 'Normal');
  await expect.poll(pixels).toBe(normal);
});
