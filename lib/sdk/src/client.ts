import { ConnectionError, EmailVerifierError, TimeoutError, errorFromResponse } from './errors.ts';
import type { ErrorBody } from './errors.ts';

export interface EmailVerifierOptions {
  /** an API key: a secret one (`ev_live_…`), or in a web page a publishable one (`ev_pub_…`, sent as `?key=` so the CORS preflight can be answered) */
  apiKey?: string;
  /**
   * instead of a key, the signed-in browser's session cookie (the service's own dashboard): no
   * Authorization header, `credentials: 'same-origin'`, and `baseUrl` defaults to the page's origin
   */
  session?: boolean;
  /** where the service runs; default http://localhost:3000 (with `session`, the page's origin) */
  baseUrl?: string;
  /** send `X-EV-Sandbox: true`: deterministic verdicts, nothing charged, the error triggers work */
  sandbox?: boolean;
  /** per attempt, until the whole answer is read (a download: until its headers); default 30,000 */
  timeoutMs?: number;
  /** retries after the first attempt, on 429, 5xx, time-outs and network errors; default 2 */
  maxRetries?: number;
  /** the first back-off; each retry doubles it, with jitter; default 500 */
  retryDelayMs?: number;
  /** the longest wait before a retry; a Retry-After longer than this is not waited for, the error is thrown; default 60,000 */
  maxRetryDelayMs?: number;
  /** a fetch of your own (tests, proxies); default globalThis.fetch */
  fetch?: typeof fetch;
  /** called before each retry */
  onRetry?: (retry: RetryInfo) => void;
}

export interface RetryInfo {
  /** 1 for the first retry */
  attempt: number;
  delayMs: number;
  error: EmailVerifierError;
}

/** Options every call takes. */
export interface RequestOptions {
  timeoutMs?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  /** POST only: your own key instead of the one generated for this call */
  idempotencyKey?: string;
}

export interface Call extends RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

const DEFAULT_BASE_URL = 'http://localhost:3000';

function randomKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Waits `ms`; rejects with the signal's reason when it fires first (retries and bulk.wait). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After as seconds (the API sends delta-seconds; an HTTP date is read too). */
function retryAfterSeconds(header: string | null, body: ErrorBody | null): number | null {
  if (header !== null) {
    if (/^\d+$/.test(header.trim())) return Number(header);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  return typeof body?.retry_after === 'number' ? body.retry_after : null;
}

/** One attempt's signal: the caller's, plus the time-out. */
function attemptSignal(timeoutMs: number, outer?: AbortSignal) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** The transport: authentication, mode, time-outs, retries with back-off, idempotency keys, typed errors. */
export class Transport {
  readonly baseUrl: string;
  readonly sandbox: boolean;
  private readonly apiKey: string;
  private readonly session: boolean;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly onRetry?: (retry: RetryInfo) => void;

  constructor(options: EmailVerifierOptions) {
    if (!options?.apiKey && !options?.session) throw new TypeError('EmailVerifier: apiKey is required');
    this.apiKey = options.apiKey ?? '';
    this.session = !options.apiKey;
    const origin = this.session ? globalThis.location?.origin : undefined;
    this.baseUrl = (options.baseUrl ?? origin ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.sandbox = options.sandbox ?? false;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('EmailVerifier: no fetch in this runtime; pass options.fetch');
    this.fetchImpl = fetchImpl.bind(globalThis);
    this.onRetry = options.onRetry;
  }

  async json<T>(method: string, path: string, call: Call = {}): Promise<T> {
    const { text } = await this.send(method, path, call, false);
    return JSON.parse(text) as T;
  }

  /** The answer's body as a stream (the time-out covers the wait for its headers). */
  async stream(path: string, call: Call = {}): Promise<ReadableStream<Uint8Array>> {
    const { response } = await this.send('GET', path, call, true);
    return response.body ?? new Response('').body!;
  }

  /** A publishable key travels in the URL: a browser's preflight cannot carry the Authorization header. */
  private get publishable(): boolean {
    return this.apiKey.startsWith('ev_pub_');
  }

  private url(path: string, query: Call['query']): string {
    const url = new URL(this.baseUrl + path);
    if (this.publishable) url.searchParams.set('key', this.apiKey);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private backoff(retry: number): number {
    const full = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** retry);
    return Math.round(full / 2 + (Math.random() * full) / 2);
  }

  private async send(method: string, path: string, call: Call, streaming: boolean): Promise<{ response: Response; text: string }> {
    const url = this.url(path, call.query);
    const headers: Record<string, string> = {
      ...(this.publishable || this.session ? {} : { authorization: `Bearer ${this.apiKey}` }),
      accept: 'application/json',
      'x-ev-sandbox': this.sandbox ? 'true' : 'false',
    };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = call.maxRetries ?? this.maxRetries;
    // One key for the logical call, reused by every retry: the server replays the first answer
    // instead of verifying (or charging) twice. A call that is never retried needs none.
    if (method === 'POST' && (call.idempotencyKey || maxRetries > 0)) headers['idempotency-key'] = call.idempotencyKey ?? randomKey();
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;

    // what made the first retry necessary: a later 409 only says that attempt is still running
    let cause: EmailVerifierError | null = null;
    for (let attempt = 0; ; attempt++) {
      const attemptState = attemptSignal(timeoutMs, call.signal);
      let error: EmailVerifierError;
      let retryAfter: number | null = null;
      try {
        const cookie = this.session ? { credentials: 'same-origin' as const } : {};
        const response = await this.fetchImpl(url, { method, headers, body, signal: attemptState.signal, ...cookie });
        if (response.ok && streaming) {
          attemptState.done();
          return { response, text: '' };
        }
        const text = await response.text();
        attemptState.done();
        if (response.ok) return { response, text };
        let envelope: ErrorBody | null = null;
        try {
          envelope = JSON.parse(text) as ErrorBody;
        } catch {
          envelope = null;
        }
        retryAfter = retryAfterSeconds(response.headers.get('retry-after'), envelope);
        error = errorFromResponse(response.status, envelope, response.headers.get('x-request-id'), retryAfter);
        // A POST whose earlier attempt is still running on the server (its answer was lost or late):
        // waiting gets that attempt's stored answer.
        const inFlight = response.status === 409 && method === 'POST' && envelope?.error === 'conflict' && cause !== null;
        if (!(response.status === 429 || response.status >= 500 || inFlight)) throw error;
        if (inFlight && attempt >= maxRetries) throw cause!;
      } catch (thrown) {
        attemptState.done();
        if (thrown instanceof EmailVerifierError) throw thrown;
        if (call.signal?.aborted) throw call.signal.reason;
        const reason = thrown instanceof Error ? thrown.message : String(thrown);
        error = attemptState.timedOut()
          ? new TimeoutError(`No answer from ${new URL(url).host} within ${timeoutMs} ms.`, { code: 'timeout', status: 0, requestId: null, cause: thrown })
          : new ConnectionError(`Could not reach ${new URL(url).host}: ${reason}`, { code: 'connection_error', status: 0, requestId: null, cause: thrown });
      }
      if (attempt >= maxRetries) throw error;
      cause ??= error;
      const delayMs = retryAfter !== null && error.status === 429 ? retryAfter * 1000 : this.backoff(attempt);
      if (delayMs > this.maxRetryDelayMs) throw error;
      this.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, call.signal);
    }
  }
}
