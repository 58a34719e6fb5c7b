// Accessibility and small screens: axe-core scans of every screen in both
// themes, keyboard operation with a visible focus ring, the map's text alternative, reduced
// motion, 200 % zoom, the student laptop and tablet layouts, and touch stepping and scrubbing.
import { test, expect, openApp, saveScreenshot, ARTIFACTS_DIR, type Page, type Locator } from '../fixtures';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SCREENS, scanScreen, blocking, summary } from './support/axe';

for (const screen of SCREENS) {
  for (const theme of ['light', 'dark']) {
    test(`axe: ${screen.name}, ${theme}: no serious or critical violations`, async ({ page }) => {
      test.setTimeout(90_000); // a scan of the whole page takes ~20 s on a loaded 2-core machine
      await page.addInitScript((t) => localStorage.setItem('buddyscope-theme', t), theme);
      await screen.open(page);
      const results = await scanScreen(page, `${screen.name}, ${theme}`);
      console.log(`axe ${screen.name}, ${theme}: ${summary(results)}`);
      expect(blocking(results)).toEqual([]);
    });
  }
}

/** The event index of the position readout ("event i / n · …"). */
async function eventAt(page: Page): Promise<number> {
  const t = (await page.getByTestId('position').textContent()) ?? '';
  const m = /event (\d+) \/ (\d+)/.exec(t);
  expect(m, t).not.toBeNull();
  return Number(m![1]);
}

/** True if the element shows a focus indicator now: an outline, or (a file input's) label's. */
async function showsFocusRing(el: Locator): Promise<boolean> {
  return el.evaluate((e) => {
    const ring = (x: Element | null) => {
      if (!x) return false;
      const cs = getComputedStyle(x);
      return cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
    };
    return ring(e) || ring(e.closest('.file-button')?.querySelector('span') ?? null);
  });
}

/** What the first screen shows (not the full page): e2e/artifacts/<name>.png. */
async function firstScreen(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const body = await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`) });
  await test.info().attach(name, { body, contentType: 'image/png' });
}

/** The page does not scroll sideways. */
async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.scrollingElement!.scrollWidth - document.scrollingElement!.clientWidth);
}

const STEPPING = ['jump-start', 'op-back', 'step-back', 'play', 'step-forward', 'op-forward', 'jump-end'];

test('keyboard: the skip link comes first and moves focus to the main content', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-link');
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  expect(await showsFocusRing(skip)).toBe(true);
  await page.keyboard.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
  // The URL keeps its (share-link) fragment: the skip link does not navigate.
  expect(new URL(page.url()).hash).toBe('');
  // Tab from there lands inside the main content, past the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
});

test('keyboard: every Tab stop shows a focus ring; the stepping buttons work with Enter and Space', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  const seen = new Set<string>();
  const noRing: string[] = [];
  for (let i = 0; i < 250; i++) {
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    if ((await focused.count()) === 0) break;
    const id = await focused.evaluate((e) => {
      const t = e.getAttribute('data-testid');
      return `${e.tagName.toLowerCase()}${t ? `[${t}]` : ''}${e.id ? `#${e.id}` : ''} ${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 40)}`;
    });
    if (seen.has(id) && id.startsWith('a[skip-link]')) break; // wrapped around
    seen.add(id);
    if (!(await showsFocusRing(focused))) noRing.push(id);
  }
  expect(noRing, 'Tab stops without a visible focus ring').toEqual([]);
  for (const tid of [...STEPPING, 'scrubber', 'speed', 'map-zoom', 'theme-toggle', 'page-history-pfn']) {
    expect([...seen].some((s) => s.includes(`[${tid}]`)), `Tab reaches ${tid}`).toBe(true);
  }

  // Tab to "next event": Enter and Space press it (Space is not play/pause on a button).
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  const next = page.getByTestId('step-forward');
  await page.keyboard.press('Tab');
  for (let i = 0; i < 30 && !(await next.evaluate((e) => e === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  await expect(next).toBeFocused();
  const ring = await next.evaluate((e) => {
    const cs = getComputedStyle(e);
    return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor };
  });
  expect(ring.style).not.toBe('none');
  expect(ring.width).toBeGreaterThanOrEqual(2);
  await saveScreenshot(page, 'a11y-focus-ring', page.locator('.site-header'));
  // (One step is one visible event: the position may move by more than 1.)
  const e0 = await eventAt(page);
  await page.keyboard.press('Enter');
  await expect.poll(() => eventAt(page)).toBeGreaterThan(e0);
  const e1 = await eventAt(page);
  await page.keyboard.press(' ');
  await expect.poll(() => eventAt(page)).toBeGreaterThan(e1);
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
  // Shift+Tab back to "previous event": Space steps back.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByTestId('step-back')).toBeFocused();
  await page.keyboard.press(' ');
  await expect.poll(() => eventAt(page)).toBe(e1);
  // Space on the play button plays and pauses.
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('play')).toBeFocused();
  await page.keyboard.press(' ');
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press(' ');
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
});

test('the map has a text alternative: the zone in words, following the cursor', async ({ page }) => {
  await openApp(page, '?scenario=pcp-overflow-2cpu');
  const map = page.getByTestId('memory-map');
  await expect(map).toHaveAttribute('role', 'img');
  const before = (await map.getAttribute('aria-label')) ?? '';
  expect(before).toMatch(/^Memory map of zone \w+: \d+ pages in \d+ pageblocks \(\d+ \w+.*\)\. \d+ pages free in the buddy allocator/);
  // The buddy's free pages are the free lists' pages: sum of count × 2^order.
  const freePages = async () => {
    let sum = 0;
    for (const cell of await page.locator('[data-testid^="nr-free-"]').all()) {
      const order = Number(((await cell.getAttribute('data-testid')) ?? '').replace('nr-free-', ''));
      sum += Number(((await cell.textContent()) ?? '0').trim()) * 2 ** order;
    }
    return sum;
  };
  for (let i = 0; i < 3; i++) await page.getByTestId('op-forward').click();
  const after = (await map.getAttribute('aria-label')) ?? '';
  expect(after).not.toBe(before);
  expect(after).toContain(`${await freePages()} pages free in the buddy allocator`);
  // The scrollable map takes focus (a keyboard can scroll it) and has a name.
  const scroll = page.locator('.map-scroll');
  await expect(scroll).toHaveAttribute('tabindex', '0');
  await expect(scroll).toHaveAttribute('aria-label', /Memory map/);
});

test('page history by keyboard: a typed pfn shows that page, a bad one says why', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim');
  const start = Number(await page.getByTestId('memory-map').getAttribute('data-start-pfn'));
  const input = page.getByTestId('page-history-pfn');
  await input.fill(`0x${(start + 3).toString(16)}`);
  await input.press('Enter');
  await expect(page.getByTestId('page-history')).toContainText(`pfn 0x${(start + 3).toString(16)}`);
  await input.fill('zero');
  await page.getByTestId('page-history-show').click();
  await expect(page.getByTestId('page-history-pfn-error')).toContainText('is not a pfn');
});

test('charts: neighbouring orders differ in line pattern, not only colour', async ({ page }) => {
  await openApp(page);
  const dashes = await page
    .getByTestId('charts')
    .locator('.line-sample line')
    .evaluateAll((ls) => ls.map((l) => l.getAttribute('stroke-dasharray')));
  expect(dashes.length).toBe(11);
  for (let o = 1; o < dashes.length; o++) expect(dashes[o], `orders ${o - 1} and ${o}`).not.toBe(dashes[o - 1]);
  await expect(page.getByTestId('charts')).toContainText('unusable free index (left bar)');
});

test('reduced motion: no transitions or animations', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await openApp(page, '?scenario=fallback-claim');
  for (let i = 0; i < 2; i++) await page.getByTestId('op-forward').click();
  const motion = await page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll('*')) {
      for (const pseudo of [null, '::before', '::after']) {
        const cs = getComputedStyle(el, pseudo);
        const t = cs.transitionDuration.split(',').some((d) => parseFloat(d) > 0);
        const a = cs.animationName !== 'none' && cs.animationDuration.split(',').some((d) => parseFloat(d) > 0);
        if (t || a) out.push(`${el.tagName.toLowerCase()}.${el.className}${pseudo ?? ''}`);
      }
    }
    return out;
  });
  expect(motion).toEqual([]);
  // And with motion allowed, the map's follow zoom does animate (the check above can fail).
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  const d = await page.getByTestId('memory-map').evaluate((c) => getComputedStyle(c).transitionDuration);
  expect(parseFloat(d)).toBeGreaterThan(0);
});

const LAYOUTS = [
  { name: 'student laptop', width: 1366, height: 768 },
  { name: 'tablet landscape', width: 1024, height: 768 },
  { name: 'tablet portrait', width: 768, height: 1024 },
];

for (const l of LAYOUTS) {
  test(`layout ${l.width}×${l.height} (${l.name}): no horizontal scroll; map and stepping controls on the first screen`, async ({ page }) => {
    await page.setViewportSize({ width: l.width, height: l.height });
    await openApp(page, '?scenario=pcp-overflow-2cpu');
    for (let i = 0; i < 3; i++) await page.getByTestId('op-forward').click();
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    for (const id of [...STEPPING, 'scrubber', 'narration']) {
      const b = (await page.getByTestId(id).boundingBox())!;
      expect(b, id).not.toBeNull();
      expect(b.x, `${id} left edge`).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, `${id} fits the width`).toBeLessThanOrEqual(l.width);
      expect(b.y + b.height, `${id} is on the first screen`).toBeLessThanOrEqual(l.height);
    }
    const map = (await page.getByTestId('memory-map').boundingBox())!;
    expect(map.x + map.width, 'the map fits the width').toBeLessThanOrEqual(l.width);
    // At least 120 px of the map on the first screen.
    expect(map.y + 120, 'the map starts on the first screen').toBeLessThanOrEqual(l.height);
    await firstScreen(page, `a11y-layout-${l.width}x${l.height}`);
  });
}

for (const l of LAYOUTS) {
  test(`layout ${l.width}×${l.height} (${l.name}) with an exercise open: the question beside the map on the first screen, no horizontal scroll`, async ({ page }) => {
    await page.setViewportSize({ width: l.width, height: l.height });
    await openApp(page, '?exercises=split-and-merge');
    const q = page.getByTestId('exercise-question');
    await expect(q).not.toBeEmpty();
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    const boxes: Record<string, { x: number; y: number; width: number; height: number }> = {};
    for (const id of ['exercise-question', 'exercise-submit', 'memory-map', 'step-forward', 'op-forward', 'scrubber']) {
      boxes[id] = (await page.getByTestId(id).boundingBox())!;
      expect(boxes[id].x + boxes[id].width, `${id} fits the width`).toBeLessThanOrEqual(l.width);
    }
    for (const id of ['step-forward', 'op-forward', 'scrubber']) {
      expect(boxes[id].y + boxes[id].height, `${id} is on the first screen`).toBeLessThanOrEqual(l.height);
    }
    // The question sits beside the map, on the first screen (the map starts there too).
    const mapBox = (await page.locator('.map-panel').boundingBox())!;
    const qBox = boxes['exercise-question'];
    expect(qBox.x, `question at ${JSON.stringify(qBox)}, map panel at ${JSON.stringify(mapBox)}`).toBeGreaterThanOrEqual(mapBox.x + mapBox.width - 1);
    expect(qBox.y + qBox.height, 'the question is on the first screen').toBeLessThanOrEqual(l.height);
    expect(boxes['memory-map'].y + 120, 'the map starts on the first screen').toBeLessThanOrEqual(l.height);
    await firstScreen(page, `a11y-exercise-${l.width}x${l.height}`);
  });
}

test('200 % zoom (1280×720 at 2×: 640×360 CSS px): no horizontal scroll, every control reachable', async ({ page }) => {
  await page.setViewportSize({ width: 640, height: 360 });
  await openApp(page, '?scenario=fallback-claim');
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  // Every button, select, input and link of the app is within the width and can be scrolled to.
  const outside = await page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('button, select, input, textarea, a[href], [tabindex="0"]')) {
      if (el.closest('[hidden]') || el.classList.contains('skip-link')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < -1 || r.right > innerWidth + 1) out.push(`${el.tagName} ${el.dataset.testid ?? el.className} ${r.left}..${r.right}`);
    }
    return out;
  });
  expect(outside).toEqual([]);
  for (const id of STEPPING) await expect(page.getByTestId(id)).toBeInViewport();
  await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).toContainText('op 1 /');
  await page.getByTestId('memory-map').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('memory-map')).toBeInViewport();
  await page.evaluate(() => window.scrollTo(0, 0));
  await firstScreen(page, 'a11y-zoom-200');
});

test.describe('touch', () => {
  test.use({ hasTouch: true, viewport: { width: 1024, height: 768 } });

  test('a tap steps; a finger dragged along the scrubber seeks', async ({ page }) => {
    await openApp(page, '?scenario=fallback-claim');
    const e0 = await eventAt(page);
    await page.getByTestId('step-forward').tap();
    await expect.poll(() => eventAt(page)).toBeGreaterThan(e0);
    await page.getByTestId('op-forward').tap();
    await expect(page.getByTestId('position')).toContainText('op 1 /');
    await page.getByTestId('jump-start').tap();
    await expect.poll(() => eventAt(page)).toBe(0);

    // Drag with a real touch point (Chromium turns it into pointer events of type "touch").
    const s = page.getByTestId('scrubber');
    const box = (await page.locator('.scrub-track').boundingBox())!;
    const max = Number(await s.getAttribute('aria-valuemax'));
    const y = box.y + box.height / 2;
    const cdp = await page.context().newCDPSession(page);
    const touch = (type: string, x?: number) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: x === undefined ? [] : [{ x, y }] });
    const valueNow = async () => Number(await s.getAttribute('aria-valuenow'));
    // The cursor follows the finger: near 10 %, 25 %, 45 %, 60 % of the run in turn.
    const near = (f: number) => async () => Math.abs((await valueNow()) / max - f) < 0.03;
    await touch('touchStart', box.x + box.width * 0.1);
    await expect.poll(near(0.1)).toBe(true);
    for (const f of [0.25, 0.45, 0.6]) {
      await touch('touchMove', box.x + box.width * f);
      await expect.poll(near(f), `at ${f * 100} %`).toBe(true);
    }
    await touch('touchEnd');
    const now = await valueNow();
    expect(await eventAt(page)).toBe(now);
    // Lifted: a later move of no finger changes nothing.
    await page.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2);
    await page.waitForTimeout(200);
    expect(await valueNow()).toBe(now);
  });
});
