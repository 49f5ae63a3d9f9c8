import { WebhookVerificationError } from './errors.ts';
import type { WebhookPayload } from './webhook-types.ts';

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** how far the timestamp may be from now; default 300 s (as the standardwebhooks package) */
  toleranceSeconds?: number;
  now?: Date;
}

function header(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : (value ?? null);
  }
  return null;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a webhook as the Standard Webhooks specification says (the server signs with the
 * `standardwebhooks` package): HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with
 * the base64 secret after `whsec_`, any `v1,` signature of `webhook-signature` matching, and the
 * timestamp within the tolerance. WebCrypto only, so it runs in Node 20+, Bun, Deno and browsers.
 * Pass the body exactly as received (before any JSON parsing). Returns the parsed payload.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('Webhook timestamp is outside the tolerance');

  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('The secret is not base64 (whsec_…)');
  }
  const bodyBytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);

  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    let expected: Uint8Array<ArrayBuffer>;
    try {
      expected = base64Bytes(signature);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time
    if (await globalThis.crypto.subtle.verify('HMAC', key, expected, signed)) {
      const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
      return JSON.parse(text) as WebhookPayload;
    }
  }
  throw new WebhookVerificationError('No matching signature');
}
