import { authRequestClientAddress } from './origin';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { auditSignIn } from './login';
import { env } from '../config/env';
import { db } from '../db/client';
import { personForIdentity, SsoRefused } from '../accounts/sso';
import { sessionVersion } from './sessions';

/**
 * Single sign-on through the operator's OpenID Connect provider (docs/security.md, "Single sign-on"),
 * off unless EV_OIDC_ISSUER is set. next-auth reads the issuer's discovery document for its
 * endpoints and signing keys, sends the person there with the authorization code flow, PKCE, `state`
 * and `nonce` (each kept in a signed cookie), and at the callback checks the state, exchanges the
 * code with the verifier and checks the ID token's signature (the keys of the discovered `jwks_uri`),
 * issuer, audience, expiry and nonce before anything here runs.
 */

export const OIDC_PROVIDER_ID = 'oidc';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
}

export function oidcSettings(): OidcSettings | null {
  const e = env();
  if (!e.EV_OIDC_ISSUER) return null;
  return { issuer: e.EV_OIDC_ISSUER, clientId: e.EV_OIDC_CLIENT_ID, clientSecret: e.EV_OIDC_CLIENT_SECRET, name: e.EV_OIDC_NAME };
}

interface IdTokenClaims {
  iss?: string;
  sub?: string;
  email?: string;
  email_verified?: boolean | string;
  name?: string;
}

export function oidcProvider(settings: OidcSettings): OAuthConfig<IdTokenClaims> {
  return {
    id: OIDC_PROVIDER_ID,
    name: settings.name,
    type: 'oauth',
    wellKnown: `${settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    authorization: { params: { scope: 'openid email profile' } },
    // the claims come from the ID token, verified (openid-client's callback), not from userinfo
    idToken: true,
    checks: ['pkce', 'state', 'nonce'],
    profile(claims) {
      return { id: String(claims.sub), email: claims.email ?? null, name: claims.name ?? null };
    },
  };
}

/**
 * The signIn callback's part for the provider: finds or makes the person (lib/accounts/sso.ts) and
 * makes next-auth's user that person, so the session is theirs. A refusal becomes the sign-in page's
 * ?error= (next-auth sends a thrown message to pages.error).
 */
export async function admitOidcUser(user: { id: string; email?: string | null }, claims: IdTokenClaims): Promise<true> {
  const settings = oidcSettings();
  if (!settings || typeof claims.sub !== 'string' || !claims.sub) throw new Error('OAuthCallback');
  try {
    const person = await personForIdentity(await db(), {
      issuer: claims.iss ?? settings.issuer,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      // some providers send the claim as a string
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    });
    user.id = person.id;
    user.email = person.email;
    // next-auth's signIn callback has no request: the address comes from the route's context (lib/auth/origin.ts)
    await auditSignIn(person.email, authRequestClientAddress(), null, 'oidc');
    (user as { sessionVersion?: number }).sessionVersion = (await sessionVersion(person.id, { fresh: true })) ?? 0;
    return true;
  } catch (error) {
    if (error instanceof SsoRefused) {
      if (typeof claims.email === 'string') await auditSignIn(claims.email, authRequestClientAddress(), error.code, 'oidc');
      throw new Error(error.code);
    }
    // next-auth would put the message in the URL: log it, show the page's generic failure
    console.error('[oidc] sign-in failed', error);
    throw new Error('Callback');
  }
}
