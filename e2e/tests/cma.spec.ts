// cma_alloc / cma_release in the app, against the CLI: the built-in
// cma-alloc-release steps to the allocation and into the release (its call chain and elixir
// link), the outcomes and the pageblock counts are the CLI's; the scenario editor runs the ops.
import { test, expect, openApp, runCli, cliPageblocks, appPageblocks } from '../fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ID = 'cma-alloc-release';
const FILE = path.join('engine', 'scenarios', `${ID}.json`);

/** The op outcomes of a scenario file, as `--format json` gives them. */
function cliOutcomes(file: string): string[] {
  const run = JSON.parse(runCli(['run', file, '--format', 'json']));
  return run.ops.map((o: { outcome: string }) => o.outcome);
}

test('cma-alloc-release: the allocation migrates, the release runs cma_release, as the CLI says', async ({ page }) => {
  const outcomes = cliOutcomes(FILE);
  expect(outcomes.length).toBe(10);
  expect(outcomes[8]).toBe('16384 pages at pfn 0x2000; 8 blocks migrated');

  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('position')).toContainText('event 0 /');
  for (let i = 0; i < 9; i++) await page.keyboard.press('PageDown');
  await expect(page.getByTestId('position')).toContainText('op 9 /');
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[8]);

  // Into the release: its call chain, pseudocode and elixir link name cma_release.
  const chain = page.getByTestId('call-chain');
  for (let i = 0; i < 5 && !((await chain.textContent()) ?? '').includes('cma_release'); i++) {
    await page.keyboard.press('ArrowRight');
  }
  await expect(chain).toContainText('cma_release');
  await expect(page.getByTestId('pseudocode')).toContainText('free_contig_frozen_range');
  await expect(page.getByTestId('elixir-link')).toHaveAttribute('href', /\/ident\/cma_release$/);

  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('position')).toContainText('op 10 /');
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[9]);
  const label = (await page.getByTestId('memory-map').getAttribute('aria-label')) ?? '';
  const app = appPageblocks(label);
  const cli = cliPageblocks(FILE, 10);
  expect(cli.CMA).toBe(32);
  for (const [name, n] of Object.entries(cli)) expect(app[name] ?? 0, name).toBe(n);
});

test('the scenario editor runs cma_alloc and cma_release, with the CLI outcomes', async ({ page }) => {
  const doc = {
    version: 1,
    name: 'cma ops in the editor',
    kernel: 'v7.1',
    zone: { pages: 4096, cma: true, cma_pageblocks: { start_pfn: 2048, nr_pages: 2048 } },
    ops: [
      { op: 'alloc', order: 5, mt: 'movable', as: 'data' },
      { op: 'cma_alloc', nr_pages: 1024, align: 9, as: 'buf' },
      { op: 'cma_release', ref: 'buf' },
    ],
  };
  const text = JSON.stringify(doc, null, 2);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cma-')), 'cma.json');
  fs.writeFileSync(file, text);
  const outcomes = cliOutcomes(file);

  await openApp(page);
  const editor = page.getByTestId('scenario-editor');
  await editor.fill(text);
  await page.getByTestId('scenario-run').click();
  await expect(page.getByTestId('scenario-name')).toHaveText('cma ops in the editor');
  await expect(page.getByTestId('scenario-error')).toHaveCount(0);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < 2; i++) await page.keyboard.press('PageDown');
  await expect(page.getByTestId('position')).toContainText('op 2 /');
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[1]);
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[2]);
  expect(outcomes[2]).toBe('1024 pages freed (page by page)');
});

test('cma-alloc-release in compare mode: 7.1 leaves pages on the pcp, 7.2 none, as the CLI per side', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, `?scenario=${ID}&compare=1`);
  await expect(page.getByTestId('compare-toggle')).toHaveAttribute('aria-pressed', 'true');
  for (let i = 0; i < 10; i++) await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('compare-position')).toContainText('op 10 / 10');
  for (const side of ['a', 'b'] as const) {
    await expect(page.getByTestId(`side-${side}`).getByTestId('side-progress')).toContainText('op 10 / 10 · op done');
    const zi = runCli(['run', FILE, '--side', side, '--format', 'zoneinfo']);
    const count = /^\s+count:\s+(\d+)/m.exec(zi)![1];
    await expect(page.getByTestId(`side-${side}`).getByTestId('pcp-count-0')).toHaveText(count);
  }
  await expect(page.getByTestId('side-a').getByTestId('pcp-count-0')).toHaveText('1376');
  await expect(page.getByTestId('side-b').getByTestId('pcp-count-0')).toHaveText('0');
  const m = page.getByTestId('compare-measured');
  await expect(m).toContainText('1406');
  await expect(m).toContainText('402');
});
