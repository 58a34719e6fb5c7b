// Saved work: the user's scenarios, exercise progress and last position survive
// a reload (localStorage, versioned entries under one key prefix); the "Saved work" panel lists
// them with names and dates, opens, deletes and exports them; a damaged or too-new entry is
// reported by name with the reason and set aside under a quarantine key, and the page still works.
import * as fs from 'node:fs';
import { test, expect, openApp, saveScreenshot, frameSnapshot, type Page } from '../fixtures';

// Downloads get a fresh browser context per test (playwright.config.ts reuses one): once, in
// the reused context, Chromium canceled a download mid-test ("download.path: canceled").
test.use({ reuseContext: false });

const PREFIX = 'buddyscope.saved.';
const QUARANTINE = 'buddyscope.quarantine.';

async function storeKeys(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i)!;
      if (k.startsWith('buddyscope.')) out[k] = localStorage.getItem(k)!;
    }
    return out;
  });
}

test('a saved scenario survives a reload, opens at its position, and is deleted', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  const editor = page.getByTestId('scenario-editor');
  const edited = (await editor.inputValue()).replace(/"name"\s*:\s*"[^"]*"/, '"name": "my saved edit"');
  await editor.fill(edited);
  await page.getByTestId('scenario-run').click();
  await expect(page.getByTestId('scenario-name')).toHaveText('my saved edit');
  await page.getByTestId('op-forward').click();
  await page.getByTestId('op-forward').click();
  const frame = await frameSnapshot(page);
  const panel = page.getByTestId('saved-panel');
  await page.getByTestId('saved-name').fill('Claim, my version');
  await page.getByTestId('saved-save').click();
  await expect(page.getByTestId('saved-item-0')).toContainText('Claim, my version');
  // A date (UTC minutes) is listed with it.
  await expect(page.getByTestId('saved-item-0')).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  const keys = await storeKeys(page);
  const key = Object.keys(keys).find((k) => k.startsWith(`${PREFIX}scenario.`))!;
  expect(JSON.parse(keys[key])).toMatchObject({ version: 1, name: 'Claim, my version', data: { kind: 'scenario' } });

  await page.reload();
  await expect(panel.getByTestId('saved-item-0')).toContainText('Claim, my version');
  // Somewhere else first, then open the saved entry: the edited text at its position.
  await page.getByTestId('scenario-select').selectOption('pcp-overflow-2cpu');
  await expect(page.getByTestId('scenario-name')).not.toHaveText('my saved edit');
  await page.getByTestId('saved-open-0').click();
  await expect(page.getByTestId('scenario-name')).toHaveText('my saved edit');
  await expect(page.getByTestId('scenario-editor')).toHaveValue(edited);
  await expect.poll(() => frameSnapshot(page)).toEqual(frame);
  await saveScreenshot(page, 'saved-panel', panel);

  await page.getByTestId('saved-delete-0').click();
  await expect(page.getByTestId('saved-item-0')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('saved-panel')).toContainText('Nothing saved yet');
});

test('the last position survives a reload', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('scenario-select').selectOption('fallback-steal');
  for (let i = 0; i < 3; i++) await page.getByTestId('op-forward').click();
  await page.getByTestId('step-forward').click();
  const frame = await frameSnapshot(page);
  await page.reload();
  await expect(page.getByTestId('scenario-select')).toHaveValue('fallback-steal');
  await expect(page.getByTestId('position')).toHaveText(frame['position']);
  await expect.poll(() => frameSnapshot(page)).toEqual(frame);
  // An address that asks for a scenario wins over the last position.
  await openApp(page, '?scenario=fallback-claim');
  await expect(page.getByTestId('scenario-select')).toHaveValue('fallback-claim');
  await expect(page.getByTestId('position')).toContainText('event 0 /');
});

test('export: every saved entry in one JSON file', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  await page.getByTestId('saved-name').fill('first');
  await page.getByTestId('saved-save').click();
  await page.getByTestId('saved-name').fill('second');
  await page.getByTestId('saved-save').click();
  await expect(page.getByTestId('saved-item-1')).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('saved-export').click()]);
  expect(download.suggestedFilename()).toBe('buddyscope-saved.json');
  const doc = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  expect(doc.version).toBe(1);
  const names = doc.entries.map((e: { entry: { name: string } }) => e.entry.name).sort();
  expect(names).toEqual(['first', 'second']);
  expect(doc.entries[0].key.startsWith(PREFIX)).toBe(true);
});

test.describe('a damaged store', () => {
  // page.route (the stub page below) only sees the page's own requests, not the service worker's.
  test.use({ serviceWorkers: 'block' });

  test('damaged and too-new entries are reported by name, set aside, and the page still works', async ({ page }) => {
    await openApp(page, '?scenario=fallback-claim');
    await page.getByTestId('saved-name').fill('good one');
    await page.getByTestId('saved-save').click();
    await expect(page.getByTestId('saved-item-0')).toContainText('good one');
    const truncated = '{"version": 1, "name": "half written", "saved_at": "2026-';
    const future = '{"version": 99, "name": "from the future", "data": {"kind": "hologram"}}';
    const badLast = 'not json at all';
    // Written from another page of the origin (a stub served by the test): leaving the app saves its last position (pagehide),
    // which would overwrite the damaged one.
    await page.route('**/store-writer.html', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><title>w</title>' }),
    );
    await page.goto('/store-writer.html');
    await page.evaluate(
      ([p, a, b, c]) => {
        localStorage.setItem(`${p}scenario.1`, a);
        localStorage.setItem(`${p}scenario.2`, b);
        localStorage.setItem(`${p}last`, c);
      },
      [PREFIX, truncated, future, badLast],
    );
    await openApp(page, '?scenario=fallback-claim');
    const err = page.getByTestId('saved-error');
    await expect(err).toBeVisible();
    await expect(err).toHaveAttribute('role', 'alert');
    await expect(err).toContainText(`${PREFIX}scenario.1`);
    await expect(err).toContainText('damaged');
    await expect(err).toContainText('from the future');
    await expect(err).toContainText('newer buddyscope');
    await expect(err).toContainText(`${PREFIX}last`);
    await saveScreenshot(page, 'saved-damaged');
    // Set aside, not deleted: the raw text is under the quarantine keys.
    const keys = await storeKeys(page);
    expect(keys[`${QUARANTINE}scenario.1`]).toBe(truncated);
    expect(keys[`${QUARANTINE}scenario.2`]).toBe(future);
    expect(keys[`${QUARANTINE}last`]).toBe(badLast);
    expect(keys[`${PREFIX}scenario.1`]).toBeUndefined();
    expect(keys[`${PREFIX}scenario.2`]).toBeUndefined();
    // The good entry is still listed, and the page works.
    await expect(page.getByTestId('saved-item-0')).toContainText('good one');
    await expect(page.getByTestId('saved-item-1')).toHaveCount(0);
    await page.getByTestId('op-forward').click();
    await expect(page.getByTestId('position')).toContainText('op 1 /');
    await expect(page.getByTestId('freelist-0-movable')).toBeVisible();
    // Reported once: the next load finds nothing damaged.
    await page.reload();
    await expect(page.getByTestId('saved-item-0')).toContainText('good one');
    await expect(page.getByTestId('saved-error')).toHaveCount(0);
  });
});
