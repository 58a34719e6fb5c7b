// Chrome's own phase times per sample: a DevTools trace (`devtools.timeline`) recorded around a
// run of sampleInPage, cut at the `console.timeStamp("bench:<action>:<i>")` markers it leaves
// before each input (or playback frame). Per sample, on the renderer's main thread:
//   style  = UpdateLayoutTree (style recalculation),
//   layout = Layout,
//   paint  = PrePaint + Paint + Layerize (the main thread's share of painting; rasterising and
//            compositing run on other threads),
//   script = FunctionCall, EventDispatch, TimerFire, FireAnimationFrame and RunMicrotasks at the
//            top level (the app's wasm and JS, forced style and layout inside them included).
// Thread time on the renderer, not wall time: the load on a shared machine distorts it far less.
import type { Page } from '@playwright/test';
import { stats, type Stats } from './frames';

export interface Phases {
  style: Stats;
  layout: Stats;
  paint: Stats;
  script: Stats;
}

const PHASE_OF: Record<string, keyof Phases> = {
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  PrePaint: 'paint',
  Paint: 'paint',
  Layerize: 'paint',
};
const SCRIPT = new Set(['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'RunMicrotasks']);

/** One event of a DevTools trace (the fields the harnesses read). */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: { message?: string } };
}

/** Runs `body` under a DevTools trace of `categories` and returns the trace's events (the one
 *  trace recorder of the harnesses: phases here, bench/rastertrace.bench.ts's threads). */
export async function traceEvents<E>(page: Page, categories: string[], body: () => Promise<void>): Promise<E[]> {
  const cdp = await page.context().newCDPSession(page);
  const events: E[] = [];
  cdp.on('Tracing.dataCollected', (d: { value: E[] }) => {
    for (const e of d.value) events.push(e);
  });
  const complete = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: categories, recordMode: 'recordAsMuchAsPossible' },
    transferMode: 'ReportEvents',
  });
  try {
    await body();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
  }
  return events;
}

/** Runs `body` under a DevTools trace and returns the phase times (ms) of each marked sample. */
export async function withPhases<T>(page: Page, body: () => Promise<T>): Promise<{ result: T; phases: Phases; perSample: PhaseSamples }> {
  let result!: T;
  const events = await traceEvents<TraceEvent>(page, ['devtools.timeline', 'disabled-by-default-devtools.timeline'], async () => {
    result = await body();
  });
  const perSample = phasesPerSample(events);
  return { result, phases: phaseStats(perSample), perSample };
}

/** Each phase's time per sample, ms. */
export type PhaseSamples = Record<keyof Phases, number[]>;

export function phaseStats(p: PhaseSamples): Phases {
  return { style: stats(p.style), layout: stats(p.layout), paint: stats(p.paint), script: stats(p.script) };
}

/** Splits the trace at the bench markers and sums each phase per sample. */
export function phasesPerSample(events: TraceEvent[]): PhaseSamples {
  const marks = events
    .filter((e) => e.name === 'TimeStamp' && e.args?.data?.message?.startsWith('bench:'))
    .sort((a, b) => a.ts - b.ts);
  if (marks.length === 0) return { style: [], layout: [], paint: [], script: [] };
  const { pid, tid } = marks[0];
  // Complete events of the main thread, outermost first (a Layout forced inside a script is
  // counted as layout, and the script's own time excludes it).
  const main = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const per = marks.map(() => ({ style: 0, layout: 0, paint: 0, script: 0 }));
  const sampleAt = (ts: number) => {
    // The last marker at or before ts (binary search).
    let lo = 0;
    let hi = marks.length - 1;
    if (ts < marks[0].ts) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (marks[mid].ts <= ts) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // The thread's CPU time of an event (tdur) where the trace has it, else its wall time; ms.
  const cpu = (e: TraceEvent) => (e.tdur ?? e.dur!) / 1000;
  // Each phase event counts once; nested phase events inside another are skipped, and the
  // script's time is its duration minus the phases nested in it.
  let open: { end: number; kind: keyof Phases; sample: number } | null = null;
  for (const e of main) {
    const kind = PHASE_OF[e.name] ?? (SCRIPT.has(e.name) ? 'script' : undefined);
    if (!kind) continue;
    const end = e.ts + e.dur!;
    if (open && e.ts < open.end) {
      // Nested in an open event: a phase inside a script moves its time out of the script.
      if (open.kind === 'script' && kind !== 'script' && open.sample >= 0) {
        per[open.sample][kind] += cpu(e);
        per[open.sample].script -= cpu(e);
      }
      continue;
    }
    const sample = sampleAt(e.ts);
    open = { end, kind, sample };
    if (sample >= 0) per[sample][kind] += cpu(e);
  }
  return {
    style: per.map((p) => p.style),
    layout: per.map((p) => p.layout),
    paint: per.map((p) => p.paint),
    script: per.map((p) => p.script),
  };
}
