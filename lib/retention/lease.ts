import type { Database } from '../db/client';
import { q } from '../db/sql';

/**
 * A named lease in `maintenance_leases`: one worker of the database at a time does a piece of upkeep
 * (the retention sweep). Taken by one conditional upsert when free, expired or already ours, renewed
 * the same way; a holder that dies loses it when it runs out.
 */
export async function takeLease(database: Database, name: string, holder: string, ms: number, now = Date.now()): Promise<boolean> {
  const { prisma, dialect } = database;
  const taken = await prisma.$executeRawUnsafe(
    q(
      dialect,
      `INSERT INTO maintenance_leases (name, holder, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE maintenance_leases.expires_at < ? OR maintenance_leases.holder = excluded.holder`,
    ),
    name,
    holder,
    now + ms,
    now,
  );
  return taken === 1;
}

export async function releaseLease(database: Database, name: string, holder: string): Promise<void> {
  const { prisma, dialect } = database;
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM maintenance_leases WHERE name = ? AND holder = ?'), name, holder);
}
