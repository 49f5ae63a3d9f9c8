import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Database } from '../db/client';
import { newId } from '../db/ids';
import { AppError } from '../errors/app-error';
import { sessionSecret } from '../config/secret';
import type { Role } from '../accounts/roles';

/**
 * Two-factor sign-in with a time-based one-time password (RFC 6238: HMAC-SHA-1, 30 s steps, 6
 * digits, a 160-bit secret shown as base32), computed by the `otpauth` package, and ten one-time
 * recovery codes (docs/security.md, "Two-factor").
 *
 * - The secret is stored encrypted (AES-256-GCM, the key derived from the session secret,
 *   lib/config/secret.ts) and is never answered again once enrolment is confirmed.
 * - A code is accepted from the previous, the current or the next 30 s step, and only once: the step
 *   it was accepted at is kept (`totp_last_step`) and a code of that step or an earlier one is
 *   refused, by one conditional UPDATE (two requests cannot both spend it).
 * - Recovery codes are 80 random bits; only their SHA-256 is kept, and each is spent by one
 *   conditional UPDATE of its `used_at`.
 */

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
export const RECOVERY_CODES = 10;
/** the name authenticator apps show beside the account (the dashboard's title, app/layout.tsx) */
const ISSUER = 'Verifier';

function encryptionKey(): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret(), Buffer.alloc(0), 'ev two-factor secret v1', 32));
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url) of the base32 secret. */
export function sealSecret(base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(), iv);
  const sealed = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The base32 secret, or null when it cannot be opened (the session secret changed since enrolment). */
export function openSecret(stored: string): string | null {
  const [version, iv, tag, sealed] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || !sealed) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey(), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

function totpOf(base32: string, label = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(base32) });
}

/** The 30 s step of a time (ms): RFC 6238's T. */
export function stepAt(now: number): number {
  return Math.floor(now / 1000 / TOTP_PERIOD_S);
}

/** The step (previous, current or next) at which `code` is right for the secret, or null. */
export function matchingStep(base32: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(base32).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : stepAt(now) + delta;
}

/** A code as a person types it: spaces and dashes dropped, letters lower-cased. */
export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

const hashCode = (code: string) =>
  createHash('sha256')
    .update(`recovery:${normalizeCode(code)}`)
    .digest('hex');

/** Ten codes of 80 random bits each, as four groups of four base32 letters (`abcd-efgh-ijkl-mnop`). */
function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const letters = new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32.toLowerCase();
    return letters.match(/.{4}/g)!.join('-');
  });
}

/**
 * The person of a dashboard session: two-factor is managed from the dashboard only, like the
 * password (app/v1/account/password/route.ts), so a leaked key cannot lead to the person's sign-in.
 */
export function sessionPerson(caller: { via: 'key' | 'session'; actorId: string }): string {
  if (caller.via !== 'session') throw new AppError('forbidden', 'Two-factor is managed from the dashboard, signed in; API keys cannot.');
  return caller.actorId;
}

export interface TwoFactorState {
  enabled: boolean;
  /** an enrolment started and not yet confirmed */
  pending: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
  /** the organisations the person belongs to that require two-factor */
  requiredBy: { id: string; name: string }[];
  /** the organisation the session acts for: whether it requires two-factor, and the person's role there (owners may change it) */
  organisation: { id: string; name: string; role: Role; requireTwoFactor: boolean };
}

export async function twoFactorState({ prisma }: Database, userId: string, acting: { orgId: string; role: Role }): Promise<TwoFactorState> {
  const org = await prisma.user.findUnique({ where: { id: acting.orgId }, select: { email: true, orgName: true, requireTwoFactor: true } });
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { totpSecret: true, totpEnabledAt: true } });
  const left = await prisma.recoveryCode.count({ where: { userId, usedAt: null } });
  return {
    enabled: Boolean(user?.totpEnabledAt),
    pending: Boolean(user?.totpSecret && !user.totpEnabledAt),
    enabledAt: user?.totpEnabledAt?.toISOString() ?? null,
    recoveryCodesLeft: user?.totpEnabledAt ? left : 0,
    requiredBy: await requiringOrganisations({ prisma } as Database, userId),
    organisation: { id: acting.orgId, name: org?.orgName ?? org?.email ?? '', role: acting.role, requireTwoFactor: Boolean(org?.requireTwoFactor) },
  };
}

async function requiringOrganisations({ prisma }: Database, userId: string): Promise<{ id: string; name: string }[]> {
  const memberships = await prisma.membership.findMany({ where: { userId }, select: { orgId: true } });
  const orgs = await prisma.user.findMany({
    where: { id: { in: memberships.map((m) => m.orgId) }, requireTwoFactor: true },
    select: { id: true, email: true, orgName: true },
  });
  return orgs.map((o) => ({ id: o.id, name: o.orgName ?? o.email }));
}

/**
 * Starts (or restarts) an enrolment: a new secret, kept pending until a code from it is confirmed.
 * Refused (409) while two-factor is on: disable it first.
 */
export async function startEnrolment({ prisma }: Database, userId: string): Promise<{ secret: string; otpauthUri: string; qrCode: string }> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { email: true, totpEnabledAt: true } });
  if (!user) throw new AppError('not_found', 'Account not found.');
  if (user.totpEnabledAt) throw new AppError('conflict', 'Two-factor is already on. Turn it off first to enrol another authenticator.');
  const secret = new Secret({ size: 20 }).base32;
  await prisma.user.update({ where: { id: userId }, data: { totpSecret: sealSecret(secret), totpLastStep: null } });
  const uri = totpOf(secret, user.email).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, otpauthUri: uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** Confirms a pending enrolment with a code from the app: two-factor is on, and ten recovery codes are answered once. */
export async function confirmEnrolment(
  { prisma }: Database,
  userId: string,
  code: string,
  now = Date.now(),
): Promise<{ recoveryCodes: string[]; enabledAt: string }> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { totpSecret: true, totpEnabledAt: true } });
  if (user?.totpEnabledAt) throw new AppError('conflict', 'Two-factor is already on.');
  const secret = user?.totpSecret ? openSecret(user.totpSecret) : null;
  if (!secret) throw new AppError('conflict', 'No enrolment is pending: start one first (POST /v1/account/two-factor).');
  const step = matchingStep(secret, normalizeCode(code), now);
  if (step === null)
    throw new AppError('invalid_request', "That code is not the one the authenticator shows now. Check the device's clock and try the next code.", {
      param: 'code',
    });
  const codes = newRecoveryCodes();
  const enabledAt = new Date(now);
  await prisma.$transaction(async (tx) => {
    // only the pending secret that was read: a restart in another tab since makes this match nothing
    const enabled = await tx.user.updateMany({
      where: { id: userId, totpSecret: user!.totpSecret, totpEnabledAt: null },
      data: { totpEnabledAt: enabledAt, totpLastStep: step },
    });
    if (enabled.count !== 1) throw new AppError('conflict', 'The enrolment changed meanwhile (started again elsewhere?): scan the new code and confirm again.');
    await tx.recoveryCode.deleteMany({ where: { userId } });
    await tx.recoveryCode.createMany({ data: codes.map((c) => ({ id: newId('rc'), userId, codeHash: hashCode(c) })) });
  });
  return { recoveryCodes: codes, enabledAt: enabledAt.toISOString() };
}

/**
 * Spends a second factor of a person with two-factor on: a TOTP code of the previous, current or
 * next step later than the last one accepted, or an unused recovery code. True when it was accepted
 * (and is now spent).
 */
export async function spendSecondFactor({ prisma }: Database, userId: string, code: string, now = Date.now()): Promise<boolean> {
  const typed = normalizeCode(code);
  if (!typed || typed.length > 64) return false;
  if (/^\d{6}$/.test(typed)) {
    const user = await prisma.user.findUnique({ where: { id: userId }, select: { totpSecret: true, totpEnabledAt: true } });
    const secret = user?.totpEnabledAt && user.totpSecret ? openSecret(user.totpSecret) : null;
    const step = secret ? matchingStep(secret, typed, now) : null;
    if (step === null) return false;
    const spent = await prisma.user.updateMany({
      where: { id: userId, totpEnabledAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return spent.count === 1;
  }
  const spent = await prisma.recoveryCode.updateMany({ where: { userId, codeHash: hashCode(typed), usedAt: null }, data: { usedAt: new Date(now) } });
  return spent.count === 1;
}

/** Whether the person has two-factor on (their sign-in then needs a code). */
export async function twoFactorEnabled({ prisma }: Database, userId: string): Promise<boolean> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { totpEnabledAt: true } });
  return Boolean(user?.totpEnabledAt);
}

/** 409 while an organisation the person belongs to requires two-factor. */
export async function assertNotRequired(database: Database, userId: string): Promise<void> {
  const required = await requiringOrganisations(database, userId);
  if (required.length) {
    throw new AppError(
      'conflict',
      `${required.map((o) => o.name).join(', ')} require${required.length === 1 ? 's' : ''} two-factor: it stays on while you belong to ${required.length === 1 ? 'it' : 'them'}.`,
    );
  }
}

/** Turns two-factor off: the secret, the replay guard and the recovery codes go. The caller has checked the person. */
export async function disableTwoFactor(database: Database, userId: string): Promise<void> {
  await assertNotRequired(database, userId);
  await database.prisma.$transaction([
    database.prisma.user.update({ where: { id: userId }, data: { totpSecret: null, totpEnabledAt: null, totpLastStep: null } }),
    database.prisma.recoveryCode.deleteMany({ where: { userId } }),
  ]);
}
