import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/client';
import { createCapped, type Tx } from '../db/capped';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { AppError, invalidRequest } from '../errors/app-error';
import { cachedKeyLookup, lastUsedDue, rememberKeyLookup } from './key-cache';
import { accountVersion, bumpAccountVersion } from './versions';
import { checksToday } from './key-budget';
import { ipRulesWithin } from './restrictions';
import { SCOPES, type KeyType, type Scope } from './scopes';
import { isRole, roleAtLeast, type Role } from './roles';
import { recordAudit } from '../audit/record';

// API keys: shown once, stored as SHA-256 (enough for 32 random bytes), listed by prefix. A key
// holds scopes and restrictions (docs/integrations.md); lib/api/key-access.ts enforces them.

function hashKey(key: string): string {
  return hash('sha256', key, 'hex'); // one-shot: no Hash object per request
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  type: KeyType;
  scopes: Scope[];
  allowed_ips: string[] | null;
  allowed_origins: string[] | null;
  expires_at: string | null;
  rate_limits: { per_visitor_per_minute: number; per_key_per_minute: number; checks_per_day: number; checks_today: number } | null;
  role: Role;
  /** who made it: their email, and whether they are still a member (keys outlive their maker's membership) */
  created_by: { user_id: string; email: string; member: boolean } | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What authentication needs to know of a live key. */
export interface KeyAccess {
  id: string;
  name: string;
  userId: string;
  type: KeyType;
  /** null: every scope */
  scopes: Scope[] | null;
  allowedIps: string[] | null;
  allowedOrigins: string[] | null;
  expiresAt: number | null;
  visitorRatePerMinute: number;
  keyRatePerMinute: number;
  /** publishable keys: charged checks per UTC day (lib/accounts/key-budget.ts) */
  checksPerDay: number;
  /** the role the key acts with (at most its maker's) and who made it (null: made by a script) */
  role: Role;
  createdBy: string | null;
}

type KeyRow = {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  type: string;
  scopes: string | null;
  allowedIps: string | null;
  allowedOrigins: string | null;
  expiresAt: Date | null;
  visitorRatePerMinute: number | null;
  keyRatePerMinute: number | null;
  checksPerDay: number | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  role: string;
  createdBy: string | null;
};

const list = (value: string | null) => (value === null ? null : value.split(',').filter(Boolean));
const joined = (values: readonly string[] | null | undefined) => (values === undefined ? undefined : values === null ? null : [...new Set(values)].join(','));

function access(row: KeyRow): KeyAccess {
  return {
    id: row.id,
    name: row.name,
    userId: row.userId,
    type: row.type as KeyType,
    scopes: list(row.scopes) as Scope[] | null,
    allowedIps: list(row.allowedIps),
    allowedOrigins: list(row.allowedOrigins),
    expiresAt: row.expiresAt?.getTime() ?? null,
    visitorRatePerMinute: row.visitorRatePerMinute ?? env().EV_PUBLISHABLE_PER_VISITOR_PER_MINUTE,
    keyRatePerMinute: row.keyRatePerMinute ?? env().EV_PUBLISHABLE_PER_KEY_PER_MINUTE,
    checksPerDay: row.checksPerDay ?? env().EV_PUBLISHABLE_CHECKS_PER_DAY,
    role: isRole(row.role) ? row.role : 'viewer',
    createdBy: row.createdBy,
  };
}

type Maker = ApiKeyInfo['created_by'];

function keyInfo(row: KeyRow, checksToday = 0, createdBy: Maker = null): ApiKeyInfo {
  const key = access(row);
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    type: key.type,
    scopes: key.scopes ?? [...SCOPES],
    allowed_ips: key.allowedIps,
    allowed_origins: key.allowedOrigins,
    expires_at: row.expiresAt?.toISOString() ?? null,
    rate_limits:
      key.type === 'publishable'
        ? {
            per_visitor_per_minute: key.visitorRatePerMinute,
            per_key_per_minute: key.keyRatePerMinute,
            checks_per_day: key.checksPerDay,
            checks_today: checksToday,
          }
        : null,
    role: key.role,
    created_by: createdBy,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export interface KeyOptions {
  name?: string;
  type?: KeyType;
  scopes?: Scope[] | null;
  allowed_ips?: string[] | null;
  allowed_origins?: string[];
  expires_at?: string | null;
  rate_limits?: { per_visitor_per_minute?: number | null; per_key_per_minute?: number | null; checks_per_day?: number | null } | null;
  role?: Role;
}

/** The columns a create or an update writes; undefined leaves a column as it is. Checks what the schema alone cannot. */
function columns(type: KeyType, options: KeyOptions, now = Date.now()) {
  if (type === 'publishable') {
    if (options.scopes && options.scopes.some((s) => s !== 'verify')) throw invalidRequest('scopes', 'scopes: a publishable key can only hold `verify`.');
  } else if (options.allowed_origins || options.rate_limits) {
    const param = options.allowed_origins ? 'allowed_origins' : 'rate_limits';
    throw invalidRequest(param, `${param}: only for publishable keys (type: "publishable").`);
  }
  const expiresAt = options.expires_at === undefined ? undefined : options.expires_at === null ? null : new Date(options.expires_at);
  if (expiresAt && expiresAt.getTime() <= now) throw invalidRequest('expires_at', 'expires_at: must be in the future.');
  const rates = options.rate_limits;
  return {
    name: options.name?.slice(0, 100),
    scopes: type === 'publishable' ? 'verify' : joined(options.scopes),
    allowedIps: joined(options.allowed_ips),
    allowedOrigins: joined(options.allowed_origins),
    expiresAt,
    // a field left out of rate_limits stays as it is; a field null gives its default back, rate_limits: null every default
    visitorRatePerMinute: rates === null ? null : rates?.per_visitor_per_minute,
    keyRatePerMinute: rates === null ? null : rates?.per_key_per_minute,
    checksPerDay: rates === null ? null : rates?.checks_per_day,
    role: options.role,
  };
}

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

function assertWithin(maker: KeyMaker, wanted: KeyBounds, doing: string): void {
  if (maker === null) return;
  const field = exceeds(maker, wanted);
  if (field === 'role')
    throw new AppError('insufficient_role', `You cannot ${doing} a key with ${WIDER.role} (${maker.role}).`, { param: 'role', role: 'owner' });
  if (field)
    throw new AppError('insufficient_scope', `A key cannot ${doing} a key with ${WIDER[field]}; sign in to the dashboard, or use a key that holds it.`, {
      param: field,
    });
}

function boundsOf(row: KeyRow): KeyBounds {
  return {
    scopes: list(row.scopes) as Scope[] | null,
    allowedIps: list(row.allowedIps),
    expiresAt: row.expiresAt?.getTime() ?? null,
    role: isRole(row.role) ? row.role : 'owner',
  };
}

/**
 * A new key; a bare string is its name (a secret key of every scope, as keys were before scopes).
 * Made by a key (`maker`), what the request leaves out is the maker's own (scopes, allowed_ips,
 * expires_at), and the result may not exceed it.
 */
export async function createApiKey(
  database: Database,
  userId: string,
  nameOrOptions: string | KeyOptions = {},
  maker: KeyMaker = null,
): Promise<{ key: string; info: ApiKeyInfo }> {
  const given = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
  const options: KeyOptions =
    maker === null
      ? given
      : {
          ...given,
          scopes: given.scopes === undefined && given.type !== 'publishable' ? maker.scopes && [...maker.scopes] : given.scopes,
          allowed_ips: given.allowed_ips === undefined ? maker.allowedIps && [...maker.allowedIps] : given.allowed_ips,
          expires_at: given.expires_at === undefined ? (maker.expiresAt === null ? null : new Date(maker.expiresAt).toISOString()) : given.expires_at,
          role: given.role ?? maker.role,
        };
  const type = options.type ?? 'secret';
  if (type === 'publishable' && !options.allowed_origins?.length)
    throw invalidRequest('allowed_origins', 'allowed_origins: a publishable key needs the origins of the pages that use it.');
  const data = columns(type, options);
  assertWithin(
    maker,
    {
      scopes: type === 'publishable' ? ['verify'] : (options.scopes ?? null),
      allowedIps: options.allowed_ips ?? null,
      expiresAt: data.expiresAt?.getTime() ?? null,
      role: data.role ?? 'owner',
    },
    'make',
  );
  const key = `${type === 'publishable' ? 'ev_pub_' : 'ev_live_'}${randomBytes(32).toString('base64url')}`;
  // an expired key is not active: it does not hold a place under the cap
  const live = { userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] };
  const cap = { what: 'active keys', limit: env().EV_MAX_ACTIVE_KEYS_PER_ACCOUNT, count: (tx: Tx) => tx.apiKey.count({ where: live }) };
  const row = await createCapped(database, userId, cap, async (tx) => {
    const created = await tx.apiKey.create({
      data: {
        ...data,
        name: data.name ?? '',
        id: newId('key'),
        userId,
        type,
        prefix: `${key.slice(0, 12)}…`,
        hash: hashKey(key),
        createdBy: maker?.personId ?? null,
      },
    });
    await recordAudit(tx, userId, 'key.created', { type: 'key', id: created.id, label: created.name }, { type, role: created.role });
    return created;
  });
  return { key, info: keyInfo(row, 0, (await makersOf(database, userId, [row.createdBy])).get(row.createdBy ?? '') ?? null) };
}

/** The people who made these keys, with whether each is still a member of the organisation. */
async function makersOf({ prisma }: Database, orgId: string, ids: (string | null)[]): Promise<Map<string, NonNullable<Maker>>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const [people, members] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: wanted } }, select: { id: true, email: true } }),
    prisma.membership.findMany({ where: { orgId, userId: { in: wanted } }, select: { userId: true } }),
  ]);
  const current = new Set(members.map((m) => m.userId));
  return new Map(people.map((p) => [p.id, { user_id: p.id, email: p.email, member: current.has(p.id) }]));
}

export async function listApiKeys(database: Database, userId: string): Promise<ApiKeyInfo[]> {
  const rows = await database.prisma.apiKey.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
  const today = await checksToday(
    database,
    rows.filter((row) => row.type === 'publishable').map((row) => row.id),
  );
  const makers = await makersOf(
    database,
    userId,
    rows.map((row) => row.createdBy),
  );
  return rows.map((row) => keyInfo(row, today.get(row.id) ?? 0, makers.get(row.createdBy ?? '') ?? null));
}

/**
 * Changes a live key's name, scopes or restrictions; null when there is no such live key of the
 * account. A key (`maker`) edits only keys within its bounds, and only into keys within them: it
 * never widens itself or another.
 */
export async function updateApiKey(database: Database, userId: string, keyId: string, options: KeyOptions, maker: KeyMaker = null): Promise<ApiKeyInfo | null> {
  if (!isIdShaped(keyId)) return null;
  const { prisma } = database;
  const row = await prisma.apiKey.findFirst({ where: { id: keyId, userId, revokedAt: null } });
  if (!row) return null;
  const data = columns(row.type as KeyType, options);
  if (row.type === 'publishable') data.scopes = undefined;
  const before = boundsOf(row);
  assertWithin(maker, before, 'edit');
  assertWithin(
    maker,
    {
      scopes: data.scopes === undefined ? before.scopes : (list(data.scopes) as Scope[] | null),
      allowedIps: data.allowedIps === undefined ? before.allowedIps : list(data.allowedIps),
      expiresAt: data.expiresAt === undefined ? before.expiresAt : (data.expiresAt?.getTime() ?? null),
      role: data.role ?? before.role,
    },
    'edit',
  );
  // the request's field names, never their values (an address block, an origin)
  const changed = Object.entries(options)
    .filter(([, value]) => value !== undefined)
    .map(([field]) => field)
    .sort()
    .join(',');
  const updated = await prisma.$transaction(async (tx) => {
    const after = await tx.apiKey.update({ where: { id: row.id }, data });
    await bumpAccountVersion(tx, database.dialect, userId);
    await recordAudit(tx, userId, 'key.updated', { type: 'key', id: after.id, label: after.name }, { fields: changed });
    return after;
  });
  const makers = await makersOf(database, userId, [updated.createdBy]);
  return keyInfo(updated, (await checksToday(database, [updated.id])).get(updated.id) ?? 0, makers.get(updated.createdBy ?? '') ?? null);
}

/** Revokes a live key of the account; false when there is none. A key (`maker`) revokes only keys within its bounds (itself included). */
export async function revokeApiKey({ prisma, dialect }: Database, userId: string, keyId: string, maker: KeyMaker = null): Promise<boolean> {
  if (!isIdShaped(keyId)) return false;
  if (maker !== null) {
    const row = await prisma.apiKey.findFirst({ where: { id: keyId, userId, revokedAt: null } });
    if (!row) return false;
    assertWithin(maker, boundsOf(row), 'revoke');
  }
  return prisma.$transaction(async (tx) => {
    const result = await tx.apiKey.updateMany({ where: { id: keyId, userId, revokedAt: null }, data: { revokedAt: new Date() } });
    if (result.count === 0) return false;
    await bumpAccountVersion(tx, dialect, userId);
    const revoked = await tx.apiKey.findUnique({ where: { id: keyId }, select: { name: true } });
    await recordAudit(tx, userId, 'key.revoked', { type: 'key', id: keyId, label: revoked?.name ?? null });
    return true;
  });
}

/** A live (not revoked) key's access, or null. The lookup is by hash (no timing leak on the key); expiry is the caller's to check. */
export async function keyAccess(database: Database, key: string): Promise<KeyAccess | null> {
  const { prisma } = database;
  const hash = hashKey(key);
  const now = Date.now();
  const since = performance.now();
  const cached = cachedKeyLookup(hash, now);
  if (cached?.key === null) return null;
  if (cached && (await accountVersion(database, cached.key.userId, since)) === cached.version) return cached.key;
  const first = await prisma.apiKey.findUnique({ where: { hash } });
  // the version is read before the row that is kept under it (./versions.ts)
  const version = first ? await accountVersion(database, first.userId) : null;
  const row = first && (await prisma.apiKey.findUnique({ where: { hash } }));
  const live = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) ? access(row) : null;
  rememberKeyLookup(hash, live, version, now);
  if (live && lastUsedDue(live.id, now)) {
    await prisma.apiKey.update({ where: { id: live.id }, data: { lastUsedAt: new Date(now) } });
  }
  return live;
}
