import { sleep, type RequestOptions, type Transport } from './client.ts';
import type { Bucket, BulkInput, BulkSubmitted, JobCancelled, JobListItem, JobPage, JobStatus } from './job-types.ts';
import { pages } from './pages.ts';

const path = (id: string) => encodeURIComponent(id);

export interface WaitOptions extends RequestOptions {
  /** called after every poll */
  onProgress?: (status: JobStatus) => void;
  /** between polls; default 1,000 ms */
  intervalMs?: number;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** Bulk jobs: POST/GET/DELETE /v1/verify/bulk… */
export class Bulk {
  constructor(private readonly t: Transport) {}

  /** Submits addresses (or CSV rows); 10 or fewer are answered at once (`instant: true`). */
  submit(input: string[] | BulkInput, options?: RequestOptions): Promise<BulkSubmitted> {
    return this.t.json('POST', '/v1/verify/bulk', { ...options, body: Array.isArray(input) ? { emails: input } : input });
  }

  /** Progress; when completed, `data` holds the summary and one page of results. */
  status(jobId: string, options: RequestOptions & { limit?: number; offset?: number; filter?: Bucket } = {}): Promise<JobStatus> {
    const { limit, offset, filter, ...rest } = options;
    return this.t.json('GET', `/v1/verify/bulk/status/${path(jobId)}`, { ...rest, query: { limit, offset, filter } });
  }

  /** Polls until the job has completed, failed or been cancelled, and returns that status. */
  async wait(jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const { onProgress, intervalMs = 1000, ...rest } = options;
    for (;;) {
      const status = await this.status(jobId, rest);
      onProgress?.(status);
      if (ENDED.has(status.status)) return status;
      await sleep(intervalMs, rest.signal);
    }
  }

  /** The results as CSV, streamed (409 ConflictError until the job has completed). */
  download(jobId: string, options: RequestOptions & { filter?: Bucket } = {}): Promise<ReadableStream<Uint8Array>> {
    const { filter, ...rest } = options;
    return this.t.stream(`/v1/verify/bulk/download/${path(jobId)}`, { ...rest, query: { filter } });
  }

  /** The account's jobs in this client's mode, newest first, page after page. */
  list(options: RequestOptions & { pageSize?: number } = {}): AsyncGenerator<JobListItem, void, undefined> {
    const { pageSize, ...rest } = options;
    return pages((cursor) => this.page({ ...rest, limit: pageSize, cursor }));
  }

  /** One page of `list` (a table with its own next button); `cursor` is the last page's `next_cursor`. */
  page(options: RequestOptions & { limit?: number; cursor?: string } = {}): Promise<JobPage> {
    const { limit, cursor, ...rest } = options;
    return this.t.json('GET', '/v1/verify/bulk', { ...rest, query: { limit, cursor } });
  }

  cancel(jobId: string, options?: RequestOptions): Promise<JobCancelled> {
    return this.t.json('DELETE', `/v1/verify/bulk/${path(jobId)}`, options);
  }
}
