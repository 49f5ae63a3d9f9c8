import { ipAllowed, visitorOf } from '../accounts/restrictions';
import type { KeyAccess } from '../accounts/keys';
import { clientAddress } from '../auth/origin';
import { AppError } from '../errors/app-error';
import type { Caller } from './auth';
import { allowedOrigin } from './cors';
import { takeRateLimit, type RateHeaders } from './ratelimit';
import type { Operation } from './operation';
import { roleAtLeast } from '../accounts/roles';

/**
 * What a caller may do, checked after authentication (expiry is authentication's: 401): the
 * operation's role (a session's person's role in the organisation, or the key's own: docs/teams.md),
 * then for a key the client address (`allowed_ips`), a publishable key's page origin, the
 * operation's scope, and a publishable key's limits per visitor address and per key.
 * Returns the rate headers of a publishable key's request (counted in both modes), else null.
 */
export async function admitKey(request: Request, caller: Caller, op: Operation | null): Promise<RateHeaders | null> {
  // op null: the unknown-path answer (404), which needs no scope or role
  if (op && op.scope !== 'public' && !roleAtLeast(caller.role, op.role)) {
    throw new AppError(
      'insufficient_role',
      `${request.method} ${op.path} needs the \`${op.role}\` role; ${caller.key ? 'this key acts' : 'you are'} ${caller.role === 'admin' || caller.role === 'owner' ? 'an' : 'a'} ${caller.role} here.`,
      { role: op.role },
    );
  }
  const key = caller.key;
  if (!key) return null;
  if (key.allowedIps) assertIpAllowed(request, key.allowedIps);
  if (key.type === 'publishable' && !allowedOrigin(request, key)) {
    throw new AppError('origin_not_allowed', 'A publishable key works only from a web page whose Origin is one of its allowed_origins.');
  }
  if (op && (key.scopes !== null || key.type === 'publishable')) assertScope(request, key, op);
  return key.type === 'publishable' ? takePublishableLimits(request, key) : null;
}

function assertIpAllowed(request: Request, rules: string[]): void {
  const client = clientAddress(request);
  if (ipAllowed(rules, client)) return;
  throw new AppError(
    'ip_not_allowed',
    client === 'shared'
      ? "This key is limited to some client addresses, and this server cannot tell the client's address (set EV_TRUST_PROXY behind a proxy you run)."
      : `This key may not be used from ${client}.`,
  );
}

function assertScope(request: Request, key: KeyAccess, op: Operation): void {
  if (op.scope === 'public') throw new AppError('insufficient_scope', `This key cannot call ${request.method} ${new URL(request.url).pathname}.`);
  if (key.type === 'publishable' && !op.publishable) {
    throw new AppError('insufficient_scope', 'A publishable key can only call POST /v1/verify/single and POST /v1/verify.', { scope: op.scope });
  }
  if (key.scopes && !key.scopes.includes(op.scope)) {
    throw new AppError('insufficient_scope', `This key lacks the \`${op.scope}\` scope that ${request.method} ${op.path} needs.`, { scope: op.scope });
  }
}

/**
 * Per visitor (the trusted client address: an IPv4 address, an IPv6 /64; one shared bucket without
 * EV_TRUST_PROXY; lib/accounts/restrictions.ts `visitorOf`), then
 * per key, so a visitor over their own limit does not spend the key's budget for everyone else.
 * The visitor's headers are sent.
 */
async function takePublishableLimits(request: Request, key: KeyAccess): Promise<RateHeaders> {
  const visitor = await takeRateLimit(`visitor:${key.id}:${visitorOf(clientAddress(request))}`, key.visitorRatePerMinute);
  await takeRateLimit(`publishable:${key.id}`, key.keyRatePerMinute);
  return visitor;
}
