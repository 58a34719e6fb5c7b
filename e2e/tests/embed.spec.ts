// Embedding: `?embed=1&panel=…` shows the map and one panel without chrome, and
// www/embed-example.html (an offline slide deck) drives it by postMessage and receives state.
import { test, expect, runCli, saveScreenshot } from '../fixtures';
import * as zlib from 'node:zlib';

test('the embed view has the map and the chosen panel, no chrome', async ({ page }) => {
  await page.goto('/?embed=1&panel=counters&scenario=fallback-claim');
  await expect(page.getByTestId('embed-view')).toBeVisible();
  await expect(page.getByTestId('memory-map')).toBeVisible();
  await expect(page.getByTestId('counter-zone_lock')).toBeVisible();
  await expect(page.getByTestId('freelists')).toHaveCount(0);
  await expect(page.getByTestId('share-link')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toHaveCount(0);
});

test('the example deck drives the app by messages and receives its state', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/embed-example.html');
  await expect(page.getByTestId('slide-count')).toHaveText('1 / 5');
  const frame = page.frameLocator('[data-testid="embed-frame"]');
  await expect(frame.getByTestId('embed-view')).toBeAttached();
  const state = page.getByTestId('host-state');

  // Slide 2: load fallback-claim at the start.
  await page.keyboard.press('ArrowRight');
  await expect(state).toHaveAttribute('data-pos', '0');
  await expect(state).toContainText('event 0 /');

  // Slide 3: the tour's stop 3, the claim (op 35 done); the reported state is the CLI's state
  // after those ops, and the slide's title names what the frame shows.
  const stop3 = JSON.parse(runCli(['builtin', 'fallback-claim'])).tour[2].op as number;
  await page.keyboard.press('PageDown');
  await expect(state).toHaveAttribute('data-op', String(stop3));
  await expect(page.locator('section.active h2')).toContainText('__rmqueue_claim');
  const s = await page.evaluate(() => (window as any).lastState);
  expect(s.type).toBe('state');
  expect(s.scenario_id).toBe('fallback-claim');
  expect(s.tour_stop).toBe(3);
  expect(s.counters.pageblocks_claimed).toBeGreaterThan(0);
  const buddyinfo = runCli(['run', 'engine/scenarios/fallback-claim.json', '--ops', String(stop3), '--format', 'buddyinfo']);
  const nrFree = buddyinfo.trim().split(/\s+/).slice(-11).map(Number);
  expect(s.nr_free).toEqual(nrFree);
  // The frame shows what the state event says.
  for (const l of s.free_lists.filter((l: any) => l.count > 0).slice(0, 6)) {
    await expect(frame.getByTestId(`freelist-${l.order}-${String(l.mt).toLowerCase()}`)).toHaveText(String(l.count));
  }
  expect(typeof s.counters.zone_lock).toBe('number');
  expect(s.pcp.length).toBeGreaterThan(0);
  await saveScreenshot(page, 'embed-example-slide3');

  // Slide 4: play; the host hears the frames as they go by.
  // (The slide loads the scenario at event 0 and plays from there.)
  await page.keyboard.press('ArrowRight');
  await expect
    .poll(async () => page.evaluate(() => {
      const st = (window as any).lastState;
      return st.playing && st.pos > 200;
    }), { timeout: 15_000 })
    .toBe(true);
  await saveScreenshot(page, 'embed-example-playing');

  // Back to slide 3 restores that frame.
  await page.keyboard.press('ArrowLeft');
  await expect(state).toHaveAttribute('data-op', String(stop3));
});

test('commands from a window that is not the parent are ignored', async ({ page }) => {
  await page.goto('/embed-example.html');
  await page.keyboard.press('ArrowRight');
  const state = page.getByTestId('host-state');
  await expect(state).toHaveAttribute('data-pos', '0');
  // The frame posting to itself (its own window, not its parent) changes nothing.
  const f = page.frames().find((fr) => fr.url().includes('embed=1'))!;
  await f.evaluate(() => window.postMessage({ type: 'seek', pos: 5 }, '*'));
  await page.waitForTimeout(300);
  await expect(state).toHaveAttribute('data-pos', '0');
  // The parent can: an unknown command gets an error reply, a seek moves.
  await page.evaluate(() => {
    const w = (document.querySelector('[data-testid="embed-frame"]') as HTMLIFrameElement).contentWindow!;
    w.postMessage({ type: 'seek', pos: 5 }, location.origin);
  });
  await expect(state).toHaveAttribute('data-pos', '5');
  await page.evaluate(() => {
    const w = (document.querySelector('[data-testid="embed-frame"]') as HTMLIFrameElement).contentWindow!;
    w.postMessage({ type: 'reformat' }, location.origin);
  });
  await expect(state).toContainText('error: unknown message');
});

// A run long enough for the run worker (app/src/runjob: above 20,000 ops): 12,000 × (alloc, free).
const LONG_EMBED = JSON.stringify({
  version: 1,
  name: 'a long embedded run',
  ops: [{ op: 'repeat', times: 12_000, ops: [{ op: 'alloc', order: 1, mt: 'movable', as: 'x' }, { op: 'free', ref: 'x' }] }],
});
const LONG_POS = 1000;

/** A host page (same origin, served by the test) that frames `src` and records the frame's messages. */
async function openHost(page: import('@playwright/test').Page, src: string): Promise<void> {
  await page.route('**/embed-host-test.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html lang="en"><head><title>host</title><link rel="icon" href="data:,"></head><body>
<script>
  window.msgs = [];
  addEventListener('message', (e) => {
    const f = document.querySelector('iframe');
    if (f && e.source === f.contentWindow) window.msgs.push(e.data);
  });
</script>
<iframe title="embed" width="900" height="600" src="${src}"></iframe>
</body></html>`,
    }),
  );
  await page.goto('/embed-host-test.html');
}

/** The messages the frame has posted so far. */
function msgs(page: import('@playwright/test').Page): Promise<any[]> {
  return page.evaluate(() => (window as any).msgs);
}

function send(page: import('@playwright/test').Page, msg: object): Promise<void> {
  return page.evaluate((m) => {
    const f = document.querySelector('iframe') as HTMLIFrameElement;
    f.contentWindow!.postMessage(m, location.origin);
  }, msg);
}

test('an embed opened with a share link of a long (worker) run says ready only once that run is on screen', async ({ page }) => {
  test.setTimeout(120_000);
  const payload = JSON.stringify({ text: LONG_EMBED, id: 'custom', pos: LONG_POS, mode: 'single' });
  const fragment = `#s=1.${zlib.deflateSync(Buffer.from(payload)).toString('base64url')}`;
  await openHost(page, `/?embed=1&panel=counters${fragment}`);
  await expect.poll(async () => (await msgs(page)).some((m) => m.type === 'ready'), { timeout: 90_000 }).toBe(true);
  // Driven on `ready`, the frame answers with the link's run at the link's position.
  await send(page, { type: 'get' });
  await expect.poll(async () => (await msgs(page)).filter((m) => m.type === 'state').length).toBeGreaterThan(0);
  const state = (await msgs(page)).find((m) => m.type === 'state');
  expect(state.scenario_name).toBe('a long embedded run');
  expect(state.pos).toBe(LONG_POS);
});

test('the reply to a load of a long (worker) run waits for the run and is at the asked position', async ({ page }) => {
  test.setTimeout(120_000);
  await openHost(page, '/?embed=1&panel=counters&scenario=fallback-claim');
  await expect.poll(async () => (await msgs(page)).some((m) => m.type === 'ready'), { timeout: 30_000 }).toBe(true);
  await send(page, { type: 'load', text: LONG_EMBED, pos: LONG_POS });
  await expect.poll(async () => (await msgs(page)).filter((m) => m.type !== 'ready').length, { timeout: 90_000 }).toBeGreaterThan(0);
  // The first reply is the new run, not the one it replaces.
  const reply = (await msgs(page)).filter((m) => m.type !== 'ready')[0];
  expect(reply.type).toBe('state');
  expect(reply.scenario_name).toBe('a long embedded run');
  expect(reply.pos).toBe(LONG_POS);
  expect(reply.len).toBeGreaterThan(LONG_POS);
});
