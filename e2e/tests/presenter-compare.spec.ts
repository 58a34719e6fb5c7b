// A speaker's path: compare mode + presenter mode + the scenario's tour, on a projector. Every
// stop of every built-in compare pair moves both sides to the stop's op (both sides' free lists
// equal `buddyscope run --side a|b --ops K`), and the caption, both maps, both free-list tables,
// the counters that differ with B/A and the thread's measurement are on one 1280×720 screen.
// Single-view tours fit 1280×720 at every stop of every built-in too.
import { test, expect, runCli, saveScreenshot, waitForPanels, type Page, type Locator } from '../fixtures';

type Stop = { op: number; event?: number; caption: string };
type Builtin = { tour?: Stop[]; compare?: { measured?: unknown } };

function builtin(id: string): Builtin {
  return JSON.parse(runCli(['builtin', id])) as Builtin;
}

/** Every built-in id (the CLI's list: `ID  name`). */
function builtinIds(): string[] {
  return runCli(['builtin'])
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((id) => /^[a-z0-9-]+$/.test(id));
}

const TOURED = builtinIds().filter((id) => (builtin(id).tour ?? []).length > 0);
const PAIRS = TOURED.filter((id) => builtin(id).compare);

/** nr_free per order of one side after K ops, from the CLI. */
function cliSide(id: string, side: 'a' | 'b', ops: number): number[] {
  const out = runCli(['run', `engine/scenarios/${id}.json`, '--side', side, '--format', 'buddyinfo', '--ops', String(ops)]);
  return out.trim().split(/\s+/).map(Number).filter((n) => Number.isFinite(n)).slice(-11);
}

type Op = { pageblocks_touched: number; lock_holds: Record<'zone' | 'pcp', { max: number; max_steps: number }> };
type RunJson = { totals: Record<string, number>; nr_free_pages: number; watermark_boost: number; ops: Op[] };

/** The compare table's counters of one side after K ops, from the CLI, keyed as the table's
 *  `compare-a-{name}` cells: the run's totals, /proc/vmstat's direct-compaction counts, then the current op's pageblocks and worst lock
 *  holds (none before op 1), NR_FREE_PAGES and watermark_boost. */
function cliCounters(id: string, side: 'a' | 'b', ops: number): Record<string, number> {
  const j = JSON.parse(
    runCli(['run', `engine/scenarios/${id}.json`, '--side', side, '--format', 'json', '--ops', String(ops)]),
  ) as RunJson;
  const cur = ops > 0 ? j.ops[j.ops.length - 1] : undefined;
  // Direct compaction's counts, as /proc/vmstat prints them.
  const vmstat = runCli(['run', `engine/scenarios/${id}.json`, '--side', side, '--format', 'vmstat', '--ops', String(ops)]);
  const vm = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(vmstat)![1]);
  return {
    ...j.totals,
    compact_stall: vm('compact_stall'),
    compact_fail: vm('compact_fail'),
    compact_success: vm('compact_success'),
    pageblocks_touched: cur?.pageblocks_touched ?? 0,
    nr_free_pages: j.nr_free_pages,
    watermark_boost: j.watermark_boost,
    zone_lock_hold_max: cur?.lock_holds.zone.max ?? 0,
    zone_lock_hold_max_steps: cur?.lock_holds.zone.max_steps ?? 0,
    pcp_lock_hold_max: cur?.lock_holds.pcp.max ?? 0,
    pcp_lock_hold_max_steps: cur?.lock_holds.pcp.max_steps ?? 0,
  };
}

/** Every row of the compare table (shown or not): name → [A, B], and the names marked as differing. */
async function compareTable(page: Page): Promise<{ rows: Record<string, [number, number]>; marked: string[] }> {
  return page.evaluate(() => {
    const rows: Record<string, [number, number]> = {};
    const marked: string[] = [];
    document.querySelectorAll('.compare-counters tbody tr').forEach((tr) => {
      const a = tr.querySelector('[data-testid^="compare-a-"]') as HTMLElement;
      const b = tr.querySelector('[data-testid^="compare-b-"]') as HTMLElement;
      const name = a.dataset.testid!.slice('compare-a-'.length);
      rows[name] = [Number(a.textContent), Number(b.textContent)];
      if (tr.classList.contains('differs')) marked.push(name);
    });
    return { rows, marked };
  });
}

/** Per order, the sum of a side's freelist-{o}-{mt} cells. */
async function sideFreeLists(page: Page, side: 'a' | 'b'): Promise<number[]> {
  return page.evaluate((s) => {
    const root = document.querySelector(`[data-testid="side-${s}"]`)!;
    const sums: number[] = [];
    for (let o = 0; o <= 10; o++) {
      let sum = 0;
      root.querySelectorAll(`[data-testid^="freelist-${o}-"]`).forEach((el) => (sum += Number(el.textContent)));
      sums.push(sum);
    }
    return sums;
  }, side);
}

/** The element is on screen and not cut by any scrolling or clipping box it sits in. */
async function fullyShown(l: Locator): Promise<string | null> {
  return l.evaluate((el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return 'has no size';
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    if (r.top < -0.5 || r.left < -0.5 || r.bottom > vh + 0.5 || r.right > vw + 0.5) {
      return `off screen: ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} in ${vw}×${vh}`;
    }
    for (let p = el.parentElement; p; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const b = p.getBoundingClientRect();
      if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5 || r.left < b.left - 0.5 || r.right > b.right + 0.5) {
        return `cut by ${p.tagName.toLowerCase()}.${[...p.classList].join('.')}: ${Math.round(r.top)}–${Math.round(r.bottom)} in ${Math.round(b.top)}–${Math.round(b.bottom)}`;
      }
    }
    return null;
  });
}

async function expectShown(l: Locator, what: string): Promise<void> {
  expect(await fullyShown(l), what).toBeNull();
}

async function noPageScroll(page: Page): Promise<void> {
  const o = await page.evaluate(() => ({
    x: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    y: document.documentElement.scrollHeight - document.documentElement.clientHeight,
  }));
  expect(o).toEqual({ x: 0, y: 0 });
}

async function fontPx(l: Locator): Promise<number> {
  return l.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
}

async function openPresenting(page: Page, query: string): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.getByTestId('presenter-view')).toBeVisible();
  await waitForPanels(page);
}

/** What the side's progress line says at stop `op` of `n` ops. */
function progressAt(op: number, n: number): RegExp {
  return op === 0 ? /^before op 1 \/ / : new RegExp(`^op ${op} / ${n} · op done`);
}

for (const id of PAIRS) {
  test(`${id}: compare + presenter + tour: both sides at every stop equal the CLI, on one 1280×720 screen`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1280, height: 720 });
    const tour = builtin(id).tour!;
    await openPresenting(page, `?scenario=${id}&compare=1&present`);
    const a = page.getByTestId('side-a');
    const b = page.getByTestId('side-b');
    await expect(a).toBeVisible();
    const nOps = Number(/\/ (\d+)/.exec((await page.getByTestId('compare-position').textContent()) ?? '')![1]);
    for (let i = 0; i < tour.length; i++) {
      if (i > 0) await page.keyboard.press('PageDown');
      const k = tour[i].op;
      await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${i + 1}/${tour.length}`);
      await expect(page.getByTestId('tour-caption')).toHaveText(tour[i].caption);
      for (const [side, loc] of [['a', a], ['b', b]] as const) {
        await expect(loc.getByTestId('side-progress'), `side ${side} at stop ${i + 1}`).toHaveText(progressAt(k, nOps));
        expect(await sideFreeLists(page, side), `side ${side}: free lists at stop ${i + 1} (op ${k})`).toEqual(cliSide(id, side, k));
      }
      // One screen: the caption, both maps, every order of both free-list tables, the
      // counters that differ and the thread's measurement.
      await expectShown(page.getByTestId('tour-caption'), `caption at stop ${i + 1}`);
      for (const loc of [a, b]) {
        // The map's visible box: presenter mode makes it shorter than the canvas, which it
        // scrolls to the pageblocks the op touches.
        await expectShown(loc.locator('.map-inner'), `map at stop ${i + 1}`);
        for (const o of [0, 10]) await expectShown(loc.getByTestId(`nr-free-${o}`), `nr_free[${o}] at stop ${i + 1}`);
      }
      // The table's counters are both sides' own runs cut at the stop, and exactly the rows
      // where the CLI's two sides part are marked (and shown, with B/A). Where the rules agree
      // the sides count alike: fallback-claim's burst claims, so rmqueue_mode memory (which
      // only skips the search after a steal) changes nothing there.
      const [ca, cb] = [cliCounters(id, 'a', k), cliCounters(id, 'b', k)];
      const table = await compareTable(page);
      const want = Object.fromEntries(Object.keys(table.rows).map((name) => [name, [ca[name], cb[name]]]));
      expect(table.rows, `counters at stop ${i + 1} (op ${k})`).toEqual(want);
      const parted = Object.keys(want).filter((name) => want[name][0] !== want[name][1]);
      expect(table.marked, `differing counters at stop ${i + 1}`).toEqual(parted);
      for (const name of parted) await expectShown(page.getByTestId(`compare-ratio-${name}`), `B/A of ${name} at stop ${i + 1}`);
      // No row differs: the table says so instead of standing empty.
      await expect(page.getByTestId('compare-alike')).toHaveCount(parted.length === 0 ? 1 : 0);
      if (parted.length === 0) await expectShown(page.getByTestId('compare-alike'), `"count alike" at stop ${i + 1}`);
      if (builtin(id).compare!.measured) await expectShown(page.getByTestId('compare-measured').locator('table'), `measurement at stop ${i + 1}`);
      await noPageScroll(page);
      if (i === 0 || i === tour.length - 1) await saveScreenshot(page, `present-compare-${id}-stop${i + 1}`);
    }
    // Large type for the back row, no help texts.
    expect(await fontPx(page.getByTestId('tour-caption'))).toBeGreaterThanOrEqual(24);
    expect(await fontPx(a.getByTestId('narration'))).toBeGreaterThanOrEqual(24);
    await expect(page.locator('.panel-help:visible')).toHaveCount(0);
  });
}

test('fallback-steal at 1920×1080: compare + presenter, stop 3 shows its state; share link and leaving keep the caption honest', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  const id = 'fallback-steal';
  const tour = builtin(id).tour!;
  await openPresenting(page, `?scenario=${id}&compare=1&present`);
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 3/${tour.length}`);
  const k = tour[2].op;
  for (const side of ['a', 'b'] as const) {
    await expect(page.getByTestId(`side-${side}`).getByTestId('side-progress')).toHaveText(new RegExp(`^op ${k} / `));
    expect(await sideFreeLists(page, side)).toEqual(cliSide(id, side, k));
  }
  // The counters the caption talks about are not 0.
  await expect(page.getByTestId('compare-a-pages_stolen')).not.toHaveText('0');
  for (const t of ['tour-caption', 'compare-measured']) await expectShown(page.getByTestId(t), t);
  // The wide screen's compare layout (the table beside the sides, aligned to the top) does not
  // leave the sides short: every order of both tables, and both maps.
  for (const side of ['a', 'b'] as const) {
    const loc = page.getByTestId(`side-${side}`);
    await expectShown(loc.locator('.map-inner'), `map ${side}`);
    for (const o of [0, 10]) await expectShown(loc.getByTestId(`nr-free-${o}`), `side ${side}: nr_free[${o}]`);
    // The follow view's overview leaves the short map box to the map: a third of its height.
    await expect(loc.getByTestId('map-overview')).toBeVisible();
    const ov = (await loc.getByTestId('map-overview').boundingBox())!;
    const mb = (await loc.locator('.map-scroll').boundingBox())!;
    expect(ov.height, `side ${side}: overview ${ov.height} px in a map box of ${mb.height} px`).toBeLessThanOrEqual(mb.height / 3 + 2);
  }
  await noPageScroll(page);
  await saveScreenshot(page, 'present-compare-fallback-steal-1920');

  // PageUp goes back a stop on both sides.
  await page.keyboard.press('PageUp');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 2/${tour.length}`);
  expect(await sideFreeLists(page, 'a')).toEqual(cliSide(id, 'a', tour[1].op));
  expect(await sideFreeLists(page, 'b')).toEqual(cliSide(id, 'b', tour[1].op));

  // An event step moves off the stop: the caption goes; PageUp returns to the stop.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tour-caption')).toHaveCount(0);
  await expect(page.getByTestId('tour-stop')).toHaveText(`after stop 2/${tour.length}`);
  await page.keyboard.press('PageUp');
  await expect(page.getByTestId('tour-caption')).toHaveText(tour[1].caption);

  // A share link made at stop 3 reopens both sides at stop 3 with its caption.
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 3/${tour.length}`);
  await page.getByTestId('share-link').evaluate((el: HTMLElement) => el.click());
  const url = await page.getByTestId('share-url').inputValue();
  expect(url).toContain('#s=');
  const other = await page.context().newPage();
  await other.goto(url);
  await expect(other.getByTestId('presenter-view')).toBeVisible();
  await expect(other.getByTestId('tour-caption')).toHaveText(tour[2].caption);
  // The caption can come before the sides have mounted and reached the stop's op.
  for (const side of ['a', 'b'] as const) {
    await expect(other.getByTestId(`side-${side}`).getByTestId('side-progress')).toHaveText(new RegExp(`^op ${k} / `));
  }
  expect(await sideFreeLists(other, 'a')).toEqual(cliSide(id, 'a', k));
  expect(await sideFreeLists(other, 'b')).toEqual(cliSide(id, 'b', k));
  await other.close();

  // Leaving presenter mode ends the tour: no caption over a run somewhere else.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('presenter-view')).toHaveCount(0);
  await expect(page.getByTestId('tour-caption')).toHaveCount(0);
  // Compare off and on again: still no caption; P starts the tour again at stop 1, both sides.
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('compare-toggle').click();
  await page.locator('body').press('p');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 1/${tour.length}`);
  for (const side of ['a', 'b'] as const) {
    await expect(page.getByTestId(`side-${side}`).getByTestId('side-progress')).toHaveText(progressAt(tour[0].op, 39));
  }
});

test('every stop of every built-in tour fits 1280×720 in presenter mode, and the narration says what the step did', async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 720 });
  for (const id of TOURED) {
    const tour = builtin(id).tour!;
    await openPresenting(page, `?scenario=${id}&present`);
    for (let i = 0; i < tour.length; i++) {
      if (i > 0) await page.keyboard.press('PageDown');
      await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${i + 1}/${tour.length}`);
      const at = `${id} stop ${i + 1}`;
      await expectShown(page.getByTestId('tour-caption'), `${at}: caption`);
      await expectShown(page.locator('.map-inner'), `${at}: map`);
      for (const o of [0, 8, 9, 10]) await expectShown(page.getByTestId(`nr-free-${o}`), `${at}: nr_free[${o}]`);
      await noPageScroll(page);
      const narr = (await page.getByTestId('narration').textContent()) ?? '';
      expect(narr, `${at}: narration`).not.toMatch(/^[←→]/);
      expect(narr, `${at}: narration`).not.toContain("the node's zone");
      if (i === 0) {
        expect(await fontPx(page.getByTestId('narration'))).toBeGreaterThanOrEqual(24);
        expect(await fontPx(page.getByTestId('tour-caption'))).toBeGreaterThanOrEqual(24);
        // nr_free as large as the counts beside it, on the same line.
        const nr = page.getByTestId('nr-free-0');
        const cnt = page.getByTestId('freelist-0-movable');
        expect(await fontPx(nr)).toBeCloseTo(await fontPx(cnt), 0);
        const [bn, bc] = [await nr.boundingBox(), await cnt.boundingBox()];
        expect(Math.abs(bn!.y + bn!.height / 2 - (bc!.y + bc!.height / 2))).toBeLessThan(4);
      }
    }
    await saveScreenshot(page, `present-${id}-last-stop`);
  }
});

test('dma32-machine: zone tabs in presenter and compare mode; a stop shows the zone its caption names', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const tour = builtin('dma32-machine').tour!;
  await openPresenting(page, '?scenario=dma32-machine&present');
  await expect(page.getByTestId('tour-caption')).toContainText('tabs above the map');
  await expect(page.getByTestId('zone-tab-DMA32')).toBeVisible();
  await expect(page.getByTestId('zone-tab-Normal')).toBeVisible();
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 3/${tour.length}`);
  await expect(page.getByTestId('tour-caption')).toContainText('DMA32 (pfn 0x1000)');
  await expect(page.getByTestId('zone-tab-DMA32')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('narration')).toContainText('DMA32');
  await expect(page.getByTestId('narration')).toContainText('pfn 0x1000');
  // The tab picks the other zone.
  await page.getByTestId('zone-tab-Normal').click();
  await expect(page.getByTestId('zone-tab-Normal')).toHaveAttribute('aria-pressed', 'true');
  await saveScreenshot(page, 'present-dma32-stop3');

  // Compare mode: each side has its tabs.
  await page.goto('/?scenario=dma32-machine&compare=v7.1,v7.2');
  await waitForPanels(page);
  for (const side of ['a', 'b']) {
    await expect(page.getByTestId(`side-${side}`).getByTestId('zone-tab-DMA32')).toBeVisible();
  }
  await page.getByTestId('side-a').getByTestId('zone-tab-DMA32').click();
  await expect(page.getByTestId('side-a').getByTestId('zone-tab-DMA32')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('side-b').getByTestId('zone-tab-DMA32')).toHaveAttribute('aria-pressed', 'false');
});

test('?tour=99 says which stops there are and starts at stop 1', async ({ page }) => {
  await openPresenting(page, '?scenario=cma-frozen-range&tour=99');
  const n = builtin('cma-frozen-range').tour!.length;
  await expect(page.getByTestId('tour-notice')).toContainText(`no stop 99`);
  await expect(page.getByTestId('tour-notice')).toContainText(`?tour=${n}`);
  await expect(page.getByTestId('tour-stop')).toHaveText(`stop 1/${n}`);
  await page.keyboard.press('PageDown');
  await expect(page.getByTestId('tour-notice')).toHaveCount(0);
});
