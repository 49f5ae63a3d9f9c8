import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is acting, for the audit rows the request's domain functions write (./record.ts): set once per
 * request by apiRoute (lib/api/route.ts) after authentication, or by an operator's script
 * (`operatorContext`). Nothing else reads it.
 */
export interface AuditActor {
  /** the person: a session's user, or the key's maker; null for an operator's script */
  userId: string | null;
  /** the key the request came with */
  keyId: string | null;
  /** the client address (lib/auth/origin.ts clientAddress); null when unknown */
  clientAddress: string | null;
  /** how: `session`, `key`, or the script's command (`npm run grant-credits`) */
  method: string;
}

const storage = new AsyncLocalStorage<AuditActor>();

export function withAuditActor<T>(actor: AuditActor, run: () => T): T {
  return storage.run(actor, run);
}

/** The actor of the running request or script; null outside one (a worker's own step, a test calling a domain function). */
export function currentActor(): AuditActor | null {
  return storage.getStore() ?? null;
}

/** An operator's command line: no person, no key, no address. */
export function operatorActor(command: string): AuditActor {
  return { userId: null, keyId: null, clientAddress: null, method: command };
}
