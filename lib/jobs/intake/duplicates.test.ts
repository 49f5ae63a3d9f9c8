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
