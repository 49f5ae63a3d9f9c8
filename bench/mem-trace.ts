/**
 * BENCH_MEM_TRACE=<file.json>: samples the server's memory through a bulk job, to tell what its
 * resident memory is (docs/benchmarks.md): from /proc, the tree's RSS split into anonymous and
 * file-backed pages; from the server's /metrics (prom-client's default gauges), V8's heap spaces
 * (used and committed) and external memory. A scrape waits for the event loop, so the heap figures
 * are as of the last turn the server answered in; the /proc ones are read every `everyMs`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { processTree } from './server';

export const MEM_TRACE_TOKEN = 'bench-mem-trace';

export interface MemSample {
  t: number;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** every 5th sample, from /proc/<pid>/smaps: glibc's main heap (brk), its thread arenas (64 MB-aligned heaps), other anonymous mappings (V8's pages, its page pool, large mallocs) */
  smaps?: { brkMb: number; arenasMb: number; otherAnonMb: number };
  /** from the last /metrics scrape that answered (MB): heap used / committed per space, external */
  heap?: Record<string, number>;
}

function statusKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const MB = 1024 * 1024;
const ARENA = 64 * MB;

/** The anonymous resident memory of a process by kind of mapping (see MemSample.smaps). */
export function smapsKinds(pid: number): MemSample['smaps'] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const maps: { start: bigint; name: string; rssKb: number }[] = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ start: BigInt(`0x${head[1]}`), name: head[2]!.trim(), rssKb: 0 });
    else if (line.startsWith('Rss:') && maps.length) maps[maps.length - 1]!.rssKb = Number(line.slice(4).trim().split(' ')[0]);
  }
  // a thread arena is a 64 MB-aligned heap of glibc's: its first mapping starts on the boundary
  const arenaBlocks = new Set(maps.filter((m) => !m.name && m.start % BigInt(ARENA) === 0n && m.start > 0x7f0000000000n).map((m) => m.start));
  const kinds = { brkMb: 0, arenasMb: 0, otherAnonMb: 0 };
  for (const m of maps) {
    if (m.name === '[heap]') kinds.brkMb += m.rssKb;
    else if (m.name) continue;
    else if (arenaBlocks.has(m.start - (m.start % BigInt(ARENA)))) kinds.arenasMb += m.rssKb;
    else kinds.otherAnonMb += m.rssKb;
  }
  return { brkMb: Math.round(kinds.brkMb / 1024), arenasMb: Math.round(kinds.arenasMb / 1024), otherAnonMb: Math.round(kinds.otherAnonMb / 1024) };
}
const GAUGES =
  /^(nodejs_heap_space_size_(?:used|total)_bytes\{space="(\w+)"\}|nodejs_external_memory_bytes|nodejs_heap_size_used_bytes|nodejs_heap_size_total_bytes) (\S+)/;

async function scrape(baseUrl: string): Promise<Record<string, number>> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${MEM_TRACE_TOKEN}` } });
  const text = await res.text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = GAUGES.exec(line);
    if (!m) continue;
    const name = m[2] ? `${m[1]!.includes('_used_') ? 'used' : 'total'}.${m[2]}` : m[1]!.replace(/^nodejs_|_bytes$/g, '');
    out[name] = Math.round((Number(m[3]) / MB) * 10) / 10;
  }
  return out;
}

/** Starts sampling; `stop()` writes the samples to `file` and answers the sample at the RSS peak. */
export function traceMemory(baseUrl: string, root: number, file: string, everyMs = 100) {
  const t0 = performance.now();
  const samples: MemSample[] = [];
  let heap: Record<string, number> | undefined;
  let scraping = false;
  const timer = setInterval(() => {
    const pids = processTree(root);
    const anon = pids.reduce((s, p) => s + statusKb(p, 'RssAnon'), 0) / 1024;
    const fileBacked = pids.reduce((s, p) => s + statusKb(p, 'RssFile') + statusKb(p, 'RssShmem'), 0) / 1024;
    const smaps = samples.length % 5 === 0 ? smapsKinds(pids[pids.length - 1]!) : undefined;
    samples.push({
      t: Math.round(performance.now() - t0),
      rssMb: Math.round(anon + fileBacked),
      anonMb: Math.round(anon),
      fileMb: Math.round(fileBacked),
      smaps,
      heap,
    });
    if (!scraping) {
      scraping = true;
      scrape(baseUrl)
        .then((h) => (heap = { ...h, at: Math.round(performance.now() - t0) }))
        .catch(() => {})
        .finally(() => (scraping = false));
    }
  }, everyMs);
  return {
    stop(): MemSample | undefined {
      clearInterval(timer);
      writeFileSync(file, JSON.stringify(samples));
      return samples.reduce<MemSample | undefined>((peak, s) => (!peak || s.rssMb > peak.rssMb ? s : peak), undefined);
    },
  };
}
