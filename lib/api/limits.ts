import { env } from '../config/env';
import { AppError } from '../errors/app-error';
import { secondsUntil } from './ratelimit';
import { rateStore } from './rate-store';

/**
 * Abuse limits per account that hold in both modes: requests that create rows (keys, webhooks,
 * test and replay deliveries, queued jobs) share a creation rate, sandbox jobs a budget per hour,
 * and webhooks and active keys have hard caps (lib/db/capped.ts). Sandbox requests are otherwise never limited.
 */
const MINUTE = 60_000;
const HOUR = 3_600_000;

async function take(subject: string, limit: number, windowMs: number, what: string, now = Date.now()): Promise<void> {
  const { count } = await (await rateStore()).hit(subject, windowMs, now);
  if (count <= limit) return;
  const retryAfter = secondsUntil(now, windowMs);
  throw new AppError('rate_limit', `${what} Retry in ${retryAfter} s.`, { retry_after: retryAfter, limit }, { 'Retry-After': String(retryAfter) });
}

/** A request that creates rows: EV_CREATE_RATE_PER_MINUTE per account, whichever key or mode. */
export function takeCreation(userId: string): Promise<void> {
  const limit = env().EV_CREATE_RATE_PER_MINUTE;
  return take(`create:${userId}`, limit, MINUTE, `This account may create at most ${limit} keys, webhooks, deliveries or jobs a minute.`);
}

/** A sandbox bulk request writes a job (and its webhook deliveries): EV_SANDBOX_JOBS_PER_HOUR per account. */
export function takeSandboxJob(userId: string): Promise<void> {
  const limit = env().EV_SANDBOX_JOBS_PER_HOUR;
  return take(`sandbox-jobs:${userId}`, limit, HOUR, `This account may submit at most ${limit} sandbox jobs an hour.`);
}

/**
 * A bulk request: a queued job counts in the creation rate; in sandbox mode every job (an instant
 * one is written too, and fans out its webhook deliveries) counts in the hourly budget.
 */
export async function takeJobLimits(userId: string, sandbox: boolean, queued: boolean): Promise<void> {
  if (queued) await takeCreation(userId);
  if (sandbox) await takeSandboxJob(userId);
}
