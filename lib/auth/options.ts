import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { AccountError } from '@/lib/accounts/users';
import { clientAddress } from './origin';
import { sessionSecret } from '@/lib/config/secret';
import { signInWithPassword } from './login';
import { SESSION_MAX_AGE_S, sessionIsCurrent } from './sessions';
import { admitOidcUser, OIDC_PROVIDER_ID, oidcProvider, oidcSettings } from './oidc';

// next-auth v4 only reads the request's Host header when told to trust it; without NEXTAUTH_URL it
// would otherwise assume http://localhost:3000 and break sign-in on any other port or host. The
// route (app/api/auth/[...nextauth]/route.ts) shows it only the headers lib/auth/origin.ts trusts.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= 'true';

/** Thrown by the jwt callback for a session signed out everywhere: next-auth then clears the cookie. */
class SessionRevoked extends Error {
  constructor() {
    super('SessionRevoked');
  }
}

// single sign-on's provider, when the operator configured one (lib/auth/oidc.ts); read at start
const sso = oidcSettings();

export const authOptions: NextAuthOptions = {
  // The same secret the API layer reads the session cookie with.
  secret: sessionSecret(),
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
  // refusals and failures land on the sign-in page, which explains their ?error= (components/auth/AuthForm.tsx)
  pages: { signIn: '/signin', error: '/signin' },
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: {
        email: { label: 'Email', type: 'email' },
        password: { label: 'Password', type: 'password' },
        // with two-factor on: a code of the authenticator app or a recovery code (lib/auth/two-factor.ts)
        code: { label: 'Two-factor code', type: 'text' },
      },
      async authorize(credentials, req) {
        if (typeof credentials?.email !== 'string' || typeof credentials.password !== 'string') return null;
        const headers = new Headers(Object.entries(req.headers ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
        try {
          const code = typeof credentials.code === 'string' ? credentials.code : undefined;
          const account = await signInWithPassword(credentials.email, credentials.password, clientAddress({ headers }), code);
          return { id: account.id, email: account.email, sessionVersion: account.sessionVersion };
        } catch (error) {
          // next-auth turns null into error=CredentialsSignin; a thrown error's message becomes the
          // error (SignInThrottled: TooManyAttempts; SecondFactorNeeded: TwoFactorRequired or
          // TwoFactorInvalid; SsoRequired); anything else is a real failure.
          if (error instanceof AccountError) return null;
          throw error;
        }
      },
    }),
    ...(sso ? [oidcProvider(sso)] : []),
  ],
  callbacks: {
    async signIn({ user, account, profile }) {
      if (account?.provider === OIDC_PROVIDER_ID) return admitOidcUser(user, profile as Parameters<typeof admitOidcUser>[1]);
      return true;
    },
    async jwt({ token, user, account }) {
      if (user) {
        token.sub = user.id;
        token.email = user.email;
        token.sv = (user as { sessionVersion?: number }).sessionVersion ?? 0;
        // how the session signed in: an organisation may refuse password sessions (lib/accounts/sso.ts)
        token.via = account?.provider === OIDC_PROVIDER_ID ? 'oidc' : 'password';
      } else if (!(await sessionIsCurrent(token))) {
        throw new SessionRevoked();
      }
      return token;
    },
    session({ session, token }) {
      if (session.user) (session.user as { id?: string }).id = token.sub;
      return session;
    },
  },
  logger: {
    error(code, metadata) {
      // A revoked session is an expected end, not a server fault.
      const cause = (metadata as { error?: unknown } | undefined)?.error ?? metadata;
      if (cause instanceof SessionRevoked) return;
      console.error(`[next-auth][error][${code}]`, metadata);
    },
    warn(code) {
      console.warn(`[next-auth][warn][${code}]`);
    },
    debug() {},
  },
};
