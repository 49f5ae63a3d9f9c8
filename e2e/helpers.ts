import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';

export const password = 'correct horse battery';

export function newEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.test`;
}

/** Signs up through the form and lands on the lists page. */
export async function signUp(page: Page, email = newEmail('user')): Promise<string> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await hydrated(page);
  return email;
}

/**
 * Waits until React has hydrated the dashboard's header: the lists page arrives as a full page load,
 * and a click that lands on its server-rendered Sign out button before its scripts have run does
 * nothing (seen with a second browser beside it on a loaded machine: the scripts took 0.6 s).
 */
export async function hydrated(page: Page): Promise<void> {
  const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
  await expect.poll(() => signOut.evaluate((button) => Object.keys(button).some((key) => key.startsWith('__reactProps$')))).toBe(true);
}

export async function sandboxOn(page: Page): Promise<void> {
  const toggle = page.getByRole('switch', { name: 'Sandbox mode' });
  // a click that lands before the page has hydrated does nothing: click again until it holds
  await expect(async () => {
    if ((await toggle.getAttribute('aria-checked')) !== 'true') await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'true', { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId('sandbox-banner')).toBeVisible();
}

export async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  // A sticky header would otherwise be painted wherever the page happened to be scrolled.
  await page.evaluate(() => window.scrollTo(0, 0));
  // Every run writes test-results/screenshots (ignored); E2E_SCREENSHOTS=1 refreshes the committed
  // set in e2e/screenshots that shows what the pages look like.
  const dir = process.env.E2E_SCREENSHOTS === '1' ? 'e2e/screenshots' : 'test-results/screenshots';
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage });
}
