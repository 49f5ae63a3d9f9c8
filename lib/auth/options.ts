import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { AccountError, authenticatePassword } from '@/lib/accounts';
import { sessionSecret } from '@/lib/secret';

// next-auth v4 only reads the request's Host header when told to trust it; without NEXTAUTH_URL it
// would otherwise assume http://localhost:3000 and break sign-in on any other port or host.
// Set NEXTAUTH_URL in production behind a proxy you do not control.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= 'true';

export const authOptions: NextAuthOptions = {
  // The same secret the API layer reads the session cookie with.
  secret: sessionSecret(),
  session: { strategy: 'jwt', maxAge: 30 * 24 * 3600 },
  pages: { signIn: '/signin' },
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: {
        email: { label: 'Email', type: 'email' },
        password: { label: 'Password', type: 'password' },
      },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        try {
          const account = await authenticatePassword(credentials.email, credentials.password);
          return { id: account.id, email: account.email };
        } catch (error) {
          // next-auth turns null into error=CredentialsSignin; anything else is a real failure.
          if (error instanceof AccountError) return null;
          throw error;
        }
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
    session({ session, token }) {
      if (session.user) (session.user as { id?: string }).id = token.sub;
      return session;
    },
  },
};
