/**
 * A small closed-loop load generator: `concurrency` workers, each sending one request at a time
 * over a keep-alive agent for `durationMs`, plus a plain request helper used by the other phases.
 */
import http from 'node:http';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface Reply {
  status: number;
  body: Buffer;
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Requests retried because a reused keep-alive socket was closed by the server under us. */
export let staleSocketRetries = 0;

/**
 * One request; resolves with the whole body. `fresh` sends it on a new connection (used for the
 * big bulk upload, which must not be retried). A reset on a reused keep-alive socket before any
 * answer is the documented keep-alive race: such requests are sent once more, and counted.
 */
export function request(baseUrl: string, spec: RequestSpec, fresh = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...spec.headers };
    if (spec.body) headers['content-length'] = spec.body.length;
    const req = http.request(`${baseUrl}${spec.path}`, { method: spec.method, headers, agent: fresh ? false : agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!fresh && req.reusedSocket && e.code === 'ECONNRESET') {
        staleSocketRetries++;
        request(baseUrl, spec).then(resolve, reject);
      } else reject(e);
    });
    req.end(spec.body);
  });
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** Responses whose status was not 2xx; first one kept for the report. */
  firstError?: string;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Merges results of several runs of the same route (slices of one measurement). */
export function merge(parts: Array<LoadResult & { latencies: Float64Array }>): LoadResult {
  const all = Float64Array.from(parts.flatMap((p) => Array.from(p.latencies))).sort();
  const seconds = parts.reduce((a, p) => a + p.seconds, 0);
  const errors = parts.reduce((a, p) => a + p.errors, 0);
  return {
    requests: all.length,
    errors,
    firstError: parts.find((p) => p.firstError)?.firstError,
    seconds,
    rps: all.length / seconds,
    p50Ms: percentile(all, 50),
    p90Ms: percentile(all, 90),
    p99Ms: percentile(all, 99),
    maxMs: all.length ? all[all.length - 1] : NaN,
  };
}

/** Runs `make(i)` requests (i counts up across workers) for `durationMs` at `concurrency`. */
export async function load(
  baseUrl: string,
  make: (i: number) => RequestSpec,
  concurrency: number,
  durationMs: number,
  start0 = 0,
): Promise<LoadResult & { latencies: Float64Array }> {
  const latencies: number[] = [];
  let next = start0;
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const end = start + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const spec = make(next++);
      const t0 = performance.now();
      try {
        const reply = await request(baseUrl, spec);
        latencies.push(performance.now() - t0);
        if (reply.status < 200 || reply.status >= 300) {
          errors++;
          firstError ??= `${spec.method} ${spec.path} → ${reply.status} ${reply.body.toString().slice(0, 200)}`;
        }
      } catch (e) {
        errors++;
        firstError ??= `${spec.method} ${spec.path} → ${(e as Error).message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    firstError,
    seconds,
    latencies: sorted,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}
