import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { grantCredits } from '@/lib/accounts/quota';
import { useDatabase, type Database } from '@/lib/db/client';
import { DIALECTS, freshDatabaseUrl } from '../databases';
import { startCountingSmtp, type CountingSmtp } from '../peers/counting-smtp';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { booksOf, waitFor } from '../jobs/processes';
import { send, startServer, type Served } from './server';

// DELETE /v1/verify/bulk/{id} on the built server, whose embedded worker is probing a slow mail
// server (every reply 150 ms late): the probing stops, and ?partial=true serves only paid rows.
const MX = '127.0.0.63';
const CREDITS = 1000;
const COUNT = 40;

let dns: DnsPeer;
let smtp: CountingSmtp;
beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=slowhttp.test,mx.slowhttp.test,10', `host-record=mx.slowhttp.test,${MX}`]);
  smtp = await startCountingSmtp({ hosts: [MX], replyDelayMs: 150 });
});
afterAll(async () => {
  await smtp?.stop();
  await dns?.stop();
});

describe.each(DIALECTS)('DELETE of a running production job on the built server (%s)', (dialect) => {
  let server: Served;
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabaseUrl(dialect);
    drop = fresh.drop;
    server = await startServer(
      {
        DATABASE_URL: fresh.url,
        EV_DNS_SERVERS: dns.server,
        EV_SMTP_PORT: String(smtp.port),
        EV_WORKER_CONCURRENCY: '3',
        EV_CHUNK_SIZE: String(COUNT),
        EV_FREE_DAILY: '0',
      },
      1,
    );
    process.env.DATABASE_URL = fresh.url;
    database = await useDatabase(fresh.url);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.prisma.$disconnect();
    await drop?.();
  });

  it('stops the probing, stores nothing free, and the partial download holds only paid rows', async () => {
    const account = await ensureAccount(database, 'bench@example.com');
    await grantCredits(database, account.id, CREDITS);
    const headers = { authorization: `Bearer ${server.keys[0]}`, 'content-type': 'application/json' };
    const since = performance.now();
    const emails = Array.from({ length: COUNT }, (_, i) => `ok${dialect}${i}@slowhttp.test`);
    const submitted = await send(server.url, '/v1/verify/bulk', { method: 'POST', headers, body: JSON.stringify({ emails }) });
    expect(submitted.status).toBeLessThan(300);
    const jobId = submitted.json.job_id ?? submitted.json.data?.job_id;
    const opened = () => smtp.connections.filter((c) => c.openedAt >= since);
    await waitFor(
      async () => opened().length,
      (n) => n >= 6,
      60_000,
      'connections opened',
    );
    const cancelled = await send(server.url, `/v1/verify/bulk/${jobId}`, { method: 'DELETE', headers });
    expect(cancelled.status).toBe(200);
    const cancelledAt = performance.now();
    await new Promise((r) => setTimeout(r, 4_000));
    expect(opened().filter((c) => c.openedAt > cancelledAt + 1_000)).toEqual([]);

    const partial = await send(server.url, `/v1/verify/bulk/download/${jobId}?partial=true`, { headers });
    expect(partial.status).toBe(200);
    const rows = partial.text.trim().split(/\r?\n/).length - 1;
    const books = await booksOf(database, account.id, jobId, CREDITS);
    expect(rows).toBe(books.stored);
    expect(books.paid).toBe(books.chargeable);
    expect(books.stored).toBe(books.chargeable); // every row is an accepted mailbox: chargeable
  }, 120_000);
});
