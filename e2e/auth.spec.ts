import { expect, test } from '@playwright/test';
import { newEmail, password, shoot, signUp } from './helpers';

test('pages need a session; sign up, sign out, sign in with clear errors', async ({ page }) => {
  await page.goto('/settings');
  await expect(page).toHaveURL(/\/signin/);
  await shoot(page, 'signin');

  await page.goto('/signup');
  await shoot(page, 'signup');
  const email = await signUp(page, newEmail('auth'));

  // Signing up twice with the same address says so.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.locator('form').getByRole('alert')).toContainText('already exists');

  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.locator('form').getByRole('alert')).toContainText('Wrong email or password');

  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
});
