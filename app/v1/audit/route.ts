import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { auditQuery } from '@/lib/api/schemas';
import { invalidRequest } from '@/lib/errors/app-error';
import { db } from '@/lib/db/client';
import { auditCsv, decodeCursor, listAudit } from '@/lib/audit/query';

// Read only: the audit log has no operation that changes or deletes a row (lib/audit/record.ts).
export const GET = apiRoute(operations.listAuditEvents, async (request, caller) => {
  const { actor, action, from, to, limit, cursor: text, format } = parseQuery(request, auditQuery);
  if (from && to && from > to) throw invalidRequest('from', 'from: must not be after `to`.');
  const filter = { actor, action, from, to };
  const database = await db();
  if (format === 'csv') {
    return new Response(auditCsv(database, caller.userId, filter), {
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="audit-${new Date().toISOString().slice(0, 10)}.csv"`,
      },
    });
  }
  const cursor = text ? decodeCursor(text) : null;
  if (text && !cursor) throw invalidRequest('cursor', 'cursor: not a cursor from this API');
  return listAudit(database, caller.userId, filter, limit, cursor);
});
