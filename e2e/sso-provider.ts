import { startProvider } from '../test/oidc/provider';

/**
 * Playwright's global setup (playwright.config.ts): a real OpenID Provider (test/oidc/provider.ts) on
 * the fixed loopback port the web server's EV_OIDC_ISSUER names, for e2e/sso.spec.ts. A login is the
 * email it signs in with; one starting with `unverified` comes without `email_verified`.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const idp = await startProvider(Number(process.env.E2E_OIDC_PORT), (login) =>
    login.includes('@') ? { email: login, email_verified: !login.startsWith('unverified') } : undefined,
  );
  idp.register(`http://127.0.0.1:${process.env.E2E_PORT}/api/auth/callback/oidc`);
  return () => idp.close();
}
