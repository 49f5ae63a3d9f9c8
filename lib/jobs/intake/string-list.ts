import { forEachSliced } from './slices';

/**
 * A submitted list's addresses (and an upload's rows) without a string object per entry.
 *
 * A million addresses held as a million strings survive every young-generation collection of the
 * submission: V8 copies them, promotes them, and grows its young generation to its largest on the
 * way (docs/benchmarks.md, "A list without a string per address"). Here the entries are joined
 * BLOCK at a time into one string, with each entry's end in an Int32Array; `at(i)` cuts entry i out
 * of its block when it is read. The cut is made for the one slice of work that reads it (a check,
 * a COPY line) and is garbage right after, so nothing of the list but its blocks and ends survives
 * a collection. The text is kept as JavaScript strings, not as UTF-8 bytes: what comes out is
 * exactly what went in, lone surrogates included.
 */

/** What the submission reads of a list: its length and entry `i`. A plain array is one too. */
export interface StringList {
  readonly length: number;
  at(index: number): string | undefined;
}

/** Entries per block: 112 KB of joined text for the bench's addresses (245 blocks a million). */
const BLOCK = 4096;

/** Entries joined in blocks; made by `packStrings().push(…).done()`, read by `at`. */
export class PackedStrings implements StringList {
  constructor(
    private readonly blocks: readonly string[],
    /** entry i's end in its block; it starts where entry i - 1 ends, or at 0 for a block's first */
    private readonly ends: Int32Array,
    readonly length: number,
  ) {}

  /** Entry `index`, or undefined outside the list; `index` read as Array.prototype.at reads it. */
  at(index: number): string | undefined {
    let i = Math.trunc(index) || 0;
    if (i < 0) i += this.length;
    if (i < 0 || i >= this.length) return undefined;
    const block = this.blocks[Math.floor(i / BLOCK)]!;
    return block.slice(i % BLOCK === 0 ? 0 : this.ends[i - 1]!, this.ends[i]!);
  }
}

/** A PackedStrings being filled: `push` each entry in order, then `done`. */
export interface StringListBuilder {
  readonly length: number;
  push(value: string): void;
  done(): PackedStrings;
}

export function packStrings(): StringListBuilder {
  const blocks: string[] = [];
  let pending: string[] = [];
  let ends = new Int32Array(BLOCK);
  let length = 0;
  let offset = 0;
  return {
    get length() {
      return length;
    },
    push(value) {
      if (length === ends.length) {
        const grown = new Int32Array(ends.length * 2);
        grown.set(ends);
        ends = grown;
      }
      offset += value.length;
      ends[length++] = offset;
      pending.push(value);
      if (pending.length === BLOCK) {
        blocks.push(pending.join(''));
        pending = [];
        offset = 0;
      }
    },
    done() {
      if (pending.length) blocks.push(pending.join(''));
      pending = [];
      return new PackedStrings(blocks, ends.subarray(0, length), length);
    },
  };
}

/** `list.map(fn)`, packed, in slices that yield (./slices.ts). */
export async function mapPacked(list: StringList, fn: (entry: string) => string): Promise<PackedStrings> {
  const out = packStrings();
  await forEachSliced(list.length, (i) => out.push(fn(list.at(i)!)));
  return out.done();
}

/** A list as an array, for the paths that take only a few entries (an instant list). */
export function listToArray(list: StringList): string[] {
  if (Array.isArray(list)) return list;
  return Array.from({ length: list.length }, (_, i) => list.at(i)!);
}
