import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Scope } from '@/lib/accounts/scopes';
import { webhookBody } from '@/lib/api/schemas';
import type * as sdk from '@/lib/sdk/src/index';
import { EVENT_TYPES, type EventType, WEBHOOK_EVENTS, type WebhookEvent } from './events';

// The SDK is published alone and keeps its own copies of these vocabularies; `tsc --noEmit` checks
// they equal the server's.
describe('the vocabularies the SDK copies', () => {
  it('are the same event names and scopes', () => {
    expectTypeOf<sdk.WebhookEvent>().toEqualTypeOf<WebhookEvent>();
    expectTypeOf<sdk.EventType>().toEqualTypeOf<EventType>();
    expectTypeOf<sdk.Scope>().toEqualTypeOf<Scope>();
  });
});

describe('webhook events', () => {
  it('the request schema accepts each subscribable event and not the test event', () => {
    for (const event of WEBHOOK_EVENTS) expect(webhookBody.safeParse({ url: 'https://hooks.example.com/ev', events: [event] }).success, event).toBe(true);
    expect(webhookBody.safeParse({ url: 'https://hooks.example.com/ev', events: ['webhook.test'] }).success).toBe(false);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });
});
