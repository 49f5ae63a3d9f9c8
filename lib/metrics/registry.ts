import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { queueState, type QueueState } from './queue-state';
import { processSlot } from '../config/process-slots';

/**
 * The process's Prometheus metrics (prom-client, the Node.js client Prometheus lists; its default
 * collectors give event-loop lag, heap and resident memory, GC and handles without code of ours).
 * One registry per process, in a process slot (lib/config/process-slots.ts). The job and
 * chunk gauges are read from the database at scrape time (queue-state.ts); everything else is
 * counted where it happens. Label values are bounded: providers are the closed list of
 * lib/verifier/providers.ts (`other` for the rest), egresses the fleet's few.
 */
function build() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // These read one queueState() per scrape (shared for a second). A database that does not answer
  // leaves them empty and ev_database_up at 0: the process's own figures are still scraped.
  new Gauge({
    name: 'ev_database_up',
    help: '1 when the scrape-time queue queries answered, else 0',
    registers,
    async collect() {
      this.set((await currentState()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ev_jobs',
    help: 'Jobs by status, read from the database at scrape time',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const state = await currentState();
      this.reset();
      for (const [status, n] of Object.entries(state?.jobs ?? {})) this.set({ status }, n);
    },
  });
  new Gauge({
    name: 'ev_job_chunks',
    help: 'Chunks of unfinished jobs by state (pending, leased, done), read from the database at scrape time',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const state = await currentState();
      this.reset();
      for (const [chunkState, n] of Object.entries(state?.chunks ?? {})) this.set({ state: chunkState }, n);
    },
  });
  new Gauge({
    name: 'ev_queue_age_seconds',
    help: 'How long the oldest queued job has waited for its first chunk to be taken (0: none waits)',
    registers,
    async collect() {
      const state = await currentState();
      this.reset();
      if (state) this.set(state.oldestQueuedSeconds);
    },
  });
  return {
    registry,
    verifications: new Counter({
      name: 'ev_verifications_total',
      help: 'Verdicts given, by status (`retry_later`: a transient answer the job asks again), mode and mailbox provider',
      labelNames: ['verdict', 'mode', 'provider'] as const,
      registers,
      collect() {
        for (const [key, n] of verdictTally) {
          const [verdict, mode, provider] = key.split('\t');
          this.inc({ verdict, mode, provider }, n);
        }
        verdictTally.clear();
      },
    }),
    smtpReplies: new Counter({
      name: 'ev_smtp_replies_total',
      help: 'SMTP conversations by the class of their deciding reply (or their failure), per provider and egress',
      labelNames: ['class', 'provider', 'egress'] as const,
      registers,
    }),
    politenessWait: new Histogram({
      name: 'ev_politeness_wait_seconds',
      help: 'Time a conversation waited for its concurrency lease and pace, per provider and egress',
      labelNames: ['provider', 'egress'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    politenessHolds: new Counter({
      name: 'ev_politeness_holds_total',
      help: 'Holds placed: `backoff` after a 421, `greylist` for a greylisted mailbox, per egress',
      labelNames: ['kind', 'egress'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'ev_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };
}

function currentState(): Promise<QueueState | null> {
  return queueState().catch((error: unknown) => {
    console.error('[metrics] queue queries failed', (error as Error)?.message ?? error);
    return null;
  });
}

// A sandbox job answers a million addresses in seconds: prom-client's labelled inc() (a sorted key
// per call) would add about 2 µs to each, so verdicts are tallied in a plain map and folded into
// the counter when it is scraped.
const verdictTally = new Map<string, number>();

export function countVerdict(verdict: string, mode: string, provider: string | null): void {
  const key = `${verdict}\t${mode}\t${provider ?? 'other'}`;
  verdictTally.set(key, (verdictTally.get(key) ?? 0) + 1);
}

export type Metrics = ReturnType<typeof build>;
const shared = processSlot<Metrics>('metrics');

export function metrics(): Metrics {
  shared.value ??= build();
  return shared.value;
}

/** `provider:google` → google; an MX host target → `other` (one series per host would be unbounded). */
export const providerLabel = (providerOrTarget: string | null | undefined): string =>
  providerOrTarget ? (providerOrTarget.startsWith('mx:') ? 'other' : providerOrTarget.replace(/^provider:/, '')) : 'other';
