import { AppError } from '../errors/app-error';
import { type KeyAccess, type KeyRow, list } from './key-rows';
import { ipRulesWithin } from './restrictions';
import { isRole, type Role, roleAtLeast } from './roles';
import { SCOPES, type Scope } from './scopes';

/**
 * What a key may do, as far as making keys goes: its scopes (null: all), addresses (null: any),
 * expiry (null: never) and role (lib/accounts/roles.ts; left out: owner).
 */
export interface KeyBounds {
  scopes: readonly Scope[] | null;
  allowedIps: readonly string[] | null;
  expiresAt: number | null;
  role?: Role;
}

/**
 * Who makes, edits or revokes a key: null for a script, which may do anything; else the caller's
 * bounds (a dashboard session: its person's role; a key: its own bounds), beyond which it may not
 * reach, and the person it acts for (`makerOf`).
 */
export type KeyMaker = (KeyBounds & { personId: string }) | null;

/** The bounds of a request's caller as a maker of keys: its key's, or a session's role alone. */
export function makerOf(caller: { key: KeyAccess | null; role: Role; actorId: string }): NonNullable<KeyMaker> {
  const { key } = caller;
  return key
    ? { scopes: key.scopes, allowedIps: key.allowedIps, expiresAt: key.expiresAt, role: key.role, personId: caller.actorId }
    : { scopes: null, allowedIps: null, expiresAt: null, role: caller.role, personId: caller.actorId };
}

/**
 * The first field in which `wanted` goes beyond `maker`, or null when it stays within: its scopes a
 * subset of the maker's, its addresses inside the maker's blocks (none when the maker has some: any
 * address is wider), its expiry no later (never when the maker expires is later). docs/security.md,
 * "Keys that make keys".
 */
export function exceeds(maker: KeyBounds, wanted: KeyBounds): 'scopes' | 'allowed_ips' | 'expires_at' | 'role' | null {
  if (maker.role !== undefined && !roleAtLeast(maker.role, wanted.role ?? 'owner')) return 'role';
  // a key of every scope (null) is shown, and may be made, as a key listing each of them
  if (maker.scopes !== null && (wanted.scopes ?? SCOPES).some((s) => !maker.scopes!.includes(s))) return 'scopes';
  if (maker.allowedIps !== null && (wanted.allowedIps === null || !ipRulesWithin(wanted.allowedIps, maker.allowedIps))) return 'allowed_ips';
  if (maker.expiresAt !== null && (wanted.expiresAt === null || wanted.expiresAt > maker.expiresAt)) return 'expires_at';
  return null;
}

const WIDER: Record<NonNullable<ReturnType<typeof exceeds>>, string> = {
  scopes: "a scope this key does not hold (a key made by a key holds at most its maker's scopes)",
  allowed_ips: "client addresses outside this key's allowed_ips",
  expires_at: "an expiry later than this key's own",
  role: "a role above the maker's own",
};

export function assertWithin(maker: KeyMaker, wanted: KeyBounds, doing: string): void {
  if (maker === null) return;
  const field = exceeds(maker, wanted);
  if (field === 'role')
    throw new AppError('insufficient_role', `You cannot ${doing} a key with ${WIDER.role} (${maker.role}).`, { param: 'role', role: 'owner' });
  if (field)
    throw new AppError('insufficient_scope', `A key cannot ${doing} a key with ${WIDER[field]}; sign in to the dashboard, or use a key that holds it.`, {
      param: field,
    });
}

export function boundsOf(row: KeyRow): KeyBounds {
  return {
    scopes: list(row.scopes) as Scope[] | null,
    allowedIps: list(row.allowedIps),
    expiresAt: row.expiresAt?.getTime() ?? null,
    role: isRole(row.role) ? row.role : 'owner',
  };
}
