'use client';

import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useCan } from '@/lib/client/team-hooks';
import { useCreateMonitor, useDeleteMonitor, useMonitor, useMonitors, useUpdateMonitor } from '@/lib/client/monitor-hooks';
import type { JobStatus, MonitorRun } from '@/lib/sdk/src/index';
import { Button, Card, ErrorNote, cx, formatDate, inputClass, labelClass, linkButton, number, selectClass } from '../ui';
import { verdicts } from '../verdict';
import { downloadUrl } from './Downloads';

const INTERVALS = [30, 60, 90];

/**
 * A completed list's monitor (docs/lists.md, "Monitors"): set it to be re-verified every 30, 60, 90
 * or a custom number of days; then its state, pause/resume/delete, and the list's health across runs.
 * A run's page links back to its list and offers the rows that changed.
 */
export function MonitorPanel({ job }: { job: JobStatus }) {
  const canRun = useCan('member');
  if (job.monitor_id) return <RunNote job={job} />;
  // setting up, pausing and deleting a monitor needs the member role (docs/teams.md)
  return canRun ? <ListMonitor job={job} /> : null;
}

function RunNote({ job }: { job: JobStatus }) {
  return (
    <Card title="A monitor's run" description="This list was verified again on its schedule; compare it with the run before.">
      <div className="flex flex-wrap items-center gap-3">
        <a href={downloadUrl(job.job_id, job.sandbox, { changed: 'true' })} download className={linkButton} data-testid="download-changed">
          Download the changed rows
        </a>
        {job.previous_job_id && (
          <Link href={`/jobs/${job.previous_job_id}`} className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
            The run before →
          </Link>
        )}
      </div>
    </Card>
  );
}

function ListMonitor({ job }: { job: JobStatus }) {
  const monitors = useMonitors();
  const found = monitors.data?.find((m) => m.list_id === job.job_id);
  const detail = useMonitor(found?.id);
  const create = useCreateMonitor();
  const update = useUpdateMonitor();
  const remove = useDeleteMonitor();
  const [choice, setChoice] = useState('30');
  const [custom, setCustom] = useState('');

  function onCreate(event: FormEvent) {
    event.preventDefault();
    const days = choice === 'custom' ? Number(custom) : Number(choice);
    create.mutate({ list_id: job.job_id, interval_days: days });
  }

  if (monitors.isPending) return null;
  if (!found) {
    return (
      <Card
        title="Keep this list fresh"
        description="Lists decay by a few percent a month. Re-verify this one on a schedule: each run is charged like a list, and you are told what changed (list.changed webhook)."
      >
        <form onSubmit={onCreate} className="flex flex-wrap items-end gap-2" data-testid="monitor-form">
          <div>
            <label htmlFor="monitor-interval" className={labelClass}>
              Re-verify every
            </label>
            <select id="monitor-interval" value={choice} onChange={(e) => setChoice(e.target.value)} className={selectClass}>
              {INTERVALS.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
              <option value="custom">Custom…</option>
            </select>
          </div>
          {choice === 'custom' && (
            <div>
              <label htmlFor="monitor-days" className={labelClass}>
                Days
              </label>
              <input
                id="monitor-days"
                type="number"
                min={1}
                max={365}
                required
                value={custom}
                onChange={(e) => setCustom(e.target.value)}
                className={inputClass}
              />
            </div>
          )}
          <Button type="submit" disabled={create.isPending}>
            Monitor this list
          </Button>
        </form>
        <ErrorNote error={create.error ?? monitors.error} />
      </Card>
    );
  }

  const runs = detail.data?.runs ?? [];
  return (
    <Card
      title={`Re-verified every ${found.interval_days} days`}
      description={found.paused ? 'Paused: no run starts until you resume it.' : `Next run ${formatDate(found.next_run_at)}.`}
      actions={
        <div className="flex gap-2">
          <Button variant="secondary" disabled={update.isPending} onClick={() => update.mutate({ id: found.id, change: { paused: !found.paused } })}>
            {found.paused ? 'Resume' : 'Pause'}
          </Button>
          <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(found.id)}>
            Stop monitoring
          </Button>
        </div>
      }
    >
      {found.last_skip_reason && (
        <p className="mb-4 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
          A run was skipped {formatDate(found.last_skipped_at)}:{' '}
          {found.last_skip_reason === 'insufficient_credits' ? 'not enough credits' : found.last_skip_reason.replaceAll('_', ' ')}.
        </p>
      )}
      <ErrorNote error={update.error ?? remove.error ?? detail.error} />
      <HealthChart runs={runs} sandbox={job.sandbox} />
    </Card>
  );
}

/** The list's health: the share of each verdict per run, oldest first, with the rows that changed. */
function HealthChart({ runs, sandbox }: { runs: MonitorRun[]; sandbox: boolean }) {
  if (runs.length === 0) return null;
  return (
    <figure data-testid="health-chart">
      <figcaption className="mb-3 text-sm font-medium text-slate-700">List health across runs</figcaption>
      <ol className="space-y-2">
        {runs.map((run, index) => {
          const total = verdicts.reduce((sum, v) => sum + run[v.key], 0) || 1;
          return (
            <li key={run.job_id} className="grid grid-cols-[8rem_1fr_10rem] items-center gap-3 text-sm">
              <Link href={`/jobs/${run.job_id}`} className="truncate text-indigo-600 hover:text-indigo-500">
                {index === 0 ? 'The list' : formatDate(run.started_at)}
              </Link>
              <div
                className="flex h-3 w-full overflow-hidden rounded-full bg-slate-100"
                role="img"
                aria-label={verdicts.map((v) => `${v.label} ${Math.round((run[v.key] / total) * 100)}%`).join(', ')}
              >
                {verdicts.map((v) =>
                  run[v.key] ? <div key={v.key} className={cx(v.color, 'h-full')} style={{ width: `${(run[v.key] / total) * 100}%` }} /> : null,
                )}
              </div>
              <span className="text-slate-600">
                {run.status !== 'completed' ? (
                  run.status
                ) : run.changed_emails === null ? (
                  `${number(total)} verified`
                ) : (
                  <a href={downloadUrl(run.job_id, sandbox, { changed: 'true' })} download className="text-indigo-600 hover:text-indigo-500">
                    {number(run.changed_emails)} changed
                  </a>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </figure>
  );
}
