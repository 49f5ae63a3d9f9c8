import { verifierFor } from '../../checks/verifiers';
import { env } from '../../config/env';
import { processSlot } from '../../config/process-slots';
import { db } from '../../db/client';
import { egressOf } from '../../egress/egress';
import { identityRefusal, noteProductionWork, productionPaused } from '../../egress/state';
import { startMonitorScheduler } from '../../monitors/runs';
import { startDispatcher } from '../../webhooks/dispatch';
import { chunkQueue } from '../queue';
import { JobWorker } from './worker';

const running = processSlot<{ worker: JobWorker; stopDispatcher: () => Promise<void>; stopMonitors: () => void }>('worker');

/** The worker for this process (server or `npm run worker`), created on first call. */
export async function startWorker(): Promise<JobWorker> {
  if (running.value) return running.value.worker;
  const database = await db();
  // pg-boss starts before the worker says it has: its first claim does not wait for the engine
  await chunkQueue(database).open();
  const config = env();
  const worker = new JobWorker(database, {
    concurrency: config.EV_WORKER_CONCURRENCY,
    leaseMs: config.EV_LEASE_MS,
    maxAttempts: config.EV_JOB_MAX_ATTEMPTS,
    errorRetryMs: config.EV_TRANSIENT_RETRY_MS,
    verifierFor: (sandbox, jobId) => {
      if (!sandbox) noteProductionWork();
      return verifierFor(sandbox, jobId);
    },
    productionPaused,
    egress: egressOf(config).key,
    greylistPinMs: config.EV_GREYLIST_RETRY_MS,
  });
  const refusal = identityRefusal(config);
  if (refusal) console.error(`[worker] production jobs wait: ${refusal}`);
  worker.start();
  // Webhooks go out beside the worker, never in its loop: a slow receiver delays only its own deliveries.
  // monitors' due runs (lib/monitors/runs.ts): every worker looks, each run starts once
  running.value = { worker, stopDispatcher: startDispatcher(database), stopMonitors: startMonitorScheduler(database, config.EV_MONITOR_POLL_MS) };
  return worker;
}

/** New work was queued here: an in-process worker need not wait for its next poll. */
export function pokeWorker(): void {
  running.value?.worker.poke();
}

export async function stopWorker(): Promise<void> {
  running.value?.stopMonitors();
  await Promise.all([running.value?.worker.stop(), running.value?.stopDispatcher()]);
  running.value = undefined;
}

export function embeddedWorkerEnabled(): boolean {
  return env().EV_EMBEDDED_WORKER;
}

/** SIGTERM/SIGINT: stop claiming, finish or release the chunk in hand, then exit. */
export function stopOnSignals(worker: JobWorker): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      console.log(`worker ${worker.id}: ${signal}, finishing the chunk in hand`);
      stopWorker().finally(() => process.exit(0));
    });
  }
}
