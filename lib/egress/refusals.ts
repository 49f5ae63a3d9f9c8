import { worst, type EgressCheck, type EgressReport } from './report';

/**
 * Servers that refused postmaster@ as they refused the address (lib/verifier/control.ts): RFC 5321
 * 4.5.1 makes every domain take postmaster's mail, so such a refusal is about us (this egress's IP,
 * HELO name or sender), and a sign of an egress problem beside the checks of check.ts. Kept per
 * egress in this process for the last hour; GET /v1/egress shows them as the `refusals` check.
 */
const WINDOW_MS = 60 * 60_000;
const MAX_KEPT = 1000;
const seen = new Map<string, { at: number; target: string }[]>();

export function notePostmasterRefusal(egress: string, target: string, now = Date.now()): void {
  const list = recent(egress, now);
  list.push({ at: now, target });
  if (list.length > MAX_KEPT) list.splice(0, list.length - MAX_KEPT);
  seen.set(egress, list);
}

function recent(egress: string, now: number) {
  return (seen.get(egress) ?? []).filter((r) => now - r.at < WINDOW_MS);
}

/** The `refusals` check for an egress, or null when no server refused postmaster in the last hour. */
export function refusalCheck(egress: string, now = Date.now()): EgressCheck | null {
  const list = recent(egress, now);
  seen.set(egress, list);
  if (list.length === 0) return null;
  const targets = [...new Set(list.map((r) => r.target))];
  const named = targets.slice(0, 5).join(', ') + (targets.length > 5 ? `, and ${targets.length - 5} more` : '');
  return {
    name: 'refusals',
    status: 'warn',
    message: `${list.length} refusal${list.length === 1 ? '' : 's'} in the last hour that postmaster@ got too (${named}): these servers refuse this egress, not the addresses.`,
    remedy:
      'Check the egress with npm run doctor (reverse DNS, blocklists, EV_HELO_NAME, EV_MAIL_FROM and its SPF); the addresses stay unknown (postmaster_refused).',
  };
}

/** The report with the `refusals` check when there is one (its status then counts in the worst). */
export function withRefusals<T extends EgressReport>(report: T, now = Date.now()): T {
  const check = refusalCheck(report.egress, now);
  if (!check) return report;
  const checks = [...report.checks, check];
  return { ...report, checks, status: worst(checks.map((c) => c.status)) };
}

/** For tests: forget every refusal. */
export function forgetPostmasterRefusals(): void {
  seen.clear();
}
