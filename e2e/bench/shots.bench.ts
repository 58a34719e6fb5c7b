// Screenshots with a 16 GiB zone's counts at 1366 × 900 and 1920 × 1080: the page, the whole page, the free lists
// and the pcp panel (SHOTS_DIR, SHOTS_NAME; SHOTS_URL for another build's server). Open the PNGs: nothing
// may be clipped. `bash scripts/bench-frames.sh bench/shots.bench.ts`
import { test } from '@playwright/test';
import { loadZone } from './frames';

test('screenshots at 16 GiB', async ({ browser }) => {
  test.setTimeout(10 * 60_000);
  const dir = process.env.SHOTS_DIR ?? '/tmp';
  const name = process.env.SHOTS_NAME ?? 'shot';
  for (const [w, h] of [[1366, 900], [1920, 1080]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    await page.goto(process.env.SHOTS_URL ?? '/');
    await page.getByRole('heading', { level: 1, name: 'buddyscope' }).waitFor();
    await loadZone(page, 4194304, '16 GiB', 3000);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // A position with many lists in use: 40 % into the run.
    const b = (await page.getByTestId('scrubber').boundingBox())!;
    await page.mouse.click(b.x + 0.4 * b.width, b.y + b.height / 2);
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(600);
    await page.locator('.freelists-panel').screenshot({ path: `${dir}/${name}-${w}x${h}-freelists.png` });
    await page.locator('.pcp-panel').screenshot({ path: `${dir}/${name}-${w}x${h}-pcp.png` });
    await page.screenshot({ path: `${dir}/${name}-${w}x${h}.png` });
    await page.screenshot({ path: `${dir}/${name}-${w}x${h}-full.png`, fullPage: true });
    await ctx.close();
  }
});
