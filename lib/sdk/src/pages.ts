/** One page of a list the API pages with a cursor: `next_cursor` is null on the last. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Every item of a paged list, page after page, each page read when the one before is used up. */
export async function* pages<T>(read: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
