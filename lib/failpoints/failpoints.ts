/**
 * Named crash points for recovery tests (the way FoundationDB, TiKV's fail-rs and etcd test theirs).
 *
 * `EV_TEST_FAILPOINTS` is read only by this module and only meant for tests: a comma-separated list
 * of `name` or `name=action`, where action is
 * - `exit` (default): the process dies at once with SIGKILL, as a crash or an OOM kill would, with
 *   no `finally`, no pending write and no graceful shutdown;
 * - `throw`: the step throws (a failed statement, a dropped connection);
 * - `N*exit` / `N*throw`: the first N-1 passes go through, the N-th acts, later ones go through.
 * Unset (production), `failpoint()` is one Map lookup on an empty map.
 */
const points = parse(process.env.EV_TEST_FAILPOINTS ?? '');

interface Point {
  action: 'exit' | 'throw';
  remaining: number;
}

function parse(spec: string): Map<string, Point> {
  const map = new Map<string, Point>();
  for (const item of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, how = 'exit'] = item.split('=');
    const match = /^(?:(\d+)\*)?(exit|throw)$/.exec(how);
    if (!match) throw new Error(`EV_TEST_FAILPOINTS: cannot read "${item}"`);
    map.set(name, { action: match[2] as Point['action'], remaining: Number(match[1] ?? 1) });
  }
  return map;
}

export class FailpointError extends Error {
  constructor(readonly point: string) {
    super(`failpoint ${point}`);
  }
}

/** Marks a step a test may crash at. `name` is `area.step`, for example `quota.after-reserve`. */
export function failpoint(name: string): void {
  if (points.size === 0) return;
  const point = points.get(name);
  if (!point || --point.remaining !== 0) return;
  if (point.action === 'throw') throw new FailpointError(name);
  process.stderr.write(`failpoint ${name}: killing process ${process.pid}\n`);
  process.kill(process.pid, 'SIGKILL');
}

/**
 * In-process pauses for tests that interleave two transactions at a named step (a lease running out
 * while a chunk is being finished, a sweep while a job is being written). `pauseAt(name)` arms the
 * step once: the next `await pausepoint(name)` resolves `reached` and waits until `resume()` is
 * called. Unarmed (production), `pausepoint()` is one Map lookup on an empty map.
 */
const pauses = new Map<string, { reached: () => void; released: Promise<void> }>();

export interface Pause {
  /** resolves when the code arrives at the step (and is waiting there) */
  reached: Promise<void>;
  /** lets the code go on */
  resume(): void;
}

export function pauseAt(name: string): Pause {
  let reached!: () => void;
  let resume!: () => void;
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    resume = resolve;
  });
  pauses.set(name, { reached, released });
  return {
    reached: arrived,
    resume: () => {
      pauses.delete(name);
      resume();
    },
  };
}

/** A step an in-process test may hold (see pauseAt); it also acts as `failpoint(name)`. */
export async function pausepoint(name: string): Promise<void> {
  failpoint(name);
  if (pauses.size === 0) return;
  const pause = pauses.get(name);
  if (!pause) return;
  pauses.delete(name);
  pause.reached();
  await pause.released;
}
