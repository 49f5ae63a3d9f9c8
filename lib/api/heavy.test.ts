import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error';
import { takeHeavySlot, watchBody } from './heavy';

describe('heavy request slots per account', () => {
  afterEach(() => {
    delete process.env.EV_HEAVY_REQUESTS_PER_ACCOUNT;
  });

  it('gives an account its slots, answers 429 with Retry-After past them, and leaves other accounts alone', () => {
    process.env.EV_HEAVY_REQUESTS_PER_ACCOUNT = '2';
    const a = [takeHeavySlot('u_a'), takeHeavySlot('u_a')];
    let refused: unknown;
    try {
      takeHeavySlot('u_a');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('rate_limit');
    expect((refused as AppError).headers).toMatchObject({ 'Retry-After': '1' });
    const b = takeHeavySlot('u_b');
    a[0]!.release();
    a[0]!.release(); // a second release gives back nothing more
    const again = takeHeavySlot('u_a');
    expect(() => takeHeavySlot('u_a')).toThrow(AppError);
    for (const slot of [a[1]!, b, again]) slot.release();
  });

  it("holds a streamed body's slot until its end, or until the client cancels", async () => {
    let ended = 0;
    const streamed = watchBody(new Response('x'.repeat(100_000)), () => ended++);
    expect(ended).toBe(0);
    expect((await streamed.text()).length).toBe(100_000);
    expect(ended).toBe(1);
    const cancelled = watchBody(new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(10)) })), () => ended++);
    const reader = cancelled.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(ended).toBe(2);
  });

  it('fails a download past its byte cap instead of sending more', async () => {
    let ended = 0;
    const capped = watchBody(new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1000)) })), () => ended++, 5_000);
    await expect(capped.arrayBuffer()).rejects.toThrow();
    expect(ended).toBe(1);
  });
});
