// Two builds side by side, interleaved: on a shared machine the load changes from minute to
// minute, so a before/after comparison is only fair when both builds are measured in turns in
// the same minutes. BENCH_AB="name=dir,name=dir" (two release `dist/` directories, e.g. a copy
// of the base branch's and this branch's), BENCH_AB_ROUNDS (default 7) rounds; per round and
// build: one cold first paint (bench/firstpaint.ts) and BENCH_ITER (default 10) samples of each of
// BENCH_AB_ACTIONS (default jump,step; any of bench/frames.ts ACTIONS, `play` takes 4x as many
// frame intervals) on the sandbox workload at BENCH_AB_PAGES pages (default 262144,4194304;
// 0 for first paint only), a little into the run as the frame harness does. Prints the medians
// per build. Not part of the test suite: it measures, it asserts nothing.
//
//   BENCH_AB="before=/tmp/dist-base,after=dist" bash scripts/bench-frames.sh bench/ab.bench.ts
import { test, type Browser, type Page } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { measureFirstPaint } from './firstpaint';
import { openZone, sampleInPage, serveDist, stats, type Action } from './frames';
import { withPhases } from './phases';
import { toPaintSamples } from './topaint';

interface Build {
  name: string;
  url: string;
  server: ChildProcess;
}

const BASE_PORT = Number(process.env.E2E_PORT ?? 4180) + 300;

async function actions(browser: Browser, url: string, pages: number, n: number, which: Action[]): Promise<Record<string, number[]>> {
  const page: Page = await openZone(browser, url, pages);
  const ctx = page.context();
  const out: Record<string, number[]> = {};
  await page.evaluate(() => document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true })));
  // The renderer's own phase times (Chrome's Performance domain: seconds spent in style
  // recalculation, layout and script), per sample: less distorted by a loaded machine than the
  // wall time from input to frame, which includes waiting for the CPU.
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () =>
    Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
  for (const action of which) {
    const k = action === 'play' ? n * 4 : n;
    const m0 = await metrics();
    const traced = await withPhases(page, () => sampleInPage(page, action, k));
    const s = traced.result;
    const m1 = await metrics();
    out[`${action} work`] = s.map((x) => x[0]);
    out[`${action} frame`] = s.map((x) => x[1]);
    // Per sample, from the DevTools trace (bench/phases.ts): the renderer's main-thread time.
    for (const [label, xs] of Object.entries(traced.perSample)) out[`${action} ${label}`] = xs;
    // The browser's input to paint of trusted inputs (bench/topaint.ts), where one drives it.
    const tp = await toPaintSamples(page, action, k);
    if (tp) {
      out[`${action} to paint (Event Timing)`] = tp.map((r) => r[0]);
      out[`${action} to paint ≤ 16 ms (% of inputs)`] = [(100 * tp.filter((r) => r[0] <= 16).length) / tp.length];
      out[`${action} input delay`] = tp.map((r) => r[1]).filter(Number.isFinite);
      out[`${action} processing`] = tp.map((r) => r[2]).filter(Number.isFinite);
      out[`${action} presentation`] = tp.map((r) => r[3]).filter(Number.isFinite);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    }
    for (const [name, label] of [
      ['RecalcStyleDuration', 'style'],
      ['LayoutDuration', 'layout'],
      ['ScriptDuration', 'script'],
    ]) {
      // Means over the traced samples (the trace adds its own overhead to both builds alike).
      out[`${action} ${label} (mean)`] = [(1000 * (m1[name] - m0[name])) / k];
    }
  }
  await ctx.close();
  return out;
}

test('two builds, interleaved', async ({ browser }) => {
  test.setTimeout(60 * 60_000);
  const spec = process.env.BENCH_AB;
  test.skip(!spec, 'set BENCH_AB="name=dir,name=dir"');
  const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 7);
  const n = Number(process.env.BENCH_ITER ?? 10);
  const which = (process.env.BENCH_AB_ACTIONS ?? 'jump,step').split(',') as Action[];
  const sizes = (process.env.BENCH_AB_PAGES ?? '262144,4194304').split(',').map(Number).filter((p) => p > 0);
  const builds: Build[] = [];
  for (const [i, item] of spec!.split(',').entries()) {
    const [name, dir] = item.split('=');
    builds.push({ name, ...(await serveDist(dir, BASE_PORT + i)) });
  }
  // samples[build][quantity] = every sample of every round
  const samples = new Map<string, Map<string, number[]>>(builds.map((b) => [b.name, new Map()]));
  const add = (b: string, k: string, xs: number[]) => {
    const m = samples.get(b)!;
    m.set(k, [...(m.get(k) ?? []), ...xs]);
  };
  try {
    for (let r = 0; r < rounds; r++) {
      // Alternate which build goes first, so neither always runs on the warmer machine.
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) {
        const fp = await measureFirstPaint(browser, b.url, 1);
        for (const [k, v] of Object.entries(fp.median)) add(b.name, `first paint ${k}`, [v]);
        for (const pages of sizes) {
          const js = await actions(browser, b.url, pages, n, which);
          for (const [k, v] of Object.entries(js)) add(b.name, `${pages} pages: ${k}`, v);
        }
      }
      console.log(`round ${r + 1}/${rounds} done`);
    }
  } finally {
    for (const b of builds) b.server.kill();
  }
  const keys = [...samples.get(builds[0].name)!.keys()];
  console.log(`\n| ms, median (p90) | ${builds.map((b) => b.name).join(' | ')} |`);
  console.log(`|---|${builds.map(() => '---:').join('|')}|`);
  for (const k of keys) {
    const cells = builds.map((b) => {
      const s = stats(samples.get(b.name)!.get(k) ?? []);
      return `${s.median.toFixed(1)} (${s.p90.toFixed(1)})`;
    });
    console.log(`| ${k} | ${cells.join(' | ')} |`);
  }
});
