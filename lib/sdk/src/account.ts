import type { RequestOptions, Transport } from './client.ts';
import type { AccountMessage, OrganisationSettings, OrganisationUpdateInput, PasswordChangeInput } from './account-types.ts';
import type { EgressReport } from './egress-types.ts';

/** GET /v1/egress; `refresh` checks again now (at most every 10 s) instead of answering from the cache. */
export function egress(t: Transport, options: RequestOptions & { refresh?: boolean } = {}): Promise<EgressReport> {
  const { refresh, ...rest } = options;
  return t.json('GET', '/v1/egress', { ...rest, query: { refresh } });
}

/** POST /v1/account/password: a dashboard session only (an API key gets 403). */
export function changePassword(t: Transport, input: PasswordChangeInput, options?: RequestOptions): Promise<AccountMessage> {
  return t.json('POST', '/v1/account/password', { ...options, body: input });
}

/** DELETE /v1/account/sessions: signs out every dashboard session. */
export function signOutEverywhere(t: Transport, options?: RequestOptions): Promise<AccountMessage> {
  return t.json('DELETE', '/v1/account/sessions', options);
}

/** GET /v1/organisation: the name and single sign-on settings of the organisation the caller acts for. */
export function organisation(t: Transport, options?: RequestOptions): Promise<OrganisationSettings> {
  return t.json('GET', '/v1/organisation', options);
}

/** PATCH /v1/organisation (owners): rename, claim an email domain for single sign-on, its default role, password sign-in on or off. */
export function updateOrganisation(t: Transport, input: OrganisationUpdateInput, options?: RequestOptions): Promise<OrganisationSettings> {
  return t.json('PATCH', '/v1/organisation', { ...options, body: input });
}
