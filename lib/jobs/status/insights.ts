import type { Database } from '../../db/client';
import { jobProviderGroups } from '../../db/queries/jobs';
import { selectRows } from '../../db/sql';

/** The mailbox providers a marketer recognises; everything else (own servers, smaller hosts) is `other`. */
export type MailProvider = 'google' | 'microsoft' | 'yahoo' | 'other';

// Consumer domains of the three large providers, for results that carry no MX-based identification
// (sandbox verdicts, and addresses whose MX was never reached).
const BY_DOMAIN: Record<string, MailProvider> = {
  'gmail.com': 'google',
  'googlemail.com': 'google',
  'outlook.com': 'microsoft',
  'hotmail.com': 'microsoft',
  'live.com': 'microsoft',
  'msn.com': 'microsoft',
  'yahoo.com': 'yahoo',
  'ymail.com': 'yahoo',
  'rocketmail.com': 'yahoo',
  'aol.com': 'yahoo',
};
// country variants: hotmail.de, outlook.fr, live.co.uk, yahoo.co.jp, …
const FAMILY = /^(?:(hotmail|outlook|live)|(yahoo))\.(?:[a-z]{2,3}|co\.[a-z]{2}|com\.[a-z]{2})$/;
const NAMED = new Set<string>(['google', 'microsoft', 'yahoo']);

/**
 * Which provider receives mail for an address: the verifier's `mailbox_provider` when it read one
 * from the domain's MX hosts (lib/verifier/providers.ts: a company domain at Google Workspace is
 * Google), else the domain (lower-case ASCII, as verdicts store it) if it is one of the providers'.
 */
export function mailProvider(domain: string, mailboxProvider: string | null = null): MailProvider {
  if (mailboxProvider) return NAMED.has(mailboxProvider) ? (mailboxProvider as MailProvider) : 'other';
  const known = BY_DOMAIN[domain];
  if (known) return known;
  const family = FAMILY.exec(domain);
  if (family) return family[1] ? 'microsoft' : 'yahoo';
  return 'other';
}

export type ProviderCounts = Record<MailProvider, number>;

/** How many of a job's verified mailboxes each provider receives (an address that is not one has no provider). */
export async function providerCounts(database: Database, jobId: string): Promise<ProviderCounts> {
  const counts: ProviderCounts = { google: 0, microsoft: 0, yahoo: 0, other: 0 };
  // in groups of rows, taking turns with the server's other work on SQLite (lib/db/queries/jobs.ts)
  for await (const rows of jobProviderGroups(database, jobId)) for (const row of rows) counts[mailProvider(row.provider, row.mailbox)] += Number(row.n);
  return counts;
}

// A completed job's results never change: its counts are kept (per process, the newest 500 jobs),
// so reopening a million-row job does not group its results again.
const completedCounts = new Map<string, ProviderCounts>();

export async function completedProviderCounts(database: Database, jobId: string): Promise<ProviderCounts> {
  const kept = completedCounts.get(jobId);
  if (kept) return kept;
  const counts = await providerCounts(database, jobId);
  completedCounts.set(jobId, counts);
  if (completedCounts.size > 500) completedCounts.delete(completedCounts.keys().next().value!);
  return counts;
}

export interface Waiting {
  /** addresses handed back to be asked again later (greylisting, a 4xx, a server's back-off) */
  addresses: number;
  /** when the first of them is asked again */
  nextTryAt: string;
}

/**
 * What a running job waits for: the addresses of chunks a worker handed back until a later time
 * (`releaseChunk` with the servers' retry time). A chunk handed back by a stopping worker is due
 * at once and is not waiting. Null when nothing waits.
 */
export async function waitingFor(database: Database, jobId: string, now = Date.now()): Promise<Waiting | null> {
  const [row] = await selectRows<{ n: number | bigint; next: number | bigint | null }>(
    database,
    `SELECT COUNT(*) AS n, MIN(c.not_before) AS next FROM job_chunks c
      JOIN job_items i ON i.job_id = c.job_id AND i.idx >= c.start_idx AND i.idx < c.end_idx
      WHERE c.job_id = ? AND c.state = 'pending' AND c.not_before > ? AND i.duplicate_of IS NULL
      AND NOT EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = i.idx)`,
    [jobId, now],
  );
  const addresses = Number(row?.n ?? 0);
  if (addresses === 0 || row?.next === null || row?.next === undefined) return null;
  return { addresses, nextTryAt: new Date(Number(row.next)).toISOString() };
}
