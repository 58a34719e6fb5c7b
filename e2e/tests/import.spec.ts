// "Your machine": a real machine's /proc/pagetypeinfo + zoneinfo pasted into the
// import form starts the run from that state. The free-list table equals the CLI's import of the
// same text; the zone select lists the paste's zones; the DMA32 zone (managed ≠ present) imports
// with the fallback named; a broken paste names its line and column and keeps the last good run.
import { test, expect, openApp, saveScreenshot, runCli, REPO_ROOT, type Page } from '../fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const FIXTURES = path.join(REPO_ROOT, 'engine', 'tests', 'fixtures');
const PTI = fs.readFileSync(path.join(FIXTURES, 'machine-6.18-pagetypeinfo.txt'), 'utf8');
const ZI = fs.readFileSync(path.join(FIXTURES, 'machine-6.18-zoneinfo.txt'), 'utf8');
const MTS = ['unmovable', 'movable', 'reclaimable', 'highatomic', 'isolate'];
const KERNEL_NAMES: Record<string, string> = {
  Unmovable: 'unmovable',
  Movable: 'movable',
  Reclaimable: 'reclaimable',
  HighAtomic: 'highatomic',
  Isolate: 'isolate',
};

/**
 * The CLI's import of the same text: `buddyscope run` on a scenario with that `init`, printed as
 * `--format pagetypeinfo --ops 0`, read back as counts[mt][order].
 */
function cliCounts(zone: string, withZoneinfo: boolean): Record<string, number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-import-'));
  const file = path.join(dir, 'machine.json');
  const init: Record<string, string> = { pagetypeinfo: PTI, zone };
  if (withZoneinfo) init.zoneinfo = ZI;
  fs.writeFileSync(file, JSON.stringify({ version: 1, zone: { name: zone, cpus: 2 }, init, ops: [] }));
  const out = runCli(['run', file, '--format', 'pagetypeinfo', '--ops', '0']);
  const counts: Record<string, number[]> = {};
  for (const line of out.split('\n')) {
    const m = /^Node\s+0, zone\s+(\S+), type\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    expect(m[1]).toBe(zone);
    counts[KERNEL_NAMES[m[2]]] = m[3].trim().split(/\s+/).map(Number);
  }
  expect(Object.keys(counts).sort()).toEqual([...MTS].sort());
  return counts;
}

/** The app's free-list table, counts[mt][order]. */
async function appCounts(page: Page): Promise<Record<string, number[]>> {
  return page.evaluate((mts) => {
    const out: Record<string, number[]> = {};
    for (const mt of mts) {
      out[mt] = [...Array(11).keys()].map((o) =>
        Number(document.querySelector(`[data-testid="freelist-${o}-${mt}"]`)?.textContent ?? 'NaN'),
      );
    }
    return out;
  }, MTS);
}

async function openForm(page: Page) {
  await openApp(page);
  await page.getByTestId('proc-open').click();
  await expect(page.getByTestId('proc-pagetypeinfo')).toBeVisible();
}

async function paste(page: Page, pti: string, zi = '') {
  await page.getByTestId('proc-pagetypeinfo').fill(pti);
  await page.getByTestId('proc-zoneinfo').fill(zi);
}

async function importAndWait(page: Page) {
  await page.getByTestId('proc-import').click();
  await expect(page.getByTestId('proc-summary')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('proc-error')).toHaveCount(0);
}

test('the form shows the commands, labels its fields and lists the paste zones', async ({ page }) => {
  await openForm(page);
  const commands = page.getByTestId('proc-commands');
  await expect(commands).toContainText('sudo cat /proc/pagetypeinfo');
  await expect(commands).toContainText('cat /proc/zoneinfo');
  await expect(commands).toContainText('cat /proc/buddyinfo');
  // Every text area and the select have an accessible name.
  await expect(page.getByLabel('/proc/pagetypeinfo', { exact: true })).toHaveAttribute('data-testid', 'proc-pagetypeinfo');
  await expect(page.getByLabel('/proc/zoneinfo (optional)')).toHaveAttribute('data-testid', 'proc-zoneinfo');
  await expect(page.getByLabel('/proc/buddyinfo, a cross-check (optional)')).toHaveAttribute('data-testid', 'proc-buddyinfo');
  await expect(page.getByLabel('Zone', { exact: true })).toHaveAttribute('data-testid', 'proc-zone');
  // The select fills as the user pastes: the paste's zones, Normal by default.
  await expect(page.getByTestId('proc-zone')).toBeDisabled();
  await page.getByTestId('proc-pagetypeinfo').fill(PTI);
  const zone = page.getByTestId('proc-zone');
  await expect(zone.locator('option')).toHaveText(['DMA', 'DMA32', 'Normal']);
  await expect(zone).toHaveValue('Normal');
  // Only the DMA rows: the select follows.
  const dmaOnly = PTI.split('\n')
    .filter((l) => !/zone\s+(DMA32|Normal)/.test(l))
    .join('\n');
  await page.getByTestId('proc-pagetypeinfo').fill(dmaOnly);
  await expect(zone.locator('option')).toHaveText(['DMA']);
  await expect(zone).toHaveValue('DMA');
});

test('the pasted Normal zone shows the CLI import counts at position 0', async ({ page }) => {
  await openForm(page);
  // Move away from the start of the default run first.
  await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).not.toHaveText(/^event 0 \//);
  await paste(page, PTI, ZI);
  await importAndWait(page);
  await expect(page.getByTestId('position')).toHaveText(/^event 0 \//);
  await expect(page.getByTestId('scenario-name')).toContainText('Your machine: zone Normal');
  const cli = cliCounts('Normal', true);
  expect(await appCounts(page)).toEqual(cli);
  expect(cli.movable[0]).toBe(16417);
  // The summary: pageblocks per type, free pages per order, no fallback.
  await expect(page.getByTestId('proc-summary-pageblocks-movable')).toHaveText('3446');
  await expect(page.getByTestId('proc-summary-free-10')).toHaveText(String(34 * 1024));
  await expect(page.getByTestId('proc-summary-zones')).toContainText('DMA32 (node 0, 1528 pageblocks');
  await expect(page.getByTestId('proc-fallback')).toHaveCount(0);
  await saveScreenshot(page, 'import-normal', page.getByTestId('proc-import-panel'));
  // The import is an ordinary scenario: the editor holds it, init and all.
  const editor = page.getByTestId('scenario-editor');
  if ((await editor.count()) > 0) {
    await expect(editor).toHaveValue(/"pagetypeinfo": "Page block order: 9/);
  }
});

test('DMA32 (managed ≠ present) and DMA import with the fallback named', async ({ page }) => {
  await openForm(page);
  await paste(page, PTI, ZI);
  await page.getByTestId('proc-zone').selectOption('DMA32');
  await importAndWait(page);
  const fallback = page.getByTestId('proc-fallback');
  await expect(fallback).toHaveCount(1);
  await expect(fallback).toContainText('zone size 782336 pages');
  await expect(fallback).toContainText("not zoneinfo's managed 772917");
  expect(await appCounts(page)).toEqual(cliCounts('DMA32', true));
  // The CLI says the same on standard error (its stdout stays the kernel's format).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-import-'));
  const file = path.join(dir, 'dma32.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ version: 1, zone: { name: 'DMA32' }, init: { pagetypeinfo: PTI, zoneinfo: ZI, zone: 'DMA32' } }),
  );
  expect(runCli(['check', file])).toContain("note: init: zone size 782336 pages (the pageblock counts × 512), not zoneinfo's managed 772917");

  await page.getByTestId('proc-zone').selectOption('DMA');
  await importAndWait(page);
  await expect(page.getByTestId('proc-summary')).toContainText('Imported zone DMA of node 0: 3840 pages');
  await expect(page.getByTestId('proc-fallback')).toContainText('dense placement');
  expect(await appCounts(page)).toEqual(cliCounts('DMA', true));
});

test('a broken paste names its line and column and keeps the last good run', async ({ page }) => {
  await openForm(page);
  const before = await appCounts(page);
  const position = await page.getByTestId('position').textContent();
  // Line 11 is DMA32's Movable row; its order-0 count becomes "x".
  const lines = PTI.split('\n');
  expect(lines[10]).toContain('zone    DMA32, type      Movable');
  const col = lines[10].indexOf('Movable') + 'Movable'.length + 6 + 1;
  expect(lines[10][col - 1]).toBe('1');
  lines[10] = lines[10].slice(0, col - 1) + 'x' + lines[10].slice(col);
  await paste(page, lines.join('\n'), ZI);
  await page.getByTestId('proc-import').click();
  const error = page.getByTestId('proc-error');
  await expect(error).toContainText(`pagetypeinfo, line 11, column ${col}: the free count "x" is not a number`);
  // The message sits in a live region.
  await expect(page.locator('.proc-error-region')).toHaveAttribute('aria-live', 'assertive');
  // The offending token is selected in the text area.
  const selected = await page.getByTestId('proc-pagetypeinfo').evaluate((t: HTMLTextAreaElement) =>
    t.value.slice(t.selectionStart, t.selectionEnd),
  );
  expect(selected).toBe('x');
  expect(await appCounts(page)).toEqual(before);
  await expect(page.getByTestId('position')).toHaveText(position ?? '');
  await expect(page.getByTestId('proc-summary')).toHaveCount(0);

  // A zoneinfo error names its line too; an import after a good paste clears the error.
  await paste(page, PTI, ZI.replace(/managed {2}1867776/, 'managed  18677x6'));
  await page.getByTestId('proc-import').click();
  await expect(error).toContainText(/^Not imported: zoneinfo, line \d+, column \d+: managed "18677x6" is not a number/);
  await paste(page, PTI, ZI);
  await importAndWait(page);
});

test('files picked or dropped into the text areas, and the buddyinfo cross-check', async ({ page }) => {
  await openForm(page);
  await page.getByTestId('proc-pagetypeinfo-file').setInputFiles({
    name: 'pagetypeinfo.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from(PTI),
  });
  await expect(page.getByTestId('proc-pagetypeinfo')).toHaveValue(PTI);
  // A file dropped on a text area fills it.
  const dropped = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'zoneinfo.txt', { type: 'text/plain' }));
    return dt;
  }, ZI);
  await page.getByTestId('proc-zoneinfo').dispatchEvent('drop', { dataTransfer: dropped });
  await expect(page.getByTestId('proc-zoneinfo')).toHaveValue(ZI);
  await page.getByTestId('proc-zone').selectOption('DMA');
  // This machine's buddyinfo, as pagetypeinfo says it (DMA), and one order off.
  const bi = 'Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n';
  await page.getByTestId('proc-buddyinfo').fill(bi);
  await importAndWait(page);
  await expect(page.getByTestId('proc-buddyinfo-check')).toHaveText('buddyinfo agrees with pagetypeinfo at every order.');
  await page.getByTestId('proc-buddyinfo').fill(bi.replace('1      3 ', '1      2 '));
  await importAndWait(page);
  await expect(page.getByTestId('proc-buddyinfo-check')).toContainText('order 10: buddyinfo has 2 free blocks, pagetypeinfo 3');
});

test('the form and its summary cause no horizontal scroll at 1024×768', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await openForm(page);
  await paste(page, PTI, ZI);
  await page.getByTestId('proc-zone').selectOption('DMA32');
  await importAndWait(page);
  const panel = page.getByTestId('proc-import-panel');
  await panel.scrollIntoViewIfNeeded();
  const box = await panel.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(1024);
  const overflow = await panel.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const page_overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(page_overflow).toBeLessThanOrEqual(0);
  await saveScreenshot(page, 'import-1024', panel);
});
