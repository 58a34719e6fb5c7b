// Presenter mode, tours and follow-the-action (app/src/presenter.rs,
// app/src/panels/follow.rs). Driven by keys only, as from a presentation clicker. Tour stops and
// captions come from the scenario file itself; the touched pageblocks from the CLI's trace.
import { test, expect, openApp, saveScreenshot, runCli, REPO_ROOT, waitForPanels, type Page, mapPagePoint } from '../fixtures';
import * as fs from 'node:fs';
import * as path from 'node:path';

type Stop = { op: number; event?: number; caption: string };

function tourOf(id: string): Stop[] {
  const file = path.join(REPO_ROOT, 'engine', 'scenarios', `${id}.json`);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { tour: Stop[] }).tour;
}

/** The CLI's freelist counts after `ops` ops, as `freelist-{order}-{mt}` → count. */
function cliFreeLists(id: string, ops: number): Map<string, number> {
  const file = path.join('engine', 'scenarios', `${id}.json`);
  const json = JSON.parse(runCli(['run', file, '--format', 'json', '--ops', String(ops)])) as {
    free_lists: { order: number; migratetype: string; pfns: number[] }[];
  };
  const out = new Map<string, number>();
  for (const l of json.free_lists) out.set(`freelist-${l.order}-${l.migratetype.toLowerCase()}`, l.pfns.length);
  return out;
}

/** Opens a link into presenter mode (`?present`, `?tour=N`): its header is hidden, so wait for the
 *  presenter view instead of the heading. */
async function openPresenting(page: Page, query: string): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.getByTestId('presenter-view')).toBeVisible();
  await waitForPanels(page);
}

async function press(page: Page, key: string): Promise<void> {
  await page.keyboard.press(key);
}

test.use({ viewport: { width: 1280, height: 720 } });

test('presenter mode and a tour, by keys only', async ({ page }) => {
  const id = 'cma-frozen-range';
  const tour = tourOf(id);
  expect(tour.length).toBeGreaterThanOrEqual(3);
  await openApp(page, `?scenario=${id}`);
  await expect(page.getByTestId('presenter-view')).toHaveCount(0);
  await expect(page.getByTestId('presenter-toggle')).toBeVisible();

  // P: presenter mode on; the scenario's tour starts at stop 1.
  await page.locator('body').press('p');
  const view = page.getByTestId('presenter-view');
  await expect(view).toBeVisible();
  for (const tid of ['memory-map', 'narration', 'freelist-10-movable']) {
    await expect(view.getByTestId(tid)).toBeVisible();
  }
  // Chrome hidden: the stepping buttons, the counters and the scenario editor.
  await expect(page.getByTestId('op-forward')).toBeHidden();
  await expect(page.getByTestId('scenario-editor')).toBeHidden();
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 1/${tour.length}`);
  await expect(page.getByTestId('tour-caption')).toHaveText(tour[0].caption);

  // Legible from the back of the hall: large type.
  const size = async (tid: string) =>
    page.getByTestId(tid).evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  expect(await size('tour-caption')).toBeGreaterThanOrEqual(24);
  expect(await size('narration')).toBeGreaterThanOrEqual(20);
  await saveScreenshot(page, 'presenter-stop-1');

  // PageDown walks the stops; each shows its caption and the engine's state after `op` ops.
  for (let i = 1; i < tour.length; i++) {
    await press(page, 'PageDown');
    await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${i + 1}/${tour.length}`);
    await expect(page.getByTestId('tour-caption')).toHaveText(tour[i].caption);
    for (const [tid, n] of cliFreeLists(id, tour[i].op)) {
      if (tid.startsWith('freelist-10-') || tid.startsWith('freelist-0-')) {
        await expect(view.getByTestId(tid), `${tid} at stop ${i + 1}`).toHaveText(String(n));
      }
    }
  }
  await saveScreenshot(page, 'presenter-last-stop');
  // At the last stop PageDown stays; PageUp goes back one stop.
  await press(page, 'PageDown');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${tour.length}/${tour.length}`);
  await press(page, 'PageUp');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${tour.length - 1}/${tour.length}`);
  await expect(page.getByTestId('tour-caption')).toHaveText(tour[tour.length - 2].caption);

  // B and . blank and un-blank; Escape un-blanks first, then leaves.
  const blank = page.getByTestId('presenter-blank');
  await press(page, 'b');
  await expect(blank).toBeVisible();
  await press(page, 'B');
  await expect(blank).toHaveCount(0);
  await press(page, '.');
  await expect(blank).toBeVisible();
  await press(page, 'Escape');
  await expect(blank).toHaveCount(0);
  await expect(view).toBeVisible();

  // F asks for full screen; headless may refuse, which must not throw (the fixture fails the
  // test on any page error).
  await press(page, 'f');

  // No horizontal scroll at 1280×720, and the presenter layout fits the screen.
  const overflow = await page.evaluate(() => ({
    x: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    y: document.documentElement.scrollHeight - document.documentElement.clientHeight,
  }));
  expect(overflow.x).toBeLessThanOrEqual(0);
  expect(overflow.y).toBeLessThanOrEqual(0);

  // The state a share link carries.
  const state = JSON.parse((await page.locator('.app-root').getAttribute('data-presenter-state')) ?? '{}');
  expect(state).toEqual({ presenter: true, tour_stop: tour.length - 2, follow: false });

  await press(page, 'Escape');
  await expect(page.getByTestId('presenter-view')).toHaveCount(0);
  await expect(page.getByTestId('op-forward')).toBeVisible();
  await expect(page.getByTestId('tour-bar')).toHaveCount(0);
});

test('presenter keys never fire while typing in the editor', async ({ page }) => {
  await openApp(page);
  const editor = page.getByTestId('scenario-editor');
  await editor.click();
  await editor.press('End');
  await editor.press('p');
  await editor.press('b');
  await expect(page.getByTestId('presenter-view')).toHaveCount(0);
  // The toggle button works too.
  await page.getByTestId('presenter-toggle').click();
  await expect(page.getByTestId('presenter-view')).toBeVisible();
  await page.getByTestId('presenter-toggle').click();
  await expect(page.getByTestId('presenter-view')).toHaveCount(0);
});

test('a tour gone stale after an edit says why and does not block the run', async ({ page }) => {
  await openApp(page);
  const file = path.join(REPO_ROOT, 'engine', 'scenarios', 'free-contig-range-thp.json');
  const text = fs.readFileSync(file, 'utf8').replaceAll('"times": 16', '"times": 2');
  await page.getByTestId('scenario-editor').fill(text);
  await page.getByTestId('scenario-editor').press('Control+Enter');
  await expect(page.getByTestId('scenario-select')).toHaveValue('custom');
  await expect(page.getByTestId('scenario-error')).toHaveCount(0);
  await page.getByTestId('presenter-toggle').click();
  await expect(page.getByTestId('presenter-view')).toBeVisible();
  // 2 + 1 + 2 rounds: 13 ops; the tour's stop at op 48 lies beyond the run.
  await expect(page.getByTestId('tour-error')).toContainText('tour[3].op: stop 4 is after op 48, but the run has 13 ops');
  await expect(page.getByTestId('tour-stop')).toHaveCount(0);
  // PageDown steps an operation instead.
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('narration')).not.toHaveText(/^Start of/);
});

test('the map follows the action to the pageblocks the op touches', async ({ page }) => {
  // free-contig-range-thp: op 1 allocates the order-9 THP at pfn 0; its pcp refill claims and
  // splits the order-10 block at pfn 0: pageblocks 0-1, in a corner of the 1 GiB map.
  await openApp(page, '?scenario=free-contig-range-thp');
  const inner = page.locator('.map-inner');
  await expect(inner).toHaveAttribute('data-follow', 'off');
  await page.getByTestId('map-follow').click();
  await expect(inner).toHaveAttribute('data-follow', 'on');
  await page.locator('body').press('Shift+ArrowRight');
  // The CLI's trace: every pfn the first op touches lies in pageblocks 0..1.
  const trace = runCli(['run', 'engine/scenarios/free-contig-range-thp.json', '--format', 'trace', '--ops', '1']);
  const pfns = [...trace.matchAll(/pfn=0x([0-9a-f]+)/g)].map((m) => parseInt(m[1], 16));
  expect(pfns.length).toBeGreaterThan(0);
  const last = Math.max(...pfns.map((p) => Math.floor(p / 512)));
  expect(Math.min(...pfns.map((p) => Math.floor(p / 512)))).toBe(0);
  await expect(inner).toHaveAttribute('data-focus-pb', `0-${last}`);
  const marker = page.getByTestId('map-overview-marker');
  await expect(marker).toBeVisible();
  await expect(marker).toHaveAttribute('data-pb-first', '0');
  await expect(marker).toHaveAttribute('data-pb-last', String(last));
  await expect(page.getByTestId('map-overview')).toBeVisible();
  const scale = Number(await inner.getAttribute('data-focus-scale'));
  expect(scale).toBeGreaterThan(4);
  // The zoom is drawn (the canvas's own cells), never a CSS scale of its bitmap.
  await expect(page.getByTestId('memory-map')).not.toHaveAttribute('style', /scale\(/);
  // The overview marker sits in the overview's top-left corner (pageblock 0).
  const ov = await page.getByTestId('map-overview').boundingBox();
  const mk = await marker.boundingBox();
  expect(ov && mk).toBeTruthy();
  expect(mk!.x - ov!.x).toBeLessThan(8);
  expect(mk!.y - ov!.y).toBeLessThan(8);
  // The overview is in sight: inside the map's scroll box.
  const box = await page.locator('.map-scroll').boundingBox();
  expect(ov!.y + ov!.height).toBeLessThanOrEqual(box!.y + box!.height + 1);
  await saveScreenshot(page, 'follow-zoomed', page.locator('.map-panel'));

  // cma-frozen-range in presenter mode: the release of op 2 touches pageblocks 64..95.
  await openPresenting(page, '?scenario=cma-frozen-range&tour=3');
  await expect(page.getByTestId('tour-stop')).toHaveText(/^stop 3\//);
  await expect(page.locator('.map-inner')).toHaveAttribute('data-follow', 'on');
  await expect(page.locator('.map-inner')).toHaveAttribute('data-focus-pb', '64-95');
  await expect(page.getByTestId('map-overview-marker')).toHaveAttribute('data-pb-first', '64');
  await saveScreenshot(page, 'presenter-cma-stop-3');

  // Follow off again: no transform.
  await openApp(page, '?scenario=free-contig-range-thp');
  await expect(page.locator('.map-inner')).toHaveAttribute('data-follow', 'off');
  await expect(page.getByTestId('map-overview-marker')).toHaveCount(0);
});

/** The memory map canvas's pixels, geometry (CSS pixels) and transform. */
async function mapGeometry(page: Page) {
  return page.getByTestId('memory-map').evaluate((c: HTMLCanvasElement) => {
    const r = c.getBoundingClientRect();
    const [vx, vy] = (c.dataset.view ?? '0,0').split(',').map(Number);
    return {
      w: c.width,
      h: c.height,
      cssW: r.width,
      cssH: r.height,
      transform: getComputedStyle(c).transform,
      cell: Number(c.dataset.cell),
      pad: Number(c.dataset.pad),
      tileW: Number(c.dataset.tileW),
      tileH: Number(c.dataset.tileH),
      perRow: Number(c.dataset.perRow),
      start: Number(c.dataset.startPfn),
      vx,
      vy,
    };
  });
}

test('HiDPI: the follow view is drawn at device pixels, not scaled, and hovering finds the page', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 2 });
  const page = await ctx.newPage();
  await openApp(page, '?scenario=free-contig-range-thp');
  const inner = page.locator('.map-inner');
  const map = page.getByTestId('memory-map');
  await expect(map).toHaveAttribute('data-dpr', '2');
  await page.getByTestId('map-follow').click();
  await expect(inner).toHaveAttribute('data-follow', 'on');
  await page.locator('body').press('Shift+ArrowRight');
  await expect(inner).toHaveAttribute('data-focus-pb', /^0-/);
  // Pageblocks 0-1 in the corner of the 1 GiB map (1 px per page), zoomed until they fill the
  // box: the cell drawn grows by the zoom, in whole device pixels.
  await expect.poll(async () => Number(await map.getAttribute('data-cell'))).toBeGreaterThan(4);
  const g = await mapGeometry(page);
  expect(Number.isInteger(g.cell * 2)).toBe(true);
  expect(Number(await inner.getAttribute('data-focus-scale'))).toBeCloseTo(g.cell, 2);
  expect(g.w).toBe(Math.round(g.cssW * 2));
  expect(g.h).toBe(Math.round(g.cssH * 2));
  expect(g.transform).toBe('none');
  // Hover: pages of the first two pageblocks, each at the middle of its cell.
  const box = (await map.boundingBox())!;
  for (const idx of [0, 5 * 32 + 9, 511, 512 + 3 * 32 + 2]) {
    const p = mapPagePoint(g, idx);
    const x = p.x - g.vx;
    const y = p.y - g.vy;
    expect(x).toBeLessThan(g.cssW);
    expect(y).toBeLessThan(g.cssH);
    await page.mouse.move(box.x + x, box.y + y);
    await expect(page.getByTestId('map-tooltip')).toContainText(`pfn 0x${(g.start + idx).toString(16)}`);
  }
  // The last page's tooltip (right of the map's middle) opens leftwards, not past the box.
  const tip = (await page.getByTestId('map-tooltip').boundingBox())!;
  const ib = (await inner.boundingBox())!;
  expect(tip.x + tip.width).toBeLessThanOrEqual(ib.x + ib.width + 1);
  await saveScreenshot(page, 'follow-hidpi', page.locator('.map-panel'));

  // Presenter mode on the CMA range (pageblocks 64..95, two whole rows): the same.
  await openPresenting(page, '?scenario=cma-frozen-range&tour=3');
  await expect(page.locator('.map-inner')).toHaveAttribute('data-focus-pb', '64-95');
  await expect(page.getByTestId('memory-map')).not.toHaveAttribute('style', /scale\(/);
  const p = await mapGeometry(page);
  expect(p.w).toBe(Math.round(p.cssW * 2));
  expect(p.h).toBe(Math.round(p.cssH * 2));
  expect(p.transform).not.toMatch(/^matrix\((?!1, 0, 0, 1,)/);
  await saveScreenshot(page, 'presenter-hidpi');
  await ctx.close();
});

test('reduced motion: the zoom jumps instead of animating', async ({ browser }) => {
  const ctx = await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 720 } });
  const page = await ctx.newPage();
  await openPresenting(page, '?scenario=free-contig-range-thp&present');
  const transition = await page
    .getByTestId('memory-map')
    .evaluate((el) => getComputedStyle(el).transitionDuration);
  expect(transition).toBe('0s');
  await ctx.close();
});
