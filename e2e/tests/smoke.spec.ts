import { test, expect, openApp, saveScreenshot } from '../fixtures';

test('the app loads the default scenario with its core panels and no error banner', async ({ page }) => {
  await openApp(page);
  await expect(page).toHaveTitle('buddyscope');
  for (const id of ['memory-map', 'freelists', 'scrubber', 'position', 'narration', 'play']) {
    await expect(page.getByTestId(id)).toBeVisible();
  }
  await expect(page.getByTestId('position')).toContainText('event 0 /');
  await expect(page.getByTestId('error-banner')).toHaveCount(0);
  await saveScreenshot(page, 'smoke');
});

test('the theme toggle cycles auto, light, dark and persists', async ({ page }) => {
  await openApp(page);
  const html = page.locator('html');
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toHaveText('Theme: auto');
  await expect(html).not.toHaveAttribute('data-theme', /.*/);
  await toggle.click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await toggle.click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(20, 22, 27)');
  await saveScreenshot(page, 'smoke-dark');
  await page.reload();
  await expect(toggle).toHaveText('Theme: dark');
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await toggle.click();
  await expect(html).not.toHaveAttribute('data-theme', /.*/);
});

test('"auto" follows the system colour scheme', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openApp(page);
  await expect(page.getByTestId('theme-toggle')).toHaveText('Theme: auto');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(20, 22, 27)');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(251, 251, 253)');
});

test.describe('a panic', () => {
  test.use({ allowErrors: true });

  test('shows the error banner with the message and a Reload button', async ({ page, pageErrors }) => {
    await page.goto('/?debug-panic');
    const banner = page.getByTestId('error-banner');
    await expect(banner).toBeVisible();
    await expect(banner.getByTestId('error-message')).toContainText('debug panic requested by ?debug-panic');
    await expect(banner.getByTestId('error-message')).toContainText('panic_banner.rs');
    await expect(banner.getByRole('button', { name: 'Reload' })).toBeVisible();
    // The page behind the banner is still there, and only one banner shows.
    await expect(page.getByRole('heading', { level: 1, name: 'buddyscope' })).toBeVisible();
    await expect(banner).toHaveCount(1);
    await saveScreenshot(page, 'panic-banner');
    // The panic is logged to the console too (console_error_panic_hook).
    expect(pageErrors.join('\n')).toContain('debug panic requested');
    // Reload works although the wasm instance has trapped.
    await Promise.all([page.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
    await expect(page.getByTestId('error-banner')).toBeVisible();
  });
});

test.describe('a failure to load the wasm', () => {
  test.use({ allowErrors: true });

  test('shows the error banner instead of a blank page', async ({ page }) => {
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto('/');
    const banner = page.getByTestId('error-banner');
    await expect(banner).toBeVisible();
    await expect(banner).toContainText('buddyscope failed to start');
    await expect(banner.getByRole('button', { name: 'Reload' })).toBeVisible();
    await saveScreenshot(page, 'load-failure-banner');
  });
});
