// The benchmark harnesses (e2e/bench/*.bench.ts): the suite's browser and servers, no timeout
// pressure, one run. `bash scripts/bench-frames.sh` uses it.
import { defineConfig } from '@playwright/test';
import * as path from 'node:path';
import base from '../playwright.config';

export default defineConfig({
  ...base,
  testDir: __dirname,
  testMatch: /.*\.bench\.ts/,
  // No Playwright trace: its screenshots are a screencast, a copy of every frame (a viz
  // CopyOutputRequest), which makes the display redraw the whole window each frame (15-25 ms of
  // software compositing here, bench/rastertrace.bench.ts) and adds that to every input's
  // presentation and every playback frame. The suite keeps its trace-on-failure.
  use: { ...base.use, trace: 'off' },
  outputDir: path.join(__dirname, '..', 'test-results', 'bench'),
  timeout: 30 * 60_000,
  reporter: [['list']],
  retries: 0,
  // No Playwright trace: recording one snapshots the DOM at every action (its snapshotter walks
  // every node and forces style and layout), which runs on the page's main thread in the middle
  // of the load being measured (~900 forced updates before the first paint of a cold load).
  use: { ...base.use, trace: 'off' },
});
