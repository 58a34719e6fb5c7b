// axe-core scans for the e2e tests. Reusable from any spec:
//
//   import { scanScreen, blocking } from './support/axe';
//   const results = await scanScreen(page, 'main view, dark');   // attaches the full JSON report
//   expect(blocking(results)).toEqual([]);                         // no serious/critical violation
//
// `SCREENS` lists every screen the accessibility spec scans: adding a screen is one entry (a name
// and how to open it from a fresh page).
import AxeBuilder from '@axe-core/playwright';
import type { AxeResults, Result } from 'axe-core';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test, openApp, REPO_ROOT, type Page } from '../../fixtures';

/** A real machine's /proc/pagetypeinfo (the import screen's paste). */
const PTI = fs.readFileSync(path.join(REPO_ROOT, 'engine', 'tests', 'fixtures', 'machine-6.18-pagetypeinfo.txt'), 'utf8');

/** The impacts that fail a scan. */
export const BLOCKING_IMPACTS = ['serious', 'critical'] as const;

/** WCAG 2.x A and AA rules plus axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * Runs axe on the page as it is now and attaches the result (`axe-<name>.json`) to the test
 * report. `exclude` takes CSS selectors of regions that are not the app's (none today).
 */
export async function scanScreen(page: Page, name: string, exclude: string[] = []): Promise<AxeResults> {
  // Legacy mode runs axe.run() in the page itself (same-origin frames included, which is all the
  // app has). The default runs axe.runPartial() per frame and then axe.finishRun() in a new blank
  // page of the context: the same results, ~3 s more a scan here for the extra page.
  let builder = new AxeBuilder({ page }).withTags(TAGS).setLegacyMode();
  for (const sel of exclude) builder = builder.exclude(sel);
  // Axe reads contrast as painted: a free-list chip fading in (opacity 0 -> 1 over 0.35 s) is
  // too faint mid-fade. So the scan waits for every finite animation to end.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  const results = await builder.analyze();
  await test.info().attach(`axe-${name.replace(/[^a-z0-9]+/gi, '-')}.json`, {
    body: JSON.stringify(results.violations, null, 2),
    contentType: 'application/json',
  });
  return results;
}

/** The serious and critical violations, one readable line per offending node. */
export function blocking(results: AxeResults): string[] {
  return results.violations
    .filter((v: Result) => (BLOCKING_IMPACTS as readonly string[]).includes(v.impact ?? ''))
    .flatMap((v: Result) =>
      v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')} — ${n.failureSummary?.split('\n').join(' ') ?? v.help}`),
    );
}

/** Every violation id with its impact and node count (for the report: before/after figures). */
export function summary(results: AxeResults): string {
  return results.violations.map((v) => `${v.id}(${v.impact}×${v.nodes.length})`).join(' ') || 'none';
}

/** A screen of the app: how to reach it from a fresh page. */
export type Screen = { name: string; open: (page: Page) => Promise<void> };

/** Opens a presenter-mode link: its header is hidden, so wait for the presenter view. */
async function openPresenting(page: Page, query: string): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.getByTestId('presenter-view')).toBeVisible();
}

/** Every screen the accessibility spec scans, in light and dark themes. */
export const SCREENS: Screen[] = [
  { name: 'main view', open: (p) => openApp(p) },
  {
    name: 'main view, mid-run',
    open: async (p) => {
      await openApp(p, '?scenario=pcp-overflow-2cpu');
      for (let i = 0; i < 3; i++) await p.getByTestId('op-forward').click();
    },
  },
  {
    name: 'mixed pageblocks: map overlay, why in the page history, the over-time chart',
    open: async (p) => {
      await openApp(p, '?scenario=fallback-steal');
      await p.getByTestId('map-mixed').click();
      await p.getByTestId('jump-end').click();
      await p.getByTestId('page-history-pfn').fill('0x1fc5');
      await p.getByTestId('page-history-show').click();
      await expect(p.getByTestId('page-history-mixing')).toBeVisible();
      await expect(p.getByTestId('overtime-summary')).toHaveText('After 39 ops: 1 mixed (1 Movable)');
      await p.getByTestId('overtime').scrollIntoViewIfNeeded();
    },
  },
  { name: 'presenter mode', open: (p) => openPresenting(p, '?scenario=cma-frozen-range&present') },
  {
    name: 'compare mode',
    open: async (p) => {
      await openApp(p, '?scenario=free-contig-range-thp&compare=1');
      await expect(p.getByTestId('side-b')).toBeVisible();
    },
  },
  {
    name: 'exercise screen',
    open: async (p) => {
      await openApp(p, '?exercises=split-and-merge');
      await expect(p.getByTestId('exercise-question')).not.toBeEmpty();
    },
  },
  {
    name: 'exercise screen, answered',
    open: async (p) => {
      await openApp(p, '?exercises=split-and-merge');
      // The first question asks for a free list: any cell is an answer (right or wrong).
      await p.getByTestId('freelist-0-movable').click();
      await p.getByTestId('exercise-submit').click();
      await expect(p.getByTestId('exercise-result')).toContainText(/Right|Wrong/);
    },
  },
  {
    name: 'import screen',
    open: async (p) => {
      await openApp(p);
      await p.getByTestId('proc-open').click();
      await expect(p.getByTestId('proc-pagetypeinfo')).toBeVisible();
    },
  },
  {
    name: 'import screen, imported',
    open: async (p) => {
      await openApp(p);
      await p.getByTestId('proc-open').click();
      await p.getByTestId('proc-pagetypeinfo').fill(PTI);
      await p.getByTestId('proc-import').click();
      await expect(p.getByTestId('proc-summary')).toBeVisible({ timeout: 20_000 });
    },
  },
  {
    name: 'import screen, broken paste',
    open: async (p) => {
      await openApp(p);
      await p.getByTestId('proc-open').click();
      await p.getByTestId('proc-pagetypeinfo').fill(PTI.replace('Movable', 'Movable x'));
      await p.getByTestId('proc-import').click();
      await expect(p.getByTestId('proc-error')).toBeVisible();
    },
  },
  {
    name: 'embed view',
    open: async (p) => {
      await p.goto('/?embed=1&panel=counters&scenario=fallback-claim');
      await expect(p.getByTestId('embed-view')).toBeVisible();
    },
  },
];
