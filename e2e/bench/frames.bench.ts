// The frame harness at full size: `bash scripts/bench-frames.sh` (not part of the test suite).
// BENCH_ITER (default 15) samples per action and size, BENCH_STEPS (default 3000) workload steps,
// BENCH_PAINT_RUNS (default 7) fresh navigations for the first paint, BENCH_ENGINE_RUNS (default 3)
// runs of the wasm engine row when the build has the bench hook. Prints a Markdown table and
// writes e2e/artifacts/bench-frames.json.
import { test } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { measureFrames, table } from './frames';

test('frame times per zone size and action', async ({ page, browser, baseURL }) => {
  test.setTimeout(30 * 60_000);
  const env = (k: string, d: number) => Number(process.env[k] ?? d);
  const r = await measureFrames(page, browser, baseURL!, {
    iterations: env('BENCH_ITER', 15),
    steps: env('BENCH_STEPS', 3000),
    firstPaintRuns: env('BENCH_PAINT_RUNS', 7),
    engineRuns: env('BENCH_ENGINE_RUNS', 3),
    log: (l) => console.log(l),
  });
  const dir = path.join(__dirname, '..', 'artifacts');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'bench-frames.json'), JSON.stringify(r, null, 2));
  console.log('\nmachine: ' + JSON.stringify(r.machine));
  console.log('\n' + table(r) + '\n');
  console.log(`wrote ${path.join(dir, 'bench-frames.json')}`);
});
