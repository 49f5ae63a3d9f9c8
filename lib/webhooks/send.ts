import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { resolvePublicAddress } from './guard';

export interface SendResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * One signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), bounded
 * whatever the receiver does: `timeoutMs` covers DNS, connect, the request, the status line and the
 * headers together, and the response body is never read (only the status counts), so a receiver
 * that trickles its answer or sends a huge one costs one socket for at most `timeoutMs`.
 */
export async function sendSigned(
  urlText: string,
  secret: string,
  messageId: string,
  body: string,
  options: { allowPrivate: boolean; timeoutMs: number },
): Promise<SendResult> {
  const started = Date.now();
  const done = (status: number | null, error: string | null) => ({ status, error, durationMs: Date.now() - started });
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    const url = new URL(urlText);
    const target = await Promise.race([
      resolvePublicAddress(url, options.allowPrivate, deadline),
      new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new Error('timed out resolving the host')), { once: true })),
    ]);
    const timestamp = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'email-verifier-webhooks/1',
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(messageId, timestamp, body),
    };
    const client = url.protocol === 'https:' ? https : http;
    const status = await new Promise<number>((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          headers,
          signal: deadline,
          agent: false, // a fresh connection per attempt: nothing of a hostile receiver lingers in a pool
          // Connect to the address that was checked, never a second resolution of the name.
          lookup: (_host, lookupOptions, callback) => {
            if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
            else callback(null, target.address, target.family);
          },
        },
        (response) => {
          resolve(response.statusCode ?? 0);
          response.destroy();
        },
      );
      request.on('error', (error) => reject(deadline.aborted ? new Error(`timed out after ${options.timeoutMs} ms`) : error));
      request.end(body);
    });
    return done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`);
  } catch (error) {
    return done(null, error instanceof Error ? error.message : String(error));
  }
}
