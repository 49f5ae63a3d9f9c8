import { hash } from 'node:crypto';
import { env } from '../config/env';
import { isRole, type Role } from './roles';
import { type KeyType, SCOPES, type Scope } from './scopes';

// An API key's row as authentication reads it (KeyAccess) and as the API shows it (ApiKeyInfo):
// stored as SHA-256 (enough for 32 random bytes), listed by prefix.

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex'); // one-shot: no Hash object per request
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  type: KeyType;
  scopes: Scope[];
  allowedIps: string[] | null;
  allowedOrigins: string[] | null;
  expiresAt: string | null;
  rateLimits: { perVisitorPerMinute: number; perKeyPerMinute: number; checksPerDay: number; checksToday: number } | null;
  role: Role;
  /** who made it: their email, and whether they are still a member (keys outlive their maker's membership) */
  createdBy: { userId: string; email: string; member: boolean } | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
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

export type KeyRow = {
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

export const list = (value: string | null) => (value === null ? null : value.split(',').filter(Boolean));
export const joined = (values: readonly string[] | null | undefined) =>
  values === undefined ? undefined : values === null ? null : [...new Set(values)].join(',');

export function access(row: KeyRow): KeyAccess {
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

export type Maker = ApiKeyInfo['createdBy'];

export function keyInfo(row: KeyRow, checksToday = 0, createdBy: Maker = null): ApiKeyInfo {
  const key = access(row);
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    type: key.type,
    scopes: key.scopes ?? [...SCOPES],
    allowedIps: key.allowedIps,
    allowedOrigins: key.allowedOrigins,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    rateLimits:
      key.type === 'publishable'
        ? {
            perVisitorPerMinute: key.visitorRatePerMinute,
            perKeyPerMinute: key.keyRatePerMinute,
            checksPerDay: key.checksPerDay,
            checksToday,
          }
        : null,
    role: key.role,
    createdBy,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
