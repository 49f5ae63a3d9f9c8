import { AccountError, authenticatePassword, changePassword } from '../accounts/users';
import { AppError } from '../errors/app-error';
import { env } from '../config/env';
import { forgetSessionVersion } from './sessions';
import { clearAttempts, countAttempt } from './throttle';
import { db } from '../db/client';
import { assertNotRequired, disableTwoFactor, spendSecondFactor } from './two-factor';
import { accountAppError } from './account-errors';

// A signed-in person's own credentials: the password changed, two-factor turned off. Each asks for
// proof again (the current password, or a code) under the per-account limit of sign-in, so a stolen
// session cannot guess faster than a sign-in could.

/**
 * Counts one proof attempt of the person under sign-in's per-account limit, refused (429) past it;
 * the counter's key, cleared when the proof holds.
 */
async function takeProofAttempt(userId: string, what: string): Promise<string> {
  const limits = env();
  const key = `password:user:${userId}`;
  const attempt = await countAttempt(key, limits.EV_LOGIN_WINDOW_MS);
  if (attempt.count > limits.EV_LOGIN_MAX_FAILURES_PER_ACCOUNT) {
    throw new AppError(
      'rate_limit',
      `Too many wrong ${what}. Retry in ${attempt.retryAfter} s.`,
      { retry_after: attempt.retryAfter },
      { 'Retry-After': String(attempt.retryAfter) },
    );
  }
  return key;
}

/**
 * A password change from a signed-in session: the current password is checked under the same
 * per-account limit as sign-in (a stolen session cannot guess it faster than a sign-in could). Every
 * session, this one included, is then behind the new version; the caller re-issues this one.
 */
export async function changePasswordThrottled(userId: string, current: string, next: string): Promise<number> {
  const key = await takeProofAttempt(userId, 'passwords');
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
  const key = await takeProofAttempt(userId, 'codes or passwords');
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
