import { env } from '../config/env';
import { AppError } from '../errors/app-error';

/**
 * Heavy requests (a bulk submission: up to EV_MAX_BODY_BYTES read and a million rows checked; a
 * download: a whole job streamed) take one of the account's EV_HEAVY_REQUESTS_PER_ACCOUNT slots in
 * this process for as long as they run, a download until its last byte is sent or the client goes.
 * One account firing many at once gets 429s beyond its slots, so it cannot hold every turn of the
 * event loop, the write queue or the database connections other accounts need (docs/limits.md).
 */
const running = new Map<string, number>();

export interface HeavySlot {
  /** gives the slot back; a second call does nothing */
  release(): void;
}

export function takeHeavySlot(userId: string): HeavySlot {
  const limit = Math.max(1, env().EV_HEAVY_REQUESTS_PER_ACCOUNT);
  const now = running.get(userId) ?? 0;
  if (now >= limit) {
    throw new AppError(
      'rate_limit',
      `This account already runs ${limit} bulk submissions or downloads at once; retry when one has finished.`,
      { retry_after: 1, limit },
      { 'Retry-After': '1' },
    );
  }
  running.set(userId, now + 1);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      const left = (running.get(userId) ?? 1) - 1;
      if (left <= 0) running.delete(userId);
      else running.set(userId, left);
    },
  };
}

/**
 * The response with its body watched: `onEnd` runs once when the body has been read to its end,
 * failed, or was cancelled by the client; past `maxBytes` the stream fails instead of sending more.
 */
export function watchBody(response: Response, onEnd: () => void, maxBytes = Infinity): Response {
  if (!response.body) {
    onEnd();
    return response;
  }
  const reader = response.body.getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          onEnd();
          controller.close();
          return;
        }
        sent += value.byteLength;
        if (sent > maxBytes) throw new Error(`download cap of ${maxBytes} bytes reached`);
        controller.enqueue(value);
      } catch (error) {
        onEnd();
        await reader.cancel(error).catch(() => undefined);
        controller.error(error);
      }
    },
    async cancel(reason) {
      onEnd();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
