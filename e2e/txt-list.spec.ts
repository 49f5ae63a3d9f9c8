import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { sandboxOn, signUp } from './helpers';

test('a plain TXT list, one address a line, downloads with just the verdict columns', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  const addresses = Array.from({ length: 12 }, (_v, i) => `${i % 2 ? 'valid' : 'invalid'}${i}@example.com`);
  await page.getByTestId('file-input').setInputFiles({ name: 'list.txt', mimeType: 'text/plain', buffer: Buffer.from(`${addresses.join('\n')}\n\n`) });
  await expect(page.getByTestId('row-count')).toHaveText('12');
  await expect(page.getByTestId('well-formed-count')).toHaveText('12');
  await page.getByRole('button', { name: 'Verify 12 rows' }).click();
  await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 60_000 });
  await expect(page.getByTestId('summary-deliverable').getByTestId('count')).toHaveText('6');
  await expect(page.getByTestId('summary-undeliverable').getByTestId('count')).toHaveText('6');

  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Deliverable only', exact: true }).click();
  const parsed = Papa.parse<string[]>(await readFile(await (await downloading).path(), 'utf8'), { skipEmptyLines: true });
  expect(parsed.data[0]?.slice(0, 2)).toEqual(['email', 'valid']);
  expect(
    parsed.data
      .slice(1)
      .map((row) => row[0])
      .sort(),
  ).toEqual(addresses.filter((a) => a.startsWith('valid')).sort());
});
