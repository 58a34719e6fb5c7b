// Where a cold load's main-thread time goes before the map is on screen, by Chrome's own trace
// events (script, style recalculation, layout, paint, GC): BENCH_LOAD_RUNS (default 5) cold loads
// (1366 × 900, no cache, no service worker), the median per event name of the wall time and of
// the thread's CPU time (which the load of a shared machine stretches less) spent in it on the
// renderer's main thread from navigation until the first-paint probe of bench/firstpaint.ts
// fires; the number of forced (synchronous) style and layout updates; the DOM's size at the
// map's first draw; the strings that crossed from wasm to JS (wasm-bindgen's TextDecoder calls)
// by then. BENCH_AB="name=dir,..." measures several release `dist/` directories in turns (as
// ab.bench.ts); BENCH_SHOW_STRINGS=1 prints the long strings, BENCH_TRACE_FILE=<path> keeps the
// last load's trace (chrome://tracing, Perfetto), BENCH_TRACE_CATEGORIES=a,b adds categories.
// `bash scripts/bench-frames.sh bench/loadtrace.bench.ts`. Not part of the test suite.
import { test, type Browser } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { firstPaintDone, hookCanvas } from './firstpaint';
import { serveDist } from './frames';

// Top-level phases the renderer reports (nested ones such as FunctionCall inside EvaluateScript
// overlap: compare a name with itself across builds, not the rows with each other).
const NAMES = [
  // Every task of the main thread: its CPU time is the page's whole main-thread work.
  'RunTask',
  'ParseHTML',
  'EvaluateScript',
  'v8.compileModule',
  'FunctionCall',
  'TimerFire',
  'FireAnimationFrame',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'MinorGC',
  'MajorGC',
  // Style and layout brought up to date synchronously (a script read geometry or style).
  'Blink.ForcedStyleAndLayout.UpdateTime',
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function oneLoad(browser: Browser, url: string): Promise<Record<string, number>> {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 }, serviceWorkers: 'block' });
  const page = await ctx.newPage();
  await page.goto('about:blank');
  await page.addInitScript(hookCanvas);
  await page.addInitScript(() => {
    // The DOM's size at the first map draw (what the first layout lays out).
    const proto = CanvasRenderingContext2D.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
    const orig = proto.putImageData;
    proto.putImageData = function (this: CanvasRenderingContext2D, ...args: unknown[]) {
      const w = window as unknown as { __bsNodes?: number };
      w.__bsNodes ??= document.getElementsByTagName('*').length;
      return orig.apply(this, args);
    };
    // Strings that cross from wasm to JS before the map is on screen (wasm-bindgen decodes each
    // with TextDecoder): how many, how many bytes, and the largest.
    const dec = TextDecoder.prototype.decode;
    const s = { n: 0, bytes: 0, big: [] as string[] };
    (window as unknown as { __bsDecoded: typeof s }).__bsDecoded = s;
    TextDecoder.prototype.decode = function (this: TextDecoder, ...args: any[]) {
      const out = dec.apply(this, args as []);
      if ((window as unknown as { __bsFirstMapShown?: number }).__bsFirstMapShown === undefined) {
        s.n += 1;
        s.bytes += out.length;
        if (out.length > 200) s.big.push(`${out.length}: ${out.slice(0, 80)}`);
      }
      return out;
    };
  });
  await browser.startTracing(page, { categories: [
      'toplevel',
      'disabled-by-default-devtools.timeline',
      'devtools.timeline',
      'blink.user_timing',
      'v8',
      'blink',
      ...(process.env.BENCH_TRACE_CATEGORIES ?? '').split(',').filter(Boolean),
    ],
  });
  const done = firstPaintDone(page);
  await page.goto(url + '/');
  await done;
  const shown = await page.evaluate(() => (window as any).__bsFirstMapShown as number);
  const nodes = await page.evaluate(() => (window as any).__bsNodes ?? 0);
  const decoded = await page.evaluate(() => (window as any).__bsDecoded as { n: number; bytes: number; big: string[] });
  if (process.env.BENCH_SHOW_STRINGS) console.log(decoded.big.join('\n'));
  const buf = await browser.stopTracing();
  await ctx.close();
  const events = JSON.parse(buf.toString()).traceEvents as any[];
  if (process.env.BENCH_TRACE_FILE) require('node:fs').writeFileSync(process.env.BENCH_TRACE_FILE, buf);
  // The renderer's main thread: the one named CrRendererMain in the page's process.
  const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  // The page's navigation (not about:blank's): performance.now() counts from it.
  const nav = events.filter((e) => e.name === 'navigationStart' && String(e.args?.data?.documentLoaderURL ?? '').startsWith('http')).pop();
  if (!nav) throw new Error('no navigationStart in the trace');
  const pid = nav.pid;
  const tid = mains.find((m) => m.pid === pid)?.tid;
  const t0 = nav.ts;
  const t1 = t0 + shown * 1000;
  const out: Record<string, number> = {
    mapShown: shown,
    domNodes: nodes,
    stringsDecoded: decoded.n,
    charsDecoded: decoded.bytes,
    forcedUpdates: 0,
  };
  // Wall time and the thread's CPU time (`tdur`: what the load of a shared machine does not
  // stretch).
  for (const n of NAMES) out[n] = out[`${n} (cpu)`] = 0;
  for (const e of events) {
    if (e.pid !== pid || e.tid !== tid || e.ts < t0 || e.ts > t1 || e.ph !== 'X' || !NAMES.includes(e.name)) continue;
    out[e.name] += (e.dur ?? 0) / 1000;
    out[`${e.name} (cpu)`] += (e.tdur ?? 0) / 1000;
    if (e.name === 'Blink.ForcedStyleAndLayout.UpdateTime') out.forcedUpdates += 1;
  }
  return out;
}

test('main-thread phases of a cold load up to the map on screen', async ({ browser, baseURL }) => {
  test.setTimeout(20 * 60_000);
  const runs = Number(process.env.BENCH_LOAD_RUNS ?? 5);
  const basePort = Number(process.env.E2E_PORT ?? 4180) + 350;
  const builds: { name: string; url: string; server?: ChildProcess }[] = [];
  if (process.env.BENCH_AB) {
    let i = 0;
    for (const spec of process.env.BENCH_AB.split(',')) {
      const [name, dir] = spec.split('=');
      builds.push({ name, ...(await serveDist(dir, basePort + i++)) });
    }
  } else builds.push({ name: 'dist', url: baseURL! });
  const res = new Map<string, Record<string, number>[]>(builds.map((b) => [b.name, []]));
  try {
    for (let r = 0; r < runs; r++) for (const b of builds) res.get(b.name)!.push(await oneLoad(browser, b.url));
  } finally {
    for (const b of builds) b.server?.kill();
  }
  const keys = Object.keys(res.get(builds[0].name)![0]);
  console.log(`medians of ${runs} cold loads (ms on the renderer's main thread, navigation → map on screen):`);
  console.log(['what'.padEnd(44), ...builds.map((b) => b.name.padStart(10))].join(' '));
  for (const k of keys) console.log([k.padEnd(44), ...builds.map((b) => median(res.get(b.name)!.map((x) => x[k])).toFixed(1).padStart(10))].join(' '));
});
