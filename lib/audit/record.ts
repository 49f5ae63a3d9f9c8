import type { Tx } from '../db/capped';
import type { Db, Dialect } from '../db/client';
import { newId } from '../db/ids';
import { timestampValue } from '../db/values';
import type { AuditAction, AuditTarget } from './actions';
import { currentActor, type AuditActor } from './context';

/**
 * The audit log's one writer (docs/security.md, "Audit log"). A domain function calls `recordAudit`
 * inside the transaction that makes its change, so the row and the change commit together or not at
 * all; an action refused before its write (403, 404, 409) writes nothing. The actor (person, key,
 * client address) comes from the request's context (./context.ts), set by apiRoute
 * (lib/api/route.ts) or an operator's script. Rows are never updated; only the retention sweep
 * deletes them (lib/retention/sweep.ts).
 */

export type AuditDetails = Record<string, string | number | boolean | null>;

export interface AuditRow {
  id: string;
  orgId: string | null;
  at: Date;
  action: AuditAction;
  actorUserId: string | null;
  actorKeyId: string | null;
  actorEmail: string | null;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  clientAddress: string | null;
  method: string | null;
  details: string | null;
}

/** `shared` (lib/auth/origin.ts: no address could be told) is not an address. */
const address = (value: string | null | undefined) => (value && value !== 'shared' ? value : null);

/** The row for an action, its actor's email read through `reader` (the transaction, or the database before a synchronous write). */
export async function auditRow(
  reader: Pick<Tx, 'user'>,
  orgId: string | null,
  action: AuditAction,
  target: AuditTarget | null,
  details?: AuditDetails,
  actor: AuditActor | null = currentActor(),
): Promise<AuditRow> {
  const person = actor?.userId ? await reader.user.findUnique({ where: { id: actor.userId }, select: { email: true } }) : null;
  return {
    id: newId('aud'),
    orgId,
    at: new Date(),
    action,
    actorUserId: actor?.userId ?? null,
    actorKeyId: actor?.keyId ?? null,
    actorEmail: person?.email ?? null,
    targetType: target?.type ?? null,
    targetId: target?.id ?? null,
    targetLabel: target?.label ? target.label.slice(0, 300) : null,
    clientAddress: address(actor?.clientAddress),
    method: actor?.method ?? null,
    details: details && Object.keys(details).length ? JSON.stringify(details) : null,
  };
}

/** Writes the action's row in the caller's transaction `tx` (for `orgId`: the organisation acted on); `actor` when the context does not know it yet (a person who joins). */
export async function recordAudit(
  tx: Pick<Tx, 'user' | 'auditEvent'>,
  orgId: string | null,
  action: AuditAction,
  target: AuditTarget | null,
  details?: AuditDetails,
  actor: AuditActor | null = currentActor(),
): Promise<void> {
  await tx.auditEvent.create({ data: await auditRow(tx, orgId, action, target, details, actor) });
}

/** Several rows at once (a sign-in: one per organisation of the person). */
export async function recordAuditRows(prisma: Pick<Db, 'auditEvent'>, rows: AuditRow[]): Promise<void> {
  if (rows.length) await prisma.auditEvent.createMany({ data: rows });
}

/** The audit_events columns in AuditRow's order, for a write by column (a queued job's, lib/jobs/intake/insert.ts). */
export const AUDIT_COLUMNS = [
  'id',
  'org_id',
  'at',
  'action',
  'actor_user_id',
  'actor_key_id',
  'actor_email',
  'target_type',
  'target_id',
  'target_label',
  'client_address',
  'method',
  'details',
] as const;

export function auditValues(row: AuditRow, dialect: Dialect): unknown[] {
  return [
    row.id,
    row.orgId,
    timestampValue(dialect, row.at.getTime()),
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
  ];
}
