import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import type { SocksProxy } from './proxy';
import { isTooManyRecipients } from './reply';

export interface SmtpReply { code: number; enhanced: string | null; message: string }

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
  signal?: AbortSignal;
  /** connect through this SOCKS5 proxy, asking it for `ip` (never a name); null/absent: directly */
  proxy?: SocksProxy | null;
  /** the whole conversation, connect to last reply (default 30 s): a trickling server ends there */
  conversationTimeoutMs?: number;
  /** the MX host name, sent as TLS SNI (some servers pick their certificate by it) */
  mxHost?: string;
  /** false: never STARTTLS (the retry after a failed handshake, as MTAs fall back to plain text) */
  startTls?: boolean;
}

/**
 * What a server may send before the conversation is cut off. RFC 5321 4.5.3.1.5 allows reply lines
 * of 512 octets; real servers answer EHLO in under 20 lines. A server past any of these is broken
 * or hostile: the conversation ends with failure 'protocol' (an unknown verdict, never invalid).
 */
export const SMTP_LIMITS = {
  lineBytes: 2048,
  replyLines: 100,
  replyBytes: 16 * 1024,
  conversationBytes: 128 * 1024,
} as const;

export type ProbeStage = 'connect' | 'banner' | 'helo' | 'mail' | 'rcpt';

export type ProbeFailureKind = 'no_connect' | 'timeout' | 'dropped' | 'protocol' | 'tls';

export interface ProbeResult {
  /** null: the server answered; otherwise why the conversation ended without an answer */
  failure: null | ProbeFailureKind;
  /** where the conversation stopped: 'rcpt' when the recipient got an answer */
  stage: ProbeStage;
  /** the deciding reply: the RCPT reply, or the reply that stopped us earlier */
  reply: SmtpReply | null;
  /** the reply to the made-up address, when asked */
  catchAllReply: SmtpReply | null;
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

class ProbeFailure extends Error {
  constructor(readonly failure: ProbeFailureKind, readonly detail?: string) { super(detail ?? failure); }
}

/**
 * One polite SMTP conversation: banner (however long the server pauses before it, up to the
 * command timeout, and however many lines it has), EHLO (HELO if refused), STARTTLS when offered
 * and EHLO again, MAIL FROM, RCPT TO the address, RCPT TO a made-up address for catch-all
 * detection, then QUIT. Never DATA.
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
  const conversationTimer = setTimeout(() => { overran = true; stop(); }, conversationMs);
  let closed: Promise<void> = Promise.resolve();
  try {
    socket = await connect(options);
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
    // The made-up address is asked after any definite answer: a rejected address needs no
    // catch-all answer itself, but the other addresses of its domain (waiting in verify.ts) do.
    if ((rcpt.code < 300 || rcpt.code >= 500) && options.catchAllProbe) {
      catchAllReply = await session.command(`RCPT TO:<${options.catchAllProbe}>`);
      // one recipient per transaction: ask the made-up address in a transaction of its own
      if (isTooManyRecipients(catchAllReply) && (await session.command('RSET')).code === 250 &&
          (await session.command(mailFrom)).code === 250) {
        catchAllReply = await session.command(`RCPT TO:<${options.catchAllProbe}>`);
      }
    }
    session.goodbye();
    ended = true;
    return { failure: null, stage: 'rcpt', reply: rcpt, catchAllReply, tls: secure, closed };

    function answered(at: ProbeStage, reply: SmtpReply): ProbeResult {
      session.goodbye();
      ended = true;
      return { failure: null, stage: at, reply, catchAllReply: null, tls: secure, closed };
    }
  } catch (error) {
    // a handshake cut short by the deadline is a time-out, not a TLS failure worth a plain-text retry
    const protocol = error instanceof ProbeFailure && error.failure === 'protocol';
    const failure = protocol ? 'protocol' : options.signal?.aborted || overran ? 'timeout' : error instanceof ProbeFailure ? error.failure : 'dropped';
    const detail = protocol || !overran
      ? (error instanceof ProbeFailure ? error.detail : undefined)
      : `the conversation took longer than ${conversationMs} ms`;
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

/**
 * A connected socket to options.ip:port, directly or through the SOCKS5 proxy. The connect
 * timeout covers the whole proxy handshake; an abort destroys the socket at once.
 */
function connect(options: ProbeOptions): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new ProbeFailure('timeout'));
    const { proxy, signal } = options;
    // the proxy would resolve a name itself, after our checks: only ever hand it an IP
    if (proxy && !net.isIP(options.ip)) return reject(new ProbeFailure('no_connect', 'target is not an IP address'));
    const socket = net.connect(proxy ? { host: proxy.host, port: proxy.port } : { host: options.ip, port: options.port });
    let settled = false;
    const finish = (failure: ProbeFailure | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) {
        socket.destroy();
        reject(failure);
      } else {
        resolve(socket);
      }
    };
    const onAbort = () => finish(new ProbeFailure('timeout'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => finish(new ProbeFailure('no_connect', proxy ? 'proxy handshake timed out' : 'connect timed out')),
      options.connectTimeoutMs,
    );
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish(new ProbeFailure('no_connect', `${proxy ? 'proxy connection failed: ' : ''}${error.code ?? error.message}`)));
    socket.once('connect', () => {
      if (!proxy) return finish(null);
      SocksClient.createConnection({
        proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.username, password: proxy.password },
        command: 'connect',
        destination: { host: options.ip, port: options.port },
        existing_socket: socket,
        timeout: options.connectTimeoutMs, // ours fires first; this one only must not be shorter
      }).then(
        () => finish(null),
        (error: Error) => finish(new ProbeFailure('no_connect', socksDetail(error))),
      );
    });
  });
}

/** "proxy refused the connection: NotAllowed" for a SOCKS reply code; auth failures, hang-ups as they come */
function socksDetail(error: Error): string {
  const refused = /^Socks5 proxy rejected connection - (\w+)/.exec(error.message);
  return refused ? `proxy refused the connection: ${refused[1]}` : `proxy handshake failed: ${error.message}`;
}

class Session {
  private buffer = '';
  private lines: string[] = [];
  private closed = false;
  /** set when the server broke a limit of SMTP_LIMITS: the socket is gone, replies throw it */
  private violation: string | null = null;
  private wake: (() => void) | null = null;

  /** `received`: bytes read before STARTTLS, so the conversation limit spans both sessions */
  constructor(private socket: net.Socket, private timeoutMs: number, private received = 0) {
    socket.setEncoding('latin1'); // one char a byte: lengths below are byte counts
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('error', this.onClose);
  }

  get bytesReceived(): number { return this.received; }

  /** Hands the socket over (to TLS): this session stops reading it. */
  detach(): net.Socket {
    this.socket.off('data', this.onData).off('close', this.onClose).off('error', this.onClose);
    if (this.lines.length || this.buffer) this.violate('the server sent data before the TLS handshake');
    if (this.violation) throw new ProbeFailure('protocol', this.violation);
    return this.socket;
  }

  private onClose = () => { this.closed = true; this.wake?.(); };

  private onData = (chunk: string) => {
    this.received += chunk.length;
    if (this.received > SMTP_LIMITS.conversationBytes) return this.violate(`the server sent more than ${SMTP_LIMITS.conversationBytes} bytes`);
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      this.lines.push(Buffer.from(this.buffer.slice(0, newline).replace(/\r$/, ''), 'latin1').toString('utf8'));
      this.buffer = this.buffer.slice(newline + 1);
    }
    if (this.buffer.length > SMTP_LIMITS.lineBytes) return this.violate(`a reply line longer than ${SMTP_LIMITS.lineBytes} bytes`);
    this.wake?.();
  };

  private violate(what: string): void {
    this.violation ??= what;
    this.lines = [];
    this.buffer = '';
    this.socket.destroy();
    this.wake?.();
  }

  async command(line: string): Promise<SmtpReply & { lines: string[] }> {
    // Replies nobody asked for would be read as the answers to our commands. Only "421 closing"
    // may come unasked (RFC 5321 3.8): it is the answer to whatever we say next.
    if (this.lines.length && !this.lines[0].startsWith('421')) this.violate('the server sent replies before it was asked');
    if (this.violation) throw new ProbeFailure('protocol', this.violation);
    if (this.lines.length) return this.reply();
    if (this.closed) throw new ProbeFailure('dropped');
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** Reads one reply; "250-..." lines continue it, "250 ..." ends it (RFC 5321 4.2.1). */
  async reply(): Promise<SmtpReply & { lines: string[] }> {
    const deadline = Date.now() + this.timeoutMs;
    const collected: string[] = [];
    let bytes = 0;
    for (;;) {
      while (this.lines.length) {
        const line = this.lines.shift()!;
        collected.push(line);
        bytes += line.length;
        if (!/^\d{3}-/.test(line)) return { ...parseReply(collected), lines: collected.map((l) => l.slice(4)) };
        if (collected.length >= SMTP_LIMITS.replyLines) this.violate(`a reply of more than ${SMTP_LIMITS.replyLines} lines`);
        else if (bytes > SMTP_LIMITS.replyBytes) this.violate(`a reply of more than ${SMTP_LIMITS.replyBytes} bytes`);
      }
      if (this.violation) throw new ProbeFailure('protocol', this.violation);
      if (this.closed) throw new ProbeFailure('dropped');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => { this.wake = null; reject(new ProbeFailure('timeout')); }, deadline - Date.now());
        this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
      });
    }
  }

  /**
   * QUIT without waiting for the answer: the verdict is known, this is only manners. QUIT alone
   * (it ends any transaction): "RSET\r\nQUIT" in one write is pipelining, which postscreen's
   * after-220 test punishes in a server that did not offer it ("COMMAND PIPELINING after RSET").
   */
  goodbye(): void {
    if (this.closed) return;
    this.socket.end('QUIT\r\n');
    // a server that never closes its side must not keep the socket alive
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }
}

export function parseReply(lines: string[]): SmtpReply {
  const code = Number(lines[0].slice(0, 3)) || 0;
  const texts = lines.map((l) => l.slice(4));
  const enhanced = texts[0].match(/^([245]\.\d{1,3}\.\d{1,3})\b/)?.[1] ?? null;
  const message = texts.map((t) => (enhanced && t.startsWith(enhanced) ? t.slice(enhanced.length).trim() : t)).join(' ');
  return { code, enhanced, message };
}
