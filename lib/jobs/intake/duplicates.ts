import { checkSyntax } from '../../verifier/syntax';
import { releaseNow } from '../../memory/release';
import { forEachSliced } from './slices';
import type { StringList } from './string-list';

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

/** A 32-bit hash of a mailbox key (FNV-1a over its UTF-16 code units, then murmur3's finaliser to spread the low bits). */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * One pass over a list: syntax counts and, per row, the first row of the same mailbox. In slices
 * that yield (./slices.ts), so a million-row list does not hold the server's event loop.
 * The first rows are found in a table of row numbers (open addressing over two Int32Arrays: 16 MB
 * for a million rows), not a Map of a million keys (for a million addresses: 180 MB more heap at
 * its peak against 96, 1.9 µs a row against 1.2; docs/benchmarks.md): a slot holds the first row of
 * a mailbox and its key's hash; on a hash match the keys are compared, the first row's made again
 * from its address (or taken as equal when the address is the same string), so two mailboxes are
 * never merged.
 */
export async function listShape(emails: StringList): Promise<ListShape> {
  const duplicateOf = new Int32Array(emails.length).fill(-1);
  // at most half full: a probe ends in a slot or two
  let size = 16;
  while (size < emails.length * 2) size *= 2;
  const mask = size - 1;
  const firstRow = new Int32Array(size); // 1 + the row, 0: empty
  const hashes = new Int32Array(size);
  let valid = 0;
  let duplicates = 0;
  await forEachSliced(emails.length, (idx) => {
    const email = emails.at(idx)!;
    const key = mailboxKey(email);
    if (key === null) return;
    valid++;
    const hash = keyHash(key);
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const first = firstRow[slot]! - 1;
      if (first < 0) {
        firstRow[slot] = idx + 1;
        hashes[slot] = hash;
        return;
      }
      if (hashes[slot] !== hash) continue;
      const firstEmail = emails.at(first)!;
      if (firstEmail === email || mailboxKey(firstEmail) === key) {
        duplicateOf[idx] = first;
        duplicates++;
        return;
      }
    }
  });
  // 16 MB for a million rows: given back now rather than at the next major collection
  releaseNow(firstRow);
  releaseNow(hashes);
  return { valid, invalid: emails.length - valid, duplicates, distinctValid: valid - duplicates, duplicateOf };
}
