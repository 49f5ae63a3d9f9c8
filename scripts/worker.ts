// npm run worker: the job worker as its own process (set EV_EMBEDDED_WORKER=false on the servers
// if all work should happen here). SIGTERM stops claiming, finishes or releases the chunk in hand, exits.
// EV_METRICS_PORT (with EV_METRICS_TOKEN): its Prometheus metrics on that port (docs/operations.md).
import { env } from '../lib/config/env';
import { startWorker, stopOnSignals } from '../lib/jobs/worker/embedded';
import { serveMetrics } from '../lib/metrics/server';
import { startReservationSweeper } from '../lib/accounts/sweeper';
import { db } from '../lib/db/client';

const config = env();
const worker = await startWorker();
if (config.EV_METRICS_PORT > 0) {
  if (config.EV_METRICS_TOKEN) await serveMetrics(config.EV_METRICS_PORT);
  else console.warn(`[metrics] EV_METRICS_PORT=${config.EV_METRICS_PORT} is ignored: set EV_METRICS_TOKEN`);
}
startReservationSweeper(await db());
console.log(`worker ${worker.id} started`);
stopOnSignals(worker);
