// What a jump (or step, play frame) makes the browser redo after the app's DOM writes: a DevTools
// trace with Chrome's invalidation tracking around BENCH_INV_N (default 10) samples of
// BENCH_INV_ACTION (default jump) at BENCH_INV_PAGES pages (default 262144), 1366 × 900. Prints
// per sample the style recalculation's element count and the layout's dirty / total objects,
// then which nodes invalidated layout and style, and why, summed over the samples.
//   BENCH_INV_ACTION=jump bash scripts/bench-frames.sh bench/invalidation.bench.ts
import { test } from '@playwright/test';
import { openZone, sampleInPage, type Action } from './frames';

test('layout and style invalidations of an action', async ({ browser, baseURL }) => {
  test.setTimeout(10 * 60_000);
  const pages = Number(process.env.BENCH_INV_PAGES ?? 262144);
  const n = Number(process.env.BENCH_INV_N ?? 10);
  const action = (process.env.BENCH_INV_ACTION ?? 'jump') as Action;
  const page = await openZone(browser, baseURL ?? '', pages);
  const ctx = page.context();
  await page.evaluate(() => document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true })));
  // One untraced round first: the first jump of a page warms caches.
  await sampleInPage(page, action, 2);
  const cdp = await ctx.newCDPSession(page);
  const events: any[] = [];
  cdp.on('Tracing.dataCollected', (d: any) => events.push(...d.value));
  const complete = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', {
    traceConfig: {
      includedCategories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'disabled-by-default-devtools.timeline.invalidationTracking',
      ],
    },
    transferMode: 'ReportEvents',
  });
  await sampleInPage(page, action, n);
  await cdp.send('Tracing.end');
  await complete;
  const main = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message?.startsWith('bench:'));
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const lines: string[] = [];
  for (const e of mine.sort((a, b) => a.ts - b.ts)) {
    if (e.name === 'TimeStamp') lines.push(`-- ${e.args.data.message}`);
    if (e.name === 'UpdateLayoutTree' && e.ph === 'X')
      lines.push(`   style ${(e.dur / 1000).toFixed(2)} ms, ${e.args?.elementCount ?? '?'} elements`);
    if (e.name === 'Layout' && e.ph === 'X') {
      const b = e.args?.beginData ?? {};
      lines.push(`   layout ${(e.dur / 1000).toFixed(2)} ms, dirty ${b.dirtyObjects} of ${b.totalObjects}${b.partialLayout ? ' (partial)' : ''}, roots ${JSON.stringify((e.args?.endData?.layoutRoots ?? []).map((r: any) => r.nodeName ?? r.nodeId))}`);
    }
    if (e.name === 'Paint' && e.ph === 'X') lines.push(`   paint ${(e.dur / 1000).toFixed(2)} ms ${e.args?.data?.nodeName ?? ''}`);
  }
  console.log(lines.join('\n'));
  const count = (name: string, key: (e: any) => string) => {
    const m = new Map<string, number>();
    for (const e of mine.filter((x) => x.name === name)) m.set(key(e), (m.get(key(e)) ?? 0) + 1);
    console.log(`\n${name}:`);
    for (const [k, v] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${String(v).padStart(6)}  ${k}`);
  };
  count('LayoutInvalidationTracking', (e) => `${e.args?.data?.reason} ${e.args?.data?.nodeName}`);
  count('StyleRecalcInvalidationTracking', (e) => `${e.args?.data?.reason?.type ?? JSON.stringify(e.args?.data?.reason)} ${e.args?.data?.nodeName}`);
  count('StyleInvalidatorInvalidationTracking', (e) => `${e.args?.data?.reason} ${e.args?.data?.nodeName} ${JSON.stringify(e.args?.data?.invalidationList ?? e.args?.data?.selectors ?? '')}`.slice(0, 200));
  count('ScheduleStyleInvalidationTracking', (e) => `${e.args?.data?.changedClass ?? e.args?.data?.changedAttribute ?? e.args?.data?.changedPseudo ?? e.args?.data?.changedId ?? ''} ${e.args?.data?.nodeName}`);
  await ctx.close();
});
