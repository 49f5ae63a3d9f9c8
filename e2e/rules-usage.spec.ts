import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { sandboxOn, shoot, signUp } from './helpers';

test('rules from a CSV decide a check; the usage panel charts it and downloads it; a quota warning shows as a banner', async ({ page }) => {
  await signUp(page);
  await page.goto('/settings');
  // a threshold above what is left (100 free checks today): the banner the quota.warning event would trigger
  await expect(page.getByTestId('quota-banner')).toHaveCount(0);
  await page.getByLabel('Warn when fewer checks are left than').fill('500');
  // the settings page has other cards with a Save button (reuse, your data): this card's own
  await page
    .locator('form', { has: page.getByLabel('Warn when fewer checks are left than') })
    .getByRole('button', { name: 'Save' })
    .click();
  await expect(page.getByTestId('quota-banner')).toContainText('Running low: 100 production checks left');

  await page.getByRole('link', { name: 'Manage rules' }).click();
  await expect(page).toHaveURL(/\/settings\/rules$/);
  await page.getByLabel('Value').fill('Blocked.Example');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await expect(page.getByTestId('rule')).toHaveCount(1);
  await page.getByLabel('Import CSV').setInputFiles({
    name: 'rules.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('action,match,value\r\nallow,email,VIP@blocked.example\r\nblock,tld,zz\r\nnonsense,row,here\r\n'),
  });
  await expect(page.getByTestId('import-note')).toHaveText('Imported rules.csv: 2 new of 2. Skipped row 4.');
  await expect(page.getByTestId('rule')).toHaveCount(3);
  await expect(page.getByTestId('rules')).toContainText('vip@blocked.example');
  await page.getByRole('button', { name: 'Delete block rule for zz' }).click();
  await expect(page.getByTestId('rule')).toHaveCount(2);
  await shoot(page, 'rules');

  await sandboxOn(page);
  await page.getByRole('link', { name: 'Single check' }).click();
  await page.getByLabel('Email address').fill('valid.anyone@blocked.example');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('verdict-card')).toContainText('blocklisted');
  await page.getByLabel('Email address').fill('vip@blocked.example');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('verdict-card')).toContainText('allowlisted');

  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByTestId('usage-totals')).toHaveText('2 checks · 0 charged · 0 refunded');
  await expect(page.getByTestId('usage-chart').locator('rect[data-bucket]')).toHaveCount(2);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe('day,mode,checks,deliverable,undeliverable,risky,unknown,charged,refunded,credits_granted');
  expect(csv).toContain(`${new Date().toISOString().slice(0, 10)},sandbox,2,1,1,0,0,0,0,0`);
  expect(csv).toHaveLength(61);
});
