import { setImmediate as turn } from 'node:timers/promises';
import { XlsxWriter } from './xlsx';

/**
 * A download streamed page by page, so memory stays flat for a million rows: `next(afterIdx)` reads
 * the page after an index (a row's first value is its index); an empty page ends the stream.
 * On SQLite a page's read is synchronous, so a promise chain of pages would settle in microtasks
 * and a fast reader could keep the event loop from every other request for the whole file: each
 * page first waits a turn of the loop (issue 20).
 */

export type NextPage<R extends readonly unknown[]> = (afterIdx: number) => Promise<R[]>;

export function pagedStream<R extends readonly unknown[]>(head: () => string, page: (rows: R[]) => string, next: NextPage<R>): ReadableStream<Uint8Array> {
  let afterIdx = -1;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(Buffer.from(head()));
        return;
      }
      await turn();
      const rows = await next(afterIdx);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      afterIdx = Number(rows[rows.length - 1]![0]);
      controller.enqueue(Buffer.from(page(rows)));
    },
  });
}

export function xlsxStream<R extends readonly unknown[]>(
  sheet: string,
  header: string[],
  next: NextPage<R>,
  cells: (row: R) => unknown[],
): ReadableStream<Uint8Array> {
  let writer: XlsxWriter;
  let afterIdx = -1;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      writer = new XlsxWriter(
        sheet,
        (chunk, final) => {
          if (chunk.length) controller.enqueue(chunk);
          if (final) controller.close();
        },
        (error) => controller.error(error),
      );
      writer.rows([header]);
    },
    async pull() {
      await turn();
      const rows = await next(afterIdx);
      if (rows.length === 0) return writer.end();
      afterIdx = Number(rows[rows.length - 1]![0]);
      writer.rows(rows.map(cells));
    },
  });
}
