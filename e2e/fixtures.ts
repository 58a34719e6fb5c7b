// Shared fixtures and helpers for every e2e test. Import `test` and `expect` from here, not from
// '@playwright/test':
//
//   import { test, expect, saveScreenshot } from '../fixtures';
//
// - Every test fails if the page logs a console error, throws (pageerror) or gets an HTTP error
//   response. A test that expects errors opts out with `test.use({ allowErrors: true })` and can
//   inspect them through the `pageErrors` fixture.
// - saveScreenshot(page, name) writes e2e/artifacts/<name>.png (gitignored) and attaches it to the
//   report.
// - runCli(args) runs the native engine CLI (target/debug/buddyscope, built by scripts/e2e.sh).
import { test as base, expect, type Page, type Locator } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export { expect };

export const REPO_ROOT = path.resolve(__dirname, '..');
export const ARTIFACTS_DIR = path.join(__dirname, 'artifacts');

type Fixtures = {
  /** Set to true (test.use) for tests that expect console/page errors. */
  allowErrors: boolean;
  /** Console errors, uncaught exceptions and HTTP error responses seen so far, one string each. */
  pageErrors: string[];
};

export const test = base.extend<Fixtures>({
  allowErrors: [false, { option: true }],
  pageErrors: [
    async ({ page, allowErrors }, use) => {
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') {
          const loc = msg.location();
          errors.push(`console.error: ${msg.text()}${loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
        }
      });
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.stack ?? err.message}`));
      page.on('response', (res) => {
        if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
      });
      page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
      await use(errors);
      if (!allowErrors) {
        expect(errors, 'console errors, page errors or failed requests').toEqual([]);
      }
    },
    { auto: true },
  ],
});

/** Why a test that measures speed is skipped: the timings it reads exist only in the bench build. */
export const NEEDS_BENCH_BUILD =
  'measures speed: the timing hooks exist only in the bench build (trunk build --release --features bench): ' +
  'BUDDYSCOPE_BENCH_BUILD=1 bash scripts/e2e.sh, or scripts/bench-frames.sh';

/** True when the page is the bench build (the app's `bench` feature: `window.__buddyscopeBench`
 * and the map's and the worker hand-over's timings on `window`). */
export async function isBenchBuild(page: Page): Promise<boolean> {
  return page.evaluate(() => typeof (window as any).__buddyscopeBench === 'function');
}

/** The memory map's last render: `"tiles"` (only the tiles that changed) or `"full"`, read once
 * the frame has been rendered. */
export async function mapPaint(page: Page): Promise<string | null> {
  return page.evaluate(
    () =>
      new Promise<string | null>((r) =>
        requestAnimationFrame(() => r(document.querySelector('[data-testid=memory-map]')!.getAttribute('data-paint'))),
      ),
  );
}

/** Loads the app and waits until it has mounted (the header is rendered by the wasm app) and
 * the panels below the fold, which mount a frame after the first paint, are there too. */
export async function openApp(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
  await waitForPanels(page);
}

/** Waits for the default scenario's run and the panels below the fold, both after the first
 * paint (app/src/panels/deferred.rs: the root's `data-run="done"`, `data-panels="all"`). */
export async function waitForPanels(page: Page): Promise<void> {
  await expect(page.locator('.app-root')).toHaveAttribute('data-run', 'done');
  await expect(page.locator('.app-root')).toHaveAttribute('data-panels', 'all');
}

/** Screenshot of the page (or of one element) to e2e/artifacts/<name>.png. With
 * E2E_SCREENSHOTS=off (scripts/test.sh: CI keeps no files) none is taken, only an element's
 * visibility is awaited as its screenshot would: a full-page one of the app (~5000 px tall)
 * costs ~0.4 s of CPU, and the suite takes ~60. */
export async function saveScreenshot(page: Page, name: string, target?: Locator): Promise<string> {
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  if (process.env.E2E_SCREENSHOTS === 'off') {
    if (target) await target.waitFor({ state: 'visible' });
    return file;
  }
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const body = target ? await target.screenshot({ path: file }) : await page.screenshot({ path: file, fullPage: true });
  await test.info().attach(name, { body, contentType: 'image/png' });
  return file;
}

/** Path of the native CLI binary that scripts/e2e.sh builds (honours CARGO_TARGET_DIR). */
export function cliPath(): string {
  const target = process.env.CARGO_TARGET_DIR
    ? path.resolve(REPO_ROOT, process.env.CARGO_TARGET_DIR)
    : path.join(REPO_ROOT, 'target');
  return path.join(target, 'debug', 'buddyscope');
}

/**
 * Runs the native CLI with `args` from the repository root and returns its stdout, e.g.
 * `runCli(['run', 'engine/scenarios/x.json', '--format', 'buddyinfo'])`. Throws (with stderr in the
 * message) on a non-zero exit.
 */
export function runCli(args: string[]): string {
  const bin = cliPath();
  if (!fs.existsSync(bin)) {
    throw new Error(`${bin} not found: build it with \`cargo build -p buddyscope-engine --bin buddyscope\``);
  }
  try {
    return execFileSync(bin, args, {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const err = e as { status?: number; stderr?: string };
    throw new Error(`buddyscope ${args.join(' ')} exited with ${err.status}: ${err.stderr ?? ''}`);
  }
}

/** The app served only under a sub-path (playwright.config.ts's second web server). */
export const SUBPATH = '/some/sub/path/';
export function subpathOrigin(): string {
  return `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4180) + 100}`;
}

/**
 * The visible frame: every free-list, pcp and counter cell (testid → text) and the narration.
 * Two pages showing the same frame give equal snapshots.
 */
export async function frameSnapshot(page: Page, root = 'body'): Promise<Record<string, string>> {
  return page.evaluate((root) => {
    const out: Record<string, string> = {};
    for (const el of document.querySelector(root)?.querySelectorAll('[data-testid]') ?? []) {
      const id = el.getAttribute('data-testid') ?? '';
      if (/^(freelist-|pcp-|counter-|nr-free-|compare-)/.test(id) || ['narration', 'position', 'side-progress'].includes(id)) {
        out[id] = (el.textContent ?? '').trim();
      }
    }
    return out;
  }, root);
}

/** The map canvas's geometry, as it publishes it in data attributes (app/src/panels/memmap). */
export type MapGeometry = { cell: number; pad: number; tileW: number; tileH: number; perRow: number; start: number };

export async function mapGeometry(page: Page): Promise<MapGeometry> {
  return page.getByTestId('memory-map').evaluate((c) => ({
    cell: Number(c.dataset.cell),
    pad: Number(c.dataset.pad),
    tileW: Number(c.dataset.tileW),
    tileH: Number(c.dataset.tileH),
    perRow: Number(c.dataset.perRow),
    start: Number(c.dataset.startPfn),
  }));
}

/** The centre of zone page `idx` in the canvas's CSS pixels: a pageblock is a tile of 32×16
 * cells, tiles in rows of `perRow`. */
export function mapPagePoint(g: MapGeometry, idx: number): { x: number; y: number } {
  const pb = Math.floor(idx / 512);
  const i = idx % 512;
  return {
    x: (pb % g.perRow) * g.tileW + g.pad + (i % 32) * g.cell + g.cell / 2,
    y: Math.floor(pb / g.perRow) * g.tileH + g.pad + Math.floor(i / 32) * g.cell + g.cell / 2,
  };
}

/** Clicks zone page `idx` on the map; returns its absolute pfn. */
export async function clickMapPage(page: Page, idx: number): Promise<number> {
  const g = await mapGeometry(page);
  await page.getByTestId('memory-map').click({ position: mapPagePoint(g, idx) });
  return g.start + idx;
}

/** Moves the mouse over zone page `idx` on the map; returns its absolute pfn. */
export async function hoverMapPage(page: Page, idx: number): Promise<number> {
  const g = await mapGeometry(page);
  const box = (await page.getByTestId('memory-map').boundingBox())!;
  const p = mapPagePoint(g, idx);
  await page.mouse.move(box.x + p.x, box.y + p.y);
  return g.start + idx;
}

/** Pageblocks per migratetype from `buddyscope run FILE --format pagetypeinfo --ops K`
 * ("Number of blocks type" and the zone's row). */
export function cliPageblocks(file: string, ops: number): Record<string, number> {
  const out = runCli(['run', file, '--format', 'pagetypeinfo', '--ops', String(ops)]);
  const lines = out.split('\n');
  const h = lines.findIndex((l) => l.startsWith('Number of blocks type'));
  const names = lines[h].replace('Number of blocks type', '').trim().split(/\s+/);
  const nums = lines[h + 1].trim().split(/\s+/).slice(-names.length).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, nums[i]]));
}

/** Pageblocks per migratetype from the map's text alternative ("… pageblocks (16 Movable, 32 CMA)"). */
export function appPageblocks(label: string): Record<string, number> {
  const m = /pageblocks \(([^)]*)\)/.exec(label);
  if (!m) throw new Error(`no pageblock counts in: ${label}`);
  return Object.fromEntries(
    m[1].split(', ').map((s) => {
      const [n, name] = s.split(' ');
      return [name, Number(n)];
    }),
  );
}
