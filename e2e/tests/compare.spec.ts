// Compare mode (A/B): both sides step together by op, each side's free lists equal the CLI run of
// that side (`buddyscope run FILE --side a|b --ops K`), the counter table shows both values and
// B/A, and the kernel's measurement from the thread sits beside it.
import { test, expect, openApp, saveScreenshot, runCli, type Page } from '../fixtures';
import * as path from 'node:path';

function scenarioFile(id: string): string {
  return path.join('engine', 'scenarios', `${id}.json`);
}

/** nr_free per order of one side after K ops, from the CLI. */
function cliSideBuddyinfo(id: string, side: 'a' | 'b', ops: number): number[] {
  const out = runCli(['run', scenarioFile(id), '--side', side, '--format', 'buddyinfo', '--ops', String(ops)]);
  return out.trim().split(/\s+/).map(Number).filter((n) => Number.isFinite(n)).slice(-11);
}

/** Per-CPU pcp `count` of one side after K ops, from the CLI's zoneinfo. */
function cliSidePcp(id: string, side: 'a' | 'b', ops: number): number[] {
  const out = runCli(['run', scenarioFile(id), '--side', side, '--format', 'zoneinfo', '--ops', String(ops)]);
  return [...out.matchAll(/^\s+count:\s+(-?\d+)/gm)].map((m) => Number(m[1]));
}

/** Per order, the sum of the side's freelist-{o}-{mt} cells, and its nr-free-{o}. */
async function sideCounts(page: Page, side: 'a' | 'b'): Promise<{ sums: number[]; nrFree: number[] }> {
  return page.evaluate((s) => {
    const root = document.querySelector(`[data-testid="side-${s}"]`)!;
    const sums: number[] = [];
    const nrFree: number[] = [];
    for (let o = 0; o <= 10; o++) {
      let sum = 0;
      root.querySelectorAll(`[data-testid^="freelist-${o}-"]`).forEach((el) => (sum += Number(el.textContent)));
      sums.push(sum);
      nrFree.push(Number(root.querySelector(`[data-testid="nr-free-${o}"]`)?.textContent));
    }
    return { sums, nrFree };
  }, side);
}

async function opForward(page: Page, times: number) {
  for (let i = 0; i < times; i++) await page.getByTestId('op-forward').click();
}

function num(text: string | null): number {
  return Number((text ?? '').replace(/[^\d.-]/g, ''));
}

for (const id of ['free-contig-range-thp', 'cma-frozen-range', 'vmalloc-large-order', 'fallback-steal']) {
  test(`${id}: ?compare=1 runs the declared pair; op steps move both sides; free lists match the CLI per side`, async ({ page }) => {
    test.setTimeout(120_000);
    await openApp(page, `?scenario=${id}&compare=1`);
    const a = page.getByTestId('side-a');
    const b = page.getByTestId('side-b');
    await expect(a).toBeVisible();
    await expect(b).toBeVisible();
    await expect(page.getByTestId('compare-toggle')).toHaveAttribute('aria-pressed', 'true');
    const decl = JSON.parse(runCli(['builtin', id])).compare;
    await expect(a.getByTestId('side-label')).toHaveText(decl.a.label);
    await expect(b.getByTestId('side-label')).toHaveText(decl.b.label);
    const nOps = Number(/op \d+ \/ (\d+)|before op 1 \/ (\d+)/.exec((await page.getByTestId('compare-position').textContent())!)!.slice(1).find((x) => x));
    const ks = [...new Set([1, 2, Math.min(nOps, 6)])];
    let done = 0;
    for (const k of ks) {
      await opForward(page, k - done);
      done = k;
      await expect(page.getByTestId('compare-position')).toContainText(`op ${k} / ${nOps}`);
      for (const side of ['a', 'b'] as const) {
        await expect(page.getByTestId(`side-${side}`).getByTestId('side-progress')).toContainText(`op ${k} / ${nOps} · op done`);
        const want = cliSideBuddyinfo(id, side, k);
        const got = await sideCounts(page, side);
        expect(got.sums, `side ${side}: free lists after ${k} ops`).toEqual(want);
        expect(got.nrFree, `side ${side}: nr_free after ${k} ops`).toEqual(want);
        const pcp = cliSidePcp(id, side, k);
        for (let cpu = 0; cpu < pcp.length; cpu++) {
          await expect(page.getByTestId(`side-${side}`).getByTestId(`pcp-count-${cpu}`)).toHaveText(String(pcp[cpu]));
        }
      }
    }
    // The counter table: both values equal each side's own counters, and B/A.
    for (const name of ['pcp_ops', 'zone_lock']) {
      const av = num(await a.getByTestId(`counter-${name}`).textContent());
      const bv = num(await b.getByTestId(`counter-${name}`).textContent());
      await expect(page.getByTestId(`compare-a-${name}`)).toHaveText(String(av));
      await expect(page.getByTestId(`compare-b-${name}`)).toHaveText(String(bv));
      const ratio = await page.getByTestId(`compare-ratio-${name}`).textContent();
      if (av === 0) expect(ratio).toBe('—');
      else expect(Math.abs(num(ratio) - bv / av)).toBeLessThanOrEqual(0.01 * Math.max(1, bv / av));
    }
    // The thread's measurement, labelled as the kernel's.
    const m = page.getByTestId('compare-measured');
    await expect(m).toContainText("The kernel's measurement from the thread");
    for (const row of decl.measured.rows) {
      await expect(m).toContainText(String(row.a));
      await expect(m).toContainText(String(row.b));
    }
    // Both sides carry the single view's panels.
    for (const side of [a, b]) {
      await expect(side.getByTestId('narration')).not.toBeEmpty();
      await expect(side.getByTestId('memory-map')).toBeVisible();
      await expect(side.getByTestId('pcp-count-0')).toBeVisible();
    }
    await saveScreenshot(page, `compare-${id}`);
  });
}

test('the toggle turns compare mode on and off at the same op; stepping controls and keys move both sides', async ({ page }) => {
  await openApp(page, '?scenario=free-contig-range-unaligned');
  await expect(page.getByTestId('position')).toContainText('event 0 /');
  await expect(page.getByTestId('side-a')).toHaveCount(0);
  await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).toContainText('op 1 / 5');
  await page.getByTestId('compare-toggle').click();
  await expect(page.getByTestId('side-a')).toBeVisible();
  await expect(page.getByTestId('compare-kernel-a')).toHaveValue('v7.1');
  await expect(page.getByTestId('compare-kernel-b')).toHaveValue('v7.2');
  const progA = page.getByTestId('side-a').getByTestId('side-progress');
  const progB = page.getByTestId('side-b').getByTestId('side-progress');
  // Turned on at op 1: both sides after op 1.
  await expect(progA).toContainText('op 1 / 5 · op done');
  await expect(progB).toContainText('op 1 / 5 · op done');
  // op 2 is the free: per page on A (v7.1), chunked on B (v7.2); event steps move both sides
  // inside it, and B (fewer events) waits at its end.
  await page.getByTestId('step-forward').click();
  await expect(progA).toContainText('op 2 / 5 · event');
  await expect(progB).toContainText('op 2 / 5 · event');
  await expect(progA).toContainText('into the op');
  // Step (by key) until B has finished op 2: A, with its per-page events, is still inside it.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  const intoA = async () => Number(/event (\d+) of \d+ into the op/.exec((await progA.textContent()) ?? '')?.[1] ?? -1);
  let steps = 0;
  while (!((await progB.textContent()) ?? '').includes('op done')) {
    await page.keyboard.press('ArrowRight');
    expect(++steps, 'B finishes op 2').toBeLessThan(3000);
  }
  await expect(progA).toContainText('op 2 / 5 · event');
  const before = await intoA();
  expect(before).toBeGreaterThan(0);
  await page.keyboard.press('ArrowRight');
  await expect(progB).toContainText('op 2 / 5 · op done'); // B waits at the op end
  expect(await intoA()).toBeGreaterThan(before); // A goes on
  // Keys move both sides by op too.
  await page.keyboard.press('PageDown');
  await expect(progA).toContainText('op 2 / 5 · op done');
  await expect(progB).toContainText('op 2 / 5 · op done');
  await page.keyboard.press('PageDown');
  await expect(progA).toContainText('op 3 / 5 · op done');
  await expect(progB).toContainText('op 3 / 5 · op done');
  await page.keyboard.press('PageUp');
  await expect(progA).toContainText('op 2 / 5 · op done');
  await expect(progB).toContainText('op 2 / 5 · op done');
  await page.getByTestId('jump-end').click();
  await expect(progA).toContainText('op 5 / 5 · op done');
  await expect(progB).toContainText('op 5 / 5 · op done');
  await page.getByTestId('jump-start').click();
  await expect(progA).toContainText('before op 1');
  await expect(progB).toContainText('before op 1');
  await page.getByTestId('op-back').click();
  await expect(progA).toContainText('before op 1');
  await page.getByTestId('op-forward').click();
  await page.getByTestId('op-forward').click();
  await page.getByTestId('op-forward').click();
  // Turned off at op 3: the single view after op 3.
  await page.getByTestId('compare-toggle').click();
  await expect(page.getByTestId('side-a')).toHaveCount(0);
  await expect(page.getByTestId('position')).toContainText('op 3 / 5');
  await expect(page.getByTestId('compare-toggle')).toHaveAttribute('aria-pressed', 'false');
});

test('play advances both sides', async ({ page }) => {
  // Playing ~3,000 events at 512 a second takes as long in any run: room for a loaded machine.
  test.setTimeout(60_000);
  await openApp(page, '?scenario=free-contig-range-unaligned&compare=1');
  const progA = page.getByTestId('side-a').getByTestId('side-progress');
  const progB = page.getByTestId('side-b').getByTestId('side-progress');
  await page.getByTestId('speed').selectOption('512');
  await page.getByTestId('play').click();
  await expect(progA).toContainText('op 5 / 5 · op done', { timeout: 45_000 });
  await expect(progB).toContainText('op 5 / 5 · op done');
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
});

test('?compare=v7.1,v7.2 picks the profiles; the selects and the knob change a side', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim&compare=v6.18,v7.2');
  await expect(page.getByTestId('compare-kernel-a')).toHaveValue('v6.18');
  await expect(page.getByTestId('compare-kernel-b')).toHaveValue('v7.2');
  const options = await page.getByTestId('compare-kernel-a').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  expect(options).toEqual(['v6.12', 'v6.18', 'v6.19', 'v7.1', 'v7.2', 'v7.3']);
  await page.getByTestId('compare-kernel-a').selectOption('v7.1');
  await expect(page.getByTestId('side-a').getByTestId('side-label')).toHaveText('v7.1');
  await page.getByTestId('compare-mm-b').uncheck();
  await expect(page.getByTestId('side-b').getByTestId('side-label')).toHaveText('v7.2, rmqueue_mode memory off');
  await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('compare-position')).toContainText('op 1 /');
});

test('a bad ?compare= says why and keeps the single view', async ({ page }) => {
  await openApp(page, '?scenario=fallback-claim&compare=v9.9,v7.2');
  await expect(page.getByTestId('compare-error')).toContainText('unknown kernel');
  await expect(page.getByTestId('position')).toBeVisible();
  await expect(page.getByTestId('side-a')).toHaveCount(0);
});

for (const size of [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
]) {
  test(`compare layout at ${size.width}x${size.height}: no horizontal scroll`, async ({ page }) => {
    await page.setViewportSize(size);
    await openApp(page, '?scenario=free-contig-range-thp&compare=1');
    await expect(page.getByTestId('side-b')).toBeVisible();
    await opForward(page, 3);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, `compare-full-${size.width}x${size.height}`);
  });
}
