import { env, type Env } from '../config/env';
import { db } from '../db/client';
import { egressOf, type Egress } from './egress';
import { fleetEgressReports, saveEgressReport } from './fleet';
import { parseDnsServers } from '../verifier/dns';
import { checkEgress, createEgressDns, IDENTITY_REMEDY, placeholderIdentity, type EgressDeps, type EgressReport } from './check';
import { processSlot } from '../config/process-slots';
import { withRefusals } from './refusals';

/** The egress check as this process runs it: built from the environment, cached, refreshed. */

export function egressDepsFromEnv(config: Env = env()): EgressDeps {
  const list = (value: string) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const egress = egressOf(config);
  return {
    dns: createEgressDns({ servers: parseDnsServers(config.EV_DNS_SERVERS), canaries: list(config.EV_DNS_CANARIES) }),
    proxy: config.EV_SMTP_PROXY,
    egress: egress.key,
    localAddress: egress.sourceIp,
    heloName: egress.heloName,
    mailFrom: config.EV_MAIL_FROM,
    allowPlaceholderIdentity: config.EV_ALLOW_PLACEHOLDER_IDENTITY,
    smtpPort: config.EV_SMTP_PORT,
    probeTargets: list(config.EV_EGRESS_PROBE_HOSTS),
    egressIp: config.EV_EGRESS_IP || undefined,
    dnsblZones: list(config.EV_DNSBL_ZONES),
    timeoutMs: config.EV_SMTP_CONNECT_TIMEOUT_MS,
    allowPrivateNetworks: config.EV_ALLOW_PRIVATE_NETWORKS,
  };
}

export const port25Failed = (report: EgressReport) => report.checks.some((c) => c.name === 'port25' && c.status === 'fail');

export interface MonitorOptions {
  run(): Promise<EgressReport>;
  intervalMs: number;
  /** while port 25 fails, checks come this often (a paused worker should resume soon after a fix) */
  failingIntervalMs?: number;
  /** a forced refresh within this long of the last check's start returns that check */
  minRefreshMs?: number;
  /** the egress checked (named in a report when the check itself fails) */
  egress?: Egress;
  /** keeps each new report where the fleet's other processes see it (fleet.ts) */
  record?(report: EgressReport): Promise<void>;
  /** whether a failing port 25 holds production jobs (for the log lines) */
  pauses?(): boolean;
  now?(): number;
  log?(line: string): void;
}

/** One cached report, refreshed when stale; concurrent callers share a running check. */
export class EgressMonitor {
  private report: EgressReport | null = null;
  private checkedAt = 0;
  private startedAt = -Infinity;
  private running: Promise<EgressReport> | null = null;
  private lastState: string | null = null;

  constructor(private readonly options: MonitorOptions) {}

  current(): EgressReport | null {
    return this.report;
  }

  stale(): boolean {
    if (!this.report) return true;
    const { intervalMs, failingIntervalMs = 60_000 } = this.options;
    const every = port25Failed(this.report) ? Math.min(intervalMs, failingIntervalMs) : intervalMs;
    return this.now() - this.checkedAt >= every;
  }

  /** The report; checks first when there is none or it is stale, or on `refresh` (at most every `minRefreshMs`). */
  get({ refresh = false } = {}): Promise<EgressReport> {
    if (this.running) return this.running;
    const forced = refresh && this.now() - this.startedAt >= (this.options.minRefreshMs ?? 10_000);
    if (this.report && !forced && !this.stale()) return Promise.resolve(this.report);
    return this.start();
  }

  /** Starts a check in the background when one is due; never waits for it. */
  touch(): void {
    if (!this.running && this.stale()) void this.start();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private start(): Promise<EgressReport> {
    this.startedAt = this.now();
    const running = this.options
      .run()
      .catch(
        (error): EgressReport => ({
          status: 'warn',
          checkedAt: new Date(this.now()).toISOString(),
          egress: this.options.egress?.key ?? 'default',
          sourceIp: this.options.egress?.sourceIp ?? null,
          egressIp: null,
          heloName: this.options.egress?.heloName ?? '',
          checks: [{ name: 'port25', status: 'warn', message: `The check itself failed: ${(error as Error)?.message ?? error}`, remedy: null }],
        }),
      )
      .then(async (report) => {
        this.report = report;
        this.checkedAt = this.now();
        this.logChange(report);
        await this.options.record?.(report).catch((error: unknown) => console.error('[egress] could not record the report', error));
        return report;
      })
      .finally(() => {
        if (this.running === running) this.running = null;
      });
    this.running = running;
    return running;
  }

  /** One log entry per change of state, not one per check. */
  private logChange(report: EgressReport): void {
    const paused = port25Failed(report) && (this.options.pauses?.() ?? false);
    const state = `${report.status}/${paused}`;
    if (state === this.lastState) return;
    const first = this.lastState === null;
    const wasPaused = this.lastState?.endsWith('/true') ?? false;
    this.lastState = state;
    const log = this.options.log ?? ((line: string) => console.warn(line));
    if (report.status === 'pass') {
      if (!first) log('[egress] all checks pass again');
    } else {
      log(
        `[egress] ${report.status}: ${report.checks
          .filter((c) => c.status !== 'pass')
          .map((c) => `${c.name} ${c.status}: ${c.message}`)
          .join(' | ')}`,
      );
    }
    if (paused) log('[egress] production jobs are paused until outbound port 25 works (EV_EGRESS_POLICY=pause); sandbox jobs run');
    else if (wasPaused) log('[egress] production jobs resume');
  }
}

// Built from the configuration it was read with: once env() reads the environment again (a test
// changed it), the next caller gets a monitor of the new configuration, with no report of the old.
const shared = processSlot<{ config: Env; monitor: EgressMonitor }>('egress-monitor');

/** This process's monitor (one per process: the worker and the API routes share it). */
export function egressMonitor(): EgressMonitor {
  const config = env();
  if (shared.value?.config !== config) {
    const monitor = new EgressMonitor({
      run: () => checkEgress(egressDepsFromEnv()),
      egress: egressOf(config),
      record: async (report) => saveEgressReport(await db(), report),
      intervalMs: config.EV_EGRESS_CHECK_INTERVAL_MS,
      pauses: () => env().EV_EGRESS_POLICY === 'pause',
    });
    shared.value = { config, monitor };
  }
  return shared.value.monitor;
}

/** The worker is not gated when the policy is off or production runs on the sandbox engine. */
function watched(): boolean {
  const config = env();
  return config.EV_EGRESS_POLICY !== 'off' && config.EV_PRODUCTION_ENGINE !== 'sandbox';
}

/**
 * Why production probing must not start, or null: the SMTP engine with the placeholder sender
 * identity, unless EV_ALLOW_PLACEHOLDER_IDENTITY. Single checks answer it as an error, workers
 * hold production jobs, the egress check fails.
 */
export function identityRefusal(config: Env = env()): string | null {
  if (config.EV_PRODUCTION_ENGINE === 'sandbox' || config.EV_ALLOW_PLACEHOLDER_IDENTITY) return null;
  const problem = placeholderIdentity(egressOf(config).heloName, config.EV_MAIL_FROM);
  return problem && `Production probing is off: ${problem}. ${IDENTITY_REMEDY}`;
}

/**
 * Whether the worker should leave production chunks alone right now: with a refused sender
 * identity, and with EV_EGRESS_POLICY=pause until a check has shown port 25 working. Never waits
 * for a check.
 */
export function productionPaused(): boolean {
  if (identityRefusal()) return true;
  if (!watched() || env().EV_EGRESS_POLICY !== 'pause') return false;
  const monitor = egressMonitor();
  monitor.touch();
  const report = monitor.current();
  return report === null || port25Failed(report);
}

/** The worker is about to probe mail servers: keep the check (and its log line) current. */
export function noteProductionWork(): void {
  if (watched()) egressMonitor().touch();
}

export interface EgressStatus extends EgressReport {
  /** EV_EGRESS_POLICY */
  policy: Env['EV_EGRESS_POLICY'];
  /** whether workers with this configuration hold production jobs right now */
  productionPaused: boolean;
  /** every egress of the fleet as last checked by its own processes (this one's included) */
  egresses: EgressReport[];
}

/** GET /v1/egress: the cached report (checking when there is none, it is stale, or on refresh). */
export async function egressStatus({ refresh = false } = {}): Promise<EgressStatus> {
  const config = env();
  // servers that refused postmaster@ too, as this process met them (refusals.ts)
  const report = withRefusals(await egressMonitor().get({ refresh }));
  const paused = identityRefusal(config) !== null || (config.EV_EGRESS_POLICY === 'pause' && config.EV_PRODUCTION_ENGINE !== 'sandbox' && port25Failed(report));
  // the fleet's reports are a view beside this process's own: a database hiccup leaves just this one
  const egresses = await db()
    .then(fleetEgressReports)
    .catch(() => [report]);
  return { ...report, policy: config.EV_EGRESS_POLICY, productionPaused: paused, egresses };
}
