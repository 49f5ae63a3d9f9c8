import { z } from 'zod';
import * as req from './schemas';
import * as res from './responses';
import * as rr from './responses-rules';
import * as rd from './responses-data';
import * as rm from './responses-monitors';
import * as rt from './responses-teams';
import { env } from '../config/env';
import { downloadColumnsText } from '../jobs/columns';

import { operation, type Operation, type Status } from './operation';

export type { Operation } from './operation';

const verifyErrors: Status[] = [402, 503, 504];

/** A single check's body: one address, with room to spare. */
const SINGLE_CHECK_BYTES = 64 * 1024;

export const listRules = operation({
  method: 'get',
  path: '/v1/rules',
  operationId: 'listRules',
  tag: 'Rules',
  scope: 'rules',
  role: 'member',
  summary: 'List allow and block rules',
  description:
    "The account's rules, the same in both modes. Rules decide an address before any probe: `allowlisted` (deliverable) or `blocklisted` (undeliverable) with the rule's id as `rule_id`, not charged.",
  ok: [200, rr.ruleList],
});

export const createRule = operation({
  method: 'post',
  path: '/v1/rules',
  operationId: 'createRule',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Add a rule',
  description: 'Up to EV_MAX_RULES_PER_ACCOUNT (10,000 by default) per account (409 `limit_reached`). A rule the account already has is answered as it is.',
  body: req.ruleBody,
  ok: [201, rr.ruleCreated],
  creates: true,
});

export const importRules = operation({
  method: 'post',
  path: '/v1/rules/import',
  operationId: 'importRules',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Add many rules at once',
  description: "The dashboard's CSV import sends its rows here. All are added or none.",
  body: req.ruleImportBody,
  ok: [200, rr.ruleImported],
  // a thousand rules of ~100 bytes each, with room for JSON
  maxBodyBytes: 256 * 1024,
  creates: true,
});

export const deleteRule = operation({
  method: 'delete',
  path: '/v1/rules/{id}',
  operationId: 'deleteRule',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Remove a rule',
  ok: [200, rr.ruleDeleted],
  errors: [404],
});

export const getUsage = operation({
  method: 'get',
  path: '/v1/usage',
  operationId: 'getUsage',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Usage per day and mode',
  description:
    "Checks by verdict bucket, charged, refunded and credits granted, per UTC day and mode (every day of the range, zeros included). `format=csv` answers the same rows as CSV. `by=member` adds each person's charged checks per day, today and this month, with their caps (as CSV: day, user_id, email, role, charged).",
  query: req.usageQuery,
  ok: [200, rr.usageReport],
  csvToo: true,
  errors: [400],
});

export const getQuota = operation({
  method: 'get',
  path: '/v1/account/quota',
  operationId: 'getQuota',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Quota and its warning threshold',
  ok: [200, rr.quotaState],
});

export const setQuotaWarning = operation({
  method: 'post',
  path: '/v1/account/quota',
  operationId: 'setQuotaWarning',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Set the quota warning threshold',
  description: "`quota.warning` is sent once each time credits plus today's free checks fall below it (checked after each production reservation).",
  body: req.quotaWarningBody,
  ok: [200, rr.quotaState],
});

export const getRetention = operation({
  method: 'get',
  path: '/v1/account/retention',
  operationId: 'getRetention',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'How long data is kept, and the lists about to go',
  ok: [200, rd.retentionState],
});

export const setRetention = operation({
  method: 'post',
  path: '/v1/account/retention',
  operationId: 'setRetention',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Keep data fewer days',
  description:
    'Lists, results, history, stored idempotent answers and webhook deliveries older than this are deleted (usage counts and the credit ledger are kept); `list.expiring` warns 7 and 1 days before. At most EV_RETENTION_DAYS when the installation sets it (400 above). A shorter setting applies at the next sweep.',
  body: req.retentionBody,
  ok: [200, rd.retentionState],
});

export const eraseAddress = operation({
  method: 'delete',
  path: '/v1/addresses/{email}',
  operationId: 'eraseAddress',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Erase one address from every store of the account',
  description:
    'Results and history, uploaded list rows, rules of the address, stored idempotent answers and webhook deliveries that hold it (compared ignoring case). Usage counts and charges are kept. Answers what it removed (all zeros when it held nothing).',
  ok: [200, rd.addressErased],
  errors: [400],
});

export const exportData = operation({
  method: 'get',
  path: '/v1/export',
  operationId: 'exportData',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: "All the account's data as a zip",
  description:
    'CSV and JSON files: `account.json`, `lists.csv` and `lists.json` (every job), `results.csv` (every result and history row, both modes), `list-rows.csv` (the uploaded rows), `rules.csv`, `keys.json` (no secrets or hashes), `webhooks.json` (no signing secrets). Streamed.',
  ok: [200, 'zip'],
});

export const createMonitor = operation({
  method: 'post',
  path: '/v1/monitors',
  operationId: 'createMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Re-verify a list on a schedule',
  description:
    "The list must be a completed job of the caller's mode (409 `job_not_completed` otherwise; 409 `conflict` if it is already monitored). Each run is a job charged like any list (credits reserved before it starts; a run that cannot be paid is skipped with `quota.exceeded`), never answered from reused results; when it completes, `list.changed` reports the rows whose verdict changed.",
  body: req.monitorBody,
  ok: [201, rm.monitorCreated],
  errors: [404, 409],
  creates: true,
});

export const listMonitors = operation({
  method: 'get',
  path: '/v1/monitors',
  operationId: 'listMonitors',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'viewer',
  summary: 'List monitors',
  ok: [200, rm.monitorList],
});

export const getMonitor = operation({
  method: 'get',
  path: '/v1/monitors/{id}',
  operationId: 'getMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'viewer',
  summary: "A monitor and its list's health",
  description: 'Every run with its counts per verdict bucket and its changes against the run before.',
  ok: [200, rm.monitorDetail],
  errors: [404],
});

export const updateMonitor = operation({
  method: 'patch',
  path: '/v1/monitors/{id}',
  operationId: 'updateMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Pause, resume or re-time a monitor',
  body: req.monitorUpdateBody,
  ok: [200, rm.monitorCreated],
  errors: [404, 409],
});

export const deleteMonitor = operation({
  method: 'delete',
  path: '/v1/monitors/{id}',
  operationId: 'deleteMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Delete a monitor (its runs stay)',
  ok: [200, rm.monitorDeleted],
  errors: [404],
});

export const getReuse = operation({
  method: 'get',
  path: '/v1/account/reuse',
  operationId: 'getReuse',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Reuse of fresh results',
  ok: [200, rm.reuseSettings],
});

export const setReuse = operation({
  method: 'post',
  path: '/v1/account/reuse',
  operationId: 'setReuse',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Turn the reuse of fresh results on or off',
  description:
    "With a window of `days`, an address of a production list that the account verified within that many days is answered from that result: marked `reused` with its `checked_at`, not reserved, not charged. Unknown answers and rules' verdicts are never reused; monitors never reuse.",
  body: req.reuseBody,
  ok: [200, rm.reuseSettings],
});

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

export const getTwoFactor = operation({
  method: 'get',
  path: '/v1/account/two-factor',
  operationId: 'getTwoFactor',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  twoFactorExempt: true,
  summary: 'Whether your two-factor sign-in is on',
  description: 'About the signed-in person, whichever organisation the session acts for. From a dashboard session only (403 with an API key).',
  ok: [200, rt.twoFactorState],
});

export const startTwoFactor = operation({
  method: 'post',
  path: '/v1/account/two-factor',
  operationId: 'startTwoFactor',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  twoFactorExempt: true,
  summary: 'Start enrolling an authenticator app',
  description:
    'A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), as a QR code and as text, pending until a code of it is confirmed; starting again replaces a pending one. 409 `conflict` while two-factor is on. From a dashboard session only.',
  ok: [200, rt.twoFactorEnrolment],
  maxBodyBytes: 1024,
  unstored: true,
});

export const confirmTwoFactor = operation({
  method: 'post',
  path: '/v1/account/two-factor/confirm',
  operationId: 'confirmTwoFactor',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  twoFactorExempt: true,
  summary: 'Turn two-factor on with a code of the app',
  description:
    'Answers ten one-time recovery codes, shown only this once. From then on, password sign-in also asks for a code. 400 for a wrong code; 409 `conflict` without a pending enrolment.',
  body: req.twoFactorConfirmBody,
  ok: [200, rt.twoFactorEnabled],
  maxBodyBytes: 4096,
  unstored: true,
});

export const disableTwoFactor = operation({
  method: 'delete',
  path: '/v1/account/two-factor',
  operationId: 'disableTwoFactor',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  twoFactorExempt: true,
  summary: 'Turn two-factor off',
  description:
    'With a code of the app, an unused recovery code or the password (a wrong one counts towards the sign-in throttle: 429). The secret and the recovery codes are deleted. 409 `conflict` while an organisation you belong to requires two-factor, or when it is not on.',
  body: req.twoFactorDisableBody,
  ok: [200, rt.twoFactorDisabled],
  errors: [400, 409],
  maxBodyBytes: 4096,
});

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

export const verifySingle = operation({
  method: 'post',
  path: '/v1/verify/single',
  operationId: 'verifySingle',
  tag: 'Verify',
  scope: 'verify',
  role: 'member',
  publishable: true,
  summary: 'Verify one address',
  description:
    'A syntactically invalid address is a verdict (`valid: false`, `reason: invalid_email`), not an error. A production check that reaches its deadline (EV_VERIFY_DEADLINE_MS) answers `unknown`/`timeout` and is not charged.',
  body: req.emailBody,
  ok: [200, res.singleResult],
  errors: verifyErrors,
  sandboxTriggers: true,
  maxBodyBytes: SINGLE_CHECK_BYTES,
});

export const verify = operation({
  method: 'post',
  path: '/v1/verify',
  operationId: 'verify',
  tag: 'Verify',
  scope: 'verify',
  role: 'member',
  publishable: true,
  summary: 'Verify one address (SDK shape)',
  body: req.emailBody,
  ok: [200, res.verifyResult],
  errors: verifyErrors,
  sandboxTriggers: true,
  maxBodyBytes: SINGLE_CHECK_BYTES,
});

export const submitBulk = operation({
  method: 'post',
  path: '/v1/verify/bulk',
  operationId: 'submitBulk',
  tag: 'Bulk',
  scope: 'verify',
  role: 'member',
  summary: 'Submit a list',
  description:
    '10 or fewer addresses are verified at once; more are queued as a job. In sandbox mode the error triggers apply only when the request holds a single address.',
  body: req.bulkBody,
  ok: [200, res.bulkSubmitted],
  errors: verifyErrors,
  sandboxTriggers: true,
  maxBodyBytes: () => env().EV_MAX_BODY_BYTES,
  heavy: true,
});

export const listJobs = operation({
  method: 'get',
  path: '/v1/verify/bulk',
  operationId: 'listJobs',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: 'List jobs',
  description: "The caller's jobs in the request's mode, newest first.",
  query: req.listQuery,
  ok: [200, res.jobList],
  errors: [400],
});

export const jobStatus = operation({
  method: 'get',
  path: '/v1/verify/bulk/status/{jobId}',
  operationId: 'jobStatus',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: "A job's progress and results",
  description: 'A job fails only when one of its chunks could not be finished in 10 claims; a failed job refunds what it did not use and sends `bulk.failed`.',
  query: req.statusQuery,
  ok: [200, res.jobStatus],
  errors: [400, 404],
});

export const downloadJob = operation({
  method: 'get',
  path: '/v1/verify/bulk/download/{jobId}',
  operationId: 'downloadJob',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: "Download a job's results (CSV or Excel)",
  description: `Streamed. ${downloadColumnsText()} Cells beginning with \`= + - @\`, tab or CR are prefixed with \`'\`. 409 \`job_not_completed\` until the job has completed.`,
  query: req.downloadQuery,
  ok: [200, 'csv'],
  errors: [400, 404, 409],
  heavy: true,
});

export const cancelJob = operation({
  method: 'delete',
  path: '/v1/verify/bulk/{jobId}',
  operationId: 'cancelJob',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'member',
  summary: 'Cancel a queued or processing job',
  description: 'Refunds what it did not use. A job that has ended answers 409 `conflict`.',
  ok: [200, res.jobCancelled],
  errors: [404, 409],
});

export const listHistory = operation({
  method: 'get',
  path: '/v1/history',
  operationId: 'listHistory',
  tag: 'History',
  scope: 'history',
  role: 'viewer',
  summary: 'Past verifications',
  description: 'Single checks and bulk items, newest first.',
  query: req.historyQuery,
  ok: [200, res.historyPage],
  errors: [400],
});

export const createWebhook = operation({
  method: 'post',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Add an endpoint',
  description: 'URLs resolving to private, loopback, link-local or metadata addresses are refused unless EV_ALLOW_PRIVATE_NETWORKS=true.',
  body: req.webhookBody,
  ok: [201, res.webhookCreated],
  creates: true,
});

export const listWebhooks = operation({
  method: 'get',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'List endpoints',
  ok: [200, res.webhookList],
});

export const deleteWebhook = operation({
  method: 'delete',
  path: '/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Remove an endpoint',
  ok: [200, res.webhookDeleted],
  errors: [404],
});

export const listDeliveries = operation({
  method: 'get',
  path: '/v1/webhooks/{id}/deliveries',
  operationId: 'listDeliveries',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: "An endpoint's deliveries with every attempt",
  ok: [200, res.deliveryList],
  errors: [404],
});

export const testWebhook = operation({
  method: 'post',
  path: '/v1/webhooks/{id}/test',
  operationId: 'testWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Send a webhook.test event now',
  ok: [200, res.deliverySent],
  errors: [404],
  creates: true,
});

export const replayDelivery = operation({
  method: 'post',
  path: '/v1/webhooks/{id}/deliveries/{deliveryId}/replay',
  operationId: 'replayDelivery',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Send a past delivery again',
  description: 'The same payload (so the same `webhook-id`) as a new delivery, sent now.',
  ok: [200, res.deliverySent],
  errors: [404],
  creates: true,
});

export const listKeys = operation({
  method: 'get',
  path: '/v1/keys',
  operationId: 'listKeys',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'List API keys',
  ok: [200, res.apiKeyList],
});

export const createKey = operation({
  method: 'post',
  path: '/v1/keys',
  operationId: 'createKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'Create an API key',
  description:
    'A secret key (default) of the scopes given (all when omitted), optionally limited to client addresses and an expiry; or a publishable key for web pages (docs/integrations.md).',
  body: req.keyBody,
  ok: [201, res.apiKeyCreated],
  maxBodyBytes: 4096,
  creates: true,
});

export const updateKey = operation({
  method: 'patch',
  path: '/v1/keys/{id}',
  operationId: 'updateKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: "Change a key's name, scopes or restrictions",
  description: 'Only the fields sent change; `null` clears a restriction. Takes effect within seconds on every server (keys are cached 5 s per process).',
  body: req.keyUpdateBody,
  ok: [200, res.apiKey],
  errors: [400, 404, 413],
  maxBodyBytes: 4096,
});

export const revokeKey = operation({
  method: 'delete',
  path: '/v1/keys/{id}',
  operationId: 'revokeKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'Revoke an API key',
  ok: [200, res.apiKeyRevoked],
  errors: [404],
});

export const getAccount = operation({
  method: 'get',
  path: '/v1/account',
  operationId: 'getAccount',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Plan, quota and credits',
  ok: [200, res.account],
});

export const signOutEverywhere = operation({
  method: 'delete',
  path: '/v1/account/sessions',
  operationId: 'signOutEverywhere',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Sign out every dashboard session',
  description: 'Every session of the account, this one included, stops working within seconds. API keys are not affected.',
  ok: [200, res.accountMessage],
});

export const changePassword = operation({
  method: 'post',
  path: '/v1/account/password',
  operationId: 'changePassword',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Change the password',
  description:
    'From a dashboard session only (403 with an API key). Every other session is signed out; this one gets a new cookie. A wrong current password counts towards the sign-in throttle (429).',
  body: req.passwordChangeBody,
  ok: [200, res.accountMessage],
  maxBodyBytes: 4096,
});

export const getEgress = operation({
  method: 'get',
  path: '/v1/egress',
  operationId: 'getEgress',
  tag: 'Operations',
  scope: 'account',
  role: 'member',
  summary: 'Egress health of the installation',
  description: "Port 25, reverse DNS and blocklists, from this server process's cached check; the first call runs it.",
  query: req.egressQuery,
  ok: [200, res.egressReport],
  errors: [400],
});

export const getOpenApi = operation({
  method: 'get',
  path: '/v1/openapi.json',
  operationId: 'getOpenApi',
  tag: 'Operations',
  scope: 'public',
  role: 'viewer',
  summary: 'This document',
  description: 'No key, no rate limit.',
  ok: [200, z.object({}).passthrough()],
});

/** Every operation by its operationId: a route file binds its handler to one (lib/api/route.ts `apiRoute`). */
export const operations = {
  verifySingle,
  verify,
  submitBulk,
  listJobs,
  jobStatus,
  downloadJob,
  cancelJob,
  listHistory,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listDeliveries,
  testWebhook,
  replayDelivery,
  listKeys,
  createKey,
  updateKey,
  revokeKey,
  getAccount,
  signOutEverywhere,
  changePassword,
  getTwoFactor,
  startTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  listRules,
  createRule,
  importRules,
  deleteRule,
  getUsage,
  getQuota,
  setQuotaWarning,
  getRetention,
  setRetention,
  eraseAddress,
  exportData,
  createMonitor,
  listMonitors,
  getMonitor,
  updateMonitor,
  deleteMonitor,
  getReuse,
  setReuse,
  listOrganisations,
  renameOrganisation,
  getOrganisation,
  listMembers,
  updateMember,
  removeMember,
  leaveOrganisation,
  listAuditEvents,
  createInvitation,
  listInvitations,
  revokeInvitation,
  acceptInvitation,
  getEgress,
  getOpenApi,
};

/** The /v1 operations in the OpenAPI document's order (lib/api/openapi.ts). */
export const OPERATIONS: Operation[] = Object.values(operations);
