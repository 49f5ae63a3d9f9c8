import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/lib/db/client';
import { grantCredits } from '@/lib/accounts/quota';
import { auditCredits } from '@/lib/accounts/audit';
import { DIALECTS, freshDatabaseUrl } from '../databases';
import { send, startServer, type Served } from './server';

/**
 * Credits whatever process dies (docs/guarantees.md): the built server is killed with SIGKILL at a
 * named step (EV_TEST_FAILPOINTS, lib/failpoints/failpoints.ts), started again on the same database,
 * and the account's books must hold: a reservation whose work was never stored comes back after
 * EV_RESERVATION_TIMEOUT_MS, an Idempotency-Key whose request died is taken over after
 * EV_IDEMPOTENCY_STALE_MS and its retry is charged once.
 */
// three starts of the built server each, which take seconds apiece on a loaded machine
const SERVER_STARTS_MS = 180_000;
const BASE = { EV_PRODUCTION_ENGINE: 'sandbox', EV_FREE_DAILY: '0', EV_EMBEDDED_WORKER: 'false' };

describe.each(DIALECTS)('books through crashes of the built server (%s)', (dialect) => {
  let url: string;
  let drop: () => Promise<void>;
  let database: Database;
  let userId: string;
  const servers: Served[] = [];

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'ev-books-'));
      url = `file:${join(dir, 'books.db')}`;
      drop = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      ({ url, drop } = await freshDatabaseUrl('postgres'));
    }
  });
  // a server left running would sweep the next test's reservations with its own bound
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });
  afterAll(async () => {
    await database?.prisma.$disconnect();
    await drop?.();
  });

  const start = async (env: Record<string, string>) => {
    // the first start makes the account and its key; later ones start on the same database
    const server = await startServer({ ...BASE, DATABASE_URL: url, ...env }, database ? 0 : 1);
    servers.push(server);
    if (!database) {
      database = await openDatabase(url);
      userId = (await database.prisma.user.findUniqueOrThrow({ where: { email: 'bench@example.com' } })).id;
      await grantCredits(database, userId, 100);
    }
    return server;
  };
  const credits = async () => (await database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).credits;
  // one API key throughout, the first start's: an Idempotency-Key belongs to the key that sent it
  let apiKey: string | undefined;
  const auth = (server: Served, key?: string) => ({ authorization: `Bearer ${(apiKey ??= server.keys[0])}`, ...(key ? { 'idempotency-key': key } : {}) });

  /** Sends the request to a server that dies at `point` on the way, and waits until it is gone. */
  async function crashAt(point: string, path: string, body: unknown, key?: string, env: Record<string, string> = {}) {
    const server = await start({ ...env, EV_TEST_FAILPOINTS: point });
    await expect(send(server.url, path, { headers: auth(server, key), body: JSON.stringify(body) })).rejects.toThrow();
    for (let i = 0; i < 100 && server.exited() === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(server.exited(), server.log()).toBe('SIGKILL');
  }

  it(
    'gives back the credits of a single check and an instant bulk whose server died before storing them',
    async () => {
      const env = { EV_RESERVATION_TIMEOUT_MS: '2000' };
      await crashAt('quota.after-reserve', '/v1/verify/single', { email: 'valid-lost@example.com' }, undefined, env);
      expect(await credits()).toBe(99); // reserved, and the process that held it is gone
      const crashedAt = Date.now();
      await crashAt('instant.mid-bulk', '/v1/verify/bulk', { emails: ['valid-1@example.com', 'valid-2@example.com', 'risky-3@example.com'] }, undefined, env);
      const instant = await database.prisma.creditMovement.findFirstOrThrow({ where: { userId, kind: 'reserve', cause: { startsWith: 'job_' } } });
      expect(instant.credits).toBe(3);
      await start(env);
      for (let i = 0; i < 300 && (await credits()) !== 100; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await credits()).toBe(100);
      expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(1000); // not before its bound
      expect(await database.prisma.verification.count({ where: { userId } })).toBe(0);
      expect(await database.prisma.job.count({ where: { userId } })).toBe(0);
      expect((await auditCredits(database)).problems).toEqual([]);
    },
    SERVER_STARTS_MS,
  );

  it(
    'lets a retry take over an Idempotency-Key whose request died, charged once',
    async () => {
      const env = { EV_IDEMPOTENCY_STALE_MS: '1000', EV_RESERVATION_TIMEOUT_MS: '600000' };
      const before = await credits();
      const reserves = () => database.prisma.creditMovement.count({ where: { userId, kind: 'reserve' } });
      const reservesBefore = await reserves();
      // died holding its reservation, and died before doing anything
      await crashAt('quota.after-reserve', '/v1/verify/single', { email: 'valid-k1@example.com' }, 'k1', env);
      await crashAt('idempotency.mid-request', '/v1/verify/single', { email: 'valid-k2@example.com' }, 'k2', env);
      expect(await credits()).toBe(before - 1);
      const server = await start(env);
      for (const [key, email] of [
        ['k1', 'valid-k1@example.com'],
        ['k2', 'valid-k2@example.com'],
      ]) {
        let answer = await send(server.url, '/v1/verify/single', { headers: auth(server, key), body: JSON.stringify({ email }) });
        // within the bound the key is still the dead request's
        for (let i = 0; i < 50 && answer.status === 409; i++) {
          await new Promise((r) => setTimeout(r, 200));
          answer = await send(server.url, '/v1/verify/single', { headers: auth(server, key), body: JSON.stringify({ email }) });
        }
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json.status).toBe('deliverable');
        const replay = await send(server.url, '/v1/verify/single', { headers: auth(server, key), body: JSON.stringify({ email }) });
        expect(replay.headers['idempotent-replayed']).toBe('true');
      }
      // two checks, each charged once: k1's retry took over the reservation its first attempt made
      expect(await credits()).toBe(before - 2);
      expect(await reserves()).toBe(reservesBefore + 2);
      expect(await database.prisma.verification.count({ where: { userId, email: { in: ['valid-k1@example.com', 'valid-k2@example.com'] } } })).toBe(2);
      expect((await auditCredits(database)).problems).toEqual([]);
    },
    SERVER_STARTS_MS,
  );
});
