// Bounded work, never a frozen page: a scenario over the run limits is
// refused with its count, from the editor and from a share link, and the previous run stays; a
// long legal run goes to the run worker (the page's own wasm in a module worker) with a
// progress bar and Cancel while the page keeps handling input; Cancel keeps the previous run;
// a finished run is the CLI's run; it works under the sub-path deployment too.
import { test, expect, openApp, saveScreenshot, runCli, SUBPATH, subpathOrigin, NEEDS_BENCH_BUILD, type Page } from '../fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

/** `depth` nested repeats of `times` around `body` (JSON op objects). */
function nested(name: string, times: number, depth: number, body: object[]): string {
  let ops: object[] = body;
  for (let i = 0; i < depth; i++) ops = [{ op: 'repeat', times, ops }];
  return JSON.stringify({ version: 1, name, ops }, null, 2);
}

// 10^18 operations: three nested repeats of a million around one allocation.
const HUGE = nested('a quintillion allocations', 1_000_000, 3, [{ op: 'alloc', order: 0, mt: 'movable' }]);
const HUGE_COUNT = '1000000000000000000 operations';

// A long legal run: 300,000 × (alloc order 0, free) = 600,000 ops, under the recorded-run
// limit (1,000,000 ops), above the worker threshold (20,000); a few seconds in the worker.
const LONG_TIMES = 300_000;
const LONG = nested('a long run', LONG_TIMES, 1, [
  { op: 'alloc', order: 0, mt: 'movable', as: 'x' },
  { op: 'free', ref: 'x' },
]);
const LONG_OPS = 2 * LONG_TIMES;

/** Text of every free-list count cell (nr_free and each list). */
async function freeLists(page: Page): Promise<string[]> {
  return page.locator('[data-testid^="freelist-"], [data-testid^="nr-free-"]').allTextContents();
}

async function nrFree(page: Page): Promise<number[]> {
  const out: number[] = [];
  for (let o = 0; o <= 10; o++) out.push(Number(await page.getByTestId(`nr-free-${o}`).textContent()));
  return out;
}

async function runEditor(page: Page, text: string): Promise<void> {
  await page.getByTestId('scenario-editor').fill(text);
  await page.getByTestId('scenario-run').click();
}

/** A share link (`#s=1.<base64url(zlib(JSON))>`) for `text`, as app/src/share.rs writes it. */
function shareFragment(text: string): string {
  const payload = JSON.stringify({ text, id: 'custom', pos: 0, mode: 'single' });
  return `#s=1.${zlib.deflateSync(Buffer.from(payload)).toString('base64url')}`;
}

function positionText(page: Page) {
  return page.getByTestId('position');
}

test('a 10^18-op scenario is refused from the editor with the count; the previous run stays', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  await page.getByTestId('op-forward').click();
  const before = await freeLists(page);
  const pos = await positionText(page).textContent();
  await runEditor(page, HUGE);
  const refused = page.getByTestId('run-refused');
  await expect(refused).toContainText(HUGE_COUNT);
  await expect(refused).toContainText('the limit is 1000000 operations');
  await expect(refused).toContainText('lower the repeat times');
  await expect(page.getByTestId('run-progress')).toHaveCount(0);
  // The previous run, untouched and usable.
  await expect(positionText(page)).toHaveText(pos!);
  expect(await freeLists(page)).toEqual(before);
  await page.getByTestId('op-forward').click();
  await expect(positionText(page)).toContainText('op 2 /');
  await saveScreenshot(page, 'worker-refused');
});

test('a 10^18-op scenario in a share link is refused with the count; the default run is shown', async ({ page }) => {
  await page.goto(`/${shareFragment(HUGE)}`);
  await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
  await expect(page.getByTestId('run-refused')).toContainText(HUGE_COUNT);
  await expect(page.getByTestId('share-error')).toContainText(HUGE_COUNT);
  const name = JSON.parse(runCli(['builtin', 'free-contig-range-thp'])).name as string;
  await expect(page.getByTestId('scenario-name')).toHaveText(name);
  await page.getByTestId('op-forward').click();
  await expect(positionText(page)).toContainText('op 1 /');
});

/** Starts LONG from the editor and waits for its progress bar. */
async function startLong(page: Page) {
  await runEditor(page, LONG);
  const bar = page.getByTestId('run-progress');
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuemax', String(LONG_OPS));
  return bar;
}

test('a long run shows progress, the page responds meanwhile, and Cancel keeps the previous run', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, '?scenario=fallback-claim');
  await page.getByTestId('op-forward').click();
  const before = await freeLists(page);
  const pos = (await positionText(page).textContent())!;
  const total = /\/ (\d+) ·/.exec(pos)![1];

  const bar = await startLong(page);
  await expect(bar).toHaveAttribute('role', 'progressbar');
  await expect(page.getByTestId('run-memory')).toContainText('trace');
  // The page handles input during the run: a step forward moves the previous run's cursor,
  // and the progress bar is still there when it has.
  await page.getByTestId('step-forward').click();
  const during = await page.evaluate(() => {
    return new Promise<{ position: string; running: boolean }>((resolve) => {
      requestAnimationFrame(() =>
        resolve({
          position: document.querySelector('[data-testid="position"]')!.textContent!,
          running: document.querySelector('[data-testid="run-progress"]') !== null,
        }),
      );
    });
  });
  expect(during.running).toBe(true);
  expect(during.position).not.toBe(pos);
  expect(during.position).toContain(`/ ${total} ·`);
  const stepped = await freeLists(page);
  // The worker reports progress (ops done grows from 0).
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
  await saveScreenshot(page, 'worker-progress');

  await page.getByTestId('run-cancel').click();
  await expect(page.getByTestId('run-progress')).toHaveCount(0);
  // The previous run where it was, and fully usable; still so after the time the run takes.
  await expect(positionText(page)).toHaveText(during.position);
  expect(await freeLists(page)).toEqual(stepped);
  await page.waitForTimeout(3000);
  await expect(positionText(page)).toHaveText(during.position);
  await page.getByTestId('jump-start').click();
  await page.getByTestId('op-forward').click();
  await expect(positionText(page)).toHaveText(pos);
  expect(await freeLists(page)).toEqual(before);
});

test('a long run that finishes shows the new run at position 0, equal to the CLI', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page, '?scenario=fallback-claim');
  await startLong(page);
  await expect(page.getByTestId('run-progress')).toHaveCount(0, { timeout: 150_000 });
  await expect(page.getByTestId('scenario-name')).toHaveText('a long run', { timeout: 60_000 });
  await expect(page.getByTestId('run-error')).toHaveCount(0);
  await expect(positionText(page)).toContainText('event 0 /');
  await expect(positionText(page)).toContainText(`/ ${LONG_OPS}`);
  // What came back and in how many tasks: the memory line carries it (every build); the timings
  // are the bench build's (BENCHMARKS.md "Worker hand-over").
  const memory = page.getByTestId('run-memory');
  const bytes = Number(await memory.getAttribute('data-transfer-bytes'));
  const tasks = Number(await memory.getAttribute('data-transfer-tasks'));
  const timings = await page.evaluate(() => {
    const w = window as any;
    if (w.__buddyscope_transfer_page_ms === undefined) return null;
    const ms = (k: string) => Number(w[`__buddyscope_${k}`]).toFixed(0);
    return {
      text: `worker run ${ms('worker_run_ms')} ms, encode ${ms('transfer_encode_ms')} ms; on the page ` +
        `${ms('transfer_page_ms')} ms: copy ${ms('transfer_copy_ms')}, decode ${ms('transfer_decode_ms')}, ` +
        `build ${ms('transfer_build_ms')}, rebuild checkpoints ${ms('transfer_rebuild_ms')}, ` +
        `timeline ${ms('transfer_timeline_ms')}; over ${ms('transfer_wall_ms')} ms, the longest task ` +
        `${ms('transfer_longest_task_ms')} ms`,
      longest: Number(w.__buddyscope_transfer_longest_task_ms),
    };
  });
  const msg = `long run (${LONG_OPS} ops): ${(bytes / 1e6).toFixed(1)} MB transferred, read in ${tasks} tasks; ` +
    (timings ? timings.text : `timings: ${NEEDS_BENCH_BUILD}`);
  console.log(msg);
  test.info().annotations.push({ type: 'perf', description: msg });
  expect(bytes).toBeGreaterThan(0);
  // The page read the run in slices (a behaviour, not a timed assertion).
  expect(tasks).toBeGreaterThan(2);
  if (timings) expect(timings.longest).toBeGreaterThan(0);
  await expect(page.getByTestId('run-memory')).toContainText(/trace \d+(\.\d)? MiB/);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-worker-'));
  const file = path.join(dir, 'long.json');
  fs.writeFileSync(file, LONG);
  const cli = runCli(['run', file, '--format', 'buddyinfo']).trim().split(/\s+/).slice(-11).map(Number);
  await page.getByTestId('jump-end').click();
  await expect(positionText(page)).toContainText(`op ${LONG_OPS} / ${LONG_OPS}`);
  expect(await nrFree(page)).toEqual(cli);
  await saveScreenshot(page, 'worker-finished');
});

test('the run worker works under the sub-path deployment', async ({ page }) => {
  test.setTimeout(180_000);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(`${subpathOrigin()}${SUBPATH}?scenario=fallback-claim`);
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await startLong(page);
  await expect(page.getByTestId('run-progress')).toHaveCount(0, { timeout: 150_000 });
  await expect(page.getByTestId('scenario-name')).toHaveText('a long run', { timeout: 60_000 });
  await expect(page.getByTestId('run-error')).toHaveCount(0);
  expect(requests.filter((p) => !p.startsWith(SUBPATH))).toEqual([]);
  expect(requests).toContain(`${SUBPATH}run-worker.js`);
});

test.describe('a panic in the worker', () => {
  test.use({ allowErrors: true });
  test('is reported and the previous run stays', async ({ page }) => {
    await openApp(page, '?scenario=fallback-claim&debug-worker-panic');
    const before = await freeLists(page);
    await runEditor(page, LONG);
    await expect(page.getByTestId('run-error')).toContainText('debug panic requested');
    await expect(page.getByTestId('error-banner')).toHaveCount(0);
    expect(await freeLists(page)).toEqual(before);
    await page.getByTestId('op-forward').click();
    await expect(positionText(page)).toContainText('op 1 /');
  });
});
