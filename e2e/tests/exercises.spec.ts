// Exercises: predict, then reveal. Every expected answer comes from the engine's
// own answer key (`buddyscope check-exercises FILE`), never from this test: a right and a wrong
// answer to each question kind (choice, number, click a page on the map, click a free list; the
// compaction set's scanners, capture, counters and deferral too), the position each question is
// asked at (the key's event, also inside an op and after an op that ran no events), the score,
// the reveal playing to the end of the next op, a set from a file and from a URL, an invalid
// set's error at its field, and progress surviving a reload.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, expect, openApp, saveScreenshot, runCli, REPO_ROOT, type Page, clickMapPage, mapGeometry } from '../fixtures';

type Kind = 'choice' | 'number' | 'page' | 'list';
/**
 * One question of the key: asked after `op` ops (and `within` events of the next), at absolute
 * event `event`, with the op the position readout names there (`shownOp`, 0: before op 1).
 */
type Key = { op: number; within: number; event: number; shownOp: number; ask: string; answer: string; code: string };

const KIND: Record<string, Kind> = {
  merged_order: 'number',
  alloc_list: 'list',
  alloc_page: 'page',
  chunks: 'number',
  fallback: 'choice',
  refill_pages: 'number',
  drain_pages: 'number',
  retyped_pageblock: 'page',
  vmalloc_orders: 'choice',
  watermark_ok: 'choice',
  free_pages_after: 'number',
  compact_result: 'choice',
  scanners_met: 'page',
  skipped_pageblock: 'page',
  // A number, or a choice of values when the set gives them.
  compact_stall_after: 'number',
  compact_success_after: 'number',
};

function setFile(id: string): string {
  return path.join('engine', 'exercises', `${id}.json`);
}

/** The engine's answer key of a set, question by question in set order. */
function answerKey(file: string): Key[] {
  const out = runCli(['check-exercises', file]);
  const lines = out.trim().split('\n');
  expect(lines[lines.length - 1]).toMatch(/^\d+ questions$/);
  const keys: Key[] = [];
  for (const line of lines) {
    // "[op K (event E): …", "[op K, event e (event E): …" inside op K+1, and "[op K (event E,
    // where op J ended): …" when the ops after J ran no events (the position is J's end).
    const q =
      /^\s+\d+\. \[op (\d+)(?:, event (\d+))? \(event (\d+)(?:, where op (\d+) ended|, (before any event))?\): [^;]*; (\w+)\]/.exec(
        line,
      );
    if (q) {
      const op = Number(q[1]);
      const within = Number(q[2] ?? 0);
      // The readout names the op whose events end at or after the position: op K at its end,
      // op K+1 inside it, op J where the key says so.
      const shownOp = q[5] ? 0 : q[4] ? Number(q[4]) : within > 0 ? op + 1 : op;
      keys.push({ op, within, event: Number(q[3]), shownOp, ask: q[6], answer: '', code: '' });
    }
    const a = /^\s+answer: (.*)$/.exec(line);
    if (a) keys[keys.length - 1].answer = a[1];
    const c = /^\s+code: (.*)$/.exec(line);
    if (c && !keys[keys.length - 1].code) keys[keys.length - 1].code = c[1];
  }
  expect(keys.length).toBe(Number(lines[lines.length - 1].split(' ')[0]));
  return keys;
}

/** Clicks zone page `pfn` (absolute) on the map. */
async function clickPfn(page: Page, pfn: number): Promise<void> {
  await clickMapPage(page, pfn - (await mapGeometry(page)).start);
}

/** Gives the right (or a wrong) answer to the question on screen and submits it. */
async function answer(page: Page, key: Key, right: boolean): Promise<void> {
  let kind = KIND[key.ask];
  if (kind === 'number' && (await page.getByTestId('exercise-answer').count()) === 0) kind = 'choice';
  if (kind === 'number') {
    const n = Number(/(\d+)/.exec(key.answer)![1]);
    await page.getByTestId('exercise-answer').fill(String(right ? n : n + 1));
  } else if (kind === 'choice') {
    const labels = await page.locator('[data-testid^="exercise-choice-"]').evaluateAll((els) =>
      els.map((e) => (e.closest('label')?.textContent ?? '').trim()),
    );
    const a = key.answer.toLowerCase();
    let good = labels.findIndex((l) => l.toLowerCase().startsWith(a));
    // A counter's answer ("compact_stall 1") is the choice of its value; an answer that says
    // more than its choice ("Deferred: defer_compaction set the limit to 2 …") starts with the
    // longest label it starts with.
    const counter = /^compact_\w+ (\d+)$/.exec(key.answer);
    if (good < 0 && counter) good = labels.indexOf(counter[1]);
    if (good < 0) {
      labels.forEach((l, i) => {
        if (l && a.startsWith(l.toLowerCase()) && (good < 0 || l.length > labels[good].length)) good = i;
      });
    }
    expect(good, `a choice reads "${key.answer}": ${labels.join(' | ')}`).toBeGreaterThanOrEqual(0);
    const n = right ? good : (good + 1) % labels.length;
    await page.getByTestId(`exercise-choice-${n}`).check();
  } else if (kind === 'page') {
    const range = /any of pfns 0x([0-9a-f]+)–0x([0-9a-f]+)/.exec(key.answer);
    const first = parseInt(range ? range[1] : /pfn 0x([0-9a-f]+)/.exec(key.answer)![1], 16);
    const last = range ? parseInt(range[2], 16) : first;
    const start = Number(await page.getByTestId('memory-map').getAttribute('data-start-pfn'));
    const pfn = right ? last : first > start ? first - 1 : last + 1;
    await clickPfn(page, pfn);
    await expect(page.getByTestId('exercise-pending')).toHaveText(`Your answer: pfn 0x${pfn.toString(16)}`);
  } else {
    const m = /free_area\[(\d+)\]\.free_list\[(\w+)\]/.exec(key.answer)!;
    const order = right ? Number(m[1]) : (Number(m[1]) + 1) % 11;
    await page.getByTestId(`freelist-${order}-${m[2].toLowerCase()}`).click();
    await expect(page.getByTestId('exercise-pending')).toContainText(`free_area[${order}].free_list[${m[2]}]`);
  }
  await page.getByTestId('exercise-submit').click();
}

/** Position text at the end of op `k` (what `--ops k` shows). */
function atOps(k: number): RegExp {
  return k === 0 ? /before op 1 \// : new RegExp(`· op ${k} / `);
}

/** The whole position readout's start where the key asks a question: its event, then its op. */
function askedAt(key: Key): RegExp {
  const op = key.shownOp === 0 ? 'before op 1 /' : `op ${key.shownOp} / `;
  return new RegExp(`^event ${key.event} / \\d+ · ${op}`);
}

/**
 * Walks a whole set: each kind's first, third, … question is answered right, its second,
 * fourth, … wrong. Checks the position before and after the reveal, the verdict, the engine's
 * answer and pseudocode line in the result, and the score.
 */
async function walkSet(page: Page, keys: Key[]): Promise<Record<Kind, [number, number]>> {
  const seen: Record<Kind, [number, number]> = { choice: [0, 0], number: [0, 0], page: [0, 0], list: [0, 0] };
  let score = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const kind = KIND[key.ask];
    expect(kind, key.ask).toBeDefined();
    await expect(page.getByTestId('exercise-counter')).toHaveText(`Question ${i + 1} / ${keys.length}`);
    await expect(page.getByTestId('exercise-question')).not.toBeEmpty();
    await expect(page.getByTestId('position')).toHaveText(askedAt(key));
    const right = (seen[kind][0] + seen[kind][1]) % 2 === 0;
    seen[kind][right ? 0 : 1]++;
    await answer(page, key, right);
    const result = page.getByTestId('exercise-result');
    await expect(result).toHaveAttribute('data-correct', String(right));
    await expect(result).toContainText(right ? 'Right' : 'Wrong');
    await expect(result).toContainText(`The answer: ${key.answer}`);
    if (key.code) await expect(result).toContainText(key.code.split(':')[0]);
    // The reveal played the next op to its end.
    await expect(page.getByTestId('position')).toContainText(atOps(key.op + 1));
    if (right) score++;
    await expect(page.getByTestId('exercise-score')).toHaveText(`${score} / ${keys.length}`);
    if (i + 1 < keys.length) await page.getByTestId('exercise-next').click();
  }
  return seen;
}

test.describe('with reduced motion', () => {
  test.use({ reducedMotion: 'reduce' });

  test('split-and-merge (?exercises=<id>): lists, pages and numbers, right and wrong, and the score', async ({ page }) => {
    const keys = answerKey(setFile('split-and-merge'));
    await openApp(page, '?exercises=split-and-merge');
    await expect(page.getByTestId('exercise-set')).toHaveValue('split-and-merge');
    const seen = await walkSet(page, keys);
    for (const k of ['number', 'page', 'list'] as Kind[]) {
      expect(seen[k][0], `${k} right`).toBeGreaterThan(0);
      expect(seen[k][1], `${k} wrong`).toBeGreaterThan(0);
    }
    await saveScreenshot(page, 'exercise-split-and-merge');
  });

  test('questions inside an op (a set from a file): the position is the key\'s event, 0-based like the app\'s', async ({ page }) => {
    // split-and-merge with two questions moved a few events into their op: the key's absolute
    // event must be the readout's "event N / " both there and at the op ends around them.
    const set = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, setFile('split-and-merge')), 'utf8'));
    set.id = 'split-and-merge-inside';
    set.exercises[0].questions[1].event = 3;
    set.exercises[1].questions[1].event = 5;
    const file = test.info().outputPath('split-and-merge-inside.json');
    fs.writeFileSync(file, JSON.stringify(set));
    const keys = answerKey(file);
    expect(keys.filter((k) => k.within > 0).map((k) => [k.within, k.shownOp])).toEqual([
      [3, keys[1].op + 1],
      [5, keys[4].op + 1],
    ]);
    expect(keys[1].event).toBe(keys[0].event + 3);
    await openApp(page);
    await page.getByTestId('exercise-file').setInputFiles(file);
    await expect(page.getByTestId('exercise-counter')).toHaveText(`Question 1 / ${keys.length}`);
    await walkSet(page, keys);
  });

  test('compaction (?exercises=compaction): the scanners, the capture, the counters and deferral, right and wrong', async ({ page }) => {
    test.setTimeout(300_000);
    const keys = answerKey(setFile('compaction'));
    expect(keys.length).toBeGreaterThanOrEqual(8);
    // Exercise 3 asks after a `drain all` that runs no events on 6.12: the readout names the op
    // before it, as the key says.
    expect(keys.filter((k) => k.shownOp === k.op - 1).length).toBeGreaterThan(0);
    await openApp(page, '?exercises=compaction');
    await expect(page.getByTestId('exercise-set')).toHaveValue('compaction');
    const seen = await walkSet(page, keys);
    for (const k of ['choice', 'number', 'page'] as Kind[]) {
      expect(seen[k][0], `${k} right`).toBeGreaterThan(0);
      expect(seen[k][1], `${k} wrong`).toBeGreaterThan(0);
    }
    await saveScreenshot(page, 'exercise-compaction');
  });

  test('claim-or-steal (from the picker): choices, pages and lists, right and wrong', async ({ page }) => {
    const keys = answerKey(setFile('claim-or-steal'));
    await openApp(page);
    await page.getByTestId('exercise-set').selectOption('claim-or-steal');
    const seen = await walkSet(page, keys);
    expect(seen.choice[0]).toBeGreaterThan(0);
    expect(seen.choice[1]).toBeGreaterThan(0);
    await saveScreenshot(page, 'exercise-claim-or-steal');
  });

  test('a set from a file, an invalid set names its field and keeps the open set', async ({ page }) => {
    const text = fs.readFileSync(path.join(REPO_ROOT, setFile('watermarks')), 'utf8');
    const mine = JSON.parse(text);
    mine.id = 'my-watermarks';
    mine.title = 'My watermark questions';
    await openApp(page);
    await page.getByTestId('exercise-file').setInputFiles({
      name: 'mine.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(mine)),
    });
    await expect(page.locator('.ex-set-title')).toHaveText('My watermark questions');
    const keys = answerKey(setFile('watermarks'));
    await expect(page.getByTestId('exercise-counter')).toHaveText(`Question 1 / ${keys.length}`);
    const question = await page.getByTestId('exercise-question').textContent();
    const position = await page.getByTestId('position').textContent();

    const broken = JSON.parse(text);
    broken.exercises[1].questions[0].ask = 'merged_ordr';
    await page.getByTestId('exercise-file').setInputFiles({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(broken)),
    });
    const err = page.getByTestId('exercise-error');
    await expect(err).toContainText('exercises[1].questions[0].ask');
    await expect(err).toHaveAttribute('role', 'alert');
    // What was open stays.
    await expect(page.getByTestId('exercise-question')).toHaveText(question ?? '');
    await expect(page.getByTestId('position')).toHaveText(position ?? '');
    await saveScreenshot(page, 'exercise-invalid-set');

    // A question at an op the scenario does not reach is refused by the engine, with its path.
    const late = JSON.parse(text);
    late.exercises[0].questions[1].op = 99;
    await page.getByTestId('exercise-file').setInputFiles({
      name: 'late.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(late)),
    });
    await expect(err).toContainText('exercises[0].questions[1]');
    await expect(page.getByTestId('exercise-question')).toHaveText(question ?? '');
  });

  test('progress survives a reload', async ({ page }) => {
    const keys = answerKey(setFile('split-and-merge'));
    await openApp(page, '?exercises=split-and-merge');
    await answer(page, keys[0], true);
    await expect(page.getByTestId('exercise-score')).toHaveText(`1 / ${keys.length}`);
    await page.getByTestId('exercise-next').click();
    await answer(page, keys[1], false);
    await expect(page.getByTestId('exercise-result')).toContainText('Wrong');
    await page.reload();
    await expect(page.getByTestId('exercise-score')).toHaveText(`1 / ${keys.length}`);
    // The first unanswered question is on screen.
    await expect(page.getByTestId('exercise-counter')).toHaveText(`Question 3 / ${keys.length}`);
    // The saved panel lists the progress with its score.
    await expect(page.getByTestId('saved-panel')).toContainText(`score 1 / ${keys.length}`);
    // An answered question shows its result again.
    await page.getByTestId('exercise-prev').click();
    await expect(page.getByTestId('exercise-result')).toContainText('Wrong');
  });

  test('keyboard: a free list is answered from a focused cell with Enter', async ({ page }) => {
    const keys = answerKey(setFile('split-and-merge'));
    expect(keys[0].ask).toBe('alloc_list');
    await openApp(page, '?exercises=split-and-merge');
    const m = /free_area\[(\d+)\]\.free_list\[(\w+)\]/.exec(keys[0].answer)!;
    const cell = page.locator('td.fl-cell', { has: page.getByTestId(`freelist-${m[1]}-${m[2].toLowerCase()}`) });
    await cell.focus();
    await page.keyboard.press('Enter');
    await expect(cell).toHaveAttribute('aria-current', 'true');
    await page.getByTestId('exercise-submit').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('exercise-result')).toContainText('Right');
    // The result is announced: it sits in a polite live region.
    await expect(page.locator('.ex-live')).toHaveAttribute('aria-live', 'polite');
  });
});

test('the reveal plays the step (animated without reduced motion)', async ({ page }) => {
  const keys = answerKey(setFile('split-and-merge'));
  await openApp(page, '?exercises=split-and-merge');
  const before = await page.getByTestId('position').textContent();
  await answer(page, keys[0], true);
  // While the step plays the verdict is already there: "✔ Right — playing the step to show why…".
  await expect(page.locator('.ex-live')).toContainText('Right — playing the step');
  await expect(page.getByTestId('exercise-result')).toContainText('Right');
  await expect(page.getByTestId('position')).toContainText(atOps(keys[0].op + 1));
  expect(await page.getByTestId('position').textContent()).not.toEqual(before);
});

test.describe('fetched sets', () => {
  // page.route only sees the page's own requests: keep the offline service worker out of the way.
  test.use({ reducedMotion: 'reduce', serviceWorkers: 'block' });

  test('a set from a URL (?exercises=<url> and the URL field)', async ({ page }) => {
    const text = fs.readFileSync(path.join(REPO_ROOT, setFile('vmalloc-orders')), 'utf8');
    await page.route('**/sets/vmalloc.json', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: text }),
    );
    const keys = answerKey(setFile('vmalloc-orders'));
    await openApp(page, `?exercises=${encodeURIComponent('/sets/vmalloc.json')}`);
    await expect(page.getByTestId('exercise-counter')).toHaveText(`Question 1 / ${keys.length}`);
    await answer(page, keys[0], true);
    await expect(page.getByTestId('exercise-result')).toContainText('Right');
    await expect(page.getByTestId('exercise-score')).toHaveText(`1 / ${keys.length}`);

    // The URL field, with a set of another id.
    const other = JSON.parse(text);
    other.id = 'vmalloc-copy';
    await page.route('**/sets/copy.json', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(other) }),
    );
    await page.getByTestId('exercise-url').fill('/sets/copy.json');
    await page.getByTestId('exercise-url-open').click();
    await expect(page.getByTestId('exercise-score')).toHaveText(`0 / ${keys.length}`);
    await answer(page, keys[0], false);
    await expect(page.getByTestId('exercise-result')).toContainText('Wrong');
  });
});
