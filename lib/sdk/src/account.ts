import type { RequestOptions, Transport } from './client.ts';
import type { AccountMessage, EgressReport, PasswordChangeInput } from './account-types.ts';

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
