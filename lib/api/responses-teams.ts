import { z } from 'zod';
import { ROLES } from '../accounts/roles';
import { AUDIT_ACTIONS } from '../audit/actions';
import { responseSchemas as named } from './registry';
import { success, timestamp } from './responses-common';

/** The answers of organisations and their members (docs/teams.md). */

const role = z.enum(ROLES);
const capValue = z.number().int().min(0).nullable();

export const member = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role,
    checks_per_day: capValue.describe('Charged checks a UTC day this member may spend; null: no cap.'),
    checks_per_month: capValue.describe('Charged checks a calendar month (UTC); null: no cap.'),
    joined_at: timestamp,
  })
  .register(named, { id: 'Member' });
export const memberList = z.object({ success, data: z.array(member) }).register(named, { id: 'MemberList' });
export const memberUpdated = member.extend({ success }).register(named, { id: 'MemberUpdated' });
export const memberRemoved = z.object({ success, removed: z.string().describe('The user id of the member removed.') }).register(named, { id: 'MemberRemoved' });

export const organisation = z
  .object({ id: z.string(), name: z.string(), role: role.describe('Your role in it (a key: its own role).') })
  .register(named, { id: 'Organisation' });
export const organisationList = z
  .object({ success, current: z.string().describe('The organisation this request acted for.'), data: z.array(organisation) })
  .register(named, { id: 'OrganisationList' });
export const organisationSettings = z
  .object({
    success,
    id: z.string(),
    name: z.string(),
    require_two_factor: z.boolean().describe("Every member's dashboard session must have two-factor on."),
    sso_available: z.boolean().describe('Whether this installation has single sign-on configured (EV_OIDC_ISSUER): the settings below take effect only then.'),
    sso_domain: z.string().nullable().describe('The email domain claimed for single sign-on; null: none.'),
    sso_default_role: z.enum(['admin', 'member', 'viewer']).describe('The role people joining by the claimed domain get.'),
    password_sign_in: z.boolean().describe('false: only sessions signed in through single sign-on act for the organisation.'),
  })
  .register(named, { id: 'OrganisationSettings' });

// Two-factor sign-in (docs/security.md, "Two-factor").
const orgRef = z.object({ id: z.string(), name: z.string() });
export const twoFactorState = z
  .object({
    success,
    enabled: z.boolean(),
    pending: z.boolean().describe('An enrolment was started and not confirmed yet.'),
    enabled_at: timestamp.nullable(),
    recovery_codes_left: z.number().int().min(0),
    required_by: z.array(orgRef).describe('The organisations you belong to that require two-factor.'),
    organisation: orgRef
      .extend({ role: role.describe('Your role in it: owners may require two-factor (PATCH /v1/organisation).'), require_two_factor: z.boolean() })
      .describe('The organisation this session acts for.'),
  })
  .register(named, { id: 'TwoFactorState' });
export const twoFactorEnrolment = z
  .object({
    success,
    secret: z.string().describe('The base32 secret, for typing into an app by hand. Answered only here, before confirmation; stored encrypted.'),
    otpauth_uri: z.string().describe('`otpauth://totp/...` (SHA-1, 6 digits, 30 s), what the QR code holds.'),
    qr_code: z.string().describe('The URI as a QR code: a `data:image/svg+xml;base64,` URL.'),
  })
  .register(named, { id: 'TwoFactorEnrolment' });
export const twoFactorEnabled = z
  .object({
    success,
    enabled_at: timestamp,
    recovery_codes: z
      .array(z.string())
      .length(10)
      .describe('Ten one-time codes, each good for one sign-in instead of a code of the app. Shown only now: only their hashes are kept.'),
  })
  .register(named, { id: 'TwoFactorEnabled' });
export const twoFactorDisabled = z.object({ success, enabled: z.literal(false) }).register(named, { id: 'TwoFactorDisabled' });

/** The audit log (docs/security.md, "Audit log"). */
const nullableString = z.string().nullable();
export const auditEvent = z
  .object({
    id: z.string(),
    at: timestamp,
    action: z.enum(AUDIT_ACTIONS),
    actor: z.object({
      user_id: nullableString.describe(
        "The person: a session's user, or the key's maker; null for the operator's command line or an address nobody signs in with.",
      ),
      key_id: nullableString.describe('The key the request came with.'),
      email: nullableString.describe("The person's email when they acted (a refused sign-in: the address typed)."),
    }),
    target: z.object({
      type: nullableString,
      id: nullableString,
      label: nullableString.describe("A list's file name, a key's name, a member's email, a webhook URL's host: never a secret."),
    }),
    client_address: nullableString.describe('Where the request came from (docs/security.md, "The client address"); null when it could not be told.'),
    method: nullableString.describe("Sign-in: `password` or `oidc`; otherwise `session`, `key` or the operator's command."),
    details: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('A few facts of the action: a role from and to, counts erased. Never an address or a secret.'),
  })
  .register(named, { id: 'AuditEvent' });
export const auditPage = z
  .object({ success, data: z.array(auditEvent), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.') })
  .register(named, { id: 'AuditPage' });
const invitationState = z.enum(['pending', 'accepted', 'revoked', 'expired']);
const invitedBy = z
  .object({ user_id: z.string(), email: z.string().describe("Empty when that person's account is gone.") })
  .describe('Who sent the invitation.');
export const invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role,
    expires_at: timestamp,
    created_at: timestamp,
    invited_by: invitedBy,
    state: invitationState.describe('`pending` until accepted, revoked or past `expires_at`.'),
  })
  .register(named, { id: 'Invitation' });
export const invitationList = z.object({ success, data: z.array(invitation) }).register(named, { id: 'InvitationList' });
export const invitationCreated = z
  .object({
    success,
    id: z.string(),
    email: z.string(),
    role,
    expires_at: timestamp,
    created_at: timestamp,
    invited_by: invitedBy,
    mailed: z.boolean().describe('Whether the SMTP relay (EV_SMTP_URL) accepted the invitation mail.'),
    link: z
      .string()
      .nullable()
      .describe(
        'The invitation link, when it was not mailed (no relay configured, or the relay refused): pass it on yourself. null when mailed: the link then goes only to the invited address.',
      ),
    mail_error: z.string().optional().describe('Why the relay did not take the mail (the invitation stands: pass the link on, or revoke it).'),
  })
  .register(named, { id: 'InvitationCreated' });
export const invitationRevoked = z.object({ success, id: z.string(), revoked: z.literal(true) }).register(named, { id: 'InvitationRevoked' });
export const invitationAccepted = z
  .object({ success, organisation: organisation.describe('The organisation joined, with your role in it.') })
  .register(named, { id: 'InvitationAccepted' });
