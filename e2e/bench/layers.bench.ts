// The page's compositor layers after a run and one step (CDP LayerTree): each layer's size, whether
// it draws content, its DOM node and Chrome's compositing reasons. What the compositor and the
// display (viz) draw each frame depends on these: in headless Chromium the display is drawn in
// software, every layer quad of the frame, so layers and render surfaces cost on every frame.
// Not part of the test suite.
//
//   BENCH_LAYERS_PAGES=262144 bash scripts/bench-frames.sh bench/layers.bench.ts
import { test } from '@playwright/test';
import { loadZone } from './frames';
import { describeLayers } from './layers';

test('compositor layers', async ({ browser }) => {
  test.setTimeout(10 * 60_000);
  const pages = Number(process.env.BENCH_LAYERS_PAGES ?? 262144);
  const ctx = await browser.newContext({
    viewport: { width: Number(process.env.BENCH_RT_W ?? 1366), height: Number(process.env.BENCH_RT_H ?? 900) },
  });
  const page = await ctx.newPage();
  await page.goto((process.env.BENCH_RT_URL ?? '') + '/');
  await page.getByRole('heading', { level: 1, name: 'buddyscope' }).waitFor();
  await loadZone(page, pages, `${pages} pages`, 3000);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(500);
  for (const line of await describeLayers(page)) console.log(line);
  await ctx.close();
});
