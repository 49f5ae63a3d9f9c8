import * as req from '../schemas';
import * as res from '../responses';
import * as rt from '../responses-teams';
import { operation } from '../operation';

/** The account and the signed-in person: plan, sessions, password, two-factor (docs/security.md, "Two-factor"). */

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
