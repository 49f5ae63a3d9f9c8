import { expect, test } from '@playwright/test';
import { startServer, type BenchServer } from '../bench/server';
import { startDnsmasq, type DnsPeer } from '../test/peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../test/peers/postfix';
import { newEmail, password } from './helpers';

// A live-mode list whose mail server greylists: its own next start, pointed at a real Postfix that
// refuses each first try (with a greylisting policy) and at dnsmasq for grey.test. The job page says
// what it waits for and offers the rows answered so far; then every address is answered, each
// mailbox charged once.
const PEOPLE = ['anna', 'ben', 'cara', 'dora', 'emil', 'finn', 'greta', 'hugo', 'ida', 'jan', 'kai'];

let dns: DnsPeer;
let postfix: PostfixPeer;
let server: BenchServer;

test.beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=grey.test,mx.grey.test,10', 'host-record=mx.grey.test,127.0.0.1']);
  postfix = await startPostfix({ mailboxes: PEOPLE.map((p) => `${p}@grey.test`), greylistDomains: ['grey.test'] });
  server = await startServer({
    env: {
      EV_DNS_SERVERS: dns.server,
      EV_SMTP_PORT: String(postfix.port),
      EV_GREYLIST_RETRY_MS: '15000',
      EV_SMTP_CONNECT_TIMEOUT_MS: '2000',
      EV_SMTP_COMMAND_TIMEOUT_MS: '2000',
      EV_EGRESS_POLICY: 'off',
      EV_SIGNUPS_PER_IP: '1000',
      NEXTAUTH_SECRET: 'e2e-greylisting-secret',
    },
  });
});

test.afterAll(async () => {
  await server?.stop();
  await postfix?.stop();
  await dns?.stop();
});

test('a greylisted live list says what it waits for, offers a partial download, then completes, each mailbox charged once', async ({ page }) => {
  await page.goto(`${server.baseUrl}/signup`);
  await page.getByLabel('Email').fill(newEmail('grey'));
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/lists$/);
  await expect(page.getByRole('switch', { name: 'Sandbox mode' })).toHaveAttribute('aria-checked', 'false');

  // eleven people and one of them typed twice, in another case: 12 rows, 11 mailboxes
  const rows = [...PEOPLE.map((p) => `${p}@grey.test`), 'ANNA@grey.test'];
  await page.getByTestId('file-input').setInputFiles({ name: 'grey.csv', mimeType: 'text/csv', buffer: Buffer.from(`email\n${rows.join('\n')}\n`) });
  await expect(page.getByTestId('row-count')).toHaveText('12');
  await expect(page.getByTestId('duplicate-count')).toHaveText('1');
  await page.getByRole('button', { name: 'Verify 12 rows' }).click();

  // the first try at grey.test was refused (the policy greylists once per sender and domain): the
  // job waits for that address, and says so
  await expect(page.getByTestId('job-waiting')).toContainText(/1 address waits for its server to accept another try, next at \d/, { timeout: 30_000 });
  const partial = page.waitForEvent('download');
  await page.getByTestId('download-partial').click();
  expect((await partial).suggestedFilename()).toMatch(/-partial\.csv$/);

  // the second try (after EV_GREYLIST_RETRY_MS) is accepted
  await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 60_000 });
  await expect(page.getByTestId('job-waiting')).toHaveCount(0);
  await expect(page.getByTestId('summary-deliverable').getByTestId('count')).toHaveText('11');
  const account = await page.request.get(`${server.baseUrl}/v1/account`);
  expect(await account.json()).toMatchObject({ used_today: 11 });
});
