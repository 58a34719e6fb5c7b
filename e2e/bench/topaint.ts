// Input to paint, as the browser itself measures it: the Event Timing API. A synthetic event
// (`dispatchEvent`, what bench/frames.ts's sampleInPage uses to time the app's work) is not
// trusted and gets no Event Timing entry, so these samples drive real input through Playwright
// (CDP Input: keys and mouse clicks) and read the `event` entries the page observed:
//   duration     = the input's timestamp → the next paint after its handlers ran (Chrome rounds
//                  it to 8 ms);
//   input delay  = processingStart - startTime (waiting for the main thread);
//   processing   = processingEnd - processingStart (the handlers: the app's work);
//   presentation = the rest of the duration (style, layout, paint, and the wait for the frame).
// The API reports only entries of at least 16 ms (`durationThreshold` cannot go lower), so an
// input with no entry was painted in under 16 ms: counted as 8 ms (the API's granularity) and
// in `within16`, the fraction of inputs painted within the 16 ms budget.
import type { Page } from '@playwright/test';
import { stats, type Action, type Stats } from './frames';

/** The actions a trusted input can drive: keys, a scrubber click, the theme button. */
export const PAINT_ACTIONS = ['step', 'op', 'jump', 'redraw'] as const satisfies readonly Action[];

export interface ToPaint {
  duration: Stats;
  inputDelay: Stats;
  processing: Stats;
  presentation: Stats;
  /** Fraction of the inputs painted within 16 ms (no entry, or an entry of 16 ms). */
  within16: number;
}

/** Under the API's 16 ms threshold: no entry; counted at its 8 ms granularity. */
const UNDER_THRESHOLD_MS = 8;

/** `n` trusted inputs of `action`, each timed by the browser from input to paint. */
export async function sampleToPaint(page: Page, action: Action, n: number): Promise<ToPaint | undefined> {
  const rows = await toPaintSamples(page, action, n);
  return rows ? toPaintStats(rows) : undefined;
}

/** Per input: [duration, input delay, processing, presentation], ms (NaN for the parts of an
 *  input under the threshold, which has no entry). */
export async function toPaintSamples(page: Page, action: Action, n: number): Promise<number[][] | undefined> {
  if (!(PAINT_ACTIONS as readonly string[]).includes(action)) return undefined;
  await page.evaluate(() => {
    const w = window as any;
    if (w.__bench_et) return;
    w.__bench_et = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as any[]) {
        w.__bench_et.push({
          name: e.name,
          startTime: e.startTime,
          duration: e.duration,
          processingStart: e.processingStart,
          processingEnd: e.processingEnd,
        });
      }
    }).observe({ type: 'event', buffered: true, durationThreshold: 16 } as PerformanceObserverInit);
  });
  const scrubber = page.getByTestId('scrubber');
  const theme = page.getByTestId('theme-toggle');
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) {
    // Untimed preparation (as in sampleInPage): steps stay inside the run, the theme click is a
    // real switch; then two quiet frames.
    const t = await page.evaluate(
      async ({ action }) => {
        const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const s = document.querySelector('[data-testid="scrubber"]') as HTMLElement;
        const btn = document.querySelector('[data-testid="theme-toggle"]') as HTMLElement;
        const len = Number(s.getAttribute('aria-valuemax'));
        const pos = Number(s.getAttribute('aria-valuenow'));
        if ((action === 'step' || action === 'op') && pos >= len - 2) {
          document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true }));
          await frame();
        }
        if (action === 'redraw' && /auto/.test(btn.textContent ?? '')) {
          btn.click();
          await frame();
        }
        await frame();
        await frame();
        return performance.now();
      },
      { action },
    );
    switch (action) {
      case 'step':
        await page.keyboard.press('ArrowRight');
        break;
      case 'op':
        await page.keyboard.press('Shift+ArrowRight');
        break;
      case 'jump': {
        // Far positions, not the ones sampleInPage visits: (0.1 + i φ) mod 1 over the track.
        const b = (await scrubber.boundingBox())!;
        const f = (0.1 + i * 0.6180339887) % 1;
        await page.mouse.click(b.x + f * b.width, b.y + b.height / 2);
        break;
      }
      case 'redraw':
        await theme.click();
        break;
    }
    // Entries are queued after the paint they measure: wait a few frames for them.
    const entries = (await page.evaluate(async (t) => {
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      for (let k = 0; k < 4; k++) await frame();
      await new Promise((r) => setTimeout(r, 30));
      const w = window as any;
      const mine = w.__bench_et.filter((e: any) => e.startTime >= t);
      w.__bench_et = w.__bench_et.filter((e: any) => e.startTime < t);
      return mine;
    }, t)) as { name: string; startTime: number; duration: number; processingStart: number; processingEnd: number }[];
    if (entries.length === 0) {
      rows.push([UNDER_THRESHOLD_MS, NaN, NaN, NaN]);
      continue;
    }
    // The interaction's latency is its slowest event's (pointerdown, pointerup, click or keydown).
    const e = entries.reduce((a, b) => (b.duration > a.duration ? b : a));
    const delay = e.processingStart - e.startTime;
    const proc = e.processingEnd - e.processingStart;
    rows.push([e.duration, delay, proc, Math.max(0, e.duration - delay - proc)]);
  }
  // Back to auto after the theme clicks (untimed).
  if (action === 'redraw') {
    await page.evaluate(async () => {
      const btn = document.querySelector('[data-testid="theme-toggle"]') as HTMLElement;
      while (!/auto/.test(btn.textContent ?? '')) {
        btn.click();
        await new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      }
    });
  }
  return rows;
}

export function toPaintStats(rows: number[][]): ToPaint {
  const col = (k: number) => rows.map((r) => r[k]).filter((x) => Number.isFinite(x));
  return {
    duration: stats(col(0)),
    inputDelay: stats(col(1)),
    processing: stats(col(2)),
    presentation: stats(col(3)),
    within16: rows.length ? rows.filter((r) => r[0] <= 16).length / rows.length : 0,
  };
}
