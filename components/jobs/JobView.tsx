'use client';

import Link from 'next/link';
import { useCancelJob, useJobStatus } from '@/lib/client/hooks';
import { Button, Card, ErrorNote, ProgressBar, formatDate, linkButton, number, primaryLinkButton } from '../ui';
import { EgressBanner } from '../settings/Egress';
import { verdicts } from '../verdict';
import { JobStateBadge } from './JobStateBadge';
import { ResultsTable } from './ResultsTable';
import { SummaryChart } from './SummaryChart';

export function JobView({ jobId }: { jobId: string }) {
  const job = useJobStatus(jobId);
  const cancel = useCancelJob();
  const status = job.data?.status;
  const download = (filter?: string) => `/v1/verify/bulk/download/${encodeURIComponent(jobId)}${filter ? `?filter=${filter}` : ''}`;

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
        {(status === 'queued' || status === 'processing') && (
          <Button variant="danger" onClick={() => cancel.mutate(jobId)} disabled={cancel.isPending}>
            Cancel job
          </Button>
        )}
      </div>
      <ErrorNote error={job.error ?? cancel.error} />
      {(status === 'queued' || status === 'processing') && <EgressBanner />}

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
            actions={<span className="text-sm font-semibold text-emerald-700" data-testid="job-progress">100%</span>}
          >
            <SummaryChart summary={job.data.data.summary} />
          </Card>
          <Card title="Download" description="CSV with your original columns first, then the verdict columns.">
            <div className="flex flex-wrap gap-2">
              <a href={download()} download className={primaryLinkButton}>
                All rows
              </a>
              {verdicts.map((v) => (
                <a key={v.key} href={download(v.key)} download className={linkButton}>
                  {v.label} only
                </a>
              ))}
            </div>
          </Card>
          <Card title="Results">
            <ResultsTable jobId={jobId} />
          </Card>
        </>
      )}
    </div>
  );
}
