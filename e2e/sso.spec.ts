import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { password, shoot, signUp } from './helpers';

// Single sign-on through the OpenID Provider e2e/sso-provider.ts runs (its own login and consent
// pages; a login is the email it signs in with), configured for the web server in playwright.config.ts.

async function signInWithProvider(page: Page, login: string): Promise<void> {
  await page.goto('/signin');
  await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
  // the provider's own login page
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/interaction\//);
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  // its consent page
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/lists$/);
}

/**
 * A new browser session: the app is left first, so that no page of it, finding its session gone,
 * navigates to the sign-in page while the test does (the test's navigation was aborted: ERR_ABORTED).
 */
async function leaveSignedOut(page: Page): Promise<void> {
  await page.goto('about:blank');
  await page.context().clearCookies();
}

test('a person signs in through the identity provider and joins the organisation that claimed their domain', async ({ page, baseURL }) => {
  const domain = `sso-${randomBytes(4).toString('hex')}.test`;
  await signUp(page, `owner@${domain}`);
  const rename = await page.request.patch('/v1/organisation', { headers: { origin: baseURL! }, data: { name: 'Acme' } });
  expect(rename.status()).toBe(200);
  // the owner claims the domain on the Settings page
  await page.goto('/settings');
  const card = page.getByTestId('sso-form');
  await card.getByLabel('Claimed domain').fill(domain);
  await card.getByLabel('They join as').selectOption('member');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(`Claimed: ${domain}. Password sign-in is on.`)).toBeVisible();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole('button', { name: 'Sign in with Acme ID' })).toBeVisible();
  await shoot(page, 'signin-sso');

  await signInWithProvider(page, `carol@${domain}`);
  const orgs = await (await page.request.get('/v1/organisations')).json();
  expect(orgs.data).toEqual([{ id: orgs.current, name: 'Acme', role: 'member' }]);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await shoot(page, 'sso-signed-in');

  // an unverified address at the domain lands in an organisation of its own (a new browser
  // session: the provider would otherwise remember carol; both sites are on 127.0.0.1)
  await leaveSignedOut(page);
  await signInWithProvider(page, `unverified@${domain}`);
  const own = await (await page.request.get('/v1/organisations')).json();
  expect(own.data).toEqual([{ id: own.current, name: `unverified@${domain}`, role: 'owner' }]);

  // the owner's password still works until they turn it off
  await leaveSignedOut(page);
  await page.goto('/signin');
  await page.getByLabel('Email').fill(`owner@${domain}`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/lists$/);

  // which they can do only signed in through the provider (their verified address links them)
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Turn password sign-in off' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Sign in through single sign-on first' })).toBeVisible();
  await leaveSignedOut(page);
  await signInWithProvider(page, `owner@${domain}`);
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Turn password sign-in off' }).click();
  await expect(page.getByText('Password sign-in is off')).toBeVisible();
  // the card itself (shoot() takes the top of the page)
  const dir = process.env.E2E_SCREENSHOTS === '1' ? 'e2e/screenshots' : 'test-results/screenshots';
  await page.locator('section', { has: page.getByTestId('sso-form') }).screenshot({ path: `${dir}/settings-sso.png` });

  // now the password alone is refused, with a clear message
  await leaveSignedOut(page);
  await page.goto('/signin');
  await page.getByLabel('Email').fill(`owner@${domain}`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.locator('form').getByRole('alert')).toContainText('Your organisation signs in through single sign-on');
});
