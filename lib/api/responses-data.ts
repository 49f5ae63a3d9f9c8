import { z } from 'zod';
import { responseSchemas as named } from './registry';
import { count, eventBase, success, timestamp } from './responses-common';

/** The answers and the event of retention, erasure and export (docs/retention.md). */

const days = z.number().int().min(1);

export const expiringList = z
  .object({
    job_id: z.string(),
    filename: z.string().nullable(),
    total_emails: count,
    created_at: timestamp,
    expires_at: timestamp.describe('When the list, its results and its uploaded rows are deleted.'),
  })
  .register(named, { id: 'ExpiringList' });

export const retentionState = z
  .object({
    success,
    retention_days: days
      .nullable()
      .describe("Days the account's lists, results, history, stored idempotent answers and webhook deliveries are kept; null: until deleted."),
    account_days: days.nullable().describe("The account's own setting; null: the installation's default."),
    default_days: days.nullable().describe('EV_RETENTION_DAYS: the default, null when the installation keeps data until deleted.'),
    max_days: days.nullable().describe('The most an account may set (EV_RETENTION_DAYS); null: any number.'),
    expiring: z.array(expiringList).describe('Lists deleted within 7 days, soonest first (at most 20; the dashboard shows a banner).'),
  })
  .register(named, { id: 'RetentionState' });

export const addressErased = z
  .object({
    success,
    email: z.string(),
    removed: z.object({
      results: count.describe('Results and history rows of the address (usage counts and charges kept).'),
      list_rows: count.describe('Uploaded list rows holding the address (in its address column or any other).'),
      rules: count.describe('Allow or block rules of exactly this address.'),
      idempotency_answers: count.describe('Stored answers of Idempotency-Keys that held the address: a retry with such a key runs again.'),
      webhook_deliveries: count.describe('Webhook deliveries whose body held the address, with their attempts.'),
    }),
  })
  .register(named, { id: 'AddressErased' });

export const listExpiringEvent = z
  .object({
    ...eventBase,
    type: z.literal('list.expiring'),
    data: z.object({
      job_id: z.string(),
      filename: z.string().nullable(),
      total_emails: count,
      created_at: timestamp,
      expires_at: timestamp,
      days_left: z.union([z.literal(7), z.literal(1)]).describe('Sent a week before, then a day before.'),
      download_url: z.string(),
    }),
  })
  .register(named, { id: 'ListExpiringEvent' });
