import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { organisationBody } from '@/lib/api/schemas';
import { renameOrganisation } from '@/lib/accounts/members';
import { ssoSettings, updateSsoSettings } from '@/lib/accounts/sso';
import { oidcSettings } from '@/lib/auth/oidc';
import { db } from '@/lib/db/client';

/** The organisation's name and single sign-on settings (owners; docs/teams.md, docs/security.md). */
export const PATCH = apiRoute(async (_request, caller) => {
  const body = parseBody(caller.body, organisationBody);
  const database = await db();
  const { sso_domain, sso_default_role, password_sign_in } = body;
  const sso = sso_domain !== undefined || sso_default_role !== undefined || password_sign_in !== undefined
    ? await updateSsoSettings(database, caller.userId, { id: caller.actorId, signIn: caller.signIn ?? null }, { sso_domain, sso_default_role, password_sign_in }, oidcSettings() !== null)
    : await ssoSettings(database, caller.userId);
  let named: { id: string; name: string };
  if (body.name !== undefined) named = await renameOrganisation(database, caller.userId, body.name);
  else {
    const row = await database.prisma.user.findUniqueOrThrow({ where: { id: caller.userId }, select: { email: true, orgName: true } });
    named = { id: caller.userId, name: row.orgName ?? row.email };
  }
  return ok({ ...named, ...sso });
});
