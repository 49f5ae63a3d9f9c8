import { randomBytes } from 'node:crypto';
import type { Database } from '../db/client';
import { createCapped, type Tx } from '../db/capped';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { invalidRequest } from '../errors/app-error';
import { bumpAccountVersion } from './versions';
import { checksToday } from './key-budget';
import type { KeyType, Scope } from './scopes';
import type { Role } from './roles';
import { recordAudit } from '../audit/record';
import { assertWithin, boundsOf, type KeyMaker } from './key-bounds';
import { hashKey, joined, keyInfo, list, type ApiKeyInfo, type Maker } from './key-rows';

export type { ApiKeyInfo, KeyAccess } from './key-rows';
export { exceeds, makerOf, type KeyBounds, type KeyMaker } from './key-bounds';
export { keyAccess } from './key-lookup';

// API keys: shown once, stored as SHA-256 (enough for 32 random bytes), listed by prefix. A key
// holds scopes and restrictions (docs/integrations.md); lib/api/key-access.ts enforces them.

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
    if (options.scopes?.some((s) => s !== 'verify')) throw invalidRequest('scopes', 'scopes: a publishable key can only hold `verify`.');
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
  return new Map(people.map((p) => [p.id, { userId: p.id, email: p.email, member: current.has(p.id) }]));
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
