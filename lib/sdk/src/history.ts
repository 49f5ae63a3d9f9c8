import type { RequestOptions, Transport } from './client.ts';
import type { HistoryPage, HistoryRecord } from './verdict-types.ts';
import { pages } from './pages.ts';

/** Past verifications: GET /v1/history. */
export class History {
  constructor(private readonly t: Transport) {}

  /** Past verifications, newest first, page after page; `sandbox` defaults to this client's mode. */
  list(options: RequestOptions & { pageSize?: number; email?: string; sandbox?: boolean } = {}): AsyncGenerator<HistoryRecord, void, undefined> {
    const { pageSize, ...rest } = options;
    return pages((cursor) => this.page({ ...rest, limit: pageSize, cursor }));
  }

  /** One page of `list`; `cursor` is the last page's `next_cursor`. */
  page(options: RequestOptions & { limit?: number; cursor?: string; email?: string; sandbox?: boolean } = {}): Promise<HistoryPage> {
    const { limit, cursor, email, sandbox, ...rest } = options;
    return this.t.json('GET', '/v1/history', { ...rest, query: { limit, cursor, email, sandbox } });
  }
}
