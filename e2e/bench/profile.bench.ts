// Where a step's time goes: the V8 sampling profiler (Chrome DevTools Protocol) around
// BENCH_PROFILE_N (default 20) samples of BENCH_PROFILE_ACTION (default step) on a zone of
// BENCH_PROFILE_PAGES (default 4194304) pages; prints the top functions by self time.
// `bash scripts/bench-frames.sh bench/profile.bench.ts`.
import { test } from '@playwright/test';
import { scenarioText } from './frames';

test('profile of an action on a big zone', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  const pages = Number(process.env.BENCH_PROFILE_PAGES ?? 4194304);
  const n = Number(process.env.BENCH_PROFILE_N ?? 20);
  const action = process.env.BENCH_PROFILE_ACTION ?? 'step';
  await page.goto('/');
  await page.getByTestId('scenario-editor').fill(scenarioText(pages, 'profiled', 3000));
  await page.getByTestId('scenario-run').click();
  await page.getByTestId('scenario-name').filter({ hasText: 'profiled' }).waitFor({ timeout: 120_000 });
  await page.evaluate(() => document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true })));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const t = await page.evaluate(
    async ({ n, action }) => {
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const key = (k: string, shift = false) =>
        document.body.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey: shift, bubbles: true }));
      const s = document.querySelector('[data-testid="scrubber"]') as HTMLElement;
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        await frame();
        const t0 = performance.now();
        if (action === 'jump') {
          const r = s.getBoundingClientRect();
          const x = r.left + ((0.3 + i * 0.618) % 1) * r.width;
          s.dispatchEvent(new PointerEvent('pointerdown', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
          s.dispatchEvent(new PointerEvent('pointerup', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
        } else key('ArrowRight', action === 'op');
        await new Promise((r) => setTimeout(r, 0));
        out.push(performance.now() - t0);
      }
      return out;
    },
    { n, action },
  );
  const { profile } = (await cdp.send('Profiler.stop')) as any;
  const self = new Map<string, number>();
  const dt = profile.timeDeltas as number[];
  const byId = new Map<number, any>(profile.nodes.map((x: any) => [x.id, x]));
  profile.samples.forEach((id: number, i: number) => {
    const nd = byId.get(id);
    const name = `${nd.callFrame.functionName || '(anonymous)'} ${nd.callFrame.url.split('/').pop()}:${nd.callFrame.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
  console.log(`${action} x${n} on ${pages} pages, work ms: ${t.map((x) => x.toFixed(1)).join(' ')}`);
  for (const [k, v] of top) console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
});
