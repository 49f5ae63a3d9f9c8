import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { resolvePublicAddress } from './guard';

export interface SendResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const TIMEOUT_MS = 10_000;

/** One signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). */
export async function sendSigned(urlText: string, secret: string, messageId: string, body: string, allowPrivate: boolean): Promise<SendResult> {
  const started = Date.now();
  const done = (status: number | null, error: string | null) => ({ status, error, durationMs: Date.now() - started });
  try {
    const url = new URL(urlText);
    const target = await resolvePublicAddress(url.hostname, allowPrivate);
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
          timeout: TIMEOUT_MS,
          // Connect to the address that was checked, never a second resolution of the name.
          lookup: (_host, options, callback) => {
            if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
            else callback(null, target.address, target.family);
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', reject);
      request.end(body);
    });
    return done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`);
  } catch (error) {
    return done(null, error instanceof Error ? error.message : String(error));
  }
}
