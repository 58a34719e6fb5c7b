// The bundle report (scripts/bundle-size.sh) and the first-paint harness (bench/firstpaint.ts)
// produce every line with non-zero numbers; the first download stays within 400 KB gzip (glue minified), and the
// texts the first frame does not show stay out of it. No time is asserted, so a slow machine
// cannot fail this suite (BENCHMARKS.md "Bundle").
import { test, expect, REPO_ROOT } from '../fixtures';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { firstPaintLines, measureFirstPaint } from '../bench/firstpaint';

test('bundle-size.sh reports the first download, the split modules, the totals and the code per crate', () => {
  test.setTimeout(120_000);
  const out = execFileSync('bash', ['scripts/bundle-size.sh', '--no-build'], { cwd: REPO_ROOT, encoding: 'utf8' });
  const row = (label: string) => {
    const m = out.match(new RegExp(`^\\| ${label} \\| (\\d+) \\| (\\d+) \\|`, 'm'));
    expect(m, `a "${label}" row in:\n${out}`).not.toBeNull();
    return { raw: Number(m![1]), gzip: Number(m![2]) };
  };
  const wasm = row('wasm');
  const js = row('JS');
  const total = row('wasm \\+ JS');
  for (const r of [wasm, js, total]) {
    expect(r.raw).toBeGreaterThan(0);
    expect(r.gzip).toBeGreaterThan(0);
    expect(r.gzip).toBeLessThan(r.raw);
  }
  expect(total.raw).toBe(wasm.raw + js.raw);
  expect(total.gzip).toBe(wasm.gzip + js.gzip);
  // The budget on the way to 250 KB: 400 KB (400,000 B) gzip -9 for the first download.
  expect(total.gzip).toBeLessThanOrEqual(400_000);
  // Part of it is JS: the wasm-bindgen glue and the split loader, minified in release
  // (scripts/wasm-split.sh): a few long lines, not one line per statement.
  const dist = path.join(REPO_ROOT, 'dist');
  for (const f of fs.readdirSync(dist).filter((f) => /^(buddyscope-app-|__wasm_split-).*\.js$/.test(f))) {
    const text = fs.readFileSync(path.join(dist, f), 'utf8');
    expect(text.split('\n').length, `${f}: lines`).toBeLessThan(20);
  }
  // The split modules loaded later (scripts/wasm-split.sh): at least the panels below the fold,
  // each non-zero; everything is the first download plus them.
  const later = [...out.matchAll(/^\| later: (\S+) \| (\d+) \| (\d+) \|/gm)].map((m) => ({
    name: m[1],
    raw: Number(m[2]),
    gzip: Number(m[3]),
  }));
  expect(later.map((l) => l.name)).toContain('split_deferred');
  // The runner (app/src/late.rs) is fetched after the first paint, not in the first download.
  expect(later.map((l) => l.name)).toContain('split_runner');
  for (const l of later) {
    expect(l.raw, l.name).toBeGreaterThan(0);
    expect(l.gzip, l.name).toBeGreaterThan(0);
  }
  const texts = row('later: texts data file');
  expect(texts.gzip).toBeGreaterThan(0);
  expect(texts.gzip).toBeLessThan(texts.raw);
  const all = row('all wasm \\+ JS');
  expect(all.raw).toBe(total.raw + later.reduce((n, l) => n + l.raw, 0));
  expect(all.gzip).toBe(total.gzip + later.reduce((n, l) => n + l.gzip, 0));
  // The per-crate tables name the app, the engine and the UI framework, with non-zero code.
  for (const crate of ['buddyscope_app', 'buddyscope', 'tachys', 'reactive_graph']) {
    expect(out, crate).toMatch(new RegExp(`^\\| ${crate} \\| [1-9]\\d* \\| [1-9]\\d* \\|`, 'm'));
  }
  expect(out).toMatch(/^\| \*\*all code\*\* \| [1-9]\d* \| [1-9]\d* \|/m);
  // The first frame reads only the default scenario's start: the ops' reader and checks, the
  // /proc and snapshot readers and the runner are in the app but not in the first download.
  const kept = [...out.matchAll(/^\| (buddyscope::\S+) \| (\d+) \| (\d+) \|$/gm)];
  expect(kept.map((m) => m[1])).toEqual([
    'buddyscope::scenario::read::op_from_value',
    'buddyscope::scenario::validate::Checker',
    'buddyscope::scenario::procfs',
    'buddyscope::scenario::zone_snapshot',
    'buddyscope::scenario::node_snapshot',
    'buddyscope::run::runner::Exec',
  ]);
  for (const [, path, first, whole] of kept) {
    expect(Number(first), `${path} in the first download`).toBe(0);
    expect(Number(whole), `${path} in the app`).toBeGreaterThan(0);
  }
  expect(out).toMatch(/^### Code per crate of split_deferred \(loaded later\)/m);
  expect(out).toMatch(/^\| buddyscope_app::panels::memmap \| [1-9]\d* \| [1-9]\d* \|/m);
});

// Data is never split off a wasm module: a text compiled into the app is in the first download.
// The built-ins but the default, the exercise sets and the pseudocode come as one data file
// (scripts/wasm-split.sh, engine/src/scenario/texts.rs); the default scenario's text stays in the
// wasm, as its first frame reads it before anything is fetched.
test('the first download leaves the texts the first frame does not show to the data file', () => {
  const dist = path.join(REPO_ROOT, 'dist');
  const files = fs.readdirSync(dist);
  const wasmFile = files.filter((f) => f.endsWith('_bg.wasm'));
  expect(wasmFile).toHaveLength(1);
  const wasm = fs.readFileSync(path.join(dist, wasmFile[0]));
  const textsFile = files.filter((f) => /^texts-[0-9a-f]{16}\.json$/.test(f));
  expect(textsFile).toHaveLength(1);
  const texts = JSON.parse(fs.readFileSync(path.join(dist, textsFile[0]), 'utf8'));
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  expect(html).toContain(`<meta name="buddyscope-texts" content="/${textsFile[0]}">`);
  const source = (dir: string) =>
    fs
      .readdirSync(path.join(REPO_ROOT, dir))
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.replace(/\.json$/, ''), fs.readFileSync(path.join(REPO_ROOT, dir, f), 'utf8')]);
  const scenarios = source('engine/scenarios');
  const sets = source('engine/exercises');
  expect(scenarios.length).toBeGreaterThan(10);
  expect(sets.length).toBeGreaterThan(3);
  // The default (the first of scenario/builtin.rs's ALL) is in the wasm.
  const defaultId = 'free-contig-range-thp';
  for (const [id, text] of scenarios) {
    expect(texts.scenarios[id], id).toBe(text);
    expect(wasm.includes(Buffer.from(text)), `${id} in the first download`).toBe(id === defaultId);
  }
  for (const [id, text] of sets) {
    expect(texts.exercise_sets[id], id).toBe(text);
    expect(wasm.includes(Buffer.from(text)), `${id} in the first download`).toBe(false);
  }
  const pseudocode: Record<string, string[]> = JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, 'engine/src/explain/pseudocode.json'), 'utf8'),
  );
  expect(texts.pseudocode).toEqual(pseudocode);
  const long = Object.values(pseudocode).flat().filter((l) => l.length >= 40);
  expect(long.length).toBeGreaterThan(100);
  for (const l of long) expect(wasm.includes(Buffer.from(l)), l).toBe(false);
});

test('first paint of the default scenario is measured (sanity only)', async ({ browser, baseURL }) => {
  test.setTimeout(600_000);
  const r = await measureFirstPaint(browser, baseURL!, Number(process.env.FIRST_PAINT_RUNS ?? 2));
  console.log(firstPaintLines(r).join('\n'));
  for (const run of r.runs) {
    expect(run.fcp).toBeGreaterThan(0);
    expect(run.wasmLoaded).toBeGreaterThan(0);
    // In order: the module arrives and is instantiated; then the app starts and draws the map
    // (in either order: the map may draw in an effect or a later frame); a frame shows it.
    expect(run.instantiated).toBeGreaterThanOrEqual(run.wasmLoaded);
    expect(run.mapDraw).toBeGreaterThan(run.instantiated);
    expect(run.mounted).toBeGreaterThan(run.instantiated);
    expect(run.mapShown).toBeGreaterThan(run.mapDraw);
  }
});
