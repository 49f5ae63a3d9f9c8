import type { RequestOptions, Transport } from './client.ts';
import type { Role } from './key-types.ts';

/** GET /v1/account/two-factor: the signed-in person's two-factor sign-in. */
export interface TwoFactorState {
  success: true;
  enabled: boolean;
  /** an enrolment was started and not confirmed yet */
  pending: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
  /** the organisations you belong to that require two-factor */
  required_by: { id: string; name: string }[];
  /** the organisation this session acts for */
  organisation: { id: string; name: string; role: Role; require_two_factor: boolean };
}

/** POST /v1/account/two-factor: a new secret, pending until confirmed. */
export interface TwoFactorEnrolment {
  success: true;
  /** base32, for typing into an app by hand; answered only here */
  secret: string;
  otpauth_uri: string;
  /** the URI as a QR code: a data:image/svg+xml;base64, URL */
  qr_code: string;
}

/** POST /v1/account/two-factor/confirm: ten one-time recovery codes, shown only now. */
export interface TwoFactorEnabled {
  success: true;
  enabled_at: string;
  recovery_codes: string[];
}

export interface TwoFactorDisabled {
  success: true;
  enabled: false;
}

/** DELETE /v1/account/two-factor: one of a code (of the app, or a recovery code) or the password. */
export interface TwoFactorDisableInput {
  code?: string;
  current_password?: string;
}

/** The signed-in person's two-factor sign-in (a dashboard session, `session: true`, only; a key gets 403). */
export class TwoFactor {
  constructor(private readonly t: Transport) {}

  state(options?: RequestOptions): Promise<TwoFactorState> {
    return this.t.json('GET', '/v1/account/two-factor', options);
  }

  /** Starts (or restarts) an enrolment: show `qr_code` to the person's authenticator app. */
  start(options?: RequestOptions): Promise<TwoFactorEnrolment> {
    return this.t.json('POST', '/v1/account/two-factor', { ...options, body: {} });
  }

  /** Turns it on with a code the app shows; answers the recovery codes once. */
  confirm(code: string, options?: RequestOptions): Promise<TwoFactorEnabled> {
    return this.t.json('POST', '/v1/account/two-factor/confirm', { ...options, body: { code } });
  }

  disable(input: TwoFactorDisableInput, options?: RequestOptions): Promise<TwoFactorDisabled> {
    return this.t.json('DELETE', '/v1/account/two-factor', { ...options, body: input });
  }

  /** Owners: every member's dashboard session must have two-factor on (you need it on yourself first). */
  requireForOrganisation(required: boolean, options?: RequestOptions): Promise<{ success: true; id: string; name: string; require_two_factor: boolean }> {
    return this.t.json('PATCH', '/v1/organisation', { ...options, body: { require_two_factor: required } });
  }
}
