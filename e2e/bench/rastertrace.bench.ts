// Where one input's time goes after the app's handlers, on every thread: a DevTools trace with the
// compositor, raster and viz categories around a few trusted inputs (ArrowRight "step",
// Shift+ArrowRight "op", a scrubber click "jump"), then per input the timeline
//   input -> handlers end -> main-thread style / layout / paint -> commit -> raster tasks -> draw ->
//   presentation
// read from the renderer's main thread, its compositor thread, the raster workers and the GPU/viz
// process's frame events. Writes the raw trace to e2e/artifacts/rastertrace-<action>.json (open it in
// chrome://tracing or Perfetto) and prints a table per input. Not part of the test suite.
//
//   BENCH_RT_PAGES=262144 BENCH_RT_ACTIONS=step,op,jump BENCH_RT_N=6 \
//     bash scripts/bench-frames.sh bench/rastertrace.bench.ts
// BENCH_RT_FROM=1 reads the saved traces again; BENCH_RT_CSS adds a style sheet (an experiment);
// BENCH_RT_W / BENCH_RT_H the viewport (default 1366 x 900); action `tiny` is a control (a heading's
// colour: a few pixels of damage, no app work); BENCH_RT_LAYERS=1 lists the layers at the end.
// BENCH_RT_FREEZE=<selector> fixes the matching elements' height under `contain: strict` (what bounded
// layout would save; the columns `layout dirty` and `layout partial` show the layout's extent).
// BENCH_RT_URL serves another build (e.g. http://127.0.0.1:4493 for a copy of main's dist).
import { test, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadZone, stats } from './frames';
import { describeLayers } from './layers';
import { traceEvents, type TraceEvent } from './phases';

/** A trace event with the fields of the compositor's and viz's events too. */
interface Ev extends TraceEvent {
  cat: string;
  id?: string;
  id2?: { local?: string; global?: string };
  args?: any;
}

const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'disabled-by-default-viz.quads',
  ...(process.env.BENCH_RT_CC ? ['disabled-by-default-cc.debug', 'disabled-by-default-cc.debug.quads', 'disabled-by-default-cc.debug.display_items'] : []),
  'cc',
  'viz',
  'benchmark',
  'input',
  'blink',
  'gpu',
  'toplevel',
];

function traced(page: Page, body: () => Promise<void>): Promise<Ev[]> {
  return traceEvents<Ev>(page, CATEGORIES, body);
}

async function input(page: Page, action: string, i: number) {
  await page.evaluate((m) => console.timeStamp(m), `bench:${action}:${i}`);
  if (action === 'step') await page.keyboard.press('ArrowRight');
  else if (action === 'op') await page.keyboard.press('Shift+ArrowRight');
  else if (action === 'jump') {
    const b = (await page.getByTestId('scrubber').boundingBox())!;
    const f = (0.1 + i * 0.6180339887) % 1;
    await page.mouse.click(b.x + f * b.width, b.y + b.height / 2);
  } else if (action === 'tiny') {
    // A control: a few pixels of damage (the heading's colour), no app work.
    await page.evaluate((i) => {
      (document.querySelector('h1') as HTMLElement).style.color = i % 2 ? '' : 'rgb(200, 0, 0)';
    }, i);
  }
  // Let the frame (and any follow-up frames) finish before the next input.
  await page.waitForTimeout(400);
}

const ms = (us: number) => us / 1000;

/** Per input, the first frame that shows it: ms from the input's dispatch to each stage, and the
 *  CPU time of each stage (thread time, which the load distorts less than the wall clock). */
function analyse(events: Ev[], action: string) {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  const thread = (e: Ev) => names.get(`${e.pid}:${e.tid}`) ?? '?';
  const marks = events.filter((e) => e.name === 'TimeStamp' && e.args?.data?.message?.startsWith(`bench:${action}:`)).sort((a, b) => a.ts - b.ts);
  if (!marks.length) return [];
  const main = `${marks[0].pid}:${marks[0].tid}`;
  const complete = events.filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const end = (e: Ev) => e.ts + (e.dur ?? 0);
  const cpu = (e: Ev | undefined) => (e ? (e.tdur ?? e.dur ?? 0) / 1000 : NaN);
  const rows = [];
  for (let i = 0; i < marks.length; i++) {
    const t1 = i + 1 < marks.length ? marks[i + 1].ts : marks[i].ts + 400_000;
    const win = complete.filter((e) => e.ts >= marks[i].ts && e.ts < t1);
    const onMain = win.filter((e) => `${e.pid}:${e.tid}` === main);
    const after = (t: number, name: string, th?: string) => win.find((e) => e.name === name && e.ts >= t && (!th || thread(e) === th));
    const input = onMain.find((e) => e.name === 'EventDispatch' && /^(keydown|pointerdown)$/.test(e.args?.data?.type ?? ''));
    if (!input) continue;
    // The handlers: the input's dispatches (keydown, or pointerdown to click) on the main thread.
    const handlers = onMain.filter((e) => e.name === 'EventDispatch' && e.ts < input.ts + 50_000 && /^(keydown|pointerdown|mousedown|pointerup|mouseup|click)$/.test(e.args?.data?.type ?? ''));
    const handlersEnd = Math.max(...handlers.map(end));
    const bmf = after(handlersEnd, 'ProxyMain::BeginMainFrame', 'CrRendererMain');
    if (!bmf) continue;
    const inBmf = onMain.filter((e) => e.ts >= bmf.ts && end(e) <= end(bmf));
    // Outermost events only (Paint nests in Paint).
    const sum = (re: RegExp) => {
      let total = 0;
      let until = -1;
      for (const e of inBmf.filter((x) => re.test(x.name))) {
        if (e.ts < until) continue;
        total += cpu(e);
        until = end(e);
      }
      return total;
    };
    const layouts = inBmf.filter((e) => e.name === 'Layout');
    const commit = after(bmf.ts, 'ProxyImpl::Commit', 'Compositor');
    const activate = commit && after(commit.ts, 'LayerTreeHostImpl::ActivateSyncTree', 'Compositor');
    const raster = commit && activate ? win.filter((e) => e.name === 'RasterTask' && e.ts >= commit.ts && e.ts <= end(activate) + 1000) : [];
    const draw = activate && after(activate.ts, 'ProxyImpl::ScheduledActionDraw', 'Compositor');
    const viz = draw && after(draw.ts, 'Display::DrawAndSwap', 'VizCompositorThread');
    const swap = viz && after(viz.ts, 'SoftwareRenderer::SwapBuffers', 'VizCompositorThread');
    const damage = viz && after(viz.ts, 'DirectRenderer::DrawFrame ProcessForOverlays', 'VizCompositorThread')?.args?.root_damage_rect;
    const at = (t: number | undefined) => (t === undefined ? NaN : +((t - input.ts) / 1000).toFixed(1));
    rows.push({
      i,
      'handlers end': at(handlersEnd),
      'handlers cpu': +handlers.reduce((a, e) => a + cpu(e), 0).toFixed(1),
      'main frame': at(bmf.ts),
      'style cpu': +sum(/^UpdateLayoutTree$/).toFixed(1),
      'layout cpu': +sum(/^Layout$/).toFixed(1),
      // The layout's extent: objects marked dirty, and how many of the frame's layouts were partial
      // (rooted below the document: a relayout boundary bounded them) of how many.
      'layout dirty': layouts.reduce((a, e) => a + (e.args?.beginData?.dirtyObjects ?? 0), 0),
      'layout partial': `${layouts.filter((e) => e.args?.beginData?.partialLayout).length}/${layouts.length}`,
      'paint cpu': +sum(/^(PrePaint|Paint|Layerize)$/).toFixed(1),
      'main frame cpu': +cpu(bmf).toFixed(1),
      commit: at(commit?.ts),
      'raster tasks': raster.length,
      'raster cpu': +raster.reduce((a, e) => a + cpu(e), 0).toFixed(1),
      activate: at(activate ? end(activate) : undefined),
      'viz draw': at(viz?.ts),
      'viz draw cpu': +cpu(viz).toFixed(1),
      swap: at(swap ? end(swap) : undefined),
      damage: damage ?? '',
    });
  }
  return rows;
}

function report(events: Ev[], action: string, what: string) {
  const rows = analyse(events, action);
  console.log(`\n${action}, ${what} (ms from the input's dispatch; cpu = thread time)`);
  console.table(rows);
  const med = (k: string) => stats(rows.map((r: any) => r[k]).filter(Number.isFinite)).median.toFixed(1);
  const keys = Object.keys(rows[0] ?? {}).filter((k) => k !== 'i' && k !== 'damage');
  console.log(`median: ${keys.map((k) => `${k} ${med(k)}`).join(', ')}`);
}

test('raster trace of one input', async ({ browser }) => {
  test.setTimeout(20 * 60_000);
  const out = path.join(__dirname, '..', 'artifacts');
  const actions = (process.env.BENCH_RT_ACTIONS ?? 'step,op,jump').split(',');
  if (process.env.BENCH_RT_FROM) {
    // Read the traces of an earlier run again (e.g. after changing this analysis).
    for (const action of actions) {
      const file = path.join(out, `rastertrace-${action}.json`);
      report(JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents, action, file);
    }
    return;
  }
  const pages = Number(process.env.BENCH_RT_PAGES ?? 262144);
  const n = Number(process.env.BENCH_RT_N ?? 6);
  const width = Number(process.env.BENCH_RT_W ?? 1366);
  const height = Number(process.env.BENCH_RT_H ?? 900);
  const ctx = await browser.newContext({ viewport: { width, height } });
  const page = await ctx.newPage();
  await page.goto((process.env.BENCH_RT_URL ?? '') + '/');
  await page.getByRole('heading', { level: 1, name: 'buddyscope' }).waitFor();
  await loadZone(page, pages, `${pages} pages`, 3000);
  // BENCH_RT_CSS: a style sheet added to the page first, to try a CSS change without a build.
  if (process.env.BENCH_RT_CSS) await page.addStyleTag({ content: process.env.BENCH_RT_CSS });
  // BENCH_RT_FREEZE: a selector; each element it matches keeps its current height, under
  // `contain: strict` (an experiment: what a fixed-size panel would save in layout).
  if (process.env.BENCH_RT_FREEZE)
    await page.evaluate((sel) => {
      for (const e of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
        e.style.height = `${e.getBoundingClientRect().height + 200}px`;
        e.style.contain = 'strict';
      }
    }, process.env.BENCH_RT_FREEZE);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.keyboard.press('Shift+ArrowRight');
  await page.waitForTimeout(500);
  fs.mkdirSync(out, { recursive: true });
  for (const action of actions) {
    const events = await traced(page, async () => {
      for (let i = 0; i < n; i++) await input(page, action, i);
    });
    fs.writeFileSync(path.join(out, `rastertrace-${action}.json`), JSON.stringify({ traceEvents: events }));
    report(events, action, `${pages} pages, ${width}x${height}`);
  }
  // The layer ids of the raster tasks (RasterTask's tileData.layerId), named.
  if (process.env.BENCH_RT_LAYERS) for (const line of await describeLayers(page)) console.log(line);
  await ctx.close();
});
