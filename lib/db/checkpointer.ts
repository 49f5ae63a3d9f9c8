import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * SQLite's checkpoints, off the thread that writes.
 *
 * In WAL mode every commit appends its pages to the `-wal` file, and a checkpoint copies them back
 * into the database file. By default the connection whose commit takes the WAL past 1,000 pages runs
 * that checkpoint inside its commit, on the server's one thread: the commits of a 1M-address job
 * were a sixth of its time there (docs/benchmarks.md, "Checkpoints off the server's thread"). Here a worker thread with a connection of its own looks every
 * `CHECKPOINT_EVERY_MS` at how many committed pages the WAL holds that are not yet in the database
 * file (two counters of the WAL-index header, the `-shm` file: its format is SQLite's documented
 * "WAL-Index Format"), and from `CHECKPOINT_PAGES` on, the number at which a writer would have
 * checkpointed, runs a passive checkpoint: it copies what is committed without waiting for or
 * blocking readers and writers, so the writing thread only appends. Checkpointing sooner would copy
 * a page that every commit changes (a b-tree's last leaf) once per checkpoint, for nothing. The
 * writers' own automatic checkpoint stays as a backstop at `BACKSTOP_PAGES` (lib/db/client.ts),
 * should this thread fall behind or be gone.
 *
 * Durability is SQLite's, unchanged: `synchronous = NORMAL` here too, so a checkpoint syncs the WAL
 * before it copies and the database file after. The thread holds no state: a crash at any point
 * leaves a WAL that the next open replays, as it would after a crash inside a writer's checkpoint.
 */
const CHECKPOINT_EVERY_MS = 50;
const CHECKPOINT_PAGES = 1_000;
export const BACKSTOP_PAGES = 10_000;

// The thread's whole program: plain CommonJS, so it runs the same from the Next.js bundle, tsx and
// the tests (`eval`: no file of its own to find at run time). The WAL-index header is in the
// machine's byte order: mxFrame (the WAL's last committed frame) at byte 16, nBackfill (the frames
// already copied into the database file) at byte 96; a WAL started over has mxFrame below nBackfill.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { endianness } = require('node:os');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
const header = Buffer.alloc(100);
const u32 = endianness() === 'LE' ? (at) => header.readUInt32LE(at) : (at) => header.readUInt32BE(at);
let shm = null;
function pending() {
  try {
    shm ??= openSync(workerData.file + '-shm', 'r');
    if (readSync(shm, header, 0, 100, 0) < 100) return 0;
    const last = u32(16), copied = u32(96);
    return last >= copied ? last - copied : last;
  } catch {
    return workerData.pages;
  }
}
const timer = setInterval(() => {
  if (pending() < workerData.pages) return;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  if (shm !== null) closeSync(shm);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts the checkpoint thread of an SQLite file (not for `:memory:`); it does not keep the process alive. */
export function startCheckpointer(file: string): Checkpointer {
  let driver = 'better-sqlite3';
  try {
    driver = createRequire(join(process.cwd(), 'package.json')).resolve(driver);
  } catch {
    // resolved by the thread's own require, from the working directory
  }
  const worker = new Worker(PROGRAM, { eval: true, workerData: { file, driver, everyMs: CHECKPOINT_EVERY_MS, pages: CHECKPOINT_PAGES } });
  worker.unref();
  // the writers' backstop checkpoints still run without it
  worker.on('error', (error) => console.error('[db] checkpoint thread stopped:', error));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // held alive until it has closed its connection
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
