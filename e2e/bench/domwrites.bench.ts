// What a scrub jump writes to the DOM: a MutationObserver records every write of BENCH_DOM_N
// (default 20) far scrubber jumps on the seeded sandbox workload (BENCH_PROFILE_PAGES pages,
// default 262144), grouped by the panel it landed in, and counts the writes that left the value
// as it was (an attribute or text set to what it already was still queues a record).
// `bash scripts/bench-frames.sh bench/domwrites.bench.ts`. Not part of the test suite: it prints,
// it asserts nothing.
import { test } from '@playwright/test';
import { scenarioText } from './frames';

test('DOM writes per scrub jump', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  const pages = Number(process.env.BENCH_PROFILE_PAGES ?? 262144);
  const n = Number(process.env.BENCH_DOM_N ?? 20);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto('/');
  await page.getByTestId('scenario-editor').fill(scenarioText(pages, 'dom writes', 3000));
  await page.getByTestId('scenario-run').click();
  await page.getByTestId('scenario-name').filter({ hasText: 'dom writes' }).waitFor({ timeout: 120_000 });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.evaluate(() => window.scrollTo(0, 0));
  const r = await page.evaluate(async (n) => {
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const s = document.querySelector('[data-testid="scrubber"]') as HTMLElement;
    const where = (node: Node): string => {
      const el = node instanceof Element ? node : node.parentElement;
      const sec = el?.closest('section[id], .timebar, .narration-bar, header, [data-testid]');
      return sec ? sec.id || sec.getAttribute('data-testid') || sec.className.split(' ')[0] : '(other)';
    };
    const by = new Map<string, { writes: number; same: number }>();
    const kinds = new Map<string, number>();
    let total = 0;
    let same = 0;
    const work: number[] = [];
    let pending: MutationRecord[] = [];
    const obs = new MutationObserver((recs) => pending.push(...recs));
    obs.observe(document.body, {
      subtree: true,
      attributes: true,
      attributeOldValue: true,
      characterData: true,
      characterDataOldValue: true,
      childList: true,
    });
    for (let i = 0; i < n; i++) {
      await frame();
      obs.takeRecords();
      pending = [];
      const t0 = performance.now();
      const r = s.getBoundingClientRect();
      const x = r.left + ((0.3 + i * 0.6180339887) % 1) * r.width;
      s.dispatchEvent(new PointerEvent('pointerdown', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
      s.dispatchEvent(new PointerEvent('pointerup', { clientX: x, clientY: r.top + 2, button: 0, pointerId: 1, bubbles: true }));
      await new Promise((r) => setTimeout(r, 0));
      work.push(performance.now() - t0);
      pending.push(...obs.takeRecords());
      for (const m of pending) {
        let unchanged = false;
        let kind: string = m.type;
        if (m.type === 'attributes') {
          const now = (m.target as Element).getAttribute(m.attributeName!);
          unchanged = now === m.oldValue;
          kind = `attr ${m.attributeName}`;
        } else if (m.type === 'characterData') {
          unchanged = m.target.nodeValue === m.oldValue;
          kind = 'text';
        } else {
          kind = `childList +${m.addedNodes.length}/-${m.removedNodes.length}`;
        }
        const k = `${where(m.target)}: ${kind}`;
        const e = by.get(k) ?? { writes: 0, same: 0 };
        e.writes++;
        if (unchanged) e.same++;
        by.set(k, e);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        total++;
        if (unchanged) same++;
      }
    }
    obs.disconnect();
    const sorted = [...work].sort((a, b) => a - b);
    return {
      total,
      same,
      by: [...by.entries()].sort((a, b) => b[1].writes - a[1].writes),
      kinds: [...kinds.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20),
      workMedian: sorted[Math.floor(sorted.length / 2)],
    };
  }, n);
  console.log(`${n} jumps on ${pages} pages: ${r.total} DOM writes (${(r.total / n).toFixed(1)} per jump), ${r.same} of them unchanged; work median ${r.workMedian.toFixed(1)} ms`);
  for (const [k, v] of r.by) console.log(`  ${String(v.writes).padStart(6)} (${String(v.same).padStart(5)} unchanged)  ${k}`);
  console.log('by kind:');
  for (const [k, v] of r.kinds) console.log(`  ${String(v).padStart(6)}  ${k}`);
});
