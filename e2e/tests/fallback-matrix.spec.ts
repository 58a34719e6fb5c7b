// The fallback matrix panel: every cell (claims/steals) is what `buddyscope run ID --format
// fallback_matrix` prints, with and without its --orders / --events filters, for a run and for
// the replay of its trace; a cell lists its events and a click seeks the run to one; axe finds no
// serious or critical violation with the list open.
import { test, expect, openApp, runCli, saveScreenshot, type Page } from '../fixtures';
import { scanScreen, blocking, summary } from './support/axe';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function scenarioPath(id: string): string {
  return path.join('engine', 'scenarios', `${id}.json`);
}

/** claims + steals of a `claims/steals` cell. */
function total(cell: string): number {
  return cell.split('/').map(Number).reduce((a, b) => a + b, 0);
}

type Matrix = { header: string; cells: Record<string, string> };

/** The CLI's table: its header line and `FROM-TO` → `claims/steals`. */
function parseCli(out: string): Matrix {
  const lines = out.trimEnd().split('\n');
  const types = lines[1].trim().split(/\s+/).slice(3); // after "from \ to"
  const cells: Record<string, string> = {};
  for (const row of lines.slice(2)) {
    const [from, ...vals] = row.trim().split(/\s+/);
    vals.forEach((v, i) => (cells[`${from}-${types[i]}`] = v));
  }
  return { header: lines[0], cells };
}

function cliMatrix(id: string, extra: string[] = []): Matrix {
  return parseCli(runCli(['run', scenarioPath(id), '--format', 'fallback_matrix', ...extra]));
}

async function panelMatrix(page: Page): Promise<Matrix> {
  const panel = page.getByTestId('fallback-matrix');
  const header = (await panel.getByTestId('fallback-summary').textContent()) ?? '';
  const cells = await panel.evaluate((el) => {
    const out: Record<string, string> = {};
    el.querySelectorAll<HTMLElement>('[data-testid^="fallback-cell-"]').forEach((c) => {
      const key = c.dataset.testid!.slice('fallback-cell-'.length);
      out[key] = `${c.dataset.claims}/${c.dataset.steals}`;
      if (c.textContent !== out[key]) out[key] += ` (shows ${c.textContent})`;
    });
    return out;
  });
  return { header, cells };
}

async function expectPanel(page: Page, want: Matrix) {
  await expect(page.getByTestId('fallback-summary')).toHaveText(want.header);
  expect(await panelMatrix(page)).toEqual(want);
}

async function filter(page: Page, orders: string, events: string) {
  await page.getByTestId('fallback-orders').fill(orders);
  await page.getByTestId('fallback-events-range').fill(events);
  await page.getByTestId('fallback-apply').click();
}

for (const id of ['fallback-steal', 'fallback-claim']) {
  test(`${id}: every cell is the CLI's, filtered too; a cell's event seeks the run`, async ({ page }) => {
    await openApp(page, `?scenario=${id}`);
    const name = JSON.parse(runCli(['builtin', id])).name as string;
    await expect(page.getByTestId('scenario-name')).toHaveText(name);
    const panel = page.getByTestId('fallback-matrix');
    await panel.scrollIntoViewIfNeeded();
    const all = cliMatrix(id);
    await expectPanel(page, all);

    // The busiest cell: its events, the first one seeks the run to it.
    const [key, value] = Object.entries(all.cells).sort((a, b) => total(b[1]) - total(a[1]))[0];
    const [claims, steals] = value.split('/').map(Number);
    expect(claims + steals).toBeGreaterThan(0);
    await panel.getByTestId(`fallback-cell-${key}`).click();
    const events = panel.getByTestId('fallback-event');
    await expect(events).toHaveCount(claims + steals);
    await expect(events.filter({ hasText: ' claim ' })).toHaveCount(claims);
    const pos = Number(await events.first().getAttribute('data-pos'));
    await events.first().click();
    await expect(page.getByTestId('position')).toContainText(`event ${pos} /`);

    // The time range: up to the cursor (events 0..pos-1) holds exactly that first fallback of
    // the cell; the CLI agrees.
    await page.getByTestId('fallback-to-cursor').click();
    await expect(page.getByTestId('fallback-events-range')).toHaveValue(`0-${pos - 1}`);
    const upTo = cliMatrix(id, ['--events', `0-${pos - 1}`]);
    await expectPanel(page, upTo);
    expect(total(upTo.cells[key])).toBe(1);

    // An order range past every request empties the matrix, as the CLI's --orders does.
    await filter(page, '10', '');
    await expectPanel(page, cliMatrix(id, ['--orders', '10']));
    // Bad text gets the CLI's message.
    await filter(page, '3-1', '');
    await expect(panel.getByTestId('fallback-error')).toHaveText('--orders 3-1: 3 is above 1');
    await filter(page, '', '');
    await expectPanel(page, all);

    await panel.getByTestId(`fallback-cell-${key}`).click();
    const results = await scanScreen(page, `fallback matrix ${id}`);
    console.log(`axe fallback matrix ${id}: ${summary(results)}`);
    expect(blocking(results)).toEqual([]);
    for (const [w, h] of [[1280, 720], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      await panel.scrollIntoViewIfNeeded();
      await saveScreenshot(page, `fallback-matrix-${id}-${w}x${h}`, panel);
    }
  });
}

test('the replay of fallback-steal\'s trace: the cells are the CLI replay\'s', async ({ page }) => {
  test.setTimeout(90_000);
  const id = 'fallback-steal';
  const trace = runCli(['run', scenarioPath(id), '--format', 'trace']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-fallback-'));
  const file = path.join(dir, 'trace.txt');
  fs.writeFileSync(file, trace);
  const want = parseCli(
    runCli(['replay', file, '--scenario', scenarioPath(id), '--format', 'fallback_matrix']),
  );
  await openApp(page, `?scenario=${id}`);
  await expect(page.getByTestId('trace-start')).toHaveValue('scenario');
  await page.getByTestId('trace-open').setInputFiles({ name: 'steal.trace', mimeType: 'text/plain', buffer: Buffer.from(trace) });
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of steal.trace');
  await page.getByTestId('fallback-matrix').scrollIntoViewIfNeeded();
  await expectPanel(page, want);
  expect(want.cells['Movable-Unmovable']).toBe('0/30');
});
