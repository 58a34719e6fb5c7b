// First paint of the default scenario on a fresh page (BENCHMARKS.md "Bundle"): how long after
// navigation start the memory map is first drawn. Used by tests/bundle.spec.ts (a few runs,
// sanity only) and by scripts/bundle-size.sh --first-paint (more runs, the published median).
//
// Nothing in the app is instrumented: an init script wraps the canvas 2D drawing calls and notes
// the first one that lands on the memory-map canvas, then the next animation frame (the frame
// that shows it). Every load is a new browser context, so nothing is cached (the static server
// also sends no-store) and the service worker of an earlier load cannot answer.
import type { Browser, Page } from '@playwright/test';

export interface FirstPaintRun {
  /** Navigation start → the main wasm module's response finished downloading (not the split modules loaded after the first paint), ms. */
  wasmLoaded: number;
  /** Navigation start → WebAssembly compiled and instantiated (main() starts right after), ms. */
  instantiated: number;
  /** Navigation start → first draw call on the memory-map canvas (inside main()), ms. */
  mapDraw: number;
  /** Navigation start → trunk's TrunkApplicationStarted: main() and the effects it queued have run, ms. */
  mounted: number;
  /** Navigation start → first contentful paint (the browser's own paint timing), ms. */
  fcp: number;
  /** Navigation start → the frame after the first map draw has been painted: the map is on screen, ms. */
  mapShown: number;
}

const KEYS = ['wasmLoaded', 'instantiated', 'mapDraw', 'mounted', 'fcp', 'mapShown'] as const;

export interface FirstPaint {
  runs: FirstPaintRun[];
  median: FirstPaintRun;
}

/** Runs before any page script: marks instantiation, the first memory-map draw, the paint of the
 * frame after it (a task queued from that frame's animation callback runs once it is painted)
 * and the end of main(). */
export function hookCanvas(): void {
  const w = window as unknown as {
    __bsInstantiated?: number;
    __bsFirstMapDraw?: number;
    __bsFirstMapShown?: number;
    __bsMounted?: number;
  };
  for (const name of ['instantiate', 'instantiateStreaming'] as const) {
    const orig = WebAssembly[name] as (...a: unknown[]) => Promise<unknown>;
    (WebAssembly as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      orig.apply(WebAssembly, args).then((r) => {
        w.__bsInstantiated ??= performance.now();
        return r;
      });
  }
  // Tells the harness by a console message, which needs nothing in the page: waiting with
  // page.waitForFunction would install Playwright's injected script and poll in the middle of
  // the load being measured (~16 ms of main-thread CPU before the first paint in a trace).
  const done = () => {
    if (w.__bsFirstMapShown !== undefined && w.__bsMounted !== undefined) console.debug('bs-first-paint-done');
  };
  addEventListener('TrunkApplicationStarted', () => {
    w.__bsMounted = performance.now();
    done();
  });
  const proto = CanvasRenderingContext2D.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['putImageData', 'drawImage', 'fillRect', 'fill', 'stroke']) {
    const orig = proto[name];
    proto[name] = function (this: CanvasRenderingContext2D, ...args: unknown[]) {
      if (w.__bsFirstMapDraw === undefined && this.canvas?.getAttribute?.('data-testid') === 'memory-map') {
        w.__bsFirstMapDraw = performance.now();
        requestAnimationFrame(() =>
          setTimeout(() => {
            w.__bsFirstMapShown = performance.now();
            done();
          }),
        );
      }
      return orig.apply(this, args);
    };
  }
}

/** Resolves once `hookCanvas` has seen the map on screen and the app started (call it before
 * navigating). */
function firstPaintDone(page: Page): Promise<unknown> {
  return page.waitForEvent('console', { predicate: (m) => m.text() === 'bs-first-paint-done', timeout: 30_000 });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export async function measureFirstPaint(browser: Browser, baseURL: string, runs: number): Promise<FirstPaint> {
  const out: FirstPaintRun[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    const page = await ctx.newPage();
    await page.addInitScript(hookCanvas);
    const done = firstPaintDone(page);
    await page.goto(baseURL + '/');
    await done;
    out.push(
      await page.evaluate(async () => {
        const w = window as unknown as {
          __bsInstantiated: number;
          __bsFirstMapDraw: number;
          __bsFirstMapShown: number;
          __bsMounted: number;
        };
        // The paint timing entry arrives after the frame is presented, which can be after the
        // probe's task: wait for it (at most a second; 0 if it never comes).
        const fcp = await new Promise<PerformanceEntry | undefined>((resolve) => {
          const seen = () => performance.getEntriesByName('first-contentful-paint')[0];
          if (seen()) return resolve(seen());
          new PerformanceObserver(() => seen() && resolve(seen())).observe({ type: 'paint', buffered: true });
          setTimeout(() => resolve(seen()), 1000);
        });
        const wasm = performance
          .getEntriesByType('resource')
          .find((e) => e.name.endsWith('_bg.wasm')) as PerformanceResourceTiming | undefined;
        return {
          wasmLoaded: wasm ? wasm.responseEnd : 0,
          instantiated: w.__bsInstantiated ?? 0,
          mapDraw: w.__bsFirstMapDraw,
          mounted: w.__bsMounted,
          fcp: fcp ? fcp.startTime : 0,
          mapShown: w.__bsFirstMapShown,
        };
      }),
    );
    await ctx.close();
  }
  const med = Object.fromEntries(KEYS.map((k) => [k, median(out.map((r) => r[k]))])) as unknown as FirstPaintRun;
  return { runs: out, median: med };
}

/** One line per quantity: `first-paint <name> <median ms> (<runs> runs: a, b, …)`. */
export function firstPaintLines(r: FirstPaint): string[] {
  return KEYS.map(
    (k) => `first-paint ${k} ${r.median[k].toFixed(0)} ms (median of ${r.runs.length}: ${r.runs.map((x) => x[k].toFixed(0)).join(', ')})`,
  );
}
