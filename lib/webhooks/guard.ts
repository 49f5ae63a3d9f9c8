import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError, invalidRequest } from '../errors/errors';
import { env } from '../config/env';
import { isPrivateAddress } from '../verifier/net';

/**
 * Resolves a webhook URL's host and refuses private, loopback, link-local, metadata and IPv6
 * transition addresses unless the operator allows private networks, and ports outside
 * EV_WEBHOOK_PORTS. The caller connects to the returned IP (not the name again), so a DNS answer
 * cannot change between the check and the connection.
 */
export async function resolvePublicAddress(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  assertAllowedPort(url);
  const host = url.hostname;
  const bare = host.replace(/^\[|\]$/g, '');
  const answers = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true }).catch(() => []);
  if (answers.length === 0) throw invalidRequest('url', `The webhook host ${host} does not resolve.`);
  const refused = answers.find((a) => isPrivateAddress(a.address));
  if (refused && !allowPrivate) {
    throw new AppError('invalid_request', `Webhook URLs on private, loopback or IPv4-embedding addresses (${refused.address}) are not allowed.`, { param: 'url' });
  }
  return answers[0]!;
}

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
  return allowed.split(',').map((part) => part.trim()).filter(Boolean).some((part) => {
    const [low, high = low] = part.split('-').map(Number);
    return port >= low! && port <= high!;
  });
}
