import { isIP } from 'node:net';
import { z } from 'zod';
import { parsePacingSpec } from '../verifier/profiles';
import { refuse } from './refuse';
import { parseProxyUrl } from '../verifier/proxy';
import { parseTrustProxy } from './trust-proxy';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = z.coerce.number().int().nonnegative();

/** Every environment variable the service reads, validated once. docs/configuration.md lists them (checked by configuration-doc.test.ts). */
const schema = z
  .object({
    DATABASE_URL: z.string().default('file:./data/ev.db'),
    EV_EMBEDDED_WORKER: bool.default(true),
    /** `sandbox` runs production-mode accounting with the sandbox engine: load tests and dry runs. */
    EV_PRODUCTION_ENGINE: z.enum(['smtp', 'sandbox']).default('smtp'),
    EV_ALLOW_PRIVATE_NETWORKS: bool.default(false),
    // A million-row CSV upload with a few columns is about 100 MB of JSON.
    EV_MAX_BODY_BYTES: int.default(128 * 1024 * 1024),
    EV_MAX_BULK_EMAILS: int.default(1_000_000),
    EV_SANDBOX_TIMEOUT_MS: int.default(1000),
    EV_WORKER_CONCURRENCY: int.default(50),
    EV_CHUNK_SIZE: int.default(10_000),
    EV_LEASE_MS: int.default(60_000),
    EV_MONITOR_POLL_MS: int.default(60_000),
    /** when a job's address is asked again after our side failed (database, politeness store, DNS resolver): a retry, not a verdict */
    EV_TRANSIENT_RETRY_MS: int.default(30_000),
    /** tries of a chunk before its transient answers stand as verdicts (greylisting, outages); a chunk claimed twice as often fails its job */
    EV_JOB_MAX_ATTEMPTS: int.min(1).default(5),
    EV_PUBLIC_URL: z.string().default(''),
    EV_RATE_LIMIT_PER_MINUTE: int.default(600),
    /** where rate windows are counted: `auto` is Redis when EV_REDIS_URL is set, else the database on PostgreSQL, this process on SQLite */
    EV_RATE_LIMIT_STORE: z.enum(['auto', 'memory', 'database', 'redis']).default('auto'),
    EV_REDIS_URL: z.string().default(''),
    /** abuse limits per account, in both modes (lib/api/limits.ts) */
    EV_CREATE_RATE_PER_MINUTE: int.default(60),
    EV_SANDBOX_JOBS_PER_HOUR: int.default(100),
    EV_MAX_WEBHOOKS_PER_ACCOUNT: int.default(25),
    EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: int.default(100),
    // allow and block rules an account may hold (docs/rules-and-usage.md)
    EV_MAX_RULES_PER_ACCOUNT: int.default(10_000),
    // quota.warning when credits plus today's free checks fall below this, unless the account set its own
    EV_QUOTA_WARNING_BELOW: int.default(50),
    // retention (docs/retention.md): days lists, results and history are kept, the default and the most an account may set; 0 keeps them
    EV_RETENTION_DAYS: int.default(0),
    // how often a worker looks for data past its retention, and the rows one deletion statement removes
    EV_RETENTION_SWEEP_MS: int.default(60_000),
    EV_RETENTION_BATCH: int.min(1).default(2000),
    // days the audit log's rows are kept (docs/security.md, "Audit log"); 0 keeps them
    EV_AUDIT_RETENTION_DAYS: int.default(365),
    /** publishable keys (the form widget): requests per minute per visitor address and per key, unless the key sets its own (docs/integrations.md) */
    EV_PUBLISHABLE_PER_VISITOR_PER_MINUTE: int.default(20),
    EV_PUBLISHABLE_PER_KEY_PER_MINUTE: int.default(600),
    /** publishable keys: charged checks per UTC day per key, unless the key sets its own (lib/accounts/key-budget.ts) */
    EV_PUBLISHABLE_CHECKS_PER_DAY: int.min(1).default(1000),
    EV_FREE_DAILY: int.default(100),
    EV_VERIFY_DEADLINE_MS: int.default(15_000),
    EV_CACHE_TTL_MS: int.default(24 * 3600 * 1000),
    EV_DNS_SERVERS: z.string().default(''),
    EV_DNS_CANARIES: z.string().default('gmail.com,outlook.com,yahoo.com'),
    EV_SMTP_PORT: int.default(25),
    EV_HELO_NAME: z.string().default('verifier.localhost'),
    EV_MAIL_FROM: z.string().default('verify@verifier.localhost'),
    /** probe with the `verifier.localhost` placeholder HELO / MAIL FROM anyway (tests, labs): production probing refuses it otherwise */
    EV_ALLOW_PLACEHOLDER_IDENTITY: bool.default(false),
    EV_SMTP_CONNECT_TIMEOUT_MS: int.default(10_000),
    EV_SMTP_COMMAND_TIMEOUT_MS: int.default(10_000),
    EV_SMTP_CONVERSATION_TIMEOUT_MS: int.default(30_000),
    /** `socks5://[user:pass@]host:port`: SMTP probes go through this proxy; empty: directly */
    EV_SMTP_PROXY: z
      .string()
      .default('')
      .transform((value, ctx) => {
        try {
          return parseProxyUrl(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    /** the local address this process's SMTP connections bind to (one of the machine's IPs): its own politeness budget (lib/egress/egress.ts) */
    EV_SMTP_SOURCE_IP: z
      .string()
      .default('')
      .refine((v) => v === '' || isIP(v) !== 0, 'an IPv4 or IPv6 address of this machine'),
    /** the HELO name for EV_SMTP_SOURCE_IP (the PTR name of that address); default EV_HELO_NAME */
    EV_SMTP_SOURCE_HELO: z.string().default(''),
    EV_PER_DOMAIN_CONCURRENCY: int.default(2),
    /** per-provider / per-MX-host pacing overrides, `google=3/30,mx:mx.example.com=1/10,default=2/60` (lib/verifier/profiles.ts) */
    EV_SMTP_PACING: z
      .string()
      .default('')
      .transform((value, ctx) => {
        try {
          return parsePacingSpec(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    EV_GREYLIST_RETRY_MS: int.default(300_000),
    EV_DOMAIN_BACKOFF_MS: int.default(120_000),
    EV_GLOBAL_CONCURRENCY: int.default(50),
    /** Egress health (lib/egress): `warn` logs a failing check, `pause` also holds production jobs while port 25 fails, `off`: the worker never checks. */
    EV_EGRESS_POLICY: z.enum(['warn', 'pause', 'off']).default('warn'),
    EV_EGRESS_CHECK_INTERVAL_MS: int.default(600_000),
    /** mail domains (their first MX) or hosts, `[:port]`, that the port 25 check connects to */
    EV_EGRESS_PROBE_HOSTS: z.string().default('gmail.com,outlook.com,yahoo.com'),
    /** the public address SMTP probes leave from, when this machine cannot see it (NAT) */
    EV_EGRESS_IP: z.string().default(''),
    /** ports webhook URLs may use: the web's own and unprivileged ones, never SMTP, Redis, ... */
    EV_WEBHOOK_PORTS: z
      .string()
      .regex(/^\s*\d+(-\d+)?(\s*,\s*\d+(-\d+)?)*\s*$/, 'a list like 80,443,1024-65535')
      .default('80,443,1024-65535'),
    /** one delivery attempt, connect to response headers */
    EV_WEBHOOK_TIMEOUT_MS: int.default(10_000),
    /** deliveries in flight per process, and per endpoint */
    EV_WEBHOOK_CONCURRENCY: int.default(16),
    EV_WEBHOOK_PER_ENDPOINT: int.default(2),
    /** deliveries in flight per account and process: one account's silent receivers cannot take every slot */
    EV_WEBHOOK_PER_ACCOUNT: int.default(4),
    /**
     * behind reverse proxies you run: how many (`1`, `2`; `true` is 1), their networks (`10.0.0.0/8,…`), or
     * `header:X-Real-IP` (the one header yours writes); X-Forwarded-Host/-Proto are read then too (docs/security.md, "The client address")
     */
    EV_TRUST_PROXY: z
      .string()
      .default('false')
      .transform(
        (value, ctx) =>
          parseTrustProxy(value) ??
          refuse(ctx, 'false, true, a number of proxies, header:<Name> (not X-Forwarded-For: use 1), or a list of proxy addresses and CIDR blocks'),
      ),
    /** sign-in, sign-up and next-auth bodies: a few form fields */
    EV_AUTH_MAX_BODY_BYTES: int.default(8 * 1024),
    EV_LOGIN_MAX_FAILURES_PER_ACCOUNT: int.default(10),
    EV_LOGIN_MAX_FAILURES_PER_IP: int.default(50),
    EV_LOGIN_WINDOW_MS: int.default(15 * 60_000),
    EV_SIGNUPS_PER_IP: int.default(10),
    EV_SIGNUP_WINDOW_MS: int.default(3600_000),
    EV_MIN_PASSWORD_LENGTH: int.default(8),
    /** single sign-on through OpenID Connect (lib/auth/oidc.ts, docs/security.md): the issuer's URL (its /.well-known/openid-configuration is read); unset: off */
    EV_OIDC_ISSUER: z.string().default(''),
    EV_OIDC_CLIENT_ID: z.string().default(''),
    EV_OIDC_CLIENT_SECRET: z.string().default(''),
    /** the sign-in button's label: "Sign in with <name>" */
    EV_OIDC_NAME: z.string().default('single sign-on'),
    /** the relay invitations are mailed through (lib/mail/relay.ts): smtp://user:pass@host:587 (STARTTLS when offered; `?requireTLS=true` insists), smtps://... (TLS from the start); empty: no mail, the link is shown to the inviter and logged */
    EV_SMTP_URL: z
      .string()
      .default('')
      .refine((v) => v === '' || /^smtps?:\/\/[^/?#]+/i.test(v), 'smtp://[user:pass@]host[:port] or smtps://...'),
    /** the From of invitation mails; empty: EV_MAIL_FROM */
    EV_INVITATION_FROM: z.string().default(''),
    /** days an invitation link stays valid */
    EV_INVITATION_DAYS: int.min(1).max(365).default(7),
    /** a reservation with no settlement after this long (its request or process died) is given back by the sweeper (lib/accounts/sweeper.ts, docs/guarantees.md) */
    EV_RESERVATION_TIMEOUT_MS: int.default(600_000),
    /** a `running` Idempotency-Key whose heartbeat is older than this is taken over by a retry (lib/api/idempotency.ts) */
    EV_IDEMPOTENCY_STALE_MS: int.default(60_000),
    EV_DNSBL_ZONES: z.string().default('zen.spamhaus.org,bl.spamcop.net,b.barracudacentral.org'),
    /** `Authorization: Bearer` token of GET /metrics (Prometheus); unset: no metrics endpoint (404) */
    EV_METRICS_TOKEN: z.string().default(''),
    /** `npm run worker` serves its own /metrics on this port (same token); 0: none */
    EV_METRICS_PORT: int.default(0),
    /** what one account may take of a shared server (docs/limits.md): a PostgreSQL statement's longest run, ms (0: none) */
    EV_PG_STATEMENT_TIMEOUT_MS: int.default(30_000),
    /** heavy requests (bulk submissions, downloads) one account may run at once in a web process */
    EV_HEAVY_REQUESTS_PER_ACCOUNT: int.default(2),
    /** a job's download may be at most this many times its upload's bytes, plus 1 KB per row */
    EV_DOWNLOAD_RATIO: int.default(4),
  })
  .refine((e) => e.EV_RATE_LIMIT_STORE !== 'redis' || e.EV_REDIS_URL !== '', {
    path: ['EV_RATE_LIMIT_STORE'],
    message: 'redis needs EV_REDIS_URL',
  })
  .refine((e) => e.EV_OIDC_ISSUER === '' || (e.EV_OIDC_CLIENT_ID !== '' && e.EV_OIDC_CLIENT_SECRET !== ''), {
    path: ['EV_OIDC_ISSUER'],
    message: 'single sign-on needs EV_OIDC_CLIENT_ID and EV_OIDC_CLIENT_SECRET too',
  })
  .refine((e) => e.EV_OIDC_ISSUER === '' || URL.canParse(e.EV_OIDC_ISSUER), {
    path: ['EV_OIDC_ISSUER'],
    message: 'the issuer is a URL, e.g. https://id.example.com/realms/acme',
  });

export type Env = z.infer<typeof schema>;

/** The names `env()` reads, for the configuration page's test. */
export const ENV_VARIABLES = Object.keys(schema.shape) as (keyof Env)[];

/** What each variable is when unset, as the raw text it would have to be set to (objects and parsed values left out). */
export function envDefaults(): Record<string, string> {
  const parsed = schema.parse({}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(parsed)
      .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
      .map(([k, v]) => [k, String(v)]),
  );
}

// Read per call: the cache holds the environment's values it was parsed from, so a change to
// process.env (a test's) is seen by the next call, and the same values give the same object (what
// follows a configuration, e.g. the egress monitor and the production verifiers, compares it).
// Comparing them reads every variable (about a microsecond each), so in production, where a server's
// environment is what it started with, they are compared at most once every ENV_RECHECK_MS.
let parsedFrom: { key: string; env: Env; checkedAt: number } | undefined;

/** How long a production process goes on using the parsed environment before comparing it again. */
export const ENV_RECHECK_MS = 1000;

export function env(): Env {
  const now = performance.now();
  if (parsedFrom && process.env.NODE_ENV === 'production' && now - parsedFrom.checkedAt < ENV_RECHECK_MS) return parsedFrom.env;
  const key = JSON.stringify(ENV_VARIABLES.map((name) => process.env[name] ?? null));
  if (parsedFrom?.key !== key) {
    const parsed = schema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`Invalid environment: ${problems}`);
    }
    parsedFrom = { key, env: parsed.data, checkedAt: now };
  } else parsedFrom.checkedAt = now;
  return parsedFrom.env;
}
