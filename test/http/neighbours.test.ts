import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../databases';
import { send, startServer, type Answer, type Served } from './server';

/**
 * Noisy neighbours (issue 20): against the built server with its real limits, account A attacks
 * while account B samples GET /health and a sandbox single check every 100 ms (in a process of its
 * own, test/http/sampler.mjs) and runs a 50-address sandbox job. B's p99 stays under 300 ms and its
 * max under 2 s, its job completes within 10 s, and every answer A gets is JSON, 2xx or 4xx. The
 * precise figures are in `npm run bench -- --only=neighbours`. The timed attacks run 4 s each and a
 * receiver that never answers is given up after EV_WEBHOOK_TIMEOUT_MS=3000 (not the default 10 s): B's
 * four probes, each every 100 ms, give each attack more than 100 samples on a quiet machine, so the
 * p99 is not simply the one slowest answer (with 62 samples it was: CI once failed on a single 339 ms
 * answer of a quiet machine; the max bound is what holds a single answer).
 *
 * On a machine other processes load, B's probes are slow before any attack: each attack first
 * measures B alone on the idle server for 2 s: the p99 bound is multiplied by how much slower that
 * idle run's p99 is than a quiet machine's (IDLE_P99_MS), the max bound gets the idle run's excess
 * over IDLE_MAX_MS added, and both are printed. On a quiet machine the
 * bounds are the exactly; what the attack adds on top is always held to them.
 */
const HERE = new URL('.', import.meta.url).pathname;
const P99_MS = 300;
const MAX_MS = 2_000;
const JOB_MS = 10_000;
const IDLE_P99_MS = 50;
const IDLE_MAX_MS = 100;
const ATTACK_MS = 4_000;
const IDLE_SAMPLE_MS = 2_000;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`one account cannot slow another (${dialect})`, () => {
    let server: Served;
    let silent: Server;
    let dropDatabase: (() => Promise<void>) | null = null;
    // A: keys[0]; B: keys[1]
    const headers = (who: 'A' | 'B', sandbox: boolean): Record<string, string> => ({
      authorization: `Bearer ${server.keys[who === 'A' ? 0 : 1]}`,
      ...(sandbox ? { 'x-ev-sandbox': 'true' } : {}),
    });

    beforeAll(async () => {
      // a webhook receiver that takes connections and never answers
      silent = createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      // the test events' receivers never answer: each holds a delivery for this long
      const env: Record<string, string> = { EV_PRODUCTION_ENGINE: 'sandbox', EV_WEBHOOK_TIMEOUT_MS: '3000' };
      if (dialect === 'postgres') {
        const fresh = await freshDatabaseUrl('postgres');
        dropDatabase = fresh.drop;
        env.DATABASE_URL = fresh.url;
      }
      server = await startServer(env, 2);
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      silent?.close();
      await dropDatabase?.();
    });

    /** What B sees while `attack` runs: latencies of its probes (another process: test/http/sampler.mjs) and how long its job took. */
    async function whileAttacking(attack: () => Promise<Answer[]>) {
      const idle = await baseline(server.url, server.keys[1]!);
      // a loaded machine slows every answer by a factor, not by a sum: the p99 bound grows with the
      // idle run's slowdown (exactly the 300 ms on a quiet machine), and never less than the
      // idle run's excess on top
      const slowdown = Math.max(1, idle.p99 / IDLE_P99_MS);
      const bounds = {
        p99: Math.round(Math.max(P99_MS * slowdown, P99_MS + idle.p99 - IDLE_P99_MS)),
        max: MAX_MS + Math.max(0, idle.max - IDLE_MAX_MS),
      };
      const sampler = startSampler(server.url, server.keys[1]!);
      const job = (async () => {
        const started = performance.now();
        const emails = Array.from({ length: 50 }, (_, i) => `valid${i}@b-${dialect}.example`);
        const submitted = await send(server.url, '/v1/verify/bulk', { headers: headers('B', true), body: JSON.stringify({ emails }) });
        expect(submitted.status, submitted.text).toBe(200);
        for (;;) {
          const status = await send(server.url, `/v1/verify/bulk/status/${submitted.json.job_id}`, { headers: headers('B', true) });
          if (status.json?.status === 'completed' || performance.now() - started > 30_000) return performance.now() - started;
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      const answers = await attack();
      const jobMs = await job;
      const { latencies, failures } = await sampler.stop();
      expect(failures).toEqual([]);
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!;
      const figures = { samples: latencies.length, p99: Math.round(p99), max: Math.round(latencies[latencies.length - 1]!), jobMs: Math.round(jobMs) };
      console.log(`[neighbours ${dialect}] B under attack`, figures, 'B alone', idle, 'bounds', bounds, 'A answered', countStatuses(answers));
      for (const answer of answers) {
        expect(answer.status, answer.text.slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
        expect(answer.headers['content-type'], answer.text.slice(0, 300)).toMatch(/json|csv/);
      }
      expect(figures.p99, JSON.stringify({ figures, idle })).toBeLessThan(bounds.p99);
      expect(figures.max, JSON.stringify({ figures, idle })).toBeLessThan(bounds.max);
      expect(figures.jobMs, JSON.stringify(figures)).toBeLessThan(JOB_MS);
      return answers;
    }

    /**
     * Runs `request` from `parallel` loops until `ms` have passed, each waiting `pauseMs` between
     * its requests and, after a 429, its Retry-After as a client of the API does (the SDK does);
     * collects every answer.
     */
    async function hammer(parallel: number, ms: number, pauseMs: number, request: (i: number) => Promise<Answer>): Promise<Answer[]> {
      const answers: Answer[] = [];
      const until = performance.now() + ms;
      await Promise.all(
        Array.from({ length: parallel }, async (_, loop) => {
          for (let i = 0; performance.now() < until; i++) {
            const answer = await request(loop * 1000 + i);
            answers.push(answer);
            const retryAfter = answer.status === 429 ? Number(answer.headers['retry-after'] ?? 1) * 1000 : 0;
            await new Promise((r) => setTimeout(r, Math.max(pauseMs, retryAfter)));
          }
        }),
      );
      return answers;
    }

    it('a million quoted addresses from an account without credits, three at a time', async () => {
      const emails = Array.from({ length: 1_000_000 }, (_, i) => `"first last${i}"@example${i % 40}.com`);
      const body = Buffer.from(JSON.stringify({ emails }));
      // the third heavy request is refused (429) without its body being read: a client still
      // writing its 30 MB then may see the connection reset instead of the answer
      let resets = 0;
      const answers = await whileAttacking(async () =>
        (
          await Promise.all(
            Array.from({ length: 3 }, () =>
              send(server.url, '/v1/verify/bulk', { headers: headers('A', false), body, timeoutMs: 120_000 }).catch((error: NodeJS.ErrnoException) => {
                if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') throw error;
                resets++;
                return null;
              }),
            ),
          )
        ).filter((answer): answer is Answer => answer !== null),
      );
      // each was checked and refused for credits, or refused a third heavy slot
      expect(
        answers.every((a) => a.status === 402 || a.status === 429),
        JSON.stringify(countStatuses(answers)),
      ).toBe(true);
      expect(answers.filter((a) => a.status === 402).length + resets, JSON.stringify({ resets })).toBeLessThanOrEqual(3);
      expect(resets).toBeLessThanOrEqual(1);
      expect(answers.some((a) => a.status === 402)).toBe(true);
    }, 180_000);

    let bigJob = '';
    it('a 200,000-row job, half duplicates, polled every 50 ms by eight loops with its list, while it runs', async () => {
      const emails = Array.from({ length: 200_000 }, (_, i) => `user${i >> 1}@a-${dialect}.example`);
      // a heavy slot of the previous attack may still be closing: wait as its Retry-After says, as a client does
      let submitted = await send(server.url, '/v1/verify/bulk', { headers: headers('A', true), body: JSON.stringify({ emails }), timeoutMs: 60_000 });
      for (let tries = 0; submitted.status === 429 && tries < 10; tries++) {
        await new Promise((r) => setTimeout(r, Number(submitted.headers['retry-after'] ?? 1) * 1000));
        submitted = await send(server.url, '/v1/verify/bulk', { headers: headers('A', true), body: JSON.stringify({ emails }), timeoutMs: 60_000 });
      }
      expect(submitted.status, submitted.text.slice(0, 300)).toBe(200);
      bigJob = submitted.json.job_id;
      await whileAttacking(() =>
        hammer(8, ATTACK_MS, 50, (i) =>
          i % 3 === 0
            ? send(server.url, '/v1/verify/bulk?limit=100', { headers: headers('A', true) })
            : // the production key asks for the sandbox job: a 404, never a look at it
              send(server.url, `/v1/verify/bulk/status/${bigJob}`, { headers: headers('A', i % 3 === 1) }),
        ),
      );
    }, 120_000);

    it('downloads of that job, six at a time, as it fills', async () => {
      // without the job (its submission failed above) every download would be a redirect, not an attack
      expect(bigJob, 'the 200,000-row job was not queued').not.toBe('');
      const answers = await whileAttacking(() =>
        hammer(6, ATTACK_MS, 0, () => send(server.url, `/v1/verify/bulk/download/${bigJob}?partial=true`, { headers: headers('A', true), timeoutMs: 60_000 })),
      );
      expect(answers.some((a) => a.status === 429)).toBe(true);
      expect(answers.some((a) => a.status === 200)).toBe(true);
    }, 120_000);

    it('test events to receivers that never answer, and webhooks on names that do not resolve', async () => {
      const port = (silent.address() as { port: number }).port;
      const hooks: string[] = [];
      for (let i = 0; i < 5; i++) {
        const created = await send(server.url, '/v1/webhooks', {
          headers: headers('A', true),
          body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook${i}` }),
        });
        expect(created.status, created.text).toBe(201);
        hooks.push(created.json.id);
      }
      await whileAttacking(() =>
        Promise.all([
          ...hooks.flatMap((id) =>
            [0, 1, 2].map(() => send(server.url, `/v1/webhooks/${id}/test`, { headers: headers('A', true), body: '{}', timeoutMs: 30_000 })),
          ),
          ...Array.from({ length: 8 }, (_, i) =>
            send(server.url, '/v1/webhooks', {
              headers: headers('A', true),
              body: JSON.stringify({ url: `http://no-such-host-${i}.invalid:8080/` }),
              timeoutMs: 30_000,
            }),
          ),
        ]),
      );
    }, 120_000);
  });
}

/** B's probes in a child process; stop() returns what they saw. */
function startSampler(url: string, key: string) {
  const child = spawn(process.execPath, [join(HERE, 'sampler.mjs'), url, key], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop(): Promise<{ latencies: number[]; failures: string[] }> {
      child.stdin!.write('stop\n');
      await exited;
      return JSON.parse(output);
    },
  };
}

/** B's probes alone on the idle server: what the machine's own load costs, printed beside each attack. */
async function baseline(url: string, key: string) {
  const sampler = startSampler(url, key);
  await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
  const { latencies } = await sampler.stop();
  latencies.sort((a, b) => a - b);
  return { samples: latencies.length, p99: Math.round(latencies[Math.floor(latencies.length * 0.99)]!), max: Math.round(latencies[latencies.length - 1]!) };
}

function countStatuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}
