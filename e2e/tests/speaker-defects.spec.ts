// What a speaker, a teacher and a tablet user ran into: each defect with the test that would have
// caught it (a mistyped `?exercises=` id, the sticky header at 768×1024, the verdict after
// Submit, a typed pfn's stale error, and the slide deck's frame).
import { test, expect, openApp, runCli, saveScreenshot } from '../fixtures';

test('?exercises=<typo> says "did you mean" at the top of the page', async ({ page }) => {
  await openApp(page, '?exercises=split-and-merg');
  const banner = page.getByTestId('exercises-query-error');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('no exercise set “split-and-merg”');
  await expect(banner).toContainText('Did you mean “split-and-merge”');
  await expect(banner).not.toContainText('CORS');
  // Where the user looks: on the first screen.
  const box = (await banner.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(page.viewportSize()!.height);
});

test('768×1024: the header does not cover what is scrolled under it', async ({ page }) => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await openApp(page, '?scenario=fallback-claim');
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('skip-link')).toBeFocused();
  await page.keyboard.press('Enter');
  await page.getByTestId('memory-map').scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 300));
  const header = (await page.locator('.site-header').boundingBox())!;
  const map = (await page.getByTestId('memory-map').boundingBox())!;
  // Either the header scrolled away or it sits above the map: never over it.
  expect(header.y + header.height <= map.y || header.y + header.height <= 0).toBe(true);
  const top = await page.evaluate(() => {
    const el = document.elementFromPoint(384, 20);
    return el?.closest('.site-header') ? 'header' : 'content';
  });
  expect(top).toBe('content');
});

test('Submit shows the verdict at once, then the reveal; Skip ends the reveal', async ({ page }) => {
  await openApp(page, '?exercises=split-and-merge');
  // Question 1: click the free list free_area[10].free_list[Movable] (the engine's answer key).
  const key = runCli(['check-exercises', 'engine/exercises/split-and-merge.json']);
  expect(key).toContain('answer: free_area[10].free_list[Movable]');
  await page.getByTestId('freelist-10-movable').click();
  await page.getByTestId('exercise-submit').click();
  // The verdict is on screen while the step plays (or the result, once it has).
  await expect(page.locator('[data-testid="exercise-verdict-early"], [data-testid="exercise-result"]').first()).toContainText('Right');
  const skip = page.getByTestId('exercise-skip-reveal');
  if (await skip.isVisible()) await skip.click();
  await expect(page.getByTestId('exercise-result')).toContainText('Right');
  await expect(page.getByTestId('exercise-verdict-early')).toHaveCount(0);
});

test('page history: a typed pfn\'s error goes when another page is picked', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  const field = page.getByTestId('page-history-pfn');
  await field.fill('0xfffffff');
  await page.getByTestId('page-history-show').click();
  await expect(page.getByTestId('page-history-pfn-error')).toContainText('outside the zone');
  await page.getByTestId('memory-map').click({ position: { x: 5, y: 5 } });
  await expect(page.getByTestId('page-history-pfn-error')).toHaveText('');
});

test('the slide deck at 1280×720: every order of the free lists is inside the frame on slides 2-4', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/embed-example.html');
  const frame = page.frameLocator('[data-testid="embed-frame"]');
  await expect(frame.getByTestId('embed-view')).toBeAttached();
  const fr = (await page.getByTestId('embed-frame').boundingBox())!;
  for (let slide = 2; slide <= 4; slide++) {
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('slide-count')).toHaveText(`${slide} / 5`);
    await expect(page.getByTestId('host-state')).toHaveAttribute('data-pos', /\d+/);
    for (const o of [0, 10]) {
      const cell = frame.getByTestId(`nr-free-${o}`);
      const b = (await cell.boundingBox())!;
      expect(b.y + b.height, `slide ${slide}: order ${o}`).toBeLessThanOrEqual(fr.y + fr.height + 0.5);
      expect(b.y).toBeGreaterThanOrEqual(fr.y - 0.5);
      // Not cut by the panel's own scroll box either.
      const cut = await cell.evaluate((el) => {
        const r = el.getBoundingClientRect();
        for (let p = el.parentElement; p; p = p.parentElement) {
          const cs = getComputedStyle(p);
          if (cs.overflowY === 'visible') continue;
          const q = p.getBoundingClientRect();
          if (r.bottom > q.bottom + 0.5) return p.className;
        }
        return null;
      });
      expect(cut, `slide ${slide}: order ${o}`).toBeNull();
    }
    await saveScreenshot(page, `deck-slide-${slide}`);
  }
});
