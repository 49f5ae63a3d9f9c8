import { z } from 'zod';
import { requestSchemas } from './registry';
import { KEY_TYPES, SCOPES } from '../accounts/scopes';
import { normalizeIpRule, normalizeOrigin } from '../accounts/restrictions';
import { ROLES } from '../accounts/roles';
import { refuse } from '../config/refuse';

// Keys (lib/accounts/keys.ts): restrictions are normalised here, so the domain stores canonical values.
const ipRule = z
  .string()
  .max(64)
  .transform((value, ctx) => normalizeIpRule(value) ?? refuse(ctx, `not an IP address or CIDR block: ${value}`));
const originRule = z
  .string()
  .max(300)
  .transform((value, ctx) => normalizeOrigin(value) ?? refuse(ctx, `not an origin (scheme://host[:port]): ${value}`));
const perMinute = z.number().int().min(1).max(100_000);
const keyRestrictions = {
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .describe(
      'What the key may call (README, docs/integrations.md). Omitted: every scope, or the scopes of the key that makes it. A publishable key holds `verify` only. A key makes and edits only keys within its own scopes, allowed_ips and expiry (docs/security.md).',
    ),
  allowed_ips: z
    .array(ipRule)
    .min(1)
    .max(50)
    .describe(
      'Client addresses or CIDR blocks (IPv4, IPv6) the key works from; others get 403 `ip_not_allowed`. The client address is found as EV_TRUST_PROXY says (docs/security.md, "The client address").',
    ),
  allowed_origins: z.array(originRule).min(1).max(20).describe('Publishable keys: the page origins (`https://shop.example`) allowed to call with it.'),
  expires_at: z.iso.datetime({ offset: true }).describe('After this instant the key answers 401.'),
  rate_limits: z
    .object({
      per_visitor_per_minute: perMinute.optional(),
      per_key_per_minute: perMinute.optional(),
      checks_per_day: z.number().int().min(1).max(10_000_000).optional(),
    })
    .describe(
      'Publishable keys: requests per minute per visitor (an IPv4 address, an IPv6 /64) and per key, and charged checks per UTC day (defaults EV_PUBLISHABLE_PER_VISITOR_PER_MINUTE, EV_PUBLISHABLE_PER_KEY_PER_MINUTE, EV_PUBLISHABLE_CHECKS_PER_DAY).',
    ),
};
export const keyBody = z
  .object({
    name: z.string().max(100).optional(),
    type: z
      .enum(KEY_TYPES)
      .optional()
      .describe('`secret` (default) for servers; `publishable` for web pages: POST /v1/verify/single and /v1/verify only, from `allowed_origins` only.'),
    scopes: keyRestrictions.scopes.optional(),
    allowed_ips: keyRestrictions.allowed_ips.optional(),
    allowed_origins: keyRestrictions.allowed_origins.optional(),
    expires_at: keyRestrictions.expires_at.optional(),
    rate_limits: keyRestrictions.rate_limits.optional(),
    role: z.enum(ROLES).optional().describe('The highest role the key acts with (docs/teams.md): at most yours; default yours.'),
  })
  .register(requestSchemas, {
    id: 'KeyRequest',
    examples: [
      { name: 'CRM', scopes: ['verify'], allowed_ips: ['203.0.113.0/24'] },
      { name: 'Sign-up form', type: 'publishable', allowed_origins: ['https://shop.example'] },
    ],
  });
export const keyUpdateBody = z
  .object({
    name: z.string().max(100).optional(),
    scopes: keyRestrictions.scopes.nullable().optional().describe('`null`: every scope.'),
    allowed_ips: keyRestrictions.allowed_ips.nullable().optional().describe('`null`: any address.'),
    allowed_origins: keyRestrictions.allowed_origins.optional(),
    expires_at: keyRestrictions.expires_at.nullable().optional().describe('`null`: never expires.'),
    rate_limits: z
      .object({
        per_visitor_per_minute: perMinute.nullable().optional(),
        per_key_per_minute: perMinute.nullable().optional(),
        checks_per_day: z.number().int().min(1).max(10_000_000).nullable().optional(),
      })
      .nullable()
      .optional()
      .describe('The limits sent change, the others stay; a limit `null`: its default; `null`: every default.'),
    role: z.enum(ROLES).optional().describe('The highest role the key acts with: at most yours.'),
  })
  .register(requestSchemas, { id: 'KeyUpdateRequest', description: 'Only the fields sent change.', examples: [{ scopes: ['verify', 'jobs'] }] });
