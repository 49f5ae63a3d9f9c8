import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const ALL = ['lib/**/*.test.ts', 'app/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * Files that may run two at a time: each makes its own databases (test/databases.ts: a temporary
 * SQLite file, a PostgreSQL database named after its process) and listens only on ports the OS
 * picks, starts no mail, DNS or proxy peer, no built server and no worker process, and holds no
 * latency bound another file's load could break. They run first, two at a time; then PAIRS, two
 * at a time; every other file runs after them, one at a time (servers, worker processes, peers,
 * timing bounds, and tests long enough that sharing the CPU could take them past the 30 s bound:
 * lib/accounts/ledger's audit runs, test/api/key-bounds' property runs of 60 cases).
 */
const PARALLEL = [
  'lib/accounts/key-bounds.test.ts',
  'lib/accounts/opening.test.ts',
  'lib/accounts/quota.test.ts',
  'lib/accounts/restrictions.test.ts',
  'lib/accounts/sso.test.ts',
  'lib/api/answer.test.ts',
  'lib/api/heavy.test.ts',
  'lib/api/openapi.test.ts',
  'lib/api/routes.test.ts',
  'lib/auth/origin.test.ts',
  'lib/client/parse-workbook.test.ts',
  'lib/config/configuration-doc.test.ts',
  'lib/config/env.test.ts',
  'lib/db/idempotency-migration.test.ts',
  'lib/db/insert-arrays.test.ts',
  'lib/db/checkpointer.test.ts',
  'lib/db/ids.test.ts',
  'lib/db/schema-sync.test.ts',
  'lib/db/shared-connection.test.ts',
  'lib/db/sql.test.ts',
  'lib/egress/fleet.test.ts',
  'lib/egress/refusals.test.ts',
  'lib/egress/state.test.ts',
  'lib/failpoints/failpoints.test.ts',
  'lib/jobs/export/columns.test.ts',
  'lib/jobs/export/csv.test.ts',
  'lib/jobs/intake/bulk-request.test.ts',
  'lib/jobs/intake/chunk-rows.test.ts',
  'lib/jobs/intake/duplicates.test.ts',
  'lib/results/history.test.ts',
  'lib/sdk/test/cli.test.ts',
  'lib/sdk/test/keys.test.ts',
  'lib/sdk/test/pack.test.ts',
  'lib/sdk/test/sdk.test.ts',
  'lib/sdk/test/types.test.ts',
  'lib/verifier/lists.test.ts',
  'lib/verifier/net.test.ts',
  'lib/verifier/profiles.test.ts',
  'lib/verifier/providers.test.ts',
  'lib/verifier/rejection.test.ts',
  'lib/verifier/reply.test.ts',
  'lib/verifier/rule-match.test.ts',
  'lib/verifier/suggest.test.ts',
  'lib/verifier/verdict.test.ts',
  'lib/webhooks/dispatch.test.ts',
  'lib/webhooks/events.test.ts',
  'lib/widget/widget.test.ts',
  'test/docs.test.ts',
  'test/house.test.ts',
  'test/bench/compare.test.ts',
  'test/api/client-address.test.ts',
  'test/api/idempotency-per-key.test.ts',
  'test/api/lists.test.ts',
  'test/api/neighbours.test.ts',
  'test/api/publishable-budget.test.ts',
  'test/api/publishable.test.ts',
  'test/api/quota-events.test.ts',
  'test/api/reuse.test.ts',
  'test/api/usage.test.ts',
  'test/api/sandbox.test.ts',
  'test/api/scopes.test.ts',
  'test/api/instant-retry.test.ts',
  'test/api/hot-path.test.ts',
  'test/api/metrics.test.ts',
  'test/api/roles.test.ts',
  'test/api/teams-upgrade.test.ts',
  'test/api/member-caps.test.ts',
  'test/api/two-factor.test.ts',
  'test/jobs/claims.test.ts',
  'test/jobs/fair-claiming.test.ts',
  'test/hostile/access.test.ts',
  'test/hostile/addresses.test.ts',
  'test/hostile/bodies.test.ts',
  'test/hostile/webhooks.test.ts',
];

/**
 * Files that may run two at a time after PARALLEL, before the rest: each starts its peers (dnsmasq,
 * Postfix, Exim, Dante, scripted SMTP, an in-process SMTP or HTTP receiver), script processes or
 * the built server on ports the OS picks, in temporary folders of its own, with its own databases,
 * and holds no bound a second such file beside it could break: no wall-time comparison, no lease or
 * window of a few hundred milliseconds, only deadlines that tell a hang from an answer (a 300 ms
 * timeout against a 4-5 s bound) and comparisons of samples taken in turn (test/api/auth's known
 * and unknown emails' sign-in times, alternated, medians within a factor of two). Every one of them
 * passed two at a time at load averages of 3 to 9 (the shared machine, other test runs beside it).
 * Left out, one at a time: test/jobs (leases of 0.4-5 s raced against the clock), the neighbour,
 * hostile-peer, body and cancel tests of the built server (latency, RSS and health bounds, timed
 * windows), idempotency (150 ms and 1 s windows), lib/accounts/owners (1 ms reservation bound),
 * lib/webhooks' limits (a delivery or four scrypt hashes done while 1-1.5 s attempts still hold),
 * the schedulers and politeness (timed sleeps), test/api/key-bounds' property runs and
 * lib/accounts/ledger's audit runs (long enough to near the 30 s bound when shared).
 */
const PAIRS = [
  'lib/egress/check.test.ts',
  'lib/verifier/conversation.test.ts',
  'lib/verifier/dns.test.ts',
  'lib/verifier/exim.test.ts',
  'lib/verifier/postscreen.test.ts',
  'lib/verifier/proxy.test.ts',
  'lib/verifier/real-world.test.ts',
  'lib/verifier/rejections-replay.test.ts',
  'lib/verifier/smtp.test.ts',
  'lib/verifier/verify.test.ts',
  'test/api/audit.test.ts',
  'test/api/auth.test.ts',
  'test/api/egress.test.ts',
  'test/api/invitations.test.ts',
  'test/api/limits.test.ts',
  'test/api/production.test.ts',
  'test/api/real-world.test.ts',
  'test/api/rejections.test.ts',
  'test/api/retention.test.ts',
  'test/api/rules.test.ts',
  'test/http/books.test.ts',
  'test/http/headers.test.ts',
  'test/http/metrics.test.ts',
  'test/http/oidc.test.ts',
  'test/http/sdk.test.ts',
  'test/peers/private-postgres.test.ts',
];

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('./', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // bundles the scripts tests start as processes, once per run (test/scripts.ts)
    globalSetup: ['./test/bundle-scripts.ts'],
    projects: [
      { extends: true, test: { name: 'parallel', include: PARALLEL, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'pairs', include: PAIRS, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: {
          name: 'serial',
          include: ALL,
          exclude: [...configDefaults.exclude, ...PARALLEL, ...PAIRS],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
