import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { invitationBody } from '@/lib/api/schemas';
import { createInvitation, listInvitations } from '@/lib/accounts/invitations';
import { requestOrigin } from '@/lib/auth/origin';
import { env } from '@/lib/config/env';
import { db } from '@/lib/db/client';
import { describeMailError, relayConfigured, sendMail } from '@/lib/mail/relay';

/** The join page's address: EV_PUBLIC_URL, else NEXTAUTH_URL, else this request's scheme and host as lib/auth/origin.ts trusts them. */
function linkBase(request: Request): string {
  const configured = env().EV_PUBLIC_URL || process.env.NEXTAUTH_URL || '';
  if (configured) return configured.replace(/\/+$/, '');
  const { scheme, host } = requestOrigin(request);
  return `${scheme}://${host}`;
}

/**
 * Invites an address. The invitation is made first; then the link is mailed through the relay, or,
 * with none or when the relay refuses, answered to the inviter (and, with no relay, logged) so the
 * invitation is never lost to a mail problem: the inviter passes the link on or revokes it.
 */
export const POST = apiRoute(operations.createInvitation, async (request, caller) => {
  const body = parseBody(caller.body, invitationBody);
  const database = await db();
  const { invitation, token } = await createInvitation(database, caller.userId, { id: caller.actorId, role: caller.role }, body);
  const { state: _state, ...shown } = invitation;
  const link = `${linkBase(request)}/join?token=${token}`;
  if (!relayConfigured()) {
    console.info(`invitation ${invitation.id} for ${invitation.email} (no EV_SMTP_URL, not mailed): ${link}`);
    return { ...shown, mailed: false, link };
  }
  const org = await database.prisma.user.findUnique({ where: { id: caller.userId }, select: { email: true, orgName: true } });
  const name = org?.orgName ?? org?.email ?? 'an organisation';
  try {
    await sendMail({
      to: invitation.email,
      subject: `You are invited to join ${name} on Email Verifier`,
      text: [
        `${invitation.invitedBy.email || 'Someone'} invites you to join ${name} as ${invitation.role === 'admin' || invitation.role === 'owner' ? 'an' : 'a'} ${invitation.role}.`,
        '',
        'Open this link to accept:',
        link,
        '',
        `It works once, until ${invitation.expiresAt.replace('T', ' ').slice(0, 16)} UTC.`,
        'If you did not expect this invitation, ignore this mail.',
      ].join('\n'),
    });
    return { ...shown, mailed: true, link: null };
  } catch (error) {
    const mailError = describeMailError(error);
    console.warn(`invitation ${invitation.id} for ${invitation.email} not mailed: ${mailError}`);
    return { ...shown, mailed: false, link, mailError };
  }
});

export const GET = apiRoute(operations.listInvitations, async (_request, caller) => ({ data: await listInvitations(await db(), caller.userId) }));
