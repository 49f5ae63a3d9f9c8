import { AccountError, createAccount, type Account } from '../accounts/users';
import { AppError } from '../errors/app-error';
import { env } from '../config/env';
import { countAttempt, uncountAttempt } from './throttle';
import { db } from '../db/client';
import { withAuditActor } from '../audit/context';
import type { OrganisationInfo } from '../accounts/members';
import { joinWithInvitation, lookupInvitation, type InvitationPreview } from '../accounts/invitations';
import { accountAppError } from './account-errors';

// Sign-up, alone or through an invitation link, and the join page's look-up of a link: each
// throttled per client address (lib/auth/throttle.ts).

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
