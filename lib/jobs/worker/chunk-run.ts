import type { Database } from '../../db/client';
import { resultsPerSave } from '../../db/queries/jobs';
import { failpoint } from '../../failpoints/failpoints';
import { verificationRow } from '../../results/rows';
import { ruleBookFor } from '../../rules/store';
import type { VerifyOutcome } from '../../verifier/types';
import { unexpectedErrorVerdict } from '../../verifier/verdict';
import { releaseChunk } from '../queue';
import { type ChunkClaim, saveChunkResults } from '../queue/ledger';
import type { ItemColumns } from '../../db/queries/jobs';
import { unverifiedItems } from './chunk-items';
import { ClaimWatch } from './claim-watch';
import { completeChunkAndFinish, failJob, markProcessing } from './lifecycle';
import type { WorkerOptions } from './options';

/**
 * A production chunk's results are also saved once this old: each is an SMTP conversation spent
 * from a provider's budget, and a worker killed mid-chunk must not take them with it.
 */
const SAVE_EVERY_MS = 1000;

type Verify = (email: string, idx: number) => Promise<VerifyOutcome>;

/**
 * One claimed chunk from claim to finish: verify its unverified items with at most `concurrency`
 * at once, save the results in batches, then complete the chunk or hand it back. Its state lives
 * here, so the worker's loop only claims chunks and counts those in hand.
 */
export class ChunkRun {
  /** Resolves once every address has started (or the run ended): the worker may claim its next chunk beside it. */
  readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly errorRetryMs: number;
  private readonly lastTry: boolean;
  private pending: unknown[][] = [];
  private next = 0;
  private retryAfter = Infinity;
  private greylisted = false;
  private skipped = 0;
  private savedAt = performance.now();

  constructor(
    private readonly database: Database,
    private readonly options: WorkerOptions,
    private readonly chunk: ChunkClaim,
    /** false once the worker is stopping: it then hands slow (production) work back instead of finishing it */
    private readonly workerRunning: () => boolean,
  ) {
    this.started = new Promise<void>((resolve) => (this.markStarted = resolve));
    this.errorRetryMs = options.errorRetryMs ?? 30_000;
    this.lastTry = chunk.attempts >= (options.maxAttempts ?? 5);
  }

  /**
   * Fails the job of a chunk claimed too often in a row without storing a result (its workers died
   * or lost it each time: a poison address), else verifies it.
   */
  async take(): Promise<void> {
    const { chunk } = this;
    const maxClaims = 2 * (this.options.maxAttempts ?? 5);
    try {
      if (chunk.stalledClaims > maxClaims) {
        await failJob(this.database, chunk.jobId, `Addresses ${chunk.startIdx}-${chunk.endIdx - 1} could not be verified in ${maxClaims} attempts.`);
      } else {
        await this.verify();
      }
    } finally {
      this.markStarted();
    }
  }

  /** Verifies the chunk's unverified items, saves them, then completes the chunk or hands it back. */
  async verify(): Promise<void> {
    const { database, chunk, options } = this;
    await markProcessing(database, chunk.jobId);
    const claim = new ClaimWatch(database, chunk, options.leaseMs);
    try {
      const items = await unverifiedItems(database, chunk);
      const verifier = options.verifierFor(chunk.sandbox, chunk.jobId);
      // the account's rules, read once per chunk: each address is then a few Map lookups
      const rules = await ruleBookFor(database, chunk.userId);
      const context = chunk.sandbox ? { rules } : { rules, signal: claim.signal };
      // A verifier that throws (a bug, not an answer) is asked again later like a busy server;
      // on the last try the address stands as unknown/unexpected_error and the job finishes.
      const verify: Verify = (email, idx) =>
        verifier.verify(email, context).catch((error: unknown) => {
          console.error(`[worker] job ${chunk.jobId} address ${idx}:`, error);
          return { verdict: unexpectedErrorVerdict(email), retryAfterMs: this.errorRetryMs };
        });
      // `concurrency` runners take the items in order: at most that many verifications at once,
      // without a queued promise per item (a sandbox chunk is 10,000 items that answer at once)
      const runners = Math.min(Math.max(1, options.concurrency), items.idx.length);
      await Promise.all(Array.from({ length: runners }, () => this.runner(claim, items, verify)));
      await this.save(claim);
      if (!claim.lost) await this.settle();
    } finally {
      claim.close();
    }
  }

  private async runner(claim: ClaimWatch, items: ItemColumns, verify: Verify): Promise<void> {
    const count = items.idx.length;
    while (this.next < count) {
      const at = this.next++;
      const idx = items.idx[at]!;
      if (this.next === count) this.markStarted();
      if (claim.lost || (!this.workerRunning() && !this.chunk.sandbox)) {
        this.skipped++;
        continue;
      }
      if (!claim.fresh) {
        // our database not answering is a retry of this address, never a verdict
        const held = await claim.check();
        if (held !== true) {
          if (held === null) this.retryAfter = Math.min(this.retryAfter, this.errorRetryMs);
          continue;
        }
      }
      const outcome = await verify(items.email[at]!, idx);
      if (claim.lost) continue; // cut short by the cancel: not an answer
      if (outcome.retryAfterMs !== undefined && !this.lastTry) {
        this.retryAfter = Math.min(this.retryAfter, outcome.retryAfterMs);
        this.greylisted ||= outcome.verdict.sub_reason === 'greylisted';
        continue;
      }
      this.pending.push(
        verificationRow(outcome.verdict, {
          userId: this.chunk.userId,
          jobId: this.chunk.jobId,
          idx,
          sandbox: this.chunk.sandbox,
          source: 'bulk',
          cached: false,
          at: Date.now(),
        }),
      );
      if (this.pending.length >= resultsPerSave(this.database.dialect) || (!this.chunk.sandbox && performance.now() - this.savedAt >= SAVE_EVERY_MS)) {
        await this.save(claim);
        await yieldToEventLoop();
      }
    }
  }

  /** Stores the results in hand; refused when the claim is gone: a cancelled job's late results are neither stored nor free. */
  private async save(claim: ClaimWatch): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    this.savedAt = performance.now();
    if (rows.length === 0) return;
    if (await saveChunkResults(this.database, this.chunk, rows)) failpoint('worker.after-save');
    else claim.lose();
  }

  /** Completes the chunk (and its job when it was the last), or hands it back for what must be tried again. */
  private async settle(): Promise<void> {
    const { database, chunk, retryAfter, skipped } = this;
    if (retryAfter === Infinity && skipped === 0) {
      await completeChunkAndFinish(database, chunk);
      return;
    }
    // handed back because this worker is stopping: that claim does not count as an attempt
    const egress = this.greylisted && !chunk.sandbox ? (this.options.egress ?? null) : null;
    await releaseChunk(database, chunk, retryAfter === Infinity ? 0 : retryAfter, { countAttempt: skipped === 0, egress });
  }
}

/** Sandbox chunks and SQLite writes complete synchronously: this lets the HTTP server sharing the process answer. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
