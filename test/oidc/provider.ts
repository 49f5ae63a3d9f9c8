import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider on loopback for the single sign-on tests (test/http/oidc.test.ts, the
 * Playwright spec e2e/sso.spec.ts): the npm `oidc-provider` package with its own development login
 * and consent pages, one client registered for our callback, accounts whose claims the test sets,
 * and a hook that rewrites the ID token of the next token answers (a tampered or foreign-signed token).
 */

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login name (= subject) → claims; the login page takes any password */
  accounts: Map<string, TestAccount>;
  /** requests seen, by path */
  hits: Map<string, number>;
  /** rewrites the ID token of token answers while set */
  tamper: ((idToken: string) => string) | null;
  /** the key the provider signs ID tokens with */
  signingKey: KeyObject;
  /** registers the client for this redirect URI (the app's /api/auth/callback/oidc): the provider answers from then on */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

export function rsaKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const unb64 = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** The token's claims, without any check. */
export function claimsOf(token: string): Record<string, unknown> {
  return unb64(token.split('.')[1]!);
}

/** The token with its claims changed and signed again (RS256) with `key`, under its own header (same `kid`). */
export function resign(token: string, key: KeyObject, change: (claims: Record<string, unknown>) => Record<string, unknown> = (c) => c): string {
  const [header, payload] = token.split('.');
  const input = `${b64(unb64(header!))}.${b64(change(unb64(payload!)))}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/**
 * Starts the provider's HTTP server on 127.0.0.1 (`port`, else a free one); it answers once `register`
 * was called. `accountFor` answers logins not in `accounts` (the Playwright run: its specs run in
 * other processes and choose claims by the login they type).
 */
export async function startProvider(port = 0, accountFor: (login: string) => TestAccount | undefined = () => undefined): Promise<TestProvider> {
  let provider: Provider | null = null;
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer((req, res) => {
    if (!handler) return void res.writeHead(503).end('not registered yet');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = rsaKey();
  const state: TestProvider = {
    issuer,
    clientId: 'email-verifier',
    clientSecret: 'email-verifier-test-secret',
    accounts: new Map(),
    hits: new Map(),
    tamper: null,
    signingKey,
    register(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: state.clientId,
            client_secret: state.clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        jwks: { keys: [{ ...signingKey.export({ format: 'jwk' }), kid: 'test-signing-key', alg: 'RS256', use: 'sig' }] },
        cookies: { keys: ['oidc-test-cookie-key'] },
        // the code exchange must carry the PKCE verifier of the authorization request
        pkce: { required: () => true },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        // the claims of the scopes asked go into the ID token (as most providers do), not only userinfo
        conformIdTokenClaims: false,
        async findAccount(_ctx, id) {
          const account = state.accounts.get(id) ?? accountFor(id);
          if (!account) return undefined;
          return { accountId: id, claims: () => ({ sub: id, ...account }) };
        },
        // its development login and consent pages (on by default; named here because the tests rely on them)
        features: { devInteractions: { enabled: true } },
      });
      provider.use(async (ctx, next) => {
        state.hits.set(ctx.path, (state.hits.get(ctx.path) ?? 0) + 1);
        await next();
        const body = ctx.body as { id_token?: string } | undefined;
        if (ctx.path === '/token' && state.tamper && body && typeof body.id_token === 'string') body.id_token = state.tamper(body.id_token);
      });
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
