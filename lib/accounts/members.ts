import type { Database } from '../db/client';
import { recordAudit } from '../audit/record';
import type { AuditTarget } from '../audit/actions';
import { lockOrganisation } from '../db/transactions';
import type { Tx } from '../db/capped';
import { AppError, notFound } from '../errors/app-error';
import { isIdShaped } from '../db/ids';
import { bumpAccountVersion } from './versions';
import { ROLES, isRole, roleAtLeast, roleRank, type Role } from './roles';

export { renameOrganisation } from './organisation';

/**
 * Who belongs to an organisation and with which role (docs/teams.md). An organisation is a users
 * row; a membership ties a person (another users row, or the same) to it. There is always at least
 * one owner: a change that would leave none is refused (409), under a per-organisation lock so two
 * owners cannot demote each other at once.
 */

export interface Membership {
  role: Role;
  checksPerDay: number | null;
  checksPerMonth: number | null;
}

export interface Actor {
  /** the person acting */
  id: string;
  role: Role;
}

export interface MemberInfo {
  userId: string;
  email: string;
  role: Role;
  checksPerDay: number | null;
  checksPerMonth: number | null;
  joinedAt: string;
}

export interface OrganisationInfo {
  id: string;
  name: string;
  role: Role;
}

export async function membershipOf({ prisma }: Database, orgId: string, userId: string): Promise<Membership | null> {
  const row = await prisma.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
  return row && isRole(row.role) ? { role: row.role, checksPerDay: row.checksPerDay, checksPerMonth: row.checksPerMonth } : null;
}

/** The organisations a person belongs to: their own first, then by when they joined. */
export async function organisationsOf({ prisma }: Database, userId: string): Promise<OrganisationInfo[]> {
  const rows = await prisma.membership.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
  const orgs = await prisma.user.findMany({ where: { id: { in: rows.map((r) => r.orgId) } }, select: { id: true, email: true, orgName: true } });
  const byId = new Map(orgs.map((o) => [o.id, o]));
  return rows
    .filter((r) => byId.has(r.orgId) && isRole(r.role))
    .sort((a, b) => Number(b.orgId === userId) - Number(a.orgId === userId))
    .map((r) => ({ id: r.orgId, name: byId.get(r.orgId)!.orgName ?? byId.get(r.orgId)!.email, role: r.role as Role }));
}

export async function listMembers(database: Database, orgId: string): Promise<MemberInfo[]> {
  return membersWhere(database, { orgId });
}

/** The members the filter selects, oldest first, with their emails. */
async function membersWhere({ prisma }: Database, where: { orgId: string; userId?: string }): Promise<MemberInfo[]> {
  const rows = await prisma.membership.findMany({ where, orderBy: { createdAt: 'asc' } });
  const people = await prisma.user.findMany({ where: { id: { in: rows.map((r) => r.userId) } }, select: { id: true, email: true } });
  const email = new Map(people.map((p) => [p.id, p.email]));
  return rows.map((r) => ({
    userId: r.userId,
    email: email.get(r.userId) ?? '',
    role: r.role as Role,
    checksPerDay: r.checksPerDay,
    checksPerMonth: r.checksPerMonth,
    joinedAt: r.createdAt.toISOString(),
  }));
}

/**
 * Whether `actor` may manage `target` (change, cap or remove them): owners manage everyone, admins
 * the members and viewers; nobody else manages anyone. A role given may not be above the actor's.
 */
function assertManages(actor: Actor, target: Role, newRole?: Role): void {
  const manages = actor.role === 'owner' || (actor.role === 'admin' && roleRank(target) < roleRank('admin'));
  if (!manages)
    throw new AppError(
      'insufficient_role',
      `A${actor.role === 'admin' ? 'n admin' : ` ${actor.role}`} cannot manage a${target === 'owner' || target === 'admin' ? 'n' : ''} ${target}; ask an owner.`,
      { role: 'owner' },
    );
  if (newRole && !roleAtLeast(actor.role, newRole))
    throw new AppError('insufficient_role', `Only an owner can make someone ${newRole === 'owner' ? 'an owner' : 'an admin'}.`, { role: 'owner' });
  if (newRole && actor.role === 'admin' && newRole === 'admin')
    throw new AppError('insufficient_role', 'Only an owner can make someone an admin.', { role: 'owner' });
}

/** A member in the audit log: named by their email. */
async function memberTarget(tx: Tx, userId: string): Promise<AuditTarget> {
  const person = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
  return { type: 'member', id: userId, label: person?.email ?? null };
}

async function assertAnotherOwner(tx: Tx, orgId: string, leaving: string): Promise<void> {
  const others = await tx.membership.count({ where: { orgId, role: 'owner', userId: { not: leaving } } });
  if (others === 0) throw new AppError('conflict', 'An organisation keeps at least one owner: make another member an owner first.');
}

/** After a person's role or membership changed: this process forgets what it cached of it at once; other processes within VERSION_CACHE_MS (lib/auth/sessions.ts). */
const changed = new Set<(orgId: string, userId: string) => void>();
export function onMembershipChange(listener: (orgId: string, userId: string) => void): void {
  changed.add(listener);
}

/**
 * Runs `change` on a member's row under the organisation's lock (404 when there is none), then
 * tells the listeners (the session caches) that the member changed.
 */
async function withMembership(database: Database, orgId: string, userId: string, change: (tx: Tx, role: Role) => Promise<void>): Promise<void> {
  if (!isIdShaped(userId)) throw notFound('Member');
  await database.prisma.$transaction(async (tx) => {
    await lockOrganisation(tx, database.dialect, orgId);
    const row = await tx.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
    if (!row) throw notFound('Member');
    await change(tx, row.role as Role);
  });
  for (const listener of changed) listener(orgId, userId);
}

export interface MemberChange {
  role?: Role;
  checks_per_day?: number | null;
  checks_per_month?: number | null;
}

/**
 * Changes a member's role or caps. Lowering a role lowers the keys that person made in the
 * organisation to it too (a key acts with at most its maker's role).
 */
export async function updateMember(database: Database, orgId: string, actor: Actor, userId: string, change: MemberChange): Promise<MemberInfo> {
  const { dialect } = database;
  await withMembership(database, orgId, userId, async (tx, current) => {
    const self = userId === actor.id;
    // an owner may change their own role (handing ownership over); nobody raises or caps themselves
    if (!(self && actor.role === 'owner')) assertManages(actor, current, change.role);
    if (change.role && current === 'owner' && change.role !== 'owner') await assertAnotherOwner(tx, orgId, userId);
    await tx.membership.update({
      where: { orgId_userId: { orgId, userId } },
      data: { role: change.role, checksPerDay: change.checks_per_day, checksPerMonth: change.checks_per_month },
    });
    if (change.role && roleRank(change.role) < roleRank(current)) {
      const above = ROLES.filter((r) => roleRank(r) > roleRank(change.role!));
      await tx.apiKey.updateMany({ where: { userId: orgId, createdBy: userId, role: { in: [...above] } }, data: { role: change.role } });
      await bumpAccountVersion(tx, dialect, orgId);
    }
    const details = {
      ...(change.role !== undefined && change.role !== current ? { from: current, to: change.role } : {}),
      ...(change.checks_per_day !== undefined ? { checks_per_day: change.checks_per_day } : {}),
      ...(change.checks_per_month !== undefined ? { checks_per_month: change.checks_per_month } : {}),
    };
    // a new role is member.role_changed; caps alone are the member's settings
    const action = 'from' in details ? 'member.role_changed' : 'settings.changed';
    if (Object.keys(details).length) await recordAudit(tx, orgId, action, await memberTarget(tx, userId), details);
  });
  return (await membersWhere(database, { orgId, userId }))[0]!;
}

/**
 * Removes a member (or lets one leave: anyone may remove themselves). Their sessions in the
 * organisation stop at once; the keys they made stay with it and keep working (docs/teams.md).
 */
export async function removeMember(database: Database, orgId: string, actor: Actor, userId: string): Promise<{ removed: string }> {
  await withMembership(database, orgId, userId, async (tx, role) => {
    if (userId !== actor.id) assertManages(actor, role);
    if (role === 'owner') await assertAnotherOwner(tx, orgId, userId);
    await tx.membership.delete({ where: { orgId_userId: { orgId, userId } } });
    await recordAudit(tx, orgId, 'member.removed', await memberTarget(tx, userId), { role, ...(userId === actor.id ? { left: true } : {}) });
  });
  return { removed: userId };
}

/** Adds a person to an organisation with a role (an accepted invitation); an existing member keeps the higher of the two roles. */
export async function addMember(tx: Tx, orgId: string, userId: string, role: Role): Promise<void> {
  const row = await tx.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
  if (!row) await tx.membership.create({ data: { orgId, userId, role } });
  else if (roleRank(role) > roleRank(row.role as Role)) await tx.membership.update({ where: { orgId_userId: { orgId, userId } }, data: { role } });
  for (const listener of changed) listener(orgId, userId);
}

/**
 * What GET /v1/organisations answers: a session's person's organisations, or a key's own
 * organisation with the key's role; `current` the one the request acted for.
 */
export async function organisationsFor(
  database: Database,
  caller: { userId: string; actorId: string; role: Role; key: unknown },
): Promise<{ current: string; data: OrganisationInfo[] }> {
  if (caller.key) {
    const org = await database.prisma.user.findUnique({ where: { id: caller.userId }, select: { email: true, orgName: true } });
    return { current: caller.userId, data: [{ id: caller.userId, name: org?.orgName ?? org?.email ?? '', role: caller.role }] };
  }
  return { current: caller.userId, data: await organisationsOf(database, caller.actorId) };
}
