import { z } from 'zod';
import { REASONS, RISK_LEVELS, SUB_REASONS, VERDICT_STATUSES } from '../verifier/vocabulary';
import { responseSchemas as named } from './registry';

/** The pieces answers are built of: counts, timestamps, the envelope's field, the verdict vocabulary. */

export const count = z.number().int().min(0);
export const percent = z.number().int().min(0).max(100);
// `format` as metadata: the document states it and the tests check it (ajv-formats); zod's own
// ISO check would add a long regular expression to every timestamp of the document.
export const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601, UTC.' });
export const success = z.literal(true);
export const cursor = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.');

export const riskLevel = z.enum(RISK_LEVELS).register(named, { id: 'RiskLevel' });
export const reason = z.enum(REASONS).register(named, { id: 'Reason', description: 'Why the verdict is what it is.' });
export const verdictStatus = z.enum(VERDICT_STATUSES).register(named, { id: 'VerdictStatus' });
export const score = percent.describe('0-100: deliverable ≥ 80, undeliverable 0.');
export const subReason = z.enum(SUB_REASONS).register(named, {
  id: 'SubReason',
  description: 'The finer reason beside `reason`: every `unknown` has one, and so do verdicts whose reason alone would mislead (docs/verdicts.md).',
});
export const mailboxProvider = z
  .string()
  .nullable()
  .describe(
    "Who receives the mail, from the domain's MX hosts: `google`, `microsoft`, `yahoo`, `apple`, …, or a gateway (`proofpoint`, `mimecast`, …); null when unknown.",
  );

export const ruleId = z
  .string()
  .nullable()
  .describe('The allow or block rule that decided the verdict (`reason` `allowlisted` / `blocklisted`; GET /v1/rules); null otherwise.');

// Webhook payloads: what the dispatcher POSTs to a receiver (lib/webhooks/outbox.ts builds them).
export const eventBase = { id: z.string().describe('Also sent as `webhook-id`; the same on every retry.'), created_at: timestamp, sandbox: z.boolean() };
