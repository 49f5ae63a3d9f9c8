import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices } from '@playwright/test';

// Runs against the built app (`next build` + `next start`) with a fresh SQLite file per run.
// The config is loaded again in every worker; the first load's values travel through the environment.
const port = Number((process.env.E2E_PORT ??= '3217'));
process.env.E2E_DB ??= `file:./data/e2e-${randomBytes(4).toString('hex')}.db`;
const baseURL = `http://127.0.0.1:${port}`;
// The app's mail relay is the local SMTP server globalSetup starts (e2e/mail-sink.ts); it writes
// every message it receives to E2E_MAIL_DIR, where a spec reads an invitation's link (e2e/mail.ts).
const smtpPort = Number((process.env.E2E_SMTP_PORT ??= String(port + 1)));
process.env.E2E_MAIL_DIR ??= join(tmpdir(), `ev-e2e-mail-${randomBytes(4).toString('hex')}`);
// the OpenID Provider e2e/sso-provider.ts starts for single sign-on (e2e/sso.spec.ts)
const oidcPort = Number((process.env.E2E_OIDC_PORT ??= '3227'));

// E2E_SKIP_BUILD=1 reuses the last build when only the tests changed.
const build = process.env.E2E_SKIP_BUILD ? '' : 'npm run build && ';
const chromium = { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 860 } };

// Specs whose bounds a second browser beside them stretches run after the others, with nothing
// beside them. large-list bounds the page's longest main-thread task while it summarises 100,000
// rows at 5 s: 0.7 s alone, 3.0-3.3 s with another spec's browser beside it on the shared 2-core
// machine (load average 10). docs renders the whole API reference, the heaviest page, within
// 15 s expect timeouts: 4.6 s alone, 8-9 s beside another.
// (`npx playwright test e2e/docs.spec.ts --no-deps` runs one of them without the others first)
const ALONE = ['**/large-list.spec.ts', '**/docs.spec.ts'];

export default defineConfig({
  testDir: './e2e',
  globalSetup: ['./e2e/mail-sink.ts', './e2e/sso-provider.ts'],
  timeout: 180_000,
  expect: { timeout: 15_000 },
  // two spec files at a time (each signs up its own account; greylisting starts its own server and
  // peers); the specs in ALONE run after them, one at a time
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    viewport: { width: 1280, height: 860 },
    trace: 'retain-on-failure',
    acceptDownloads: true,
    launchOptions: {
      executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  projects: [
    { name: 'chromium', testIgnore: ALONE, use: chromium },
    { name: 'alone', testMatch: ALONE, dependencies: ['chromium'], workers: 1, use: chromium },
  ],
  webServer: {
    // Node's 5 s keep-alive timeout races a spec's request (page.request) that reuses a connection
    // idle that long: the server closes it as the request goes out (read ECONNRESET, seen under load);
    // two minutes outlasts every pause within a spec
    command: `${build}npx next start -p ${port} -H 127.0.0.1 --keepAliveTimeout 120000`,
    url: `${baseURL}/signin`,
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      DATABASE_URL: process.env.E2E_DB,
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      NEXTAUTH_SECRET: 'e2e-secret-not-for-production',
      // Every spec signs up from 127.0.0.1, one shared bucket without a trusted proxy (README, "Accounts").
      EV_SIGNUPS_PER_IP: '1000',
      NODE_ENV: 'production',
      EV_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      EV_INVITATION_FROM: 'Verifier <verifier@example.test>',
      EV_OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
      EV_OIDC_CLIENT_ID: 'email-verifier',
      EV_OIDC_CLIENT_SECRET: 'email-verifier-test-secret',
      EV_OIDC_NAME: 'Acme ID',
    },
  },
});
