import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as keys from '@/app/v1/keys/route';
import { createApiKey, type KeyBounds } from '@/lib/accounts/keys';
import type { Scope } from '@/lib/accounts/scopes';
import { expiries, ipRules, oracle, scopeSets } from '../key-bounds';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

// Item 1 of issue 29 through the route handlers: whatever a key with the `keys` scope asks of
// POST /v1/keys, PATCH /v1/keys/{id} and DELETE /v1/keys/{id}, for itself or another key, what it
// gets is within its own scopes, addresses and expiry, and what is within is never refused.

const DAY = 86_400_000;
const base = Date.now() + 10 * DAY;
const at = (n: number | null) => (n === null ? null : new Date(base + n * DAY).toISOString());
const boundsOfInfo = (info: any): KeyBounds => ({
  scopes: info.scopes.length === 7 ? null : info.scopes,
  allowedIps: info.allowed_ips,
  expiresAt: info.expires_at && Date.parse(info.expires_at),
});
// a client address inside a key's first block, for X-Forwarded-For (EV_TRUST_PROXY=1)
const fromInside = (ips: string[] | null): Record<string, string> => (ips ? { 'x-forwarded-for': ips[0]!.split('/')[0]! } : {});
const norm = (b: { scopes: Scope[] | null; allowedIps: string[] | null; expiresAt: number | null }): KeyBounds => ({
  scopes: b.scopes && b.scopes.length === 7 ? null : b.scopes,
  allowedIps: b.allowedIps,
  expiresAt: b.expiresAt === null ? null : base + b.expiresAt * DAY,
});
const keyRecord = fc.record({ scopes: scopeSets, allowedIps: ipRules, expiresAt: expiries });
// a maker holds `keys` (else every call is refused by its scope, tests/api/scopes.test.ts)
const maker = keyRecord.map((k) => ({ ...k, scopes: k.scopes && (k.scopes.includes('keys') ? k.scopes : [...k.scopes, 'keys' as Scope]) }));
const field = <T>(arb: fc.Arbitrary<T>, nullable: boolean) => fc.option(nullable ? arb : arb.filter((v) => v !== null), { nil: undefined });

describe.each(DIALECTS)('no key exceeds its maker, through the API (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  const make = async (b: { scopes: Scope[] | null; allowedIps: string[] | null; expiresAt: number | null }) =>
    createApiKey(ctx.database, ctx.account.id, { name: 'made', scopes: b.scopes, allowed_ips: b.allowedIps, expires_at: at(b.expiresAt) });

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CREATE_RATE_PER_MINUTE: '100000', EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: '100000', EV_TRUST_PROXY: '1' });
  });
  afterAll(() => ctx?.teardown());

  it("POST /v1/keys: the new key is within its maker, and what the request leaves out is the maker's", async () => {
    await fc.assert(
      fc.asyncProperty(maker, field(scopeSets, false), field(ipRules, false), field(expiries, false), async (m, scopes, ips, expiry) => {
        const { key } = await make(m);
        const body = {
          name: 'child',
          ...(scopes !== undefined && { scopes }),
          ...(ips !== undefined && { allowed_ips: ips }),
          ...(expiry !== undefined && { expires_at: at(expiry) }),
        };
        const wanted = norm({
          scopes: scopes === undefined ? m.scopes : scopes,
          allowedIps: ips === undefined ? m.allowedIps : ips,
          expiresAt: expiry === undefined ? m.expiresAt : expiry,
        });
        const res = await call(keys.POST, { key, path: '/v1/keys', body, headers: fromInside(m.allowedIps) });
        if (oracle(norm(m), wanted)) {
          expect(res.status, JSON.stringify({ m, body, res: res.json })).toBe(201);
          expect(boundsOfInfo(res.json)).toEqual(wanted);
        } else {
          expect(res.status, JSON.stringify({ m, body })).toBe(403);
          expect(res.json.error).toBe('insufficient_scope');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('PATCH /v1/keys/{id}: a key edits only keys within it, into keys within it, itself included', async () => {
    await fc.assert(
      fc.asyncProperty(
        maker,
        fc.option(keyRecord, { nil: 'self' as const }),
        field(scopeSets, true),
        field(ipRules, true),
        field(expiries, true),
        async (m, target, scopes, ips, expiry) => {
          const made = await make(m);
          const t = target === 'self' ? { info: made.info, bounds: m } : { info: (await make(target)).info, bounds: target };
          const body = {
            ...(scopes !== undefined && { scopes }),
            ...(ips !== undefined && { allowed_ips: ips }),
            ...(expiry !== undefined && { expires_at: at(expiry) }),
          };
          const after = norm({
            scopes: scopes === undefined ? t.bounds.scopes : scopes,
            allowedIps: ips === undefined ? t.bounds.allowedIps : ips,
            expiresAt: expiry === undefined ? t.bounds.expiresAt : expiry,
          });
          const res = await call(keyById.PATCH, {
            key: made.key,
            method: 'PATCH',
            path: `/v1/keys/${t.info.id}`,
            params: { id: t.info.id },
            body,
            headers: fromInside(m.allowedIps),
          });
          const listed = (await call(keys.GET, { key: ctx.key, path: '/v1/keys' })).json.data.find((k: any) => k.id === t.info.id);
          if (oracle(norm(m), norm(t.bounds)) && oracle(norm(m), after)) {
            expect(res.status, JSON.stringify({ m, target, body, res: res.json })).toBe(200);
            expect(boundsOfInfo(listed)).toEqual(after);
          } else {
            expect(res.status, JSON.stringify({ m, target, body })).toBe(403);
            expect(res.json.error).toBe('insufficient_scope');
            expect(boundsOfInfo(listed)).toEqual(norm(t.bounds));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('DELETE /v1/keys/{id}: a key revokes only keys within it', async () => {
    await fc.assert(
      fc.asyncProperty(maker, keyRecord, async (m, target) => {
        const made = await make(m);
        const t = (await make(target)).info;
        const res = await call(keyById.DELETE, {
          key: made.key,
          method: 'DELETE',
          path: `/v1/keys/${t.id}`,
          params: { id: t.id },
          headers: fromInside(m.allowedIps),
        });
        const listed = (await call(keys.GET, { key: ctx.key, path: '/v1/keys' })).json.data.find((k: any) => k.id === t.id);
        if (oracle(norm(m), norm(target))) {
          expect(res.status).toBe(200);
          expect(listed.revoked_at).not.toBeNull();
        } else {
          expect(res.status).toBe(403);
          expect(listed.revoked_at).toBeNull();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("the issue's case: a `keys`-only key makes a `keys`-only key, never a full one, and cannot drop its own expiry", async () => {
    const { key, info } = await createApiKey(ctx.database, ctx.account.id, { name: 'keys only', scopes: ['keys'], expires_at: at(1) });
    const made = await call(keys.POST, { key, path: '/v1/keys', body: { name: 'no scopes' } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ scopes: ['keys'], expires_at: at(1) });
    expect((await call(keys.POST, { key, path: '/v1/keys', body: { scopes: ['verify'] } })).json).toMatchObject({
      error: 'insufficient_scope',
      param: 'scopes',
    });
    const widen = await call(keyById.PATCH, { key, method: 'PATCH', path: `/v1/keys/${info.id}`, params: { id: info.id }, body: { expires_at: null } });
    expect(widen.json).toMatchObject({ error: 'insufficient_scope', param: 'expires_at' });
    // the signed-in owner's full key may do anything
    expect(
      (
        await call(keyById.PATCH, {
          key: ctx.key,
          method: 'PATCH',
          path: `/v1/keys/${info.id}`,
          params: { id: info.id },
          body: { expires_at: null, scopes: null },
        })
      ).status,
    ).toBe(200);
  });
});
