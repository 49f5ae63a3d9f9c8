/**
 * Runs tasks under a per-key limit (key = MX host) and a global limit.
 *
 * Why not p-limit per host inside one global p-limit: the global queue is FIFO, so whenever a
 * slot of the biggest domain frees, its next address queues behind every small domain's
 * addresses. That domain is the critical path of the batch, and the production bench measured
 * 2.5x the ideal time that way. Here a free global slot goes to the host with the most waiting
 * work (longest-queue-first), still never more than `perKey` at once, so no host crowds out the rest.
 */
export interface Scheduler {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** drops waiting tasks (their promises never settle); running ones finish */
  clear(): void;
}

interface Lane { key: string; active: number; waiting: (() => void)[]; inHeap: boolean }

export function createScheduler(limits: { perKey: number; global: number }): Scheduler {
  const lanes = new Map<string, Lane>();
  let active = 0;
  // max-heap of lanes by waiting count, at most one entry per lane; counts may be a little stale
  const heap: { count: number; lane: Lane }[] = [];

  const eligible = (lane: Lane) => lane.active < limits.perKey && lane.waiting.length > 0;

  function offer(lane: Lane): void {
    if (lane.inHeap || !eligible(lane)) return;
    lane.inHeap = true;
    heap.push({ count: lane.waiting.length, lane });
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent].count >= heap[i].count) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  function takeTop(): Lane {
    const top = heap[0].lane;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let largest = i;
        if (l < heap.length && heap[l].count > heap[largest].count) largest = l;
        if (r < heap.length && heap[r].count > heap[largest].count) largest = r;
        if (largest === i) break;
        [heap[largest], heap[i]] = [heap[i], heap[largest]];
        i = largest;
      }
    }
    top.inHeap = false;
    return top;
  }

  function pump(): void {
    while (active < limits.global && heap.length > 0) {
      const lane = takeTop();
      if (!eligible(lane)) continue;
      const start = lane.waiting.shift()!;
      lane.active++;
      active++;
      offer(lane);
      start();
    }
  }

  function finish(lane: Lane): void {
    lane.active--;
    active--;
    if (lane.active === 0 && lane.waiting.length === 0 && !lane.inHeap) lanes.delete(lane.key);
    else offer(lane);
    pump();
  }

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let lane = lanes.get(key);
        if (!lane) lanes.set(key, (lane = { key, active: 0, waiting: [], inHeap: false }));
        const own = lane;
        own.waiting.push(() => {
          Promise.resolve().then(task).then(resolve, reject).finally(() => finish(own));
        });
        offer(own);
        pump();
      });
    },
    clear() {
      for (const lane of lanes.values()) lane.waiting.length = 0;
    },
  };
}
