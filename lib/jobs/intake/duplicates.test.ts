import { describe, expect, it } from 'vitest';
import { countDuplicates } from '../../client/parse-list';
import { listShape, mailboxKey } from './duplicates';

describe('mailboxKey', () => {
  it('compares domain and local part without case', () => {
    expect(mailboxKey('Anna.Schmidt@Example.DE')).toBe(mailboxKey('anna.schmidt@example.de'));
    expect(mailboxKey('ANNA@münchen.de')).toBe(mailboxKey('anna@MÜNCHEN.de'));
  });
  it('compares as normalized_email does: the local part in NFC, the domain as A-labels', () => {
    expect(mailboxKey('ren\u00e9@example.com')).toBe(mailboxKey('rene\u0301@example.com'));
    expect(mailboxKey('anna@bücher.example')).toBe(mailboxKey('anna@xn--bcher-kva.example'));
  });
  it('drops dots at Gmail only, and keeps plus tags', () => {
    expect(mailboxKey('j.doe@gmail.com')).toBe(mailboxKey('jdoe@googlemail.com'));
    expect(mailboxKey('j.doe@outlook.com')).not.toBe(mailboxKey('jdoe@outlook.com'));
    expect(mailboxKey('jdoe+news@gmail.com')).not.toBe(mailboxKey('jdoe@gmail.com'));
  });
  it('never merges what fails syntax', () => {
    expect(mailboxKey('')).toBeNull();
    expect(mailboxKey('not an address')).toBeNull();
  });
});

describe('listShape', () => {
  it('points each later row at the first row of its mailbox', async () => {
    const shape = await listShape(['a@x.com', 'b@x.com', 'A@X.COM', '', '', 'b@X.com', 'bad']);
    expect([...shape.duplicateOf]).toEqual([-1, -1, 0, -1, -1, 1, -1]);
    expect(shape).toMatchObject({ valid: 4, invalid: 3, duplicates: 2, distinctValid: 2 });
  });
});

describe('listShape on a big list', () => {
  it('finds the same first rows as a Map of the mailbox keys, spellings, repeats and failures mixed', async () => {
    // 60,000 rows over 20,000 mailboxes in several spellings, with addresses that fail syntax between them
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const spell = (i: number) => {
      const base = `person.${i}@domain${i % 37}.example`;
      switch (random(5)) {
        case 0:
          return base.toUpperCase();
        case 1:
          return `p.e.rson${i}@gmail.com`;
        case 2:
          return `person${i}@googlemail.com`;
        case 3:
          return random(10) === 0 ? `not an address ${i}` : base;
        default:
          return base;
      }
    };
    const emails = Array.from({ length: 60_000 }, () => spell(random(20_000)));
    const shape = await listShape(emails);
    const first = new Map<string, number>();
    const expected = emails.map((email, idx) => {
      const key = mailboxKey(email);
      if (key === null) return -1;
      const seen = first.get(key);
      if (seen === undefined) first.set(key, idx);
      return seen ?? -1;
    });
    expect([...shape.duplicateOf]).toEqual(expected);
    expect(shape.duplicates).toBe(expected.filter((i) => i >= 0).length);
    expect(shape.valid).toBe(emails.filter((e) => mailboxKey(e) !== null).length);
    expect(shape.duplicates).toBeGreaterThan(20_000);
  });
});

describe('the upload preview counts duplicates as the server does', () => {
  it('agrees with listShape on a marketer-style list', async () => {
    const emails = [
      'Anna@Shop.de',
      'anna@shop.de ',
      'j.doe@gmail.com',
      'JDOE@googlemail.com',
      'x+1@y.com',
      'x@y.com',
      '',
      '',
      'no',
      'ren\u00e9@bücher.example',
      'RENE\u0301@xn--bcher-kva.example',
    ];
    expect(
      countDuplicates(
        emails.map((e) => ['n', e]),
        1,
      ),
    ).toBe((await listShape(emails.map((e) => e.trim()))).duplicates);
    expect((await listShape(emails.map((e) => e.trim()))).duplicates).toBe(3);
  });
});
