/**
 * Sandbox bulk job timing (submission → completed, with a breakdown) and CSV download speed.
 */
import http from 'node:http';
import { agent, request } from './load';

/** A deterministic mix: a quarter use the sandbox prefixes, the rest are hashed addresses. */
export function address(i: number): string {
  const prefixes = ['valid', 'invalid', 'risky', 'catchall', 'disposable', 'role'];
  if (i % 4 === 0) return `${prefixes[(i >> 2) % prefixes.length]}${i}@example.com`;
  const h = Math.imul(i ^ 0x9e3779b9, 2654435761) >>> 0;
  return `u${h.toString(36)}${i}@d${h % 97}.example.org`;
}

export function bulkBody(count: number): Buffer {
  const parts: string[] = new Array(count);
  for (let i = 0; i < count; i++) parts[i] = JSON.stringify(address(i));
  return Buffer.from(`{"emails":[${parts.join(',')}]}`);
}

export interface BulkResult {
  emails: number;
  bodyMb: number;
  jobId: string;
  /** Upload + the server's answer to POST /v1/verify/bulk. */
  submitMs: number;
  /** From the submit answer until a poll first saw the job no longer `queued`. */
  queuedMs: number;
  /** From the submit answer until a poll saw `completed`. */
  afterSubmitMs: number;
  /** From sending the submission until `completed` was seen: the figure compared with the target. */
  totalMs: number;
  polls: number;
  pollAvgMs: number;
  pollMaxMs: number;
  /** [ms since submit answer, progress %] samples, for where the time goes. */
  progress: Array<[number, number]>;
  /** GET /health sent every 100 ms during the job (after the submit answer): how long the server stalls. */
  healthDuringJob: { probes: number; maxMs: number; over100Ms: number; totalStalledMs: number };
}

/** Sends GET /health one at a time, ~every 100 ms, until stopped; each probe's latency shows server stalls. */
function probeHealth(baseUrl: string) {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      await request(baseUrl, { method: 'GET', path: '/health' }).catch(() => undefined);
      const ms = performance.now() - t0;
      latencies.push(ms);
      if (ms < 100) await new Promise((r) => setTimeout(r, 100 - ms));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      const slow = latencies.filter((ms) => ms > 100);
      return { probes: latencies.length, maxMs: Math.max(0, ...latencies), over100Ms: slow.length, totalStalledMs: slow.reduce((a, b) => a + b, 0) };
    },
  };
}

export async function runBulk(
  baseUrl: string,
  headers: Record<string, string>,
  body: Buffer,
  emails: number,
  timeoutMs: number,
  onSubmitted?: () => void,
): Promise<BulkResult> {
  const t0 = performance.now();
  const submit = await request(baseUrl, { method: 'POST', path: '/v1/verify/bulk', headers: { ...headers, 'content-type': 'application/json' }, body }, true);
  const t1 = performance.now();
  onSubmitted?.();
  if (submit.status !== 200) throw new Error(`bulk submit → ${submit.status} ${submit.body.toString().slice(0, 300)}`);
  const answer = JSON.parse(submit.body.toString()) as { job_id: string; status: string; total_emails: number };
  if (answer.total_emails !== emails) throw new Error(`bulk submit counted ${answer.total_emails} emails, sent ${emails}`);

  const prober = probeHealth(baseUrl);
  try {
    return await poll(baseUrl, headers, answer, emails, body, t0, t1, timeoutMs, prober);
  } finally {
    await prober.stop();
  }
}

async function poll(
  baseUrl: string,
  headers: Record<string, string>,
  answer: { job_id: string; status: string },
  emails: number,
  body: Buffer,
  t0: number,
  t1: number,
  timeoutMs: number,
  prober: ReturnType<typeof probeHealth>,
): Promise<BulkResult> {
  let queuedMs = answer.status === 'queued' ? NaN : 0;
  const pollTimes: number[] = [];
  const progress: Array<[number, number]> = [];
  for (;;) {
    const p0 = performance.now();
    const reply = await request(baseUrl, { method: 'GET', path: `/v1/verify/bulk/status/${answer.job_id}?limit=1`, headers });
    const p1 = performance.now();
    pollTimes.push(p1 - p0);
    if (reply.status !== 200) throw new Error(`bulk status → ${reply.status} ${reply.body.toString().slice(0, 300)}`);
    const status = JSON.parse(reply.body.toString()) as { status: string; progress: number };
    const since = p1 - t1;
    if (Number.isNaN(queuedMs) && status.status !== 'queued') queuedMs = since;
    const last = progress[progress.length - 1];
    if (!last || last[1] !== status.progress) progress.push([Math.round(since), status.progress]);
    if (status.status === 'completed') {
      return {
        emails,
        bodyMb: body.length / 1048576,
        jobId: answer.job_id,
        submitMs: t1 - t0,
        queuedMs,
        afterSubmitMs: since,
        totalMs: p1 - t0,
        polls: pollTimes.length,
        pollAvgMs: pollTimes.reduce((a, b) => a + b, 0) / pollTimes.length,
        pollMaxMs: Math.max(...pollTimes),
        progress,
        healthDuringJob: await prober.stop(),
      };
    }
    if (status.status === 'failed' || status.status === 'cancelled') throw new Error(`bulk job ended ${status.status}`);
    if (p1 - t0 > timeoutMs) throw new Error(`bulk job of ${emails} not completed after ${timeoutMs} ms (last: ${status.status} ${status.progress}%)`);
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - p0))));
  }
}

export interface DownloadResult {
  rows: number;
  mb: number;
  firstByteMs: number;
  totalMs: number;
  rowsPerSec: number;
}

/** Streams the CSV, counting lines without keeping them. */
export function downloadCsv(baseUrl: string, headers: Record<string, string>, jobId: string): Promise<DownloadResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstByteMs = NaN;
    let newlines = 0;
    let bytes = 0;
    let lastByte = 10;
    const req = http.get(`${baseUrl}/v1/verify/bulk/download/${jobId}`, { headers, agent }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => reject(new Error(`download → ${res.statusCode} ${text.slice(0, 300)}`)));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        lastByte = chunk[chunk.length - 1];
      });
      res.on('end', () => {
        const totalMs = performance.now() - t0;
        const lines = newlines + (lastByte === 10 ? 0 : 1);
        const rows = lines - 1; // header
        resolve({ rows, mb: bytes / 1048576, firstByteMs, totalMs, rowsPerSec: rows / (totalMs / 1000) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
