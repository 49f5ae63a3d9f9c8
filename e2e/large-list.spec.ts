import { expect, test } from '@playwright/test';
import { sandboxOn, signUp } from './helpers';

const ROWS = 100_000;

function bigCsv(): Buffer {
  const lines = ['customer_id,first_name,last_name,email,signup_date,plan'];
  for (let i = 1; i <= ROWS; i++) {
    const prefix = ['valid', 'invalid', 'risky', 'role', 'user'][i % 5];
    lines.push(`${i},First${i},Last${i},${prefix}${i}@example.com,2024-0${(i % 9) + 1}-1${i % 10},${i % 3 ? 'free' : 'pro'}`);
  }
  return Buffer.from(lines.join('\n'));
}

test('a 100,000-row file parses without freezing the page and the job is accepted', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  const toggle = page.getByRole('switch', { name: 'Sandbox mode' });

  await page.getByTestId('file-input').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: bigCsv() });

  // While the worker parses, the header switch still answers within a second.
  for (const expected of ['false', 'true']) {
    const started = Date.now();
    await toggle.click({ timeout: 1_000 });
    await expect(toggle).toHaveAttribute('aria-checked', expected, { timeout: 1_000 });
    expect(Date.now() - started).toBeLessThan(1_000);
  }

  await expect(page.getByTestId('row-count')).toHaveText('100,000', { timeout: 60_000 });
  await expect(page.getByLabel('Email column').locator('option:checked')).toHaveText('email');
  await expect(page.getByTestId('well-formed-count')).toHaveText('100,000');
  await expect(toggle).toHaveAttribute('aria-checked', 'true');

  await page.getByRole('button', { name: 'Verify 100,000 rows' }).click();
  await expect(page).toHaveURL(/\/jobs\/[^/]+$/, { timeout: 60_000 });
  await expect(page.getByTestId('job-state')).toHaveText(/queued|processing|completed/);
});
