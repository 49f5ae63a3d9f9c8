import * as req from '../schemas';
import * as rr from '../responses-rules';
import { operation } from '../operation';

/** Allow and block rules, the quota warning, usage (docs/rules-and-usage.md). */

export const listRules = operation({
  method: 'get',
  path: '/v1/rules',
  operationId: 'listRules',
  tag: 'Rules',
  scope: 'rules',
  role: 'member',
  summary: 'List allow and block rules',
  description:
    "The account's rules, the same in both modes. Rules decide an address before any probe: `allowlisted` (deliverable) or `blocklisted` (undeliverable) with the rule's id as `rule_id`, not charged.",
  ok: [200, rr.ruleList],
});

export const createRule = operation({
  method: 'post',
  path: '/v1/rules',
  operationId: 'createRule',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Add a rule',
  description: 'Up to EV_MAX_RULES_PER_ACCOUNT (10,000 by default) per account (409 `limit_reached`). A rule the account already has is answered as it is.',
  body: req.ruleBody,
  ok: [201, rr.ruleCreated],
  creates: true,
});

export const importRules = operation({
  method: 'post',
  path: '/v1/rules/import',
  operationId: 'importRules',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Add many rules at once',
  description: "The dashboard's CSV import sends its rows here. All are added or none.",
  body: req.ruleImportBody,
  ok: [200, rr.ruleImported],
  // a thousand rules of ~100 bytes each, with room for JSON
  maxBodyBytes: 256 * 1024,
  creates: true,
});

export const deleteRule = operation({
  method: 'delete',
  path: '/v1/rules/{id}',
  operationId: 'deleteRule',
  tag: 'Rules',
  scope: 'rules',
  role: 'admin',
  summary: 'Remove a rule',
  ok: [200, rr.ruleDeleted],
  errors: [404],
});

export const getUsage = operation({
  method: 'get',
  path: '/v1/usage',
  operationId: 'getUsage',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Usage per day and mode',
  description:
    "Checks by verdict bucket, charged, refunded and credits granted, per UTC day and mode (every day of the range, zeros included). `format=csv` answers the same rows as CSV. `by=member` adds each person's charged checks per day, today and this month, with their caps (as CSV: day, user_id, email, role, charged).",
  query: req.usageQuery,
  ok: [200, rr.usageReport],
  csvToo: true,
  errors: [400],
});

export const getQuota = operation({
  method: 'get',
  path: '/v1/account/quota',
  operationId: 'getQuota',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Quota and its warning threshold',
  ok: [200, rr.quotaState],
});

export const setQuotaWarning = operation({
  method: 'post',
  path: '/v1/account/quota',
  operationId: 'setQuotaWarning',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Set the quota warning threshold',
  description: "`quota.warning` is sent once each time credits plus today's free checks fall below it (checked after each production reservation).",
  body: req.quotaWarningBody,
  ok: [200, rr.quotaState],
});
