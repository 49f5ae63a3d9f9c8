import { isUtf8 } from 'node:buffer';
import { Tokenizer, TokenType } from '@streamparser/json';
import type { z } from 'zod';
import { env } from '../../config/env';
import { AppError, invalidRequest, validate } from '../../errors/app-error';
import { type UploadFormat, uploadFormat } from '../export/formats';
import { bulkFields } from './bulk-schema';
import { forEachSliced } from './slices';
import { mapPacked, packStrings, type StringList, type StringListBuilder } from './string-list';

/**
 * Reads a bulk body token by token and builds only what the API takes: `emails` (trimmed) and
 * `rows` (each kept as the JSON text of its cells, as job_items stores it), both packed without a
 * string per entry (./string-list.ts), `columns` (strings) and the scalar fields (`email_column`,
 * `filename`, the upload's format). The first token out of that shape ends the read with 400, and
 * the address count is checked as the list grows (413 once it passes EV_MAX_BULK_EMAILS), so no
 * body makes more than its own addresses and rows in memory: `{"emails":[{},{},...]}` stops at
 * its first element, and a field the API does not take is skipped however deep it nests, where
 * JSON.parse would have built millions of objects first.
 */
async function readBulkBody(bytes: Buffer): Promise<unknown> {
  if (bytes.length === 0) throw invalidRequest('body', 'The request body must be a JSON object.');
  const max = env().EV_MAX_BULK_EMAILS;
  const result: Record<string, unknown> = {};
  let where: Where = 'start';
  let key = '';
  let list: StringListBuilder | string[] = [];
  let row: string[] = [];
  let widest = 0; // the most cells of any row: columns past it are filled by none
  let failure: AppError | null = null;
  const fail = (error: AppError): never => {
    failure = error;
    throw error;
  };
  // The offending value alone, at its depth, is parsed by the field's schema: the 400 carries zod's
  // message, and the param names the element as zod would for the whole body (emails.3, rows.2.5).
  const refuse = (bad: unknown, ...at: number[]): never => {
    const sample = at.reduceRight<unknown>((inner) => [inner], bad);
    const param = [key, ...at].join('.');
    let message = 'not of the expected type';
    try {
      validate(FIELDS[key]!, sample);
    } catch (error) {
      if (error instanceof AppError) message = error.message.slice(error.message.indexOf(': ') + 2);
    }
    return fail(invalidRequest(param, `${param}: ${message}`));
  };
  const wrongType = (token: TokenType, value: unknown, ...at: number[]) =>
    refuse(token === TokenType.LEFT_BRACE ? {} : token === TokenType.LEFT_BRACKET ? [] : value, ...at);
  let skipDepth = 0; // inside the value of a field the API does not take: ignored, however deep
  const notJson = () => fail(invalidRequest('body', 'The request body is not valid JSON.'));
  // after a value: a comma and more, or the end of its container
  const next = (token: TokenType, more: Where, close: TokenType, closed: Where) => {
    if (token === TokenType.COMMA) where = more;
    else if (token === close) where = closed;
    else notJson();
  };

  const tokenizer = new Tokenizer();
  tokenizer.onToken = ({ token, value }) => {
    switch (where) {
      case 'start':
        if (token !== TokenType.LEFT_BRACE) fail(invalidRequest('body', 'The request body must be a JSON object.'));
        where = 'first-key';
        return;
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: a first key is a key (below)
      case 'first-key':
        if (token === TokenType.RIGHT_BRACE) {
          where = 'done';
          return;
        }
      // falls through: a key
      case 'key':
        if (token !== TokenType.STRING) notJson();
        key = value as string;
        where = 'colon';
        return;
      case 'colon':
        if (token !== TokenType.COLON) notJson();
        where = 'value';
        return;
      case 'value':
        if (!Object.hasOwn(FIELDS, key)) {
          // another field: skipped without building it (and never stored: no __proto__ games)
          if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
            skipDepth = 1;
            where = 'skip';
          } else where = 'after-value';
        } else if (key === 'emails' || key === 'rows' || key === 'columns') {
          if (token !== TokenType.LEFT_BRACKET) wrongType(token, value);
          list = key === 'columns' ? [] : packStrings();
          result[key] = list;
          where = 'first-item';
        } else if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
          wrongType(token, value); // email_column and filename are single values
        } else {
          result[key] = value;
          where = 'after-value';
        }
        return;
      case 'skip':
        if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) skipDepth++;
        else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) skipDepth--;
        if (skipDepth === 0) where = 'after-value';
        return;
      case 'after-value':
        next(token, 'key', TokenType.RIGHT_BRACE, 'done');
        return;
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: a first element is an element (below)
      case 'first-item':
        if (token === TokenType.RIGHT_BRACKET) {
          where = 'after-value';
          return;
        }
      // falls through: an element
      case 'list':
        if (list.length >= (key === 'columns' ? 1000 : max)) {
          if (key === 'columns') fail(invalidRequest('columns', 'columns: at most 1000 columns'));
          fail(new AppError('too_many_emails', `A bulk request may hold at most ${max} emails; this one has more.`, { limit: max }));
        }
        if (key === 'rows') {
          if (token !== TokenType.LEFT_BRACKET) wrongType(token, value, list.length);
          row = [];
          where = 'first-cell';
          return;
        }
        if (token !== TokenType.STRING) wrongType(token, value, list.length);
        list.push(key === 'emails' ? (value as string).trim() : (value as string));
        where = 'after-item';
        return;
      case 'after-item':
        next(token, 'list', TokenType.RIGHT_BRACKET, 'after-value');
        return;
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: a first cell is a cell (below)
      case 'first-cell':
        if (token === TokenType.RIGHT_BRACKET) {
          list.push('[]');
          where = 'after-item';
          return;
        }
      // falls through: a cell
      case 'row':
        if (token !== TokenType.STRING) wrongType(token, value, list.length, row.length);
        if (row.length >= 1000) refuse([...row, value], list.length);
        row.push(value as string);
        where = 'after-cell';
        return;
      case 'after-cell':
        next(token, 'row', TokenType.RIGHT_BRACKET, 'after-item');
        // a row is kept as its JSON text (what job_items stores): one string, not an array of many
        if ((where as Where) === 'after-item') {
          list.push(JSON.stringify(row));
          widest = Math.max(widest, row.length);
        }
        return;
      case 'done':
        notJson();
    }
  };
  // JSON.parse of the UTF-8 text would fail on a byte order mark; invalid UTF-8 becomes U+FFFD as
  // Buffer#toString makes it (the tokenizer's own decoder refuses it)
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) notJsonBody();
  const text = isUtf8(bytes) ? bytes : Buffer.from(bytes.toString('utf8'));
  try {
    // fed a slice at a time, taking turns with other requests (./slices.ts): a 20 MB body is about
    // a second of tokenizing
    const slices = Math.ceil(text.length / BODY_SLICE);
    await forEachSliced(slices, (i) => tokenizer.write(text.subarray(i * BODY_SLICE, (i + 1) * BODY_SLICE)), 1);
    tokenizer.end();
  } catch (error) {
    throw failure ?? invalidRequest('body', `The request body is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  if ((where as Where) !== 'done') throw invalidRequest('body', 'The request body is not valid JSON.');
  // a header no row fills would only pad every downloaded row with empty cells (a thousand of
  // them per row without rows: a 20 MB upload became a gigabyte download)
  if (Array.isArray(result.columns)) result.columns = result.columns.slice(0, widest);
  for (const packed of ['emails', 'rows'] as const) if (result[packed]) result[packed] = (result[packed] as StringListBuilder).done();
  return result;
}

const BODY_SLICE = 16 * 1024;

/** Where the next token goes: the top object's keys and values, a list's elements, a row's cells. */
type Where =
  | 'start'
  | 'first-key'
  | 'key'
  | 'colon'
  | 'value'
  | 'after-value'
  | 'first-item'
  | 'list'
  | 'after-item'
  | 'first-cell'
  | 'row'
  | 'after-cell'
  | 'skip'
  | 'done';

function notJsonBody(): never {
  throw invalidRequest('body', 'The request body is not valid JSON.');
}

const FIELDS: Record<string, z.ZodType> = bulkFields.shape;

/** What a bulk request holds once read: the addresses (trimmed), and an upload's rows as JSON text each. */
export interface BulkBody {
  emails: StringList;
  /** each row's cells as JSON text (an array of strings), one per email, in order */
  rows?: StringList;
  columns?: string[];
  filename?: string;
  /** the upload's format, kept for its download */
  format?: UploadFormat;
}

const scalars = bulkFields.pick({ email_column: true, filename: true, delimiter: true, bom: true, newline: true, sheet: true });

/**
 * Validates a bulk body: size limit first (413, while it streamed in), then shape (400). Addresses
 * come as `emails`, or from `rows` and `email_column` (an uploaded CSV, sent once); rows must match
 * emails one to one.
 */
export async function parseBulkRequest(bytes: Buffer): Promise<BulkBody> {
  const body = (await readBulkBody(bytes)) as { emails?: StringList; rows?: StringList; columns?: string[] } & Record<string, unknown>;
  const {
    email_column: column,
    filename,
    ...format
  } = validate(scalars, {
    email_column: body.email_column,
    filename: body.filename,
    delimiter: body.delimiter,
    bom: body.bom,
    newline: body.newline,
    sheet: body.sheet,
  });
  if (body.emails?.length === 0) throw invalidRequest('emails', 'emails: must hold at least one address');
  if (body.rows?.length === 0) throw invalidRequest('rows', 'rows: must hold at least one row');
  if (body.rows && !body.columns) throw invalidRequest('columns', 'columns (the header of rows) is required with rows.');
  let emails = body.emails;
  if (!emails) {
    if (!body.rows || column === undefined) throw invalidRequest('emails', 'emails: required (or rows with columns and email_column).');
    if (column >= body.columns!.length) throw invalidRequest('email_column', 'email_column must be the index of one of columns.');
    // the reader wrote each row itself, so parsing one back is safe and small
    emails = await mapPacked(body.rows, (row) => ((JSON.parse(row) as string[])[column] ?? '').trim());
  }
  if (body.rows && body.rows.length !== emails.length) throw invalidRequest('rows', 'rows must hold one entry per email, in the same order.');
  return { emails, rows: body.rows, columns: body.columns, filename, format: uploadFormat(format) };
}
