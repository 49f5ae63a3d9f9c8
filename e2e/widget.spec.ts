import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { signUp } from './helpers';
import { startForwarder, startHostSite } from './widget-host';

// The form widget on a shop's page: another origin (a second port), a strict CSP, a publishable key
// made in the dashboard. docs/integrations.md is the guide this follows.
const api = `http://127.0.0.1:${process.env.E2E_PORT}`;
let host: Awaited<ReturnType<typeof startHostSite>>;
let sdkDir: string;
let publishableKey: string;
const shop = () => `http://127.0.0.1:${host.port}`;

test.beforeAll(async () => {
  sdkDir = mkdtempSync(join(tmpdir(), 'ev-sdk-browser-'));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'lib/sdk/tsconfig.json', '--outDir', sdkDir], { stdio: 'inherit' });
  host = await startHostSite(sdkDir);
});
test.afterAll(async () => {
  await host?.close();
  rmSync(sdkDir, { recursive: true, force: true });
});

function signupPage(page: Page, options: { origin?: string; api?: string; extra?: Record<string, string> } = {}) {
  const query = new URLSearchParams({ api: options.api ?? api, key: publishableKey, sandbox: 'true', ...options.extra });
  return page.goto(`${options.origin ?? shop()}/signup.html?${query}`);
}

function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

test('the dashboard makes a verify-only key by default, edits it, and makes a publishable key', async ({ page }) => {
  await signUp(page);
  await page.goto('/settings');
  await page.getByLabel('Key name').fill('CRM');
  await expect(page.getByRole('checkbox', { name: 'verify' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'history' })).not.toBeChecked();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByTestId('new-key')).toContainText('ev_live_');
  const crmRow = page.getByTestId('keys-table').locator('tr', { hasText: 'CRM' });
  await expect(crmRow.getByTestId('key-scopes')).toHaveText('verify');

  await crmRow.getByRole('button', { name: 'Edit key CRM' }).click();
  const edit = page.getByRole('form', { name: 'Edit key CRM' });
  await edit.getByRole('checkbox', { name: 'history' }).check();
  await edit.getByLabel('Allowed IPs (optional)').fill('203.0.113.0/24');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(crmRow.getByTestId('key-scopes')).toHaveText('verify, history · IPs 203.0.113.0/24');

  await page.getByLabel('Key name').fill('Sign-up form');
  await page.getByRole('radio', { name: 'Publishable (web page)' }).check();
  await page.getByLabel('Allowed origins').fill(shop());
  await page.getByLabel('Charged checks a day (optional)').fill('500');
  await page.getByRole('button', { name: 'Create key' }).click();
  // the secret key's box shows until the new key is made: wait for the publishable one
  await expect(page.getByTestId('new-key')).toContainText('ev_pub_');
  publishableKey = (await page.getByTestId('new-key').innerText()).trim();
  expect(publishableKey).toMatch(/^ev_pub_/);
  const formRow = page.getByTestId('keys-table').locator('tr', { hasText: 'Sign-up form' });
  await expect(formRow.getByTestId('key-scopes')).toHaveText(`publishable · ${shop()} · 0 of 500 charged checks today`);
  await formRow.getByRole('button', { name: 'Edit key Sign-up form' }).click();
  const editForm = page.getByRole('form', { name: 'Edit key Sign-up form' });
  await expect(editForm.getByLabel('Charged checks a day (optional)')).toHaveValue('500');
  await editForm.getByLabel('Charged checks a day (optional)').fill('2000');
  await editForm.getByRole('button', { name: 'Save' }).click();
  await expect(formRow.getByTestId('key-scopes')).toHaveText(`publishable · ${shop()} · 0 of 2000 charged checks today`);
  // emptied, the cap is the installation's default again (EV_PUBLISHABLE_CHECKS_PER_DAY, 1000)
  await formRow.getByRole('button', { name: 'Edit key Sign-up form' }).click();
  await editForm.getByLabel('Charged checks a day (optional)').fill('');
  await editForm.getByRole('button', { name: 'Save' }).click();
  await expect(formRow.getByTestId('key-scopes')).toHaveText(`publishable · ${shop()} · 0 of 1000 charged checks today`);
});

test('serves /widget.js small, cacheable and loadable from any site', async ({ request }) => {
  const response = await request.get('/widget.js');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toContain('javascript');
  expect(response.headers()['cache-control']).toContain('max-age=3600');
  expect(response.headers()['cross-origin-resource-policy']).toBe('cross-origin');
  expect((await response.body()).length).toBeLessThan(10_000);
  const again = await request.get('/widget.js', { headers: { 'if-none-match': response.headers().etag! } });
  expect(again.status()).toBe(304);
});

test('from the allowed origin: checks on change, emits ev:verified, lets a good address through', async ({ page }) => {
  const csp = watchCsp(page);
  await signupPage(page);
  const email = page.getByLabel('Email', { exact: true });
  await email.fill('valid@example.com');
  await email.press('Tab');
  await expect(email).toHaveAttribute('data-ev-state', 'ok');
  await expect(email).not.toHaveAttribute('aria-invalid', /.*/);
  const events = await page.evaluate(() => (window as any).evEvents);
  expect(events).toEqual([
    expect.objectContaining({ email: 'valid@example.com', blocked: false, verdict: expect.objectContaining({ status: 'deliverable', evidence: null }) }),
  ]);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.locator('#thanks')).toHaveText('Thanks valid@example.com');
  expect(csp).toEqual([]);
});

test('blocks submission of an undeliverable or disposable address, with an accessible message', async ({ page }) => {
  const csp = watchCsp(page);
  await signupPage(page, { extra: { 'message-undeliverable': 'This address bounces.' } });
  const email = page.getByLabel('Email', { exact: true });
  await email.fill('invalid@example.com');
  await email.press('Enter'); // submit from the keyboard, before any change event
  const message = page.getByRole('status').filter({ hasText: 'This address bounces.' });
  await expect(message).toBeVisible();
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  const describedBy = await email.getAttribute('aria-describedby');
  expect(describedBy?.split(' ')).toContain(await message.getAttribute('id'));
  await expect(email).toBeFocused();
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page).toHaveURL(/signup\.html/);

  // the other field, marked data-ev-verify, is checked too: a disposable address is refused
  await email.fill('valid@example.com');
  const work = page.getByLabel('Work email');
  await work.fill('disposable@example.com');
  await work.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'not a disposable one' })).toBeVisible();
  await expect(work).toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/signup\.html/);
  expect(csp).toEqual([]);
});

test('offers the typo fix as a button that applies it', async ({ page }) => {
  await signupPage(page);
  const email = page.getByLabel('Email', { exact: true });
  await email.fill('valid@gmial.com');
  await email.press('Tab');
  const fix = page.getByRole('button', { name: 'valid@gmail.com' });
  await expect(fix).toBeVisible();
  await expect(page.getByRole('status').filter({ has: fix })).toHaveText('Did you mean valid@gmail.com?');
  await fix.click();
  await expect(email).toHaveValue('valid@gmail.com');
  await expect(email).toBeFocused();
  await expect(fix).toBeHidden();
  // reachable by keyboard too: the fix sits right after the field in the tab order
  await email.fill('valid@yaho.com');
  await email.press('Tab');
  const keyboardFix = page.getByRole('button', { name: 'valid@yahoo.com' });
  await expect(keyboardFix).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(keyboardFix).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(email).toHaveValue('valid@yahoo.com');
});

test('is refused by CORS on a page of another origin, and then never blocks the form', async ({ page }) => {
  // localhost is another origin than 127.0.0.1 to a browser, though the same server
  const elsewhere = `http://localhost:${host.port}`;
  await signupPage(page, { origin: elsewhere });
  const direct = await page.evaluate(
    async ({ api, key }) => {
      try {
        const response = await fetch(`${api}/v1/verify/single?key=${key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"email":"a@b.co"}',
        });
        return `read ${response.status}`;
      } catch (error) {
        return `refused: ${(error as Error).name}`;
      }
    },
    { api, key: publishableKey },
  );
  expect(direct).toBe('refused: TypeError');
  const email = page.getByLabel('Email', { exact: true });
  await email.fill('invalid@example.com');
  await email.press('Tab');
  await expect(email).toHaveAttribute('data-ev-state', 'unavailable');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.locator('#thanks')).toHaveText('Thanks invalid@example.com');
});

for (const outage of ['stopped', 'hanging'] as const) {
  test(`lets the form through when the service is ${outage}`, async ({ page }) => {
    const forwarder = await startForwarder(Number(process.env.E2E_PORT));
    try {
      await signupPage(page, { api: `http://127.0.0.1:${forwarder.port}`, extra: { timeout: '1500' } });
      const email = page.getByLabel('Email', { exact: true });
      // the widget is alive through the forwarder first
      await email.fill('valid@example.com');
      await email.press('Tab');
      await expect(email).toHaveAttribute('data-ev-state', 'ok');
      if (outage === 'stopped') await forwarder.close();
      else forwarder.stall();
      await email.fill('invalid@example.com');
      await email.press('Tab');
      await expect(email).toHaveAttribute('data-ev-state', /checking|unavailable/);
      const started = Date.now();
      await page.getByRole('button', { name: 'Sign up' }).click();
      await expect(page.locator('#thanks')).toHaveText('Thanks invalid@example.com');
      // a generous freeze-catching bound: data-timeout is 1.5 s
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await forwarder.close().catch(() => {});
    }
  });
}

test('with data-fail="closed", holds the form back with a message while the service does not answer', async ({ page }) => {
  const forwarder = await startForwarder(Number(process.env.E2E_PORT));
  try {
    await signupPage(page, { api: `http://127.0.0.1:${forwarder.port}`, extra: { timeout: '1500', fail: 'closed' } });
    const email = page.getByLabel('Email', { exact: true });
    await email.fill('valid@example.com');
    await email.press('Tab');
    await expect(email).toHaveAttribute('data-ev-state', 'ok');
    await forwarder.close();
    await email.fill('valid.other@example.com');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect(email).toHaveAttribute('data-ev-state', 'unavailable');
    await expect(page.getByText('We could not check this email address just now.')).toBeVisible();
    await expect(email).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#thanks')).toHaveCount(0);
    // an address it did check before the outage is answered from what the widget holds: it goes through
    await email.fill('valid@example.com');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect(page.locator('#thanks')).toHaveText('Thanks valid@example.com');
  } finally {
    await forwarder.close().catch(() => {});
  }
});

test('the SDK runs in a browser with the publishable key', async ({ page }) => {
  await page.goto(`${shop()}/sdk.html`);
  const result = await page.evaluate(
    async ({ api, key }) => {
      const { EmailVerifier } = await import('/sdk/index.js' as string);
      const client = new EmailVerifier({ apiKey: key, baseUrl: api, sandbox: true, maxRetries: 0 });
      const verdict = await client.verify('valid@gmial.com');
      // any other route grants no CORS, so the browser itself refuses to send or read it
      const refused = await client.account().then(
        () => null,
        (error: any) => error.code,
      );
      return { status: verdict.status, did_you_mean: verdict.did_you_mean, refused };
    },
    { api, key: publishableKey },
  );
  expect(result).toEqual({ status: 'deliverable', did_you_mean: 'valid@gmail.com', refused: 'connection_error' });
});
