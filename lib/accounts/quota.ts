import type { Database, Db } from '../db/client';
import { AppError } from '../errors/errors';
import { env } from '../config/env';
import { noteQuotaExceeded, noteQuotaLevel, safely } from './quota-events';

/**
 * Production quota: each account has EV_FREE_DAILY free verifications per UTC day, then credits.
 * Work reserves what it needs up front and gives back what it did not use. Sandbox uses none.
 */
export interface Reservation {
  day: string;
  free: number;
  credits: number;
}

export const utcDay = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

export async function usedToday({ prisma }: Database, userId: string, day = utcDay()): Promise<number> {
  const row = await prisma.usageDay.findUnique({ where: { userId_day: { userId, day } } });
  return row?.used ?? 0;
}

/** Another reservation took free verifications between our read and our update: read again. */
class QuotaMoved extends Error {}

/** Two first reservations of a day both created its usage row (PostgreSQL: one loses on the key). */
const lostDayRowRace = (error: unknown) => (error as { code?: string } | null)?.code === 'P2002';

export async function reserve(database: Database, userId: string, count: number): Promise<Reservation> {
  const day = utcDay();
  if (count <= 0) return { day, free: 0, credits: 0 };
  for (let attempt = 1; ; attempt++) {
    try {
      const reservation = await database.prisma.$transaction((tx) => takeReservation(tx, userId, day, count));
      await safely(() => noteQuotaLevel(database, userId)); // quota events: lib/accounts/quota-events.ts
      return reservation;
    } catch (error) {
      if (error instanceof AppError && error.code === 'insufficient_credits') await safely(() => noteQuotaExceeded(database, userId, error.extra as never));
      if (!(error instanceof QuotaMoved) && !lostDayRowRace(error)) throw error;
      if (attempt >= 20) throw new AppError('conflict', 'Too many requests changed the quota at the same time; please retry.');
    }
  }
}

/** One try: today's free verifications first, then credits; 402 when they do not cover `count`. */
async function takeReservation(tx: Tx, userId: string, day: string, count: number): Promise<Reservation> {
  const usage = await tx.usageDay.upsert({ where: { userId_day: { userId, day } }, create: { userId, day, used: 0 }, update: {} });
  const free = Math.max(0, Math.min(count, env().EV_FREE_DAILY - usage.used));
  const credits = count - free;
  if (credits > 0) {
    const charged = await tx.user.updateMany({ where: { id: userId, credits: { gte: credits } }, data: { credits: { decrement: credits } } });
    if (charged.count !== 1) {
      const user = await tx.user.findUnique({ where: { id: userId } });
      throw new AppError(
        'insufficient_credits',
        `This needs ${count} production verifications; ${free} free ones remain today and the account has ${user?.credits ?? 0} credits.`,
        { required: count, free_remaining_today: free, credits: user?.credits ?? 0 },
      );
    }
  }
  // Conditional on the count read above, so two reservations cannot both take the last free ones;
  // the one that loses rolls back (credits included) and reads again.
  if (free > 0) {
    const taken = await tx.usageDay.updateMany({ where: { userId, day, used: usage.used }, data: { used: { increment: free } } });
    if (taken.count !== 1) throw new QuotaMoved();
  }
  return { day, free, credits };
}

type Tx = Pick<Db, 'user' | 'usageDay'>;

/** Gives back `unused` of a reservation, in the caller's transaction: credits first, then free ones. */
export async function refundIn(tx: Tx, userId: string, reservation: Reservation, unused: number): Promise<void> {
  const credits = Math.max(0, Math.min(unused, reservation.credits));
  const free = Math.max(0, Math.min(unused - credits, reservation.free));
  if (credits > 0) await tx.user.update({ where: { id: userId }, data: { credits: { increment: credits } } });
  if (free > 0) await tx.usageDay.updateMany({ where: { userId, day: reservation.day }, data: { used: { decrement: free } } });
}

export async function refund(database: Database, userId: string, reservation: Reservation, unused: number): Promise<void> {
  if (unused <= 0) return;
  await database.prisma.$transaction(async (tx) => refundIn(tx, userId, reservation, unused));
}

/** A job's reservation as stored on its row. */
export function jobReservation(job: { reservedDay: string | null; reservedFree: number; reservedCredits: number }): Reservation {
  return { day: job.reservedDay ?? utcDay(), free: job.reservedFree, credits: job.reservedCredits };
}

export async function grantCredits({ prisma }: Database, userId: string, credits: number): Promise<number> {
  const user = await prisma.user.update({ where: { id: userId }, data: { credits: { increment: credits } } });
  return user.credits;
}

export async function accountUsage(database: Database, userId: string) {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const used = await usedToday(database, userId);
  return {
    email: user.email,
    plan: user.plan,
    free_remaining_today: Math.max(0, env().EV_FREE_DAILY - used),
    used_today: used,
    credits: user.credits,
  };
}
