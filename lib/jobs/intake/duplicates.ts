import { checkSyntax } from '../../verifier/syntax';
import { forEachSliced } from './slices';

// Gmail ignores dots in the local part and treats googlemail.com as gmail.com (Google's own help:
// "Dots don't matter in Gmail addresses"), so j.doe@gmail.com and jdoe@googlemail.com are one mailbox.
const GMAIL = new Set(['gmail.com', 'googlemail.com']);
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The mailbox an address reaches, as a comparison key. The domain is compared without case (DNS
 * is case-insensitive). The local part is compared without case too: RFC 5321 lets a server tell
 * `Anna@` from `anna@`, but Gmail, Outlook, Yahoo, iCloud and Postfix/Exim/Exchange as shipped do
 * not, and two spellings of one address in a list are one person. Plus tags are kept (`a+news@` and
 * `a+shop@` are separate sign-ups a marketer wants to see), and so are dots everywhere but Gmail.
 * Null for an address that fails syntax: those are answered without a lookup, never merged.
 */
export function mailboxKey(email: string): string | null {
  const syntax = checkSyntax(email);
  if (!syntax.ok) return null;
  const domain = syntax.asciiDomain.toLowerCase();
  if (GMAIL.has(domain)) return `${syntax.local.toLowerCase().replaceAll('.', '')}@gmail.com`;
  // An ASCII address is its own key in lower case, which V8 hands back without a copy when it is
  // lower case already: a million-address list then holds no second copy of itself.
  if (ASCII.test(email)) return email.toLowerCase();
  // the local part as normalized_email has it (NFC: a composed and a decomposed é are one letter),
  // the domain as its A-labels (bücher.example is xn--bcher-kva.example)
  return `${syntax.local.normalize('NFC').toLowerCase()}@${domain}`;
}

export interface ListShape {
  /** syntactically valid rows, duplicates included (the API's `valid_emails`) */
  valid: number;
  invalid: number;
  /** rows whose mailbox appeared earlier in the list */
  duplicates: number;
  /** valid rows that are first occurrences: what is verified and reserved */
  distinctValid: number;
  /** per row: index of the first row of the same mailbox, or -1 */
  duplicateOf: Int32Array;
}

/**
 * One pass over a list: syntax counts and, per row, the first row of the same mailbox. In slices
 * that yield (./slices.ts), so a million-row list does not hold the server's event loop.
 */
export async function listShape(emails: readonly string[]): Promise<ListShape> {
  const first = new Map<string, number>();
  const duplicateOf = new Int32Array(emails.length).fill(-1);
  let valid = 0;
  let duplicates = 0;
  await forEachSliced(emails.length, (idx) => {
    const key = mailboxKey(emails[idx]!);
    if (key === null) return;
    valid++;
    const seen = first.get(key);
    if (seen === undefined) first.set(key, idx);
    else {
      duplicateOf[idx] = seen;
      duplicates++;
    }
  });
  return { valid, invalid: emails.length - valid, duplicates, distinctValid: valid - duplicates, duplicateOf };
}
