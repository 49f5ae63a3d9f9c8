import { AccountError, authenticatePassword, normalizeEmail, type Account } from '../accounts/users';
import { env } from '../config/env';
import { sessionVersion } from './sessions';
import { clearAttempts, countAttempt, uncountAttempt } from './throttle';
import { db } from '../db/client';
import { auditRow, recordAuditRows } from '../audit/record';
import { passwordSignInClosed } from '../accounts/sso';
import { spendSecondFactor, twoFactorEnabled } from './two-factor';

/** A sign-in refused because its account or address has failed too often; next-auth passes the message on. */
export class SignInThrottled extends Error {
  constructor(readonly retryAfter: number) {
    // next-auth puts this message in the sign-in page's ?error= (components/auth/AuthForm.tsx reads it).
    super(`TooManyAttempts:${retryAfter}`);
  }
}

/** A right password of a person whose organisations all turned password sign-in off (lib/accounts/sso.ts). */
export class SsoRequired extends Error {
  constructor() {
    // the sign-in page's ?error= (components/auth/AuthForm.tsx)
    super('SsoRequired');
  }
}

/**
 * A right password of a person with two-factor on, without a code or with a wrong one; next-auth
 * passes the message on (TwoFactorRequired: the sign-in page shows the code field; TwoFactorInvalid).
 */
export class SecondFactorNeeded extends Error {
  constructor(readonly reason: 'TwoFactorRequired' | 'TwoFactorInvalid') {
    super(reason);
  }
}

/**
 * Email and password sign-in, throttled per account (EV_LOGIN_MAX_FAILURES_PER_ACCOUNT) and per
 * client address (EV_LOGIN_MAX_FAILURES_PER_IP) in EV_LOGIN_WINDOW_MS. Every attempt is counted
 * before the password is checked (so parallel guesses cannot pass together) and a success takes its
 * count back; once over a limit, even the right password is refused until the window ends.
 * The account counter is keyed by the email as typed (normalized), so unknown emails are throttled
 * exactly like known ones.
 *
 * A person with two-factor on (lib/auth/two-factor.ts) also sends `code`: a TOTP code or a recovery
 * code. The right password without a code takes its attempt back and answers TwoFactorRequired (the
 * page asks for the code, and the counters are where they were: sending the password alone cannot
 * reset them); a wrong code stays counted like a wrong password; only the right code clears the
 * account's counter as a password sign-in does.
 */
export async function signInWithPassword(email: string, password: string, address: string, code?: string): Promise<Account & { sessionVersion: number }> {
  const limits = env();
  const accountKey = `login:account:${normalizeEmail(email)}`;
  const addressKey = `login:address:${address}`;
  const [account, client] = await Promise.all([countAttempt(accountKey, limits.EV_LOGIN_WINDOW_MS), countAttempt(addressKey, limits.EV_LOGIN_WINDOW_MS)]);
  if (account.count > limits.EV_LOGIN_MAX_FAILURES_PER_ACCOUNT || client.count > limits.EV_LOGIN_MAX_FAILURES_PER_IP) {
    await auditSignIn(email, address, 'throttled');
    throw new SignInThrottled(Math.max(account.retryAfter, client.retryAfter));
  }
  const database = await db();
  let signedIn: Account;
  try {
    signedIn = await authenticatePassword(database, email, password);
  } catch (error) {
    if (error instanceof AccountError) await auditSignIn(email, address, 'wrong_credentials');
    throw error;
  }
  if (await twoFactorEnabled(database, signedIn.id)) {
    // the right password alone is a step, not a refusal: the page asks for the code
    if (!code?.trim()) {
      await Promise.all([uncountAttempt(accountKey), uncountAttempt(addressKey)]);
      throw new SecondFactorNeeded('TwoFactorRequired');
    }
    if (!(await spendSecondFactor(database, signedIn.id, code))) {
      await auditSignIn(email, address, 'second_factor');
      throw new SecondFactorNeeded('TwoFactorInvalid');
    }
  }
  await Promise.all([clearAttempts(accountKey), uncountAttempt(addressKey)]);
  // the right password, but every organisation of the person signs in through single sign-on only
  if (await passwordSignInClosed(database, signedIn.id)) {
    await auditSignIn(email, address, 'sso_required');
    throw new SsoRequired();
  }
  await auditSignIn(email, address, null);
  return { ...signedIn, sessionVersion: (await sessionVersion(signedIn.id, { fresh: true })) ?? 0 };
}

/**
 * The audit log's sign-in rows (lib/audit/record.ts): one per organisation the person belongs to,
 * succeeded or refused (`refused`: why), with the client address. A refused address nobody signs in
 * with gets one row of no organisation (the operator's to read), except once throttled: a flood of
 * guesses at unknown addresses adds nothing. Single sign-on (lib/auth/oidc.ts) calls it too.
 */
export async function auditSignIn(email: string, address: string, refused: string | null, method: 'password' | 'oidc' = 'password'): Promise<void> {
  const { prisma } = await db();
  const person = await prisma.user.findUnique({ where: { email: normalizeEmail(email) }, select: { id: true, email: true } });
  if (!person && refused === 'throttled') return;
  const orgs = person ? (await prisma.membership.findMany({ where: { userId: person.id }, select: { orgId: true } })).map((m) => m.orgId) : [null];
  const actor = { userId: person?.id ?? null, keyId: null, clientAddress: address, method };
  const action = refused ? 'sign_in.failed' : 'sign_in.succeeded';
  const rows = await Promise.all(
    orgs.map(async (orgId) => ({
      ...(await auditRow(
        prisma,
        orgId,
        action,
        { type: 'person', id: person?.id ?? null, label: person?.email ?? null },
        refused ? { reason: refused } : undefined,
        actor,
      )),
      actorEmail: person?.email ?? normalizeEmail(email).slice(0, 320),
    })),
  );
  await recordAuditRows(prisma, rows);
}
