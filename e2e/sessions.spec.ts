import { expect, test, type Page } from '@playwright/test';
import { password, signUp } from './helpers';

async function signInAs(page: Page, email: string, pass = password) {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(pass);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('change password keeps this session and ends the others; sign out everywhere ends them all', async ({ page, browser }) => {
  const email = await signUp(page);
  const other = await (await browser.newContext()).newPage();
  await signInAs(other, email);
  await expect(other).toHaveURL(/\/lists$/);

  await page.goto('/settings');
  await page.getByLabel('Current password').fill(password);
  await page.getByLabel('New password').fill('a brand new passphrase');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Password changed' })).toBeVisible();
  await page.reload();
  await expect(page).toHaveURL(/\/settings$/);
  await other.goto('/settings');
  await expect(other).toHaveURL(/\/signin/);

  await signInAs(other, email, 'a brand new passphrase');
  await expect(other).toHaveURL(/\/lists$/);
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/signin/);
  await other.goto('/settings');
  await expect(other).toHaveURL(/\/signin/);
});

test('the sign-in page says when an account is throttled', async ({ page }) => {
  const email = await signUp(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  for (let i = 0; i < 10; i++) {
    await signInAs(page, email, `wrong guess ${i}`);
    await expect(page.locator('form').getByRole('alert')).toContainText('Wrong email or password');
    // The answer is in when the button is back (it reads "Signing in…" meanwhile).
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeEnabled();
  }
  await signInAs(page, email);
  await expect(page.locator('form').getByRole('alert')).toContainText(/Too many failed sign-ins.*Try again in 15 minutes/);
});
