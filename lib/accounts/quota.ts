import type { Database, Dialect } from '../db/client';
import { recordAudit } from '../audit/record';
import { newId } from '../db/ids';
import { ask, type Plan } from '../db/plan';
import { runWritePlan } from '../db/plan-executors';
import { AppError } from '../errors/app-error';
import { env } from '../config/env';
import { failpoint } from '../failpoints/failpoints';
import { retriedKey } from './causes';
import { appendMovements, appendMovementsStep, moveOwner, reservationOf, settleIn, type LedgerTx } from './ledger';
import { countMember } from './member-caps';
import { ownerId, settleOrRetry } from './owners';
import { utcDay } from './day';
import { noteQuotaExceeded, noteQuotaLevel, safely } from './quota-events';

/**
 * Production quota: each account has EV_FREE_DAILY free verifications per UTC day, then credits.
 * Work reserves what it needs up front and gives back what it did not use. Sandbox uses none.
 */
export interface Reservation {
  /** what it pays for (lib/accounts/causes.ts): its rows in the ledger carry it */
  cause: string;
  day: string;
  free: number;
  credits: number;
  /** taken over from an earlier attempt of the same Idempotency-Key, not taken now */
  adopted?: boolean;
}

export async function usedToday({ prisma }: Database, userId: string, day = utcDay()): Promise<number> {
  const row = await prisma.usageDay.findUnique({ where: { userId_day: { userId, day } } });
  return row?.used ?? 0;
}

/** Another reservation took free verifications between our read and our update: read again. */
class QuotaMoved extends Error {}

/** Two first reservations of a day both created its usage row (PostgreSQL: one loses on the key). */
const lostDayRowRace = (error: unknown) => (error as { code?: string } | null)?.code === 'P2002';

/**
 * Reserves `count` verifications for `cause`, with its `reserve` row in the ledger in the same
 * transaction. Under an Idempotency-Key a retry of a request that died finds the open reservation
 * of its first attempt and takes it over instead of reserving again (a 409 if that one was settled:
 * the first attempt's work is stored and paid for, only its answer was lost).
 * `actorId`: the person the work is for (a session's, or the maker of the key used): it counts
 * against their caps in the organisation, in the same transaction (lib/accounts/member-caps.ts);
 * none (a monitor's run) counts against nobody.
 */
export async function reserve(
  database: Database,
  userId: string,
  count: number,
  cause: string,
  options: { quiet?: boolean; actorId?: string | null } = {},
): Promise<Reservation> {
  const day = utcDay();
  if (count <= 0) return { cause, day, free: 0, credits: 0 };
  const owner = await ownerId(database);
  if (retriedKey()) {
    const earlier = await reservationOf(database.prisma, database.dialect, cause);
    // taken over from the dead attempt's owner, unless the sweeper got to it first (then it is settled)
    if (earlier && !earlier.settled && (await moveOwner(database.prisma, database.dialect, cause, earlier.owner, owner))) {
      const now = await reservationOf(database.prisma, database.dialect, cause);
      if (now && !now.settled) return { cause, day: earlier.day ?? day, free: earlier.free, credits: earlier.credits, adopted: true };
    }
    if (earlier) {
      throw new AppError(
        'conflict',
        'The original request with this Idempotency-Key completed, but its answer was lost; its result is in the history and the job list.',
      );
    }
  }
  try {
    const taken = await takeWithLedger(database, userId, day, count, cause, owner, options.actorId ?? null);
    failpoint('quota.after-reserve');
    await safely(() => noteQuotaLevel(database, userId)); // quota events: lib/accounts/quota-events.ts
    return taken;
  } catch (error) {
    // `quiet`: the caller says so itself (a monitor's skipped run, lib/monitors/runs.ts)
    if (error instanceof AppError && error.code === 'insufficient_credits' && !options.quiet)
      await safely(() => noteQuotaExceeded(database, userId, error.extra as never));
    throw error;
  }
}

/** The reservation and its ledger row in one write transaction (lib/db/plan-executors.ts `runWritePlan`), on either database. */
async function takeWithLedger(
  database: Database,
  userId: string,
  day: string,
  count: number,
  cause: string,
  owner: string,
  actor: string | null,
): Promise<Reservation> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runWritePlan(database, () => reservationPlan(userId, day, count, cause, owner, actor));
    } catch (error) {
      if (!(error instanceof QuotaMoved) && !lostDayRowRace(error)) throw error;
      if (attempt >= 20) throw new AppError('conflict', 'Too many requests changed the quota at the same time; please retry.');
    }
  }
}

const insufficient = (count: number, free: number, credits: number) =>
  new AppError('insufficient_credits', `This needs ${count} production verifications; ${free} free ones remain today and the account has ${credits} credits.`, {
    required: count,
    free_remaining_today: free,
    credits,
  });

/**
 * One try: today's free verifications first, then credits (402 when they do not cover `count`),
 * the person's count, then the `reserve` row. Taking the free ones is conditional on the count read,
 * so two reservations cannot both take the last free ones; the one that loses rolls back (credits
 * included) and reads again.
 */
function* reservationPlan(userId: string, day: string, count: number, cause: string, owner: string, actor: string | null): Plan<Reservation> {
  const used = yield* ask('openDay', userId, day);
  const free = Math.max(0, Math.min(count, env().EV_FREE_DAILY - used));
  const credits = count - free;
  if (credits > 0 && !(yield* ask('takeCredits', userId, credits))) throw insufficient(count, free, yield* ask('creditsOf', userId));
  if (free > 0 && !(yield* ask('takeFree', userId, day, free, used))) throw new QuotaMoved();
  // the person's rows last: held only until the commit (lib/accounts/member-caps.ts)
  if (actor) yield* countMember(userId, actor, day, count);
  yield* appendMovementsStep([{ userId, kind: 'reserve', cause, credits, free, day, owner, actor }]);
  return { cause, day, free, credits };
}

/**
 * Settles a reservation in the caller's transaction (the one that stores the results it paid for):
 * `unused` of it goes back, credits first, the rest is charged, both written to the ledger.
 * False when it was already settled (by the sweeper, after its bound): the caller must then not
 * store its results, or they would be free.
 */
export async function refundIn(tx: LedgerTx, dialect: Dialect, userId: string, reservation: Reservation, unused: number): Promise<boolean> {
  const reserved = reservation.free + reservation.credits;
  if (reserved === 0) return true;
  const settled = await settleIn(tx, dialect, [{ userId, ...reservation, charged: reserved - Math.max(0, Math.min(unused, reserved)) }]);
  return settled.has(reservation.cause);
}

/** A settlement that came too late: the sweeper gave the reservation back, so the results are not stored. */
export function reservationSwept(): AppError {
  return new AppError('service_unavailable', 'This request outlived its reservation, which was given back: nothing was stored or charged. Please retry.');
}

/**
 * refundIn in a transaction of its own: work that failed before storing anything gives all of it
 * back. A refund that cannot be written is thrown and also kept by this process's owner, which
 * writes it at its next heartbeats (lib/accounts/owners.ts): it is never dropped.
 */
export async function refund(database: Database, userId: string, reservation: Reservation, unused: number): Promise<boolean> {
  if (reservation.free + reservation.credits === 0) return true;
  return settleOrRetry(database, () => database.prisma.$transaction(async (tx) => refundIn(tx, database.dialect, userId, reservation, unused)));
}

/** A job's reservation as stored on its row; its cause is the job. */
export function jobReservation(job: { id: string; reservedDay: string | null; reservedFree: number; reservedCredits: number }): Reservation {
  return { cause: job.id, day: job.reservedDay ?? utcDay(), free: job.reservedFree, credits: job.reservedCredits };
}

/**
 * Adds credits with their `grant` row. `cause` names the grant (`grant_<reference>`): granting
 * the same reference twice fails on the ledger's unique index and adds nothing.
 */
export async function grantCredits(database: Database, userId: string, credits: number, cause = newId('grant')): Promise<number> {
  return database.prisma.$transaction(async (tx) => {
    await appendMovements(tx, database.dialect, [{ userId, kind: 'grant', cause, credits, free: 0, day: null }]);
    const user = await tx.user.update({ where: { id: userId }, data: { credits: { increment: credits } } });
    await recordAudit(tx, userId, 'credits.granted', { type: 'organisation', id: userId, label: user.orgName ?? user.email }, { credits, grant: cause });
    return user.credits;
  });
}

export async function accountUsage(database: Database, userId: string) {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const used = await usedToday(database, userId);
  return {
    email: user.email,
    plan: user.plan,
    freeRemainingToday: Math.max(0, env().EV_FREE_DAILY - used),
    usedToday: used,
    credits: user.credits,
  };
}
