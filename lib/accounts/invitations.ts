import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/record';
import { currentActor } from '../audit/context';
import type { Database } from '../db/client';
import type { Tx } from '../db/capped';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { AppError, notFound } from '../errors/app-error';
import { addMember, type Actor, type OrganisationInfo } from './members';
import { isRole, roleAtLeast, type Role } from './roles';
import { AccountError, createAccount, normalizeEmail } from './users';

/**
 * Invitations to join an organisation (docs/teams.md): a single-use, expiring (EV_INVITATION_DAYS),
 * revocable link. The link carries 32 random bytes; only their SHA-256 is stored, so the table
 * cannot be turned back into links. Accepting claims the invitation with one conditional UPDATE
 * (still pending, not expired): of two accepts at once, one wins and the other finds nothing.
 * Every link that cannot be used (unknown, expired, revoked or used) gets the same answer.
 */

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface InvitationInfo {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
  invitedBy: { userId: string; email: string };
  state: InvitationState;
}

const DAY_MS = 24 * 3600_000;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** One answer for every link that cannot be used: nothing tells an unknown token from a spent one. */
export const invalidLink = () => new AppError('not_found', 'This invitation link is no longer valid: it was used, revoked or has expired. Ask for a new one.');

type Row = {
  id: string;
  orgId: string;
  email: string;
  role: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
};

function stateOf(row: Row, now = new Date()): InvitationState {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'pending';
}

async function describeInvitations({ prisma }: Database, rows: Row[]): Promise<InvitationInfo[]> {
  const people = await prisma.user.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.invitedBy))] } }, select: { id: true, email: true } });
  const email = new Map(people.map((p) => [p.id, p.email]));
  const now = new Date();
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role as Role,
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    invitedBy: { userId: r.invitedBy, email: email.get(r.invitedBy) ?? '' },
    state: stateOf(r, now),
  }));
}

/** Admins invite members and viewers; owners any role (as members.ts lets them give roles). */
function assertMayInvite(actor: Actor, role: Role): void {
  if (!roleAtLeast(actor.role, 'admin')) throw new AppError('insufficient_role', 'Inviting people needs the admin role.', { role: 'admin' });
  if (actor.role !== 'owner' && roleAtLeast(role, 'admin')) {
    throw new AppError('insufficient_role', `Only an owner can invite ${role === 'owner' ? 'an owner' : 'an admin'}.`, { role: 'owner' });
  }
}

const pendingWhere = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

/** Creates an invitation; answers it with the link's token (shown or mailed once, never stored). */
export async function createInvitation(
  database: Database,
  orgId: string,
  actor: Actor,
  input: { email: string; role: Role },
): Promise<{ invitation: InvitationInfo; token: string }> {
  const { prisma } = database;
  assertMayInvite(actor, input.role);
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AppError('invalid_request', 'Enter a valid email address.', { param: 'email' });
  const now = new Date();
  const person = await prisma.user.findUnique({ where: { email }, select: { id: true } });
  if (person && (await prisma.membership.findUnique({ where: { orgId_userId: { orgId, userId: person.id } } }))) {
    throw new AppError('conflict', `${email} is already a member of this organisation.`, { param: 'email' });
  }
  if (await prisma.invitation.findFirst({ where: { orgId, email, ...pendingWhere(now) }, select: { id: true } })) {
    throw new AppError('conflict', `${email} already has a pending invitation: revoke it first to send a new one.`, { param: 'email' });
  }
  const token = randomBytes(32).toString('base64url');
  const row = await prisma.$transaction(async (tx) => {
    const created = await tx.invitation.create({
      data: {
        id: newId('inv'),
        orgId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: actor.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + env().EV_INVITATION_DAYS * DAY_MS),
      },
    });
    await recordAudit(tx, orgId, 'member.invited', { type: 'invitation', id: created.id, label: email }, { role: input.role });
    return created;
  });
  return { invitation: (await describeInvitations(database, [row]))[0]!, token };
}

/** The organisation's invitations, newest first, with their state. */
export async function listInvitations(database: Database, orgId: string): Promise<InvitationInfo[]> {
  const rows = await database.prisma.invitation.findMany({ where: { orgId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: 500 });
  return describeInvitations(database, rows);
}

/** Revokes a pending invitation of the organisation (404 for any other); an admin cannot revoke an owner's invitation of an admin or owner. */
export async function revokeInvitation({ prisma }: Database, orgId: string, actor: Actor, id: string): Promise<{ id: string; revoked: true }> {
  if (!isIdShaped(id)) throw notFound('Invitation');
  const now = new Date();
  const row = await prisma.invitation.findFirst({ where: { id, orgId, ...pendingWhere(now) } });
  if (!row) throw notFound('Invitation');
  if (isRole(row.role)) assertMayInvite(actor, row.role);
  const { count } = await prisma.invitation.updateMany({ where: { id, orgId, ...pendingWhere(now) }, data: { revokedAt: now } });
  if (count === 0) throw notFound('Invitation');
  return { id, revoked: true };
}

/** A pending invitation by its link's token, or the one 404. */
async function pendingByToken(client: Database['prisma'] | Tx, token: string): Promise<Row> {
  const row = await client.invitation.findFirst({ where: { tokenHash: hashToken(token), ...pendingWhere(new Date()) } });
  if (!row || !isRole(row.role)) throw invalidLink();
  return row;
}

async function organisationName(client: Database['prisma'] | Tx, orgId: string): Promise<string> {
  const org = await client.user.findUnique({ where: { id: orgId }, select: { email: true, orgName: true } });
  return org?.orgName ?? org?.email ?? '';
}

export interface InvitationPreview {
  organisation_name: string;
  email: string;
  role: Role;
  expires_at: string;
  /** whether the invited address has an account already (sign in and accept) or not (choose a password) */
  account_exists: boolean;
}

/** What the join page shows before anyone acts: only for a link that can still be used. */
export async function lookupInvitation({ prisma }: Database, token: string): Promise<InvitationPreview> {
  const row = await pendingByToken(prisma, token);
  const account = await prisma.user.findUnique({ where: { email: row.email }, select: { id: true } });
  return {
    organisation_name: await organisationName(prisma, row.orgId),
    email: row.email,
    role: row.role as Role,
    expires_at: row.expiresAt.toISOString(),
    account_exists: account !== null,
  };
}

/**
 * Marks the invitation accepted by `userId` if it is still pending: one conditional UPDATE, so of
 * two accepts at once exactly one changes the row. Answers the row, or the one 404.
 */
async function claim(tx: Tx, token: string, userId: string): Promise<Row> {
  const now = new Date();
  const tokenHash = hashToken(token);
  const { count } = await tx.invitation.updateMany({ where: { tokenHash, ...pendingWhere(now) }, data: { acceptedAt: now, acceptedBy: userId } });
  if (count !== 1) throw invalidLink();
  return (await tx.invitation.findUnique({ where: { tokenHash } }))!;
}

/** A signed-in person accepts: their address must be the invited one. They join with the invitation's role (an existing member keeps the higher). */
export async function acceptInvitation(database: Database, token: string, person: { id: string }): Promise<{ organisation: OrganisationInfo }> {
  const { prisma } = database;
  const me = await prisma.user.findUnique({ where: { id: person.id }, select: { email: true } });
  const pending = await pendingByToken(prisma, token);
  if (!me || normalizeEmail(me.email) !== pending.email) {
    throw new AppError('forbidden', `This invitation is for ${pending.email}: sign in as that address to accept it.`);
  }
  const row = await prisma.$transaction(async (tx) => {
    const claimed = await claim(tx, token, person.id);
    await addMember(tx, claimed.orgId, person.id, claimed.role as Role);
    await recordAudit(tx, claimed.orgId, 'member.joined', { type: 'member', id: person.id, label: me.email }, { role: claimed.role, invitation: claimed.id });
    return claimed;
  });
  const membership = await prisma.membership.findUnique({ where: { orgId_userId: { orgId: row.orgId, userId: person.id } } });
  return { organisation: { id: row.orgId, name: await organisationName(prisma, row.orgId), role: (membership?.role ?? row.role) as Role } };
}

/**
 * A new person joins: their account (the sign-up's rules: lib/accounts/users.ts createAccount, with
 * their own organisation as every account has), the claim and the membership in one transaction:
 * nothing is made unless all of it is. An address that has an account already signs in and accepts.
 */
export async function joinWithInvitation(database: Database, token: string, password: string): Promise<{ email: string; organisation: OrganisationInfo }> {
  const pending = await pendingByToken(database.prisma, token);
  let joined: Row | undefined;
  try {
    await createAccount(database, pending.email, password, async (tx, userId) => {
      joined = await claim(tx, token, userId);
      await addMember(tx, joined.orgId, userId, joined.role as Role);
      // the person who joins is the actor: made in this transaction, from the join page's address (lib/auth/login.ts)
      const actor = { userId, keyId: null, clientAddress: currentActor()?.clientAddress ?? null, method: 'invitation' };
      await recordAudit(
        tx,
        joined.orgId,
        'member.joined',
        { type: 'member', id: userId, label: pending.email },
        { role: joined.role, invitation: joined.id },
        actor,
      );
    });
  } catch (error) {
    if (error instanceof AccountError && error.code === 'email_taken') {
      throw new AppError('conflict', `${pending.email} has an account already: sign in, then accept the invitation.`, { param: 'token' });
    }
    throw error;
  }
  return {
    email: pending.email,
    organisation: { id: joined!.orgId, name: await organisationName(database.prisma, joined!.orgId), role: joined!.role as Role },
  };
}
