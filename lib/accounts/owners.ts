import { onClose, type Database } from '../db/client';
import { newId } from '../db/ids';
import { q } from '../db/sql';
import { env } from '../config/env';

/*
 * Reservations with a live owner (docs/guarantees.md). Each process that reserves credits is an
 * owner: a `ledger_owners` row whose heartbeat it renews three times in `ownerStaleMs()` with one
 * upsert, and its reservations' `reserve` rows name it (`credit_ledger.owner`). The sweeper (sweeper.ts) never takes
 * back a reservation whose owner is beating, however old it is: its work is still being done (a job
 * being inserted, a check being verified) and the owner settles it. Once an owner stops beating for
 * `ownerStaleMs()` (a kill -9, a lost machine) its open reservations are given back at the next sweep.
 *
 * A live owner's settlement that fails (a refund or charge that could not be written) is not
 * dropped: it is kept in the process and tried again at every beat until it is written (or found
 * settled), while the owner's heartbeat keeps the sweeper away from it; if the process dies first,
 * the sweeper gives the reservation back.
 */

/**
 * How long an owner may go without a beat before its reservations are given back: the reservation
 * bound (EV_RESERVATION_TIMEOUT_MS), at most 30 s (a dead owner's credits come back within a
 * minute, with the sweep interval) and at least 3 s (a live process is never late by that much,
 * whatever the bound is set to). It beats three times in that time.
 */
export function ownerStaleMs(): number {
  return Math.min(30_000, Math.max(3_000, env().EV_RESERVATION_TIMEOUT_MS));
}

interface Owner {
  id: string;
  /** settlements to write again at the next beat; each says whether it is done */
  pending: Set<() => Promise<boolean>>;
}

const owners = new WeakMap<Database, Promise<Owner>>();

/** This process's owner id on the database, its heartbeat row written before the first reservation names it. */
export async function ownerId(database: Database): Promise<string> {
  return (await ownerOf(database)).id;
}

function ownerOf(database: Database): Promise<Owner> {
  let started = owners.get(database);
  if (!started) {
    started = startOwner(database);
    owners.set(database, started);
    started.catch(() => owners.delete(database));
  }
  return started;
}

async function startOwner(database: Database): Promise<Owner> {
  const owner: Owner = { id: newId('own', 9), pending: new Set() };
  const { prisma, dialect } = database;
  await prisma.$executeRawUnsafe(q(dialect, 'INSERT INTO ledger_owners (owner, heartbeat_at) VALUES (?, ?)'), owner.id, Date.now());
  let beating = false;
  const timer = setInterval(
    () => {
      if (beating) return;
      beating = true;
      beat(database, owner)
        .catch((error) => console.error(`[books] owner heartbeat failed: ${error}`))
        .finally(() => {
          beating = false;
        });
    },
    Math.floor(ownerStaleMs() / 3),
  );
  timer.unref();
  onClose(database, () => {
    clearInterval(timer);
    owners.delete(database);
  });
  return owner;
}

async function beat(database: Database, owner: Owner): Promise<void> {
  const { prisma, dialect } = database;
  // an upsert: a row the sweeper deleted while this process was stalled for an hour comes back
  await prisma.$executeRawUnsafe(
    q(dialect, 'INSERT INTO ledger_owners (owner, heartbeat_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at'),
    owner.id,
    Date.now(),
  );
  await retryPending(owner);
}

async function retryPending(owner: Owner): Promise<void> {
  for (const settle of [...owner.pending]) {
    try {
      if (await settle()) owner.pending.delete(settle);
    } catch (error) {
      console.error(`[books] a settlement failed again, retrying at the next beat: ${error}`);
    }
  }
}

/**
 * Runs a settlement; if it throws, keeps it to be tried again at every beat of this owner until it
 * returns (its error is still thrown to the caller). `settle` answers whether it is done.
 */
export async function settleOrRetry(database: Database, settle: () => Promise<boolean>): Promise<boolean> {
  try {
    return await settle();
  } catch (error) {
    const owner = await ownerOf(database).catch(() => null);
    owner?.pending.add(async () => {
      await settle();
      return true;
    });
    throw error;
  }
}

/** Settlements this process still has to write (tests, and the log at shutdown). */
export async function pendingSettlements(database: Database): Promise<number> {
  return (await ownerOf(database)).pending.size;
}

/** A beat now (tests: what the timer does three times in `ownerStaleMs()`). */
export async function beatNow(database: Database): Promise<void> {
  await beat(database, await ownerOf(database));
}
