import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError, invalidRequest } from '../errors/app-error';
import { env } from '../config/env';
import { isPrivateAddress } from '../verifier/net';
import { parseDnsServers } from '../verifier/dns';

/**
 * Resolves a webhook URL's host and refuses private, loopback, link-local, metadata and IPv6
 * transition addresses unless the operator allows private networks, and ports outside
 * EV_WEBHOOK_PORTS. The caller connects to the returned IP (not the name again), so a DNS answer
 * cannot change between the check and the connection.
 */
export async function resolvePublicAddress(url: URL, allowPrivate: boolean, signal?: AbortSignal): Promise<{ address: string; family: number }> {
  assertAllowedPort(url);
  const host = url.hostname;
  const bare = host.replace(/^\[|\]$/g, '');
  const answers = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolveHost(bare, signal);
  if (answers.length === 0) throw invalidRequest('url', `The webhook host ${host} does not resolve.`);
  const refused = answers.find((a) => isPrivateAddress(a.address));
  if (refused && !allowPrivate) {
    throw new AppError('invalid_request', `Webhook URLs on private, loopback or IPv4-embedding addresses (${refused.address}) are not allowed.`, {
      param: 'url',
    });
  }
  return answers[0]!;
}

/**
 * A and AAAA answers through c-ares (dns.promises.Resolver: its own sockets and time-outs), not
 * dns.lookup: getaddrinfo runs on libuv's four-thread pool, which sign-in's scrypt, zlib and file
 * reads share, and a name server that never answers would hold a thread for each attempt however
 * soon the attempt gave up. The servers are the verifier's (EV_DNS_SERVERS) or the system's
 * (/etc/resolv.conf); `localhost` is
 * loopback (RFC 6761) without asking them. An abort cancels the queries.
 */
async function resolveHost(name: string, signal?: AbortSignal): Promise<{ address: string; family: number }[]> {
  if (name.toLowerCase() === 'localhost' || name.toLowerCase().endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }];
  const resolver = new Resolver({ timeout: RESOLVE_TRY_MS, tries: 2 });
  const servers = parseDnsServers(env().EV_DNS_SERVERS);
  if (servers.length) resolver.setServers(servers);
  const cancel = () => resolver.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const [v4, v6] = await Promise.all([resolver.resolve4(name).catch(() => [] as string[]), resolver.resolve6(name).catch(() => [] as string[])]);
    return [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))];
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

const RESOLVE_TRY_MS = 2_000;

export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidRequest('url', 'url must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidRequest('url', 'url must use http or https.');
  if (url.username || url.password) throw invalidRequest('url', 'url must not carry credentials.');
  assertAllowedPort(url);
  return url;
}

function assertAllowedPort(url: URL): void {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!portAllowed(port, env().EV_WEBHOOK_PORTS)) {
    throw invalidRequest('url', `Webhook URLs on port ${port} are not allowed (allowed: ${env().EV_WEBHOOK_PORTS}).`);
  }
}

/** "80,443,1024-65535" holds 8080 and 443, not 25 or 6379. */
export function portAllowed(port: number, allowed: string): boolean {
  return allowed
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .some((part) => {
      const [low, high = low] = part.split('-').map(Number);
      return port >= low! && port <= high!;
    });
}
