// The kernel code, counters, charts and scenario panels (app/src/panels/), and that scenario
// text is always rendered as text. Counter names and values come from the CLI's JSON
// (`buddyscope run --format json`), never from a list written here.
import { test, expect, openApp, saveScreenshot, runCli, REPO_ROOT, type Page } from '../fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Downloads get a fresh browser context per test (playwright.config.ts reuses one): once, in
// the reused context, Chromium canceled a download mid-test ("download.path: canceled").
test.use({ reuseContext: false });

const SCENARIOS = path.join(REPO_ROOT, 'engine', 'scenarios');
const DEFAULT_FILE = path.join(SCENARIOS, 'free-contig-range-thp.json');

type CliRun = {
  totals: Record<string, number>;
  nr_free_pages: number;
  watermark_boost: number;
  ops: { cost: Record<string, number> }[];
};

function cliRun(file: string): CliRun {
  return JSON.parse(runCli(['run', file, '--format', 'json'])) as CliRun;
}

/** The engine's cost counters, in its order: the keys of the CLI's `totals`. */
const COUNTERS = Object.keys(cliRun(DEFAULT_FILE).totals);

/** Clicks a stepping button when the layout has it, else uses its keyboard shortcut. */
async function control(page: Page, testid: 'step-forward' | 'op-forward' | 'jump-end'): Promise<void> {
  const button = page.getByTestId(testid);
  if ((await button.count()) > 0) {
    await button.click();
  } else {
    const key = { 'step-forward': 'ArrowRight', 'op-forward': 'Shift+ArrowRight', 'jump-end': 'End' }[testid];
    await page.locator('body').press(key);
  }
}

async function counter(page: Page, name: string): Promise<number> {
  const text = (await page.getByTestId(`counter-${name}`).textContent()) ?? '';
  expect(text.trim(), `counter-${name}`).toMatch(/^-?\d+$/);
  return Number(text.trim());
}

/** Non-background pixels of a canvas (differing from its top-left pixel). */
async function inkedPixels(page: Page, testid: string): Promise<number> {
  return page.getByTestId(testid).evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d');
    if (!ctx || c.width === 0 || c.height === 0) return 0;
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 30) n++;
    }
    return n;
  });
}

/** A cheap fingerprint of a canvas' pixels. */
async function canvasHash(page: Page, testid: string): Promise<number> {
  return page.getByTestId(testid).evaluate((c: HTMLCanvasElement) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 1) h = (Math.imul(h, 31) + d[i]) | 0;
    return h;
  });
}

/** Text of every free-list count cell (the memory state the editor must not replace). */
async function freeListSnapshot(page: Page): Promise<string[]> {
  return page.locator('[data-testid^="freelist-"], [data-testid^="nr-free-"]').allTextContents();
}

async function setEditor(page: Page, text: string): Promise<void> {
  await page.getByTestId('scenario-editor').fill(text);
}

test.describe('pseudocode pane', () => {
  test('highlights the current line, dims the previous one and shows the call chain', async ({ page }) => {
    await openApp(page);
    const pane = page.getByTestId('pseudocode');
    await expect(pane).toBeVisible();
    await expect(page.getByTestId('pseudocode-current')).toHaveCount(0);
    // Keyboard first (the layout's shortcut), then the button.
    await page.locator('body').press('ArrowRight');
    await control(page, 'step-forward');
    await expect(page.getByTestId('pseudocode-current')).toHaveCount(1);
    await expect(page.getByTestId('pseudocode-current')).toHaveClass(/code-current/);
    const chain = page.getByTestId('call-chain');
    await expect(chain).toContainText('alloc_pages');
    // Step until a function has run two different lines: the earlier one is dimmed.
    for (let i = 0; i < 40 && (await page.getByTestId('pseudocode-previous').count()) === 0; i++) {
      await control(page, 'step-forward');
    }
    await expect(page.getByTestId('pseudocode-previous')).toHaveCount(1);
    await expect(page.getByTestId('pseudocode-current')).toHaveCount(1);
    // The innermost function of the chain is the one whose code is shown.
    const innermost = (await chain.locator('li').last().textContent())?.replace('→', '').trim();
    await expect(pane.locator('.code-func')).toHaveText(`${innermost}()`);
    await saveScreenshot(page, 'panels-pseudocode', pane);
  });

  test('shows the free_contig_range call chain while freeing', async ({ page }) => {
    await openApp(page);
    // ops[0].ops[2] is the first free_contig_range: after two ops, step into it.
    await control(page, 'op-forward');
    await control(page, 'op-forward');
    const chain = page.getByTestId('call-chain');
    for (let i = 0; i < 30 && !((await chain.textContent()) ?? '').includes('free_contig_range'); i++) {
      await control(page, 'step-forward');
    }
    await expect(chain).toContainText(/^free_contig_range → /);
    await expect(chain).toContainText('→');
  });

  test('links the function to elixir for the profile kernel', async ({ page }) => {
    await openApp(page);
    await control(page, 'step-forward');
    const link = page.getByTestId('elixir-link');
    await expect(link).toHaveAttribute('href', /elixir\.bootlin\.com\/linux\/v[0-9.]+\/A\/ident\//);
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', /noopener/);
  });
});

test.describe('counters', () => {
  test('change with the cursor and match the CLI at the end', async ({ page }) => {
    await openApp(page);
    for (const name of COUNTERS) {
      await expect(page.getByTestId(`counter-${name}`)).toHaveText('0');
    }
    await control(page, 'op-forward');
    // The first op allocates order 9: a zone lock, a split and a watermark check at least.
    await expect(page.getByTestId('counter-zone_lock')).not.toHaveText('0');
    expect(await counter(page, 'watermark_checks')).toBeGreaterThan(0);
    expect(await counter(page, 'pageblocks_touched')).toBe(1);

    const cli = cliRun(DEFAULT_FILE);
    const pcpOpsSum = cli.ops.reduce((s, o) => s + o.cost.pcp_ops, 0);
    expect(pcpOpsSum).toBe(cli.totals.pcp_ops);
    await control(page, 'jump-end');
    await expect(page.getByTestId('counter-pcp_ops')).toHaveText(String(pcpOpsSum));
    for (const name of COUNTERS) {
      expect(await counter(page, name), name).toBe(cli.totals[name]);
    }
    expect(await counter(page, 'nr_free_pages')).toBe(cli.nr_free_pages);
    expect(await counter(page, 'watermark_boost')).toBe(cli.watermark_boost);
    await saveScreenshot(page, 'panels-counters', page.getByTestId('counters'));
  });

  test('explain themselves in a tooltip', async ({ page }) => {
    await openApp(page);
    const shown = (await page.locator('[data-testid^="counter-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!)))
      .map((id) => id.replace(/^counter-/, ''));
    expect(shown.length).toBeGreaterThan(COUNTERS.length);
    for (const name of COUNTERS) expect(shown, 'every engine counter is on screen').toContain(name);
    for (const name of shown) {
      const item = page.locator('.counter', { has: page.getByTestId(`counter-${name}`) });
      const title = await item.getAttribute('title');
      expect(title?.length ?? 0, `${name} tooltip`).toBeGreaterThan(20);
    }
  });
});

test.describe('charts', () => {
  test('are drawn and follow the cursor', async ({ page }) => {
    await openApp(page);
    for (const id of ['chart-free-pages', 'chart-fragmentation', 'chart-cost']) {
      await expect.poll(() => inkedPixels(page, id), { message: id }).toBeGreaterThan(500);
    }
    const before = await canvasHash(page, 'chart-free-pages');
    await control(page, 'op-forward');
    await control(page, 'op-forward');
    await expect.poll(() => canvasHash(page, 'chart-free-pages')).not.toBe(before);
    // The cost chart names the top-level ops of the seed: per page, drain, chunked.
    await expect(page.getByTestId('chart-cost-groups')).toContainText('ops[0]');
    await expect(page.getByTestId('chart-cost-groups')).toContainText('ops[2]');
    await saveScreenshot(page, 'panels-charts', page.getByTestId('charts'));
  });

  test('and the memory map repaint together when the OS switches to dark in "auto"', async ({ page }) => {
    await openApp(page);
    await expect(page.getByTestId('theme-toggle')).toContainText('auto');
    await expect.poll(() => inkedPixels(page, 'memory-map')).toBeGreaterThan(500);
    const map = await canvasHash(page, 'memory-map');
    const chart = await canvasHash(page, 'chart-cost');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => canvasHash(page, 'memory-map')).not.toBe(map);
    await expect.poll(() => canvasHash(page, 'chart-cost')).not.toBe(chart);
  });

  test('redraw in the dark theme', async ({ page }) => {
    await openApp(page);
    const light = await canvasHash(page, 'chart-cost');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => canvasHash(page, 'chart-cost')).not.toBe(light);
    expect(await inkedPixels(page, 'chart-cost')).toBeGreaterThan(500);
  });
});

test.describe('scenarios', () => {
  test('the default is the free_contig_range story and every built-in loads', async ({ page }) => {
    await openApp(page);
    const select = page.getByTestId('scenario-select');
    await expect(select).toHaveValue('free-contig-range-thp');
    const ids = await select.locator('option:not([disabled])').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(ids.length).toBeGreaterThanOrEqual(9);
    for (const id of ids) {
      const doc = JSON.parse(fs.readFileSync(path.join(SCENARIOS, `${id}.json`), 'utf8'));
      await select.selectOption(id);
      await expect(page.getByTestId('scenario-title')).toHaveText(doc.name);
      await expect(page.getByTestId('scenario-description')).toContainText(doc.description ?? '');
      await expect(page.getByTestId('scenario-editor')).toHaveValue(/"version": 1/);
      expect(JSON.parse(await page.getByTestId('scenario-editor').inputValue()).name).toBe(doc.name);
    }
    await expect(page.getByTestId('scenario-error')).toHaveCount(0);
  });

  test('an invalid edit shows the error at the op and field and keeps the last good run', async ({ page }) => {
    await openApp(page);
    await control(page, 'op-forward');
    await control(page, 'op-forward');
    const lists = await freeListSnapshot(page);
    expect(lists.length, 'free-list cells (data-testid freelist-*)').toBeGreaterThan(0);
    const pcpOps = await counter(page, 'pcp_ops');
    const position = await page.getByTestId('position').textContent().catch(() => null);
    const editor = page.getByTestId('scenario-editor');
    const text = await editor.inputValue();
    await setEditor(page, text.replace('"order": 9', '"order": 11'));
    await page.getByTestId('scenario-run').click();
    const error = page.getByTestId('scenario-error');
    await expect(error).toBeVisible();
    await expect(error).toContainText('ops[');
    await expect(error).toContainText('order');
    await expect(error).toContainText(/line \d+/);
    // The offending field is selected in the editor.
    const selected = await editor.evaluate((t: HTMLTextAreaElement) => t.value.slice(t.selectionStart, t.selectionEnd));
    expect(selected).toContain('"order": 11');
    // Nothing else changed.
    expect(await freeListSnapshot(page)).toEqual(lists);
    expect(await counter(page, 'pcp_ops')).toBe(pcpOps);
    if (position !== null) await expect(page.getByTestId('position')).toHaveText(position);
    await expect(page.getByTestId('scenario-select')).toHaveValue('free-contig-range-thp');
    // The editor keeps the invalid text so it can be fixed.
    await expect(editor).toHaveValue(/"order": 11/);
    await saveScreenshot(page, 'panels-scenario-error', page.getByTestId('scenario'));
  });

  test('a syntax error is reported too', async ({ page }) => {
    await openApp(page);
    await setEditor(page, '{ "version": 1, ');
    await page.getByTestId('scenario-run').click();
    await expect(page.getByTestId('scenario-error')).toBeVisible();
    await expect(page.getByTestId('scenario-title')).toHaveText(/free_contig_range/);
  });

  test('a valid edit runs with Ctrl+Enter and matches the CLI', async ({ page }) => {
    await openApp(page);
    const text = fs.readFileSync(DEFAULT_FILE, 'utf8').replaceAll('"times": 16', '"times": 2').replace(/"name": "[^"]*"/, '"name": "Two rounds each"');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-panels-'));
    const file = path.join(tmp, 'edited.json');
    fs.writeFileSync(file, text);
    const cli = cliRun(file);
    await setEditor(page, text);
    await page.getByTestId('scenario-editor').press('Control+Enter');
    await expect(page.getByTestId('scenario-title')).toHaveText('Two rounds each');
    await expect(page.getByTestId('scenario-error')).toHaveCount(0);
    await expect(page.getByTestId('scenario-select')).toHaveValue('custom');
    await control(page, 'jump-end');
    for (const name of COUNTERS) {
      expect(await counter(page, name), name).toBe(cli.totals[name]);
    }
    // Fixing an error clears it.
    await setEditor(page, text.replace('"order": 9', '"order": 12'));
    await page.getByTestId('scenario-run').click();
    await expect(page.getByTestId('scenario-error')).toBeVisible();
    await setEditor(page, text);
    await page.getByTestId('scenario-run').click();
    await expect(page.getByTestId('scenario-error')).toHaveCount(0);
  });

  test('a file opens and runs', async ({ page }) => {
    await openApp(page);
    const doc = JSON.parse(fs.readFileSync(path.join(SCENARIOS, 'pcp-overflow-2cpu.json'), 'utf8'));
    doc.name = 'Uploaded from a file';
    await page.getByTestId('scenario-file').setInputFiles({
      name: 'mine.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(doc, null, 2)),
    });
    await expect(page.getByTestId('scenario-title')).toHaveText('Uploaded from a file');
    await expect(page.getByTestId('scenario-editor')).toHaveValue(/Uploaded from a file/);
    await expect(page.getByTestId('scenario-select')).toHaveValue('custom');
  });

  test('the scenario downloads as JSON', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('scenario-select').selectOption('fallback-claim');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('scenario-download').click()]);
    expect(download.suggestedFilename()).toBe('scenario.json');
    const body = fs.readFileSync(await download.path(), 'utf8');
    const doc = JSON.parse(body);
    const expected = JSON.parse(fs.readFileSync(path.join(SCENARIOS, 'fallback-claim.json'), 'utf8'));
    expect(doc).toEqual(expected);
  });
});

test('scenario names, descriptions and notes are rendered as text, never HTML', async ({ page }) => {
  await openApp(page);
  const evil = '<img src=x onerror="window.__xss=1">';
  const doc = JSON.parse(fs.readFileSync(DEFAULT_FILE, 'utf8'));
  doc.name = `XSS ${evil}`;
  doc.description = `A description with ${evil} and <b>bold</b> and **markdown**`;
  doc.ops[0].note = `note ${evil}`;
  doc.ops[1].note = `drain ${evil}`;
  await setEditor(page, JSON.stringify(doc, null, 2));
  await page.getByTestId('scenario-run').click();
  await expect(page.getByTestId('scenario-title')).toHaveText(`XSS ${evil}`);
  await expect(page.getByTestId('scenario-description')).toContainText(`A description with ${evil} and <b>bold</b>`);
  await expect(page.getByTestId('chart-cost-groups')).toContainText(`note ${evil}`);
  // Walk through the ops so narration and other views show the notes too.
  for (let i = 0; i < 5; i++) await control(page, 'op-forward');
  await control(page, 'jump-end');
  await expect(page.locator('img')).toHaveCount(0);
  await expect(page.locator('b', { hasText: 'bold' })).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await saveScreenshot(page, 'panels-xss');
});
