// Embedding (issue 7 item 3): `?embed=1&panel=…` shows the map and one panel without chrome, and
// www/embed-example.html (an offline slide deck) drives it by postMessage and receives state.
import { test, expect, runCli, saveScreenshot } from '../fixtures';

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

  // Slide 3: three operations in; the reported state is the CLI's state after 3 ops.
  await page.keyboard.press('PageDown');
  await expect(state).toHaveAttribute('data-op', '3');
  const s = await page.evaluate(() => (window as any).lastState);
  expect(s.type).toBe('state');
  expect(s.scenario_id).toBe('fallback-claim');
  const buddyinfo = runCli(['run', 'engine/scenarios/fallback-claim.json', '--ops', '3', '--format', 'buddyinfo']);
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
  const pos3 = s.pos;
  await page.keyboard.press('ArrowRight');
  await expect
    .poll(async () => page.evaluate((p) => {
      const st = (window as any).lastState;
      return st.playing && st.pos > p + 200;
    }, pos3), { timeout: 15_000 })
    .toBe(true);
  await saveScreenshot(page, 'embed-example-playing');

  // Back to slide 3 restores that frame.
  await page.keyboard.press('ArrowLeft');
  await expect(state).toHaveAttribute('data-op', '3');
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
