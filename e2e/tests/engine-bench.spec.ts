// The engine in wasm on the criterion bench's mixed sequence (window.__buddyscopeBench, app/src/bench.rs):
// the wasm side of BENCHMARKS.md's "wasm vs native" table. Not a timed test: it checks that the hook
// runs and returns sane numbers, and prints the medians (and writes e2e/artifacts/engine-bench.json).
// The native side is `buddyscope bench-engine` on the same machine. The hook is the bench build's
// (`--features bench`): against the shipped build the test is skipped.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, expect, openApp, isBenchBuild, ARTIFACTS_DIR, NEEDS_BENCH_BUILD } from '../fixtures';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

test('the engine bench hook runs the mixed sequence in wasm, recording off and on', async ({ page }) => {
  test.setTimeout(600_000);
  await openApp(page);
  test.skip(!(await isBenchBuild(page)), NEEDS_BENCH_BUILD);
  const out: Record<string, number[]> = {};
  for (const record of [false, true]) {
    const key = record ? 'recording_on' : 'recording_off';
    out[key] = [];
    for (let i = 0; i < RUNS; i++) {
      const ms = await page.evaluate(
        ([n, r]) => (window as any).__buddyscopeBench('mixed', n, r) as number,
        [STEPS, record] as [number, boolean],
      );
      expect(Number.isFinite(ms)).toBe(true);
      expect(ms).toBeGreaterThan(0);
      out[key].push(ms);
    }
  }
  const unknown = await page.evaluate(() => (window as any).__buddyscopeBench('nope', 10, false) as number);
  expect(Number.isNaN(unknown)).toBe(true);
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const summary = {
    steps: STEPS,
    runs: RUNS,
    recording_off_median_ms: median(out.recording_off),
    recording_on_median_ms: median(out.recording_on),
    all_ms: out,
  };
  console.log(`engine-bench (wasm): ${JSON.stringify(summary)}`);
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS_DIR, 'engine-bench.json'), JSON.stringify(summary, null, 2) + '\n');
});
