import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES, type EventType } from '../webhooks/events';
import { buildEvent, bulkCompletedEvent, bulkFailedEvent, type EventPayload } from '../webhooks/outbox';
import { EVENTS, type EventData } from './event-schemas';
import { buildOpenApi } from './openapi';
import { responseSchemas } from './registry';

// Each event type's payload, built from the domain value its producer gives (in the producer's
// order of fields), against the JSON receivers got before events were shaped through their schema:
// the same names in the same order, so the same bytes are signed and stored.
const at = new Date('2026-03-04T05:06:07.000Z');
const summary = { total: 3, duplicates: 1, valid: 1, invalid: 1, unknown: 0, failed: 0, deliverable: 1, undeliverable: 1, risky: 0 };
const SUMMARY = '{"total":3,"duplicates":1,"valid":1,"invalid":1,"unknown":0,"failed":0,"deliverable":1,"undeliverable":1,"risky":0}';
const URL = '/v1/verify/bulk/download/job_1';

const cases: { [T in EventType]: { built: () => EventPayload; data: string } } = {
  'bulk.completed': {
    built: () => bulkCompletedEvent({ id: 'job_1', sandbox: false, totalEmails: 3 }, summary, at),
    data: `{"job_id":"job_1","status":"completed","total_emails":3,"summary":${SUMMARY},"download_url":"${URL}","completed_at":"${at.toISOString()}"}`,
  },
  'bulk.failed': {
    built: () => bulkFailedEvent({ id: 'job_1', sandbox: false, totalEmails: 3 }, summary, 'no worker could finish chunk 2', at),
    data: `{"job_id":"job_1","status":"failed","total_emails":3,"summary":${SUMMARY},"error":"no worker could finish chunk 2","failed_at":"${at.toISOString()}"}`,
  },
  // lib/accounts/key-budget.ts (lib/accounts/quota-events.ts sends the same without the key)
  'quota.warning': {
    built: () =>
      buildEvent('quota.warning', false, {
        remaining: 4,
        credits: 0,
        freeRemainingToday: 4,
        warningBelow: 5,
        publishableKey: { id: 'key_1', name: 'form', checksToday: 80, checksPerDay: 100 },
      }),
    data: '{"remaining":4,"credits":0,"free_remaining_today":4,"warning_below":5,"publishable_key":{"id":"key_1","name":"form","checks_today":80,"checks_per_day":100}}',
  },
  // lib/monitors/runs.ts: the 402's fields (lib/accounts/quota.ts), then the monitor's
  'quota.exceeded': {
    built: () => buildEvent('quota.exceeded', false, { required: 9, freeRemainingToday: 0, credits: 2, refusedAt: at, monitorId: 'mon_1', listId: 'job_0' }),
    data: `{"required":9,"free_remaining_today":0,"credits":2,"refused_at":"${at.toISOString()}","monitor_id":"mon_1","list_id":"job_0"}`,
  },
  // lib/retention/warn-expiring.ts
  'list.expiring': {
    built: () =>
      buildEvent('list.expiring', false, {
        jobId: 'job_1',
        filename: null,
        totalEmails: 3,
        createdAt: at,
        expiresAt: at,
        daysLeft: 7,
        downloadUrl: URL,
      }),
    data: `{"job_id":"job_1","filename":null,"total_emails":3,"created_at":"${at.toISOString()}","expires_at":"${at.toISOString()}","days_left":7,"download_url":"${URL}"}`,
  },
  // lib/monitors/changes.ts
  'list.changed': {
    built: () =>
      buildEvent('list.changed', false, {
        monitorId: 'mon_1',
        listId: 'job_0',
        jobId: 'job_1',
        previousJobId: 'job_0',
        totalEmails: 3,
        changedEmails: 1,
        changes: [{ from: 'deliverable', to: 'undeliverable', count: 1 }],
        changedDownloadUrl: `${URL}?changed=true`,
        completedAt: at,
      }),
    data: `{"monitor_id":"mon_1","list_id":"job_0","job_id":"job_1","previous_job_id":"job_0","total_emails":3,"changed_emails":1,"changes":[{"from":"deliverable","to":"undeliverable","count":1}],"changed_download_url":"${URL}?changed=true","completed_at":"${at.toISOString()}"}`,
  },
  // lib/webhooks/manage.ts
  'webhook.test': {
    built: () => buildEvent('webhook.test', true, { message: 'This is a test event from your email verification service.' }),
    data: '{"message":"This is a test event from your email verification service."}',
  },
};

describe('webhook event payloads', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: at, toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(EVENT_TYPES)('%s is built in its schema, with the wire names and order receivers know', (type) => {
    const event = cases[type].built();
    expect(EVENTS[type].schema.safeParse(event).success).toBe(true);
    const sandbox = type === 'webhook.test';
    expect(JSON.stringify(event)).toBe(
      `{"id":"${event.id}","type":"${type}","created_at":"${at.toISOString()}","sandbox":${sandbox},"data":${cases[type].data}}`,
    );
    expect(event.id).toMatch(/^evt_/);
  });

  it('names, for each type, the schema the OpenAPI document gives it', () => {
    const webhooks = buildOpenApi().webhooks as Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
    for (const type of EVENT_TYPES) {
      const ref = webhooks[type]?.post.requestBody.content['application/json'].schema.$ref;
      expect(ref, type).toBe(`#/components/schemas/${responseSchemas.get(EVENTS[type].schema)?.id}`);
    }
  });

  it('refuses, outside production, a field the schema does not declare or a value it does not allow', () => {
    const data: EventData<'webhook.test'> = { message: 'hi' };
    expect(() => buildEvent('webhook.test', false, { ...data, extra: 1 } as never)).toThrow(/webhook\.test: the event has \.data\.extra/);
    expect(() =>
      buildEvent('list.expiring', false, { jobId: 'job_1', filename: null, totalEmails: 3, createdAt: at, expiresAt: at, daysLeft: 3, downloadUrl: URL }),
    ).toThrow(/list\.expiring: the event does not match/);
  });
});
