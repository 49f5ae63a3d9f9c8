import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '@/test/databases';
import { openDatabase, type Database } from './client';

/**
 * SQLite's Prisma adapter shares one connection (lib/db/sqlite-adapter.ts): a write outside any
 * transaction, issued while another request's interactive transaction is open, must commit on its
 * own and survive that transaction's rollback. Before the adapter waited, each of these was undone.
 */
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl('sqlite');
  drop = fresh.drop;
  database = await openDatabase(fresh.url);
  await database.prisma.user.create({ data: { id: 'u1', email: 'shared@example.com', passwordHash: 'x' } });
  await database.prisma.apiKey.create({ data: { id: 'k1', userId: 'u1', prefix: 'ev_', hash: 'h1' } });
  await database.prisma.job.create({ data: { id: 'j1', userId: 'u1', sandbox: true, status: 'queued', totalEmails: 1, validEmails: 1, invalidEmails: 0 } });
  await database.prisma.jobChunk.create({ data: { jobId: 'j1', no: 0, startIdx: 0, endIdx: 1 } });
});
afterAll(async () => {
  await database.prisma.$disconnect();
  await drop();
});

/** Runs `write` outside any transaction while another transaction is open, then rolls that one back. */
async function duringRolledBackTransaction(write: () => Promise<unknown>): Promise<void> {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  const transaction = database.prisma
    .$transaction(async (tx) => {
      await tx.user.update({ where: { id: 'u1' }, data: { credits: 999 } });
      entered();
      await held;
      throw new Error('a 402 or a 409 rolls back');
    })
    .catch((error: Error) => error.message);
  await inside;
  // a Prisma query is lazy: `then` sends it
  const written = write().then(() => 'written');
  // the outside write gets every chance to run inside the open transaction before it rolls back
  await new Promise((resolve) => setTimeout(resolve, 50));
  finish();
  expect(await transaction).toBe('a 402 or a 409 rolls back');
  await written;
}

it('keeps a key revocation, an idempotency claim and a chunk claim made while another transaction rolls back', async () => {
  const { prisma } = database;
  await duringRolledBackTransaction(() => prisma.apiKey.updateMany({ where: { id: 'k1' }, data: { revokedAt: new Date() } }));
  await duringRolledBackTransaction(() =>
    prisma.$executeRawUnsafe(`INSERT INTO "idempotency_keys" ("user_id", "key", "request_hash", "state", "created_at") VALUES ('u1', 'k', 'h', 'running', 1)`),
  );
  await duringRolledBackTransaction(() =>
    prisma.$executeRawUnsafe(`UPDATE job_chunks SET state = 'running', worker_id = 'w1', lease_until = 99 WHERE job_id = 'j1' AND no = 0`),
  );
  expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: 'k1' } })).revokedAt).not.toBeNull();
  expect(await prisma.idempotencyKey.count()).toBe(1);
  expect(await prisma.jobChunk.findUniqueOrThrow({ where: { jobId_no: { jobId: 'j1', no: 0 } } })).toMatchObject({ state: 'running', workerId: 'w1' });
  expect((await prisma.user.findUniqueOrThrow({ where: { id: 'u1' } })).credits).toBe(0);
});
