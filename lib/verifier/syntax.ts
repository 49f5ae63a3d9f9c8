import { domainToASCII, domainToUnicode } from 'node:url';
import { parse } from 'smtp-address-parser';

/**
 * Is this string an RFC 5321 mailbox we can verify over SMTP?
 *
 * Decisions (checked against the isemail corpus in syntax.test.ts):
 * - Quoted local parts ("John Doe"@example.com) are accepted: RFC 5321 allows them and real
 *   MTAs deliver to them, so rejecting would call a deliverable address invalid.
 * - SMTPUTF8 (RFC 6531) local parts are accepted; the length limits count UTF-8 octets.
 * - Address literals (user@[1.2.3.4]) are rejected: there is no MX to look up and no operator
 *   would let us probe a bare IP, so such an address cannot be verified.
 * - Single-label domains (user@io) pass syntax; DNS decides whether they take mail (some TLDs
 *   really have MX records). An all-numeric last label is rejected: no TLD is numeric, and
 *   user@192.168.0.1 is an IP address written without brackets.
 */
export type SyntaxResult =
  | {
      ok: true;
      local: string;
      domain: string;
      asciiDomain: string;
      address: string;
      /** one spelling per mailbox: local part in Unicode NFC (case kept: it is the server's), domain as UTS #46 maps it, in U-labels */
      normalized: string;
    }
  | { ok: false; reason: string };

// The local-part grammar of smtp-address-parser (RFC 5321 4.1.2 with RFC 6531's UTF-8; its
// lib/grammar.ne `Dot_string` and `Quoted_string`) written as two linear regexes: every form a list
// really holds (dot-atoms, quoted strings, UTF-8) is decided here in about a microsecond, where the
// Earley parser takes 180-360 µs. Only what neither matches (a quote or backslash out of place)
// goes to the parser. Per UTF-16 code unit, as the grammar's \u0080-\uFFFF is: astral characters
// are their two surrogates, and lone surrogates were refused before.
const DOT_STRING = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+)*$/;
const QUOTED_STRING = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\uFFFF]|\\[\x20-\x7e])*"$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// every label of a domain as LABEL, in one test: the common domain needs no array of its labels
const LABELS = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const NUMERIC_TLD = /(?:^|\.)[0-9]+$/;
const ASCII_ONLY = /^[\x21-\x7e]*$/;
// CR, LF, NUL and every other C0/C1 control or DEL: never part of a mailbox, and dangerous
// to write into an SMTP command line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkSyntax(email: string): SyntaxResult {
  if (typeof email !== 'string' || email.length === 0) return fail('empty address');
  if (email.length > 1024) return fail('address too long');
  // printable ASCII (most of any list) holds no control character and no surrogate: two tests spared
  const ascii = ASCII_ONLY.test(email);
  if (!ascii && CONTROL.test(email)) return fail('control character');
  // a lone UTF-16 surrogate has no UTF-8 form: it could not be written into an SMTP command
  if (!ascii && LONE_SURROGATE.test(email)) return fail('not encodable as UTF-8');
  const at = email.lastIndexOf('@');
  if (at <= 0) return fail(at === 0 ? 'missing local part' : 'missing @');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (domain.length === 0) return fail('missing domain');
  if (domain.startsWith('[')) return fail('address literal cannot be verified');

  const localOctets = ascii || ASCII_ONLY.test(local) ? local.length : Buffer.byteLength(local);
  if (localOctets > 64) return fail('local part longer than 64 octets');
  if (!DOT_STRING.test(local) && !QUOTED_STRING.test(local) && !localPartParses(local)) return fail('invalid local part');

  const asciiDomain = ascii ? domain.toLowerCase() : toAsciiDomain(domain);
  if (asciiDomain === null) return fail('invalid domain');
  if (asciiDomain.length > 253) return fail('domain longer than 253 octets');
  const aLabels = asciiDomain.includes('xn--');
  if (aLabels || !LABELS.test(asciiDomain)) {
    // label by label, for the reason (a domain LABELS passes without an A-label passes each check)
    for (const label of asciiDomain.split('.')) {
      if (label.length > 63) return fail('domain label longer than 63 octets');
      if (!LABEL.test(label)) return fail('invalid domain label');
      if (label.startsWith('xn--') && !isALabel(label)) return fail('undecodable IDNA label');
    }
  }
  if (NUMERIC_TLD.test(asciiDomain)) return fail('numeric top-level domain');
  if (localOctets + 1 + asciiDomain.length > 254) return fail('address longer than 254 octets');

  // RFC 6530 10.1: compare internationalized addresses in NFC; the domain's mapping (UTS #46) already
  // lower-cased and normalized it on the way to A-labels, so its U-labels are canonical too
  // (ASCII is its own NFC, and an ASCII domain without an A-label is its own U-label form: the
  // common case skips both calls, which cost more than the rest of the check together)
  const normalizedLocal = localOctets === local.length ? local : local.normalize('NFC');
  const normalizedDomain = aLabels ? domainToUnicode(asciiDomain) || asciiDomain : asciiDomain;
  const normalized = `${normalizedLocal}@${normalizedDomain}`;
  return { ok: true, local, domain, asciiDomain, address: `${local}@${asciiDomain}`, normalized };
}

function fail(reason: string): SyntaxResult {
  return { ok: false, reason };
}

// The parser checks what the regexes above did not decide. Its domain rules (two labels,
// two-letter TLD) are stricter than RFC 5321, so it gets a fixed domain. Each distinct local part is
// parsed once: a list repeating one odd string costs one parse (the newest answers are kept).
const parsed = new Map<string, boolean>();
const PARSED_KEPT = 10_000;

function localPartParses(local: string): boolean {
  const known = parsed.get(local);
  if (known !== undefined) return known;
  let ok = true;
  try {
    parse(`${local}@example.com`);
  } catch {
    ok = false;
  }
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
  parsed.set(local, ok);
  return ok;
}

// ASCII domains are only lowercased: domainToASCII refuses some registered-but-odd labels
// such as "xn--example" that DNS itself accepts (their A-labels are still checked below).
function toAsciiDomain(domain: string): string | null {
  if (ASCII_ONLY.test(domain)) return domain.toLowerCase();
  const ascii = domainToASCII(domain);
  return ascii === '' ? null : ascii;
}

/**
 * An "xn--" label must be Punycode (RFC 3492) for a non-ASCII label (RFC 5890 2.3.2.1):
 * "xn--0" decodes to nothing and is refused, "xn--example" decodes (to Greek) and passes.
 */
function isALabel(label: string): boolean {
  const decoded = punycodeDecode(label.slice(4));
  // C0/C1 controls are DISALLOWED in a U-label (RFC 5892): "xn--a" decodes to U+0080
  if (decoded === null) return false;
  return decoded.some((c) => c >= 0x80) && !decoded.some((c) => c < 0x20 || (c >= 0x7f && c < 0xa0));
}

const BASE = 36,
  TMIN = 1,
  TMAX = 26;

function punycodeDecode(input: string): number[] | null {
  let n = 128,
    i = 0,
    bias = 72;
  const delimiter = input.lastIndexOf('-');
  const output: number[] = [];
  for (let j = 0; j < Math.max(delimiter, 0); j++) output.push(input.charCodeAt(j));
  for (let at = delimiter > 0 ? delimiter + 1 : 0; at < input.length; ) {
    const before = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (at >= input.length) return null; // the number is cut off
      const digit = digitOf(input.charCodeAt(at++));
      if (digit < 0 || digit > Math.floor((0x7fffffff - i) / w)) return null;
      i += digit * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (digit < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - before, output.length + 1, before === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return null;
    output.splice(i++, 0, n);
  }
  return output;
}

function digitOf(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22; // '0'-'9' are 26-35
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  return -1;
}

function adapt(delta: number, points: number, first: boolean): number {
  delta = first ? Math.floor(delta / 700) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  for (; delta > ((BASE - TMIN) * TMAX) >> 1; k += BASE) delta = Math.floor(delta / (BASE - TMIN));
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + 38));
}
