/**
 * How politely one sender talks to a mail system: at most `concurrency` open conversations and
 * `perMinute` new connections a minute per target (a provider's whole MX fleet, or one MX host),
 * a pause after "421 too many connections", and no second knock at a greylisted mailbox before its
 * retry time. The verifier asks a `Politeness` and never counts by itself, so the same core runs
 * alone (`createLocalPoliteness`, this process) or in a fleet whose processes share one store
 * (lib/db/politeness-pg.ts on PostgreSQL).
 */
import { sleep } from './abort';
export interface Pacing {
  /** open conversations at once */
  concurrency: number;
  /** new connections a minute; 0: no pace, only the concurrency limit */
  perMinute: number;
}

export interface PoliteTarget {
  /** `provider:google` (all of Google's MX names share one budget) or `mx:<host>` */
  key: string;
  pacing: Pacing;
}

export interface Politeness {
  /**
   * Resolves when a connection to the target may start: a concurrency lease is held and the pace
   * allows it. `release` must be called when the conversation ends (a crashed holder's lease
   * expires on a shared store). Rejects with the signal's reason when it fires first.
   */
  acquire(target: PoliteTarget, signal?: AbortSignal): Promise<{ release(): void }>;
  /** Leaves `subject` alone (a back-off key, a greylisted mailbox) for `ms`. */
  hold(subject: string, ms: number): Promise<void>;
  /** How long each subject is still held (0 when free). */
  heldFor(subjects: string[]): Promise<number[]>;
}

export const politeKey = (mxHost: string, providerId: string | null | undefined): string =>
  providerId ? `provider:${providerId}` : `mx:${mxHost.toLowerCase().replace(/\.$/, '')}`;
export const backoffSubject = (key: string) => `backoff:${key}`;

/**
 * The store as one egress sees it: every target key and held subject becomes that egress's own
 * (`ip:192.0.2.7|provider:google`), so in either store the budgets, 421 holds and greylist times
 * are kept per (egress, target). Providers count per sending IP; a greylist hold too, since most
 * greylisting is keyed by the client IP (the job keeps such addresses on their egress).
 */
export function forEgress(politeness: Politeness, egress: string): Politeness {
  // `default` keeps the keys unprefixed: processes of the previous release, still running during
  // a rolling upgrade, share its budget instead of doubling it
  if (egress === 'default') return politeness;
  const own = (key: string) => `${egress}|${key}`;
  return {
    acquire: (target, signal) => politeness.acquire({ ...target, key: own(target.key) }, signal),
    hold: (subject, ms) => politeness.hold(own(subject), ms),
    heldFor: (subjects) => politeness.heldFor(subjects.map(own)),
  };
}
export const greylistSubject = (address: string) => `grey:${address.toLowerCase()}`;

/**
 * Milliseconds between connection starts for a pace (0: unpaced). 2% over the exact spacing: a
 * start waits on its process's timer, which can fire late, and a late start followed by one on
 * time would otherwise put `perMinute + 1` starts in some minute; this way a start may be up to
 * 1.2 s late before any minute sees more than the pace.
 */
export const paceInterval = (pacing: Pacing): number => (pacing.perMinute > 0 ? Math.ceil((60_000 / pacing.perMinute) * 1.02) : 0);

/**
 * This process only: one machine (SQLite) and every verifier of the process share it, so jobs and
 * single checks together stay within a target's pacing. Pace is kept as the next free start time
 * (GCRA with no burst): starts are at least `60 s / perMinute` apart, so no minute window, however
 * placed, sees more than `perMinute`.
 */
export function createLocalPoliteness(now: () => number = Date.now): Politeness {
  const active = new Map<string, { count: number; waiting: (() => void)[] }>();
  const nextStart = new Map<string, number>();
  const holds = new Map<string, number>();

  function lease(key: string, limit: number, signal?: AbortSignal): Promise<void> {
    let lane = active.get(key);
    if (!lane) active.set(key, (lane = { count: 0, waiting: [] }));
    const own = lane;
    if (own.count < limit) {
      own.count++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        own.count++;
        resolve();
      };
      const onAbort = () => {
        own.waiting.splice(own.waiting.indexOf(start), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      own.waiting.push(start);
    });
  }

  function unlease(key: string): void {
    const lane = active.get(key)!;
    lane.count--;
    const next = lane.waiting.shift();
    if (next) next();
    else if (lane.count === 0) active.delete(key);
  }

  return {
    async acquire({ key, pacing }, signal) {
      await lease(key, Math.max(1, pacing.concurrency), signal);
      try {
        const interval = paceInterval(pacing);
        if (interval > 0) {
          const at = Math.max(now(), nextStart.get(key) ?? 0);
          nextStart.set(key, at + interval);
          if (nextStart.size > 10_000) for (const [k, t] of nextStart) if (t < now()) nextStart.delete(k);
          await sleep(at - now(), signal);
        }
      } catch (error) {
        unlease(key);
        throw error;
      }
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          unlease(key);
        },
      };
    },
    async hold(subject, ms) {
      holds.set(subject, Math.max(holds.get(subject) ?? 0, now() + ms));
    },
    async heldFor(subjects) {
      return subjects.map((subject) => {
        const left = (holds.get(subject) ?? 0) - now();
        if (left <= 0) holds.delete(subject); // a long-lived map keeps only live holds
        return Math.max(0, left);
      });
    },
  };
}
