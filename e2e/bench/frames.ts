// The browser frame harness: frame times per zone size and per action, measured
// inside the page. Run it with `bash scripts/bench-frames.sh` (bench/frames.bench.ts); the normal
// suite runs it at a tiny iteration count and checks the output's shape only (tests/bench.spec.ts).
//
// Per action, each sample is measured in the page:
//   work  = performance.now() from the input event until the app's reactive work has settled
//           (a setTimeout(0) after the event: every microtask-scheduled effect has run);
//   frame = from the input event until the frame after it was produced (requestAnimationFrame, then
//           a setTimeout(0) past that frame's rendering): what the user waits for to see it;
//   map   = the memory map's own render (window.__buddyscope_last_render_ms) for that input;
//   phases = Chrome's style, layout, paint and script time of each sample, from a DevTools trace
//           around the samples (bench/phases.ts);
// and for step, op, jump and redraw, a second series of trusted inputs timed by the browser itself
// from input to paint (Event Timing, bench/topaint.ts): the budget's "to paint".
// The frame time includes waiting for the next vsync (up to 16.7 ms at 60 Hz), so "work" is the
// budget figure and "frame" the user's.
import type { Browser, Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withPhases, type Phases } from './phases';
import { sampleToPaint, type ToPaint } from './topaint';

export const SIZES = [
  { name: '1 GiB', pages: 262144 },
  { name: '4 GiB', pages: 1048576 },
  { name: '16 GiB', pages: 4194304 },
] as const;

export const ACTIONS = ['step', 'op', 'jump', 'zoom', 'pan', 'redraw', 'play'] as const;
export type Action = (typeof ACTIONS)[number];

export const ACTION_HELP: Record<Action, string> = {
  step: 'one event forward (→)',
  op: 'one operation forward (Shift+→)',
  jump: 'scrubber click to a far position',
  zoom: 'zoom select: fit ↔ one level in',
  pan: 'scroll the map by half its box (2 px per page)',
  redraw: 'theme switch light ↔ dark: every canvas repainted',
  play: 'playback at 512 events/s: interval between frames',
};

export interface Stats {
  n: number;
  median: number;
  p90: number;
  max: number;
}

export interface ActionResult {
  action: Action;
  work: Stats;
  frame: Stats;
  map: Stats;
  /** Fraction of samples whose map render was a full repaint of its window. */
  full: number;
  /** Chrome's style, layout, paint and script time per sample (bench/phases.ts), when traced. */
  phases?: Phases;
  /** The browser's input-to-paint (Event Timing) of trusted inputs (bench/topaint.ts): step, op,
   *  jump and redraw. */
  toPaint?: ToPaint;
}

export interface SizeResult {
  size: string;
  pages: number;
  loadMs: number;
  events: number;
  lod: string;
  actions: ActionResult[];
}

export interface FramesResult {
  machine: Record<string, string | number>;
  iterations: number;
  firstPaint: { fcp: Stats; map: Stats };
  sizes: SizeResult[];
  /** The engine's mixed 1M-operation sequence in wasm, when the app has the bench hook
   *  (`window.__buddyscopeBench`): ms, recording off and on. */
  wasmEngine?: { n: number; off: Stats; on: Stats };
}

export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0);
  return { n: s.length, median: at(0.5), p90: at(0.9), max: s.length ? s[s.length - 1] : 0 };
}

const SCENARIO = path.resolve(__dirname, '..', '..', 'engine', 'scenarios', 'fragmented-sandbox.json');

/** The seeded sandbox workload on a zone of `pages`: allocations spread over the low pageblocks. */
export function scenarioText(pages: number, name: string, steps: number): string {
  const json = JSON.parse(fs.readFileSync(SCENARIO, 'utf8'));
  json.zone.pages = pages;
  json.name = `bench: sandbox on a ${name} zone`;
  json.ops[0].steps = steps;
  json.ops[1].steps = Math.round(steps * 0.7);
  delete json.tour;
  return JSON.stringify(json, null, 2);
}

export async function loadZone(page: Page, pages: number, name: string, steps: number): Promise<number> {
  const editor = page.getByTestId('scenario-editor');
  await editor.fill(scenarioText(pages, name, steps));
  const t0 = Date.now();
  await page.getByTestId('scenario-run').click();
  await page.getByTestId('scenario-name').filter({ hasText: `bench: sandbox on a ${name} zone` }).waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => (window as any).__buddyscope_last_render_ms !== undefined);
  return Date.now() - t0;
}

/** Runs `n` samples of `action` in the page and returns [work, frame, map, full] per sample. */
export async function sampleInPage(page: Page, action: Action, n: number): Promise<number[][]> {
  return page.evaluate(
    async ({ action, n }) => {
      const w = window as any;
      const settle = () => new Promise<void>((r) => setTimeout(r, 0));
      const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const key = (k: string, shift = false) =>
        document.body.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey: shift, bubbles: true }));
      const zoomSel = document.querySelector('[data-testid="map-zoom"]') as HTMLSelectElement;
      const setZoom = (v: string) => {
        zoomSel.value = v;
        zoomSel.dispatchEvent(new Event('change', { bubbles: true }));
      };
      const scrubber = document.querySelector('[data-testid="scrubber"]') as HTMLElement;
      const scroll = document.querySelector('.map-scroll') as HTMLElement;
      const themeBtn = document.querySelector('[data-testid="theme-toggle"]') as HTMLElement;
      const len = () => Number(scrubber.getAttribute('aria-valuemax'));
      const pos = () => Number(scrubber.getAttribute('aria-valuenow'));
      const out: number[][] = [];
      // Setup per action, outside the timed part.
      if (action === 'pan') {
        setZoom('2');
        await nextFrame();
        await nextFrame();
      }
      if (action === 'play') {
        const speed = document.querySelector('[data-testid="speed"]') as HTMLSelectElement;
        speed.value = '512';
        speed.dispatchEvent(new Event('change', { bubbles: true }));
        key('Home');
        await nextFrame();
        (document.querySelector('[data-testid="play"]') as HTMLElement).click();
        await nextFrame();
        let last = performance.now();
        for (let i = 0; i < n; i++) {
          await new Promise<void>((r) => requestAnimationFrame(() => r()));
          console.timeStamp(`bench:${action}:${i}`);
          const t = performance.now();
          out.push([t - last, t - last, w.__buddyscope_last_render_ms ?? 0, w.__buddyscope_last_render_full ?? 0]);
          last = t;
        }
        (document.querySelector('[data-testid="play"]') as HTMLElement).click();
        await nextFrame();
        return out;
      }
      const zoomLevels = () => {
        // Fit and the next level in: the option after the one fit stands for.
        const opts = [...zoomSel.options].map((o) => o.value).filter((v) => v !== 'fit');
        const fitText = zoomSel.options[0].textContent ?? '';
        const fit = /pageblocks/.test(fitText) ? '0' : (/\((\d+) px\)/.exec(fitText)?.[1] ?? '1');
        return opts[Math.min(opts.length - 1, opts.indexOf(fit) + 1)];
      };
      const inLevel = action === 'zoom' ? zoomLevels() : '';
      for (let i = 0; i < n; i++) {
        // Untimed preparation: keep steps inside the run, make the theme click a real switch.
        if ((action === 'step' || action === 'op') && pos() >= len() - 2) {
          key('Home');
          await nextFrame();
        }
        // auto → light does not change the colours here (light scheme): skip it untimed.
        if (action === 'redraw' && /auto/.test(themeBtn.textContent ?? '')) {
          themeBtn.click();
          await nextFrame();
        }
        if (action === 'pan' && scroll.scrollTop + scroll.clientHeight * 1.5 >= scroll.scrollHeight) {
          scroll.scrollTop = 0;
          await nextFrame();
          await nextFrame();
        }
        await nextFrame();
        // A marker in Chrome's trace (when one is recording: bench/phases.ts splits it per sample).
        console.timeStamp(`bench:${action}:${i}`);
        const t0 = performance.now();
        switch (action) {
          case 'step':
            key('ArrowRight');
            break;
          case 'op':
            key('ArrowRight', true);
            break;
          case 'jump': {
            // Far positions: the golden-ratio sequence over the track.
            const f = (0.3 + i * 0.6180339887) % 1;
            const r = scrubber.getBoundingClientRect();
            const x = r.left + f * r.width;
            scrubber.dispatchEvent(new PointerEvent('pointerdown', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
            scrubber.dispatchEvent(new PointerEvent('pointerup', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
            break;
          }
          case 'zoom':
            setZoom(i % 2 === 0 ? inLevel : 'fit');
            break;
          case 'pan':
            scroll.scrollTop += Math.round(scroll.clientHeight / 2);
            // The scroll event fires before the next frame; the map repaints its window there.
            break;
          case 'redraw':
            themeBtn.click();
            break;
        }
        await settle();
        const t1 = performance.now();
        await nextFrame();
        const t2 = performance.now();
        out.push([t1 - t0, t2 - t0, w.__buddyscope_last_render_ms ?? 0, w.__buddyscope_last_render_full ?? 0]);
      }
      if (action === 'zoom' || action === 'pan') setZoom('fit');
      if (action === 'redraw') {
        // Back to auto.
        while (!/auto/.test(themeBtn.textContent ?? '')) {
          themeBtn.click();
          await nextFrame();
        }
      }
      await nextFrame();
      return out;
    },
    { action, n },
  );
}

/** First paint of the default scenario on a fresh page: FCP and the first memory-map paint. */
async function firstPaint(browser: Browser, baseURL: string, runs: number): Promise<{ fcp: Stats; map: Stats }> {
  const fcp: number[] = [];
  const map: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await page.goto(baseURL + '/');
    await page.waitForFunction(() => (window as any).__buddyscope_first_map_paint_ms !== undefined, null, { timeout: 30_000 });
    const r = await page.evaluate(() => {
      const p = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
      return { fcp: p ? p.startTime : 0, map: (window as any).__buddyscope_first_map_paint_ms as number };
    });
    fcp.push(r.fcp);
    map.push(r.map);
    await ctx.close();
  }
  return { fcp: stats(fcp), map: stats(map) };
}

export interface Options {
  iterations: number;
  /** Workload steps of the sandbox's first phase (the second has 70 % of it). */
  steps: number;
  firstPaintRuns: number;
  /** Runs of the wasm engine row (0: skip it). */
  engineRuns?: number;
  sizes?: readonly { name: string; pages: number }[];
  /** Record a DevTools trace around each action for the phase times (default true). */
  phases?: boolean;
  log?: (line: string) => void;
}

/** Runs the whole harness in `page` (a fresh context at 1280 × 800). */
export async function measureFrames(page: Page, browser: Browser, baseURL: string, o: Options): Promise<FramesResult> {
  const log = o.log ?? (() => {});
  const firstPaintRes = await firstPaint(browser, baseURL, o.firstPaintRuns);
  log(`first paint: FCP ${firstPaintRes.fcp.median.toFixed(0)} ms, map ${firstPaintRes.map.median.toFixed(0)} ms`);
  await page.goto(baseURL + '/');
  await page.getByRole('heading', { level: 1, name: 'buddyscope' }).waitFor();
  const sizes: SizeResult[] = [];
  for (const size of o.sizes ?? SIZES) {
    const loadMs = await loadZone(page, size.pages, size.name, o.steps);
    const events = Number(await page.getByTestId('scrubber').getAttribute('aria-valuemax'));
    const lod = (await page.getByTestId('memory-map').getAttribute('data-lod')) ?? 'pages';
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // Start a little into the run, where the map has allocations.
    await page.evaluate(() => document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true })));
    const actions: ActionResult[] = [];
    for (const action of ACTIONS) {
      const n = action === 'play' ? Math.max(o.iterations * 4, 8) : o.iterations;
      let samples: number[][];
      let phases: Phases | undefined;
      if (o.phases ?? true) {
        const traced = await withPhases(page, () => sampleInPage(page, action, n));
        samples = traced.result;
        phases = traced.phases;
      } else {
        samples = await sampleInPage(page, action, n);
      }
      const toPaint = await sampleToPaint(page, action, o.iterations);
      // Trusted clicks leave the focus on the scrubber or the theme button: back to the body.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const col = (i: number) => samples.map((s) => s[i]);
      const r: ActionResult = {
        action,
        work: stats(col(0)),
        frame: stats(col(1)),
        map: stats(col(2)),
        full: samples.length ? col(3).filter((f) => f === 1).length / samples.length : 0,
        ...(phases ? { phases } : {}),
        ...(toPaint ? { toPaint } : {}),
      };
      actions.push(r);
      const ph = phases ? `, style ${phases.style.median.toFixed(2)} / layout ${phases.layout.median.toFixed(2)} / paint ${phases.paint.median.toFixed(2)} ms` : '';
      const tp = toPaint ? `, to paint ${toPaint.duration.median.toFixed(0)} ms (${(100 * toPaint.within16).toFixed(0)} % ≤ 16)` : '';
      log(`${size.name} ${action}: work ${r.work.median.toFixed(2)} ms, frame ${r.frame.median.toFixed(2)} ms, map ${r.map.median.toFixed(2)} ms${ph}${tp}`);
    }
    sizes.push({ size: size.name, pages: size.pages, loadMs, events, lod, actions });
  }
  const wasmEngine = await engineInWasm(page, o.engineRuns ?? 3);
  if (wasmEngine) log(`wasm engine, mixed ${wasmEngine.n}: off ${wasmEngine.off.median.toFixed(1)} ms, on ${wasmEngine.on.median.toFixed(1)} ms`);
  const ua = await page.evaluate(() => ({ ua: navigator.userAgent, dpr: devicePixelRatio, cores: navigator.hardwareConcurrency }));
  return {
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      browser: `${browser.browserType().name()} ${browser.version()} (headless)`,
      user_agent: ua.ua,
      device_pixel_ratio: ua.dpr,
      viewport: '1280x800',
    },
    iterations: o.iterations,
    firstPaint: firstPaintRes,
    sizes,
    ...(wasmEngine ? { wasmEngine } : {}),
  };
}

/** The engine bench's mixed sequence in wasm through the app's hook, if the build has it. */
async function engineInWasm(page: Page, runs: number): Promise<FramesResult['wasmEngine']> {
  const n = 1_000_000;
  const r = await page.evaluate(
    ({ n, runs }) => {
      const f = (window as any).__buddyscopeBench;
      if (typeof f !== 'function' || runs <= 0) return null;
      const off: number[] = [];
      const on: number[] = [];
      for (let i = 0; i < runs; i++) {
        off.push(f('mixed', n, false));
        on.push(f('mixed', n, true));
      }
      return { off, on };
    },
    { n, runs },
  );
  return r ? { n, off: stats(r.off), on: stats(r.on) } : undefined;
}

/** A Markdown table of the result (medians; p90 in brackets). */
export function table(r: FramesResult): string {
  const f = (s: Stats) => `${s.median.toFixed(2)} (${s.p90.toFixed(2)})`;
  const lines = [
    '| zone | action | work ms | frame ms | to paint ms (≤ 16 ms) | style / layout / paint ms | map render ms |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const s of r.sizes) {
    for (const a of s.actions) {
      const tp = a.toPaint ? `${a.toPaint.duration.median.toFixed(0)} (${(100 * a.toPaint.within16).toFixed(0)} %)` : '';
      const ph = a.phases ? [a.phases.style, a.phases.layout, a.phases.paint].map((x) => x.median.toFixed(2)).join(' / ') : '';
      lines.push(`| ${s.size} (${s.lod}) | ${a.action} | ${f(a.work)} | ${f(a.frame)} | ${tp} | ${ph} | ${f(a.map)} |`);
    }
  }
  lines.push('');
  lines.push(
    `First paint of the default scenario (median of ${r.firstPaint.fcp.n}): first contentful paint ${r.firstPaint.fcp.median.toFixed(0)} ms, first memory-map paint ${r.firstPaint.map.median.toFixed(0)} ms after navigation start.`,
  );
  lines.push('');
  if (r.wasmEngine) {
    lines.push(
      `Engine in wasm, mixed ${r.wasmEngine.n}-operation sequence (median of ${r.wasmEngine.off.n}): recording off ${r.wasmEngine.off.median.toFixed(1)} ms, on ${r.wasmEngine.on.median.toFixed(1)} ms.`,
    );
    lines.push('');
  }
  lines.push(`Loads (run + first render): ${r.sizes.map((s) => `${s.size} ${s.loadMs} ms (${s.events} events)`).join(', ')}.`);
  return lines.join('\n');
}
