import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { organisationBody } from '@/lib/api/schemas';
import { renameOrganisation } from '@/lib/accounts/members';
import { ssoSettings, updateSsoSettings, type SsoSettings } from '@/lib/accounts/sso';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { oidcSettings } from '@/lib/auth/oidc';
import { db } from '@/lib/db/client';

/** The organisation's name, two-factor requirement and single sign-on settings (docs/teams.md; docs/security.md). */
async function settings(orgId: string, sso: SsoSettings) {
  const row = await (await db()).prisma.user.findUniqueOrThrow({ where: { id: orgId }, select: { email: true, orgName: true, requireTwoFactor: true } });
  return { id: orgId, name: row.orgName ?? row.email, requireTwoFactor: row.requireTwoFactor, ssoAvailable: oidcSettings() !== null, ...sso };
}

export const GET = apiRoute(operations.getOrganisation, async (_request, caller) => settings(caller.userId, await ssoSettings(await db(), caller.userId)));

/** Owners: only the fields sent change. */
export const PATCH = apiRoute(operations.renameOrganisation, async (_request, caller) => {
  const body = parseBody(caller.body, organisationBody);
  const database = await db();
  const { name, require_two_factor, sso_domain, sso_default_role, password_sign_in } = body;
  const sso =
    sso_domain !== undefined || sso_default_role !== undefined || password_sign_in !== undefined
      ? await updateSsoSettings(
          database,
          caller.userId,
          { id: caller.actorId, signIn: caller.signIn ?? null },
          { sso_domain, sso_default_role, password_sign_in },
          oidcSettings() !== null,
        )
      : await ssoSettings(database, caller.userId);
  if (name !== undefined || require_two_factor !== undefined) {
    await renameOrganisation(database, caller.userId, { name, require_two_factor }, caller.actorId);
    forgetTwoFactorGates();
  }
  return settings(caller.userId, sso);
});
