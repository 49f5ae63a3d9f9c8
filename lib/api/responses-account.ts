import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors/app-error';
import { KEY_TYPES, SCOPES } from '../accounts/scopes';
import { ROLES } from '../accounts/roles';
import { responseSchemas as named } from './registry';
import { count, success, timestamp } from './responses-common';

/** API keys, the account, the installation's egress and the error envelope. */

export const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart.'),
    type: z.enum(KEY_TYPES).describe('`secret` for servers, `publishable` for web pages.'),
    scopes: z.array(z.enum(SCOPES)).describe('What the key may call; a key made without a list holds every scope.'),
    allowed_ips: z.array(z.string()).nullable().describe('Addresses or CIDR blocks the key works from; null: any.'),
    allowed_origins: z.array(z.string()).nullable().describe('Publishable keys: the page origins allowed to use it.'),
    expires_at: timestamp.nullable(),
    rate_limits: z
      .object({
        per_visitor_per_minute: z.number().int().min(1),
        per_key_per_minute: z.number().int().min(1),
        checks_per_day: z.number().int().min(1).describe('Charged checks a UTC day; past it 429 `rate_limit` until midnight UTC.'),
        checks_today: z.number().int().min(0).describe('Charged checks so far today (UTC).'),
      })
      .nullable()
      .describe("Publishable keys: the limits in force (the key's own or the installation's defaults) and today's charged checks."),
    role: z.enum(ROLES).describe('The highest role the key acts with (docs/teams.md).'),
    created_by: z
      .object({ user_id: z.string(), email: z.string(), member: z.boolean().describe('false: its maker has left the organisation; the key stays its.') })
      .nullable()
      .describe('Who made the key; null: made by a script.'),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .register(named, { id: 'ApiKey' });
export const apiKeyCreated = apiKey.extend({ key: z.string().describe('The key, shown once (stored as SHA-256).') }).register(named, { id: 'ApiKeyCreated' });
export const apiKeyList = z.object({ success, data: z.array(apiKey) }).register(named, { id: 'ApiKeyList' });
export const apiKeyRevoked = z.object({ success, id: z.string(), revoked: z.literal(true) }).register(named, { id: 'ApiKeyRevoked' });

export const account = z
  .object({ email: z.string(), plan: z.string(), free_remaining_today: count, used_today: count, credits: z.number().int() })
  .register(named, { id: 'Account' });

export const accountMessage = z.object({ success, message: z.string() }).register(named, { id: 'AccountMessage' });

const checkStatus = z.enum(['pass', 'warn', 'fail']);
const egressChecks = {
  status: checkStatus.describe('The worst check.'),
  checked_at: timestamp,
  egress: z.string().describe('The egress reported on: its politeness budget key (`ip:<address>`, `socks:<host>:<port>` or `default`).'),
  source_ip: z.string().nullable().describe('EV_SMTP_SOURCE_IP: the local address its SMTP connections bind to.'),
  egress_ip: z.string().nullable(),
  helo_name: z.string(),
  checks: z.array(
    z.object({
      name: z.enum(['port25', 'egress_ip', 'rdns', 'dnsbl', 'resolver', 'identity', 'refusals']),
      status: checkStatus,
      message: z.string(),
      remedy: z.string().nullable(),
    }),
  ),
};
export const egressReport = z
  .object({
    success,
    data: z.object({
      ...egressChecks,
      policy: z.enum(['warn', 'pause', 'off']),
      production_paused: z.boolean(),
      egresses: z.array(z.object(egressChecks)).describe('Every egress of the fleet as its own processes last checked it, this one included.'),
    }),
  })
  .register(named, { id: 'EgressReport' });

export const errorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).register(named, { id: 'ErrorCode' });
export const errorEnvelope = z
  .object({
    error: errorCode,
    message: z.string().describe('For people; match on `error`.'),
    param: z.string().optional().describe('`invalid_request`, `idempotency_key_reused`: the field, query parameter or header at fault.'),
    limit: z.number().int().optional().describe('`too_many_emails`, `payload_too_large`, `limit_reached`, `rate_limit`: the limit passed.'),
    retry_after: z.number().int().min(1).optional().describe('`rate_limit`: seconds to wait (also `Retry-After`).'),
    scope: z.enum(SCOPES).optional().describe('`insufficient_scope`: the scope the operation needs.'),
    role: z.enum(ROLES).optional().describe('`insufficient_role`: the role the operation needs.'),
    required: count.optional().describe('`insufficient_credits`, `member_cap_reached`: verifications the request needs.'),
    free_remaining_today: count.optional().describe('`insufficient_credits`.'),
    credits: z.number().int().optional().describe('`insufficient_credits`.'),
    period: z.enum(['day', 'month']).optional().describe('`member_cap_reached`: the cap passed, per UTC day or per calendar month (UTC).'),
    cap: count.optional().describe('`member_cap_reached`: the cap, in charged checks.'),
    used: count.optional().describe('`member_cap_reached`: charged checks the person already spent in the period.'),
    resets_at: timestamp.optional().describe('`member_cap_reached`: when the period ends (midnight UTC, or the first of the next month).'),
  })
  .register(named, { id: 'Error', description: 'The one error envelope of every /v1 answer of status 400 or more.' });
