import { describe, expect, it } from 'vitest';
import { answer, declaresEnvelope } from './answer';
import { operations } from './operations';
import * as res from './responses';

describe('a success answer', () => {
  it('puts `success: true` first where the schema declares it, with the operation status', async () => {
    const response = answer(operations.cancelJob, { job_id: 'job_1', status: 'cancelled' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"success":true,"job_id":"job_1","status":"cancelled"}');
    const created = answer(operations.deleteRule, { id: 'rule_1', deleted: true });
    expect(await created.json()).toEqual({ success: true, id: 'rule_1', deleted: true });
  });

  it('answers a resource as itself where its schema has no envelope (the wire format clients know)', async () => {
    expect(declaresEnvelope(res.account)).toBe(false);
    const response = answer(operations.getAccount, { email: 'a@example.com', plan: 'free', free_remaining_today: 1, used_today: 0, credits: 0 });
    expect(await response.text()).toBe('{"email":"a@example.com","plan":"free","free_remaining_today":1,"used_today":0,"credits":0}');
  });

  it('takes a union as enveloped only when every member is', () => {
    expect(declaresEnvelope(res.bulkSubmitted)).toBe(true);
  });

  it('refuses, outside production, a value the schema does not allow or a field it does not declare', () => {
    expect(() => answer(operations.cancelJob, { job_id: 'job_1', status: 'queued' })).toThrow(/cancelJob.*status/s);
    expect(() => answer(operations.cancelJob, { job_id: 'job_1', status: 'cancelled', refunded: 3 } as never)).toThrow(/cancelJob: the answer has \.refunded/);
    expect(() => answer(operations.listWebhooks, { data: [{ id: 'w', secret: 'whsec_x' }] } as never)).toThrow();
  });

  it('names a nested undeclared field by its path', () => {
    const webhook = { id: 'w', url: 'https://example.com', events: ['bulk.completed'], description: '', created_at: '2026-01-01T00:00:00Z', disabled: false };
    expect(() => answer(operations.listWebhooks, { data: [{ ...webhook, secret: 'whsec_x' }] } as never)).toThrow(/\.data\[0\]\.secret/);
    expect(() => answer(operations.listWebhooks, { data: [webhook] } as never)).not.toThrow();
  });
});
