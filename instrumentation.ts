/**
 * Runs once when the server starts: opens the database (applying migrations) and, unless
 * EV_EMBEDDED_WORKER=false, starts the job worker in this process.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { db } = await import('./lib/db/client');
  const { embeddedWorkerEnabled, startWorker, stopOnSignals } = await import('./lib/jobs/embedded');
  await db();
  if (!embeddedWorkerEnabled()) return;
  stopOnSignals(await startWorker());
}
