import type { Database, Db } from '../db/client';
import { q } from '../db/sql';
import { buildEvent, downloadUrl, enqueueEvent } from '../webhooks/outbox';

/**
 * What a monitor's run changed against the run before it (or the list): rows whose verdict `status`
 * differs, counted per old → new status. Both jobs have the same items (a run copies them,
 * lib/monitors/runs.ts), so rows match by index; a duplicate row carries its first occurrence's verdict.
 */
export interface Change {
  from: string;
  to: string;
  count: number;
}

type Tx = Pick<Db, '$queryRawUnsafe' | 'job' | 'monitor' | 'webhook' | 'webhookDelivery'>;

/** The SQL condition "this result's row changed since `previous`" on a `verifications` row aliased `v` (the changed-rows download). */
export const CHANGED_SQL = 'EXISTS (SELECT 1 FROM verifications p WHERE p.job_id = ? AND p.idx = v.idx AND p.status <> v.status)';

export async function changesBetween(tx: Pick<Db, '$queryRawUnsafe'>, dialect: Database['dialect'], jobId: string, previousJobId: string): Promise<Change[]> {
  const rows = await tx.$queryRawUnsafe<{ old: string; new: string; n: number | bigint }[]>(
    q(
      dialect,
      `SELECT p.status AS old, v.status AS new, COUNT(*) AS n FROM job_items i
      JOIN verifications v ON v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx)
      JOIN verifications p ON p.job_id = ? AND p.idx = v.idx
      WHERE i.job_id = ? AND p.status <> v.status GROUP BY p.status, v.status ORDER BY p.status, v.status`,
    ),
    previousJobId,
    jobId,
  );
  return rows.map((row) => ({ from: row.old, to: row.new, count: Number(row.n) }));
}

/**
 * In the transaction that completes a monitor's run (lib/jobs/worker/lifecycle.ts): its changes are kept on
 * the job (the list's health, GET /v1/monitors/{id}) and, when any row changed, `list.changed` is written.
 */
export async function recordChanges(
  tx: Tx,
  dialect: Database['dialect'],
  job: { id: string; userId: string; sandbox: boolean; totalEmails: number; monitorId: string; previousJobId: string },
  completedAt: Date,
): Promise<void> {
  const changes = await changesBetween(tx, dialect, job.id, job.previousJobId);
  await tx.job.update({ where: { id: job.id }, data: { changes: JSON.stringify(changes) } });
  const changed = changes.reduce((n, change) => n + change.count, 0);
  if (changed === 0) return;
  const monitor = await tx.monitor.findUnique({ where: { id: job.monitorId } });
  await enqueueEvent(
    tx,
    job.userId,
    buildEvent('list.changed', job.sandbox, {
      monitorId: job.monitorId,
      listId: monitor?.listId ?? null,
      jobId: job.id,
      previousJobId: job.previousJobId,
      totalEmails: job.totalEmails,
      changedEmails: changed,
      changes,
      changedDownloadUrl: `${downloadUrl(job.id)}?changed=true`,
      completedAt,
    }),
  );
}
