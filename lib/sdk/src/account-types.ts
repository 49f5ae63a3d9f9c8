// The account, its password and sessions, and its organisation's settings, as the OpenAPI document
// states them; lib/sdk/test/types.test.ts keeps them equal to the server's schemas.

export interface Account {
  email: string;
  plan: string;
  free_remaining_today: number;
  used_today: number;
  credits: number;
}

/** POST /v1/account/password and DELETE /v1/account/sessions (dashboard sessions only). */
export interface AccountMessage {
  success: true;
  message: string;
}

/** POST /v1/account/password: every other session is signed out. */
export interface PasswordChangeInput {
  current_password: string;
  new_password: string;
}

/** GET/PATCH /v1/organisation: the organisation's name and single sign-on settings (docs/security.md, "Single sign-on"). */
export interface OrganisationSettings {
  success: true;
  id: string;
  name: string;
  /** sessions of people without two-factor are refused in the organisation (docs/security.md) */
  require_two_factor: boolean;
  /** whether the installation has single sign-on configured: the settings below take effect only then */
  sso_available: boolean;
  /** the email domain claimed for single sign-on; null: none */
  sso_domain: string | null;
  /** the role people joining by the claimed domain get */
  sso_default_role: 'admin' | 'member' | 'viewer';
  /** false: only sessions signed in through single sign-on act for the organisation */
  password_sign_in: boolean;
}

/** PATCH /v1/organisation (owners): only the fields sent change; at least one. */
export interface OrganisationUpdateInput {
  name?: string | undefined;
  /** you need two-factor on yourself to turn it on */
  require_two_factor?: boolean | undefined;
  /** your own email's domain; null unclaims */
  sso_domain?: string | null | undefined;
  sso_default_role?: 'admin' | 'member' | 'viewer' | undefined;
  /** false needs a session signed in through single sign-on */
  password_sign_in?: boolean | undefined;
}
