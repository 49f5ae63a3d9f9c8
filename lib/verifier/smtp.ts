import net from 'node:net';
import { SocksClient } from 'socks';
import type { SocksProxy } from './proxy';

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

export type ProbeFailureKind = 'no_connect' | 'timeout' | 'dropped' | 'protocol';

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
}

class ProbeFailure extends Error {
  constructor(readonly failure: ProbeFailureKind, readonly detail?: string) { super(detail ?? failure); }
}

/**
 * One polite SMTP conversation: banner, EHLO (HELO if refused), MAIL FROM, RCPT TO the address,
 * RCPT TO a made-up address for catch-all detection, then RSET and QUIT. Never DATA.
 * The caller passes an IP it has checked, never a name, so DNS cannot swap the target.
 */
export async function probeMailbox(options: ProbeOptions): Promise<ProbeResult> {
  let stage: ProbeStage = 'connect';
  let socket: net.Socket | undefined;
  let ended = false; // QUIT sent: let the socket close itself so the commands get flushed
  let overran = false; // the conversation took longer than conversationTimeoutMs
  const stop = () => socket?.destroy();
  options.signal?.addEventListener('abort', stop, { once: true });
  const conversationMs = options.conversationTimeoutMs ?? 30_000;
  const conversationTimer = setTimeout(() => { overran = true; stop(); }, conversationMs);
  try {
    socket = await connect(options);
    const session = new Session(socket, options.commandTimeoutMs);
    stage = 'banner';
    const banner = await session.reply();
    if (banner.code !== 220) return answered('banner', banner);
    stage = 'helo';
    let helo = await session.command(`EHLO ${options.heloName}`);
    if (helo.code >= 500) helo = await session.command(`HELO ${options.heloName}`);
    if (helo.code !== 250) return answered('helo', helo);
    stage = 'mail';
    // RFC 6531: a UTF-8 mailbox may only be sent to a server that offers SMTPUTF8; without it
    // the server would refuse the address for its form, which says nothing about the mailbox.
    const utf8 = /[^\x00-\x7f]/.test(options.recipient);
    if (utf8 && !/\bSMTPUTF8\b/i.test(helo.message)) {
      return answered('mail', { code: 553, enhanced: '5.6.7', message: 'server does not offer SMTPUTF8' });
    }
    const mail = await session.command(`MAIL FROM:<${options.mailFrom}>${utf8 ? ' SMTPUTF8' : ''}`);
    if (mail.code !== 250) return answered('mail', mail);
    stage = 'rcpt';
    const rcpt = await session.command(`RCPT TO:<${options.recipient}>`);
    let catchAllReply: SmtpReply | null = null;
    // Only an accepted address needs the catch-all question: a rejected one is rejected anyway.
    if (rcpt.code >= 200 && rcpt.code < 300 && options.catchAllProbe) {
      catchAllReply = await session.command(`RCPT TO:<${options.catchAllProbe}>`);
    }
    session.goodbye();
    ended = true;
    return { failure: null, stage: 'rcpt', reply: rcpt, catchAllReply };

    function answered(at: ProbeStage, reply: SmtpReply): ProbeResult {
      session.goodbye();
      ended = true;
      return { failure: null, stage: at, reply, catchAllReply: null };
    }
  } catch (error) {
    const protocol = error instanceof ProbeFailure && error.failure === 'protocol';
    const failure = protocol ? 'protocol' : options.signal?.aborted || overran ? 'timeout' : error instanceof ProbeFailure ? error.failure : 'dropped';
    const detail = protocol || !overran
      ? (error instanceof ProbeFailure ? error.detail : undefined)
      : `the conversation took longer than ${conversationMs} ms`;
    return { failure, stage, reply: null, catchAllReply: null, ...(detail === undefined ? {} : { detail }) };
  } finally {
    clearTimeout(conversationTimer);
    options.signal?.removeEventListener('abort', stop);
    if (!ended) socket?.destroy();
  }
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
  private received = 0;
  private closed = false;
  /** set when the server broke a limit of SMTP_LIMITS: the socket is gone, replies throw it */
  private violation: string | null = null;
  private wake: (() => void) | null = null;

  constructor(private socket: net.Socket, private timeoutMs: number) {
    socket.setEncoding('latin1'); // one char a byte: lengths below are byte counts
    socket.on('data', (chunk: string) => {
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
    });
    socket.on('close', () => { this.closed = true; this.wake?.(); });
    socket.on('error', () => { this.closed = true; this.wake?.(); });
  }

  private violate(what: string): void {
    this.violation ??= what;
    this.lines = [];
    this.buffer = '';
    this.socket.destroy();
    this.wake?.();
  }

  async command(line: string): Promise<SmtpReply> {
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
  async reply(): Promise<SmtpReply> {
    const deadline = Date.now() + this.timeoutMs;
    const collected: string[] = [];
    let bytes = 0;
    for (;;) {
      while (this.lines.length) {
        const line = this.lines.shift()!;
        collected.push(line);
        bytes += line.length;
        if (!/^\d{3}-/.test(line)) return parseReply(collected);
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

  /** RSET and QUIT without waiting for the answers: the verdict is known, this is only manners. */
  goodbye(): void {
    if (this.closed) return;
    this.socket.end('RSET\r\nQUIT\r\n');
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
