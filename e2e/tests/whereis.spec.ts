// Where is this page: the panel's answer for a typed pfn and for a map click is the CLI's
// (`buddyscope where ID PFN --ops K`), word for word; the event that put the page there is one
// click away; axe finds no serious or critical violation with an answer on screen.
import { test, expect, openApp, runCli, type Page, clickMapPage } from '../fixtures';
import { scanScreen, blocking, summary } from './support/axe';

async function openAtOp(page: Page, id: string, k: number) {
  await openApp(page, `?scenario=${id}`);
  const name = JSON.parse(runCli(['builtin', id])).name as string;
  await expect(page.getByTestId('scenario-name')).toHaveText(name);
  for (let i = 0; i < k; i++) await page.getByTestId('op-forward').click();
  await expect(page.getByTestId('position')).toContainText(`op ${k} /`);
}


/** The CLI's answer as the panel shows it: the headline, then the event line or the rest. */
function cliWhere(id: string, pfn: string, k: number): string[] {
  return runCli(['where', id, pfn, '--ops', String(k)]).trimEnd().split('\n');
}

async function expectPanelEquals(page: Page, want: string[]) {
  const panel = page.getByTestId('whereis');
  await expect(panel.getByTestId('whereis-headline')).toHaveText(want[0]);
  if (want[1].startsWith('put there by event ')) {
    await expect(panel.getByTestId('whereis-event')).toHaveText(want[1]);
  } else {
    await expect(panel.getByTestId('whereis-event')).toHaveCount(0);
    await expect(panel.getByTestId('whereis-more').first()).toHaveText(want[1]);
  }
}

test('fallback-claim at op 3: a typed pfn and a map click answer as buddyscope where; the event seeks', async ({ page }) => {
  await openAtOp(page, 'fallback-claim', 3);
  const panel = page.getByTestId('whereis');
  await panel.scrollIntoViewIfNeeded();
  // Allocated by op 1 (typed in hex), free since boot (typed in decimal).
  for (const pfn of ['0x10', '2048']) {
    await page.getByTestId('whereis-pfn').fill(pfn);
    await page.getByTestId('whereis-show').click();
    await expectPanelEquals(page, cliWhere('fallback-claim', pfn, 3));
  }
  // A pfn outside the zone: the engine's message names the zone's span.
  await page.getByTestId('whereis-pfn').fill('0x999999');
  await page.getByTestId('whereis-show').click();
  await expect(panel.getByTestId('whereis-error')).toHaveText(
    'pfn 0x999999 is outside every zone of the node (Normal 0x0–0xffff)',
  );
  await page.getByTestId('whereis-pfn').fill('page 3');
  await page.getByTestId('whereis-show').click();
  await expect(panel.getByTestId('whereis-pfn-error')).toContainText('is not a pfn');

  // A map click asks about the clicked page: page 0x405 (op 3's block).
  const pfn = await clickMapPage(page, 0x405);
  await expectPanelEquals(page, cliWhere('fallback-claim', `0x${pfn.toString(16)}`, 3));
  const ev = panel.getByTestId('whereis-event');
  const pos = Number(await ev.getAttribute('data-pos'));
  const want = cliWhere('fallback-claim', `0x${pfn.toString(16)}`, 3)[1];
  expect(want).toContain(`(position ${pos})`);
  await ev.click();
  await expect(page.getByTestId('position')).toContainText(`event ${pos} /`);

  const results = await scanScreen(page, 'where is this page');
  console.log(`axe where is this page: ${summary(results)}`);
  expect(blocking(results)).toEqual([]);
});

test('pcp-overflow-2cpu at op 3: a page on a pcp list names the CPU and list as the CLI does', async ({ page }) => {
  await openAtOp(page, 'pcp-overflow-2cpu', 3);
  await page.getByTestId('whereis').scrollIntoViewIfNeeded();
  await page.getByTestId('whereis-pfn').fill('0x2');
  await page.getByTestId('whereis-show').click();
  const want = cliWhere('pcp-overflow-2cpu', '0x2', 3);
  expect(want[0]).toContain("is on CPU 0's pcp list");
  await expectPanelEquals(page, want);
});
