import { Transport, type EmailVerifierOptions, type RequestOptions } from './client.ts';
import { changePassword, egress, organisation, signOutEverywhere, updateOrganisation } from './account.ts';
import type { Account, AccountMessage, OrganisationSettings, OrganisationUpdateInput, PasswordChangeInput } from './account-types.ts';
import type { EgressReport } from './egress-types.ts';
import type { SingleResult, VerifyResult } from './verdict-types.ts';
import { Bulk } from './bulk.ts';
import { History } from './history.ts';
import { Webhooks } from './webhooks.ts';
import { Keys } from './keys.ts';
import { Rules, quota, setQuotaWarning, usage, usageCsv, type UsageRange } from './rules.ts';
import type { QuotaState, UsageReport } from './rules-types.ts';
import { eraseAddress, exportData, retention, setRetention } from './data.ts';
import type { AddressErased, RetentionState } from './data-types.ts';
import { Monitors, reuse, setReuse } from './monitors.ts';
import { Invitations, Members } from './teams.ts';
import type { ReuseSettings } from './monitor-types.ts';
import { auditCsv, auditPage } from './audit.ts';
import type { AuditEvent, AuditFilter, AuditPage } from './audit-types.ts';
import { TwoFactor } from './two-factor.ts';
import { pages } from './pages.ts';

export * from './errors.ts';
export * from './verdict-types.ts';
export * from './job-types.ts';
export * from './webhook-types.ts';
export * from './key-types.ts';
export * from './account-types.ts';
export * from './egress-types.ts';
export * from './monitor-types.ts';
export * from './rules-types.ts';
export * from './data-types.ts';
export * from './audit-types.ts';
export type { TwoFactorDisabled, TwoFactorDisableInput, TwoFactorEnabled, TwoFactorEnrolment, TwoFactorState } from './two-factor.ts';
export * from './team-types.ts';
export { rulesFromRows, type UsageRange } from './rules.ts';
export { verifyWebhook, type HeaderSource, type VerifyWebhookOptions } from './webhook.ts';
export type { EmailVerifierOptions, RequestOptions, RetryInfo } from './client.ts';
export type { WaitOptions } from './bulk.ts';

/**
 * The email verifier API. Every call retries 429 (after Retry-After), 5xx, time-outs and network
 * errors with exponential back-off and jitter, sends one Idempotency-Key per POST across its
 * retries, and throws the typed errors of ./errors.ts.
 */
export class EmailVerifier {
  readonly bulk: Bulk;
  readonly history: History;
  readonly webhooks: Webhooks;
  readonly rules: Rules;
  readonly monitors: Monitors;
  readonly keys: Keys;
  /** the signed-in person's two-factor sign-in (dashboard sessions only) */
  readonly twoFactor: TwoFactor;
  readonly members: Members;
  readonly invitations: Invitations;
  private readonly transport: Transport;

  constructor(options: EmailVerifierOptions) {
    this.transport = new Transport(options);
    this.bulk = new Bulk(this.transport);
    this.history = new History(this.transport);
    this.webhooks = new Webhooks(this.transport);
    this.rules = new Rules(this.transport);
    this.monitors = new Monitors(this.transport);
    this.keys = new Keys(this.transport);
    this.twoFactor = new TwoFactor(this.transport);
    this.members = new Members(this.transport);
    this.invitations = new Invitations(this.transport);
  }

  get sandbox(): boolean {
    return this.transport.sandbox;
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** POST /v1/verify: `email`, `status`, `score`, `is_disposable` and the rest. */
  verify(email: string, options?: RequestOptions): Promise<VerifyResult> {
    return this.transport.json('POST', '/v1/verify', { ...options, body: { email } });
  }

  /** POST /v1/verify/single. */
  verifySingle(email: string, options?: RequestOptions): Promise<SingleResult> {
    return this.transport.json('POST', '/v1/verify/single', { ...options, body: { email } });
  }

  /** Plan, today's free quota and credits. */
  account(options?: RequestOptions): Promise<Account> {
    return this.transport.json('GET', '/v1/account', options);
  }

  /** Per UTC day and mode: checks by verdict bucket, charged, refunded, credits granted. */
  usage(range?: UsageRange & RequestOptions): Promise<UsageReport> {
    return usage(this.transport, range);
  }

  /** The same rows as CSV text. */
  usageCsv(range?: UsageRange & RequestOptions): Promise<string> {
    return usageCsv(this.transport, range);
  }

  /** Credits, today's free checks and the quota.warning threshold. */
  quota(options?: RequestOptions): Promise<QuotaState> {
    return quota(this.transport, options);
  }

  /** Whether fresh results are reused, and their window in days. */
  reuse(options?: RequestOptions): Promise<ReuseSettings> {
    return reuse(this.transport, options);
  }

  /** Reuses results verified within `days` (not charged again), or stops (null). */
  setReuse(days: number | null, options?: RequestOptions): Promise<ReuseSettings> {
    return setReuse(this.transport, days, options);
  }

  /** Sets the quota.warning threshold (null: the installation's default). */
  setQuotaWarning(warningBelow: number | null, options?: RequestOptions): Promise<QuotaState> {
    return setQuotaWarning(this.transport, warningBelow, options);
  }

  /** How long the account's data is kept, the installation's bounds and the lists deleted within 7 days. */
  retention(options?: RequestOptions): Promise<RetentionState> {
    return retention(this.transport, options);
  }

  /** Keeps data this many days (at most the installation's maximum); null: the installation's default. */
  setRetention(days: number | null, options?: RequestOptions): Promise<RetentionState> {
    return setRetention(this.transport, days, options);
  }

  /** Erases one address from every store of the account; answers what was removed. */
  eraseAddress(email: string, options?: RequestOptions): Promise<AddressErased> {
    return eraseAddress(this.transport, email, options);
  }

  /** The audit log (admins): newest first, page after page, filtered by actor, action and time. */
  auditEvents(options: AuditFilter & RequestOptions & { pageSize?: number } = {}): AsyncGenerator<AuditEvent, void, undefined> {
    const { pageSize, ...rest } = options;
    return pages((cursor) => auditPage(this.transport, { ...rest, limit: pageSize, cursor }));
  }

  /** One page of `auditEvents`; `cursor` is the last page's `next_cursor`. */
  auditPage(options: AuditFilter & RequestOptions & { limit?: number; cursor?: string } = {}): Promise<AuditPage> {
    return auditPage(this.transport, options);
  }

  /** Every row the filter selects, as CSV text. */
  auditCsv(options: AuditFilter & RequestOptions = {}): Promise<string> {
    return auditCsv(this.transport, options);
  }

  /** All the account's data as a zip of CSV and JSON files, streamed. */
  exportData(options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    return exportData(this.transport, options);
  }

  /** The installation's egress health: port 25, reverse DNS, blocklists, sender identity. */
  egress(options?: RequestOptions & { refresh?: boolean }): Promise<EgressReport> {
    return egress(this.transport, options);
  }

  /** A dashboard session (`session: true`) only; every other session is signed out. */
  changePassword(input: PasswordChangeInput, options?: RequestOptions): Promise<AccountMessage> {
    return changePassword(this.transport, input, options);
  }

  signOutEverywhere(options?: RequestOptions): Promise<AccountMessage> {
    return signOutEverywhere(this.transport, options);
  }

  /** The name and single sign-on settings of the organisation this client acts for. */
  organisation(options?: RequestOptions): Promise<OrganisationSettings> {
    return organisation(this.transport, options);
  }

  /** Owners: rename the organisation or change its single sign-on (docs/security.md, "Single sign-on"). */
  updateOrganisation(input: OrganisationUpdateInput, options?: RequestOptions): Promise<OrganisationSettings> {
    return updateOrganisation(this.transport, input, options);
  }
}
