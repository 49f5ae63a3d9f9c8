import * as req from '../schemas';
import * as res from '../responses';
import { env } from '../../config/env';
import { downloadColumnsText } from '../../jobs/export/columns';
import { operation, VERIFY_ERRORS } from '../operation';

/** Lists as jobs and the history of checks (docs/lists.md). */

export const submitBulk = operation({
  method: 'post',
  path: '/v1/verify/bulk',
  operationId: 'submitBulk',
  tag: 'Bulk',
  scope: 'verify',
  role: 'member',
  summary: 'Submit a list',
  description:
    '10 or fewer addresses are verified at once; more are queued as a job. In sandbox mode the error triggers apply only when the request holds a single address.',
  body: req.bulkBody,
  ok: [200, res.bulkSubmitted],
  errors: VERIFY_ERRORS,
  sandboxTriggers: true,
  maxBodyBytes: () => env().EV_MAX_BODY_BYTES,
  heavy: true,
});

export const listJobs = operation({
  method: 'get',
  path: '/v1/verify/bulk',
  operationId: 'listJobs',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: 'List jobs',
  description: "The caller's jobs in the request's mode, newest first.",
  query: req.listQuery,
  ok: [200, res.jobList],
  errors: [400],
});

export const jobStatus = operation({
  method: 'get',
  path: '/v1/verify/bulk/status/{jobId}',
  operationId: 'jobStatus',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: "A job's progress and results",
  description: 'A job fails only when one of its chunks could not be finished in 10 claims; a failed job refunds what it did not use and sends `bulk.failed`.',
  query: req.statusQuery,
  ok: [200, res.jobStatus],
  errors: [400, 404],
});

export const downloadJob = operation({
  method: 'get',
  path: '/v1/verify/bulk/download/{jobId}',
  operationId: 'downloadJob',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'viewer',
  summary: "Download a job's results (CSV or Excel)",
  description: `Streamed. ${downloadColumnsText()} Cells beginning with \`= + - @\`, tab or CR are prefixed with \`'\`. 409 \`job_not_completed\` until the job has completed.`,
  query: req.downloadQuery,
  ok: [200, 'csv'],
  errors: [400, 404, 409],
  heavy: true,
});

export const cancelJob = operation({
  method: 'delete',
  path: '/v1/verify/bulk/{jobId}',
  operationId: 'cancelJob',
  tag: 'Bulk',
  scope: 'jobs',
  role: 'member',
  summary: 'Cancel a queued or processing job',
  description: 'Refunds what it did not use. A job that has ended answers 409 `conflict`.',
  ok: [200, res.jobCancelled],
  errors: [404, 409],
});

export const listHistory = operation({
  method: 'get',
  path: '/v1/history',
  operationId: 'listHistory',
  tag: 'History',
  scope: 'history',
  role: 'viewer',
  summary: 'Past verifications',
  description: 'Single checks and bulk items, newest first.',
  query: req.historyQuery,
  ok: [200, res.historyPage],
  errors: [400],
});
