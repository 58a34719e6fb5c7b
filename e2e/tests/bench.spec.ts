// The frame harness (e2e/bench/frames.ts, run at full size by scripts/bench-frames.sh) at a tiny
// iteration count: its output has every zone size and action with non-zero times. No timing is
// asserted: this suite must not fail on a slow machine. The harness reads the map's render times,
// which only the bench build (`--features bench`) exposes: against the shipped build it is skipped.
import { test, expect, isBenchBuild, NEEDS_BENCH_BUILD } from '../fixtures';
import { ACTIONS, SIZES, measureFrames, table } from '../bench/frames';
import { PAINT_ACTIONS } from '../bench/topaint';

test('the frame harness measures every zone size and action (sanity only)', async ({ page, browser, baseURL }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  test.skip(!(await isBenchBuild(page)), NEEDS_BENCH_BUILD);
  const r = await measureFrames(page, browser, baseURL!, { iterations: 2, steps: 300, firstPaintRuns: 1, engineRuns: 0 });
  expect(r.firstPaint.fcp.median).toBeGreaterThan(0);
  expect(r.firstPaint.map.median).toBeGreaterThan(0);
  expect(r.sizes.map((s) => s.pages)).toEqual(SIZES.map((s) => s.pages));
  for (const s of r.sizes) {
    expect(s.events, s.size).toBeGreaterThan(0);
    expect(s.actions.map((a) => a.action)).toEqual([...ACTIONS]);
    for (const a of s.actions) {
      expect(a.work.n, `${s.size} ${a.action}`).toBeGreaterThan(0);
      expect(a.frame.median, `${s.size} ${a.action}`).toBeGreaterThan(0);
      expect(a.map.n, `${s.size} ${a.action}`).toBeGreaterThan(0);
      // Chrome's phase times: one figure per sample; a frame is always painted.
      expect(a.phases?.paint.n, `${s.size} ${a.action} phases`).toBe(a.work.n);
      expect(a.phases!.paint.max, `${s.size} ${a.action} paint`).toBeGreaterThan(0);
      // The browser's input to paint (Event Timing) for the actions a trusted input drives.
      if ((PAINT_ACTIONS as readonly string[]).includes(a.action)) {
        expect(a.toPaint?.duration.n, `${s.size} ${a.action} to paint`).toBe(2);
        expect(a.toPaint!.duration.median, `${s.size} ${a.action} to paint`).toBeGreaterThan(0);
        expect(a.toPaint!.within16).toBeGreaterThanOrEqual(0);
        expect(a.toPaint!.within16).toBeLessThanOrEqual(1);
      } else {
        expect(a.toPaint, `${s.size} ${a.action}`).toBeUndefined();
      }
    }
  }
  // The 16 GiB zone is drawn at the pageblock level when it fits the box.
  expect(r.sizes[2].lod).toBe('pageblocks');
  expect(table(r)).toContain('| 16 GiB');
  expect(table(r)).toContain('to paint ms');
});
