// Transient page references: get_page / put_page in the app, against the CLI.
import { test, expect, openApp, runCli, type Page, hoverMapPage } from '../fixtures';

const ID = 'free-contig-range-held-page';

async function hover(page: Page, idx: number) {
  const pfn = await hoverMapPage(page, idx);
  const tip = page.getByTestId('map-tooltip');
  await expect(tip).toContainText(`pfn 0x${pfn.toString(16)}`);
  return tip;
}

test('a page held by get_page: refcount in the tooltip, freed only by the last put_page, as the CLI says', async ({ page }) => {
  const cli = JSON.parse(runCli(['run', `engine/scenarios/${ID}.json`, '--format', 'json']));
  const outcomes: string[] = cli.ops.map((o: { outcome: string }) => o.outcome);
  expect(outcomes[3]).toContain('1 still referenced');
  const afterFree = JSON.parse(runCli(['run', `engine/scenarios/${ID}.json`, '--format', 'json', '--ops', '4']));
  const order0 = afterFree.pcp[0].lists.find((l: { order: number }) => l.order === 0);
  expect(order0.pfns).toEqual([101]);

  await openApp(page, `?scenario=${ID}`);
  await expect(page.getByTestId('scenario-name')).toHaveText(JSON.parse(runCli(['builtin', ID])).name);
  await page.getByTestId('map-zoom').selectOption('4');
  await expect(page.getByTestId('memory-map')).toHaveAttribute('data-cell', '4');
  const forward = async (n: number) => {
    for (let i = 0; i < n; i++) await page.getByTestId('op-forward').click();
  };

  // After get_page: the scanner's reference and the owner's.
  await forward(3);
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[2]);
  let tip = await hover(page, 100);
  await expect(tip).toContainText('allocated by');
  await expect(tip).toContainText('refcount 2');

  // After free_contig_range: page 100 keeps one reference and no owner; 101 went to the pcp.
  await forward(1);
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[3]);
  tip = await hover(page, 100);
  await expect(tip).toContainText('held only by get_page references');
  await expect(tip).toContainText('refcount 1');
  tip = await hover(page, 101);
  await expect(tip).toContainText('on the pcp of CPU 0');

  // The scanner's put_page frees it: on CPU 0's pcp list.
  await forward(1);
  await expect(page.getByTestId('op-outcome')).toHaveText(outcomes[4]);
  tip = await hover(page, 100);
  await expect(tip).toContainText('on the pcp of CPU 0');
  await page.mouse.move(0, 0);
});
