import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { signUp } from './helpers';

// Issue 31's audit log from the dashboard: an owner's sign-in and the key they make are on the
// Settings → Audit log page, the action filter narrows it, and its CSV download holds the same rows.

test('the audit log page: the sign-in and a key made, filtered by action, downloaded as CSV', async ({ page }) => {
  const email = await signUp(page);
  const origin = { origin: new URL(page.url()).origin };
  const made = await page.request.post('/v1/keys', { headers: origin, data: { name: 'audited in the browser' } });
  expect(made.status()).toBe(201);

  await page.goto('/settings');
  await page.getByRole('link', { name: 'Open the audit log' }).click();
  await expect(page).toHaveURL(/\/settings\/audit$/);
  const table = page.getByTestId('audit-table');
  await expect(table).toContainText('sign_in.succeeded');
  await expect(table).toContainText('key.created');
  await expect(table.getByRole('row').filter({ hasText: 'key.created' })).toContainText('audited in the browser');
  await expect(table.getByRole('row').filter({ hasText: 'key.created' })).toContainText(email);

  await page.getByLabel('Action').selectOption('key.created');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(table).not.toContainText('sign_in.succeeded');
  await expect(table.getByRole('row').filter({ hasText: 'key.created' })).toHaveCount(1);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-csv').click()]);
  const rows = Papa.parse<Record<string, string>>(await readFile((await download.path())!, 'utf8'), { header: true, skipEmptyLines: true }).data;
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ action: 'key.created', target_label: 'audited in the browser', actor_email: email, method: 'session' });
});
