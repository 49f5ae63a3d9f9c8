import type { RequestOptions, Transport } from './client.ts';
import type { Monitor, MonitorCreated, MonitorDeleted, MonitorDetail, MonitorInput, MonitorList, MonitorUpdate, ReuseSettings } from './monitor-types.ts';

/** Lists re-verified on a schedule: /v1/monitors. */
export class Monitors {
  constructor(private readonly t: Transport) {}

  async list(options?: RequestOptions): Promise<Monitor[]> {
    return (await this.t.json<MonitorList>('GET', '/v1/monitors', options)).data;
  }

  /** Re-verifies a completed list every `interval_days`. */
  create(input: MonitorInput, options?: RequestOptions): Promise<MonitorCreated> {
    return this.t.json('POST', '/v1/monitors', { ...options, body: input });
  }

  /** The monitor with its list's health: the list and every run, with what changed. */
  get(id: string, options?: RequestOptions): Promise<MonitorDetail> {
    return this.t.json('GET', `/v1/monitors/${encodeURIComponent(id)}`, options);
  }

  update(id: string, change: MonitorUpdate, options?: RequestOptions): Promise<MonitorCreated> {
    return this.t.json('PATCH', `/v1/monitors/${encodeURIComponent(id)}`, { ...options, body: change });
  }

  pause(id: string, options?: RequestOptions): Promise<MonitorCreated> {
    return this.update(id, { paused: true }, options);
  }

  resume(id: string, options?: RequestOptions): Promise<MonitorCreated> {
    return this.update(id, { paused: false }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<MonitorDeleted> {
    return this.t.json('DELETE', `/v1/monitors/${encodeURIComponent(id)}`, options);
  }

  /** A run's changed rows only, as CSV with the upload's columns. */
  changedRows(jobId: string, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    return this.t.stream(`/v1/verify/bulk/download/${encodeURIComponent(jobId)}`, { ...options, query: { changed: 'true' } });
  }
}

export function reuse(t: Transport, options?: RequestOptions): Promise<ReuseSettings> {
  return t.json('GET', '/v1/account/reuse', options);
}

/** Turns the reuse of fresh results on with a window of `days`, or off (null). */
export function setReuse(t: Transport, days: number | null, options?: RequestOptions): Promise<ReuseSettings> {
  return t.json('POST', '/v1/account/reuse', { ...options, body: { days } });
}
