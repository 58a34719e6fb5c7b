// Trace replay in the app: a trace the CLI printed plays to the CLI's final state with
// no divergence; a deliberate inconsistency shows exactly one divergence (scrubber marker and list
// entry); a broken trace names its line and keeps the last good run.
import { test, expect, openApp, saveScreenshot, runCli, REPO_ROOT, type Page } from '../fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

const ORDERS = [...Array(11).keys()];

function scenarioPath(id: string): string {
  return path.join('engine', 'scenarios', `${id}.json`);
}

/** `buddyscope run <builtin> --format trace`. */
function cliTrace(id: string): string {
  return runCli(['run', scenarioPath(id), '--format', 'trace']);
}

/** The trace in a temporary file, for the CLI's `replay`. */
function tempTrace(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-replay-'));
  const file = path.join(dir, 'trace.txt');
  fs.writeFileSync(file, text);
  return file;
}

/** The last 11 numbers of a buddyinfo line: nr_free per order. */
function buddyinfo(out: string): number[] {
  return out.trim().split(/\s+/).map(Number).filter((n) => Number.isFinite(n)).slice(-11);
}

async function appNrFree(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...Array(11).keys()].map((o) => Number(document.querySelector(`[data-testid="nr-free-${o}"]`)!.textContent)),
  );
}

async function appListSums(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...Array(11).keys()].map((o) => {
      let sum = 0;
      document.querySelectorAll(`[data-testid^="freelist-${o}-"]`).forEach((el) => (sum += Number(el.textContent)));
      return sum;
    }),
  );
}

async function openTrace(page: Page, name: string, text: string) {
  await page.getByTestId('trace-open').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
}

async function jumpEnd(page: Page) {
  await page.getByTestId('jump-end').click();
  const pos = (await page.getByTestId('position').textContent()) ?? '';
  const m = /event (\d+) \/ (\d+)/.exec(pos);
  expect(m, pos).not.toBeNull();
  expect(m![1]).toBe(m![2]);
}

test('a trace the CLI printed replays to the same free lists, without divergences', async ({ page }) => {
  test.setTimeout(90_000);
  const id = 'pcp-overflow-2cpu';
  const trace = cliTrace(id);
  const file = tempTrace(trace);
  const replayed = buddyinfo(runCli(['replay', file, '--scenario', scenarioPath(id), '--format', 'buddyinfo']));
  const ran = buddyinfo(runCli(['run', scenarioPath(id), '--format', 'buddyinfo']));
  expect(replayed).toEqual(ran);

  await openApp(page, `?scenario=${id}`);
  await expect(page.getByTestId('trace-start')).toHaveValue('scenario');
  await openTrace(page, 'pcp.trace', trace);
  const summary = page.getByTestId('replay-summary');
  await expect(summary).toBeVisible();
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of pcp.trace');
  await expect(page.getByTestId('replay-divergence-count')).toHaveText('0');
  await expect(page.getByTestId('replay-no-divergence')).toBeVisible();
  await expect(page.getByTestId('scrub-divergence')).toHaveCount(0);
  const events = Number(await page.getByTestId('replay-events').textContent());
  expect(events).toBe(trace.split('\n').filter((l) => /^mm_page_|^# (free_prepared|alloc_contig)/.test(l)).length);
  await expect(page.getByTestId('position')).toContainText('event 0 /');

  await jumpEnd(page);
  expect(await appNrFree(page)).toEqual(ran);
  expect(await appListSums(page)).toEqual(ran);
  expect(ORDERS.length).toBe(11);
  await page.getByTestId('replay-summary').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'replay-round-trip');
  await saveScreenshot(page, 'replay-summary-panel', summary);
});

test('a deliberate inconsistency is exactly one divergence, marked and listed', async ({ page }) => {
  test.setTimeout(90_000);
  const id = 'fallback-claim';
  let trace = cliTrace(id);
  // The first traced allocation, again at the end: its block is allocated in the model.
  const first = trace.split('\n').find((l) => l.startsWith('mm_page_alloc:'))!;
  trace += `${first}\n`;
  const cli = JSON.parse(runCli(['replay', tempTrace(trace), '--scenario', scenarioPath(id), '--format', 'json']));
  expect(cli.replay.divergence_count).toBe(1);
  const kind = cli.replay.divergences[0].kind as string;

  await openApp(page, `?scenario=${id}`);
  await openTrace(page, 'bad.trace', trace);
  await expect(page.getByTestId('replay-divergence-count')).toHaveText('1');
  const markers = page.getByTestId('scrub-divergence');
  await expect(markers).toHaveCount(1);
  await expect(markers.first()).toHaveAttribute('title', new RegExp(`line ${cli.replay.divergences[0].line}: ${kind}`));
  const items = page.getByTestId('replay-divergence');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText(kind);
  await items.first().click();
  // The button seeks to just after the divergence's warning event.
  await expect(page.getByTestId('position')).toContainText(`event ${cli.replay.divergences[0].event + 1} /`);
  await expect(page.getByTestId('replay-fallbacks')).toContainText('Movable → Unmovable claim: 1');
  await expect(page.getByTestId('replay-model')).toContainText('first difference: line');
  await saveScreenshot(page, 'replay-divergence', page.locator('.timebar'));
  await saveScreenshot(page, 'replay-divergence-list', page.getByTestId('replay-divergences'));
});

test('a broken trace names its line and keeps the last good run', async ({ page }) => {
  test.setTimeout(60_000);
  const id = 'pcp-overflow-2cpu';
  await openApp(page, `?scenario=${id}`);
  await openTrace(page, 'good.trace', cliTrace(id));
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of good.trace');
  const events = await page.getByTestId('replay-events').textContent();
  const broken = [
    '# tracer: nop',
    '#',
    '   bash-1234  [000] .....  10.000001: mm_page_alloc: page=0xffffea0000000000 pfn=0xzz order=0 migratetype=1 gfp_flags=GFP_KERNEL',
    '',
  ].join('\n');
  await openTrace(page, 'broken.trace', broken);
  const err = page.getByTestId('trace-error');
  await expect(err).toBeVisible();
  await expect(err).toContainText('broken.trace');
  await expect(err).toContainText('line 3');
  // The last good run stays.
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of good.trace');
  await expect(page.getByTestId('replay-events')).toHaveText(events ?? '');
  await saveScreenshot(page, 'replay-broken', page.getByTestId('trace-error'));
});

test('boot defaults as the start state', async ({ page }) => {
  await openApp(page, '?scenario=pcp-overflow-2cpu');
  await page.getByTestId('trace-start').selectOption('boot');
  // A one-CPU 1 GiB zone: the trace's CPU 1 events are divergences there, not errors.
  const trace = [
    '  a-1  [000] .....  1.0: mm_page_alloc: page=0x0 pfn=0x1000 order=0 migratetype=0 gfp_flags=GFP_KERNEL',
    '  a-1  [000] .....  1.1: mm_page_free: page=0x0 pfn=0x1000 order=0',
    '',
  ].join('\n');
  await openTrace(page, 'tiny.trace', trace);
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of tiny.trace');
  await expect(page.getByTestId('replay-events')).toHaveText('2');
});

/** A lab capture's folder (engine/tests/fixtures/lab/README.md). */
function labDir(version: string, workload: string): string {
  return path.join('engine', 'tests', 'fixtures', 'lab', version, workload);
}

test('a lab capture replays with prediction: the rates and the first miss are the CLI\'s', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = labDir('7.3.4', 'idle');
  const root = REPO_ROOT;
  const trace = fs.readFileSync(path.join(root, dir, 'trace.txt'), 'utf8');
  // The user gunzips the capture's snapshot and opens it as the start state.
  const snapshot = zlib.gunzipSync(fs.readFileSync(path.join(root, dir, 'snapshot-before.json.gz')));
  const snapFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-lab-')), 'snapshot-before.json');
  fs.writeFileSync(snapFile, snapshot);
  const cli = JSON.parse(
    runCli(['replay', path.join(dir, 'trace.txt'), '--scenario', snapFile, '--predict', '--format', 'json']),
  ).predict;
  const summary = runCli(['replay', path.join(dir, 'trace.txt'), '--scenario', snapFile, '--predict']);
  const rates = /^predict: (.*)$/m.exec(summary)![1];
  expect(cli.miss_count).toBeGreaterThan(0);

  await openApp(page);
  await page.getByTestId('trace-start-file').setInputFiles({
    name: 'snapshot-before.json',
    mimeType: 'application/json',
    buffer: snapshot,
  });
  await expect(page.getByTestId('trace-start')).toHaveValue('file');
  await openTrace(page, 'trace.txt', trace);
  await expect(page.getByTestId('scenario-name')).toHaveText('Replay of trace.txt');
  const panel = page.getByTestId('replay-predict');
  await expect(page.getByTestId('predict-rates')).toHaveText(rates);
  await expect(page.getByTestId('predict-rates')).toContainText(
    `${cli.allocations} allocations, ${cli.exact} exact`,
  );
  // B: the profile the snapshot's release picks, said where the replay is shown.
  await expect(page.getByTestId('replay-profile')).toHaveText('Profile v7.3 — the snapshot says 7.3.4+deb13-amd64');
  // Every listed miss is marked, in its own colour, with a legend.
  await expect(page.getByTestId('scrub-miss')).toHaveCount(cli.misses.length);
  await expect(page.getByTestId('scrub-legend')).toContainText('prediction miss');
  await expect(page.getByTestId('predict-prev')).toBeDisabled();
  // The keyboard: M goes to the first miss.
  await page.getByTestId('scenario-name').click();
  await page.keyboard.press('m');
  const first = cli.misses[0];
  await expect(page.getByTestId('predict-at')).toHaveAttribute('data-verdict', 'miss');
  await expect(page.getByTestId('predict-line')).toHaveText(String(first.line));
  await expect(page.getByTestId('predict-actual')).toContainText(`pfn 0x${first.want_pfn.toString(16)}, order ${first.order}`);
  await expect(page.getByTestId('predict-model')).toHaveText(`pfn 0x${first.got_pfn.toString(16)}, order ${first.order}`);
  await expect(page.getByTestId('predict-cause')).toContainText(first.cause);
  // The button: the second miss, then back with Shift+M.
  await page.getByTestId('predict-next').click();
  await expect(page.getByTestId('predict-line')).toHaveText(String(cli.misses[1].line));
  await page.keyboard.press('Shift+M');
  await expect(page.getByTestId('predict-line')).toHaveText(String(first.line));
  await panel.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'replay-predict', panel);

  // A profile the user chose that the snapshot contradicts is said.
  await page.getByTestId('trace-profile').selectOption('v7.2');
  await openTrace(page, 'trace.txt', trace);
  await expect(page.getByTestId('replay-profile')).toHaveText(
    'Profile v7.2, as chosen — but the snapshot says 7.3.4+deb13-amd64, which is profile v7.3',
  );
});

test('a real kernel from the list: the lab\'s capture replays from its snapshot, cut at its markers, as the CLI does', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = labDir('7.3.4', 'gigantic-cma');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-capture-'));
  for (const f of ['trace.txt', 'snapshot-before.json']) {
    fs.writeFileSync(path.join(tmp, f), zlib.gunzipSync(fs.readFileSync(path.join(REPO_ROOT, dir, `${f}.gz`))));
  }
  const args = [
    'replay', path.join(tmp, 'trace.txt'), '--scenario', path.join(tmp, 'snapshot-before.json'),
    '--from-marker', 'buddyscope: snapshot before', '--to-marker', 'buddyscope: snapshot after', '--predict',
  ];
  const cli = JSON.parse(runCli([...args, '--format', 'json']));
  const rates = /^predict: (.*)$/m.exec(runCli(args))![1];

  await openApp(page);
  const listed = fs.readFileSync(path.join(REPO_ROOT, 'www', 'captures.txt'), 'utf8')
    .split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[0]);
  await page.getByTestId('trace-capture').selectOption(String(listed.indexOf('7.3.4/gigantic-cma')));
  await page.getByTestId('trace-capture-replay').click();
  // Labelled with the kernel and the command line it booted with (capture.json).
  await expect(page.getByTestId('scenario-name')).toHaveText(
    "Replay of the lab's gigantic-cma capture (Linux 7.3.4+deb13-amd64, booted with hugetlb_cma=2G)",
  );
  await expect(page.getByTestId('trace-start')).toHaveValue('file');
  await expect(page.getByTestId('replay-profile')).toHaveText('Profile v7.3 — the snapshot says 7.3.4+deb13-amd64');
  await expect(page.getByTestId('replay-events')).toHaveText(String(cli.replay.trace_events));
  await expect(page.getByTestId('replay-divergence-count')).toHaveText(String(cli.replay.divergence_count));
  await expect(page.getByTestId('predict-rates')).toHaveText(rates);
});

test('a window of a long capture from the list: the fragment workload\'s fallbacks replay from the model\'s state at its first line, as the CLI does', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = labDir('7.3.4', 'fragment-fallbacks');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-window-'));
  for (const f of ['trace.txt', 'snapshot-before.json']) {
    fs.writeFileSync(path.join(tmp, f), zlib.gunzipSync(fs.readFileSync(path.join(REPO_ROOT, dir, `${f}.gz`))));
  }
  // No markers: the window is replayed whole.
  const args = ['replay', path.join(tmp, 'trace.txt'), '--scenario', path.join(tmp, 'snapshot-before.json'), '--predict'];
  const cli = JSON.parse(runCli([...args, '--format', 'json']));
  const rates = /^predict: (.*)$/m.exec(runCli(args))![1];
  const matrix = runCli(['replay', path.join(tmp, 'trace.txt'), '--scenario', path.join(tmp, 'snapshot-before.json'), '--format', 'fallback_matrix']);
  const claims = /Movable +(\d+)\/0/.exec(matrix.split('\n').find((l) => l.startsWith('Movable'))!)![1];

  await openApp(page);
  const listed = fs.readFileSync(path.join(REPO_ROOT, 'www', 'captures.txt'), 'utf8')
    .split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[0]);
  await page.getByTestId('trace-capture').selectOption(String(listed.indexOf('7.3.4/fragment-fallbacks')));
  await page.getByTestId('trace-capture-replay').click();
  await expect(page.getByTestId('scenario-name')).toHaveText(
    "Replay of the lab's fragment capture, trace lines 3,520,000–3,540,000 from the model's state at the first (Linux 7.3.4+deb13-amd64)",
  );
  await expect(page.getByTestId('replay-profile')).toHaveText('Profile v7.3 — the snapshot says 7.3.4+deb13-amd64');
  await expect(page.getByTestId('replay-events')).toHaveText(String(cli.replay.trace_events));
  await expect(page.getByTestId('replay-divergence-count')).toHaveText('0');
  await expect(page.getByTestId('predict-rates')).toHaveText(rates);
  await expect(page.getByTestId('replay-fallbacks')).toContainText(`Movable → Unmovable claim: ${claims}`);
  // The start select names the window's snapshot file and still fits its panel.
  await expect(page.getByTestId('trace-start')).toContainText('the file 7.3.4/fragment-fallbacks snapshot-before.json');
  const start = (await page.getByTestId('trace-start').boundingBox())!;
  const drop = (await page.getByTestId('trace-drop').boundingBox())!;
  expect(start.x + start.width).toBeLessThanOrEqual(drop.x + drop.width + 1);
});

/** A generated kmem trace of `pairs` order-0 allocations and frees on a boot zone (the engine
 * trace's format: no task or CPU columns), in a temporary file. */
function generatedTrace(pairs: number): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'buddyscope-gen-')), `gen-${pairs}.txt`);
  const fd = fs.openSync(file, 'w');
  let chunk = '';
  for (let i = 0; i < pairs; i++) {
    const pfn = `0x${(0x1000 + ((i * 7) % 50_000)).toString(16)}`;
    chunk += `mm_page_alloc: page=0xffffea0000000000 pfn=${pfn} order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n`;
    chunk += `mm_page_free: page=0xffffea0000000000 pfn=${pfn} order=0\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return file;
}

test('a large trace replays in the worker: the page responds, the progress moves, Cancel keeps the run', async ({ page }) => {
  test.setTimeout(180_000);
  const big = generatedTrace(400_000);
  await openApp(page);
  const name = await page.getByTestId('scenario-name').textContent();
  await page.getByTestId('trace-start').selectOption('boot');
  await page.getByTestId('trace-open').setInputFiles(big);
  const progress = page.getByTestId('run-progress-text');
  await expect(progress).toContainText('lines');
  const first = await progress.textContent();
  // The page still responds: a button moves the cursor while the worker replays.
  await page.getByTestId('jump-end').click();
  await expect(page.getByTestId('position')).not.toContainText('event 0 /');
  await page.getByTestId('jump-start').click();
  await expect(page.getByTestId('position')).toContainText('event 0 /');
  await expect(progress).not.toHaveText(first ?? '');
  await saveScreenshot(page, 'replay-worker-progress', page.getByTestId('run-status'));
  await page.getByTestId('run-cancel').click();
  await expect(page.getByTestId('run-status')).toHaveCount(0);
  await expect(page.getByTestId('scenario-name')).toHaveText(name ?? '');
  await expect(page.getByTestId('replay-summary')).toHaveCount(0);
});

test('a trace replayed in the worker gives the CLI\'s summary', async ({ page }) => {
  test.setTimeout(120_000);
  const file = generatedTrace(20_000);
  const cli = JSON.parse(runCli(['replay', file, '--predict', '--format', 'json']));
  const rates = /^predict: (.*)$/m.exec(runCli(['replay', file, '--predict']))![1];
  await openApp(page);
  await page.getByTestId('trace-start').selectOption('boot');
  await page.getByTestId('trace-open').setInputFiles(file);
  await expect(page.getByTestId('scenario-name')).toHaveText(`Replay of ${path.basename(file)}`, { timeout: 60_000 });
  await expect(page.getByTestId('replay-events')).toHaveText(String(cli.replay.trace_events));
  await expect(page.getByTestId('replay-divergence-count')).toHaveText(String(cli.replay.divergence_count));
  await expect(page.getByTestId('predict-rates')).toHaveText(rates);
  await expect(page.getByTestId('replay-profile')).toContainText('nothing named a kernel version');
  // Thousands of misses: the scrubber marks at most 1000 of them.
  const marks = await page.getByTestId('scrub-miss').count();
  expect(marks).toBeGreaterThan(100);
  expect(marks).toBeLessThanOrEqual(1000);
});

test('a trace over the recorded-run limits stops, says how to replay it, and keeps the run', async ({ page }) => {
  test.setTimeout(300_000);
  // 1,060,000 trace events: over the app's 1,000,000 op records of a recorded run.
  const file = generatedTrace(530_000);
  await openApp(page);
  const name = await page.getByTestId('scenario-name').textContent();
  await page.getByTestId('trace-start').selectOption('boot');
  await page.getByTestId('trace-open').setInputFiles(file);
  const err = page.getByTestId('trace-error');
  await expect(err).toBeVisible({ timeout: 240_000 });
  await expect(err).toContainText('more than');
  await expect(err).toContainText('at most 1000000');
  await expect(err).toContainText(`buddyscope replay ${path.basename(file)} --no-trace`);
  await expect(page.getByTestId('run-status')).toHaveCount(0);
  await expect(page.getByTestId('scenario-name')).toHaveText(name ?? '');
});
