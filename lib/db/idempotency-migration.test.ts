import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../test/databases';
import { readMigrations } from './migrate';

// The migration that makes Idempotency-Keys per caller (20261127120100_idempotency_per_key) on a
// database the previous release wrote: its rows are kept, account-wide (caller ''), and the same
// key name may then be held by several callers of one account.
const MIGRATION = '20261127120100_idempotency_per_key';

describe.each(DIALECTS)('the per-caller idempotency migration (%s)', (dialect) => {
  it('keeps the rows written before it, account-wide, and lets each caller hold the same key', async () => {
    const fresh = await freshDatabaseUrl(dialect);
    const migrations = readMigrations(dialect);
    const before = migrations.filter((m) => m.name < MIGRATION);
    const mine = migrations.find((m) => m.name === MIGRATION)!;
    const row = `INSERT INTO "idempotency_keys" ("user_id", "key", "request_hash", "state", "response_status", "response_body", "created_at", "token", "owner", "heartbeat_at")
      VALUES ('u1', 'order-1', 'h', 'done', 200, '{"ok":true}', 1, 't', 'o', 2)`;
    const read = `SELECT "caller", "key", "request_hash", "response_body", "token", "owner" FROM "idempotency_keys" ORDER BY "caller"`;
    const perCaller = `INSERT INTO "idempotency_keys" ("user_id", "caller", "key", "request_hash", "created_at") VALUES ('u1', 'key_a', 'order-1', 'h2', 3), ('u1', 'session', 'order-1', 'h3', 3)`;
    const twice = `INSERT INTO "idempotency_keys" ("user_id", "caller", "key", "request_hash", "created_at") VALUES ('u1', 'key_a', 'order-1', 'h4', 4)`;
    try {
      if (dialect === 'sqlite') {
        const db = new BetterSqlite3(fresh.url.replace(/^file:/, ''));
        for (const m of before) db.exec(m.sql);
        db.exec(row);
        db.exec(mine.sql);
        db.exec(perCaller);
        expect(() => db.exec(twice)).toThrow(/UNIQUE|PRIMARY/i);
        expect(db.prepare(read).all()).toEqual([
          { caller: '', key: 'order-1', request_hash: 'h', response_body: '{"ok":true}', token: 't', owner: 'o' },
          { caller: 'key_a', key: 'order-1', request_hash: 'h2', response_body: null, token: '', owner: '' },
          { caller: 'session', key: 'order-1', request_hash: 'h3', response_body: null, token: '', owner: '' },
        ]);
        expect(db.prepare(`SELECT name FROM sqlite_master WHERE tbl_name = 'idempotency_keys' AND type = 'index' AND name NOT LIKE 'sqlite_%'`).all()).toEqual([
          { name: 'idempotency_keys_created_at_idx' },
        ]);
        db.close();
      } else {
        const client = new pg.Client({ connectionString: fresh.url });
        await client.connect();
        try {
          for (const m of before) await client.query(m.sql);
          await client.query(row);
          await client.query(mine.sql);
          await client.query(perCaller);
          await expect(client.query(twice)).rejects.toThrow(/duplicate key/);
          expect((await client.query(read)).rows.map((r) => r.caller)).toEqual(['', 'key_a', 'session']);
        } finally {
          await client.end();
        }
      }
    } finally {
      await fresh.drop();
    }
  });
});
