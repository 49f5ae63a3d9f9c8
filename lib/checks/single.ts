import { AppError } from '../errors/app-error';
import type { Database } from '../db/client';
import { identityRefusal } from '../egress/state';
import { env } from '../config/env';
import { isChargeable } from '../results/chargeable';
import { cachedVerdict, recordSingle } from '../results/history';
import { refund, reserve } from '../accounts/quota';
import { causeId } from '../accounts/causes';
import { giveBackBudget, takeBudget, type KeyBudget } from '../accounts/key-budget';
import { checkSyntax } from '../verifier/syntax';
import type { Verdict } from '../verifier/types';
import { deadline } from '../verifier/verify';
import { verdictOfRules } from './rule-verdict';
import { ruleBookForAddress } from '../rules/store';
import { applySandboxTrigger } from './triggers';
import { verifierFor } from './verifiers';

export interface SingleOutcome {
  verdict: Verdict;
  responseTimeMs: number;
  cached: boolean;
}

/** Production work answered now (single checks, instant jobs) stops here while the sender identity is refused. */
export function refuseWithoutIdentity(): void {
  const refusal = identityRefusal();
  if (refusal) throw new AppError('service_unavailable', refusal);
}

/**
 * One address, in the caller's mode, recorded in history. `budget`: a publishable key's daily cap
 * of charged checks (lib/accounts/key-budget.ts), taken where the check would be charged and given
 * back when it is not. `since`: when the request arrived (lib/accounts/versions.ts). `actorId`: the
 * person acting, whose caps in the organisation the charged check counts against (lib/accounts/member-caps.ts).
 */
export async function verifySingle(
  database: Database,
  userId: string,
  sandbox: boolean,
  email: string,
  budget?: KeyBudget,
  since?: number,
  actorId?: string,
): Promise<SingleOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (sandbox) {
    await applySandboxTrigger(email);
    const { verdict } = await verifierFor(true).verify(email, { rules: await ruleBookForAddress(database, userId, email, since) });
    await recordSingle(database, userId, verdict, true, false);
    return { verdict, responseTimeMs: elapsed(), cached: false };
  }
  // a rule decides before the cache, the quota and any probe: no charge (MX rules: after DNS, refunded)
  const rules = await ruleBookForAddress(database, userId, email, since);
  const byRule = await verdictOfRules(email, rules, false);
  if (byRule) {
    await recordSingle(database, userId, byRule, false, false);
    return { verdict: byRule, responseTimeMs: elapsed(), cached: false };
  }
  if (!checkSyntax(email).ok) {
    const { verdict } = await verifierFor(false).verify(email);
    await recordSingle(database, userId, verdict, false, false);
    return { verdict, responseTimeMs: elapsed(), cached: false };
  }
  const cached = await cachedVerdict(database, userId, email, Date.now() - env().EV_CACHE_TTL_MS);
  if (cached) {
    await recordSingle(database, userId, cached, false, true);
    return { verdict: cached, responseTimeMs: elapsed(), cached: true };
  }
  refuseWithoutIdentity();
  const budgetDay = budget ? await takeBudget(database, userId, budget) : null;
  let charged = false;
  try {
    // reserved before the work, settled (charged or refunded) in the transaction that stores the row
    const reservation = await reserve(database, userId, 1, causeId('chk'), { actorId });
    let verdict: Verdict;
    try {
      // The deadline answers with what is known (`timeout`) instead of hanging.
      ({ verdict } = await verifierFor(false).verify(email, { signal: deadline(env().EV_VERIFY_DEADLINE_MS), rules }));
    } catch (error) {
      await refund(database, userId, reservation, 1);
      throw error;
    }
    const chargeable = isChargeable(verdict);
    try {
      await recordSingle(database, userId, verdict, false, false, { userId, ...reservation, charged: chargeable ? 1 : 0 });
    } catch (error) {
      // nothing stored: all of it back (a no-op when it was settled; kept and retried if the refund
      // fails too), since this process's reservations are never swept while it lives (docs/guarantees.md)
      await refund(database, userId, reservation, 1).catch(() => undefined);
      throw error;
    }
    charged = chargeable;
    return { verdict, responseTimeMs: elapsed(), cached: false };
  } finally {
    // never in place of the error that got here: a count not given back only narrows the key's day
    if (budget && budgetDay && !charged) await giveBackBudget(database, budget, budgetDay).catch(() => undefined);
  }
}
