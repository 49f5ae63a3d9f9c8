// npm run worker: the job worker as its own process (set EV_EMBEDDED_WORKER=false on the servers
// if all work should happen here). SIGTERM stops claiming, finishes or releases the chunk in hand, exits.
import { startWorker, stopWorker } from '../lib/jobs/embedded';

const worker = await startWorker();
console.log(`worker ${worker.id} started`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    console.log(`worker ${worker.id}: ${signal}, finishing the chunk in hand`);
    await stopWorker();
    process.exit(0);
  });
}
