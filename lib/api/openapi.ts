import { z } from 'zod';
import { requestSchemas, responseSchemas } from './registry';
import { OPERATIONS, type Operation } from './operations';
import type { EventType } from '../webhooks/events';

/**
 * The OpenAPI 3.1 document of /v1: the contract of record. Schemas come from the zod schemas the
 * routes validate with (lib/api/schemas.ts) and the response schemas (lib/api/responses.ts) through
 * zod's own JSON Schema output; this module only arranges them into paths. Served at
 * GET /v1/openapi.json, linted by lib/api/openapi.test.ts, and every response the API tests receive
 * is validated against it (test/api/contract.ts).
 */

export { OPERATIONS, type Operation } from './operations';

const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description: '`invalid_request`: body not JSON, a field missing or of the wrong type, an unknown query value, a bad `Idempotency-Key`.',
  },
  401: { name: 'Unauthorized', description: '`authentication_error`: missing, unknown or revoked key (both modes); also the sandbox trigger `error-auth`.' },
  402: {
    name: 'PaymentRequired',
    description:
      "`insufficient_credits`: production free quota and credits exhausted; `member_cap_reached`: the person acting (a session's, or the key's maker) has spent their daily or monthly cap of charged checks in the organisation (named in `period` and `cap`, with `resets_at`), while the others go on.",
  },
  403: {
    name: 'Forbidden',
    description:
      "`insufficient_scope`: the key lacks the operation's scope (named in `scope`; a publishable key may only verify single addresses); `ip_not_allowed`: the client address is not in the key's `allowed_ips`; `origin_not_allowed`: a publishable key used without an Origin of its `allowed_origins`; `insufficient_role`: the caller's role (a session's person in the organisation, or a key's own) is below the operation's (named in `role`); `not_a_member`: the session's person is not (or no longer) a member of the organisation chosen; `sso_required`: a session signed in by password acting for an organisation that signs in through single sign-on only; `two_factor_required`: the organisation requires two-factor and the session's person has not turned it on (only enrolment and the list of organisations are open to them); `forbidden`: a cookie-authenticated write from another origin.",
  },
  404: { name: 'NotFound', description: "`not_found`: unknown, or another account's." },
  409: {
    name: 'Conflict',
    description:
      "`job_not_completed` (download before completion), `conflict` (cancelling an ended job; a retry while its Idempotency-Key's original runs), `limit_reached` (one webhook, active key or rule more than the account may hold; `limit`).",
  },
  413: {
    name: 'PayloadTooLarge',
    description:
      "`payload_too_large` (body over the route's limit: EV_MAX_BODY_BYTES for bulk, a few KB elsewhere), `too_many_emails` (over EV_MAX_BULK_EMAILS).",
  },
  422: { name: 'IdempotencyKeyReused', description: '`idempotency_key_reused`: the Idempotency-Key was used with another request.' },
  429: {
    name: 'RateLimited',
    description:
      "`rate_limit`: production requests per key per minute exceeded, or (both modes) the account's creation rate (EV_CREATE_RATE_PER_MINUTE) or sandbox job budget (EV_SANDBOX_JOBS_PER_HOUR), with `limit`; also the sandbox trigger `error-ratelimit`.",
  },
  500: {
    name: 'ServerError',
    description: '`server_error`: anything unexpected (logged); also the sandbox trigger `error-server`. Not stored under an Idempotency-Key, so a retry runs.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      '`service_unavailable`: production probing is refused until the installation has a real sender identity (EV_HELO_NAME and EV_MAIL_FROM, not the verifier.localhost placeholder; docs/operations.md). Nothing is charged.',
  },
  504: { name: 'Timeout', description: '`timeout`: the sandbox trigger `error-timeout` (after EV_SANDBOX_TIMEOUT_MS).' },
};

const COMMON_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const DOWNLOAD_HEADERS = {
  'Content-Disposition': {
    description: '`attachment; filename="<job_id>.csv"` (`.xlsx` for a workbook, `<job_id>-partial.csv` with `partial=true`)',
    schema: { type: 'string' },
  },
  'X-EV-Partial': {
    description: '`true` on the rows answered so far of a job that has not completed (`partial=true`).',
    schema: { type: 'string', enum: ['true'] },
  },
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** A zod schema as JSON Schema: a $ref when it is a named component, else inline. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const id = (io === 'input' ? requestSchemas : responseSchemas).get(schema)?.id;
  if (id) return ref(id);
  return clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }));
}

/** Drops the keys zod adds for a standalone schema, which a component inside a document must not have. */
function clean<T>(schema: T): T {
  const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
  return rest as T;
}

function componentSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [registry, io] of [
    [requestSchemas, 'input'],
    [responseSchemas, 'output'],
  ] as const) {
    const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
    for (const [id, schema] of Object.entries(schemas)) out[id] = clean(schema);
  }
  return out;
}

function queryParameters(query: z.ZodObject) {
  const input = z.toJSONSchema(query, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(input.properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: input.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
}

function operationObject(op: Operation) {
  const parameters: unknown[] = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (op.scope !== 'public') parameters.push({ $ref: '#/components/parameters/Sandbox' });
  if (op.method === 'post') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (op.query) parameters.push(...queryParameters(op.query));
  const [okStatus, okSchema] = op.ok;
  const okHeaders =
    op.scope === 'public'
      ? undefined
      : op.method === 'post'
        ? { ...COMMON_HEADERS, 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } }
        : COMMON_HEADERS;
  const responses: Record<string, unknown> = {
    [okStatus]: {
      description:
        okSchema === 'csv'
          ? "The results as CSV (the upload's delimiter, BOM and line ends by default) or as an Excel workbook."
          : okSchema === 'zip'
            ? 'A zip archive.'
            : 'OK',
      ...(okHeaders ? { headers: okSchema === 'csv' ? { ...okHeaders, ...DOWNLOAD_HEADERS } : okHeaders } : {}),
      content:
        okSchema === 'zip'
          ? { 'application/zip': { schema: { type: 'string', format: 'binary' } } }
          : okSchema === 'csv'
            ? {
                'text/csv': { schema: { type: 'string' } },
                'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
              }
            : { 'application/json': { schema: schemaOf(okSchema, 'output') }, ...(op.csvToo ? { 'text/csv': { schema: { type: 'string' } } } : {}) },
    },
  };
  if (op.scope !== 'public') {
    const statuses = new Set<number>([401, 429, 500, ...(op.errors ?? [])]);
    statuses.add(403); // a key without the operation's scope, or used from elsewhere than it allows
    if (op.method === 'post') for (const s of [400, 409, 413, 422]) statuses.add(s);
    for (const status of [...statuses].sort()) responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
  }
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description || op.sandboxTriggers || op.scope !== 'public'
      ? { description: [op.description, op.sandboxTriggers ? SANDBOX_TRIGGERS : undefined, scopeNote(op)].filter(Boolean).join('\n\n') }
      : {}),
    tags: [op.tag],
    security: op.scope === 'public' ? [] : [{ bearerAuth: [op.scope] }],
    parameters,
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(op.body, 'input') } } } } : {}),
    responses,
  };
}

function scopeNote(op: Operation): string | undefined {
  if (op.scope === 'public') return undefined;
  return `Key scope: \`${op.scope}\`.${op.publishable ? ' Publishable keys may call it too, from their allowed origins (CORS).' : ''}`;
}

const SANDBOX_TRIGGERS =
  'Sandbox triggers (local part prefix, case-insensitive): `error-auth…` 401, `error-ratelimit…` 429 with `Retry-After: 60`, `error-server…` 500, `error-timeout…` 504 after EV_SANDBOX_TIMEOUT_MS.';

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id: the same on every retry, so receivers can dedupe.',
    schema: { type: 'string' },
  },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt.', schema: { type: 'string' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the secret (after `whsec_`, base64-decoded): Standard Webhooks.',
    schema: { type: 'string' },
  },
];

function webhookOperation(id: string, summary: string) {
  return {
    post: {
      operationId: `on${id.replace(/Event$/, '')}`,
      summary,
      tags: ['Webhooks'],
      parameters: SIGNATURE_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: ref(id) } } },
      responses: {
        '200': {
          description:
            'Any 2xx acknowledges the event. Anything else, or no answer within EV_WEBHOOK_TIMEOUT_MS, is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h; 410 disables the endpoint.',
        },
      },
    },
  };
}

export const OPENAPI_VERSION = '1.0.0';

/** Builds the document (pure: the same document for every call). */
export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => [
      name,
      {
        description,
        headers: status === '429' ? { ...COMMON_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : COMMON_HEADERS,
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
  const integerHeader = (description: string) => ({ description, required: true, schema: { type: 'string', pattern: '^\\d+$' } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Email verifier API',
      version: OPENAPI_VERSION,
      description: INFO,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This installation' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Verify', description: 'Single addresses.' },
      { name: 'Bulk', description: 'Lists as jobs: submit, poll, download, cancel.' },
      { name: 'History', description: 'Past verifications.' },
      { name: 'Webhooks', description: 'Endpoints that receive job events, signed as Standard Webhooks.' },
      { name: 'Monitors', description: 'Lists re-verified on a schedule, with what changed between runs.' },
      { name: 'Rules', description: 'Allow and block rules: addresses, domains, MX hosts and TLDs decided before any probe.' },
      { name: 'Account', description: 'Keys, plan, quota, credits and usage.' },
      { name: 'Teams', description: 'Organisations, their members and roles.' },
      { name: 'Operations', description: 'The installation itself.' },
    ],
    paths,
    webhooks: {
      'bulk.completed': webhookOperation('BulkCompletedEvent', 'A job completed'),
      'bulk.failed': webhookOperation('BulkFailedEvent', 'A job failed'),
      'quota.warning': webhookOperation('QuotaWarningEvent', "Credits plus today's free checks fell below the account's threshold (once per crossing)"),
      'quota.exceeded': webhookOperation('QuotaExceededEvent', 'A request was refused for want of credits (at most once an hour)'),
      'list.expiring': webhookOperation('ListExpiringEvent', 'A list is deleted by retention in 7 days, then in 1 day (docs/retention.md)'),
      'list.changed': webhookOperation('ListChangedEvent', "A monitor's run completed with rows whose verdict changed"),
      'webhook.test': webhookOperation('WebhookTestEvent', 'A test event (POST /v1/webhooks/{id}/test)'),
    } satisfies Record<EventType, unknown>,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An API key (`ev_live_…`) from the dashboard's Settings or `npm run create-key`. The dashboard's own pages send their session cookie instead.",
        },
      },
      parameters: {
        Sandbox: {
          name: 'X-EV-Sandbox',
          in: 'header',
          required: false,
          description: '`true` switches this request to sandbox mode (deterministic, free, no SMTP); any other value or none is production.',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'The first answer below 500 is stored for 24 hours per API key (the dashboard has its own) and Idempotency-Key, and replayed to a retry of the same request (with `Idempotent-Replayed: true`); the same key with another request answers 422, a retry while the original runs 409. A 5xx is not stored.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      headers: {
        'X-Request-Id': {
          description: "This request's id, also in the server's log of an unexpected error: quote it when reporting a problem.",
          required: true,
          schema: { type: 'string', pattern: '^req_[A-Za-z0-9_-]+$' },
        },
        'X-RateLimit-Limit': integerHeader('Requests allowed per minute (sandbox: simulated, never blocks).'),
        'X-RateLimit-Remaining': integerHeader('Requests left in this window.'),
        'X-RateLimit-Reset': integerHeader('Unix seconds when the window resets.'),
        'Retry-After': integerHeader('Seconds to wait before retrying.'),
        'Idempotent-Replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', const: 'true' },
        },
      },
      responses,
      schemas: componentSchemas(),
    },
  };
}

const INFO = `A self-hostable email verification service.

Every /v1 request carries \`Authorization: Bearer <key>\`. \`X-EV-Sandbox: true\` switches one request to sandbox mode: verdicts come from the address's prefix (\`valid\`, \`invalid\`, \`risky\`, \`catchall\`, \`disposable\`, \`role\`) or a stable hash, nothing is charged, and the error triggers \`error-auth\`, \`error-ratelimit\`, \`error-server\`, \`error-timeout\` answer their errors. Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`. Errors share one envelope, \`{"error": "<code>", "message": "<text>"}\` plus the fields listed for the code.`;
