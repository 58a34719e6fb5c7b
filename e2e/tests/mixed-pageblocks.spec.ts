// Mixed pageblocks: at the end of fallback-steal (and of the replay of its trace) the panel's
// blocks and holders are what `buddyscope run|replay --format mixed_pageblocks|polluters`
// prints; before the first op there are none; axe finds no serious or critical violation.
import { test, expect, openApp, runCli, saveScreenshot, type Page } from '../fixtures';
import { scanScreen, blocking, summary } from './support/axe';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ID = 'fallback-steal';
const SCENARIO = path.join('engine', 'scenarios', `${ID}.json`);

/** The CLI's per-block lines, as the panel words them: [block, pfn, type, foreign]. */
function cliBlocks(out: string): string[][] {
  return out
    .split('\n')
    .map((l) => /^zone (\S+) pageblock (\d+) \(pfn (0x[0-9a-f]+)\) (\S+): (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [
      `${m[1]} ${m[2]}`,
      m[3],
      m[4],
      m[5]
        .split(', ')
        .map((t) => t.replace(/^(\S+) (\d+) allocated (\d+) free$/, '$1 $2 allocated, $3 free'))
        .join('; '),
    ]);
}

/** The CLI's polluter rows: [pages, blocks, page type, in blocks, holder]. */
function cliPolluters(out: string): string[][] {
  return out
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => {
      const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(l)!;
      return m.slice(1, 6);
    });
}

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.getByTestId(testid).evaluate((t, id) =>
    [...document.querySelectorAll(`[data-testid="${id}"]`)].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
    ), testid === 'mixed-blocks' ? 'mixed-block' : 'polluter');
}

async function jumpEnd(page: Page) {
  await page.getByTestId('jump-end').click();
  const pos = (await page.getByTestId('position').textContent()) ?? '';
  const m = /event (\d+) \/ (\d+)/.exec(pos);
  expect(m, pos).not.toBeNull();
  expect(m![1]).toBe(m![2]);
}

test('fallback-steal: the mixed block and its holders are the CLI\'s', async ({ page }) => {
  await openApp(page, `?scenario=${ID}`);
  const name = JSON.parse(runCli(['builtin', ID])).name as string;
  await expect(page.getByTestId('scenario-name')).toHaveText(name);
  const panel = page.getByTestId('pollution');
  await panel.scrollIntoViewIfNeeded();
  await expect(panel.getByTestId('mixed-empty')).toBeVisible();
  await jumpEnd(page);
  const want = cliBlocks(runCli(['run', SCENARIO, '--format', 'mixed_pageblocks']));
  expect(want.length).toBeGreaterThan(0);
  await expect(panel.getByTestId('mixed-block')).toHaveCount(want.length);
  expect(await rows(page, 'mixed-blocks')).toEqual(want);
  expect(await rows(page, 'polluters')).toEqual(cliPolluters(runCli(['run', SCENARIO, '--format', 'polluters'])));

  // Centred: no control of the panel above sits half under the sticky header while axe looks.
  await panel.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const results = await scanScreen(page, 'mixed pageblocks');
  console.log(`axe mixed pageblocks: ${summary(results)}`);
  expect(blocking(results)).toEqual([]);
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    await panel.scrollIntoViewIfNeeded();
    await saveScreenshot(page, `mixed-pageblocks-${w}x${h}`, panel);
  }
});

test('the replay of fallback-steal\'s trace: the holders are the traced allocations, as the CLI says', async ({ page }) => {
  test.setTimeout(90_000);
  const trace = runCli(['run', SCENARIO, '--format', 'trace']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-mixed-'));
  const file = path.join(dir, 'trace.txt');
  fs.writeFileSync(file, trace);
  const blocks = cliBlocks(runCli(['replay', file, '--scenario', SCENARIO, '--format', 'mixed_pageblocks']));
  const holders = cliPolluters(runCli(['replay', file, '--scenario', SCENARIO, '--format', 'polluters']));
  expect(holders[0][4]).toContain('gfp=');
  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('trace-start')).toHaveValue('scenario');
  await page.getByTestId('trace-open').setInputFiles({ name: 'steal.trace', mimeType: 'text/plain', buffer: Buffer.from(trace) });
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of steal.trace');
  await jumpEnd(page);
  await page.getByTestId('pollution').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('mixed-block')).toHaveCount(blocks.length);
  expect(await rows(page, 'mixed-blocks')).toEqual(blocks);
  expect(await rows(page, 'polluters')).toEqual(holders);
});

test('the map\'s mixed-pageblock overlay marks the CLI\'s mixed blocks, by how much and which type', async ({ page }) => {
  await openApp(page, `?scenario=${ID}`);
  const map = page.getByTestId('memory-map');
  const toggle = page.getByTestId('map-mixed');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(map).not.toHaveAttribute('data-mixed', /./);
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  // Before the first op nothing is mixed.
  await expect(map).toHaveAttribute('data-mixed', '');
  await jumpEnd(page);
  // "zone Normal pageblock 15 (pfn 0x1e00) Movable: Unmovable 5 allocated 25 free" → 15:Unmovable:30.
  const want = runCli(['run', SCENARIO, '--format', 'mixed_pageblocks'])
    .split('\n')
    .map((l) => /^zone \S+ pageblock (\d+) \(pfn 0x[0-9a-f]+\) \S+: (\S+) (\d+) allocated (\d+) free$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]}:${m[2]}:${Number(m[3]) + Number(m[4])}`)
    .join(' ');
  expect(want).toBe('15:Unmovable:30');
  await expect(map).toHaveAttribute('data-mixed', want);
  await map.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'mixed-overlay', map);
  await toggle.click();
  await expect(map).not.toHaveAttribute('data-mixed', /./);
});
