import http from 'node:http';
import { sampleRss, startServer as startBenchServer } from '../../bench/server';

/**
 * The built server (`next start`) as `npm start` runs it (bench/server.ts: its 1024 MB heap, every
 * default limit, a fresh SQLite database), with `accounts` accounts that each have a key, and its
 * resident memory (the process tree) sampled every 50 ms.
 */
export interface Served {
  url: string;
  keys: string[];
  /** the largest resident set seen so far, in MB */
  peakRssMb(): number;
  /** an exit code or signal if the process ended on its own (it never should) */
  exited(): string | null;
  log(): string;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}, accounts = 2): Promise<Served> {
  const server = await startBenchServer({ env: { NEXTAUTH_SECRET: 'http-suite-secret', EV_EGRESS_POLICY: 'off', ...env }, accounts });
  const rss = sampleRss(server.pid, 50);
  return {
    url: server.baseUrl,
    keys: server.apiKeys,
    peakRssMb: rss.peakSoFar,
    exited: server.exited,
    log: server.log,
    async stop() {
      rss.stop();
      await server.stop();
    },
  };
}

/** GET /health: how long the server took to answer, in ms (rejects if it does not within 2 s). */
export async function health(url: string, timeoutMs = 2000): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`/health answered ${response.status}`);
  await response.text();
  return performance.now() - started;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
  ms: number;
}

export interface Send {
  method?: string;
  headers?: Record<string, string>;
  /** a body sent whole (with its Content-Length unless `chunked`) */
  body?: Buffer | string;
  /** a body produced piece by piece (always chunked): the server may answer before it ends */
  stream?: AsyncIterable<Buffer>;
  chunked?: boolean;
  /**
   * Past this many bytes, write 16 KB every 20 ms. A server that refuses a body mid-stream answers
   * and closes at once (Node's server does, under `next start`); bytes it has not read by then make
   * its kernel reset the connection, and the reset discards the answer before the client reads it.
   * A client that sends slowly near the limit gets the answer; one that floods gets a reset.
   */
  paceFrom?: number;
  timeoutMs?: number;
}

/**
 * One request over a fresh connection, answered as soon as the response arrives. Like a careful
 * client, it stops writing once the server has answered: a server that refuses a body (413) closes
 * the connection, and a reset racing the answer would hide it. The response body is read up to 1 MB.
 */
export function send(url: string, path: string, options: Send = {}): Promise<Answer> {
  const started = performance.now();
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (body && !options.chunked) headers['content-length'] = String(body.length);
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(`${url}${path}`, { method: options.method ?? (body || options.stream ? 'POST' : 'GET'), headers, agent: false });
    request.setMaxListeners(0);
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < 1024 * 1024) chunks.push(chunk);
        size += chunk.length;
      });
      const done = () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: response.statusCode!, headers: response.headers, text, json, ms: performance.now() - started });
        request.destroy();
      };
      response.on('end', done);
      response.on('error', done);
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      if (!answered) reject(error);
    });
    const pieces = options.stream ?? (body ? slices(body) : null);
    if (!pieces) {
      request.end();
      return;
    }
    (async () => {
      let first = true;
      let written = 0;
      for await (const piece of pieces) {
        // a piece at a time, letting the event loop read between writes, so that writing stops
        // as soon as the answer is in; past `paceFrom`, 16 KB every 20 ms (see Send.paceFrom)
        const step = written >= (options.paceFrom ?? Infinity) ? 16 * 1024 : 64 * 1024;
        for (let at = 0; at < piece.length; at += step) {
          if (answered || request.destroyed) return;
          if (!request.write(piece.subarray(at, at + step))) await new Promise((r) => request.once('drain', r).once('close', r));
          written += Math.min(step, piece.length - at);
          await new Promise((r) => (written > (options.paceFrom ?? Infinity) ? setTimeout(r, 20) : setImmediate(r)));
        }
        // a server that judges the request by its headers answers now: give it the chance
        if (first) await new Promise((r) => setTimeout(r, 50));
        first = false;
      }
      if (!answered && !request.destroyed) request.end();
    })().catch(() => {});
  });
}

/** The body in 1 MB pieces after a first one small enough for the server's socket buffer. */
function* slices(body: Buffer): Iterable<Buffer> {
  yield body.subarray(0, 16 * 1024);
  for (let at = 16 * 1024; at < body.length; at += 1024 * 1024) yield body.subarray(at, at + 1024 * 1024);
}

/** `count` copies of `unit` joined by commas, between `open` and `close`, written a slice at a time. */
export async function* repeated(open: string, unit: string, count: number, close: string): AsyncIterable<Buffer> {
  yield Buffer.from(open);
  const slice = Buffer.from(`${Array(10_000).fill(unit).join(',')},`);
  let left = count;
  while (left > 10_000) {
    yield slice;
    left -= 10_000;
  }
  yield Buffer.from(Array(Math.max(left, 1)).fill(unit).join(','));
  yield Buffer.from(close);
}
