import type { EmailVerifier, Invitation, Member, MemberUpdate, Role } from './index.ts';

/** The CLI's `invitations` and `members` commands (cli.ts dispatches; docs/teams.md describes roles). */

export const TEAMS_HELP = `  invitations create <email> <role>  invite an address (viewer, member, admin, owner); prints the link
                             when the server did not mail it
  invitations list           id, address, role, state, expiry, who invited
  invitations revoke <id>    the link stops working
  members list               user id, address, role, caps a day and a month
  members set <user_id>      change --role, --checks-per-day, --checks-per-month (a number, or none)
  members remove <user_id>   remove a member (their keys stay with the organisation)`;

const ROLES: readonly string[] = ['viewer', 'member', 'admin', 'owner'];

interface Out {
  stdout: NodeJS.WritableStream;
}

export type TeamFlags = Record<string, string | boolean | undefined>;

const cap = (n: number | null) => (n === null ? 'no cap' : String(n));
const memberLine = (m: Member) => `${m.user_id}\t${m.email}\t${m.role}\t${cap(m.checks_per_day)} a day\t${cap(m.checks_per_month)} a month\n`;
const invitationLine = (i: Invitation) =>
  `${i.id}\t${i.email}\t${i.role}\t${i.state}\texpires ${i.expires_at}\tinvited by ${i.invited_by.email || i.invited_by.user_id}\n`;

export async function invitationsCommand(client: EmailVerifier, args: string[], io: Out, usageError: (message: string) => Error): Promise<number> {
  const [sub, first, second] = args;
  if (sub === 'create') {
    if (!first || !second || !ROLES.includes(second)) throw usageError('invitations create <email> <viewer|member|admin|owner>');
    const created = await client.invitations.create({ email: first, role: second as Role });
    io.stdout.write(`${created.id}\t${created.email}\t${created.role}\texpires ${created.expires_at}\t${created.mailed ? 'mailed' : 'not mailed'}\n`);
    if (created.mail_error) io.stdout.write(`${created.mail_error}\n`);
    if (created.link) io.stdout.write(`link: ${created.link}\n`);
    return 0;
  }
  if (sub === 'list') {
    for (const invitation of await client.invitations.list()) io.stdout.write(invitationLine(invitation));
    return 0;
  }
  if (sub === 'revoke' && first) {
    await client.invitations.revoke(first);
    io.stdout.write(`${first}\trevoked\n`);
    return 0;
  }
  throw usageError('invitations create | list | revoke');
}

function capFlag(flags: TeamFlags, name: string, usageError: (message: string) => Error): number | null | undefined {
  const value = flags[name];
  if (typeof value !== 'string') return undefined;
  if (value === 'none') return null;
  if (!/^\d+$/.test(value)) throw usageError(`--${name} must be a whole number or none`);
  return Number(value);
}

export async function membersCommand(
  client: EmailVerifier,
  args: string[],
  flags: TeamFlags,
  io: Out,
  usageError: (message: string) => Error,
): Promise<number> {
  const [sub, userId] = args;
  if (sub === 'list') {
    for (const member of await client.members.list()) io.stdout.write(memberLine(member));
    return 0;
  }
  if (sub === 'set' && userId) {
    const change: MemberUpdate = {};
    if (typeof flags.role === 'string') {
      if (!ROLES.includes(flags.role)) throw usageError('--role viewer|member|admin|owner');
      change.role = flags.role as Role;
    }
    const perDay = capFlag(flags, 'checks-per-day', usageError);
    const perMonth = capFlag(flags, 'checks-per-month', usageError);
    if (perDay !== undefined) change.checks_per_day = perDay;
    if (perMonth !== undefined) change.checks_per_month = perMonth;
    if (Object.keys(change).length === 0) throw usageError('members set <user_id> --role <role> | --checks-per-day <n|none> | --checks-per-month <n|none>');
    const { success: _success, ...member } = await client.members.update(userId, change);
    io.stdout.write(memberLine(member));
    return 0;
  }
  if (sub === 'remove' && userId) {
    await client.members.remove(userId);
    io.stdout.write(`${userId}\tremoved\n`);
    return 0;
  }
  throw usageError('members list | set | remove');
}
