// The default scenario's run comes after the first paint (app/src/panels/deferred.rs): the first
// frame shows its zone after `init` (event 0 of the run), the run follows, and input during that
// gap acts on the run. No timing here: the order of events only (frames are sampled by an
// animation callback, the first draw on the map by a wrapped canvas call).
import { test, expect, openApp, type Page } from '../fixtures';

type Act = 'none' | 'key' | 'scrub';

interface Frame {
  run: string | null;
  position: string;
  cells: Record<string, string>;
}

interface Watched {
  frames: Frame[];
  /** The root's `data-run` when the memory map is first drawn. */
  mapDrawRun: string | null;
  acted: boolean;
}

/** Runs before any page script: samples every frame until the run is in, notes the run state at
 * the first map draw, and (act) presses a key or clicks the scrubber in the first frame. */
function watchStart(act: Act): void {
  const w = window as unknown as { __bsStart: Watched };
  const st: Watched = { frames: [], mapDrawRun: null, acted: false };
  w.__bsStart = st;
  const proto = CanvasRenderingContext2D.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['putImageData', 'drawImage', 'fillRect', 'fill']) {
    const orig = proto[name];
    proto[name] = function (this: CanvasRenderingContext2D, ...args: unknown[]) {
      if (st.mapDrawRun === null && this.canvas?.getAttribute?.('data-testid') === 'memory-map') {
        st.mapDrawRun = document.querySelector('.app-root')?.getAttribute('data-run') ?? 'no root';
      }
      return orig.apply(this, args);
    };
  }
  const cells = () => {
    const out: Record<string, string> = {};
    for (const el of document.querySelectorAll('[data-testid^="nr-free-"], [data-testid^="freelist-"]')) {
      out[el.getAttribute('data-testid') ?? ''] = (el.textContent ?? '').trim();
    }
    return out;
  };
  const tick = () => {
    const root = document.querySelector('.app-root');
    if (root) {
      const run = root.getAttribute('data-run');
      st.frames.push({ run, position: document.querySelector('[data-testid="position"]')?.textContent ?? '', cells: cells() });
      if (run === 'initial' && !st.acted) {
        st.acted = true;
        if (act === 'key') {
          document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', shiftKey: true, bubbles: true }));
        } else if (act === 'scrub') {
          const track = document.querySelector('[data-testid="scrubber"] .scrub-track') as HTMLElement;
          const r = track.getBoundingClientRect();
          const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, button: 0, pointerId: 1, bubbles: true };
          track.dispatchEvent(new PointerEvent('pointerdown', at));
          track.dispatchEvent(new PointerEvent('pointerup', at));
        }
      }
      if (run === 'done') return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function open(page: Page, act: Act): Promise<Watched> {
  await page.addInitScript(watchStart, act);
  await openApp(page);
  return page.evaluate(() => (window as unknown as { __bsStart: Watched }).__bsStart);
}

/** `event i / n · …` → [i, n]. */
async function position(page: Page): Promise<[number, number]> {
  const text = (await page.getByTestId('position').textContent()) ?? '';
  const m = /event (\d+) \/ (\d+)/.exec(text);
  expect(m, text).not.toBeNull();
  return [Number(m![1]), Number(m![2])];
}

test('the first frame shows the zone after init, then the run arrives', async ({ page }) => {
  const w = await open(page, 'none');
  // The map was first drawn, and the first frame painted, before the run.
  expect(w.mapDrawRun).toBe('initial');
  const first = w.frames[0];
  expect(first.run).toBe('initial');
  expect(first.position).toContain('running the scenario');
  expect(Object.keys(first.cells).length).toBeGreaterThan(10);
  expect(w.frames[w.frames.length - 1].run).toBe('done');
  // The run is in: its ops and events, at event 0, whose zone is the one the first frame showed.
  await expect(page.getByTestId('position')).toContainText(/event 0 \/ \d+ · before op 1 \/ \d+/);
  const [pos, len] = await position(page);
  expect(pos).toBe(0);
  expect(len).toBeGreaterThan(1000);
  const now = await page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const el of document.querySelectorAll('[data-testid^="nr-free-"], [data-testid^="freelist-"]')) {
      out[el.getAttribute('data-testid') ?? ''] = (el.textContent ?? '').trim();
    }
    return out;
  });
  expect(now).toEqual(first.cells);
  await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuemax', String(len));
  // And it plays on from there.
  await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).toContainText('op 1 /');
});

test('a key pressed before the run is in acts on the run', async ({ page, browser }) => {
  const w = await open(page, 'key');
  expect(w.acted).toBe(true);
  expect(w.frames[0].run).toBe('initial');
  // Shift+Right in the first frame: one operation forward, as on a page with the run in.
  const ref = await browser.newPage();
  await openApp(ref);
  await ref.keyboard.press('Shift+ArrowRight');
  await expect(ref.getByTestId('position')).toContainText('op 1 /');
  const want = await ref.getByTestId('position').textContent();
  await expect(page.getByTestId('position')).toHaveText(want ?? '');
  await ref.close();
});

test('a click on the scrubber before the run is in seeks in the run', async ({ page }) => {
  const w = await open(page, 'scrub');
  expect(w.acted).toBe(true);
  expect(w.frames[0].run).toBe('initial');
  const [pos, len] = await position(page);
  // The middle of the track: about half the run, not event 0 of an empty one.
  expect(pos).toBeGreaterThan(len / 4);
  expect(pos).toBeLessThan((3 * len) / 4);
  await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuenow', String(pos));
});
