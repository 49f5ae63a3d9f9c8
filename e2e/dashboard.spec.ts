import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { sandboxOn, shoot, signUp } from './helpers';

// 25 rows, extra columns, every sandbox prefix plus addresses judged by hash and one malformed.
const people: [string, string, string][] = [
  ...[1, 2, 3, 4, 5].map((n): [string, string, string] => [`Valid ${n}`, `valid${n}@example.com`, 'Acme, Inc.']),
  ...[1, 2, 3, 4].map((n): [string, string, string] => [`Invalid ${n}`, `invalid${n}@example.com`, 'Globex']),
  ...[1, 2, 3].map((n): [string, string, string] => [`Risky ${n}`, `risky${n}@example.com`, 'Initech']),
  ...[1, 2, 3].map((n): [string, string, string] => [`Catchall ${n}`, `catchall${n}@example.org`, 'Umbrella']),
  ...[1, 2, 3].map((n): [string, string, string] => [`Disposable ${n}`, `disposable${n}@example.net`, 'Hooli']),
  ...[1, 2, 3].map((n): [string, string, string] => [`Role ${n}`, `role${n}@example.com`, 'Stark']),
  ['Alice', 'alice@example.com', 'Wayne'],
  ['Bob', 'bob.smith@example.org', 'Wayne'],
  ['Carol', 'carol@example.net', 'Wayne'],
  ['Broken', 'not-an-email', 'Wayne'],
];
const csv = Papa.unparse([['id', 'name', 'email', 'company'], ...people.map(([name, email, company], i) => [String(i + 1), name, email, company])]);

const expectedStatus: [RegExp, string][] = [
  [/^invalid/, 'undeliverable'],
  [/^valid/, 'deliverable'],
  [/^risky/, 'risky'],
  [/^catchall/, 'catch-all'],
  [/^disposable/, 'risky'],
  [/^role/, 'role-based'],
];

const verdictColumns = [
  'email',
  'valid',
  'deliverable',
  'risk_level',
  'reason',
  'status',
  'score',
  'provider',
  'disposable',
  'role',
  'free',
  'catch_all',
  'did_you_mean',
  'cached',
  'sub_reason',
  'mailbox_provider',
];

test('a list in sandbox mode, from drop to download, then history, single check, keys and webhooks', async ({ page, request }) => {
  await signUp(page);
  await sandboxOn(page);
  // Remembered across reloads.
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Sandbox mode' })).toHaveAttribute('aria-checked', 'true');

  await test.step('drop the CSV and see the email column detected', async () => {
    await page.getByTestId('file-input').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await expect(page.getByLabel('Email column')).toHaveValue('2');
    await expect(page.getByLabel('Email column').locator('option:checked')).toHaveText('email');
    await expect(page.getByTestId('row-count')).toHaveText('25');
    await expect(page.getByTestId('well-formed-count')).toHaveText('24');
    await shoot(page, 'lists-preview', true);
  });

  await test.step('submit and watch the job finish', async () => {
    await page.getByRole('button', { name: 'Verify 25 rows' }).click();
    await expect(page).toHaveURL(/\/jobs\/[^/]+$/);
    await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 90_000 });
    const count = async (bucket: string) => Number(await page.getByTestId(`summary-${bucket}`).getByTestId('count').innerText());
    const [deliverable, undeliverable, risky, unknown] = await Promise.all(['deliverable', 'undeliverable', 'risky', 'unknown'].map(count));
    expect(deliverable).toBeGreaterThanOrEqual(5);
    expect(undeliverable).toBeGreaterThanOrEqual(4 + 1);
    expect(risky).toBeGreaterThanOrEqual(12);
    expect(deliverable + undeliverable + risky + unknown).toBe(25);
    await expect(page.getByTestId('results-table').locator('tbody tr')).toHaveCount(25);
    await page.getByRole('button', { name: 'Undeliverable', exact: true }).click();
    await expect(page.getByTestId('results-table').locator('tbody tr')).toHaveCount(undeliverable);
    await shoot(page, 'job', true);
  });

  await test.step('download all rows with the original columns first', async () => {
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: 'All rows' }).click();
    const file = await (await downloading).path();
    const parsed = Papa.parse<string[]>(await readFile(file, 'utf8'), { skipEmptyLines: true });
    const [header, ...rows] = parsed.data;
    expect(header).toEqual(['id', 'name', 'email', 'company', ...verdictColumns]);
    expect(rows).toHaveLength(25);
    for (const [i, [name, email, company]] of people.entries()) {
      const row = rows.find((r) => r[0] === String(i + 1));
      expect(row, `row ${i + 1}`).toBeDefined();
      expect(row!.slice(0, 4)).toEqual([String(i + 1), name, email, company]);
      expect(row![4]).toBe(email);
      const expected = expectedStatus.find(([pattern]) => pattern.test(email))?.[1];
      if (expected) expect(row![9], email).toBe(expected);
      if (email === 'not-an-email') expect(row![8]).toBe('invalid_email');
    }
  });

  await test.step('the addresses are in history', async () => {
    await page.getByRole('link', { name: 'History' }).click();
    await expect(page.getByTestId('history-table').locator('tbody tr').first()).toBeVisible();
    await page.getByLabel('Address').fill('valid1@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.getByTestId('history-table').locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('valid1@example.com');
    await expect(rows.first()).toContainText('deliverable');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(rows).toHaveCount(25);
    await shoot(page, 'history', true);
  });

  await test.step('check one address by hand', async () => {
    await page.getByRole('link', { name: 'Single check' }).click();
    await page.getByLabel('Email address').fill('catchall-by-hand@example.com');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByTestId('verdict')).toHaveText('Risky');
    await expect(page.getByTestId('verdict-card')).toContainText('accept all');
    await shoot(page, 'check', true);
  });

  await test.step('create an API key and call the API with it', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Key name').fill('e2e script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').innerText()).trim();
    expect(key).toMatch(/^ev_live_/);
    const response = await request.post('/v1/verify/single', {
      headers: { Authorization: `Bearer ${key}`, 'X-EV-Sandbox': 'true' },
      data: { email: 'valid-api@example.com' },
    });
    expect(response.status()).toBe(200);
    expect(await response.json()).toMatchObject({ email: 'valid-api@example.com', deliverable: true, reason: 'accepted_email' });
    const anonymous = await request.post('/v1/verify/single', { headers: { 'X-EV-Sandbox': 'true' }, data: { email: 'valid@example.com' } });
    expect(anonymous.status()).toBe(401);
    await page.reload();
    await expect(page.getByTestId('keys-table')).toContainText('e2e script');
    await expect(page.getByTestId('key-last-used').first()).not.toHaveText('never');
  });

  await test.step('add a webhook and see its test delivery', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await page.getByLabel('Endpoint URL').fill(url);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const hook = page.getByTestId('webhook').filter({ hasText: url });
      await expect(hook).toBeVisible();
      await hook.getByRole('button', { name: 'Send test event' }).click();
      await expect(hook.getByTestId('delivery-status').first()).toHaveText('200', { timeout: 30_000 });
      expect(received.length).toBeGreaterThan(0);
      const event = JSON.parse(received[0]!.body) as { type: string; sandbox: boolean };
      expect(event.type).toBe('webhook.test');
      expect(received[0]!.headers['webhook-signature']).toMatch(/^v1,/);
      await shoot(page, 'settings', true);
    } finally {
      receiver.close();
    }
  });

  await test.step('on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Lists' }).click();
    await expect(page.getByTestId('job-row').first()).toContainText('sandbox');
    await shoot(page, 'lists-phone');
  });
});
