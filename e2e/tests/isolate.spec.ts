// alloc_contig_range's pageblock isolation on the map: the isolated pageblocks
// show as Isolate while the op runs, at the event whose narration the CLI trace prints, and the
// counts after the op match the CLI.
import { test, expect, openApp, runCli, cliPageblocks, appPageblocks } from '../fixtures';
import * as path from 'node:path';

const ID = 'alloc-contig-range-migrates';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

test('alloc_contig_range: the map shows the isolated pageblocks while the op runs', async ({ page }) => {
  // The CLI's narration of the op: its first isolation line.
  const trace = runCli(['run', FILE, '--format', 'trace']);
  const op4 = trace.split('# op ops[4]')[1].split('# op ops[5]')[0];
  const first = /# (set_migratetype_isolate: pageblock \d+ \(pfn 0x[0-9a-f]+\) changes type \w+ → Isolate)/.exec(op4);
  expect(first).not.toBeNull();

  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('position')).toContainText('event 0 /');
  const map = page.getByTestId('memory-map');
  for (let i = 0; i < 4; i++) await page.keyboard.press('PageDown');
  await expect(page.getByTestId('position')).toContainText('op 4 /');
  expect(await map.getAttribute('aria-label')).not.toContain('Isolate');

  // Step event by event into the op until a pageblock is isolated.
  let label = '';
  for (let i = 0; i < 60 && !label.includes('Isolate'); i++) {
    await page.keyboard.press('ArrowRight');
    label = (await map.getAttribute('aria-label')) ?? '';
  }
  expect(appPageblocks(label).Isolate).toBe(1);
  await expect(page.getByTestId('narration')).toContainText(first![1]);
  // The legend has the Isolate frame.
  await expect(page.getByTestId('map-legend')).toContainText('Isolate');

  // The op's end: the isolation is undone, the counts are the CLI's.
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('position')).toContainText('op 5 /');
  await expect(page.getByTestId('op-outcome')).toHaveText('1024 pages at pfn 0x0; 3 blocks migrated');
  label = (await map.getAttribute('aria-label')) ?? '';
  const cli = cliPageblocks(FILE, 5);
  const app = appPageblocks(label);
  for (const [name, n] of Object.entries(cli)) expect(app[name] ?? 0, name).toBe(n);
  expect(app.Isolate ?? 0).toBe(0);
});
