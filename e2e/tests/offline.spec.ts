// Static and offline: the release build served under a sub-path loads (every
// asset, the wasm, the example page and the service worker live under it), and after one visit
// the service worker keeps it working with the network off.
import { test, expect, SUBPATH, subpathOrigin, saveScreenshot, waitForPanels } from '../fixtures';

// The suite blocks service workers (playwright.config.ts): this file tests the app's.
test.use({ serviceWorkers: 'allow' });

test('the app loads under a sub-path and again offline', async ({ page, context }) => {
  const requests: string[] = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  // The modules split off the main wasm load after the first paint, one after another (the
  // runner, then the deferred panels and their chunks): a reload while one is in flight aborts
  // it, which is the test leaving early, not a failed load. So every reload waits for the
  // panels they hold (the page history), for the network to be quiet and for every wasm
  // request to end.
  const wasmInFlight = new Set<unknown>();
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('.wasm')) wasmInFlight.add(r);
  });
  page.on('requestfinished', (r) => wasmInFlight.delete(r));
  page.on('requestfailed', (r) => wasmInFlight.delete(r));
  const settled = async () => {
    await expect(page.getByTestId('page-history')).toBeAttached();
    await page.waitForLoadState('networkidle');
    await expect.poll(() => wasmInFlight.size).toBe(0);
  };
  const base = `${subpathOrigin()}${SUBPATH}`;
  await page.goto(`${base}?scenario=fallback-claim`);
  await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await settled();
  // Nothing was asked for outside the sub-path (the static server would 404 it).
  expect(requests.filter((p) => !p.startsWith(SUBPATH))).toEqual([]);
  expect(requests.some((p) => p.endsWith('_bg.wasm'))).toBe(true);

  // The service worker is scoped to the sub-path and controls the page once active.
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  expect(scope).toBe(base);
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await settled();

  await context.setOffline(true);
  try {
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
    await page.getByTestId('op-forward').click();
    await expect(page.getByTestId('position')).toContainText('op 1 /');
    await expect(page.getByTestId('error-banner')).toHaveCount(0);
    await saveScreenshot(page, 'offline-subpath');
    await settled();
    // The example deck, too (it was cached with the shell).
    await page.goto(`${base}embed-example.html`);
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('host-state')).toHaveAttribute('data-pos', '0');
  } finally {
    await context.setOffline(false);
  }
});

test('nothing is loaded from another host', async ({ page }) => {
  const foreign: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol.startsWith('http') && u.hostname !== '127.0.0.1') foreign.push(r.url());
  });
  // The modules split off the main wasm load after the first paint: a navigation while they are
  // in flight aborts them, which is the test leaving early, not a failed load. So the test waits
  // for the panels they hold (the page history) and for every wasm request to end.
  const wasmInFlight = new Set<unknown>();
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('.wasm')) wasmInFlight.add(r);
  });
  page.on('requestfinished', (r) => wasmInFlight.delete(r));
  page.on('requestfailed', (r) => wasmInFlight.delete(r));
  await page.goto('/');
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await expect(page.getByTestId('page-history')).toBeAttached();
  await expect.poll(() => wasmInFlight.size).toBe(0);
  await page.goto('/embed-example.html');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('host-state')).toHaveAttribute('data-pos', '0');
  expect(foreign).toEqual([]);
});

// The built-ins other than the default, the exercise sets and the pseudocode are not in the wasm
// (scripts/wasm-split.sh writes them to one data file, texts-<hash>.json, which the page fetches
// after its first paint): a built-in picked from the list, one named by a share link and one
// named by the address load, online and, after one visit, offline.
test('a built-in other than the default loads from the list, a share link and offline', async ({ page, context }) => {
  const texts: string[] = [];
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (/\/texts-[0-9a-f]{16}\.json$/.test(p)) texts.push(p);
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const base = `${subpathOrigin()}${SUBPATH}`;
  // Loaded: the run, the panels and the pseudocode of the current step.
  // A share link also restores its position.
  const position = page.getByTestId('position');
  const loaded = async (id: string, at?: string) => {
    await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
    await waitForPanels(page);
    await expect(page.getByTestId('scenario-select')).toHaveValue(id);
    if (at) await expect(position).toHaveText(at);
    const before = await position.textContent();
    await page.getByTestId('op-forward').click();
    await expect(position).not.toHaveText(before ?? '');
    await expect(position).toContainText(' · op ');
    // The pseudocode's lines come with the data file: step until a function is shown.
    const lines = page.getByTestId('pseudocode').locator('.code-line');
    for (let i = 0; i < 40 && (await lines.count()) === 0; i++) {
      await page.getByTestId('step-forward').click();
    }
    await expect(lines.first()).toBeVisible();
    await expect(page.getByTestId('error-banner')).toHaveCount(0);
  };
  await page.goto(base);
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await waitForPanels(page);
  // One data file, under the sub-path.
  expect(texts).toHaveLength(1);
  expect(texts[0].startsWith(SUBPATH)).toBe(true);

  await page.getByTestId('scenario-select').selectOption('dma32-machine');
  await loaded('dma32-machine');
  await page.getByTestId('share-link').click();
  await expect(page.getByTestId('share-url')).toHaveValue(/#s=1\./);
  const link = await page.getByTestId('share-url').inputValue();
  const linkPosition = (await position.textContent()) ?? '';

  // A share link naming a built-in waits for the data file before it reads the link.
  await page.goto('about:blank');
  await page.goto(link);
  await loaded('dma32-machine', linkPosition);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await page.waitForLoadState('networkidle');

  await context.setOffline(true);
  try {
    await page.goto(`${base}?scenario=thp-direct-compaction`);
    await loaded('thp-direct-compaction');
    await page.getByTestId('scenario-select').selectOption('fallback-steal');
    await loaded('fallback-steal');
    await page.goto('about:blank');
    await page.goto(link);
    await loaded('dma32-machine', linkPosition);
  } finally {
    await context.setOffline(false);
  }
  expect(errors).toEqual([]);
});
