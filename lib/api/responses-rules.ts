import { z } from 'zod';
import { ROLES } from '../accounts/roles';
import { RULE_ACTIONS, RULE_MATCHES } from '../verifier/rule-match';
import { responseSchemas as named } from './registry';
import { count, eventBase, success, timestamp } from './responses-common';

/** The answers and events of allow and block rules, the quota warning and usage (docs/rules-and-usage.md). */

export const quotaWarningEvent = z
  .object({
    ...eventBase,
    type: z.literal('quota.warning'),
    data: z.object({
      remaining: count.describe("Credits plus today's free checks."),
      credits: z.number().int(),
      free_remaining_today: count,
      warning_below: count.describe('The threshold it fell below.'),
      publishable_key: z
        .object({ id: z.string(), name: z.string(), checks_today: count, checks_per_day: count })
        .optional()
        .describe(
          "Sent when a publishable key has used four fifths of its daily cap of charged checks (once a UTC day per key), with the account's balance beside it.",
        ),
    }),
  })
  .register(named, { id: 'QuotaWarningEvent' });
export const quotaExceededEvent = z
  .object({
    ...eventBase,
    type: z.literal('quota.exceeded'),
    data: z.object({
      required: count,
      credits: z.number().int(),
      free_remaining_today: count,
      refused_at: timestamp,
      monitor_id: z.string().optional().describe("Set when a monitor's run was skipped for want of credits (GET /v1/monitors/{id})."),
      list_id: z.string().optional().describe('The monitored list of that skipped run.'),
    }),
  })
  .register(named, { id: 'QuotaExceededEvent' });

export const rule = z
  .object({
    id: z.string(),
    action: z.enum(RULE_ACTIONS),
    match: z.enum(RULE_MATCHES),
    value: z.string().describe('As compared: an address with ASCII letters lower-cased, domains and hosts in A-labels, a TLD without its dot.'),
    created_at: timestamp,
  })
  .register(named, { id: 'Rule' });
export const ruleCreated = rule.extend({ success }).register(named, { id: 'RuleCreated' });
export const ruleList = z.object({ success, data: z.array(rule).describe('Newest first.') }).register(named, { id: 'RuleList' });
export const ruleImported = z
  .object({ success, created: count.describe('Rules added; the others were already there.'), data: z.array(rule).describe('One per rule sent, in order.') })
  .register(named, { id: 'RuleImport' });
export const ruleDeleted = z.object({ success, id: z.string(), deleted: z.literal(true) }).register(named, { id: 'RuleDeleted' });

export const quotaState = z
  .object({
    success,
    credits: z.number().int(),
    free_remaining_today: count,
    remaining: z.number().int().describe("Credits plus today's free checks."),
    warning_below: count,
    warning_below_is_default: z.boolean().describe("The installation's EV_QUOTA_WARNING_BELOW, not one the account set."),
    below: z.boolean().describe('`remaining` is below `warning_below` (the dashboard shows a banner).'),
    exceeded_at: timestamp.nullable().describe('The last request refused for want of credits that sent `quota.exceeded`.'),
  })
  .register(named, { id: 'QuotaState' });

export const usageRow = z
  .object({
    day: z.string().describe('UTC, YYYY-MM-DD.'),
    mode: z.enum(['production', 'sandbox']),
    checks: count.describe("Verifications recorded (single checks and list items; a list's duplicate rows are not verified)."),
    deliverable: count,
    undeliverable: count,
    risky: count,
    unknown: count,
    charged: count.describe("Counted against the quota (today's free checks first, then credits). Always 0 in the sandbox."),
    refunded: count.describe("Reserved and given back: answers that are not charged, the unused part of an ended job's reservation."),
    credits_granted: count.describe('Credits added that day (`npm run grant-credits`, from the credit ledger). Always 0 in the sandbox.'),
  })
  .register(named, { id: 'UsageRow' });
const cap = z.number().int().min(0).nullable();
export const memberUsage = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.enum(ROLES).nullable().describe('Their role in the organisation; null: no longer a member (keys they made keep working and count here).'),
    checks_per_day: cap.describe('Their cap of charged checks per UTC day; null: none.'),
    checks_per_month: cap.describe('Their cap of charged checks per calendar month (UTC); null: none.'),
    charged_today: count.describe('Charged checks counted against them today (UTC), whatever the range.'),
    charged_this_month: count.describe('Charged checks counted against them this calendar month (UTC), whatever the range.'),
    charged: count.describe('Charged checks counted against them in the range.'),
    days: z.array(z.object({ day: z.string().describe('UTC, YYYY-MM-DD.'), charged: count })).describe('Every day of the range, oldest first, zeros included.'),
  })
  .describe(
    "One person's charged checks: what their requests and lists (by session, or with keys they made) reserved, less what was given back, on the day it was reserved; a running list counts its reservation until it ends. Production only.",
  )
  .register(named, { id: 'MemberUsage' });
export const usageReport = z
  .object({
    success,
    from: z.string(),
    to: z.string(),
    data: z.array(usageRow).describe('Every day of the range in both modes, oldest first.'),
    members: z
      .array(memberUsage)
      .optional()
      .describe(
        "With `by=member`: the charged checks split by the person they counted against (members first, by when they joined, then former members counted in the range or this month). Work no person asked for (a monitor's run) is in `data` only.",
      ),
  })
  .register(named, { id: 'UsageReport' });
