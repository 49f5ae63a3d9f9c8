import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { answer, type AnswerOf } from './answer';
import { operations } from './operations';
import * as res from './responses';
import { camel, shape, type ShapeCheck } from './shape';

describe('shape: a domain value as its response schema spells it', () => {
  it('renames camelCase keys to the schema’s snake_case, nested objects and arrays included, in the value’s order', () => {
    const schema = z.object({
      job_id: z.string(),
      data: z.object({ results_total: z.number(), items: z.array(z.object({ checked_at: z.string(), is_ok: z.boolean() })) }),
    });
    const body = shape(schema, { data: { items: [{ isOk: true, checkedAt: 'x' }], resultsTotal: 2 }, jobId: 'job_1' });
    expect(JSON.stringify(body)).toBe('{"data":{"items":[{"is_ok":true,"checked_at":"x"}],"results_total":2},"job_id":"job_1"}');
  });

  it('takes the verdict’s own snake_case fields as they are', () => {
    const schema = z.object({ risk_level: z.string(), sub_reason: z.string().nullable(), checked_at: z.string() });
    expect(shape(schema, { risk_level: 'low', sub_reason: null, checkedAt: 't' })).toEqual({ risk_level: 'low', sub_reason: null, checked_at: 't' });
  });

  it('unwraps optional, nullable and default, and leaves an absent field out', () => {
    const schema = z.object({
      a_b: z.object({ c_d: z.number() }).nullable(),
      e_f: z.object({ g_h: z.number() }).optional(),
      i_j: z.number().default(3),
    });
    expect(shape(schema, { aB: null, eF: { gH: 1 } })).toEqual({ a_b: null, e_f: { g_h: 1 } });
    expect(shape(schema, { aB: { cD: 2 }, iJ: 4 })).toEqual({ a_b: { c_d: 2 }, i_j: 4 });
    expect(Object.keys(shape(schema, { aB: null, eF: undefined }) as object)).toEqual(['a_b']);
  });

  it('gives a union the first member whose shaped value parses', () => {
    const instant = { jobId: 'job_1', instant: true, status: 'completed', totalEmails: 1, validEmails: 1, invalidFormatEmails: 0, duplicateEmails: 0 };
    const queued = { jobId: 'job_2', status: 'queued', totalEmails: 20, validEmails: 20, invalidFormatEmails: 0, duplicateEmails: 0 };
    const summary = { total: 1, valid: 1, invalid: 0, unknown: 0, failed: 0, deliverable: 1, undeliverable: 0, risky: 0 };
    const shapedInstant = shape(res.bulkSubmitted, { success: true, ...instant, results: [], summary, message: 'm' });
    expect(shapedInstant).toMatchObject({ instant: true, job_id: 'job_1', total_emails: 1 });
    const shapedQueued = shape(res.bulkSubmitted, { success: true, ...queued, reusedEmails: 3, estimatedTime: 'soon', message: 'm' });
    expect(shapedQueued).toEqual({
      success: true,
      job_id: 'job_2',
      status: 'queued',
      total_emails: 20,
      valid_emails: 20,
      invalid_format_emails: 0,
      duplicate_emails: 0,
      reused_emails: 3,
      estimated_time: 'soon',
      message: 'm',
    });
    expect(res.bulkSubmitted.safeParse(shapedQueued).success).toBe(true);
  });

  it('passes a record, unknown or any through untouched: user data keeps its own keys', () => {
    const schema = z.object({
      meta_data: z.record(z.string(), z.unknown()),
      raw_value: z.unknown(),
      any_value: z.any(),
    });
    const metaData = { user_id: 1, someKey: { nested_key: [{ a_b: 1 }] } };
    const rawValue = { x_y: { p_q: 1 } };
    const body = shape(schema, { metaData, rawValue, anyValue: { k_l: 2 } }) as Record<string, unknown>;
    expect(body).toEqual({ meta_data: metaData, raw_value: rawValue, any_value: { k_l: 2 } });
    expect(body.meta_data).toBe(metaData);
  });

  it('writes a Date as its ISO text where the schema wants a string, and leaves other values alone', () => {
    const schema = z.object({ created_at: res.timestamp, done_at: res.timestamp.nullable(), count: z.number() });
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(shape(schema, { createdAt: at, doneAt: null, count: 2 })).toEqual({ created_at: '2026-01-02T03:04:05.000Z', done_at: null, count: 2 });
  });

  it('notes the first field the schema does not declare, by its path', () => {
    const schema = z.object({ data: z.array(z.object({ id: z.string() })) });
    const check: ShapeCheck = { extra: null };
    expect(shape(schema, { data: [{ id: 'a' }, { id: 'b', secretKey: 's' }] }, check)).toEqual({ data: [{ id: 'a' }, { id: 'b' }] });
    expect(check.extra).toBe('.data[1].secretKey');
  });

  it('camelCases as the types do', () => {
    expect(camel('invalid_format_emails')).toBe('invalidFormatEmails');
    expect(camel('per_key_per_minute')).toBe('perKeyPerMinute');
    expect(camel('id')).toBe('id');
  });
});

describe('answer(): shaped, then checked', () => {
  it('answers a camelCase domain value in the wire format', async () => {
    const response = answer(operations.cancelJob, { jobId: 'job_1', status: 'cancelled' });
    expect(await response.text()).toBe('{"success":true,"job_id":"job_1","status":"cancelled"}');
  });

  it('fails the check when a required field is missing or a field is undeclared', () => {
    expect(() => answer(operations.cancelJob, { status: 'cancelled' } as never)).toThrow(/cancelJob: the answer does not match.*job_id/s);
    expect(() => answer(operations.cancelJob, { jobId: 'job_1', status: 'cancelled', refunded: 3 } as never)).toThrow(
      /cancelJob: the answer has \.refunded, which its response schema does not declare/,
    );
    expect(() => answer(operations.getQuota, { credits: 1 } as never)).toThrow(/getQuota: the answer does not match.*free_remaining_today/s);
    expect(() => answer(operations.cancelJob, { jobId: 'job_1' } as never)).toThrow(/cancelJob: the answer does not match.*status/s);
  });

  it('types a handler’s value from the schema: keys camelCased, the verdict’s kept, records as they are', () => {
    expectTypeOf<AnswerOf<typeof operations.cancelJob>>().toEqualTypeOf<{ jobId: string | Date; status: string | Date }>();
    expectTypeOf<AnswerOf<typeof operations.listHistory>['data'][number]>().toHaveProperty('risk_level');
    expectTypeOf<AnswerOf<typeof operations.listHistory>['data'][number]>().toHaveProperty('createdAt');
    expectTypeOf<AnswerOf<typeof operations.listAuditEvents>['data'][number]['details']>().toEqualTypeOf<Record<string, unknown> | null>();
    // @ts-expect-error a wire name where the domain name is wanted does not compile
    const wrong: AnswerOf<typeof operations.cancelJob> = { job_id: 'job_1', status: 'cancelled' };
    expect(wrong).toBeTruthy();
  });
});
