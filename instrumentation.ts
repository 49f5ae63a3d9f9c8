/**
 * Runs once when the server starts: opens the database (applying migrations), starts the
 * reservation sweeper and, unless EV_EMBEDDED_WORKER=false, the job worker in this process.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { db } = await import('./lib/db/client');
  const { embeddedWorkerEnabled, startWorker, stopOnSignals } = await import('./lib/jobs/worker/embedded');
  const { startReservationSweeper } = await import('./lib/accounts/sweeper');
  // every server gives back reservations whose request died (docs/guarantees.md), worker or not
  startReservationSweeper(await db());
  if (!embeddedWorkerEnabled()) return;
  stopOnSignals(await startWorker());
}
