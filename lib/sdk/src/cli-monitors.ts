import type { EmailVerifier } from './index.ts';
import type { Monitor } from './monitor-types.ts';

/** The CLI's `monitors`, `changed` and `reuse` commands (cli.ts dispatches; docs/lists.md, "Monitors", describes them). */

export const MONITORS_HELP = `  monitors list               the monitors: id, list, every N days, paused, next run
  monitors add <list_id> <days>  re-verify a completed list every <days> days (30, 60, 90, ...)
  monitors show <id>          the list's health: one line per run, its counts and changed rows
  monitors pause|resume|delete <id>
  changed <job_id>            a monitor run's changed rows as CSV (-o to a file)
  reuse [<days>|off]          reuse results verified within <days> days (not charged again), or stop`;

interface Out {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const line = (m: Monitor) =>
  `${m.id}\t${m.list_id}\tevery ${m.interval_days} days\t${m.paused ? 'paused' : 'active'}\tnext ${m.next_run_at}${m.last_skip_reason ? `\tlast skipped: ${m.last_skip_reason}` : ''}\n`;

export async function monitorsCommand(client: EmailVerifier, args: string[], io: Out, usageError: (message: string) => Error): Promise<number> {
  const [sub, id, days] = args;
  if (sub === 'list') {
    for (const monitor of await client.monitors.list()) io.stdout.write(line(monitor));
    return 0;
  }
  if (sub === 'add') {
    if (!id || !days || !/^\d+$/.test(days)) throw usageError('monitors add <list_id> <days>');
    io.stdout.write(line(await client.monitors.create({ list_id: id, interval_days: Number(days) })));
    return 0;
  }
  if (sub === 'show' && id) {
    const monitor = await client.monitors.get(id);
    io.stdout.write(line(monitor));
    for (const run of monitor.runs) {
      const changed = run.changed_emails === null ? '' : `\t${run.changed_emails} changed`;
      io.stdout.write(
        `${run.job_id}\t${run.status}\t${run.started_at}\t${run.deliverable} deliverable\t${run.undeliverable} undeliverable\t${run.risky} risky\t${run.unknown} unknown${changed}\n`,
      );
    }
    return 0;
  }
  if ((sub === 'pause' || sub === 'resume') && id) {
    io.stdout.write(line(await client.monitors[sub](id)));
    return 0;
  }
  if (sub === 'delete' && id) {
    await client.monitors.delete(id);
    return 0;
  }
  throw usageError('monitors list | add | show | pause | resume | delete');
}

export async function changedCommand(
  client: EmailVerifier,
  jobId: string | undefined,
  write: (body: ReadableStream<Uint8Array>) => Promise<void>,
  usageError: (message: string) => Error,
): Promise<number> {
  if (!jobId) throw usageError('changed <job_id>');
  await write(await client.monitors.changedRows(jobId));
  return 0;
}

export async function reuseCommand(client: EmailVerifier, days: string | undefined, io: Out, usageError: (message: string) => Error): Promise<number> {
  if (days !== undefined && days !== 'off' && !/^\d+$/.test(days)) throw usageError('reuse [<days>|off]');
  const settings = days === undefined ? await client.reuse() : await client.setReuse(days === 'off' ? null : Number(days));
  io.stdout.write(settings.enabled ? `reuse on: results verified within ${settings.days} days\n` : 'reuse off\n');
  return 0;
}
