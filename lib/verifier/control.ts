import { isGoneForGood } from './rejection';
import type { Reading } from './reply';
import type { SmtpReply } from './smtp-session';
import type { SubReason } from './vocabulary';

/**
 * A reading weighed against the made-up address's reply and postmaster's; `settled`: the controls
 * decided it; `postmasterRefused`: postmaster was refused as the address was, so the refusal is
 * about us (a sign of an egress problem, lib/egress/refusals.ts).
 */
export interface Weighed extends Reading {
  settled?: boolean;
  postmasterRefused?: boolean;
}

/** What postmaster's reply says of a rejection: accepted, refused the same way, refused otherwise, or nothing (not asked, deferred, unanswered). */
type PostmasterAnswer = 'accepted' | 'refused_same' | 'refused_otherwise' | null;

function postmasterAnswer(reply: SmtpReply, postmaster: SmtpReply | null | undefined, addresses: string[]): PostmasterAnswer {
  if (!postmaster) return null;
  if (postmaster.code >= 200 && postmaster.code < 300) return 'accepted';
  if (postmaster.code < 500 || postmaster.code > 599) return null;
  return sameRejection(reply, postmaster, addresses) ? 'refused_same' : 'refused_otherwise';
}

/**
 * Agreement with the made-up address proves nothing alone: a server that refuses us (our host,
 * sender, conversation, or everyone) refuses every recipient the same way. RFC 5321 4.5.1 makes
 * every domain take mail for postmaster@, which exists at that moment: it is the positive control.
 * - words that say the mailbox is missing (rejected): undeliverable when the made-up address got
 *   the same; otherwise unknown, `rejection_differs` (a disabled account, a per-user block), except
 *   a mailbox gone for good (moved, not our user, no longer on server: rejection.ts), which a
 *   server answers otherwise than a never-existing one. Postmaster's reply does not change them: a
 *   domain without a postmaster mailbox (a misconfiguration RFC 5321 forbids) answers it "no such
 *   user" like any other, and a "User unknown" about our sender names it (rejection.ts).
 * - unclear ("550 Rejected", "550 5.1.1" alone): undeliverable, with less confidence, only when
 *   the made-up address got the same and postmaster was accepted; postmaster refused the same way:
 *   the refusal is about us (unknown, `postmaster_refused`, a sign of an egress problem); else unknown
 * - a refusal of our host or sender (by its words) that postmaster got too keeps its sub-reason,
 *   and also counts as a sign against the egress (`postmasterRefused`)
 * Postmaster refused otherwise (a server that refuses postmaster by policy), deferred or not
 * answered proves nothing. A made-up address accepted, deferred or not asked proves nothing either.
 */
export function weighControl(reading: Reading, reply: SmtpReply, control: SmtpReply | null, addresses: string[], postmaster?: SmtpReply | null): Weighed {
  // a refusal of our host or sender that postmaster got too keeps its words, and is a sign against the egress
  if (reading.meaning === 'blocked') {
    const ours = reading.subReason !== null && EGRESS_SIGNS.has(reading.subReason);
    return ours && postmasterAnswer(reply, postmaster, addresses) === 'refused_same' ? { ...reading, postmasterRefused: true } : reading;
  }
  if (reading.meaning !== 'rejected' && reading.meaning !== 'unclear') return reading;
  const refused = !!control && control.code >= 500 && control.code <= 599;
  const same = refused && sameRejection(reply, control!, addresses);
  if (reading.meaning === 'rejected') return !refused || same || isGoneForGood(reply) ? reading : { meaning: 'unclear', subReason: 'rejection_differs' };
  const answer = postmasterAnswer(reply, postmaster, addresses);
  if (answer === 'refused_same') return { meaning: 'blocked', subReason: 'postmaster_refused', postmasterRefused: true };
  return same && answer === 'accepted' ? { meaning: 'rejected', subReason: null, settled: true } : reading;
}

/** Sub-reasons that name our egress (its IP, reverse DNS, HELO name, sender): with postmaster refused alike, a sign against it. */
const EGRESS_SIGNS = new Set<SubReason>(['sender_rejected', 'host_rejected', 'ip_blocklisted', 'reverse_dns']);

/** Two replies say the same thing: same codes and the same words once addresses and ids are gone. */
export function sameRejection(a: SmtpReply, b: SmtpReply, addresses: string[]): boolean {
  return a.code === b.code && (a.enhanced ?? '') === (b.enhanced ?? '') && words(a.message, addresses) === words(b.message, addresses);
}

function words(message: string, addresses: string[]): string {
  const locals = new Set(addresses.map((address) => address.slice(0, address.lastIndexOf('@')).toLowerCase()));
  return (
    message
      .toLowerCase()
      .split(/\s+/)
      .map((token) => token.replace(/^[<>()[\]{},;:'"]+|[<>()[\]{},;:'".]+$/g, ''))
      // addresses, the local part alone ("User bob unknown"), queue ids, host numbers and timestamps
      // ("a1-20020a.5 - gsmtp", "[-5] - mta1325.mail.gq1.yahoo.com") say nothing about the answer
      .filter((token) => token && !token.includes('@') && !locals.has(token) && !/\d/.test(token))
      .join(' ')
  );
}
