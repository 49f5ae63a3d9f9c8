import net from 'node:net';
import tls from 'node:tls';
import type { SocksProxy } from './proxy';
import { isTooManyRecipients } from './reply';
import { connect, ProbeFailure, Session, type ProbeFailureKind, type ProbeStage, type SmtpReply } from './smtp-session';

export { SMTP_LIMITS, parseReply, type ProbeFailureKind, type ProbeStage, type SmtpReply } from './smtp-session';

export interface ProbeOptions {
  ip: string;
  port: number;
  heloName: string;
  mailFrom: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** the address to check */
  recipient: string;
  /** a made-up address of the same domain, or null when the catch-all answer is already known */
  catchAllProbe: string | null;
  /**
   * postmaster@ the domain (RFC 5321 4.5.1: every domain takes its mail), asked after the made-up
   * address when the recipient was refused: the positive control (control.ts); null: already known
   */
  postmaster?: string | null;
  signal?: AbortSignal;
  /** connect through this SOCKS5 proxy, asking it for `ip` (never a name); null/absent: directly */
  proxy?: SocksProxy | null;
  /** the local address to connect from (the egress); absent: the system's choice */
  localAddress?: string | null;
  /** the whole conversation, connect to last reply (default 30 s): a trickling server ends there */
  conversationTimeoutMs?: number;
  /** the MX host name, sent as TLS SNI (some servers pick their certificate by it) */
  mxHost?: string;
  /** false: never STARTTLS (the retry after a failed handshake, as MTAs fall back to plain text) */
  startTls?: boolean;
}

export interface ProbeResult {
  /** null: the server answered; otherwise why the conversation ended without an answer */
  failure: null | ProbeFailureKind;
  /** where the conversation stopped: 'rcpt' when the recipient got an answer */
  stage: ProbeStage;
  /** the deciding reply: the RCPT reply, or the reply that stopped us earlier */
  reply: SmtpReply | null;
  /** the reply to the made-up address, when asked */
  catchAllReply: SmtpReply | null;
  /** the reply to postmaster@, when asked (the recipient was refused) */
  postmasterReply?: SmtpReply | null;
  /** for a failure, what went wrong when known, e.g. "proxy refused the connection: NotAllowed" */
  detail?: string;
  /** the conversation was upgraded with STARTTLS */
  tls: boolean;
  /**
   * Settles when the connection is closed (after the answer comes, QUIT is still on its way): a
   * server counts the connection open until then, so a concurrency lease is held as long.
   */
  closed?: Promise<void>;
}

/**
 * One polite SMTP conversation: banner (however long the server pauses before it, up to the
 * command timeout, and however many lines it has), EHLO (HELO if refused), STARTTLS when offered
 * and EHLO again, MAIL FROM, RCPT TO the address, RCPT TO a made-up address for catch-all
 * detection, RCPT TO postmaster@ when the address was refused (the positive control), then QUIT.
 * Never DATA. All in one connection, so the politeness lease that covers it covers them all.
 * The caller passes an IP it has checked, never a name, so DNS cannot swap the target.
 * A failed TLS handshake is retried once in plain text on a new connection, as MTAs do; a server
 * that insists on TLS then says so ("530 5.7.0 Must issue a STARTTLS command first").
 */
export async function probeMailbox(options: ProbeOptions): Promise<ProbeResult> {
  const result = await converse(options);
  if (result.failure !== 'tls' || options.startTls === false) return result;
  const plain = await converse({ ...options, startTls: false });
  const closed = Promise.all([result.closed, plain.closed]).then(() => undefined);
  return plain.failure ? { ...plain, closed, detail: `${result.detail}; then in plain text: ${plain.detail ?? plain.failure}` } : { ...plain, closed };
}

async function converse(options: ProbeOptions): Promise<ProbeResult> {
  let stage: ProbeStage = 'connect';
  let socket: net.Socket | undefined;
  let secure = false;
  let ended = false; // QUIT sent: let the socket close itself so the commands get flushed
  let overran = false; // the conversation took longer than conversationTimeoutMs
  const stop = () => socket?.destroy();
  options.signal?.addEventListener('abort', stop, { once: true });
  const conversationMs = options.conversationTimeoutMs ?? 30_000;
  const conversationTimer = setTimeout(() => {
    overran = true;
    stop();
  }, conversationMs);
  let closed: Promise<void> = Promise.resolve();
  try {
    socket = (await connect(options)).socket;
    const raw = socket; // STARTTLS wraps it; its close is the connection's
    closed = raw.destroyed ? Promise.resolve() : new Promise((resolve) => raw.once('close', () => resolve()));
    let session = new Session(socket, options.commandTimeoutMs);
    stage = 'banner';
    const banner = await session.reply();
    if (banner.code !== 220) return answered('banner', banner);
    stage = 'helo';
    let helo = await hello(session);
    if (helo.code !== 250) return answered('helo', helo);
    if (options.startTls !== false && /^STARTTLS\b/im.test(helo.lines.join('\n'))) {
      const ready = await session.command('STARTTLS');
      // a refused STARTTLS leaves the session in plain text (RFC 3207 4); go on without it
      if (ready.code === 220) {
        socket = await upgrade(session.detach(), options, (secure) => (socket = secure)); // stop() must reach the handshake
        secure = true;
        session = new Session(socket, options.commandTimeoutMs, session.bytesReceived);
        helo = await session.command(`EHLO ${options.heloName}`); // RFC 3207 4.2: forget what was said before
        if (helo.code !== 250) return answered('helo', helo);
      }
    }
    stage = 'mail';
    // RFC 6531: a UTF-8 mailbox may only be sent to a server that offers SMTPUTF8; without it
    // the server would refuse the address for its form, which says nothing about the mailbox.
    const utf8 = /[^\x00-\x7f]/.test(options.recipient);
    if (utf8 && !/\bSMTPUTF8\b/i.test(helo.message)) {
      return answered('mail', { code: 553, enhanced: '5.6.7', message: 'server does not offer SMTPUTF8' });
    }
    const mailFrom = `MAIL FROM:<${options.mailFrom}>${utf8 ? ' SMTPUTF8' : ''}`;
    const mail = await session.command(mailFrom);
    if (mail.code !== 250) return answered('mail', mail);
    stage = 'rcpt';
    const rcpt = await session.command(`RCPT TO:<${options.recipient}>`);
    let catchAllReply: SmtpReply | null = null;
    let postmasterReply: SmtpReply | null = null;
    const ask = async (address: string): Promise<SmtpReply> => {
      const reply = await session.command(`RCPT TO:<${address}>`);
      // one recipient per transaction: ask again in a transaction of its own
      if (isTooManyRecipients(reply) && (await session.command('RSET')).code === 250 && (await session.command(mailFrom)).code === 250) {
        return session.command(`RCPT TO:<${address}>`);
      }
      return reply;
    };
    // The made-up address is asked after any definite answer: a rejected address needs no
    // catch-all answer itself, but the other addresses of its domain (waiting in verify.ts) do.
    if ((rcpt.code < 300 || rcpt.code >= 500) && options.catchAllProbe) catchAllReply = await ask(options.catchAllProbe);
    // a refusal is weighed against an address that exists (control.ts): postmaster, after the made-up one
    if (rcpt.code >= 500 && options.postmaster && options.postmaster.toLowerCase() !== options.recipient.toLowerCase()) {
      // a server that hangs up or stalls on the third RCPT has answered the address already
      postmasterReply = await ask(options.postmaster).catch(() => null);
    }
    session.goodbye();
    ended = true;
    return { failure: null, stage: 'rcpt', reply: rcpt, catchAllReply, postmasterReply, tls: secure, closed };

    function answered(at: ProbeStage, reply: SmtpReply): ProbeResult {
      session.goodbye();
      ended = true;
      return { failure: null, stage: at, reply, catchAllReply: null, tls: secure, closed };
    }
  } catch (error) {
    // a handshake cut short by the deadline is a time-out, not a TLS failure worth a plain-text retry
    const protocol = error instanceof ProbeFailure && error.failure === 'protocol';
    const failure = protocol ? 'protocol' : options.signal?.aborted || overran ? 'timeout' : error instanceof ProbeFailure ? error.failure : 'dropped';
    const detail = protocol || !overran ? (error instanceof ProbeFailure ? error.detail : undefined) : `the conversation took longer than ${conversationMs} ms`;
    return { failure, stage, reply: null, catchAllReply: null, tls: secure, closed, ...(detail === undefined ? {} : { detail }) };
  } finally {
    clearTimeout(conversationTimer);
    options.signal?.removeEventListener('abort', stop);
    if (!ended) socket?.destroy();
  }

  async function hello(session: Session): Promise<SmtpReply & { lines: string[] }> {
    const ehlo = await session.command(`EHLO ${options.heloName}`);
    if (ehlo.code < 500) return ehlo;
    return { ...(await session.command(`HELO ${options.heloName}`)), lines: [] };
  }
}

/**
 * TLS over the connected socket. The certificate is not checked: opportunistic STARTTLS between
 * MTAs (RFC 3207, Postfix smtp_tls_security_level=may) encrypts without authenticating, and most
 * MX certificates would fail a check anyway. Old protocol versions are allowed for the same reason.
 */
function upgrade(socket: net.Socket, options: ProbeOptions, started: (secure: tls.TLSSocket) => void): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const servername = options.mxHost && !net.isIP(options.mxHost) ? options.mxHost : undefined;
    const secure = tls.connect({ socket, servername, rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
    started(secure);
    let settled = false;
    const fail = (detail: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      secure.destroy();
      reject(new ProbeFailure('tls', detail));
    };
    const timer = setTimeout(() => fail('TLS handshake timed out'), options.commandTimeoutMs);
    const onError = (error: Error) => fail(`TLS handshake failed: ${error.message}`);
    const onClose = () => fail('TLS handshake failed: the connection closed');
    // until the Session takes over, errors still land here (fail ignores them once settled)
    secure.on('error', onError);
    secure.once('close', onClose);
    secure.once('secureConnect', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      secure.off('close', onClose);
      resolve(secure);
    });
  });
}
