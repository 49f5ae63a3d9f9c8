/**
 * A person's role in an organisation (docs/teams.md), lowest first: viewers read, members verify and
 * run lists, admins manage keys, webhooks, rules, settings and the members below them, owners manage
 * everyone and the organisation. Each /v1 operation names the lowest role it needs (`role` in
 * lib/api/operations/). An API key acts with its own role: at most its maker's. No Node imports:
 * the dashboard reads this.
 */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const roleRank = (role: Role): number => ROLES.indexOf(role);

/** Whether `held` reaches `needed`. */
export const roleAtLeast = (held: Role, needed: Role): boolean => roleRank(held) >= roleRank(needed);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The lower of two roles. */
export const lowerRole = (a: Role, b: Role): Role => (roleRank(a) <= roleRank(b) ? a : b);
