// The memory map at device pixels and at the pageblock level.
import { test, expect, openApp, mapPagePoint } from '../fixtures';
import { scenarioText } from '../bench/frames';

test('HiDPI: the map canvas has CSS size × devicePixelRatio pixels, and hovering still finds the page', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 2 });
  const page = await ctx.newPage();
  await openApp(page, '?scenario=fallback-claim');
  const map = page.getByTestId('memory-map');
  await expect(map).toHaveAttribute('data-dpr', '2');
  // 4 CSS px (8 device px) per page: a pointer position (whole CSS pixels) inside every cell.
  await page.getByTestId('map-zoom').selectOption('4');
  await expect(map).toHaveAttribute('data-cell', '4');
  const g = await map.evaluate((c: HTMLCanvasElement) => ({
    w: c.width,
    h: c.height,
    cssW: c.getBoundingClientRect().width,
    cssH: c.getBoundingClientRect().height,
    cell: Number(c.dataset.cell),
    pad: Number(c.dataset.pad),
    tileW: Number(c.dataset.tileW),
    tileH: Number(c.dataset.tileH),
    perRow: Number(c.dataset.perRow),
    start: Number(c.dataset.startPfn),
  }));
  expect(g.w).toBe(Math.round(g.cssW * 2));
  expect(g.h).toBe(Math.round(g.cssH * 2));
  const box = (await map.boundingBox())!;
  for (const idx of [0, 777, 3 * 512 + 33]) {
    const { x, y } = mapPagePoint(g, idx);
    await page.mouse.move(box.x + x, box.y + y);
    await expect(page.getByTestId('map-tooltip')).toContainText(`pfn 0x${(g.start + idx).toString(16)}`);
  }
  await ctx.close();
});

test('a 16 GiB zone is drawn at the pageblock level; zoomed in, the map scrolls and hovering finds the page', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await page.getByTestId('scenario-editor').fill(scenarioText(4194304, '16 GiB', 200));
  await page.getByTestId('scenario-run').click();
  await expect(page.getByTestId('scenario-name')).toHaveText('bench: sandbox on a 16 GiB zone', { timeout: 60_000 });
  const map = page.getByTestId('memory-map');
  await expect(map).toHaveAttribute('data-lod', 'pageblocks');
  await expect(map).toHaveAttribute('data-cell', '0.25');
  const scroll = page.locator('.map-scroll');
  const small = await scroll.evaluate((e) => e.scrollHeight);
  await page.getByTestId('map-zoom').selectOption('1');
  await expect(map).toHaveAttribute('data-lod', 'pages');
  // 1 px per page: thousands of pixels tall, but the canvas is only the visible box.
  const tall = await scroll.evaluate((e) => e.scrollHeight);
  expect(tall).toBeGreaterThan(3000);
  expect(tall).toBeGreaterThan(4 * small);
  const size = await map.evaluate((c: HTMLCanvasElement) => ({ w: c.width, h: c.height }));
  expect(size.h).toBeLessThanOrEqual(700);
  // At 4 px per page (a pointer position inside every cell), scroll a pageblock deep in the zone
  // to the top of the box: the canvas moves with the box and shows it.
  await page.getByTestId('map-zoom').selectOption('4');
  await expect(map).toHaveAttribute('data-cell', '4');
  const g = await map.evaluate((c) => ({
    pad: Number(c.dataset.pad),
    tileW: Number(c.dataset.tileW),
    tileH: Number(c.dataset.tileH),
    perRow: Number(c.dataset.perRow),
    start: Number(c.dataset.startPfn),
  }));
  const idx = 4000 * 512 + 5 * 32 + 7;
  const pb = Math.floor(idx / 512);
  const i = idx % 512;
  await scroll.scrollIntoViewIfNeeded();
  await scroll.evaluate((e, t) => (e.scrollTop = t), Math.floor(pb / g.perRow) * g.tileH);
  const top = await scroll.evaluate((e) => e.scrollTop);
  expect(top).toBeGreaterThan(1000);
  const mb = (await map.boundingBox())!;
  const x = (pb % g.perRow) * g.tileW + g.pad + (i % 32) * 4 + 2;
  const y = Math.floor(pb / g.perRow) * g.tileH + g.pad + Math.floor(i / 32) * 4 + 2 - top;
  await expect(async () => {
    await page.mouse.move(mb.x + x, mb.y + y);
    await expect(page.getByTestId('map-tooltip')).toContainText(`pfn 0x${(g.start + idx).toString(16)}`, { timeout: 1000 });
  }).toPass({ timeout: 10_000 });
  await page.getByTestId('map-zoom').selectOption('fit');
});
