import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { exportName, exportStream } from '@/lib/retention/export';

export const GET = apiRoute(
  operations.exportData,
  async (_request, caller) =>
    new Response(exportStream(await db(), caller.userId), {
      headers: { 'Content-Type': 'application/zip', 'Content-Disposition': `attachment; filename="${exportName()}"` },
    }),
);
