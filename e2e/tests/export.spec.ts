// Export for slides (PNG, WebM, /proc text, trace) and the page history.
// Texts and histories are checked against the native CLI (the engine is the source of truth).
import { test, expect, openApp, saveScreenshot, runCli, type Page, clickMapPage } from '../fixtures';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Downloads get a fresh browser context per test (playwright.config.ts reuses one): once, in
// the reused context, Chromium canceled a download mid-test ("download.path: canceled").
test.use({ reuseContext: false });

const file = (id: string) => path.join('engine', 'scenarios', `${id}.json`);

async function openScenario(page: Page, id: string) {
  await openApp(page, `?scenario=${id}`);
  const name = JSON.parse(runCli(['builtin', id])).name as string;
  await expect(page.getByTestId('scenario-name')).toHaveText(name);
  await expect(page.getByTestId('position')).toContainText('event 0 /');
}

async function opForward(page: Page, times: number) {
  for (let i = 0; i < times; i++) await page.getByTestId('op-forward').click();
}

/** Clicks `testid` and returns the download's suggested name and bytes. */
async function download(page: Page, testid: string, timeout = 15_000): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout }), page.getByTestId(testid).click()]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync((await d.path())!) };
}

/** PNG signature and the IHDR's width and height. */
function pngSize(b: Buffer): { w: number; h: number } {
  expect(b.length).toBeGreaterThan(100);
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
}

/** Decodes bytes in the page with createImageBitmap: its size, and pixels that are not all one colour. */
async function decodeInPage(page: Page, b: Buffer, type: string) {
  return page.evaluate(
    async ({ b64, type }) => {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      const bmp = await createImageBitmap(new Blob([u8], { type }));
      const c = document.createElement('canvas');
      c.width = bmp.width;
      c.height = bmp.height;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(bmp, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const colours = new Set<number>();
      for (let i = 0; i < d.length && colours.size < 50; i += 4 * 97) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return { w: bmp.width, h: bmp.height, colours: colours.size };
    },
    { b64: b.toString('base64'), type },
  );
}

test('PNG of the map and of the whole panel set: non-empty, decodable, the right size', async ({ page }) => {
  await openScenario(page, 'fallback-claim');
  await opForward(page, 3);
  const map = page.getByTestId('memory-map');
  const size = await map.evaluate((c: HTMLCanvasElement) => ({ w: c.width, h: c.height }));

  const m = await download(page, 'export-png-map');
  expect(m.name).toBe('fallback-claim-op3-map.png');
  expect(pngSize(m.bytes)).toEqual(size);
  const dm = await decodeInPage(page, m.bytes, 'image/png');
  expect({ w: dm.w, h: dm.h }).toEqual(size);
  expect(dm.colours).toBeGreaterThan(2);

  const a = await download(page, 'export-png-all');
  expect(a.name).toBe('fallback-claim-op3-panels.png');
  const as = pngSize(a.bytes);
  expect(as.w).toBeGreaterThan(Math.min(size.w, 960) + 500);
  const da = await decodeInPage(page, a.bytes, 'image/png');
  expect({ w: da.w, h: da.h }).toEqual(as);
  expect(da.colours).toBeGreaterThan(4);
  fs.mkdirSync(path.join(__dirname, '..', 'artifacts'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, '..', 'artifacts', 'export-panels.png'), a.bytes);
  await expect(page.getByTestId('export-status')).toContainText('fallback-claim-op3-panels.png');
});

for (const [id, k] of [
  ['pcp-overflow-2cpu', 4],
  ['cma-frozen-range', 2],
] as const) {
  test(`${id}: /proc texts and the trace at op ${k} equal the CLI's --ops ${k}`, async ({ page }) => {
    await openScenario(page, id);
    await opForward(page, k);
    await expect(page.getByTestId('position')).toContainText(`op ${k} /`);
    for (const fmt of ['buddyinfo', 'pagetypeinfo', 'trace'] as const) {
      const d = await download(page, `export-${fmt}`);
      expect(d.name).toBe(`${id}-op${k}-${fmt}.txt`);
      const cli = runCli(['run', file(id), '--format', fmt, '--ops', String(k)]);
      expect(d.bytes.toString('utf8'), fmt).toBe(cli);
    }
    await page.getByTestId('export-trace-whole').check();
    const whole = await download(page, 'export-trace');
    expect(whole.name).toBe(`${id}-trace.txt`);
    expect(whole.bytes.toString('utf8')).toBe(runCli(['run', file(id), '--format', 'trace']));
  });
}

/** The duration of a WebM, played in a <video> of the page. Chromium's MediaRecorder writes no
 * duration (the element reports Infinity): seeking far past the end makes it read to the end
 * and report the real one (the usual workaround). */
async function webmDuration(page: Page, b: Buffer): Promise<{ duration: number; w: number; h: number }> {
  return page.evaluate(async (b64) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    const v = document.createElement('video');
    v.muted = true;
    v.src = URL.createObjectURL(new Blob([u8], { type: 'video/webm' }));
    await new Promise<void>((ok, err) => {
      v.onloadedmetadata = () => ok();
      v.onerror = () => err(new Error(`video error ${v.error?.code}: ${v.error?.message}`));
    });
    if (!Number.isFinite(v.duration)) {
      await new Promise<void>((ok) => {
        v.ondurationchange = () => {
          if (Number.isFinite(v.duration)) ok();
        };
        v.currentTime = 1e101;
      });
    }
    return { duration: v.duration, w: v.videoWidth, h: v.videoHeight };
  }, b.toString('base64'));
}

test('WebM of a played range: decodable, with the stated duration ± one frame', async ({ page }) => {
  test.setTimeout(60_000);
  await openScenario(page, 'fallback-claim');
  // Count the stops "step one event" makes from the end of op 1 to the end of op 2.
  await opForward(page, 1);
  const from = Number(/event (\d+)/.exec((await page.getByTestId('position').textContent())!)![1]);
  await page.getByTestId('export-webm-from-cursor').click();
  await opForward(page, 6);
  const to = Number(/event (\d+)/.exec((await page.getByTestId('position').textContent())!)![1]);
  await page.getByTestId('export-webm-to-cursor').click();
  // Back to `from` and step to `to` the way the recording does: one stop per step.
  await page.getByTestId('jump-start').click();
  await opForward(page, 1);
  let stops = 1;
  for (let p = from; p < to; stops++) {
    await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('position')).not.toContainText(`event ${p} /`);
    p = Number(/event (\d+)/.exec((await page.getByTestId('position').textContent())!)![1]);
  }
  await expect(page.getByTestId('export-webm-from')).toHaveValue(String(from));
  await expect(page.getByTestId('export-webm-to')).toHaveValue(String(to));
  await page.getByTestId('export-webm-speed').selectOption('16');
  const plan = page.getByTestId('export-webm-plan');
  await expect(plan).toContainText(`${stops} stops`);
  await expect(plan).toContainText('30 fps');
  const expected = Number(await plan.getAttribute('data-duration'));
  expect(expected).toBeCloseTo(stops / 16, 6);
  const fps = Number(await plan.getAttribute('data-fps'));
  expect(fps).toBe(30);

  const d = await download(page, 'export-webm', expected * 1000 + 20_000);
  expect(d.name).toBe(`fallback-claim-ev${from}-${to}-16eps.webm`);
  expect(d.bytes.length).toBeGreaterThan(1000);
  // EBML magic.
  expect([...d.bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  const frames = webmFrameTimes(d.bytes);
  console.log(`webm: ${d.bytes.length} bytes, ${frames.length} frames, first ${frames[0]} s, last ${frames[frames.length - 1]} s; stated ${expected} s`);
  expect(frames.length).toBeGreaterThan(2);
  expect(frames[0]).toBe(0);
  const v = await webmDuration(page, d.bytes);
  console.log(`webm: <video> duration ${v.duration} s, ${v.w}x${v.h}`);
  expect(v.w).toBeGreaterThan(300);
  // Never short by more than one frame (the last stop is held to the end). MediaRecorder
  // stamps frames with the wall clock, so a loaded machine makes the video run long (the
  // timers that end it fire late): measured 0.1–0.25 s over at load average 10–18 on two
  // cores; the bound above allows 0.35 s, not one frame.
  expect(v.duration, `duration ${v.duration} vs ${expected}`).toBeGreaterThanOrEqual(expected - 1 / fps - 1e-3);
  expect(v.duration, `duration ${v.duration} vs ${expected}`).toBeLessThanOrEqual(expected + 0.35);
  expect(Math.abs(frames[frames.length - 1] - v.duration)).toBeLessThanOrEqual(1 / fps);
  // The recording ends at `to`.
  await expect(page.getByTestId('position')).toContainText(`event ${to} /`);
  await expect(page.getByTestId('export-status')).toContainText('Recorded');
});

/** EBML variable-size integer at `i`: its value (marker bit kept for ids) and length. */
function vint(b: Buffer, i: number, keepMarker: boolean): { v: number; len: number; unknown: boolean } {
  const first = b[i];
  let len = 1;
  let mask = 0x80;
  while (len <= 8 && !(first & mask)) {
    len++;
    mask >>= 1;
  }
  let v = keepMarker ? first : first & (mask - 1);
  for (let k = 1; k < len; k++) v = v * 256 + b[i + k];
  return { v, len, unknown: !keepMarker && v === 2 ** (7 * len) - 1 };
}

/** Presentation times (s) of the video frames of a WebM: Cluster Timecode + each
 * SimpleBlock's relative timecode, scaled by the Info's TimecodeScale. */
function webmFrameTimes(b: Buffer): number[] {
  const MASTER = new Set([0x18538067 /* Segment */, 0x1f43b675 /* Cluster */, 0xa0 /* BlockGroup */, 0x1549a966 /* Info */]);
  let scale = 1e6;
  let cluster = 0;
  const out: number[] = [];
  const uint = (i: number, end: number) => {
    let v = 0;
    for (let k = i; k < end; k++) v = v * 256 + b[k];
    return v;
  };
  const walk = (i: number, end: number) => {
    while (i < end) {
      const id = vint(b, i, true);
      i += id.len;
      const size = vint(b, i, false);
      i += size.len;
      const dataEnd = size.unknown ? end : Math.min(end, i + size.v);
      if (MASTER.has(id.v)) walk(i, dataEnd);
      else if (id.v === 0x2ad7b1) scale = uint(i, dataEnd);
      else if (id.v === 0xe7) cluster = uint(i, dataEnd);
      else if (id.v === 0xa3 || id.v === 0xa1) {
        const track = vint(b, i, false);
        const rel = b.readInt16BE(i + track.len);
        out.push(((cluster + rel) * scale) / 1e9);
      }
      i = dataEnd;
    }
  };
  walk(0, b.length);
  return out;
}

/** Per op of the CLI trace (1-based, in order), the page ranges its lines name. */
function traceRanges(trace: string): Map<number, [number, number][]> {
  const out = new Map<number, [number, number][]>();
  let op = 0;
  const add = (start: string, n: number) => {
    if (!out.has(op)) out.set(op, []);
    out.get(op)!.push([parseInt(start, 16), n]);
  };
  for (const line of trace.split('\n')) {
    if (line.startsWith('# op ')) {
      op++;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /pfn=0x([0-9a-f]+) order=(\d+)/.exec(line))) add(m[1], 2 ** Number(m[2]));
    if ((m = /pfn=0x([0-9a-f]+) alloc_order=\d+ fallback_order=(\d+)/.exec(line))) add(m[1], 2 ** Number(m[2]));
    for (const mm of line.matchAll(/order-(\d+) block at pfn 0x([0-9a-f]+)/g)) add(mm[2], 2 ** Number(mm[1]));
    if ((m = /pageblock \d+ \(pfn 0x([0-9a-f]+)\)/.exec(line))) add(m[1], 512);
    if ((m = /(\d+) (?:consecutive )?pages from pfn 0x([0-9a-f]+)/.exec(line))) add(m[2], Number(m[1]));
    if ((m = /chunk pfn 0x([0-9a-f]+) order (\d+)/.exec(line))) add(m[1], 2 ** Number(m[2]));
    if ((m = /claims (\d+) whole pageblock\(s\) at pfn 0x([0-9a-f]+)/.exec(line))) add(m[2], 512 * Number(m[1]));
    if ((m = /claims pageblock at pfn 0x([0-9a-f]+)/.exec(line))) add(m[1], 512);
  }
  return out;
}


for (const id of ['pcp-overflow-2cpu', 'fallback-steal']) {
  test(`${id}: the page history lists the ops the CLI trace shows for the page, and seeks`, async ({ page }) => {
    await openScenario(page, id);
    const trace = runCli(['run', file(id), '--format', 'trace']);
    // A page the run allocates: the first mm_page_alloc's pfn, one page in.
    const first = /mm_page_alloc: page=\S+ pfn=0x([0-9a-f]+) order=(\d+)/.exec(trace)!;
    const start = Number(await page.getByTestId('memory-map').getAttribute('data-start-pfn'));
    const idx = parseInt(first[1], 16) - start + (Number(first[2]) > 0 ? 1 : 0);
    const pfn = await clickMapPage(page, idx);
    const panel = page.getByTestId('page-history');
    await expect(panel).toContainText(`pfn 0x${pfn.toString(16)}`);
    const covers = (r: [number, number]) => pfn >= r[0] && pfn < r[0] + r[1];
    const ranges = traceRanges(trace);
    // Ops whose tracepoint lines name the page must all be listed; every listed op must name it
    // somewhere in its part of the trace.
    const tracepointOps = new Set<number>();
    let op = 0;
    for (const line of trace.split('\n')) {
      if (line.startsWith('# op ')) op++;
      const m = /^mm_\w+: page=\S+ pfn=0x([0-9a-f]+) (?:order|alloc_order=\d+ fallback_order)=(\d+)/.exec(line);
      if (m && covers([parseInt(m[1], 16), 2 ** Number(m[2])])) tracepointOps.add(op);
    }
    const namedOps = new Set([...ranges].filter(([, rs]) => rs.some(covers)).map(([k]) => k));
    expect(tracepointOps.size).toBeGreaterThan(0);
    const listed = (await panel.getByTestId('page-history-op').locator('.history-op-link').allTextContents()).map((t) =>
      Number(/^op (\d+):/.exec(t.trim())![1]),
    );
    expect(listed.length).toBeGreaterThan(0);
    for (const k of tracepointOps) expect(listed, `op ${k} of the trace`).toContain(k);
    for (const k of listed) expect(namedOps.has(k), `listed op ${k} names pfn 0x${pfn.toString(16)} in the trace`).toBe(true);
    expect([...namedOps].sort((a, b) => a - b)).toEqual([...new Set(listed)].sort((a, b) => a - b));

    // Each entry is a link to its position.
    const links = panel.getByTestId('page-history-event');
    const n = await links.count();
    const target = links.nth(Math.min(2, n - 1));
    const pos = Number(await target.getAttribute('data-pos'));
    await target.click();
    await expect(page.getByTestId('position')).toContainText(`event ${pos} /`);
    await expect(panel.locator('.history-event.current')).toHaveCount(1);
    await saveScreenshot(page, `export-history-${id}`, panel);
  });
}

test('screenshots of the export and history panels at 1280x720 and 1920x1080', async ({ page }) => {
  for (const [w, h] of [
    [1280, 720],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    await openScenario(page, 'fallback-claim');
    await opForward(page, 2);
    await clickMapPage(page, 5);
    await expect(page.getByTestId('page-history-event').first()).toBeVisible();
    await page.getByTestId('page-history').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(__dirname, '..', 'artifacts', `export-history-${w}.png`) });
    await page.getByTestId('export').scrollIntoViewIfNeeded();
    await saveScreenshot(page, `export-panel-${w}`, page.getByTestId('export'));
  }
});
