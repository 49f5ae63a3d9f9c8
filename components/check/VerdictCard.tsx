import type { SingleResult } from '@/lib/sdk/src/index';
import { cx } from '../ui';
import { RiskBadge, bucketOf, verdicts } from '../verdict';

const headline: Record<string, string> = {
  deliverable: 'Deliverable',
  undeliverable: 'Undeliverable',
  risky: 'Risky',
  unknown: 'Unknown',
};

/** The verdict first, then the facts it rests on: checks passed, flags, and the mail server's reply. */
export function VerdictCard({ result }: { result: SingleResult }) {
  const bucket = bucketOf(result.status, result.deliverable);
  const tone = verdicts.find((v) => v.key === bucket)!;
  const checks = [
    ['Syntax', result.details.syntax_valid],
    ['Domain exists', result.details.domain_exists],
    ['Mail server (MX)', result.details.mx_record],
    ['Mailbox accepts (SMTP)', result.details.smtp_valid],
  ] as const;
  const flags = [
    ['Disposable', result.disposable],
    ['Role address', result.role],
    ['Free provider', result.free],
    ['Catch-all domain', result.catch_all],
  ] as const;
  const evidence = result.evidence;

  return (
    <article
      className="overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-slate-200"
      data-testid="verdict-card"
      aria-label={`Verdict for ${result.email}`}
    >
      <div className={cx('h-1.5', tone.color)} />
      <div className="space-y-6 p-5">
        <header className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <p className="truncate text-sm text-slate-500">{result.email}</p>
            <h2 className={cx('text-2xl font-bold', tone.text)} data-testid="verdict">
              {headline[bucket]}
            </h2>
            <p className="mt-1 text-sm text-slate-600">
              {result.reason.replaceAll('_', ' ')} · status <span className="font-medium">{result.status}</span> · risk <RiskBadge risk={result.risk_level} />
            </p>
          </div>
          <div className="text-right">
            <p className="text-3xl font-bold tabular-nums text-slate-900">{result.score ?? result.confidence}</p>
            <p className="text-xs text-slate-500">score · {result.confidence}% confident</p>
          </div>
        </header>
        {result.did_you_mean && (
          <p className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
            Did you mean <strong>{result.did_you_mean}</strong>?
          </p>
        )}
        <div className="grid gap-6 sm:grid-cols-2">
          <section>
            <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Checks</h3>
            <ul className="space-y-1.5">
              {checks.map(([label, passed]) => (
                <li key={label} className="flex items-center gap-2 text-sm">
                  <span
                    aria-hidden
                    className={cx(
                      'flex h-5 w-5 items-center justify-center rounded-full text-xs font-bold',
                      passed ? 'bg-emerald-100 text-emerald-700' : 'bg-rose-100 text-rose-700',
                    )}
                  >
                    {passed ? '✓' : '✕'}
                  </span>
                  <span className="text-slate-700">{label}</span>
                  <span className="sr-only">{passed ? 'passed' : 'failed'}</span>
                </li>
              ))}
            </ul>
          </section>
          <section>
            <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Flags</h3>
            <ul className="flex flex-wrap gap-2">
              {flags.map(([label, on]) => (
                <li
                  key={label}
                  className={cx(
                    'rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset',
                    on ? 'bg-amber-50 text-amber-800 ring-amber-600/20' : 'bg-slate-50 text-slate-400 ring-slate-200 line-through',
                  )}
                >
                  {label}
                  <span className="sr-only">: {on ? 'yes' : 'no'}</span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <section>
          <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Evidence</h3>
          <dl className="grid grid-cols-1 gap-x-6 gap-y-2 rounded-xl bg-slate-50 p-4 text-sm ring-1 ring-slate-200 sm:grid-cols-2">
            <Fact label="Provider" value={result.provider} />
            <Fact label="Mailbox provider" value={result.mailbox_provider} />
            <Fact label="Why" value={result.sub_reason?.replaceAll('_', ' ')} />
            <Fact label="Mail server" value={evidence?.mx_host} />
            <Fact
              label="SMTP reply"
              value={evidence?.smtp_code != null ? `${evidence.smtp_code}${evidence.smtp_enhanced_code ? ` ${evidence.smtp_enhanced_code}` : ''}` : null}
            />
            <Fact label="Attempts" value={evidence?.attempts} />
            <Fact label="STARTTLS" value={evidence ? (evidence.tls ? 'yes' : 'no') : null} />
            <Fact label="Response time" value={`${result.response_time} ms`} />
            <Fact label="From cache" value={result.cached ? 'yes' : 'no'} />
            {evidence?.dns_failure && (
              <div className="sm:col-span-2">
                <dt className="text-xs text-slate-500">DNS said</dt>
                <dd className="mt-0.5 break-words font-mono text-xs text-slate-800">{evidence.dns_failure}</dd>
              </div>
            )}
            {evidence?.smtp_failure && (
              <div className="sm:col-span-2">
                <dt className="text-xs text-slate-500">Conversation ended without an answer</dt>
                <dd className="mt-0.5 break-words font-mono text-xs text-slate-800">{evidence.smtp_failure}</dd>
              </div>
            )}
            {evidence?.smtp_message && (
              <div className="sm:col-span-2">
                <dt className="text-xs text-slate-500">Server said</dt>
                <dd className="mt-0.5 break-words font-mono text-xs text-slate-800">{evidence.smtp_message}</dd>
              </div>
            )}
          </dl>
        </section>
      </div>
    </article>
  );
}

function Fact({ label, value }: { label: string; value: string | number | null | undefined }) {
  return (
    <div className="flex justify-between gap-4 sm:block">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="truncate font-medium text-slate-800">{value ?? '—'}</dd>
    </div>
  );
}
