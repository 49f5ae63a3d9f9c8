import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as members from '@/app/v1/members/route';
import * as member from '@/app/v1/members/[userId]/route';
import * as leave from '@/app/v1/members/me/route';
import * as organisations from '@/app/v1/organisations/route';
import * as keys from '@/app/v1/keys/route';
import * as history from '@/app/v1/history/route';
import { createApiKey } from '@/lib/accounts/keys';
import { ensureAccount } from '@/lib/accounts/users';
import { ROLES, roleAtLeast, type Role } from '@/lib/accounts/roles';
import { OPERATIONS } from '@/lib/api/operations';
import { DIALECTS } from '../databases';
import { ROUTE_MODULES } from './contract';
import { call, sessionCookie, setup } from './harness';

type Handler = Parameters<typeof call>[0];

// Every authenticated operation, from the one declaration of its role (lib/api/operations/), with
// the route file that serves it: a new operation is in this table the moment it is declared.
const GUARDED = OPERATIONS.filter((op) => op.scope !== 'public').map((op) => {
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, `${name}_none`]));
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => `${name}_none`);
  const handler = ROUTE_MODULES[op.path]?.[op.method.toUpperCase()] as Handler;
  return { op, params, path, handler, name: `${op.method.toUpperCase()} ${op.path}` };
});

const ORIGIN = { origin: 'http://localhost', host: 'localhost' };
/** A person's dashboard session as `call` credentials, at their current session version. */
const as = async (who: { cookie: Promise<string> }) => ({ key: null, headers: { cookie: await who.cookie, ...ORIGIN } });

describe.each(DIALECTS)('roles (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  const people = {} as Record<Role, { id: string; cookie: Promise<string>; key: string }>;
  let n = 0;
  const person = async (role: Role) => {
    const user = await ensureAccount(ctx.database, `${role}-${dialect}-${n++}-${Date.now()}@example.com`);
    if (role !== 'owner') await ctx.database.prisma.membership.create({ data: { orgId: ctx.account.id, userId: user.id, role } });
    const id = role === 'owner' ? ctx.account.id : user.id;
    return {
      id,
      get cookie() {
        return sessionCookie(ctx.database, id, ctx.account.id);
      },
    };
  };

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CREATE_RATE_PER_MINUTE: '10000', EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: '1000' });
    for (const role of ROLES) {
      const who = await person(role);
      const key = (await createApiKey(ctx.database, ctx.account.id, { name: `${role} key`, role })).key;
      people[role] = Object.assign(who, { key });
    }
  });
  afterAll(() => ctx?.teardown());

  it('declares a role for every operation', () => {
    for (const { op, handler, name } of GUARDED) {
      expect(handler, `${name}: no route handler`).toBeTypeOf('function');
      expect(ROLES, name).toContain(op.role);
    }
  });

  it.each(GUARDED.map((g) => [g.name, g] as const))(
    '%s: refuses every role below its own, session or key, and admits the rest',
    async (_name, { op, params, path, handler }) => {
      for (const role of ROLES) {
        const body = op.method === 'post' || op.method === 'patch' ? {} : undefined;
        for (const via of ['session', 'key'] as const) {
          const credentials = via === 'session' ? { key: null, headers: { cookie: await people[role].cookie, ...ORIGIN } } : { key: people[role].key };
          const answer = await call(handler, { ...credentials, method: op.method.toUpperCase(), path, params, body });
          // DELETE /v1/members/me succeeds for all but the owner: the person joins again for the next call
          const { id } = people[role];
          await ctx.database.prisma.membership.upsert({
            where: { orgId_userId: { orgId: ctx.account.id, userId: id } },
            create: { orgId: ctx.account.id, userId: id, role },
            update: {},
          });
          if (roleAtLeast(role, op.role)) {
            expect(answer.json?.error ?? null, `${role} by ${via}`).not.toBe('insufficient_role');
          } else {
            expect(answer.status, `${role} by ${via}`).toBe(403);
            expect(answer.json, `${role} by ${via}`).toMatchObject({ error: 'insufficient_role', role: op.role });
            expect(answer.json.message).toContain(op.role);
          }
        }
      }
    },
  );

  it('lists the members and the organisations of a person', async () => {
    const listed = await call(members.GET, { key: null, path: '/v1/members', headers: { cookie: await people.viewer.cookie } });
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((m: any) => m.role).sort()).toEqual(['admin', 'member', 'owner', 'viewer']);
    const orgs = await call(organisations.GET, { key: null, path: '/v1/organisations', headers: { cookie: await people.viewer.cookie } });
    expect(orgs.json.current).toBe(ctx.account.id);
    // the viewer's own organisation (of one) and the one they were added to
    expect(orgs.json.data.map((o: any) => [o.id, o.role])).toEqual(
      expect.arrayContaining([
        [people.viewer.id, 'owner'],
        [ctx.account.id, 'viewer'],
      ]),
    );
    const own = await call(history.GET, { key: null, path: '/v1/history', headers: { cookie: await sessionCookie(ctx.database, people.viewer.id) } });
    expect(own.status).toBe(200);
  });

  it('lets an admin manage members and viewers only, and give at most the member role', async () => {
    const target = await person('viewer');
    const admin = () => as(people.admin);
    const up = await call(member.PATCH, {
      ...(await admin()),
      method: 'PATCH',
      path: `/v1/members/${target.id}`,
      params: { userId: target.id },
      body: { role: 'member', checks_per_day: 10 },
    });
    expect(up.status).toBe(200);
    expect(up.json).toMatchObject({ user_id: target.id, role: 'member', checks_per_day: 10, checks_per_month: null });
    const toAdmin = await call(member.PATCH, {
      ...(await admin()),
      method: 'PATCH',
      path: `/v1/members/${target.id}`,
      params: { userId: target.id },
      body: { role: 'admin' },
    });
    expect(toAdmin.json).toMatchObject({ error: 'insufficient_role', role: 'owner' });
    const owner = await call(member.PATCH, {
      ...(await admin()),
      method: 'PATCH',
      path: `/v1/members/${people.owner.id}`,
      params: { userId: people.owner.id },
      body: { checks_per_day: 1 },
    });
    expect(owner.json).toMatchObject({ error: 'insufficient_role' });
    const missing = await call(member.PATCH, {
      ...(await admin()),
      method: 'PATCH',
      path: '/v1/members/usr_none',
      params: { userId: 'usr_none' },
      body: { role: 'viewer' },
    });
    expect(missing.status).toBe(404);
  });

  it('keeps at least one owner, and hands ownership over', async () => {
    const owner = () => as(people.owner);
    const lastOwner = await call(member.PATCH, {
      ...(await owner()),
      method: 'PATCH',
      path: `/v1/members/${people.owner.id}`,
      params: { userId: people.owner.id },
      body: { role: 'admin' },
    });
    expect(lastOwner.status).toBe(409);
    const cannotLeave = await call(leave.DELETE, { ...(await owner()), method: 'DELETE', path: '/v1/members/me' });
    expect(cannotLeave.status).toBe(409);
    const heir = await person('admin');
    expect(
      (await call(member.PATCH, { ...(await owner()), method: 'PATCH', path: `/v1/members/${heir.id}`, params: { userId: heir.id }, body: { role: 'owner' } }))
        .json.role,
    ).toBe('owner');
    const heirSession = () => as(heir);
    const stepDown = await call(member.PATCH, {
      ...(await owner()),
      method: 'PATCH',
      path: `/v1/members/${people.owner.id}`,
      params: { userId: people.owner.id },
      body: { role: 'admin' },
    });
    expect(stepDown.json.role).toBe('admin');
    // and back, so the other tests keep their owner
    expect(
      (
        await call(member.PATCH, {
          ...(await heirSession()),
          method: 'PATCH',
          path: `/v1/members/${people.owner.id}`,
          params: { userId: people.owner.id },
          body: { role: 'owner' },
        })
      ).json.role,
    ).toBe('owner');
    expect((await call(member.DELETE, { ...(await owner()), method: 'DELETE', path: `/v1/members/${heir.id}`, params: { userId: heir.id } })).status).toBe(200);
  });

  it("refuses a removed member's session at its next request; the keys they made stay and show who made them", async () => {
    const leaving = await person('admin');
    const session = () => as(leaving);
    const made = await call(keys.POST, { ...(await session()), path: '/v1/keys', body: { name: 'made by the leaver' } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ role: 'admin', created_by: { user_id: leaving.id, member: true } });
    expect((await call(history.GET, { ...(await session()), path: '/v1/history' })).status).toBe(200);

    const owner = () => as(people.owner);
    expect(
      (await call(member.DELETE, { ...(await owner()), method: 'DELETE', path: `/v1/members/${leaving.id}`, params: { userId: leaving.id } })).status,
    ).toBe(200);
    const refused = await call(history.GET, { ...(await session()), path: '/v1/history' });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: 'not_a_member' });

    expect((await call(history.GET, { key: made.json.key, path: '/v1/history' })).status).toBe(200);
    const listed = await call(keys.GET, { ...(await owner()), path: '/v1/keys' });
    expect(listed.json.data.find((k: any) => k.id === made.json.id)).toMatchObject({ created_by: { user_id: leaving.id, member: false } });
  });

  it("makes keys up to the maker's role, and lowers a member's keys with their role", async () => {
    const admin = await person('admin');
    const session = () => as(admin);
    const tooHigh = await call(keys.POST, { ...(await session()), path: '/v1/keys', body: { role: 'owner' } });
    expect(tooHigh.json).toMatchObject({ error: 'insufficient_role', param: 'role' });
    const made = await call(keys.POST, { ...(await session()), path: '/v1/keys', body: { name: 'admin key' } });
    expect(made.json.role).toBe('admin');
    // a key made by a key holds at most the maker key's role
    const byKey = await call(keys.POST, { key: people.admin.key, path: '/v1/keys', body: { role: 'owner' } });
    expect(byKey.json).toMatchObject({ error: 'insufficient_role' });

    const owner = () => as(people.owner);
    await call(member.PATCH, { ...(await owner()), method: 'PATCH', path: `/v1/members/${admin.id}`, params: { userId: admin.id }, body: { role: 'viewer' } });
    const listed = await call(keys.GET, { ...(await owner()), path: '/v1/keys' });
    expect(listed.json.data.find((k: any) => k.id === made.json.id).role).toBe('viewer');
    const lowered = await call(keys.GET, { key: made.json.key, path: '/v1/keys' });
    expect(lowered.json).toMatchObject({ error: 'insufficient_role', role: 'admin' });
  });
});
