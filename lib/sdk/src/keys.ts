import type { RequestOptions, Transport } from './client.ts';
import type { ApiKey, ApiKeyCreated, KeyInput, KeyUpdateInput } from './key-types.ts';

const path = (id: string) => encodeURIComponent(id);

/** API keys: /v1/keys… */
export class Keys {
  constructor(private readonly t: Transport) {}

  async list(options?: RequestOptions): Promise<ApiKey[]> {
    return (await this.t.json<{ data: ApiKey[] }>('GET', '/v1/keys', options)).data;
  }

  /** A secret key (every scope unless `scopes`), or `type: 'publishable'` with `allowed_origins`; the answer's `key` is shown this once. */
  create(input: KeyInput = {}, options?: RequestOptions): Promise<ApiKeyCreated> {
    return this.t.json('POST', '/v1/keys', { ...options, body: input });
  }

  /** Changes the name, scopes or restrictions; `null` clears one. */
  update(id: string, input: KeyUpdateInput, options?: RequestOptions): Promise<ApiKey> {
    return this.t.json('PATCH', `/v1/keys/${path(id)}`, { ...options, body: input });
  }

  revoke(id: string, options?: RequestOptions): Promise<{ success: true; id: string; revoked: true }> {
    return this.t.json('DELETE', `/v1/keys/${path(id)}`, options);
  }
}
