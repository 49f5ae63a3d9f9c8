/** A SOCKS5 proxy the SMTP probes connect through (EV_SMTP_PROXY). */
export interface SocksProxy {
  host: string;
  port: number;
  username?: string;
  password?: string;
}

const FORM = 'expected socks5://[user:pass@]host:port';

/**
 * Parses `socks5://[user:pass@]host:port`; the empty string means no proxy (null).
 * Only socks5: the probe always hands the proxy the IP it has checked, never a name, so the
 * proxy-side resolution of socks5h would have nothing to do. Errors never repeat the URL,
 * which may hold a password.
 */
export function parseProxyUrl(value: string): SocksProxy | null {
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a URL (${FORM})`);
  }
  if (url.protocol !== 'socks5:') throw new Error(`unsupported scheme ${url.protocol} (${FORM})`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw new Error(`unexpected path, query or fragment (${FORM})`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error(`missing host (${FORM})`);
  const port = Number(url.port);
  if (!url.port || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`missing or bad port (${FORM})`);
  const proxy: SocksProxy = { host, port };
  if (url.username || url.password) {
    const username = decode(url.username);
    const password = decode(url.password);
    // RFC 1929: both 1 to 255 bytes
    const bytes = (s: string) => new TextEncoder().encode(s).length;
    if (bytes(username) < 1 || bytes(username) > 255 || bytes(password) < 1 || bytes(password) > 255) {
      throw new Error(`user and password must both be 1 to 255 bytes (${FORM})`);
    }
    proxy.username = username;
    proxy.password = password;
  }
  return proxy;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error(`bad percent-encoding in user or password (${FORM})`);
  }
}
