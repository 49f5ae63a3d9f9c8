import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import { createApiKey } from '@/lib/accounts/keys';
import { openDatabase, type Database } from '@/lib/db/client';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

/**
 * The sandbox single check's hot path (issue 34 item 2): the statements it sends to the database,
 * counted where they leave the process (better-sqlite3's statements, which the Prisma adapter uses
 * too; pg's Client.query), and per-account data that rarely changes (rules, a key's restrictions
 * and limits) cached per process yet seen at once when another process changes it.
 */
function countStatements(dialect: 'sqlite' | 'postgres') {
  const spies =
    dialect === 'sqlite'
      ? (() => {
          const probe = new BetterSqlite3(':memory:');
          const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
          probe.close();
          return (['all', 'get', 'run', 'iterate'] as const).map((name) => vi.spyOn(Statement, name));
        })()
      : [vi.spyOn(pg.Client.prototype, 'query')];
  // a transaction's BEGIN and COMMIT on the direct SQLite connection travel nowhere: not counted
  const control = /^\s*(BEGIN|COMMIT|END|SAVEPOINT|RELEASE|ROLLBACK)\b/i;
  return {
    get count() {
      return spies.reduce((sum, spy) => sum + (spy.mock.contexts as { source?: string }[]).filter((c) => !control.test(c?.source ?? '')).length, 0);
    },
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

describe.each(DIALECTS)('the sandbox single check on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  /** another process: its own connections to the same database and its own copies of the modules that write (no cache in common) */
  let other: Database;
  let writer: { keys: typeof import('@/lib/accounts/keys'); rules: typeof import('@/lib/rules/store'); erase: typeof import('@/lib/retention/erase') };

  beforeAll(async () => {
    ctx = await setup(dialect);
    other = await openDatabase(process.env.DATABASE_URL!);
    vi.resetModules();
    writer = { keys: await import('@/lib/accounts/keys'), rules: await import('@/lib/rules/store'), erase: await import('@/lib/retention/erase') };
  });
  afterAll(async () => {
    await other?.prisma.$disconnect();
    await ctx?.teardown();
  });

  const check = (email: string, options: { key?: string | null; path?: string; headers?: Record<string, string> } = {}) =>
    call(single.POST, {
      key: options.key === undefined ? ctx.key : options.key,
      path: options.path ?? '/v1/verify/single',
      headers: options.headers,
      body: { email },
    });

  it('sends one version read and its share of the history insert per request', async () => {
    expect((await check('valid.warm@example.com')).status).toBe(200);
    const one = countStatements(dialect);
    try {
      expect((await check('valid.one@example.com')).status).toBe(200);
      const sequential = one.count;
      const before = one.count;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => check(`valid.c${i}@example.com`)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      const concurrent = one.count - before;
      console.log(`[hot path ${dialect}] statements: 1 request ${sequential}; 10 concurrent requests ${concurrent}`);
      // the account's version read and the history rows' insert, shared by requests that arrive
      // together (before the cache: a rule read per request besides, 2 and 11 on either database)
      expect(sequential).toBe(2);
      expect(concurrent).toBeLessThanOrEqual(3);
    } finally {
      one.restore();
    }
    // the history rows stay written
    const rows = await ctx.database.prisma.verification.count({ where: { userId: ctx.account.id, source: 'single' } });
    expect(rows).toBe(12);
  });

  it('honours a rule added or deleted by another process on the next request', async () => {
    expect((await check('valid.rule@blocked-by-rule.example')).json.status).toBe('deliverable');
    const rule = await writer.rules.addRule(other, ctx.account.id, { action: 'block', match: 'domain', value: 'blocked-by-rule.example' });
    const blocked = await check('valid.rule@blocked-by-rule.example');
    expect(blocked.json.status).toBe('undeliverable');
    expect(blocked.json.reason).toBe('blocklisted');
    await writer.rules.deleteRule(other, ctx.account.id, rule.id);
    expect((await check('valid.rule@blocked-by-rule.example')).json.status).toBe('deliverable');
    // an address's erasure takes the rules that named it
    await writer.rules.addRule(other, ctx.account.id, { action: 'block', match: 'email', value: 'valid.erased@example.com' });
    expect((await check('valid.erased@example.com')).json.reason).toBe('blocklisted');
    await writer.erase.eraseAddress(other, ctx.account.id, 'valid.erased@example.com');
    expect((await check('valid.erased@example.com')).json.status).toBe('deliverable');
  });

  it('honours a key restriction changed or a key revoked by another process on the next request', async () => {
    const { key, info } = await createApiKey(ctx.database, ctx.account.id, 'restricted later');
    expect((await check('valid.ip@example.com', { key })).status).toBe(200);
    await writer.keys.updateApiKey(other, ctx.account.id, info.id, { allowed_ips: ['203.0.113.7'] });
    const refused = await check('valid.ip@example.com', { key });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('ip_not_allowed');
    await writer.keys.updateApiKey(other, ctx.account.id, info.id, { allowed_ips: null });
    expect((await check('valid.ip@example.com', { key })).status).toBe(200);
    await writer.keys.revokeApiKey(other, ctx.account.id, info.id);
    expect((await check('valid.ip@example.com', { key })).status).toBe(401);
  });

  it("honours a publishable key's limit lowered by another process on the next request", async () => {
    const origin = 'https://shop.example';
    const { key, info } = await createApiKey(ctx.database, ctx.account.id, { type: 'publishable', name: 'form', allowed_origins: [origin] });
    const fromPage = () => check('valid.form@example.com', { key: null, path: `/v1/verify/single?key=${key}`, headers: { origin } });
    for (let i = 0; i < 3; i++) expect((await fromPage()).status).toBe(200);
    await writer.keys.updateApiKey(other, ctx.account.id, info.id, { rate_limits: { per_key_per_minute: 3 } });
    const limited = await fromPage();
    expect(limited.status).toBe(429);
    expect(limited.json.error).toBe('rate_limit');
  });
});
