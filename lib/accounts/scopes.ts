/**
 * What an API key may do. Each /v1 operation names the one scope it needs (`scope` in
 * lib/api/operations/); a key made without a scope list holds them all (keys made before scopes
 * keep working). Dashboard sessions hold them all too. No Node imports: the dashboard reads this.
 */
export const SCOPES = ['verify', 'jobs', 'history', 'webhooks', 'rules', 'keys', 'account'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_TYPES = ['secret', 'publishable'] as const;
export type KeyType = (typeof KEY_TYPES)[number];
