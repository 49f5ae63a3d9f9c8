import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { setup } from '@/test/api/harness';
import { startApiServer } from '@/test/api/server';
import { main } from '../src/cli';
import { listFromCsv, parseCsv } from '../src/csv';

describe('the CLI against the real API over HTTP', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let worker: JobWorker;
  const dir = mkdtempSync(join(tmpdir(), 'ev-cli-'));

  beforeAll(async () => {
    ctx = await setup('sqlite', { EV_SANDBOX_TIMEOUT_MS: '50' });
    api = await startApiServer();
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await api.close();
    await ctx.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cli(args: string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    const bytes: Buffer[] = [];
    stdout.on('data', (c: Buffer) => {
      out += c;
      bytes.push(c);
    });
    stderr.on('data', (c) => (err += c));
    const code = await main(args, {
      stdout,
      stderr,
      stdin: Readable.from([options.stdin ?? '']),
      env: { EV_API_KEY: ctx.key, EV_BASE_URL: api.url, ...options.env },
    });
    // what a program that runs the CLI's main in its own process finds after it: its stdout still open
    return { code, out, err, bytes: () => Buffer.concat(bytes), stdoutEnded: stdout.writableEnded };
  }

  it('verify: one line per address; exit 0 when every address is deliverable, 1 when one is not', async () => {
    const good = await cli(['verify', '--sandbox', 'valid@example.com', 'role@example.com']);
    expect(good.out).toBe('valid@example.com\tdeliverable\t95\taccepted_email\nrole@example.com\trole-based\t70\trole_account\n');
    expect(good.code).toBe(1);
    expect((await cli(['verify', '--sandbox', 'valid@example.com'])).code).toBe(0);
    const json = await cli(['verify', '--sandbox', '--json', 'invalid@example.com']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ email: 'invalid@example.com', status: 'undeliverable', is_disposable: false, sandbox: true });
  });

  it('exit codes a script can use: 2 usage, 3 authentication, 5 rate limited, 7 server error after the retries', async () => {
    expect((await cli(['verify', 'valid@example.com'], { env: { EV_API_KEY: undefined } })).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['verify', '--sandbox', '--retries', 'x', 'a@b.c'])).code).toBe(2);
    const auth = await cli(['verify', '--sandbox', 'error-auth@example.com']);
    expect(auth.code).toBe(3);
    expect(auth.err).toMatch(/authentication_error, request req_/);
    expect((await cli(['verify', '--sandbox', '--retries', '0', 'error-ratelimit@example.com'])).code).toBe(5);
    const server = await cli(['verify', '--sandbox', '--retries', '1', 'error-server@example.com']);
    expect(server.code).toBe(7);
    expect(server.err).toMatch(/retry 1 in \d+ ms after server_error/);
  });

  it('bulk: a CSV with a header, its columns kept in front of the verdicts, written to --out', async () => {
    const file = join(dir, 'people.csv');
    const people = Array.from({ length: 25 }, (_, i) => [`Person "${i}", Jr.`, i % 5 === 0 ? `invalid${i}@x.test` : `valid${i}@x.test`, `=${i}`]);
    writeFileSync(file, Papa.unparse([['name', 'E-mail', 'note'], ...people]));
    const out = join(dir, 'results.csv');
    const run = await cli(['bulk', file, '--sandbox', '-o', out]);
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(/25 addresses, 20 deliverable, 5 undeliverable/);
    expect(run.err).toMatch(/100% 25\/25/);
    const rows = Papa.parse<string[]>(readFileSync(out, 'utf8').trim()).data;
    expect(rows[0]!.slice(0, 5)).toEqual(['name', 'E-mail', 'note', 'email', 'valid']);
    expect(rows).toHaveLength(26);
    expect(rows[1]!.slice(0, 4)).toEqual(['Person "0", Jr.', 'invalid0@x.test', "'=0", 'invalid0@x.test']);
  });

  it('bulk: addresses on stdin, one a line, filtered, to stdout', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => (i < 4 ? `invalid${i}@y.test` : `valid${i}@y.test`));
    const run = await cli(['bulk', '-', '--sandbox', '--filter', 'undeliverable', '--no-progress'], { stdin: `${emails.join('\n')}\n` });
    expect(run.code, run.err).toBe(0);
    const lines = run.out.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(emails.slice(0, 4));
    expect((await cli(['bulk', join(dir, 'missing.csv'), '--sandbox'])).code).toBe(2);
  });

  it('rules and usage: add, import a CSV, list, delete; usage as lines and as CSV', async () => {
    const added = await cli(['rules', 'add', 'block', 'domain', 'Blocked.Example']);
    expect(added.code).toBe(0);
    const [id] = added.out.trim().split('\t');
    expect(added.out).toMatch(/\tblock\tdomain\tblocked\.example\n$/);
    const imported = await cli(['rules', 'import', '-', '--action', 'allow', '--match', 'email'], { stdin: 'vip@blocked.example\nblock,tld,zz\n,,\nx,y\n' });
    expect(imported).toMatchObject({ code: 0, err: 'skipped row 3\n2 new of 2 rules\n' });
    expect(
      (await cli(['rules', 'list'])).out
        .trim()
        .split('\n')
        .map((line) => line.split('\t').slice(1).join(' '))
        .sort(),
    ).toEqual(['allow email vip@blocked.example', 'block domain blocked.example', 'block tld zz']);
    expect((await cli(['verify', '--sandbox', 'valid.someone@blocked.example'])).out).toBe('valid.someone@blocked.example\tundeliverable\t0\tblocklisted\n');
    expect((await cli(['rules', 'delete', id!])).code).toBe(0);
    expect((await cli(['rules', 'delete', id!])).code).toBe(6); // not found
    expect((await cli(['rules', 'add', 'maybe', 'domain', 'x.example'])).code).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    expect((await cli(['usage', '--from', today])).out).toMatch(new RegExp(`^${today}\tsandbox\t\\d+ checks\t`, 'm'));
    const csv = await cli(['usage', '--csv', '--from', today, '--to', today]);
    expect(csv.out.split('\r\n')[0]).toBe('day,mode,checks,deliverable,undeliverable,risky,unknown,charged,refunded,credits_granted');
    expect((await cli(['usage', '--from', 'yesterday'])).code).toBe(6);
  });

  it('audit: the log as lines and as CSV, filtered by action and actor; a bad filter is refused', async () => {
    const made = await cli(['keys', 'create', '--name', 'audited key']);
    expect(made.code).toBe(0);
    const keyId = (await ctx.database.prisma.apiKey.findFirst({ where: { name: 'audited key' } }))!.id;
    const lines = await cli(['audit', '--action', 'key.created']);
    expect(lines.code).toBe(0);
    const mine = lines.out.split('\n').find((line) => line.includes('audited key'))!;
    expect(mine.split('\t').slice(1)).toEqual(['key.created', expect.stringMatching(/\(key key_/), 'audited key', '-']);
    const csv = await cli(['audit', '--csv', '--actor', (await ctx.database.prisma.apiKey.findFirst({ where: { name: 'test' } }))!.id]);
    const rows = Papa.parse<Record<string, string>>(csv.out, { header: true, skipEmptyLines: true }).data;
    expect(rows.find((row) => row.target_id === keyId)).toMatchObject({ action: 'key.created', target_label: 'audited key', method: 'key' });
    expect((await cli(['audit', '--action', 'key.stolen'])).code).toBe(6);
  });

  it('retention, erase and export: the setting, one address erased over HTTP, the zip written to a file and to stdout', async () => {
    const set = await cli(['retention', '5']);
    expect(set.code).toBe(0);
    // the lists the tests above made are deleted within 7 days now: named after the setting
    expect(set.out).toMatch(/^retention\t5 days\n(expiring\tjob_\S+\t[^\t]*\t\d{4}-\S+Z\n)+$/);
    expect((await cli(['retention', 'soon'])).code).toBe(2);
    expect((await cli(['retention', 'default'])).out).toBe("retention\tkept until deleted (the installation's default)\n");
    await cli(['verify', '--sandbox', 'valid.erase+me@example.com']);
    const erased = await cli(['erase', 'Valid.Erase+Me@example.com']);
    expect(erased.code).toBe(0);
    // the SDK sent the check with an Idempotency-Key: its stored answer held the address too
    expect(erased.out).toBe('Valid.Erase+Me@example.com\t1 results\t0 list rows\t0 rules\t1 idempotency answers\t0 webhook deliveries\n');
    const file = join(dir, 'data.zip');
    expect((await cli(['export', '-o', file])).code).toBe(0);
    const files = unzipSync(new Uint8Array(readFileSync(file)));
    expect(Object.keys(files)).toContain('results.csv');
    expect(strFromU8(files['results.csv']!)).not.toContain('erase+me');
    expect(JSON.parse(strFromU8(files['account.json']!))).toMatchObject({ id: ctx.account.id });
    // without -o the same zip goes to stdout, whole, and stdout is left open for the caller
    const piped = await cli(['export']);
    expect(piped).toMatchObject({ code: 0, err: '', stdoutEnded: false });
    const streamed = unzipSync(new Uint8Array(piped.bytes()));
    expect(Object.keys(streamed).sort()).toEqual(Object.keys(files).sort());
    expect(strFromU8(streamed['results.csv']!)).toBe(strFromU8(files['results.csv']!));
  });

  it("monitors, changed rows and reuse: add, show, pause, resume, delete; a run's changed rows as CSV", async () => {
    const list = Array.from({ length: 12 }, (_, i) => `watched${i}@example.com`).join('\n');
    const bulk = await cli(['bulk', '-', '--sandbox', '--no-progress'], { stdin: `email\n${list}\n` });
    expect(bulk.code).toBe(0);
    const jobId = /^(job_\S+):/m.exec(bulk.err)![1]!;
    const added = await cli(['monitors', 'add', jobId, '30', '--sandbox']);
    expect(added.code).toBe(0);
    const [id, listId, every, state] = added.out.trim().split('\t');
    expect([listId, every, state]).toEqual([jobId, 'every 30 days', 'active']);
    expect((await cli(['monitors', 'add', jobId, '30', '--sandbox'])).code).toBe(6); // already monitored
    expect((await cli(['monitors', 'list', '--sandbox'])).out).toContain(`${id}\t${jobId}`);
    expect((await cli(['monitors', 'pause', id!, '--sandbox'])).out).toContain('\tpaused\t');
    expect((await cli(['monitors', 'resume', id!, '--sandbox'])).out).toContain('\tactive\t');
    // a run, as a worker's timer would start it once due: the sandbox answers the same, so nothing changed
    await ctx.database.prisma.monitor.update({ where: { id }, data: { nextRunAt: BigInt(Date.now()) } });
    const { runDueMonitors } = await import('@/lib/monitors/runs');
    expect((await runDueMonitors(ctx.database)).started).toBe(1);
    const run = await ctx.database.prisma.job.findFirstOrThrow({ where: { monitorId: id } });
    for (let i = 0; i < 200 && (await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: run.id } })).status !== 'completed'; i++)
      await new Promise((r) => setTimeout(r, 50));
    const shown = await cli(['monitors', 'show', id!, '--sandbox']);
    expect(
      shown.out
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t')[0]),
    ).toEqual([jobId, run.id]);
    expect(shown.out).toMatch(/\t0 changed\n$/);
    const changed = await cli(['changed', run.id, '--sandbox']);
    expect(changed).toMatchObject({ code: 0 });
    expect(changed.out.trim().split('\r\n')).toHaveLength(1); // the header only: no row changed
    expect((await cli(['changed', jobId, '--sandbox'])).code).toBe(6); // not a run
    expect((await cli(['monitors', 'delete', id!, '--sandbox'])).code).toBe(0);
    expect((await cli(['monitors', 'show', id!, '--sandbox'])).code).toBe(6);
    expect((await cli(['reuse'])).out).toBe('reuse off\n');
    expect((await cli(['reuse', '7'])).out).toBe('reuse on: results verified within 7 days\n');
    expect((await cli(['reuse', 'off'])).out).toBe('reuse off\n');
    expect((await cli(['reuse', 'soon'])).code).toBe(2);
  });

  it('invitations and members: invite (the link when nothing is mailed), list, revoke; list, set and remove members', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      const created = await cli(['invitations', 'create', 'Teammate@Example.com', 'member']);
      expect(created.code).toBe(0);
      // no relay configured: the server answers the link for the inviter to pass on
      expect(created.out).toMatch(/^inv_\S+\tteammate@example\.com\tmember\texpires \S+Z\tnot mailed\nlink: http:\/\/\S+\/join\?token=[\w-]{43}\n$/);
      const id = created.out.split('\t')[0]!;
      expect((await cli(['invitations', 'create', 'teammate@example.com', 'viewer'])).code).toBe(6); // pending already
      expect((await cli(['invitations', 'create', 'someone@example.com', 'boss'])).code).toBe(2);
      expect((await cli(['invitations', 'list'])).out).toContain(`${id}\tteammate@example.com\tmember\tpending\texpires `);
      expect((await cli(['invitations', 'revoke', id])).out).toBe(`${id}\trevoked\n`);
      expect((await cli(['invitations', 'list'])).out).toContain(`${id}\tteammate@example.com\tmember\trevoked\t`);
      expect((await cli(['invitations', 'revoke', id])).code).toBe(6); // not pending any more
    } finally {
      info.mockRestore();
    }

    const { ensureAccount } = await import('@/lib/accounts/users');
    const colleague = await ensureAccount(ctx.database, 'colleague@example.com');
    await ctx.database.prisma.membership.create({ data: { orgId: ctx.account.id, userId: colleague.id, role: 'member' } });
    const listed = await cli(['members', 'list']);
    expect(listed.out).toContain(`${ctx.account.id}\t${ctx.account.email}\towner\tno cap a day\tno cap a month\n`);
    expect(listed.out).toContain(`${colleague.id}\tcolleague@example.com\tmember\tno cap a day\tno cap a month\n`);
    const set = await cli(['members', 'set', colleague.id, '--role', 'viewer', '--checks-per-day', '50', '--checks-per-month', 'none']);
    expect(set).toMatchObject({ code: 0, out: `${colleague.id}\tcolleague@example.com\tviewer\t50 a day\tno cap a month\n` });
    expect((await cli(['members', 'set', colleague.id, '--checks-per-day', 'lots'])).code).toBe(2);
    expect((await cli(['members', 'set', colleague.id])).code).toBe(2);
    expect((await cli(['members', 'remove', colleague.id])).out).toBe(`${colleague.id}\tremoved\n`);
    expect((await cli(['members', 'list'])).out).not.toContain(colleague.id);
    expect((await cli(['members', 'remove', colleague.id])).code).toBe(6);
    // the last owner stays
    expect((await cli(['members', 'remove', ctx.account.id])).code).toBe(6);
  });
});

describe('CSV input', () => {
  it('parses quotes, doubled quotes, line breaks in cells, CRLF and a BOM', () => {
    expect(parseCsv('\uFEFFa,"b ""c"", d"\r\n"line\nbreak",x\r\n\r\n')).toEqual([
      ['a', 'b "c", d'],
      ['line\nbreak', 'x'],
    ]);
  });

  it('finds the address column by header, name or index, and takes a headerless list as emails', () => {
    expect(
      listFromCsv([
        ['Name', 'Email Address'],
        ['A', 'a@x.y'],
      ]),
    ).toEqual({ rows: [['A', 'a@x.y']], columns: ['Name', 'Email Address'], email_column: 1 });
    expect(
      listFromCsv(
        [
          ['id', 'contact'],
          ['1', 'a@x.y'],
        ],
        'contact',
      ).email_column,
    ).toBe(1);
    expect(listFromCsv([['a@x.y'], [' b@x.y ']])).toEqual({ emails: ['a@x.y', 'b@x.y'] });
    expect(() =>
      listFromCsv([
        ['id', 'name'],
        ['1', 'x'],
      ]),
    ).toThrow(/--column/);
  });
});
