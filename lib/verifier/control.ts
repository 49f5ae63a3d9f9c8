import type { Reading } from './reply';
import type { SmtpReply } from './smtp-session';

/** A reading weighed against the made-up address's reply; `settled`: the agreement decided it. */
export interface Weighed extends Reading { settled?: boolean }

/**
 * The made-up address of the same domain does not exist, so the server's reply to it is how that
 * server says "no such user". A rejection of the real address that reads the same (code, enhanced
 * code and words, the addresses and ids aside) is that answer; one that reads otherwise is about
 * something else (a disabled account, a policy, us), whatever its words claim.
 * - rejected, control rejected the same way: rejected; otherwise: unknown, `rejection_differs`
 * - unclear ("550 Rejected"), control rejected the same way: rejected (the server answers unknown
 *   users so); otherwise it stays unknown, `unclear_rejection`
 * A control that was accepted, deferred or not asked proves nothing either way.
 */
export function weighControl(reading: Reading, reply: SmtpReply, control: SmtpReply | null, addresses: string[]): Weighed {
  if (!control || control.code < 500 || control.code > 599) return reading;
  if (reading.meaning !== 'rejected' && reading.meaning !== 'unclear') return reading;
  const same = sameRejection(reply, control, addresses);
  if (reading.meaning === 'rejected') return same ? reading : { meaning: 'unclear', subReason: 'rejection_differs' };
  return same ? { meaning: 'rejected', subReason: null, settled: true } : reading;
}

/** Two replies say the same thing: same codes and the same words once addresses and ids are gone. */
export function sameRejection(a: SmtpReply, b: SmtpReply, addresses: string[]): boolean {
  return a.code === b.code && (a.enhanced ?? '') === (b.enhanced ?? '') && words(a.message, addresses) === words(b.message, addresses);
}

function words(message: string, addresses: string[]): string {
  const locals = new Set(addresses.map((address) => address.slice(0, address.lastIndexOf('@')).toLowerCase()));
  return message.toLowerCase().split(/\s+/)
    .map((token) => token.replace(/^[<>()[\]{},;:'"]+|[<>()[\]{},;:'".]+$/g, ''))
    // addresses, the local part alone ("User bob unknown"), queue ids, host numbers and timestamps
    // ("a1-20020a.5 - gsmtp", "[-5] - mta1325.mail.gq1.yahoo.com") say nothing about the answer
    .filter((token) => token && !token.includes('@') && !locals.has(token) && !/\d/.test(token))
    .join(' ');
}
