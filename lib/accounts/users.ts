import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Database } from '../db/client';
import { env } from '../config/env';
import { newId } from '../db/ids';
import type { Tx } from '../db/capped';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export interface Account {
  id: string;
  email: string;
  plan: string;
  credits: number;
}

export class AccountError extends Error {
  constructor(
    readonly code: 'email_taken' | 'invalid_credentials' | 'weak_password' | 'invalid_email',
    message: string,
  ) {
    super(message);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}

/** The minimum password policy: not blank, not only spaces, at least EV_MIN_PASSWORD_LENGTH characters. */
export function checkPasswordPolicy(password: string): void {
  const min = env().EV_MIN_PASSWORD_LENGTH;
  if (password.trim() === '') throw new AccountError('weak_password', `The password cannot be blank or only spaces; use at least ${min} characters.`);
  if ([...password].length < min) throw new AccountError('weak_password', `The password needs at least ${min} characters.`);
}

/**
 * Signs a person up: their account is an organisation of one, of which they are the owner.
 * `within` runs in the same transaction once the account exists (an invitation's claim and
 * membership, lib/accounts/invitations.ts): if it throws, nothing is made.
 */
export async function createAccount(
  { prisma }: Database,
  email: string,
  password: string,
  within?: (tx: Tx, userId: string) => Promise<void>,
): Promise<Account> {
  const address = normalizeEmail(email);
  if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw new AccountError('invalid_email', 'Enter a valid email address.');
  checkPasswordPolicy(password);
  if (await prisma.user.findUnique({ where: { email: address } })) {
    throw new AccountError('email_taken', 'An account with this email already exists.');
  }
  const id = newId('usr');
  const passwordHash = await hashPassword(password);
  // every account is an organisation of one, its owner the user who signed up (docs/teams.md)
  const user = await prisma
    .$transaction(async (tx) => {
      const created = await tx.user.create({ data: { id, email: address, passwordHash } });
      await tx.membership.create({ data: { orgId: id, userId: id, role: 'owner' } });
      if (within) await within(tx, id);
      return created;
    })
    .catch((error: unknown) => {
      // two sign-ups of one address at once: the second meets the unique email
      if ((error as { code?: string }).code === 'P2002') throw new AccountError('email_taken', 'An account with this email already exists.');
      throw error;
    });
  return { id: user.id, email: user.email, plan: user.plan, credits: user.credits };
}

/** For scripts: the account for this email, created with a random password if it does not exist. */
export async function ensureAccount(database: Database, email: string): Promise<Account> {
  const existing = await database.prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  if (existing) return { id: existing.id, email: existing.email, plan: existing.plan, credits: existing.credits };
  return createAccount(database, email, randomBytes(18).toString('base64url'));
}

// An unknown email is checked against this hash, so it costs the same scrypt as a known one and the
// answer's timing does not tell which emails have accounts.
const UNKNOWN_USER_HASH = `scrypt$${randomBytes(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

export async function authenticatePassword({ prisma }: Database, email: string, password: string): Promise<Account> {
  const user = await prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  const matches = await passwordMatches(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !matches) throw new AccountError('invalid_credentials', 'Wrong email or password.');
  return { id: user.id, email: user.email, plan: user.plan, credits: user.credits };
}

/** Sets a new password after checking the current one; bumps the session version (signs out other sessions). */
export async function changePassword({ prisma }: Database, userId: string, current: string, next: string): Promise<number> {
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user || !(await passwordMatches(current, user.passwordHash))) {
    throw new AccountError('invalid_credentials', 'The current password is wrong.');
  }
  checkPasswordPolicy(next);
  const updated = await prisma.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(next), sessionVersion: { increment: 1 } },
  });
  return updated.sessionVersion;
}
