import { expect, test } from '@playwright/test';
import { shoot, signUp } from './helpers';

// The policy the app will send (docs/security.md, "Pages and answers"): no external origins, no eval.
const CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'";

test('the API reference renders from the document without signing in, offline and under the CSP', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const external: string[] = [];
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1') {
      external.push(url.toString());
      return route.abort();
    }
    if (url.pathname !== '/docs') return route.continue();
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': CSP } });
  });

  await page.goto('/docs');
  const reference = page.getByTestId('api-reference');
  await expect(reference.getByText('Email verifier API').first()).toBeVisible();
  await expect(reference.getByText('/v1/verify/single').first()).toBeVisible();
  await expect(reference.getByText('/v1/verify/bulk/status/{jobId}').first()).toBeVisible();
  // an operation opens with its parameters and responses
  await reference.getByText('/v1/verify/single').first().click();
  await expect(reference.getByText('X-EV-Sandbox').first()).toBeVisible();
  await expect(reference.getByText('Idempotency-Key').first()).toBeVisible();
  await shoot(page, 'docs');
  expect(problems).toEqual([]);
  expect(external).toEqual([]);
});

test('the header links to the API reference', async ({ page }) => {
  await signUp(page);
  await page.getByRole('link', { name: 'API' }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await expect(page.getByTestId('api-reference').getByText('/v1/verify/single').first()).toBeVisible();
});
