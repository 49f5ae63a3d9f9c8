'use client';

import Link from 'next/link';
import { useCancelJob, useJobStatus } from '@/lib/client/hooks';
import { useCan } from '@/lib/client/team-hooks';
import type { JobStatus } from '@/lib/sdk/src/index';
import { Button, Card, ErrorNote, ProgressBar, formatDate, linkButton, number } from '../ui';
import { EgressBanner } from '../settings/Egress';
import { Downloads, downloadUrl } from './Downloads';
import { JobStateBadge } from './JobStateBadge';
import { ListInsights } from './ListInsights';
import { MonitorPanel } from './MonitorPanel';
import { ResultsTable } from './ResultsTable';
import { SummaryChart } from './SummaryChart';
import { isOpen } from '@/lib/jobs/states';

export function JobView({ jobId }: { jobId: string }) {
  const job = useJobStatus(jobId);
  const cancel = useCancelJob();
  const status = job.data?.status;
  const canRun = useCan('member');

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <Link href="/lists" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
            ← All lists
          </Link>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight text-slate-900">
            <span className="truncate">{job.data?.filename ?? `Job ${jobId}`}</span>
            {status && <JobStateBadge status={status} />}
          </h1>
          {job.data && (
            <p className="mt-1 text-sm text-slate-500">
              Started {formatDate(job.data.created_at)}
              {job.data.data?.completed_at && ` · finished ${formatDate(job.data.data.completed_at)}`}
            </p>
          )}
        </div>
        {canRun && isOpen(status) && (
          <Button variant="danger" onClick={() => cancel.mutate(jobId)} disabled={cancel.isPending}>
            Cancel job
          </Button>
        )}
      </div>
      <ErrorNote error={job.error ?? cancel.error} />
      {canRun && isOpen(status) && <EgressBanner />}

      {job.isPending && <p className="text-sm text-slate-500">Loading job…</p>}

      {job.data && status !== 'completed' && (
        <Card title={status === 'failed' ? 'The job failed' : status === 'cancelled' ? 'The job was cancelled' : 'Verifying…'}>
          <div className="flex items-center justify-between pb-2 text-sm">
            <span className="text-slate-600">
              {number(job.data.processed_emails)} of {number(job.data.total_emails)} addresses checked
            </span>
            <span className="font-semibold tabular-nums text-slate-900" data-testid="job-progress">
              {job.data.progress}%
            </span>
          </div>
          <ProgressBar value={job.data.progress} label="Job progress" />
          <WaitingNote job={job.data} />
          {job.data.processed_emails > 0 && (
            <div className="mt-4 flex flex-wrap items-center gap-3">
              <a href={downloadUrl(jobId, job.data.sandbox, { partial: 'true' })} download className={linkButton} data-testid="download-partial">
                Download results so far
              </a>
              <span className="text-xs text-slate-500">
                A partial file: the {number(job.data.processed_emails)} rows answered until now, marked “-partial” in its name.
              </span>
            </div>
          )}
        </Card>
      )}

      {job.data?.data && (
        <>
          <Card
            title="Summary"
            description={
              job.data.duplicate_emails
                ? `${number(job.data.total_emails - job.data.duplicate_emails)} distinct addresses verified · ${number(job.data.duplicate_emails)} duplicate rows answered with their first occurrence`
                : `${number(job.data.total_emails)} addresses verified`
            }
            actions={
              <span className="text-sm font-semibold text-emerald-700" data-testid="job-progress">
                100%
              </span>
            }
          >
            <SummaryChart summary={job.data.data.summary} />
            <ListInsights summary={job.data.data.summary} providers={job.data.data.providers} />
          </Card>
          <MonitorPanel job={job.data} />
          <Card
            title="Download"
            description="Every row of your file, your columns first, then the verdict columns (and duplicate_of, the row of a duplicate's first occurrence)."
          >
            <Downloads jobId={jobId} sandbox={job.data.sandbox} />
          </Card>
          <Card title="Results">
            <ResultsTable jobId={jobId} />
          </Card>
        </>
      )}
    </div>
  );
}

/** "12 addresses wait for their servers to accept another try, next at 14:05": greylisting made visible. */
function WaitingNote({ job }: { job: JobStatus }) {
  const waiting = job.waiting;
  if (!waiting) return null;
  const at = new Date(waiting.next_try_at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return (
    <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="job-waiting">
      {number(waiting.addresses)} {waiting.addresses === 1 ? 'address waits for its server' : 'addresses wait for their servers'} to accept another try, next at{' '}
      {at}. Mail servers that greylist refuse a first try on purpose; the answer comes on a later one.
    </p>
  );
}
