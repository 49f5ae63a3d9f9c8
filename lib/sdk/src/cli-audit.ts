import type { EmailVerifier } from './index.ts';
import type { AuditAction } from './audit-types.ts';

/** The CLI's `audit` command (cli.ts dispatches; docs/security.md "Audit log" describes the log). */

export const AUDIT_HELP = `  audit                      the audit log, newest first: time, action, actor, target, address
                             (--action, --actor <user or key id>, --from, --to ISO times; --csv for every row as CSV)`;

interface Out {
  stdout: NodeJS.WritableStream;
}

export async function auditCommand(
  client: EmailVerifier,
  options: { action?: string; actor?: string; from?: string; to?: string; csv?: boolean },
  io: Out,
): Promise<number> {
  const filter = { action: options.action as AuditAction | undefined, actor: options.actor, from: options.from, to: options.to };
  if (options.csv) {
    io.stdout.write(await client.auditCsv(filter));
    return 0;
  }
  for await (const row of client.auditEvents(filter)) {
    const actor = row.actor.key_id
      ? `${row.actor.email ?? row.actor.user_id ?? '-'} (key ${row.actor.key_id})`
      : (row.actor.email ?? row.actor.user_id ?? row.method ?? '-');
    const target = row.target.label ?? row.target.id ?? row.target.type ?? '-';
    io.stdout.write(`${row.at}\t${row.action}\t${actor}\t${target}\t${row.client_address ?? '-'}\n`);
  }
  return 0;
}
