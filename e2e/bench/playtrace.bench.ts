// Does the harness's own DevTools trace (bench/phases.ts, around every action's samples in
// frames.bench.ts and ab.bench.ts) slow playback? Alternates BENCH_PT_ROUNDS (default 3) times
// between BENCH_PT_N (default 40) playback frame intervals untraced and the same under
// withPhases, at BENCH_PT_PAGES pages (default 262144), 1366 × 900, and prints the medians.
// Not part of the test suite.
//   bash scripts/bench-frames.sh bench/playtrace.bench.ts
import { test } from '@playwright/test';
import { openZone, sampleInPage, stats } from './frames';
import { withPhases } from './phases';

test('playback with and without the DevTools trace', async ({ browser, baseURL }) => {
  test.setTimeout(20 * 60_000);
  const pages = Number(process.env.BENCH_PT_PAGES ?? 262144);
  const n = Number(process.env.BENCH_PT_N ?? 40);
  const rounds = Number(process.env.BENCH_PT_ROUNDS ?? 3);
  const page = await openZone(browser, baseURL ?? '', pages);
  const ctx = page.context();
  const plain: number[] = [];
  const traced: number[] = [];
  for (let r = 0; r < rounds; r++) {
    plain.push(...(await sampleInPage(page, 'play', n)).slice(1).map((s) => s[1]));
    traced.push(...(await withPhases(page, () => sampleInPage(page, 'play', n))).result.slice(1).map((s) => s[1]));
  }
  const f = (xs: number[]) => {
    const s = stats(xs);
    return `median ${s.median.toFixed(1)} ms (p90 ${s.p90.toFixed(1)}), n ${s.n}`;
  };
  console.log(`play interval untraced: ${f(plain)}`);
  console.log(`play interval under the DevTools trace: ${f(traced)}`);
  await ctx.close();
});
