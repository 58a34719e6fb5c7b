// Lock-hold counters (`buddyscope::locks`): the counters panel's worst zone / pcp hold of the
// current op and its holds-by-pages line, and the compare table's, equal the CLI's
// `ops[i].lock_holds` (`buddyscope run FILE --format json [--side a|b]`).
import { test, expect, openApp, saveScreenshot, runCli, type Page } from '../fixtures';
import * as path from 'node:path';

type Hist = { holds: number; pages: number; max: number; max_steps: number; buckets: number[] };
type Holds = { zone: Hist; pcp: Hist };
type CliRun = { lock_holds: Holds; ops: { lock_holds: Holds }[] };

function cliRun(id: string, side?: 'a' | 'b'): CliRun {
  const args = ['run', path.join('engine', 'scenarios', `${id}.json`), '--format', 'json'];
  if (side) args.push('--side', side);
  return JSON.parse(runCli(args)) as CliRun;
}

/** The engine's bucket labels: 0, 1, 2-3, 4-7, …, and the last one open-ended. */
function bucketLabel(i: number, n: number): string {
  if (i <= 1) return String(i);
  if (i === n - 1) return `${2 ** (i - 1)}+`;
  return `${2 ** (i - 1)}-${2 ** i - 1}`;
}

function bucketsText(h: Hist): string {
  const parts = h.buckets
    .map((c, i) => (c > 0 ? `${bucketLabel(i, h.buckets.length)}:${c}` : ''))
    .filter((s) => s !== '');
  return parts.length ? parts.join(' ') : 'none';
}

/** The four counter rows and their CLI values. */
function rows(h: Holds): [string, number][] {
  return [
    ['zone_lock_hold_max', h.zone.max],
    ['zone_lock_hold_max_steps', h.zone.max_steps],
    ['pcp_lock_hold_max', h.pcp.max],
    ['pcp_lock_hold_max_steps', h.pcp.max_steps],
  ];
}

async function opForward(page: Page) {
  await page.getByTestId('op-forward').click();
}

test('the counters panel shows the current op’s worst lock holds as the CLI counts them', async ({ page }) => {
  const id = 'free-contig-range-unaligned';
  const cli = cliRun(id);
  const n = cli.ops.length;
  // The run's holds are the sum of its ops' (holds and pages add up, the worst is the largest).
  for (const lock of ['zone', 'pcp'] as const) {
    const sum = cli.ops.reduce((s, o) => s + o.lock_holds[lock].holds, 0);
    expect(sum, lock).toBe(cli.lock_holds[lock].holds);
    expect(Math.max(...cli.ops.map((o) => o.lock_holds[lock].max)), lock).toBe(cli.lock_holds[lock].max);
  }
  await openApp(page, `?scenario=${id}`);
  const counters = page.getByTestId('counters');
  for (const [name] of rows(cli.ops[0].lock_holds)) {
    await expect(counters.getByTestId(`counter-${name}`)).toHaveText('0');
  }
  for (let k = 1; k <= n; k++) {
    await opForward(page);
    await expect(page.getByTestId('position')).toContainText(`op ${k} / ${n}`);
    const h = cli.ops[k - 1].lock_holds;
    for (const [name, want] of rows(h)) {
      await expect(counters.getByTestId(`counter-${name}`), `op ${k}: ${name}`).toHaveText(String(want));
    }
    await expect(counters.getByTestId('lock-hold-dist')).toHaveText(
      `holds by pages: zone ${bucketsText(h.zone)} · pcp ${bucketsText(h.pcp)}`,
    );
  }
  await saveScreenshot(page, 'locks-counters', counters);
});

test('the compare table shows both sides’ worst holds: per-page vs chunked free_contig_range', async ({ page }) => {
  const id = 'free-contig-range-unaligned';
  const a = cliRun(id, 'a');
  const b = cliRun(id, 'b');
  await openApp(page, `?scenario=${id}&compare=1`);
  await expect(page.getByTestId('side-a')).toBeVisible();
  // Op 2 is the free: page by page on A (v7.1), in aligned chunks on B (v7.2).
  await opForward(page);
  await opForward(page);
  await expect(page.getByTestId('compare-position')).toContainText('op 2 /');
  for (const [side, cli] of [['a', a], ['b', b]] as const) {
    for (const [name, want] of rows(cli.ops[1].lock_holds)) {
      await expect(page.getByTestId(`compare-${side}-${name}`), `${side}: ${name}`).toHaveText(String(want));
      await expect(page.getByTestId(`side-${side}`).getByTestId(`counter-${name}`)).toHaveText(String(want));
    }
  }
  // A chunk is one pcp hold of many pages; per page, each hold handles one page (or a drain).
  expect(b.ops[1].lock_holds.pcp.holds).toBeLessThan(a.ops[1].lock_holds.pcp.holds);
  await saveScreenshot(page, 'locks-compare', page.getByTestId('compare-table'));
});
