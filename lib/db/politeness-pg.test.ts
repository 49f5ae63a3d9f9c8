import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { converse } from '../../test/politeness';
import { openDatabase } from './client';
import { applyMigrations } from './migrate';
import { forEgress } from '../verifier/politeness';
import { createPgPoliteness } from './politeness-pg';

// Three politeness instances with pools of their own stand for three worker processes on one
// PostgreSQL (test/jobs/politeness.test.ts runs real worker processes against a counting peer).
let fresh: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let fleet: ReturnType<typeof createPgPoliteness>[] = [];

beforeAll(async () => {
  fresh = await freshDatabaseUrl('postgres');
  const { prisma } = await openDatabase(fresh.url);
  await applyMigrations(prisma, 'postgres');
  await prisma.$disconnect();
  fleet = [0, 1, 2].map(() => createPgPoliteness({ url: fresh.url, leaseMs: 30_000 }));
});

afterAll(async () => {
  await Promise.all(fleet.map((p) => p.end()));
  await fresh?.drop();
});

describe('politeness shared on PostgreSQL', () => {
  it('holds a target to its concurrency across processes, and uses all of it', async () => {
    const { maxOpen } = await converse(fleet, 'provider:google', { concurrency: 4, perMinute: 0 }, 10, 60);
    expect(maxOpen).toBe(4);
  });

  it('keeps one budget per egress: processes on one egress share it, each egress has its own', async () => {
    const pacing = { concurrency: 2, perMinute: 0 };
    const oneEgress = await converse(
      fleet.map((p) => forEgress(p, 'ip:192.0.2.1')),
      'provider:microsoft',
      pacing,
      6,
      60,
    );
    expect(oneEgress.maxOpen).toBe(2);
    const threeEgresses = await converse(
      fleet.map((p, i) => forEgress(p, `ip:192.0.2.${i + 1}`)),
      'provider:microsoft',
      pacing,
      6,
      60,
    );
    expect(threeEgresses.maxOpen).toBe(6);
    // and each egress's greylist holds are its own
    await forEgress(fleet[0]!, 'ip:192.0.2.1').hold('grey:a@b.test', 5_000);
    expect((await forEgress(fleet[1]!, 'ip:192.0.2.1').heldFor(['grey:a@b.test']))[0]).toBeGreaterThan(4_000);
    expect(await forEgress(fleet[1]!, 'ip:192.0.2.2').heldFor(['grey:a@b.test'])).toEqual([0]);
  });

  it('spaces connection starts across processes by the pace', async () => {
    // 300 a minute: one start per 200 ms, whichever process asks
    const { starts } = await converse(fleet, 'mx:mx.paced.test', { concurrency: 10, perMinute: 300 }, 3, 5);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // The pace is kept on the database's clock; a start is seen here only when the event loop gets to
    // it, so on a busy machine one late sighting shortens the next gap (138 ms was seen). The span of
    // all nine starts is the precise check; a gap far under the pace would still be a broken pace.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(8 * 200 - 150);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100);
    // generous: it catches waiters left idle, not a busy machine
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(2 * 8 * 200);
  });

  it("gives a crashed holder's lease to another process once it expires", async () => {
    const crashed = createPgPoliteness({ url: fresh.url, leaseMs: 300 });
    await crashed.acquire({ key: 'mx:mx.crash.test', pacing: { concurrency: 1, perMinute: 0 } }); // never released
    await crashed.end();
    const started = Date.now();
    const permit = await fleet[0]!.acquire({ key: 'mx:mx.crash.test', pacing: { concurrency: 1, perMinute: 0 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    permit.release();
  });

  it("keeps a live holder's lease past its lease time: the holder renews it", async () => {
    const live = createPgPoliteness({ url: fresh.url, leaseMs: 300 });
    const pacing = { concurrency: 1, perMinute: 0 };
    const permit = await live.acquire({ key: 'mx:mx.live.test', pacing });
    // four lease times later the slot is still taken
    await expect(fleet[0]!.acquire({ key: 'mx:mx.live.test', pacing }, AbortSignal.timeout(1_200))).rejects.toThrow();
    permit.release();
    await live.end();
  });

  it('stops waiting for a lease when the signal fires', async () => {
    const pacing = { concurrency: 1, perMinute: 0 };
    const permit = await fleet[0]!.acquire({ key: 'mx:mx.busy.test', pacing });
    await expect(fleet[1]!.acquire({ key: 'mx:mx.busy.test', pacing }, AbortSignal.timeout(100))).rejects.toThrow();
    permit.release();
  });

  it('shares back-offs and greylist holds, the later time winning', async () => {
    await fleet[0]!.hold('backoff:provider:yahoo', 2_000);
    await fleet[1]!.hold('backoff:provider:yahoo', 500);
    const [backoff, grey] = await fleet[2]!.heldFor(['backoff:provider:yahoo', 'grey:a@b.test']);
    expect(backoff).toBeGreaterThan(1_500);
    expect(backoff).toBeLessThanOrEqual(2_000);
    expect(grey).toBe(0);
  });
});
