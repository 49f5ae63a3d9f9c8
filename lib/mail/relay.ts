import nodemailer, { type Transporter } from 'nodemailer';
import { env } from '../config/env';

/**
 * Mail the service sends itself (invitations, docs/teams.md) through the operator's SMTP relay,
 * EV_SMTP_URL, with nodemailer: `smtp://` speaks STARTTLS whenever the relay offers it (and
 * `?requireTLS=true` refuses a relay that does not), `smtps://` is TLS from the first byte; a user
 * and password in the URL authenticate (PLAIN or LOGIN, as the relay offers). Unrelated to the
 * verifier's SMTP probes (lib/verifier), which never send mail.
 */

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Whether a relay is configured. */
export const relayConfigured = (): boolean => env().EV_SMTP_URL !== '';

let cached: { url: string; transport: Transporter } | null = null;

function transport(url: string): Transporter {
  if (cached?.url !== url) {
    cached?.transport.close();
    // A request waits for the relay: a few seconds' bounds rather than nodemailer's minutes.
    cached = { url, transport: nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }) };
  }
  return cached.transport;
}

/** The From address: EV_INVITATION_FROM, else EV_MAIL_FROM. */
export const mailFrom = (): string => env().EV_INVITATION_FROM || env().EV_MAIL_FROM;

/** Sends one mail through the relay; throws the relay's or the connection's error. */
export async function sendMail(mail: Mail): Promise<void> {
  const url = env().EV_SMTP_URL;
  if (!url) throw new Error('No SMTP relay is configured (EV_SMTP_URL).');
  await transport(url).sendMail({ from: mailFrom(), to: mail.to, subject: mail.subject.replace(/[\r\n]+/g, ' '), text: mail.text });
}

/** What nodemailer's error codes mean to the person who configured the relay. */
const MEANING: Record<string, string> = {
  EAUTH: 'the relay refused the user and password of EV_SMTP_URL',
  ETLS: 'TLS could not be started (the relay offers no STARTTLS, or its certificate was refused)',
  ECONNECTION: 'could not connect to the relay',
  ESOCKET: 'the connection to the relay failed',
  ETIMEDOUT: 'the relay did not answer in time',
  EENVELOPE: 'the relay refused the sender or the recipient',
  EMESSAGE: 'the relay refused the message',
};

/** A relay error as one line for the inviter: what failed, never the URL (it may hold the password). */
export function describeMailError(error: unknown): string {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  const detail = e.response ?? e.message ?? String(error);
  const url = env().EV_SMTP_URL;
  const safe = (url ? detail.split(url).join('EV_SMTP_URL') : detail).replace(/\s+/g, ' ').trim().slice(0, 300);
  const meaning = e.code ? MEANING[e.code] : undefined;
  return `The mail relay did not take the invitation${meaning ? `: ${meaning}` : ''} (${[e.code, e.responseCode].filter(Boolean).join(' ') || 'error'}: ${safe}).`;
}
