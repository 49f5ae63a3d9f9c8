'use client';

import Link from 'next/link';
import { useState } from 'react';
import { useJobStatus, useJobs } from '@/lib/client/hooks';
import type { JobListItem } from '@/lib/sdk/src/index';
import { Button, Card, Empty, ErrorNote, ProgressBar, formatDate, number } from '../ui';
import { JobStateBadge } from '../jobs/JobStateBadge';
import { isOpen } from '@/lib/jobs/states';

/** The caller's jobs, newest first; each unfinished one polls its own status until it is done. */
export function JobList() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const jobs = useJobs(cursors[cursors.length - 1]);
  const page = jobs.data?.data ?? [];
  return (
    <Card title="Jobs" description="Progress updates live while a list is being verified.">
      <ErrorNote error={jobs.error} />
      {jobs.isPending ? (
        <p className="text-sm text-slate-500">Loading jobs…</p>
      ) : page.length === 0 ? (
        <Empty>No lists yet. Drop a file above to verify your first one.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100" aria-label="Jobs">
          {page.map((job) => (
            <JobRow key={job.job_id} job={job} />
          ))}
        </ul>
      )}
      {(cursors.length > 1 || jobs.data?.next_cursor) && (
        <div className="mt-4 flex justify-end gap-2">
          <Button variant="secondary" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </Button>
          <Button variant="secondary" disabled={!jobs.data?.next_cursor} onClick={() => setCursors((c) => [...c, jobs.data?.next_cursor ?? undefined])}>
            Older
          </Button>
        </div>
      )}
    </Card>
  );
}

function JobRow({ job }: { job: JobListItem }) {
  const live = useJobStatus(job.job_id, isOpen(job.status));
  const status = live.data?.status ?? job.status;
  const progress = live.data?.progress ?? job.progress;
  const processed = live.data?.processed_emails ?? job.processed_emails;
  return (
    <li className="py-3" data-testid="job-row">
      <Link href={`/jobs/${job.job_id}`} className="group block rounded-lg p-2 -m-2 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div className="min-w-0">
            <p className="truncate font-medium text-slate-900 group-hover:text-indigo-700">{job.filename || job.job_id}</p>
            <p className="text-xs text-slate-500">
              {formatDate(job.created_at)} · {number(job.total_emails)} addresses
              {job.sandbox && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-800">sandbox</span>}
            </p>
          </div>
          <JobStateBadge status={status} />
        </div>
        {status !== 'cancelled' && status !== 'failed' && (
          <div className="mt-2 flex items-center gap-3">
            <ProgressBar value={progress} label={`Progress of ${job.filename || job.job_id}`} />
            <span className="w-28 shrink-0 text-right text-xs tabular-nums text-slate-500">
              {number(processed)} / {number(job.total_emails)}
            </span>
          </div>
        )}
      </Link>
    </li>
  );
}
