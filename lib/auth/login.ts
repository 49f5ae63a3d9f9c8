import { AccountError, authenticatePassword, changePassword, createAccount, normalizeEmail, type Account } from '../accounts/users';
import { AppError } from '../errors/app-error';
import { env } from '../config/env';
import { forgetSessionVersion, sessionVersion } from './sessions';
import { clearAttempts, countAttempt, uncountAttempt } from './throttle';
import { db } from '../db/client';
import { auditRow, recordAuditRows } from '../audit/record';
import { withAuditActor } from '../audit/context';
import { passwordSignInClosed } from '../accounts/sso';
import { assertNotRequired, disableTwoFactor, spendSecondFactor, twoFactorEnabled } from './two-factor';
import type { OrganisationInfo } from '../accounts/members';
import { joinWithInvitation, lookupInvitation, type InvitationPreview } from '../accounts/invitations';

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

/** Counts a sign-up from `address`: at most EV_SIGNUPS_PER_IP in EV_SIGNUP_WINDOW_MS (429 past it). */
async function takeSignUp(address: string): Promise<void> {
  const { EV_SIGNUPS_PER_IP: limit, EV_SIGNUP_WINDOW_MS: windowMs } = env();
  const attempt = await countAttempt(`signup:address:${address}`, windowMs);
  if (attempt.count > limit) {
    throw new AppError(
      'rate_limit',
      `Too many sign-ups from this address (${limit} per ${Math.round(windowMs / 60_000)} minutes). Retry in ${attempt.retryAfter} s.`,
      { retry_after: attempt.retryAfter },
      { 'Retry-After': String(attempt.retryAfter) },
    );
  }
}

/** Sign-up, at most EV_SIGNUPS_PER_IP per client address in EV_SIGNUP_WINDOW_MS. */
export async function signUp(email: string, password: string, address: string): Promise<Account> {
  await takeSignUp(address);
  try {
    return await createAccount(await db(), email, password);
  } catch (error) {
    if (error instanceof AccountError) throw accountAppError(error);
    throw error;
  }
}

/** A new person joins through an invitation link: a sign-up (same limit, same password policy) and the membership at once. */
export async function signUpWithInvitation(token: string, password: string, address: string): Promise<{ email: string; organisation: OrganisationInfo }> {
  await takeSignUp(address);
  try {
    // the audit row of the join names the page's client address (lib/accounts/invitations.ts)
    return await withAuditActor({ userId: null, keyId: null, clientAddress: address, method: 'invitation' }, async () =>
      joinWithInvitation(await db(), token, password),
    );
  } catch (error) {
    if (error instanceof AccountError) throw accountAppError(error);
    throw error;
  }
}

/**
 * The join page's look-up of a link: links that cannot be used count against the client address
 * as failed sign-ins do (EV_LOGIN_MAX_FAILURES_PER_IP per EV_LOGIN_WINDOW_MS), so nobody can go
 * through made-up tokens at speed (32 random bytes are not guessed anyway; this bounds the load).
 */
export async function lookUpInvitationThrottled(token: string, address: string): Promise<InvitationPreview> {
  const limits = env();
  const key = `invitation:address:${address}`;
  const attempt = await countAttempt(key, limits.EV_LOGIN_WINDOW_MS);
  if (attempt.count > limits.EV_LOGIN_MAX_FAILURES_PER_IP) {
    throw new AppError(
      'rate_limit',
      `Too many invalid invitation links from this address. Retry in ${attempt.retryAfter} s.`,
      { retry_after: attempt.retryAfter },
      { 'Retry-After': String(attempt.retryAfter) },
    );
  }
  const preview = await lookupInvitation(await db(), token);
  await uncountAttempt(key);
  return preview;
}

/** Account errors in the API's envelope: the field at fault as `param`. */
export function accountAppError(error: AccountError): AppError {
  switch (error.code) {
    case 'email_taken':
      return new AppError('conflict', error.message, { param: 'email' });
    case 'invalid_email':
      return new AppError('invalid_request', error.message, { param: 'email' });
    case 'weak_password':
      return new AppError('invalid_request', error.message, { param: 'password' });
    case 'invalid_credentials':
      return new AppError('invalid_request', error.message, { param: 'current_password' });
  }
}

/**
 * A password change from a signed-in session: the current password is checked under the same
 * per-account limit as sign-in (a stolen session cannot guess it faster than a sign-in could). Every
 * session, this one included, is then behind the new version; the caller re-issues this one.
 */
export async function changePasswordThrottled(userId: string, current: string, next: string): Promise<number> {
  const limits = env();
  const key = `password:user:${userId}`;
  const attempt = await countAttempt(key, limits.EV_LOGIN_WINDOW_MS);
  if (attempt.count > limits.EV_LOGIN_MAX_FAILURES_PER_ACCOUNT) {
    throw new AppError(
      'rate_limit',
      `Too many wrong passwords. Retry in ${attempt.retryAfter} s.`,
      { retry_after: attempt.retryAfter },
      { 'Retry-After': String(attempt.retryAfter) },
    );
  }
  try {
    const version = await changePassword(await db(), userId, current, next);
    forgetSessionVersion(userId);
    await clearAttempts(key);
    return version;
  } catch (error) {
    if (error instanceof AccountError) throw accountAppError(error);
    throw error;
  }
}

/**
 * Turns the person's two-factor off after checking a code of the app, a recovery code or the
 * password, under the same per-account limit as a password change (a stolen session cannot guess
 * faster than a sign-in could). A pending enrolment is simply dropped.
 */
export async function disableTwoFactorThrottled(userId: string, proof: { code?: string; current_password?: string }): Promise<void> {
  const database = await db();
  const user = await database.prisma.user.findUnique({ where: { id: userId }, select: { email: true, totpSecret: true, totpEnabledAt: true } });
  if (!user?.totpEnabledAt) {
    if (!user?.totpSecret) throw new AppError('conflict', 'Two-factor is not on.');
    await database.prisma.user.update({ where: { id: userId }, data: { totpSecret: null, totpLastStep: null } });
    return;
  }
  // refused before the proof is checked, so a recovery code is not spent on a refusal
  await assertNotRequired(database, userId);
  if (!proof.code && proof.current_password === undefined) {
    throw new AppError('invalid_request', 'Send a `code` of the authenticator app (or a recovery code), or `current_password`.', { param: 'code' });
  }
  const limits = env();
  const key = `password:user:${userId}`;
  const attempt = await countAttempt(key, limits.EV_LOGIN_WINDOW_MS);
  if (attempt.count > limits.EV_LOGIN_MAX_FAILURES_PER_ACCOUNT) {
    throw new AppError(
      'rate_limit',
      `Too many wrong codes or passwords. Retry in ${attempt.retryAfter} s.`,
      { retry_after: attempt.retryAfter },
      { 'Retry-After': String(attempt.retryAfter) },
    );
  }
  if (proof.code) {
    if (!(await spendSecondFactor(database, userId, proof.code)))
      throw new AppError('invalid_request', 'That code is wrong or was used already.', { param: 'code' });
  } else {
    try {
      await authenticatePassword(database, user.email, proof.current_password!);
    } catch (error) {
      if (error instanceof AccountError) throw new AppError('invalid_request', 'The current password is wrong.', { param: 'current_password' });
      throw error;
    }
  }
  await clearAttempts(key);
  await disableTwoFactor(database, userId);
}
