import type { RequestOptions, Transport } from './client.ts';
import type { AuditFilter, AuditPage } from './audit-types.ts';

/** GET /v1/audit: one page, and every row as CSV. */

export function auditPage(t: Transport, options: AuditFilter & RequestOptions & { limit?: number; cursor?: string } = {}): Promise<AuditPage> {
  const { actor, action, from, to, limit, cursor, ...rest } = options;
  return t.json('GET', '/v1/audit', { ...rest, query: { actor, action, from, to, limit, cursor } });
}

export async function auditCsv(t: Transport, options: AuditFilter & RequestOptions = {}): Promise<string> {
  const { actor, action, from, to, ...rest } = options;
  return new Response(await t.stream('/v1/audit', { ...rest, query: { actor, action, from, to, format: 'csv' } })).text();
}
