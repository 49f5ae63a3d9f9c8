import type { Database } from '../../db/client';
import { type ChunkClaim, claimHeld, renewLease } from '../queue/ledger';

/** how often a production chunk's claim is checked while its conversations wait for a turn */
const WATCH_MS = 250;
/** a production probe starts only on a claim seen held this recently (a cancel stops new probes within it) */
const FRESH_MS = 100;

/**
 * A chunk's claim while its worker holds it: the lease is renewed, and a cancel (or a takeover)
 * stops the probing at once, not at the next heartbeat. A production probe starts only on a claim
 * seen held within FRESH_MS (one query at a time, shared by the chunk's runners), the claim is also
 * checked every WATCH_MS, and once it is gone `signal` ends the conversations waiting for a turn.
 */
export class ClaimWatch {
  private readonly stop = new AbortController();
  private heldAt = performance.now(); // just claimed
  private checking: Promise<boolean> | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly watch: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Database,
    private readonly chunk: ChunkClaim,
    leaseMs: number,
  ) {
    this.heartbeat = setInterval(
      () => {
        renewLease(database, chunk, leaseMs).then(
          (held) => held || this.lose(),
          () => {},
        );
      },
      Math.max(50, leaseMs / 3),
    );
    this.watch = chunk.sandbox ? undefined : setInterval(() => void this.stillHeld().catch(() => {}), WATCH_MS);
  }

  /** True once the claim is gone (cancelled, failed, taken over): nothing more is probed or saved. */
  get lost(): boolean {
    return this.stop.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  lose(): void {
    this.stop.abort();
  }

  /** Whether a probe may start without asking the database (a sandbox probe always may). */
  get fresh(): boolean {
    return this.chunk.sandbox || performance.now() - this.heldAt <= FRESH_MS;
  }

  /** Asks the database: true (held), false (the claim is gone) or null (the database did not answer). */
  check(): Promise<boolean | null> {
    return this.stillHeld().catch(() => null);
  }

  close(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.watch);
  }

  private stillHeld(): Promise<boolean> {
    return (this.checking ??= claimHeld(this.database, this.chunk)
      .then((held) => {
        if (held) this.heldAt = performance.now();
        else this.lose();
        return held;
      })
      .finally(() => (this.checking = null)));
  }
}
