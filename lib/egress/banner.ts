import type net from 'node:net';
import { unmapped } from '../verifier/net';
import { connect, ProbeFailure, Session } from '../verifier/smtp-session';
import { clip, type Connect } from './report';

/**
 * The port 25 check's real connection: connects (directly or through a SOCKS5 proxy) and reads the
 * greeting with the verifier's SMTP session (lib/verifier/smtp-session.ts: multi-line replies, the
 * same limits), then says QUIT. The whole exchange gets `timeoutMs`. The local address is the
 * socket's own; through a proxy it is the address the proxy reports for its outgoing connection
 * (BND.ADDR), which is its egress address unless it is behind NAT itself.
 */
export const readBanner: Connect = async ({ ip, port, timeoutMs, proxy, localAddress: from }) => {
  const deadline = new AbortController();
  let socket: net.Socket | undefined;
  const timer = setTimeout(() => {
    deadline.abort();
    socket?.destroy();
  }, timeoutMs);
  let greeted = false;
  try {
    // the connection's own time limit is longer: the deadline above is the one that answers
    const connected = await connect({ ip, port, connectTimeoutMs: timeoutMs + 1000, signal: deadline.signal, proxy, localAddress: from });
    socket = connected.socket;
    const bound = connected.bound ? unmapped(connected.bound) : null;
    const own = socket.localAddress ? unmapped(socket.localAddress) : null;
    // some proxies do not say
    const localAddress = proxy ? (bound && bound !== '0.0.0.0' && bound !== '::' ? bound : null) : own;
    const session = new Session(socket, timeoutMs + 1000);
    const greeting = await session.reply();
    if (!Number.isInteger(greeting.code) || greeting.code < 100) return { ok: false, error: 'not an SMTP greeting' };
    // say goodbye and let the server close; a server that does not is cut off shortly
    session.goodbye();
    greeted = true;
    return { ok: true, code: greeting.code, text: greeting.lines.join(' ').trim(), localAddress };
  } catch (error) {
    return { ok: false, error: deadline.signal.aborted ? `no answer within ${timeoutMs} ms` : failureText(error, Boolean(proxy)) };
  } finally {
    clearTimeout(timer);
    if (!greeted) socket?.destroy();
  }
};

function failureText(error: unknown, proxied: boolean): string {
  if (!(error instanceof ProbeFailure)) return error instanceof Error ? error.message : String(error);
  if (error.failure === 'dropped') return 'connection closed before a greeting';
  if (error.failure === 'timeout') return 'no answer in time';
  const detail = clip(error.detail ?? error.failure);
  // the session's "proxy refused the connection: NotAllowed" reads "proxy: refused the connection: NotAllowed"
  return proxied && error.failure === 'no_connect' ? `proxy: ${detail.replace(/^proxy /, '')}` : detail;
}
