import { expect, test } from '@playwright/test';
import { sandboxOn, signUp } from './helpers';

// The dashboard calls /v1 through the SDK (lib/client/sdk.ts): signed in by its cookie, no key, in
// the mode of the sandbox switch; an error answer shows the API's message, a lost connection a plain one.
test('the dashboard calls the API through the SDK with its session and mode, and shows what went wrong', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  await page.goto('/check');
  const email = page.getByLabel('Email address');

  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/verify/single'));
  await email.fill('valid@example.com');
  await page.getByRole('button', { name: 'Verify' }).click();
  const request = await sent;
  const headers = await request.allHeaders();
  expect(headers['x-ev-sandbox']).toBe('true');
  expect(headers.authorization).toBeUndefined();
  expect(headers['idempotency-key']).toBeUndefined();
  expect(await request.headerValue('cookie')).toMatch(/next-auth\.session-token=/);
  await expect(page.getByTestId('verdict')).toHaveText('Deliverable');

  await email.fill('error-server@example.com');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Simulated server error (sandbox trigger error-server).' })).toBeVisible();

  await page.route('**/v1/verify/single', (route) => route.abort('internetdisconnected'));
  await email.fill('valid@example.com');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Could not reach the server. Check your connection.' })).toBeVisible();
});
