import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { DIALECTS } from '@/test/databases';
import { call, setup } from '@/test/api/harness';
import { sessionSecret } from '@/lib/config/secret';
import { removeMember, organisationsOf, membershipOf } from './members';
import { createAccount } from './users';
import { createApiKey } from './keys';
import { personForIdentity, SsoRefused, updateSsoSettings, type OidcIdentity } from './sso';
import * as organisationRoute from '@/app/v1/organisation/route';
import * as membersRoute from '@/app/v1/members/route';
import * as organisationsRoute from '@/app/v1/organisations/route';

// Single sign-on's people and organisation settings (docs/security.md, "Single sign-on") on both
// databases; the flow through a real provider and the built app is test/http/oidc.test.ts.
describe.each(DIALECTS)('single sign-on (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let owner: { id: string; email: string };
  const issuer = 'https://id.example.test';
  const identity = (subject: string, email: string | null, emailVerified = true): OidcIdentity => ({ issuer, subject, email, emailVerified });

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_OIDC_ISSUER: issuer, EV_OIDC_CLIENT_ID: 'email-verifier', EV_OIDC_CLIENT_SECRET: 'secret' });
    owner = await createAccount(ctx.database, 'owner@acme.test', 'a long enough password');
    await updateSsoSettings(ctx.database, owner.id, { id: owner.id, signIn: 'password' }, { sso_domain: 'acme.test', sso_default_role: 'viewer' }, true);
  });
  afterAll(() => ctx?.teardown());

  it('a new person with a verified email at the claimed domain joins it with the default role, and has no organisation of their own', async () => {
    const person = await personForIdentity(ctx.database, identity('s-alice', 'Alice@ACME.test'));
    expect(person.email).toBe('alice@acme.test');
    expect(await organisationsOf(ctx.database, person.id)).toEqual([{ id: owner.id, name: 'owner@acme.test', role: 'viewer' }]);
    expect((await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: person.id } })).passwordHash).not.toMatch(/^scrypt\$/);
    // found by the identity next time, whatever the email says now
    expect(await personForIdentity(ctx.database, identity('s-alice', 'alice.new@else.test', false))).toEqual(person);
  });

  it('an unverified email joins no claimed organisation and links to nobody', async () => {
    const person = await personForIdentity(ctx.database, identity('s-mallory', 'mallory@acme.test', false));
    expect(await organisationsOf(ctx.database, person.id)).toEqual([{ id: person.id, name: 'mallory@acme.test', role: 'owner' }]);
    await expect(personForIdentity(ctx.database, identity('s-fake-owner', 'owner@acme.test', false))).rejects.toMatchObject({ code: 'SsoUnverifiedEmail' });
    expect((await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: owner.id } })).oidcSubject).toBeNull();
  });

  it('a verified email links the existing person once; another identity for them is refused; no email is refused', async () => {
    const existing = await createAccount(ctx.database, 'dave@acme.test', 'a long enough password');
    const person = await personForIdentity(ctx.database, identity('s-dave', 'dave@acme.test'));
    expect(person.id).toBe(existing.id);
    // they keep their own organisation and join the claimed one
    expect((await organisationsOf(ctx.database, person.id)).map((o) => [o.id, o.role])).toEqual([
      [existing.id, 'owner'],
      [owner.id, 'viewer'],
    ]);
    await expect(personForIdentity(ctx.database, identity('s-dave-2', 'dave@acme.test'))).rejects.toBeInstanceOf(SsoRefused);
    await expect(personForIdentity(ctx.database, identity('s-nobody', null))).rejects.toMatchObject({ code: 'SsoNoEmail' });

    // removed by the owner: their next sign-in does not put them back
    await removeMember(ctx.database, owner.id, { id: owner.id, role: 'owner' }, person.id);
    await personForIdentity(ctx.database, identity('s-dave', 'dave@acme.test'));
    expect(await membershipOf(ctx.database, owner.id, person.id)).toBeNull();
  });

  it("claims only the owner's own domain, once; password sign-in goes off only from a single sign-on session with it configured", async () => {
    const other = await createAccount(ctx.database, 'eve@acme.test', 'a long enough password');
    await expect(updateSsoSettings(ctx.database, other.id, { id: other.id, signIn: 'oidc' }, { sso_domain: 'acme.test' }, true)).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(updateSsoSettings(ctx.database, other.id, { id: other.id, signIn: 'oidc' }, { sso_domain: 'gmail.com' }, true)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(updateSsoSettings(ctx.database, other.id, { id: other.id, signIn: 'password' }, { password_sign_in: false }, true)).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(updateSsoSettings(ctx.database, other.id, { id: other.id, signIn: 'oidc' }, { password_sign_in: false }, false)).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await updateSsoSettings(ctx.database, other.id, { id: other.id, signIn: 'oidc' }, { password_sign_in: false }, true)).toEqual({
      ssoDomain: null,
      ssoDefaultRole: 'member',
      passwordSignIn: false,
    });
  });

  it('PATCH /v1/organisation and 403 sso_required for a password session of an organisation that turned it off', async () => {
    const boss = await createAccount(ctx.database, 'boss@corp.test', 'a long enough password');
    const cookie = async (via: 'password' | 'oidc') =>
      `next-auth.session-token=${await encode({ token: { sub: boss.id, sv: 0, via }, secret: sessionSecret() })}`;
    const headers = async (via: 'password' | 'oidc') => ({ cookie: await cookie(via), origin: 'http://localhost', host: 'localhost' });

    const empty = await call(organisationRoute.PATCH, { method: 'PATCH', path: '/v1/organisation', body: {}, headers: await headers('password') });
    expect(empty.status).toBe(400);
    const claimed = await call(organisationRoute.PATCH, {
      method: 'PATCH',
      path: '/v1/organisation',
      body: { sso_domain: '@Corp.test', sso_default_role: 'member' },
      headers: await headers('password'),
    });
    expect(claimed.json).toEqual({
      success: true,
      id: boss.id,
      name: 'boss@corp.test',
      require_two_factor: false,
      sso_available: true,
      sso_domain: 'corp.test',
      sso_default_role: 'member',
      password_sign_in: true,
    });
    const read = await call(organisationRoute.GET, { path: '/v1/organisation', headers: await headers('password') });
    expect(read.json).toEqual(claimed.json);
    const owner = await call(organisationRoute.PATCH, {
      method: 'PATCH',
      path: '/v1/organisation',
      body: { sso_default_role: 'owner' },
      headers: await headers('password'),
    });
    expect(owner.status).toBe(400);
    expect(
      (
        await call(organisationRoute.PATCH, {
          method: 'PATCH',
          path: '/v1/organisation',
          body: { password_sign_in: false },
          headers: await headers('password'),
        })
      ).status,
    ).toBe(409);
    const off = await call(organisationRoute.PATCH, {
      method: 'PATCH',
      path: '/v1/organisation',
      body: { password_sign_in: false },
      headers: await headers('oidc'),
    });
    expect(off.status, off.text).toBe(200);
    expect(off.json.password_sign_in).toBe(false);

    const refused = await call(membersRoute.GET, { path: '/v1/members', headers: await headers('password') });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('sso_required');
    expect((await call(membersRoute.GET, { path: '/v1/members', headers: await headers('oidc') })).status).toBe(200);
    expect((await call(organisationsRoute.GET, { path: '/v1/organisations', headers: await headers('password') })).status).toBe(200);
    // a key is not a session: it keeps working
    const { key } = await createApiKey(ctx.database, boss.id, 'sso');
    expect((await call(membersRoute.GET, { path: '/v1/members', key })).status).toBe(200);

    // with single sign-on no longer configured, password sessions work again (nobody is locked out)
    const issuerWas = process.env.EV_OIDC_ISSUER;
    process.env.EV_OIDC_ISSUER = '';
    try {
      expect((await call(membersRoute.GET, { path: '/v1/members', headers: await headers('password') })).status).toBe(200);
      expect((await call(organisationRoute.GET, { path: '/v1/organisation', headers: await headers('password') })).json.sso_available).toBe(false);
    } finally {
      process.env.EV_OIDC_ISSUER = issuerWas;
    }
  });
});
