// npm run worker: the job worker as its own process (set EV_EMBEDDED_WORKER=false on the servers
// if all work should happen here). SIGTERM stops claiming, finishes or releases the chunk in hand, exits.
import { startWorker, stopOnSignals } from '../lib/jobs/embedded';
import { startReservationSweeper } from '../lib/accounts/sweeper';
import { db } from '../lib/db/client';

const worker = await startWorker();
startReservationSweeper(await db());
console.log(`worker ${worker.id} started`);
stopOnSignals(worker);
