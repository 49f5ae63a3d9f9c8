import { z } from 'zod';
import { requestSchemas } from './registry';
import { ROLES } from '../accounts/roles';

/** What organisations, members, two-factor and invitations take (docs/teams.md, docs/security.md). */

// Teams (docs/teams.md).
const cap = z.number().int().min(0).max(1_000_000_000).nullable();
export const memberUpdateBody = z
  .object({
    role: z.enum(ROLES).optional().describe('At most your own role; an owner may hand ownership over by making another member owner, then lowering their own.'),
    checks_per_day: cap.optional().describe('Charged checks a UTC day this member (their sessions and the keys they made) may spend; `null`: no cap.'),
    checks_per_month: cap.optional().describe('Charged checks a calendar month (UTC); `null`: no cap.'),
  })
  .strict()
  .register(requestSchemas, { id: 'MemberUpdate', description: 'Only the fields sent change.', examples: [{ role: 'viewer' }, { checks_per_day: 500 }] });
export const organisationBody = z
  .object({
    name: z.string().min(1).max(100).optional().describe("Shown in the dashboard's header and in invitations."),
    require_two_factor: z
      .boolean()
      .optional()
      .describe(
        "Every member's dashboard session must have two-factor on (403 `two_factor_required` otherwise); you must have it on yourself to turn this on (409). API keys are not affected.",
      ),
    sso_domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^@?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/, 'a domain name such as acme.com')
      .nullable()
      .optional()
      .describe(
        "Single sign-on (docs/security.md): claim this email domain (your own email's); people signing in through the installation's identity provider with a verified address there join the organisation. `null`: unclaim. One organisation per domain (409 `conflict`).",
      ),
    sso_default_role: z.enum(['admin', 'member', 'viewer']).optional().describe('The role people joining by the claimed domain get (default `member`).'),
    password_sign_in: z
      .boolean()
      .optional()
      .describe(
        '`false`: members act for the organisation only from sessions signed in through single sign-on (a password session gets 403 `sso_required`). Turning it off needs single sign-on configured and this request made from a session signed in through it (409 `conflict` otherwise).',
      ),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Send at least one of name, require_two_factor, sso_domain, sso_default_role, password_sign_in.',
  })
  .register(requestSchemas, {
    id: 'OrganisationUpdate',
    description: 'Only the fields sent change.',
    examples: [{ name: 'Acme marketing' }, { require_two_factor: true }, { sso_domain: 'acme.com', sso_default_role: 'member' }, { password_sign_in: false }],
  });

// Two-factor sign-in (docs/security.md, "Two-factor").
const otpCode = z.string().min(1).max(64);
export const twoFactorConfirmBody = z
  .object({ code: otpCode.describe('The 6-digit code the authenticator app shows for the secret just enrolled.') })
  .strict()
  .register(requestSchemas, { id: 'TwoFactorConfirm', examples: [{ code: '123456' }] });
export const twoFactorDisableBody = z
  .object({
    code: otpCode.optional().describe('A code of the authenticator app, or an unused recovery code.'),
    current_password: z.string().max(1024).optional().describe("Or the account's password."),
  })
  .strict()
  .register(requestSchemas, {
    id: 'TwoFactorDisable',
    description: 'One of `code` or `current_password`.',
    examples: [{ code: '123456' }, { current_password: 'my password' }],
  });

export const invitationBody = z
  .object({
    email: z.string().min(3).max(320).describe('The address the invitation is sent to; only that person can accept it.'),
    role: z.enum(ROLES).describe('The role they join with: admins invite members and viewers, owners any role.'),
  })
  .strict()
  .register(requestSchemas, { id: 'InvitationRequest', examples: [{ email: 'ana@example.com', role: 'member' }] });
export const invitationTokenBody = z
  .object({ token: z.string().min(1).max(200).describe('The `token` of the invitation link (`/join?token=...`).') })
  .strict()
  .register(requestSchemas, { id: 'InvitationAccept' });
/** The join page's new person: not in the OpenAPI document (a public route under /api). */
export const invitationJoinBody = z.object({ token: z.string().min(1).max(200), password: z.string().max(1024) }).strict();
