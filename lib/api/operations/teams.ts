import * as req from '../schemas';
import * as rt from '../responses-teams';
import { operation } from '../operation';

/** Organisations, their members and the audit log (docs/teams.md). */

export const listOrganisations = operation({
  method: 'get',
  path: '/v1/organisations',
  operationId: 'listOrganisations',
  tag: 'Teams',
  scope: 'account',
  role: 'viewer',
  twoFactorExempt: true,
  ssoExempt: true,
  summary: 'The organisations you belong to',
  description:
    'A dashboard session: every organisation the signed-in person belongs to, with their role in each; `current` is the one this request acted for (the `ev-org` cookie, else their own). A key: its own organisation and role.',
  ok: [200, rt.organisationList],
});

export const renameOrganisation = operation({
  method: 'patch',
  path: '/v1/organisation',
  operationId: 'renameOrganisation',
  tag: 'Teams',
  scope: 'account',
  role: 'owner',
  summary: 'Rename the organisation, require two-factor, or change its single sign-on',
  description:
    'The name; `require_two_factor: true`: a member\'s dashboard session without two-factor is refused (403 `two_factor_required`) except to enrol and to list their organisations, and you must have two-factor on yourself to turn it on (409 `conflict`); and single sign-on (docs/security.md, "Single sign-on"): the claimed email domain (only your own email\'s: 403 `forbidden` otherwise; one organisation per domain: 409 `conflict`), the role people joining by it get, and whether password sessions may act for the organisation (turning them off needs single sign-on configured and a session signed in through it: 409 `conflict`).',
  body: req.organisationBody,
  ok: [200, rt.organisationSettings],
  errors: [400, 409],
});

export const getOrganisation = operation({
  method: 'get',
  path: '/v1/organisation',
  operationId: 'getOrganisation',
  tag: 'Teams',
  scope: 'account',
  role: 'viewer',
  summary: "The organisation's name and single sign-on settings",
  description:
    'The organisation this request acts for: its name, its claimed email domain, the role people joining by it get, whether password sessions may act for it, and whether the installation has single sign-on at all.',
  ok: [200, rt.organisationSettings],
});

export const listMembers = operation({
  method: 'get',
  path: '/v1/members',
  operationId: 'listMembers',
  tag: 'Teams',
  scope: 'account',
  role: 'viewer',
  summary: "The organisation's members and their roles",
  ok: [200, rt.memberList],
});

export const updateMember = operation({
  method: 'patch',
  path: '/v1/members/{userId}',
  operationId: 'updateMember',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: "Change a member's role or caps",
  description:
    'Owners manage everyone; admins manage members and viewers and give at most the `member` role (403 `insufficient_role` otherwise). Lowering a role lowers the keys the member made to it. An organisation keeps at least one owner (409 `conflict`).',
  body: req.memberUpdateBody,
  ok: [200, rt.memberUpdated],
  errors: [400, 404, 409],
});

export const removeMember = operation({
  method: 'delete',
  path: '/v1/members/{userId}',
  operationId: 'removeMember',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: 'Remove a member',
  description:
    'Their sessions in the organisation are refused from their next request (403 `not_a_member`); the keys they made stay with the organisation and keep working. The last owner cannot be removed (409 `conflict`).',
  ok: [200, rt.memberRemoved],
  errors: [404, 409],
});

export const leaveOrganisation = operation({
  method: 'delete',
  path: '/v1/members/me',
  operationId: 'leaveOrganisation',
  tag: 'Teams',
  scope: 'account',
  role: 'viewer',
  summary: 'Leave the organisation',
  description: 'The last owner cannot leave (409 `conflict`): make another member owner first.',
  ok: [200, rt.memberRemoved],
  errors: [409],
});

export const listAuditEvents = operation({
  method: 'get',
  path: '/v1/audit',
  operationId: 'listAuditEvents',
  tag: 'Teams',
  scope: 'account',
  role: 'admin',
  summary: 'The audit log',
  description:
    'One row per sensitive action (sign-ins, members, keys, webhooks, rules, lists, credits, settings, erasure), newest first, with who (person, key), from where and on what. Filter by `actor` (a user id or key id), `action` and time; pages by `next_cursor`. `format=csv` answers every row the filters select as CSV. Rows are never changed; they are deleted after EV_AUDIT_RETENTION_DAYS (docs/security.md, "Audit log").',
  query: req.auditQuery,
  ok: [200, rt.auditPage],
  csvToo: true,
  errors: [400],
});
