import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError, invalidRequest } from '../api/errors';
import { isPrivateAddress } from '../verifier/net';

/**
 * Resolves a webhook host and refuses private, loopback, link-local and metadata addresses unless
 * the operator allows them. The caller connects to the returned IP (not the name again), so a DNS
 * answer cannot change between the check and the connection.
 */
export async function resolvePublicAddress(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const answers = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true }).catch(() => []);
  if (answers.length === 0) throw invalidRequest('url', `The webhook host ${host} does not resolve.`);
  const refused = answers.find((a) => isPrivateAddress(a.address));
  if (refused && !allowPrivate) {
    throw new ApiError('invalid_request', `Webhook URLs on private or loopback addresses (${refused.address}) are not allowed.`, { param: 'url' });
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
  return url;
}
