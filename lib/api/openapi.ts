import { EVENT_TYPES, type EventType } from '../webhooks/events';
import { z } from 'zod';
import { requestSchemas, responseSchemas } from './registry';
import { OPERATIONS, type Operation } from './operations';
import { EVENTS } from './event-schemas';
import { COMMON_HEADERS, DOWNLOAD_HEADERS, ERROR_RESPONSES, INFO, ref, SANDBOX_TRIGGERS, webhookOperation } from './openapi-parts';

/**
 * The OpenAPI 3.1 document of /v1: the contract of record. Schemas come from the zod schemas the
 * routes validate with (lib/api/schemas.ts) and the response schemas (lib/api/responses.ts) through
 * zod's own JSON Schema output; this module only arranges them into paths. Served at
 * GET /v1/openapi.json, linted by lib/api/openapi.test.ts, and every response the API tests receive
 * is validated against it (test/api/contract.ts).
 */

export { OPERATIONS, type Operation } from './operations';

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
    // each event's payload schema, by its component name, and summary: lib/api/event-schemas.ts
    webhooks: Object.fromEntries(
      EVENT_TYPES.map((type) => [type, webhookOperation(responseSchemas.get(EVENTS[type].schema)!.id, EVENTS[type].summary)]),
    ) as Record<EventType, ReturnType<typeof webhookOperation>>,
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
