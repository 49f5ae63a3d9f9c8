import { hostname } from 'node:os';
import type { Database } from '../../db/client';
import { newId } from '../../db/ids';
import { startRetention } from '../../retention/sweep';
import { chunkQueue, claimChunk } from '../queue';
import type { ChunkClaim } from '../queue/ledger';
import { ChunkRun, yieldToEventLoop } from './chunk-run';
import { finishStranded } from './lifecycle';
import type { WorkerOptions } from './options';

/** chunks a worker holds at once (of them at most two sandbox chunks: see `step`) */
export const MAX_CHUNKS_IN_HAND = 3;

/**
 * Claims chunks under a lease, verifies their unverified items (lib/jobs/worker/chunk-run.ts), saves
 * results in batches and finishes jobs. A chunk whose worker died is taken again once its lease
 * runs out; results already saved are skipped, so every address is verified once.
 */
export class JobWorker {
  readonly id = `${hostname()}-${process.pid}-${newId('w', 4)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** the chunks being verified, each removed when its run ends */
  private readonly inHand = new Set<Promise<void>>();
  private nextSweep = 0;
  private stopRetention: (() => Promise<void>) | null = null;
  private nextRedeliver = 0;
  /** the run of the sandbox chunk claimed last, until it ends */
  private sandboxRun: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    if (this.options.retention ?? true) this.stopRetention = startRetention(this.database, this.id);
  }

  /** Stops claiming; the chunks in hand are finished (or released), then the loop ends. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.stopRetention?.();
    this.stopRetention = null;
    await this.loop;
  }

  /** Shortens the idle wait when new work was just queued in this process. */
  poke(): void {
    this.wake?.();
  }

  /** Verifies one claimed chunk in the foreground (tests; the loop runs chunks through `step`). */
  process(chunk: ChunkClaim): Promise<void> {
    return this.runOf(chunk).verify();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const busy = await this.step().catch((error: unknown) => {
        console.error('[worker] error', error);
        return false;
      });
      if (!busy && this.running) await this.idle();
    }
    await Promise.all(this.inHand);
  }

  /**
   * One turn of the loop: sweep jobs left unfinished, wait for a free hand, claim a chunk and set
   * it running. False when there was nothing to claim (the loop then idles).
   */
  private async step(): Promise<boolean> {
    await this.sweepIfDue();
    if (this.inHand.size >= MAX_CHUNKS_IN_HAND) {
      await Promise.race(this.inHand);
      return true;
    }
    const { egress, greylistPinMs: pinMs } = this.options;
    const sandboxOnly = this.options.productionPaused?.() ?? false;
    const chunk = await claimChunk(this.database, this.id, this.options.leaseMs, { sandboxOnly, egress, pinMs });
    if (chunk) {
      const run = this.runOf(chunk);
      const done = run
        .take()
        .catch((error: unknown) => console.error('[worker] error', error))
        .finally(() => this.inHand.delete(done));
      this.inHand.add(done);
      // A production chunk ends when its slowest mail system has answered; meanwhile the others'
      // budgets would sit idle (bench/politeness.ts: 1.46x the ideal time). So once every address
      // of the chunk in hand has started, the next chunk is claimed beside it. A sandbox chunk's
      // addresses all answer at once, but its last save and its completion wait on the database:
      // the next chunk is claimed, read and verified meanwhile, and the one after that only once
      // this one has ended (two sandbox chunks in hand at most: one verifying, one finishing).
      if (chunk.sandbox) {
        const before = this.sandboxRun;
        this.sandboxRun = done;
        await Promise.all([run.started, before]);
      } else await run.started;
    }
    // without this the loop would run from chunk to chunk and starve the HTTP server sharing the process
    await yieldToEventLoop();
    return chunk !== null;
  }

  /**
   * Finishes jobs whose chunks are all done but that were never finished (their finisher died), and,
   * at start and every `redeliverMs`, gives open chunks the queue cannot hand out a delivery (upgrades).
   */
  private async sweepIfDue(): Promise<void> {
    if (Date.now() >= this.nextRedeliver) {
      this.nextRedeliver = Date.now() + (this.options.redeliverMs ?? 30_000);
      await chunkQueue(this.database).redeliver();
    }
    if (Date.now() < this.nextSweep) return;
    this.nextSweep = Date.now() + (this.options.sweepMs ?? 10_000);
    await finishStranded(this.database);
  }

  private runOf(chunk: ChunkClaim): ChunkRun {
    return new ChunkRun(this.database, this.options, chunk, () => this.running);
  }

  /** Waits for the poll interval, a poke, or a chunk in hand ending. */
  private idle(): Promise<void> {
    const poll = new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.pollMs ?? 250);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    return Promise.race([poll, ...this.inHand]);
  }
}
