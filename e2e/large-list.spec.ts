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

  // Main-thread tasks over 50 ms, as the browser itself reports them: the parse runs in a worker,
  // so the page keeps answering input. Wall time of a click would measure the machine's load instead.
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.longTasks.push(entry.duration);
    }).observe({ type: 'longtask' });
  });
  await page.getByTestId('file-input').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: bigCsv() });

  // While the worker parses, the header switch still answers.
  for (const expected of ['false', 'true']) {
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', expected);
  }

  await expect(page.getByTestId('row-count')).toHaveText('100,000', { timeout: 60_000 });
  await expect(page.getByLabel('Email column').locator('option:checked')).toHaveText('email');
  await expect(page.getByTestId('well-formed-count')).toHaveText('100,000');
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  // No main-thread task may keep input waiting for seconds. The longest is the list's summary once
  // the worker is done (well-formed and duplicate counts over every row: 0.65 s and 2.3 s measured
  // on this 2-core machine under two loads of other work). The bound catches a freeze, not a
  // slow machine: it is what a parse on the main thread, or a summary of a million rows, would break.
  const longest = Math.max(0, ...(await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks)));
  expect(longest).toBeLessThan(5_000);

  await page.getByRole('button', { name: 'Verify 100,000 rows' }).click();
  await expect(page).toHaveURL(/\/jobs\/[^/]+$/, { timeout: 60_000 });
  await expect(page.getByTestId('job-state')).toHaveText(/queued|processing|completed/);
});
