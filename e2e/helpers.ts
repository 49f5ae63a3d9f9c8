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
  return email;
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
