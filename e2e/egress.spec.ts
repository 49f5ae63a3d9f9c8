import { expect, test } from '@playwright/test';
import { signUp } from './helpers';

// The settings panel shows the server's egress checks whatever this machine's network allows
// (the outcome depends on it: no port 25 here is a fail, no DNS a warning); Re-check asks again.
test('settings show the egress checks with a re-check', async ({ page }) => {
  await signUp(page);
  await page.goto('/settings');
  const checks = page.getByTestId('egress-check');
  await expect(checks).toHaveCount(6, { timeout: 30_000 }); // identity, port 25, egress IP, reverse DNS, blocklists, resolver
  await expect(checks.first()).toContainText('Sender identity');
  await expect(checks.filter({ hasText: 'Outbound port 25' })).toHaveCount(1);
  for (const check of await checks.all()) expect(['pass', 'warn', 'fail']).toContain(await check.getAttribute('data-status'));
  const answered = page.waitForResponse((r) => r.url().includes('/v1/egress?refresh=true'));
  await page.getByRole('button', { name: 'Re-check' }).click();
  expect((await answered).status()).toBe(200);
  await expect(page.getByRole('button', { name: 'Re-check' })).toBeEnabled({ timeout: 30_000 });
  await expect(checks).toHaveCount(6);
});
