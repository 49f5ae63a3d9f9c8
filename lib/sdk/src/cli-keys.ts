import type { EmailVerifier, KeyInput, KeyUpdateInput, Scope } from './index.ts';

/** `keys` subcommands of the CLI (cli.ts): list, create, update, revoke. */

export const KEYS_HELP = `  keys list                  the account's keys: id, type, scopes, restrictions, expiry
  keys create                a key: --name, --scopes verify,jobs, --allowed-ips 203.0.113.0/24,
                             --expires-at 2027-01-01T00:00:00Z; --publishable --origins https://shop.example
                             --checks-per-day 500 (a publishable key's charged checks a UTC day)
  keys update <id>           change --name, --scopes (all), --allowed-ips (none), --expires-at (never), --origins,
                             --checks-per-day
  keys revoke <id>           revoke a key`;

export type KeyFlags = Record<string, string | boolean | undefined>;

interface Out {
  stdout: NodeJS.WritableStream;
}

const csv = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The flags as a create or update body; `all`, `none` and `never` clear a restriction on update. */
function keyBody(flags: KeyFlags, update: boolean): KeyInput & KeyUpdateInput {
  const body: Record<string, unknown> = {};
  const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  if (text('name') !== undefined) body.name = text('name');
  const scopes = text('scopes');
  if (scopes !== undefined) body.scopes = update && scopes === 'all' ? null : (csv(scopes) as Scope[]);
  const ips = text('allowed-ips');
  if (ips !== undefined) body.allowed_ips = update && ips === 'none' ? null : csv(ips);
  const expires = text('expires-at');
  if (expires !== undefined) body.expires_at = update && expires === 'never' ? null : expires;
  const origins = text('origins');
  if (origins !== undefined) body.allowed_origins = csv(origins);
  const perDay = text('checks-per-day');
  if (perDay !== undefined) body.rate_limits = { checks_per_day: Number(perDay) };
  if (!update && flags.publishable) body.type = 'publishable';
  return body;
}

export async function keysCommand(client: EmailVerifier, args: string[], flags: KeyFlags, io: Out, usage: (message: string) => Error): Promise<void> {
  const [action, id] = args;
  const print = (value: unknown): void => void io.stdout.write(`${JSON.stringify(value)}\n`);
  if (action === 'list') {
    for (const key of await client.keys.list()) {
      const limits = [
        key.allowed_ips && `ips=${key.allowed_ips.join(',')}`,
        key.allowed_origins && `origins=${key.allowed_origins.join(',')}`,
        key.rate_limits && `checks=${key.rate_limits.checks_today}/${key.rate_limits.checks_per_day}`,
      ]
        .filter(Boolean)
        .join(' ');
      io.stdout.write(
        `${key.id}\t${key.type}\t${key.scopes.join(',')}\t${limits || '-'}\t${key.expires_at ?? 'never'}\t${key.revoked_at ? 'revoked' : 'live'}\t${key.name}\n`,
      );
    }
    return;
  }
  if (action === 'create') return print(await client.keys.create(keyBody(flags, false)));
  if (!id) throw usage(`keys ${action ?? ''} needs a key id`.trim());
  if (action === 'update') return print(await client.keys.update(id, keyBody(flags, true)));
  if (action === 'revoke') return print(await client.keys.revoke(id));
  throw usage(`unknown keys command ${action ?? ''}`.trim());
}
