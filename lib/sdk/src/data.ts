import type { RequestOptions, Transport } from './client.ts';
import type { AddressErased, RetentionState } from './data-types.ts';

/** GET/POST /v1/account/retention, DELETE /v1/addresses/{email}, GET /v1/export. */

export function retention(t: Transport, options?: RequestOptions): Promise<RetentionState> {
  return t.json('GET', '/v1/account/retention', options);
}

export function setRetention(t: Transport, days: number | null, options?: RequestOptions): Promise<RetentionState> {
  return t.json('POST', '/v1/account/retention', { ...options, body: { retention_days: days } });
}

export function eraseAddress(t: Transport, email: string, options?: RequestOptions): Promise<AddressErased> {
  return t.json('DELETE', `/v1/addresses/${encodeURIComponent(email)}`, options);
}

export function exportData(t: Transport, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
  return t.stream('/v1/export', options ?? {});
}
