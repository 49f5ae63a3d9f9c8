import { recordAudit } from '../audit/record';
import type { Database } from '../db/client';
import { AppError } from '../errors/app-error';

/**
 * Renames the organisation and/or sets whether it requires two-factor (owners: lib/api/operations/).
 * Requiring two-factor needs the person asking to have it on (409), so an owner cannot lock
 * themselves out of their own settings. Each change is a `settings.changed` audit row, from and to.
 */
export async function renameOrganisation(
  { prisma }: Database,
  orgId: string,
  change: { name?: string; require_two_factor?: boolean },
  actorId: string,
): Promise<{ id: string; name: string; require_two_factor: boolean }> {
  if (change.name === undefined && change.require_two_factor === undefined) {
    throw new AppError('invalid_request', 'Send `name` or `require_two_factor`.', { param: 'body' });
  }
  if (change.require_two_factor) {
    const actor = await prisma.user.findUnique({ where: { id: actorId }, select: { totpEnabledAt: true } });
    if (!actor?.totpEnabledAt)
      throw new AppError('conflict', 'Turn on two-factor for yourself first (Settings, Two-factor), then require it for the organisation.');
  }
  const row = await prisma.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: orgId }, select: { orgName: true, requireTwoFactor: true } });
    const after = await tx.user.update({
      where: { id: orgId },
      data: {
        ...(change.name !== undefined ? { orgName: change.name.trim() || null } : {}),
        ...(change.require_two_factor !== undefined ? { requireTwoFactor: change.require_two_factor } : {}),
      },
      select: { id: true, email: true, orgName: true, requireTwoFactor: true },
    });
    const target = { type: 'organisation' as const, id: orgId, label: after.orgName ?? after.email };
    if (change.name !== undefined)
      await recordAudit(tx, orgId, 'settings.changed', target, { setting: 'name', from: before?.orgName ?? null, to: after.orgName });
    if (change.require_two_factor !== undefined) {
      await recordAudit(tx, orgId, 'settings.changed', target, {
        setting: 'require_two_factor',
        from: before?.requireTwoFactor ?? null,
        to: after.requireTwoFactor,
      });
    }
    return after;
  });
  return { id: row.id, name: row.orgName ?? row.email, require_two_factor: row.requireTwoFactor };
}
