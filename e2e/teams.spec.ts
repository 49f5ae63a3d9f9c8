import { readFile } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import Papa from 'papaparse';
import { newEmail, password, sandboxOn, shoot, signUp } from './helpers';
import { invitationLinkFromMail } from './mail';

// Issue 30's team: the owner invites an admin and a viewer (links read from the mail the app sent
// to the local SMTP server, e2e/mail-sink.ts), both join; the viewer downloads a finished list but
// sees no key or webhook controls and is refused by the API; the owner removes the admin, whose
// open session is refused on its next request.

/** Cookie-authenticated writes must come from the app's own origin (lib/auth/origin.ts). */
const originOf = (page: Page) => ({ origin: new URL(page.url()).origin });

async function invite(owner: Page, email: string, role: 'admin' | 'viewer'): Promise<string> {
  await owner.getByLabel('Email address').fill(email);
  await owner.getByLabel('Role', { exact: true }).selectOption(role);
  await owner.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(owner.getByTestId('invitation-sent')).toContainText(`Invitation mailed to ${email}`);
  await owner.getByRole('button', { name: 'Done' }).click();
  return invitationLinkFromMail(email);
}

/** A new person opens the link in a browser of their own, chooses a password and lands in the organisation. */
async function join(browser: Browser, link: string, email: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  await expect(page.getByTestId('invitation-summary')).toContainText(`as ${email}`);
  await page.getByLabel('Choose a password').fill(password);
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await expect(page).toHaveURL(/\/lists$/);
  return page;
}

test('an owner invites an admin and a viewer by mail; the viewer reads and downloads but cannot manage; a removed admin is refused at once', async ({
  page: owner,
  browser,
}) => {
  const ownerEmail = await signUp(owner);
  const adminEmail = newEmail('admin');
  const viewerEmail = newEmail('viewer');

  const [adminLink, viewerLink] = await test.step('the owner invites an admin and a viewer; the links come by mail', async () => {
    // one organisation: its name, no switcher
    await expect(owner.getByTestId('organisation-name')).toBeVisible();
    await owner.getByRole('link', { name: 'Settings', exact: true }).click();
    await owner.getByRole('link', { name: 'Manage members' }).click();
    await expect(owner).toHaveURL(/\/settings\/members$/);
    await expect(owner.getByTestId('member')).toHaveCount(1);
    const links = [await invite(owner, adminEmail, 'admin'), await invite(owner, viewerEmail, 'viewer')];
    await expect(owner.getByTestId('invitation')).toHaveCount(2);
    await shoot(owner, 'members');
    return links;
  });

  const admin = await test.step('the admin joins and acts for the organisation', async () => {
    const page = await join(browser, adminLink, adminEmail);
    // their own organisation and the one they joined, the joined one chosen
    await expect(page.getByTestId('organisation-switcher').locator('option')).toHaveCount(2);
    await expect(page.getByTestId('organisation-switcher').locator('option:checked')).toContainText('(admin)');
    return page;
  });
  const viewer = await test.step('the viewer joins', async () => {
    const page = await join(browser, viewerLink, viewerEmail);
    await expect(page.getByTestId('organisation-switcher').locator('option:checked')).toContainText('(viewer)');
    return page;
  });

  await test.step('the owner sees three members and no pending invitation', async () => {
    await owner.reload();
    await expect(owner.getByTestId('member')).toHaveCount(3);
    await expect(owner.getByTestId('invitation')).toHaveCount(0);
  });

  const jobId = await test.step('the owner verifies a list (sandbox) to completion', async () => {
    const emails = [...Array.from({ length: 6 }, (_, i) => `valid${i}@example.com`), ...Array.from({ length: 6 }, (_, i) => `invalid${i}@example.com`)];
    const submitted = await owner.request.post('/v1/verify/bulk', {
      headers: { ...originOf(owner), 'X-EV-Sandbox': 'true' },
      data: { emails, filename: 'team.csv' },
    });
    expect(submitted.status()).toBe(200);
    const id = (await submitted.json()).job_id as string;
    await expect(async () => {
      const status = await owner.request.get(`/v1/verify/bulk/status/${id}`, { headers: { 'X-EV-Sandbox': 'true' } });
      expect((await status.json()).status).toBe('completed');
    }).toPass({ timeout: 90_000 });
    return id;
  });

  await test.step('the viewer downloads the finished list', async () => {
    await sandboxOn(viewer);
    await expect(viewer.getByTestId('file-input')).toHaveCount(0);
    await viewer.goto(`/jobs/${jobId}`);
    await expect(viewer.getByTestId('download-all')).toBeVisible();
    await expect(viewer.getByRole('button', { name: 'Cancel job' })).toHaveCount(0);
    const downloading = viewer.waitForEvent('download');
    await viewer.getByTestId('download-all').click();
    const parsed = Papa.parse<string[]>(await readFile((await (await downloading).path())!, 'utf8'), { skipEmptyLines: true });
    expect(parsed.data).toHaveLength(1 + 12);
    expect(parsed.data.map((row) => row[0])).toContain('valid0@example.com');
  });

  await test.step('the viewer sees no key, webhook, verify or settings controls', async () => {
    await expect(viewer.getByRole('link', { name: 'Single check' })).toHaveCount(0);
    await viewer.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect(viewer.getByRole('heading', { name: 'Usage', exact: true })).toBeVisible();
    await expect(viewer.getByRole('heading', { name: 'Members' })).toBeVisible();
    await expect(viewer.getByRole('heading', { name: 'API keys' })).toHaveCount(0);
    await expect(viewer.getByRole('heading', { name: 'Webhooks' })).toHaveCount(0);
    await expect(viewer.getByRole('heading', { name: 'Your data' })).toHaveCount(0);
    await expect(viewer.getByLabel('Warn when fewer checks are left than')).toHaveCount(0);
    await expect(viewer.getByRole('link', { name: 'Manage rules' })).toHaveCount(0);
    await viewer.getByRole('link', { name: 'See members' }).click();
    await expect(viewer.getByTestId('member')).toHaveCount(3);
    await expect(viewer.getByRole('button', { name: /^Remove / })).toHaveCount(0);
    await expect(viewer.getByRole('heading', { name: 'Invitations' })).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: 'Leave organisation' })).toBeVisible();
    await shoot(viewer, 'members-viewer');
  });

  await test.step('the API refuses the viewer (403 insufficient_role naming the role)', async () => {
    const keys = await viewer.request.get('/v1/keys');
    expect(keys.status()).toBe(403);
    expect(await keys.json()).toMatchObject({ error: 'insufficient_role', role: 'admin' });
    const hook = await viewer.request.post('/v1/webhooks', { headers: originOf(viewer), data: { url: 'https://example.com/hooks' } });
    expect(hook.status()).toBe(403);
    expect(await hook.json()).toMatchObject({ error: 'insufficient_role', role: 'admin' });
    const check = await viewer.request.post('/v1/verify', { headers: { ...originOf(viewer), 'X-EV-Sandbox': 'true' }, data: { email: 'valid@example.com' } });
    expect(check.status()).toBe(403);
    expect(await check.json()).toMatchObject({ error: 'insufficient_role', role: 'member' });
    // what a viewer may do still works
    expect((await viewer.request.get(`/v1/verify/bulk/download/${jobId}`, { headers: { 'X-EV-Sandbox': 'true' } })).status()).toBe(200);
  });

  await test.step('the admin manages keys and the members below them, not the owner', async () => {
    await admin.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect(admin.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(admin.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
    await admin.getByRole('link', { name: 'Manage members' }).click();
    await expect(admin.getByTestId('member')).toHaveCount(3);
    await expect(admin.getByRole('button', { name: `Remove ${viewerEmail}` })).toBeVisible();
    await expect(admin.getByRole('button', { name: `Remove ${ownerEmail}` })).toHaveCount(0);
    // an admin gives at most `member`
    await expect(admin.getByLabel('Role', { exact: true }).locator('option')).toHaveText(['viewer', 'member']);
    await expect(admin.getByLabel('Organisation name')).toHaveCount(0);
  });

  await test.step("the owner removes the admin; the admin's open session is refused on its next request", async () => {
    owner.once('dialog', (dialog) => dialog.accept());
    await owner.getByRole('button', { name: `Remove ${adminEmail}` }).click();
    await expect(owner.getByTestId('member')).toHaveCount(2);

    const refused = await admin.request.get('/v1/members');
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error).toBe('not_a_member');
    await admin.reload();
    await expect(admin.getByTestId('not-a-member')).toContainText('You are not a member of this organisation any more');
    await shoot(admin, 'not-a-member');
    await admin.getByRole('button', { name: 'Back to your own organisation' }).click();
    await expect(admin.getByTestId('not-a-member')).toHaveCount(0);
    // back in their own organisation, the only one they have
    await expect(admin.getByTestId('organisation-name')).toBeVisible();
    await expect(admin.getByTestId('organisation-switcher')).toHaveCount(0);
    expect((await admin.request.get('/v1/members')).status()).toBe(200);
  });
});
