/** The OpenAPI document's fixed parts (lib/api/openapi.ts arranges them): error answers, headers, webhook operations, the introduction. */

export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

export const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
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

export const COMMON_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

export const DOWNLOAD_HEADERS = {
  'Content-Disposition': {
    description: '`attachment; filename="<job_id>.csv"` (`.xlsx` for a workbook, `<job_id>-partial.csv` with `partial=true`)',
    schema: { type: 'string' },
  },
  'X-EV-Partial': {
    description: '`true` on the rows answered so far of a job that has not completed (`partial=true`).',
    schema: { type: 'string', enum: ['true'] },
  },
};

export const SANDBOX_TRIGGERS =
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

export function webhookOperation(id: string, summary: string) {
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

export const INFO = `A self-hostable email verification service.

Every /v1 request carries \`Authorization: Bearer <key>\`. \`X-EV-Sandbox: true\` switches one request to sandbox mode: verdicts come from the address's prefix (\`valid\`, \`invalid\`, \`risky\`, \`catchall\`, \`disposable\`, \`role\`) or a stable hash, nothing is charged, and the error triggers \`error-auth\`, \`error-ratelimit\`, \`error-server\`, \`error-timeout\` answer their errors. Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`. Errors share one envelope, \`{"error": "<code>", "message": "<text>"}\` plus the fields listed for the code.`;
