import { afterAll, describe, expect, it } from 'vitest';
import * as history from '@/app/v1/history/route';
import * as members from '@/app/v1/members/route';
import * as single from '@/app/v1/verify/single/route';
import { openDatabase, useDatabase, type Database } from '@/lib/db/client';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { grantCredits, reserve } from '@/lib/accounts/quota';
import { auditCredits } from '@/lib/accounts/audit';
import { q } from '@/lib/db/sql';
import { DIALECTS, freshDatabaseUrl } from '../databases';
import { call, sessionCookie } from './harness';

/**
 * Issue 30, item 1: existing accounts become organisations of one, their owner being the user, with
 * nothing lost or renumbered. A database as the previous release left it (this release's rows, then
 * the teams migration undone: its tables and columns dropped, its record deleted) holds two accounts
 * with credits, a charged check, keys and an open reservation; the next start migrates it. Every
 * account is then an organisation of the same id owned by its user, every key still works (acting
 * as the owner that made it), sessions act for the account as before, and `audit-credits` holds
 * before and after.
 */
const MIGRATION = '20261128120000_teams';

describe.each(DIALECTS)('the teams upgrade (%s)', (dialect) => {
  let drop: (() => Promise<void>) | undefined;
  let database: Database | null = null;
  const saved = { DATABASE_URL: process.env.DATABASE_URL, EV_FREE_DAILY: process.env.EV_FREE_DAILY };
  afterAll(async () => {
    await database?.prisma.$disconnect();
    await drop?.();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('turns every account into an organisation of one, owned by its user, and loses nothing', async () => {
    process.env.EV_FREE_DAILY = '0';
    const fresh = await freshDatabaseUrl(dialect);
    drop = fresh.drop;
    // ---- the previous release's state ----
    const old = await openDatabase(fresh.url);
    const accounts = [await ensureAccount(old, 'first@example.com'), await ensureAccount(old, 'second@example.com')];
    const keys: string[] = [];
    for (const [i, account] of accounts.entries()) {
      await grantCredits(old, account.id, 100 + i);
      keys.push((await createApiKey(old, account.id, { name: 'old key', scopes: ['verify', 'history', 'account'] })).key);
    }
    await reserve(old, accounts[0]!.id, 3, 'chk_open_before_upgrade');
    const before = await auditCredits(old);
    expect(before.problems).toEqual([]);
    const balances = await old.prisma.user.findMany({ select: { id: true, email: true, credits: true }, orderBy: { email: 'asc' } });
    const keyRows = await old.prisma.apiKey.findMany({ select: { id: true, userId: true, hash: true }, orderBy: { id: 'asc' } });
    for (const statement of [
      'DROP TABLE memberships',
      'DROP TABLE invitations',
      'DROP TABLE member_usage_days',
      'ALTER TABLE api_keys DROP COLUMN created_by',
      'ALTER TABLE api_keys DROP COLUMN role',
      'ALTER TABLE users DROP COLUMN org_name',
    ])
      await old.prisma.$executeRawUnsafe(statement);
    expect(await old.prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM _prisma_migrations WHERE migration_name = ?'), MIGRATION)).toBe(1);
    await old.prisma.$disconnect();

    // ---- the new release starts on it ----
    process.env.DATABASE_URL = fresh.url;
    database = await useDatabase(fresh.url);
    const { prisma } = database;
    expect(await prisma.user.findMany({ select: { id: true, email: true, credits: true }, orderBy: { email: 'asc' } })).toEqual(balances);
    expect(await prisma.apiKey.findMany({ select: { id: true, userId: true, hash: true }, orderBy: { id: 'asc' } })).toEqual(keyRows);
    for (const account of accounts) {
      expect(await prisma.membership.findMany({ where: { orgId: account.id }, select: { userId: true, role: true } })).toEqual([
        { userId: account.id, role: 'owner' },
      ]);
      expect(await prisma.apiKey.findMany({ where: { userId: account.id }, select: { createdBy: true, role: true } })).toEqual([
        { createdBy: account.id, role: 'owner' },
      ]);
    }
    const after = await auditCredits(database);
    expect(after.problems).toEqual([]);
    expect(after.accounts).toBe(before.accounts);

    // the old keys and a session act for the same account as before
    for (const [i, key] of keys.entries()) {
      const checked = await call(single.POST, { key, sandbox: false, path: '/v1/verify/single', body: { email: `someone${i}@example.com` } });
      expect(checked.status, `key ${i}: ${checked.text}`).not.toBe(403);
      expect((await call(history.GET, { key, path: '/v1/history' })).status).toBe(200);
    }
    const session = await call(members.GET, { key: null, path: '/v1/members', headers: { cookie: await sessionCookie(database, accounts[1]!.id) } });
    expect(session.json.data).toEqual([expect.objectContaining({ user_id: accounts[1]!.id, email: 'second@example.com', role: 'owner' })]);
    expect((await auditCredits(database)).problems).toEqual([]);
  });
});
