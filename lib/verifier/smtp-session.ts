import net from 'node:net';
import { SocksClient } from 'socks';
import type { SocksProxy } from './proxy';

/** Where a conversation stopped, or where its deciding reply came. */
export type ProbeStage = 'connect' | 'banner' | 'helo' | 'mail' | 'rcpt';

/**
 * The SMTP session under a conversation: the connection (directly or through a SOCKS5 proxy) and
 * the reply reader with its limits. probeMailbox (smtp.ts) holds the conversation; the egress
 * check's banner reader (lib/egress/banner.ts) reads just the greeting with the same code.
 */

export interface SmtpReply {
  code: number;
  enhanced: string | null;
  message: string;
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

export type ProbeFailureKind = 'no_connect' | 'timeout' | 'dropped' | 'protocol' | 'tls';

export class ProbeFailure extends Error {
  constructor(
    readonly failure: ProbeFailureKind,
    readonly detail?: string,
  ) {
    super(detail ?? failure);
  }
}

export interface ConnectOptions {
  ip: string;
  port: number;
  connectTimeoutMs: number;
  signal?: AbortSignal;
  /** connect through this SOCKS5 proxy, asking it for `ip` (never a name); null/absent: directly */
  proxy?: SocksProxy | null;
  /** the local address to connect from (EV_SMTP_SOURCE_IP: the egress receivers count by) */
  localAddress?: string | null;
}

/**
 * A connected socket to options.ip:port, directly or through the SOCKS5 proxy. The connect
 * timeout covers the whole proxy handshake; an abort destroys the socket at once.
 */
export function connect(options: ConnectOptions): Promise<{ socket: net.Socket; bound: string | null }> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new ProbeFailure('timeout'));
    const { proxy, signal } = options;
    // the proxy would resolve a name itself, after our checks: only ever hand it an IP
    if (proxy && !net.isIP(options.ip)) return reject(new ProbeFailure('no_connect', 'target is not an IP address'));
    const localAddress = options.localAddress || undefined;
    const socket = net.connect(proxy ? { host: proxy.host, port: proxy.port, localAddress } : { host: options.ip, port: options.port, localAddress });
    let settled = false;
    let bound: string | null = null;
    const finish = (failure: ProbeFailure | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) {
        socket.destroy();
        reject(failure);
      } else {
        resolve({ socket, bound });
      }
    };
    const onAbort = () => finish(new ProbeFailure('timeout'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish(new ProbeFailure('no_connect', proxy ? 'proxy handshake timed out' : 'connect timed out')), options.connectTimeoutMs);
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish(new ProbeFailure('no_connect', `${proxy ? 'proxy connection failed: ' : ''}${error.code ?? error.message}`)),
    );
    socket.once('connect', () => {
      if (!proxy) return finish(null);
      SocksClient.createConnection({
        proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.username, password: proxy.password },
        command: 'connect',
        destination: { host: options.ip, port: options.port },
        existing_socket: socket,
        timeout: options.connectTimeoutMs, // ours fires first; this one only must not be shorter
      }).then(
        (info) => {
          bound = info.remoteHost?.host ?? null;
          finish(null);
        },
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

export class Session {
  private buffer = '';
  private lines: string[] = [];
  private closed = false;
  /** set when the server broke a limit of SMTP_LIMITS: the socket is gone, replies throw it */
  private violation: string | null = null;
  private wake: (() => void) | null = null;

  /** `received`: bytes read before STARTTLS, so the conversation limit spans both sessions */
  constructor(
    private socket: net.Socket,
    private timeoutMs: number,
    private received = 0,
  ) {
    socket.setEncoding('latin1'); // one char a byte: lengths below are byte counts
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('error', this.onClose);
  }

  get bytesReceived(): number {
    return this.received;
  }

  /** Hands the socket over (to TLS): this session stops reading it. */
  detach(): net.Socket {
    this.socket.off('data', this.onData).off('close', this.onClose).off('error', this.onClose);
    if (this.lines.length || this.buffer) this.violate('the server sent data before the TLS handshake');
    if (this.violation) throw new ProbeFailure('protocol', this.violation);
    return this.socket;
  }

  private onClose = () => {
    this.closed = true;
    this.wake?.();
  };

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
        const timer = setTimeout(() => {
          this.wake = null;
          reject(new ProbeFailure('timeout'));
        }, deadline - Date.now());
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
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
