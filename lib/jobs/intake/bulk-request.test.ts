import { describe, expect, it } from 'vitest';
import type { AppError } from '../../errors/app-error';
import { parseBulkRequest } from './bulk-request';
import { listToArray } from './string-list';

const refusal = (body: string) =>
  parseBulkRequest(Buffer.from(body)).then(
    () => null,
    (error: AppError) => ({ param: error.extra?.param, message: error.message }),
  );

describe('parseBulkRequest refuses a field of the wrong shape with the message of its zod schema (lib/jobs/intake/bulk-schema.ts)', () => {
  it.each([
    ['{"emails": ["a@b.com", 1]}', 'emails.1', 'emails.1: Invalid input: expected string, received number'],
    ['{"emails": "a@b.com"}', 'emails', 'emails: Invalid input: expected array, received string'],
    ['{"emails": ["a@b.com"], "rows": [1], "columns": ["c"]}', 'rows.0', 'rows.0: Invalid input: expected array, received number'],
    ['{"emails": ["a@b.com"], "rows": [[null]], "columns": ["c"]}', 'rows.0.0', 'rows.0.0: Invalid input: expected string, received null'],
    ['{"emails": ["a@b.com"], "email_column": {}}', 'email_column', 'email_column: Invalid input: expected number, received object'],
    [
      JSON.stringify({ emails: ['a@b.com'], rows: [Array.from({ length: 1001 }, () => 'x')], columns: ['c'] }),
      'rows.0',
      'rows.0: Too big: expected array to have <=1000 items',
    ],
  ])('%s', async (body, param, message) => {
    expect(await refusal(body)).toEqual({ param, message });
  });

  it('skips a field it does not take and reads the rest', async () => {
    const body = await parseBulkRequest(Buffer.from('{"other": {"deep": [1, {"x": 2}]}, "emails": [" a@b.com "], "filename": "l.csv"}'));
    expect({ ...body, emails: listToArray(body.emails) }).toEqual({
      emails: ['a@b.com'],
      rows: undefined,
      columns: undefined,
      filename: 'l.csv',
      format: undefined,
    });
  });

  it("gives back every address and row as sent, trimmed, past the packed list's blocks (./string-list.ts)", async () => {
    const emails = Array.from({ length: 9000 }, (_, i) => (i % 7 === 0 ? ` é${i}@x.example\t` : i % 11 === 0 ? '' : `u${i}@b.com`));
    const rows = emails.map((email, i) => [`n"${i}`, email]);
    const body = await parseBulkRequest(Buffer.from(JSON.stringify({ rows, columns: ['name', 'email'], email_column: 1 })));
    expect(listToArray(body.emails)).toEqual(emails.map((email) => email.trim()));
    expect(listToArray(body.rows!)).toEqual(rows.map((row) => JSON.stringify(row)));
    const sent = await parseBulkRequest(Buffer.from(JSON.stringify({ emails })));
    expect(listToArray(sent.emails)).toEqual(emails.map((email) => email.trim()));
  });
});
