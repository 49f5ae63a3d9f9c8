import { hostname } from 'node:os';
import type { Database } from '../db/client';
import { newId } from '../db/ids';
import type { Verifier, VerifyOutcome } from '../verifier/types';
import { unexpectedErrorVerdict } from '../verifier/verdict';
import { ruleBookFor } from '../rules/store';
import { failpoint } from '../failpoints/failpoints';
import { completeChunkAndFinish, failJob, finishStranded, markProcessing } from './lifecycle';
import { verificationRow } from '../results/rows';
import { claimChunk, claimHeld, releaseChunk, renewLease, saveChunkResults, unverifiedItems, type ChunkClaim } from './chunks';

export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  /** How often an idle worker looks for work. */
  pollMs?: number;
  /**
   * How many times a chunk is retried for transient SMTP answers (or a verifier that threw) before
   * they stand as `unknown`. A chunk claimed twice as often (its workers died or lost it each time)
   * fails its job.
   */
  maxAttempts?: number;
  /** When an address is tried again after our side failed: the verifier threw, the database did not answer (default 30 s). */
  errorRetryMs?: number;
  /** How often the worker looks for jobs whose chunks are all done but that were never finished (default 10 s). */
  sweepMs?: number;
  verifierFor(sandbox: boolean, jobId: string): Verifier;
  /** True while production chunks must wait (egress check failing under EV_EGRESS_POLICY=pause); sandbox chunks still run. */
  productionPaused?(): boolean;
  /**
   * This process's egress (lib/egress/egress.ts): a production chunk handed back for greylisting is
   * marked with it, and chunks marked by another egress are left to that one for `greylistPinMs`
   * past their retry time (then anyone takes them: that egress may be gone).
   */
  egress?: string;
  greylistPinMs?: number;
}

const SAVE_BATCH = 1000;
/** production chunks a worker holds at once (a sandbox chunk is always alone) */
export const MAX_CHUNKS_IN_HAND = 3;
/** how often a production chunk's claim is checked while its conversations wait for a turn */
const WATCH_MS = 250;
/** a production probe starts only on a claim seen held this recently (a cancel stops new probes within it) */
const FRESH_MS = 100;

/**
 * Claims chunks under a lease, verifies their unverified items, saves results in batches and
 * finishes jobs. A chunk whose worker died is taken again once its lease runs out; results already
 * saved are skipped, so every address is verified once.
 */
export class JobWorker {
  readonly id = `${hostname()}-${process.pid}-${newId('w', 4)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly database: Database, private readonly options: WorkerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming; the chunk in hand is finished (or released), then the loop ends. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Shortens the idle wait when new work was just queued in this process. */
  poke(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    // A production chunk ends when its slowest mail system has answered; meanwhile the others'
    // budgets would sit idle (bench/politeness.ts: 1.46x the ideal time). So once every address of
    // the chunk in hand has started, a second production chunk is claimed beside it.
    const inHand = new Set<Promise<void>>();
    let nextSweep = 0;
    while (this.running) {
      let worked = false;
      try {
        if (Date.now() >= nextSweep) {
          nextSweep = Date.now() + (this.options.sweepMs ?? 10_000);
          await finishStranded(this.database);
        }
        if (inHand.size >= MAX_CHUNKS_IN_HAND) {
          await Promise.race(inHand);
          continue;
        }
        const sandboxOnly = this.options.productionPaused?.() ?? false;
        const { egress, greylistPinMs: pinMs } = this.options;
        const chunk = await claimChunk(this.database, this.id, this.options.leaseMs, { sandboxOnly, egress, pinMs });
        if (chunk) {
          worked = true;
          let allStarted!: () => void;
          const started = new Promise<void>((resolve) => (allStarted = resolve));
          const work = this.take(chunk, allStarted).catch((error: unknown) => console.error('[worker] error', error)).finally(() => {
            inHand.delete(work);
            allStarted();
          });
          inHand.add(work);
          await (chunk.sandbox ? work : started);
        }
        // Sandbox chunks and SQLite writes complete synchronously: without this the loop would
        // run from chunk to chunk and starve the HTTP server sharing the process.
        await yieldToEventLoop();
      } catch (error) {
        console.error('[worker] error', error);
      }
      if (!worked && this.running) await (inHand.size > 0 ? Promise.race([this.idle(), ...inHand]) : this.idle());
    }
    await Promise.all(inHand);
  }

  private async take(chunk: ChunkClaim, allStarted: () => void): Promise<void> {
    const maxClaims = 2 * (this.options.maxAttempts ?? 5);
    if (chunk.attempts > maxClaims) {
      await failJob(this.database, chunk.jobId, `Addresses ${chunk.startIdx}-${chunk.endIdx - 1} could not be verified in ${maxClaims} attempts.`);
    } else {
      await this.process(chunk, allStarted);
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollMs ?? 250);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  async process(chunk: ChunkClaim, allStarted: () => void = () => {}): Promise<void> {
    const { database, options } = this;
    const errorRetryMs = options.errorRetryMs ?? 30_000;
    await markProcessing(database, chunk.jobId);
    let lost = false;
    // A cancel (or a takeover) must stop the probing at once, not at the next heartbeat: a production
    // probe starts only on a claim seen held within FRESH_MS (one query at a time, shared by the
    // chunk's runners), the claim is also checked every WATCH_MS, and once it is gone the signal
    // ends the conversations waiting for a turn.
    const stop = new AbortController();
    const lose = () => {
      lost = true;
      stop.abort();
    };
    let heldAt = performance.now(); // just claimed
    let checking: Promise<boolean> | null = null;
    const stillHeld = () => (checking ??= claimHeld(database, chunk).then((held) => {
      if (held) heldAt = performance.now();
      else lose();
      return held;
    }).finally(() => (checking = null)));
    const heartbeat = setInterval(() => {
      renewLease(database, chunk, options.leaseMs).then((held) => held || lose(), () => {});
    }, Math.max(50, options.leaseMs / 3));
    const watch = chunk.sandbox ? undefined : setInterval(() => void stillHeld().catch(() => {}), WATCH_MS);
    try {
      const items = await unverifiedItems(database, chunk);
      const verifier = options.verifierFor(chunk.sandbox, chunk.jobId);
      // the account's rules, read once per chunk: each address is then a few Map lookups
      const rules = await ruleBookFor(database, chunk.userId);
      const lastTry = chunk.attempts >= (options.maxAttempts ?? 5);
      let pending: unknown[][] = [];
      let retryAfter = Infinity;
      let greylisted = false;
      let skipped = 0;
      const flush = async () => {
        const rows = pending;
        pending = [];
        if (rows.length === 0) return;
        // refused when the claim is gone: a cancelled job's late results are neither stored nor free
        if (await saveChunkResults(database, chunk, rows)) failpoint('worker.after-save');
        else lose();
      };
      // `concurrency` runners take the items in order: at most that many verifications at once,
      // without a queued promise per item (a sandbox chunk is 2,000 items that answer at once)
      let next = 0;
      const runner = async () => {
        while (next < items.length) {
          const item = items[next++]!;
          // every address of the chunk has started: the worker may claim its next chunk beside it
          if (next === items.length) allStarted();
          // A stopping worker hands slow (production) work back instead of finishing it.
          if (lost || (!this.running && !chunk.sandbox)) {
            skipped++;
            continue;
          }
          if (!chunk.sandbox && performance.now() - heldAt > FRESH_MS) {
            // our database not answering is a retry of this address, never a verdict
            const held = await stillHeld().catch(() => null);
            if (held !== true) {
              if (held === null) retryAfter = Math.min(retryAfter, errorRetryMs);
              continue;
            }
          }
          // A verifier that throws (a bug, not an answer) is asked again later like a busy server;
          // on the last try the address stands as unknown/unexpected_error and the job finishes.
          const outcome: VerifyOutcome = await verifier.verify(item.email, chunk.sandbox ? { rules } : { rules, signal: stop.signal }).catch((error: unknown) => {
            console.error(`[worker] job ${chunk.jobId} address ${item.idx}:`, error);
            return { verdict: unexpectedErrorVerdict(item.email), retryAfterMs: errorRetryMs };
          });
          if (lost) continue; // cut short by the cancel: not an answer
          if (outcome.retryAfterMs !== undefined && !lastTry) {
            retryAfter = Math.min(retryAfter, outcome.retryAfterMs);
            greylisted ||= outcome.verdict.sub_reason === 'greylisted';
            continue;
          }
          pending.push(verificationRow(outcome.verdict, {
            userId: chunk.userId, jobId: chunk.jobId, idx: item.idx, sandbox: chunk.sandbox, source: 'bulk', cached: false, at: Date.now(),
          }));
          if (pending.length >= SAVE_BATCH) {
            await flush();
            await yieldToEventLoop();
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(Math.max(1, options.concurrency), items.length) }, runner));
      await flush();
      if (lost) return;
      if (retryAfter !== Infinity || skipped > 0) {
        // handed back because this worker is stopping: that claim does not count as an attempt
        const egress = greylisted && !chunk.sandbox ? options.egress ?? null : null;
        await releaseChunk(database, chunk, retryAfter === Infinity ? 0 : retryAfter, { countAttempt: skipped === 0, egress });
        return;
      }
      await completeChunkAndFinish(database, chunk);
    } finally {
      clearInterval(heartbeat);
      clearInterval(watch);
    }
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
