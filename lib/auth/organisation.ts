import { db } from '../db/client';
import { AppError } from '../errors/app-error';
import { membershipOf, onMembershipChange, organisationsOf, type Membership } from '../accounts/members';
import { parseCookies, VERSION_CACHE_MS } from './sessions';

/**
 * The organisation a dashboard session acts for (docs/teams.md): the one the header's switcher put
 * in the `ev-org` cookie, else the person's own (or, having left it, the first they joined). The
 * person must be a member of it: a removed member's next request is refused (403 `not_a_member`),
 * at once in the process that removed them and within VERSION_CACHE_MS in the others.
 */
export const ORG_COOKIE = 'ev-org';

const cache = new Map<string, { membership: Membership | null; until: number }>();
const defaults = new Map<string, { orgId: string | null; until: number }>();
onMembershipChange((orgId, userId) => {
  cache.delete(`${orgId}:${userId}`);
  defaults.delete(userId);
});

async function cachedMembership(orgId: string, userId: string): Promise<Membership | null> {
  const now = Date.now();
  const hit = cache.get(`${orgId}:${userId}`);
  if (hit && hit.until > now) return hit.membership;
  const membership = await membershipOf(await db(), orgId, userId);
  if (cache.size > 10_000) cache.clear();
  cache.set(`${orgId}:${userId}`, { membership, until: now + VERSION_CACHE_MS });
  return membership;
}

async function defaultOrganisation(userId: string): Promise<string | null> {
  const now = Date.now();
  const hit = defaults.get(userId);
  if (hit && hit.until > now) return hit.orgId;
  const orgId = (await organisationsOf(await db(), userId))[0]?.id ?? null;
  if (defaults.size > 10_000) defaults.clear();
  defaults.set(userId, { orgId, until: now + VERSION_CACHE_MS });
  return orgId;
}

export async function sessionOrganisation(request: Request, userId: string): Promise<{ orgId: string } & Membership> {
  const chosen = parseCookies(request.headers.get('cookie'))[ORG_COOKIE];
  const orgId = chosen || (await defaultOrganisation(userId));
  const membership = orgId ? await cachedMembership(orgId, userId) : null;
  if (!orgId || !membership) {
    throw new AppError(
      'not_a_member',
      chosen
        ? 'You are not a member of this organisation (any more). Choose another in the header.'
        : 'You are not a member of any organisation. Ask an admin for an invitation.',
    );
  }
  return { orgId, ...membership };
}

/**
 * Two-factor required by the organisation (users.require_two_factor, set by an owner): a session of
 * a person without two-factor on is refused (403 `two_factor_required`), except for the operations
 * that let them enrol or switch organisation (lib/api/operations/ `twoFactorExempt`). Cached like
 * memberships (VERSION_CACHE_MS in other processes; at once in the one that made the change).
 */
const gates = new Map<string, { refused: boolean; until: number }>();

/** After a change of a requirement or of a person's two-factor: every process-local answer is read again. */
export function forgetTwoFactorGates(): void {
  gates.clear();
}

export async function assertTwoFactorMet(orgId: string, userId: string): Promise<void> {
  const now = Date.now();
  const key = `${orgId}:${userId}`;
  let hit = gates.get(key);
  if (!hit || hit.until <= now) {
    const rows = await (await db()).prisma.user.findMany({
      where: { id: { in: [orgId, userId] } },
      select: { id: true, requireTwoFactor: true, totpEnabledAt: true },
    });
    const org = rows.find((r) => r.id === orgId);
    const person = rows.find((r) => r.id === userId);
    hit = { refused: Boolean(org?.requireTwoFactor) && !person?.totpEnabledAt, until: now + VERSION_CACHE_MS };
    if (gates.size > 10_000) gates.clear();
    gates.set(key, hit);
  }
  if (hit.refused) {
    throw new AppError(
      'two_factor_required',
      'This organisation requires two-factor sign-in: turn it on in Settings (Two-factor), or switch to another organisation in the header.',
    );
  }
}
