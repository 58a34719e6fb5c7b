import { defineConfig, devices } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The release build that `trunk build --release` writes (scripts/e2e.sh runs it first); E2E_DIST
// names another (the bench build, `dist-bench`: BUDDYSCOPE_BENCH_BUILD=1 bash scripts/e2e.sh).
const DIST = path.resolve(__dirname, '..', process.env.E2E_DIST ?? 'dist');
// Not trunk serve's 8080, so the dev server and the suite can run side by side.
const PORT = Number(process.env.E2E_PORT ?? 4180);
// The same dist/ served only under a sub-path, as `trunk build --public-url /some/sub/path/`
// would have built it (tests/offline.spec.ts; static_server.py --prefix explains the rewrite).
const SUBPATH_PORT = PORT + 100;

if (!fs.existsSync(path.join(DIST, 'index.html'))) {
  throw new Error(`${DIST}/index.html is missing: run \`trunk build --release\` (or bash scripts/e2e.sh) first`);
}

// System Chromium from Debian: Playwright never downloads browsers here.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox', // runs as root
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking', // else Chromium keeps trying to reach the internet
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // Two cores: one browser at a time keeps timings steady. E2E_WORKERS=2 runs two (the suite
  // asserts no timings; the benchmark harnesses, bench/playwright.config.ts, always run one).
  workers: Number(process.env.E2E_WORKERS ?? 1),
  forbidOnly: !!process.env.CI,
  // scripts/test.sh retries a failed test once (E2E_RETRIES=1): a test that fails twice fails the
  // run, one that passes on its retry is reported as flaky, by name, at the end of the output.
  retries: Number(process.env.E2E_RETRIES ?? 0),
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // A recorded trace snapshots the DOM at every action and screencasts every frame (a full-window
    // redraw in headless Chromium's software compositor): about a third of the suite's time. CI
    // keeps no files of a run, only what it prints, so there (and in scripts/test.sh, E2E_TRACE=off)
    // the trace is off; `bash scripts/e2e.sh` alone keeps a failed test's trace.
    trace: (process.env.E2E_TRACE as 'off' | 'retain-on-failure' | undefined) ?? (process.env.CI ? 'off' : 'retain-on-failure'),
    screenshot: 'only-on-failure',
    // One browser context per worker, reset between tests (Playwright clears cookies, cache,
    // local storage and IndexedDB, closes extra pages, removes routes, bindings and init scripts,
    // and re-applies viewport and emulation) instead of a new one per test: a new context and
    // its renderer cost ~0.5 s of CPU, and the page's renderer, kept across tests, keeps V8's
    // compiled wasm, so a test's app start costs about half. A test.use of another context
    // option (deviceScaleFactor, hasTouch, serviceWorkers, ...) gets a fresh context. Not reset:
    // permissions granted, setOffline/setGeolocation, the tab's history, window.name.
    // E2E_REUSE_CONTEXT=0 gives every test a new context (to rule a leak out).
    reuseContext: process.env.E2E_REUSE_CONTEXT !== '0',
    // The offline service worker (www/sw.js) re-fetches and caches the whole shell on every
    // first visit, beside the test: only tests/offline.spec.ts, which tests it, allows it.
    serviceWorkers: 'block',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
      },
    },
  ],
  webServer: [
    {
      // python's http.server, quiet and with no-store (static_server.py).
      command: `python3 "${path.join(__dirname, 'static_server.py')}" ${PORT} "${DIST}"`,
      url: `http://127.0.0.1:${PORT}/`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `python3 "${path.join(__dirname, 'static_server.py')}" ${SUBPATH_PORT} "${DIST}" --prefix /some/sub/path/`,
      url: `http://127.0.0.1:${SUBPATH_PORT}/some/sub/path/`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
