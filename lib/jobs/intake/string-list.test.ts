import { describe, expect, it } from 'vitest';
import { listToArray, packStrings } from './string-list';

const packed = (values: string[]) => {
  const builder = packStrings();
  for (const value of values) builder.push(value);
  expect(builder.length).toBe(values.length);
  return builder.done();
};

describe('packStrings: a list without a string per entry', () => {
  it('gives back each entry as pushed, across blocks, short and long, empty, non-ASCII and lone surrogates', () => {
    const values = Array.from({ length: 10_000 }, (_, i) =>
      i % 1000 === 0 ? '' : i % 997 === 0 ? `\ud800lone${i}` : i % 13 === 0 ? `Zoë.${i}@bücher.example` : i % 5 === 0 ? `${'x'.repeat(300)}${i}` : `a${i}@b.co`,
    );
    const list = packed(values);
    expect(list.length).toBe(values.length);
    for (let i = 0; i < values.length; i++) if (list.at(i) !== values[i]) throw new Error(`entry ${i}: ${list.at(i)} !== ${values[i]}`);
    expect(listToArray(list)).toEqual(values);
  });

  it("reads an index as an array's at() does: nothing outside the list, from the end when negative", () => {
    const values = ['a', 'b', 'c'];
    const list = packed(values);
    for (const index of [0, 2, 3, -1, -3, -4, 1.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(list.at(index)).toBe(values.at(index));
    expect(packed([]).length).toBe(0);
    expect(packed([]).at(0)).toBeUndefined();
  });

  it('leaves a plain array as it is', () => {
    const values = ['a@b.com'];
    expect(listToArray(values)).toBe(values);
  });
});
