import type { Database } from '../db/client';
import { csvLine } from '../jobs/export/csv-cells';
import type { AuditAction } from './actions';
import { AUDIT_COLUMNS } from './record';

/**
 * GET /v1/audit: an organisation's audit rows, newest first (at, then id, both descending: a stable
 * order for cursor pages), filtered by actor (a person's user id or a key's id), action and time.
 * Read only: nothing here or in any route updates or deletes a row (docs/security.md, "Audit log").
 */

export interface AuditFilter {
  actor?: string;
  action?: AuditAction;
  from?: Date;
  to?: Date;
}

export interface AuditEventInfo {
  id: string;
  at: string;
  action: string;
  actor: { userId: string | null; keyId: string | null; email: string | null };
  target: { type: string | null; id: string | null; label: string | null };
  clientAddress: string | null;
  method: string | null;
  details: Record<string, unknown> | null;
}

type Row = {
  id: string;
  at: Date;
  action: string;
  actorUserId: string | null;
  actorKeyId: string | null;
  actorEmail: string | null;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  clientAddress: string | null;
  method: string | null;
  details: string | null;
};

function shape(row: Row): AuditEventInfo {
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    actor: { userId: row.actorUserId, keyId: row.actorKeyId, email: row.actorEmail },
    target: { type: row.targetType, id: row.targetId, label: row.targetLabel },
    clientAddress: row.clientAddress,
    method: row.method,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : null,
  };
}

interface Cursor {
  at: number;
  id: string;
}

/** The opaque cursor: the last row's time and id. */
export function encodeCursor(row: { at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.at.getTime(), row.id])).toString('base64url');
}

/** null when it is not one of ours. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== 'number' || !Number.isSafeInteger(at) || typeof id !== 'string' || !/^aud_[A-Za-z0-9_-]{1,40}$/.test(id)) return null;
    return { at, id };
  } catch {
    return null;
  }
}

async function page({ prisma }: Database, orgId: string, filter: AuditFilter, limit: number, cursor: Cursor | null): Promise<Row[]> {
  const at = { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lte: filter.to } : {}) };
  return prisma.auditEvent.findMany({
    where: {
      orgId,
      ...(filter.action ? { action: filter.action } : {}),
      ...(filter.actor ? { OR: [{ actorUserId: filter.actor }, { actorKeyId: filter.actor }] } : {}),
      ...(filter.from || filter.to ? { at } : {}),
      ...(cursor ? { AND: [{ OR: [{ at: { lt: new Date(cursor.at) } }, { at: new Date(cursor.at), id: { lt: cursor.id } }] }] } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

export async function listAudit(database: Database, orgId: string, filter: AuditFilter, limit: number, cursor: Cursor | null) {
  const rows = await page(database, orgId, filter, limit + 1, cursor);
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  return { data: shown.map(shape), nextCursor: more ? encodeCursor(shown[shown.length - 1]!) : null };
}

/** The export's columns: every column of the row but the organisation's (the export is one organisation's). */
export const AUDIT_CSV_COLUMNS = AUDIT_COLUMNS.filter((column) => column !== 'org_id');

/** Every row the filter selects as CSV (formula-escaped cells, lib/jobs/export/csv-cells.ts), read a page at a time while it streams. */
export function auditCsv(database: Database, orgId: string, filter: AuditFilter, pageSize = 1000): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: Cursor | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvLine(AUDIT_CSV_COLUMNS)));
        return;
      }
      if (done) return;
      const rows = await page(database, orgId, filter, pageSize, cursor);
      if (rows.length) {
        const last = rows[rows.length - 1]!;
        cursor = { at: last.at.getTime(), id: last.id };
        controller.enqueue(
          encoder.encode(
            rows
              .map((row) =>
                csvLine([
                  row.id,
                  row.at.toISOString(),
                  row.action,
                  row.actorUserId,
                  row.actorKeyId,
                  row.actorEmail,
                  row.targetType,
                  row.targetId,
                  row.targetLabel,
                  row.clientAddress,
                  row.method,
                  row.details,
                ]),
              )
              .join(''),
          ),
        );
      }
      if (rows.length < pageSize) {
        done = true;
        controller.close();
      }
    },
  });
}
