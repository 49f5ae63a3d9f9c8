import type { Database } from '../db/client';
import { env } from '../config/env';
import { newId } from '../db/ids';
import { AppError } from '../errors/app-error';
import { addMember, onMembershipChange } from './members';
import { isRole, ROLES, type Role } from './roles';
import { normalizeEmail } from './users';

/**
 * Single sign-on through OpenID Connect (docs/security.md, "Single sign-on"): who a person signed in
 * by the operator's identity provider is here, and the organisation settings that go with it (a
 * claimed email domain, the role people from it join with, password sessions refused).
 */

/** What the provider's ID token told us, as lib/auth/oidc.ts reads it. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** the `email_verified` claim: only `true` counts */
  emailVerified: boolean;
}

/** Why a sign-in through the provider is refused: the code the sign-in page explains (components/auth/AuthForm.tsx). */
export class SsoRefused extends Error {
  constructor(readonly code: 'SsoNoEmail' | 'SsoUnverifiedEmail' | 'SsoOtherIdentity') {
    super(code);
  }
}

// The password hash of a person made by single sign-on: not of the scrypt scheme, so no password
// ever matches it (lib/accounts/users.ts passwordMatches).
const NO_PASSWORD = 'sso$none';

const EMAIL = /^[^\s@]+@([^\s@]+)$/;

/** The domain part of an address, lower case, or null. */
export function emailDomain(email: string): string | null {
  return EMAIL.exec(normalizeEmail(email))?.[1] ?? null;
}

/**
 * The person a sign-in through the provider is:
 * - the one linked to this identity (issuer and subject) at an earlier sign-in, whatever the email;
 * - else, with a verified email, the person with that email (linked from now on);
 * - else a new person with no usable password. With a verified email at a domain an organisation
 *   claimed, they join that organisation with its default role (and have no organisation of their
 *   own); otherwise they get their own organisation, as a sign-up does.
 * A person linked now with a verified email at a claimed domain joins that organisation too (keeping
 * a higher role they have). Joining happens once, at the link: someone an admin removes later is not
 * put back by their next sign-in. An unverified email never links to an existing person nor joins a
 * claimed domain's organisation.
 */
export async function personForIdentity(database: Database, identity: OidcIdentity): Promise<{ id: string; email: string }> {
  const { prisma } = database;
  const subject = `${identity.issuer} ${identity.subject}`;
  const linked = await prisma.user.findUnique({ where: { oidcSubject: subject }, select: { id: true, email: true } });
  if (linked) return linked;

  const email = identity.email ? normalizeEmail(identity.email) : '';
  const domain = emailDomain(email);
  if (!domain) throw new SsoRefused('SsoNoEmail');
  const claimed = identity.emailVerified ? await prisma.user.findUnique({ where: { ssoDomain: domain }, select: { id: true, ssoDefaultRole: true } }) : null;
  const role: Role = claimed?.ssoDefaultRole && isRole(claimed.ssoDefaultRole) ? claimed.ssoDefaultRole : 'member';

  try {
    return await prisma.$transaction(async (tx) => {
      const existing = await tx.user.findUnique({ where: { email }, select: { id: true, email: true, oidcSubject: true } });
      if (existing) {
        if (!identity.emailVerified) throw new SsoRefused('SsoUnverifiedEmail');
        // linked to another identity of the provider already: one person, one identity
        if (existing.oidcSubject !== null) throw new SsoRefused('SsoOtherIdentity');
        await tx.user.update({ where: { id: existing.id }, data: { oidcSubject: subject } });
        if (claimed) await addMember(tx, claimed.id, existing.id, role);
        return { id: existing.id, email: existing.email };
      }
      const id = newId('usr');
      await tx.user.create({ data: { id, email, passwordHash: NO_PASSWORD, oidcSubject: subject } });
      if (claimed) await addMember(tx, claimed.id, id, role);
      else await tx.membership.create({ data: { orgId: id, userId: id, role: 'owner' } });
      return { id, email };
    });
  } catch (error) {
    // the same person's two first sign-ins at once: the second meets the first's row
    if ((error as { code?: string }).code === 'P2002') {
      const again = await prisma.user.findUnique({ where: { oidcSubject: subject }, select: { id: true, email: true } });
      if (again) return again;
    }
    throw error;
  }
}

export interface SsoSettings {
  ssoDomain: string | null;
  ssoDefaultRole: Role;
  passwordSignIn: boolean;
}

export interface SsoChange {
  sso_domain?: string | null;
  sso_default_role?: Role;
  password_sign_in?: boolean;
}

export async function ssoSettings({ prisma }: Database, orgId: string): Promise<SsoSettings> {
  const row = await prisma.user.findUnique({ where: { id: orgId }, select: { ssoDomain: true, ssoDefaultRole: true, passwordSignIn: true } });
  return {
    ssoDomain: row?.ssoDomain ?? null,
    ssoDefaultRole: row?.ssoDefaultRole && isRole(row.ssoDefaultRole) ? row.ssoDefaultRole : 'member',
    passwordSignIn: row?.passwordSignIn ?? true,
  };
}

/**
 * An owner's change of the organisation's sign-in settings (PATCH /v1/organisation):
 * - `sso_domain`: only a domain of the owner's own email address (so nobody claims a domain they do
 *   not belong to, e.g. a public mail provider's for strangers), and one organisation per domain (409);
 * - `password_sign_in: false`: only once single sign-on works: the installation has it configured and
 *   the owner is making this change from a session signed in through it (409 otherwise), so the
 *   owner cannot lock everyone out.
 */
export async function updateSsoSettings(
  database: Database,
  orgId: string,
  actor: { id: string; signIn: 'password' | 'oidc' | null },
  change: SsoChange,
  ssoConfigured: boolean,
): Promise<SsoSettings> {
  const { prisma } = database;
  const data: { ssoDomain?: string | null; ssoDefaultRole?: string; passwordSignIn?: boolean } = {};
  if (change.sso_domain !== undefined) {
    const domain = change.sso_domain === null ? null : change.sso_domain.trim().toLowerCase().replace(/^@/, '');
    if (domain !== null) {
      const person = await prisma.user.findUnique({ where: { id: actor.id }, select: { email: true } });
      if (!person || emailDomain(person.email) !== domain) {
        throw new AppError('forbidden', `You can claim only your own email's domain (${person ? emailDomain(person.email) : 'none'}).`, {
          param: 'sso_domain',
        });
      }
      const holder = await prisma.user.findUnique({ where: { ssoDomain: domain }, select: { id: true } });
      if (holder && holder.id !== orgId) throw new AppError('conflict', `Another organisation has claimed ${domain}.`, { param: 'sso_domain' });
    }
    data.ssoDomain = domain;
  }
  if (change.sso_default_role !== undefined) data.ssoDefaultRole = change.sso_default_role;
  if (change.password_sign_in !== undefined) {
    if (change.password_sign_in === false && (!ssoConfigured || actor.signIn !== 'oidc')) {
      throw new AppError(
        'conflict',
        ssoConfigured
          ? 'Sign in through single sign-on first: password sign-in can be turned off only from a session that signed in through it.'
          : 'Single sign-on is not configured on this installation (EV_OIDC_ISSUER): password sign-in cannot be turned off.',
        { param: 'password_sign_in' },
      );
    }
    data.passwordSignIn = change.password_sign_in;
  }
  try {
    await prisma.user.update({ where: { id: orgId }, data });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002')
      throw new AppError('conflict', `Another organisation has claimed ${data.ssoDomain}.`, { param: 'sso_domain' });
    throw error;
  }
  passwordSessions.delete(orgId);
  return ssoSettings(database, orgId);
}

/** The role names an owner may give people joining by domain (never owner: that is handed over by an owner). */
export const SSO_ROLES = ROLES.filter((role) => role !== 'owner') as Exclude<Role, 'owner'>[];

/**
 * Whether the installation has single sign-on (EV_OIDC_ISSUER). An organisation's
 * `password_sign_in: false` holds only while it does: if the operator turns single sign-on off,
 * password sign-in is the only way in and works again for everyone.
 */
function ssoConfigured(): boolean {
  return env().EV_OIDC_ISSUER !== '';
}

// Whether an organisation admits password sessions, cached briefly like memberships (lib/auth/organisation.ts).
const passwordSessions = new Map<string, { allowed: boolean; until: number }>();
onMembershipChange((orgId) => passwordSessions.delete(orgId));
const CACHE_MS = 2_000;

/**
 * A session signed in by password acting for an organisation that turned password sign-in off is
 * refused (403 `sso_required`): its members act for it only from sessions signed in through single
 * sign-on. Their other organisations, and API keys, are not affected.
 */
export async function assertSignInMethodAllowed(database: Database, orgId: string, signIn: 'password' | 'oidc'): Promise<void> {
  if (signIn === 'oidc' || !ssoConfigured()) return;
  const now = Date.now();
  let hit = passwordSessions.get(orgId);
  if (!hit || hit.until <= now) {
    const row = await database.prisma.user.findUnique({ where: { id: orgId }, select: { passwordSignIn: true } });
    hit = { allowed: row?.passwordSignIn ?? true, until: now + CACHE_MS };
    if (passwordSessions.size > 10_000) passwordSessions.clear();
    passwordSessions.set(orgId, hit);
  }
  if (!hit.allowed) {
    throw new AppError(
      'sso_required',
      'This organisation signs in through single sign-on only: sign out, then sign in with its button. Your other organisations are still open to this session.',
    );
  }
}

/** Whether every organisation the person belongs to refuses password sessions (then password sign-in itself is refused). */
export async function passwordSignInClosed({ prisma }: Database, userId: string): Promise<boolean> {
  if (!ssoConfigured()) return false;
  const rows = await prisma.membership.findMany({ where: { userId }, select: { orgId: true } });
  if (rows.length === 0) return false;
  const open = await prisma.user.count({ where: { id: { in: rows.map((r) => r.orgId) }, passwordSignIn: true } });
  return open === 0;
}
