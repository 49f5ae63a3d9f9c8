import type { EmailVerifier } from './index.ts';

/** The CLI's `retention`, `erase` and `export` commands (cli.ts dispatches; docs/retention.md describes them). */

export const DATA_HELP = `  retention [<days>|default]  how long data is kept (and the lists about to go); set it to fewer days
  erase <email>              erase one address from every store of the account; prints what went
  export -o <file.zip>       all the account's data as a zip of CSV and JSON files (default stdout)`;

interface Out {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function retentionCommand(client: EmailVerifier, args: string[], io: Out, usageError: (message: string) => Error): Promise<number> {
  const [value] = args;
  if (value !== undefined && value !== 'default' && !/^[1-9]\d*$/.test(value)) throw usageError('retention takes a number of days or `default`');
  const state = value === undefined ? await client.retention() : await client.setRetention(value === 'default' ? null : Number(value));
  io.stdout.write(
    `retention\t${state.retention_days === null ? 'kept until deleted' : `${state.retention_days} days`}${state.account_days === null ? " (the installation's default)" : ''}\n`,
  );
  if (state.max_days !== null) io.stdout.write(`maximum\t${state.max_days} days\n`);
  for (const list of state.expiring) io.stdout.write(`expiring\t${list.job_id}\t${list.filename ?? ''}\t${list.expires_at}\n`);
  return 0;
}

export async function eraseCommand(client: EmailVerifier, args: string[], io: Out, usageError: (message: string) => Error): Promise<number> {
  if (!args[0]) throw usageError('erase <email>');
  const { email, removed } = await client.eraseAddress(args[0]);
  io.stdout.write(
    `${email}\t${Object.entries(removed)
      .map(([what, n]) => `${n} ${what.replaceAll('_', ' ')}`)
      .join('\t')}\n`,
  );
  return 0;
}

/** `write` is cli.ts's writeOut: to the -o file, else to stdout without ending it (as `changed` writes). */
export async function exportCommand(
  client: EmailVerifier,
  out: string | undefined,
  write: (body: ReadableStream<Uint8Array>) => Promise<void>,
  io: Out,
): Promise<number> {
  await write(await client.exportData());
  if (out) io.stderr.write(`wrote ${out}\n`);
  return 0;
}
