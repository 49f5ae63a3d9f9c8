import { z } from 'zod';
import { parsePacingSpec } from '../verifier/profiles';
import { parseProxyUrl } from '../verifier/proxy';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = z.coerce.number().int().nonnegative();

/** Every environment variable the service reads, validated once. README lists them. */
const schema = z.object({
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
  EV_CHUNK_SIZE: int.default(2000),
  EV_LEASE_MS: int.default(60_000),
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
  EV_SMTP_PROXY: z.string().default('').transform((value, ctx) => {
    try {
      return parseProxyUrl(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  }),
  EV_PER_DOMAIN_CONCURRENCY: int.default(2),
  /** per-provider / per-MX-host pacing overrides, `google=3/30,mx:mx.example.com=1/10,default=2/60` (lib/verifier/profiles.ts) */
  EV_SMTP_PACING: z.string().default('').transform((value, ctx) => {
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
  EV_WEBHOOK_PORTS: z.string().regex(/^\s*\d+(-\d+)?(\s*,\s*\d+(-\d+)?)*\s*$/, 'a list like 80,443,1024-65535').default('80,443,1024-65535'),
  /** one delivery attempt, connect to response headers */
  EV_WEBHOOK_TIMEOUT_MS: int.default(10_000),
  /** deliveries in flight per process, and per endpoint */
  EV_WEBHOOK_CONCURRENCY: int.default(16),
  EV_WEBHOOK_PER_ENDPOINT: int.default(2),
  /** deliveries in flight per account and process: one account's silent receivers cannot take every slot */
  EV_WEBHOOK_PER_ACCOUNT: int.default(4),
  /** behind a reverse proxy you run: take scheme, host and client address from X-Forwarded-* (README, "Accounts") */
  EV_TRUST_PROXY: bool.default(false),
  /** sign-in, sign-up and next-auth bodies: a few form fields */
  EV_AUTH_MAX_BODY_BYTES: int.default(8 * 1024),
  EV_LOGIN_MAX_FAILURES_PER_ACCOUNT: int.default(10),
  EV_LOGIN_MAX_FAILURES_PER_IP: int.default(50),
  EV_LOGIN_WINDOW_MS: int.default(15 * 60_000),
  EV_SIGNUPS_PER_IP: int.default(10),
  EV_SIGNUP_WINDOW_MS: int.default(3600_000),
  EV_MIN_PASSWORD_LENGTH: int.default(8),
  EV_DNSBL_ZONES: z.string().default('zen.spamhaus.org,bl.spamcop.net,b.barracudacentral.org'),
  /** what one account may take of a shared server (docs/limits.md): a PostgreSQL statement's longest run, ms (0: none) */
  EV_PG_STATEMENT_TIMEOUT_MS: int.default(30_000),
  /** heavy requests (bulk submissions, downloads) one account may run at once in a web process */
  EV_HEAVY_REQUESTS_PER_ACCOUNT: int.default(2),
  /** a job's download may be at most this many times its upload's bytes, plus 1 KB per row */
  EV_DOWNLOAD_RATIO: int.default(4),
}).refine((e) => e.EV_RATE_LIMIT_STORE !== 'redis' || e.EV_REDIS_URL !== '', {
  path: ['EV_RATE_LIMIT_STORE'], message: 'redis needs EV_REDIS_URL',
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = schema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`Invalid environment: ${problems}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** Tests change the environment between cases. */
export function resetEnvForTests(): void {
  cached = undefined;
}
