import { describe, expect, it } from 'vitest';
import { chunkRows } from './chunk-rows';

const ranges = (rows: unknown[][]) => rows.map((row) => [row[1], row[2], row[3]]);

describe('chunkRows', () => {
  it('cuts a list into ranges of the chunk size', () => {
    expect(ranges(chunkRows('j', 25, 10))).toEqual([
      [0, 0, 10],
      [1, 10, 20],
      [2, 20, 25],
    ]);
  });

  it('sizes chunks by the rows left to verify when some are answered already, covering every row', () => {
    // rows 0-79 answered (reused), 80-99 to verify: two chunks of 10 rows of work, the first spanning the answered ones
    expect(ranges(chunkRows('j', 100, 10, (idx) => idx >= 80))).toEqual([
      [0, 0, 90],
      [1, 90, 100],
    ]);
    // every other row to verify
    expect(ranges(chunkRows('j', 10, 2, (idx) => idx % 2 === 1))).toEqual([
      [0, 0, 4],
      [1, 4, 8],
      [2, 8, 10],
    ]);
    // nothing left: one chunk, so a worker still finishes the job
    expect(ranges(chunkRows('j', 50, 10, () => false))).toEqual([[0, 0, 50]]);
  });
});
