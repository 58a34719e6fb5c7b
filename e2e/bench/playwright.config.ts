// The benchmark harnesses (e2e/bench/*.bench.ts): the suite's browser and servers, no timeout
// pressure, one run. `bash scripts/bench-frames.sh` uses it.
import { defineConfig } from '@playwright/test';
import * as path from 'node:path';
import base from '../playwright.config';

export default defineConfig({
  ...base,
  testDir: __dirname,
  testMatch: /.*\.bench\.ts/,
  outputDir: path.join(__dirname, '..', 'test-results', 'bench'),
  timeout: 30 * 60_000,
  reporter: [['list']],
  retries: 0,
  // One browser at a time: the figures are the point, and a second browser would share the cores.
  workers: 1,
  // No Playwright trace (the suite keeps its trace-on-failure). Recording one snapshots the DOM
  // at every action (its snapshotter walks every node and forces style and layout: ~900 forced
  // updates before the first paint of a cold load), and its screenshots are a screencast, a copy
  // of every frame (a viz CopyOutputRequest) that makes the display redraw the whole window each
  // frame (15-25 ms of software compositing here, bench/rastertrace.bench.ts), added to every
  // input's presentation and every playback frame.
  use: { ...base.use, trace: 'off' },
});
