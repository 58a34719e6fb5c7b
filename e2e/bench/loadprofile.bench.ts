// Where a cold load's time goes before the map is on screen: the V8 sampling profiler
// (Chrome DevTools Protocol) from the page's first script until the first-paint probe of
// bench/firstpaint.ts fires, BENCH_LOAD_RUNS (default 3) loads, the top functions by self time
// per load (a release build names its wasm functions when built with BUDDYSCOPE_WASM_NAMES=1).
// `bash scripts/bench-frames.sh bench/loadprofile.bench.ts`. Not part of the test suite.
import { test } from '@playwright/test';
import { hookCanvas } from './firstpaint';

test('profile of a cold load up to the map on screen', async ({ browser, baseURL }) => {
  test.setTimeout(10 * 60_000);
  const runs = Number(process.env.BENCH_LOAD_RUNS ?? 3);
  const self = new Map<string, number>();
  const shown: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 }, serviceWorkers: 'block' });
    const page = await ctx.newPage();
    await page.goto('about:blank');
    await page.addInitScript(hookCanvas);
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    // A console profile from the page's first script to the first-paint probe: exactly the load
    // up to the map on screen, not the run and the panels that follow it (a profile stopped from
    // here, after the harness noticed the probe, would take in some of them).
    await page.addInitScript(() => {
      console.profile('bs-load');
      (window as any).__bsOnMapShown = () => console.profileEnd('bs-load');
    });
    const finished = new Promise<any>((resolve) => cdp.on('Profiler.consoleProfileFinished', (e: any) => resolve(e.profile)));
    await page.goto(baseURL + '/');
    const profile = await finished;
    shown.push(await page.evaluate(() => (window as any).__bsFirstMapShown as number));
    const dt = profile.timeDeltas as number[];
    const byId = new Map<number, any>(profile.nodes.map((x: any) => [x.id, x]));
    profile.samples.forEach((id: number, j: number) => {
      const nd = byId.get(id);
      const name = `${nd.callFrame.functionName || '(anonymous)'} ${nd.callFrame.url.split('/').pop()}:${nd.callFrame.lineNumber}`;
      self.set(name, (self.get(name) ?? 0) + (dt[j] ?? 0) / 1000 / runs);
    });
    await ctx.close();
  }
  console.log(`map on screen (ms after navigation start): ${shown.map((x) => x.toFixed(0)).join(', ')}; self time per load:`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
});
