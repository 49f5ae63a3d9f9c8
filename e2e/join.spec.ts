import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { newEmail, password, signUp } from './helpers';
import { invitationLinkFromMail } from './mail';

/**
 * The invitation link's page (app/(auth)/join): a new person chooses a password and lands in the
 * organisation; the invited person signed in accepts; someone else is asked to sign in as the
 * invited address; a used link says so. The links come by mail: playwright.config.ts points the
 * relay at the local SMTP server e2e/mail-sink.ts starts.
 */

/** A call of the API from the signed-in page (its session cookie, its Origin). */
async function api(page: Page, method: string, path: string, body?: unknown): Promise<any> {
  return page.evaluate(
    async ([m, p, b]) => {
      const response = await fetch(p as string, {
        method: m as string,
        headers: { 'Content-Type': 'application/json' },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return { status: response.status, ...(await response.json()) };
    },
    [method, path, body] as const,
  );
}

const orgCookie = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === 'ev-org')?.value;

test('an invited person joins with a new account, another accepts signed in, a used link is refused', async ({ page, browser }) => {
  const ownerEmail = await signUp(page, newEmail('owner'));
  const orgId: string = (await api(page, 'GET', '/v1/organisations')).current;

  const newcomer = newEmail('newcomer');
  const forNewcomer = await api(page, 'POST', '/v1/invitations', { email: newcomer, role: 'member' });
  expect(forNewcomer).toMatchObject({ status: 201, mailed: true, link: null });
  const newcomerLink = await invitationLinkFromMail(newcomer);

  const existing = await browser.newContext();
  const existingPage = await existing.newPage();
  const existingEmail = await signUp(existingPage, newEmail('existing'));
  const forExisting = await api(page, 'POST', '/v1/invitations', { email: existingEmail, role: 'viewer' });
  expect(forExisting.status).toBe(201);
  const existingLink = await invitationLinkFromMail(existingEmail);

  // a new person: the page names the organisation, the role and the address, then asks for a password
  const fresh = await browser.newContext();
  const freshPage = await fresh.newPage();
  await freshPage.goto(newcomerLink);
  await expect(freshPage.getByTestId('invitation-summary')).toHaveText(`You are invited to join ${ownerEmail} as a member, as ${newcomer}.`);
  await freshPage.getByLabel('Choose a password').fill(password);
  await freshPage.getByRole('button', { name: 'Create account and join' }).click();
  await expect(freshPage).toHaveURL(/\/lists$/);
  expect(await orgCookie(fresh)).toBe(orgId);
  expect(await api(freshPage, 'GET', '/v1/organisations')).toMatchObject({
    current: orgId,
    data: expect.arrayContaining([{ id: orgId, name: ownerEmail, role: 'member' }]),
  });

  // the owner, signed in as someone else, is asked to sign in as the invited address
  await page.goto(existingLink);
  await expect(page.getByRole('button', { name: `Sign out, then sign in as ${existingEmail}` })).toBeVisible();

  // the invited person, signed in: one button
  await existingPage.goto(existingLink);
  await existingPage.getByRole('button', { name: `Accept and join ${ownerEmail}` }).click();
  await expect(existingPage).toHaveURL(/\/lists$/);
  expect(await orgCookie(existing)).toBe(orgId);
  expect((await api(existingPage, 'GET', '/v1/organisations')).current).toBe(orgId);

  // used: the link says it is no longer valid, to anyone
  const late = await browser.newContext();
  const latePage = await late.newPage();
  await latePage.goto(existingLink);
  await expect(latePage.getByText('This invitation link is no longer valid')).toBeVisible();

  // signed out with an account: a sign-in link that comes back to the page
  expect((await api(page, 'POST', '/v1/invitations', { email: existingEmail, role: 'member' })).status).toBe(409); // already a member
  const signedOut = await browser.newContext();
  const signedOutPage = await signedOut.newPage();
  await api(page, 'DELETE', `/v1/members/${(await api(page, 'GET', '/v1/members')).data.find((m: any) => m.email === existingEmail).user_id}`);
  expect((await api(page, 'POST', '/v1/invitations', { email: existingEmail, role: 'member' })).status).toBe(201);
  await signedOutPage.goto(await invitationLinkFromMail(existingEmail));
  await signedOutPage.getByRole('link', { name: 'Sign in to accept' }).click();
  await expect(signedOutPage).toHaveURL(/\/signin\?callbackUrl=/);
  await signedOutPage.getByLabel('Email').fill(existingEmail);
  await signedOutPage.getByLabel('Password').fill(password);
  await signedOutPage.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(signedOutPage).toHaveURL(/\/join\?token=/);
  await signedOutPage.getByRole('button', { name: `Accept and join ${ownerEmail}` }).click();
  await expect(signedOutPage).toHaveURL(/\/lists$/);
  expect(await orgCookie(signedOut)).toBe(orgId);

  for (const context of [existing, fresh, late, signedOut]) await context.close();
});
