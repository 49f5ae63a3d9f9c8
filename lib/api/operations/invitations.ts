import * as req from '../schemas';
import * as rt from '../responses-teams';
import { operation } from '../operation';

/** Invitations by email (docs/teams.md): a single-use, expiring, revocable link. */

export const createInvitation = operation({
  method: 'post',
  path: '/v1/invitations',
  operationId: 'createInvitation',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: 'Invite someone by email',
  description:
    'Admins invite members and viewers, owners any role (403 `insufficient_role` otherwise). The link (`<base>/join?token=...`) is valid EV_INVITATION_DAYS days (7 by default) and once. With an SMTP relay (EV_SMTP_URL) it is mailed to the address and not answered; with none, or when the relay refuses (`mailed: false`, `mail_error`), it is answered as `link` for you to pass on, and the invitation stands either way. 409 `conflict` if the address is already a member or has a pending invitation.',
  body: req.invitationBody,
  ok: [201, rt.invitationCreated],
  errors: [400, 409],
  creates: true,
});

export const listInvitations = operation({
  method: 'get',
  path: '/v1/invitations',
  operationId: 'listInvitations',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: "The organisation's invitations",
  description: 'Newest first (the last 500), each with its state: `pending`, `accepted`, `revoked` or `expired`.',
  ok: [200, rt.invitationList],
});

export const revokeInvitation = operation({
  method: 'delete',
  path: '/v1/invitations/{id}',
  operationId: 'revokeInvitation',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: 'Revoke a pending invitation',
  description:
    'Its link stops working at once. 404 unless it is a pending invitation of the organisation; admins cannot revoke the invitation of an admin or owner.',
  ok: [200, rt.invitationRevoked],
  errors: [404],
});

export const acceptInvitation = operation({
  method: 'post',
  path: '/v1/invitations/accept',
  operationId: 'acceptInvitation',
  tag: 'Teams',
  scope: 'account',
  role: 'viewer',
  summary: 'Accept an invitation as the signed-in person',
  description:
    "From a dashboard session whose address is the invited one (403 `forbidden` naming the address otherwise; API keys cannot accept). You join with the invitation's role (a member already keeps the higher role). A link that was used, revoked or has expired answers 404 `not_found`, whichever it was.",
  body: req.invitationTokenBody,
  ok: [200, rt.invitationAccepted],
  errors: [400, 404],
});
