import { z } from 'zod';
import { responseSchemas as named } from './registry';
import { count, mailboxProvider, percent, reason, riskLevel, ruleId, score, subReason, verdictStatus } from './responses-common';

/**
 * What the API answers, as zod schemas: the OpenAPI document (lib/api/openapi.ts) is generated from
 * them, and the API tests validate every response they receive against that document.
 * They live by area (responses-*.ts); this module gathers them, so `res.<name>` names any.
 */

export * from './responses-common';
export * from './responses-jobs';
export * from './responses-webhooks';
export * from './responses-account';

export const evidence = z
  .object({
    mx_host: z.string().nullable(),
    smtp_code: z.number().int().nullable(),
    smtp_enhanced_code: z.string().nullable(),
    smtp_message: z.string().nullable(),
    smtp_failure: z.string().nullable().describe('Why the conversation ended without an answer (`timeout`, `protocol: …`).'),
    attempts: count,
    tls: z.boolean().describe('The conversation was upgraded with STARTTLS.'),
    dns_failure: z.string().nullable().describe('What DNS said when it decided the verdict (`mx.example.com: NXDOMAIN`, `resolver denies gmail.com`).'),
    control_code: z.number().int().nullable().describe('The reply to a made-up address of the same domain, asked beside the address (docs/verdicts.md).'),
    control_enhanced_code: z.string().nullable(),
    control_message: z.string().nullable(),
    postmaster_code: z
      .number()
      .int()
      .nullable()
      .describe('The reply to postmaster@ the domain, asked when the address was refused: a server that refuses postmaster too refuses us (docs/verdicts.md).'),
    postmaster_message: z.string().nullable(),
  })
  .register(named, { id: 'Evidence', description: 'What the SMTP conversation showed (production); null fields were not reached.' });

export const singleResult = z
  .object({
    email: z.string(),
    normalized_email: z
      .string()
      .nullable()
      .describe('The local part in NFC with its case kept, the domain per UTS #46; null when the address cannot be normalised.'),
    valid: z.boolean(),
    deliverable: z.boolean(),
    risk_level: riskLevel,
    provider: z.string(),
    mailbox_provider: mailboxProvider,
    response_time: count.describe('Milliseconds.'),
    confidence: percent,
    details: z.object({ syntax_valid: z.boolean(), domain_exists: z.boolean(), mx_record: z.boolean(), smtp_valid: z.boolean() }),
    reason,
    sub_reason: subReason.nullable(),
    cached: z.boolean(),
    status: verdictStatus,
    score,
    disposable: z.boolean(),
    role: z.boolean(),
    free: z.boolean(),
    catch_all: z.boolean(),
    did_you_mean: z.string().nullable().describe('A likely correction of a misspelt domain.'),
    evidence: evidence.nullable(),
    rule_id: ruleId,
    sandbox: z.boolean(),
  })
  .register(named, { id: 'SingleResult' });

export const verifyResult = singleResult
  .extend({ is_disposable: z.boolean() })
  .register(named, { id: 'VerifyResult', description: "The SDK's shape: `email`, `status`, `score`, `is_disposable`, then every field of the single result." });
