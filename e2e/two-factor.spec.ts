import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { password, signUp } from './helpers';

const codeAt = (secret: string, timestamp: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp });

test('enrols an authenticator from Settings, then signs in with the password and a code, then with a recovery code', async ({ page }) => {
  const email = await signUp(page);
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Set up two-factor' }).click();
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  const secret = (await page.getByTestId('two-factor-secret').innerText()).replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByLabel('Code from the app').fill(codeAt(secret, Date.now()));
  await page.getByRole('button', { name: 'Turn on two-factor' }).click();
  const shown = page.getByTestId('recovery-codes');
  await expect(shown).toContainText('Two-factor is on');
  const recovery = (await shown.locator('pre span').allInnerTexts()).map((c) => c.trim());
  expect(recovery).toHaveLength(10);
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByText(/Two-factor is on since .*10 of 10 recovery codes left/)).toBeVisible();

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.locator('form').getByRole('alert')).toContainText('Enter the code from your authenticator app');
  // the next 30 s window's code: the current one was spent confirming the enrolment
  await page.getByLabel('Two-factor code').fill(codeAt(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/lists$/);

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('Two-factor code').fill(recovery[0]!);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await page.goto('/settings');
  await expect(page.getByText(/9 of 10 recovery codes left/)).toBeVisible();

  // off again with the password
  await page.getByRole('button', { name: 'Turn off two-factor' }).click();
  await page.getByLabel('A code from the app, a recovery code or your password').fill(password);
  await page.getByRole('button', { name: 'Confirm: turn off' }).click();
  await expect(page.getByRole('button', { name: 'Set up two-factor' })).toBeVisible();
});
