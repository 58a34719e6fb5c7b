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
});
