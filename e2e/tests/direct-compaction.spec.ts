// Direct compaction in the allocator's slow path, on the two built-ins whose request needs it
// (thp-direct-compaction, compaction-unmovable-request): the app against the CLI. Every expected
// value comes from the CLI at test time (`run --format json|buddyinfo|vmstat|trace`, `--side a|b`
// for each side of the scenario's compare pair, `builtin` for the tour), so the specs follow the
// scenarios when their zone or their results change. One test per scenario: the single view
// (the request's end state, the direct-compaction counts, the scanners on the map at a step
// inside the direct compaction), then compare mode with the tour (every stop opens; at the last,
// each side's own result as the CLI prints it for that side).
import { test, expect, openApp, runCli, waitForPanels, type Page, type Locator } from '../fixtures';
import { scannersFromTrace } from './support/compaction';
import * as path from 'node:path';

const IDS = ['thp-direct-compaction', 'compaction-unmovable-request'];
const COUNTS = ['compact_stall', 'compact_fail', 'compact_success'];

test.use({ viewport: { width: 1280, height: 720 } });

type RunJson = { ops: { summary: string; outcome: string }[] };
type Builtin = {
  tour: { op: number; caption: string }[];
};

/** `/proc/vmstat`'s direct-compaction counts from `buddyscope run … --format vmstat`. */
function cliCounts(args: string[]): Record<string, string> {
  const out = runCli([...args, '--format', 'vmstat']);
  return Object.fromEntries(
    COUNTS.map((name) => {
      const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(out);
      if (!m) throw new Error(`no ${name} in:\n${out}`);
      return [name, m[1]];
    }),
  );
}

/** nr_free per order from `buddyscope run … --format buddyinfo` (one zone). */
function cliBuddyinfo(args: string[]): number[] {
  return runCli([...args, '--format', 'buddyinfo']).trim().split(/\s+/).slice(-11).map(Number);
}

/** The last op's record from `buddyscope run … --format json`, and the one before. */
function cliOps(args: string[]): { last: RunJson['ops'][number]; before: RunJson['ops'][number] } {
  const ops = (JSON.parse(runCli([...args, '--format', 'json'])) as RunJson).ops;
  return { last: ops[ops.length - 1], before: ops[ops.length - 2] };
}

/** nr_free per order as the free-list table inside `root` shows it. */
async function nrFree(root: Locator): Promise<number[]> {
  return root.evaluate((r) =>
    [...Array(11).keys()].map((o) => Number(r.querySelector(`[data-testid="nr-free-${o}"]`)!.textContent)),
  );
}

async function narration(page: Page): Promise<string> {
  return ((await page.getByTestId('narration').textContent()) ?? '').trim();
}

/** The line of the last op's trace where the map is checked: the first line of a compact_zone
 * in progress after which both scanners have left the places mm_compaction_begin gave them, or
 * failing that the first mm_compaction_isolate_migratepages line (the migration scanner moved). */
function checkLine(lines: string[], opStart: number): number {
  let firstIsolate = -1;
  let begin: { migrate: string; free: string } | undefined;
  for (let i = opStart; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('mm_compaction_begin:')) {
      begin = scannersFromTrace(lines, i);
      continue;
    }
    if (l.startsWith('mm_compaction_end:')) {
      begin = undefined;
      continue;
    }
    if (!begin || !/^mm_compaction_(isolate_migratepages|isolate_freepages|fast_isolate_freepages|migratepages):/.test(l)) continue;
    if (firstIsolate < 0 && l.startsWith('mm_compaction_isolate_migratepages:')) firstIsolate = i;
    const s = scannersFromTrace(lines, i);
    if (s.migrate !== begin.migrate && s.free !== begin.free) return i;
  }
  if (firstIsolate < 0) throw new Error('the last op runs no compaction that scans');
  return firstIsolate;
}

for (const id of IDS) {
  const file = path.join('engine', 'scenarios', `${id}.json`);

  test(`${id}: the request's result, buddyinfo and compact_stall/fail/success are the CLI's, the scanners inside direct compaction are where its trace puts them; compare + tour: each side is the CLI's run of that side`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const { last, before } = cliOps(['run', file]);
    const lines = runCli(['run', file, '--format', 'trace']).split('\n');
    const opStart = lines.findLastIndex((l) => l.startsWith('# op '));
    expect(lines[opStart]).toContain(last.summary);
    expect(lines.slice(opStart).some((l) => l.startsWith('mm_compaction_try_to_compact_pages:'))).toBe(true);

    await test.step('single view: the end state is the CLI\'s', async () => {
      await openApp(page, `?scenario=${id}`);
      await page.keyboard.press('End');
      await expect(page.getByTestId('op-info')).toContainText(last.summary);
      await expect(page.getByTestId('op-outcome')).toHaveText(last.outcome);
      expect(await nrFree(page.locator('body'))).toEqual(cliBuddyinfo(['run', file]));
      const counts = cliCounts(['run', file]);
      expect(Number(counts.compact_stall)).toBeGreaterThan(0);
      for (const name of COUNTS) await expect(page.getByTestId(`counter-${name}`), name).toHaveText(counts[name]);
    });

    await test.step('single view: inside the direct compaction, the scanners are the trace\'s', async () => {
      const at = checkLine(lines, opStart);
      const want = scannersFromTrace(lines, at);
      // The line may repeat within the op (two compactions): step to the same occurrence.
      const nth = lines.slice(opStart, at + 1).filter((l) => l === lines[at]).length;
      // To the end of the op before the request, then forward into it.
      for (let i = 0; i < 3; i++) {
        if (((await page.getByTestId('op-info').textContent()) ?? '').includes(before.summary)) break;
        await page.keyboard.press('PageUp');
      }
      await expect(page.getByTestId('op-info')).toContainText(before.summary);
      await expect(page.getByTestId('map-scanners')).toHaveCount(0);
      let seen = 0;
      for (let i = 0; i < 3000 && seen < nth; i++) {
        await page.keyboard.press('ArrowRight');
        if ((await narration(page)) === lines[at]) seen++;
      }
      expect(seen, `stepped to ${lines[at]}`).toBe(nth);
      await expect(page.getByTestId('op-info')).toContainText(last.summary);
      const scanners = page.getByTestId('map-scanners');
      await expect(scanners).toHaveAttribute('data-migrate-pfn', want.migrate);
      await expect(scanners).toHaveAttribute('data-free-pfn', want.free);
      await expect(page.getByTestId('map-scanner-migrate')).toHaveText(
        `migration scanner (isolate_migratepages) at pfn ${want.migrate}`,
      );
      await expect(page.getByTestId('map-scanner-free')).toHaveText(`free scanner (isolate_freepages) at pfn ${want.free}`);
    });

    await test.step('compare + tour: every stop opens; at the last each side is the CLI\'s run of that side (`--side`)', async () => {
      const b = JSON.parse(runCli(['builtin', id])) as Builtin;
      expect(b.tour.length).toBeGreaterThan(0);
      await page.goto(`/?scenario=${id}&compare=1&tour=1`);
      await expect(page.getByTestId('presenter-view')).toBeVisible();
      await waitForPanels(page);
      for (let i = 0; i < b.tour.length; i++) {
        if (i > 0) await page.keyboard.press('PageDown');
        await expect(page.getByTestId('tour-stop')).toHaveText(`stop ${i + 1}/${b.tour.length}`);
        await expect(page.getByTestId('tour-caption')).toHaveText(b.tour[i].caption);
        for (const side of ['a', 'b'] as const) {
          const progress = page.getByTestId(`side-${side}`).getByTestId('side-progress');
          const k = b.tour[i].op;
          await expect(progress, `side ${side}, stop ${i + 1}`).toHaveText(k === 0 ? /^before op 1 \// : new RegExp(`^op ${k} / \\d+ · op done`));
        }
      }
      const k = String(b.tour[b.tour.length - 1].op);
      for (const side of ['a', 'b'] as const) {
        const args = ['run', file, '--side', side, '--ops', k];
        const root = page.getByTestId(`side-${side}`);
        await expect(root.getByTestId('op-outcome'), `side ${side}`).toHaveText(cliOps(args).last.outcome);
        expect(await nrFree(root), `side ${side}: nr_free`).toEqual(cliBuddyinfo(args));
        const counts = cliCounts(args);
        for (const name of COUNTS) {
          await expect(page.getByTestId(`compare-${side}-${name}`), `side ${side}: ${name}`).toHaveText(counts[name]);
        }
      }
    });
  });
}
