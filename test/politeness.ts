import { sleep } from '@/lib/verifier/abort';
import type { Politeness } from '@/lib/verifier/politeness';

/**
 * Runs `perInstance` conversations of `holdMs` on each politeness instance (one per process, as
 * workers are) against one target; answers the most open at once and the start times in order.
 */
export async function converse(fleet: Politeness[], key: string, pacing: { concurrency: number; perMinute: number }, perInstance: number, holdMs: number) {
  let open = 0;
  let maxOpen = 0;
  const starts: number[] = [];
  await Promise.all(
    fleet.flatMap((politeness) =>
      Array.from({ length: perInstance }, async () => {
        const permit = await politeness.acquire({ key, pacing });
        starts.push(performance.now());
        maxOpen = Math.max(maxOpen, ++open);
        await sleep(holdMs);
        open--;
        permit.release();
      }),
    ),
  );
  return { maxOpen, starts: starts.sort((a, b) => a - b) };
}
