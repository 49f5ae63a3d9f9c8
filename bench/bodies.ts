/**
 * Peak memory of the server for the largest bodies it takes: a million-row CSV upload (about
 * 100 MB of JSON rows, what the dashboard sends) and hostile bodies of the same size, each on a
 * fresh `next start` with the heap `npm start` gives it, measured from the request to 3 s after
 * the answer (the job itself then runs; its memory is the sandbox section's).
 */
import { request } from './load';
import { sampleRss, startServer } from './server';

export interface BodyResult {
  kind: string;
  bodyMb: number;
  status: number;
  answerMs: number;
  peakRssMb: number;
  idleRssMb: number;
}

const ROWS = 1_000_000;

function uploadBody(): Buffer {
  const rows: string[] = new Array(ROWS);
  for (let i = 0; i < ROWS; i++)
    rows[i] = JSON.stringify([`Firstname${i}`, `Lastname${i}`, `firstname.lastname${i}@company${i % 5000}.example`, `Company ${i % 977} GmbH`, 'Germany']);
  return Buffer.from(
    `{"columns":["first_name","last_name","email","company","country"],"email_column":2,"filename":"contacts.csv","rows":[${rows.join(',')}]}`,
  );
}

/** `unit` repeated, comma-separated, until the body has `bytes` bytes. */
function filled(open: string, unit: string, close: string, bytes: number): Buffer {
  const count = Math.floor((bytes - open.length - close.length) / (unit.length + 1));
  return Buffer.from(`${open}${Array(count).fill(unit).join(',')}${close}`);
}

/** The bodies, each built only when its turn comes (they are large). */
const KINDS: [string, (bytes: number) => Buffer][] = [
  ['1M-row CSV upload (5 columns)', () => uploadBody()],
  ['hostile: {"emails":[{},{},...]}', (bytes) => filled('{"emails":[', '{}', ']}', bytes)],
  [
    'hostile: rows of 1,000 two-letter cells',
    (bytes) => filled('{"columns":["a"],"email_column":0,"rows":[', `[${Array(1000).fill('"ab"').join(',')}]`, ']}', bytes),
  ],
  ['hostile: one field nested 50M deep', (bytes) => Buffer.from(`{"x":${'['.repeat(bytes / 2 - 40)}${']'.repeat(bytes / 2 - 40)},"emails":["a@example.com"]}`)],
  ['hostile: 1M one-letter addresses', () => filled('{"emails":[', '"a"', ']}', 4 * ROWS)],
];

export async function runBodiesBench(log: (line: string) => void): Promise<BodyResult[]> {
  const results: BodyResult[] = [];
  let size = 0;
  for (const [kind, make] of KINDS) {
    const body = make(size);
    if (!size) size = body.length;
    const server = await startServer();
    try {
      const headers = { authorization: `Bearer ${server.apiKey}`, 'x-ev-sandbox': 'true', 'content-type': 'application/json' };
      await new Promise((r) => setTimeout(r, 1000));
      const rss = sampleRss(server.pid, 50);
      const idleRssMb = rss.peakSoFar();
      const started = performance.now();
      const reply = await request(server.baseUrl, { method: 'POST', path: '/v1/verify/bulk', headers, body }, true);
      const answerMs = performance.now() - started;
      await new Promise((r) => setTimeout(r, 3000));
      const { peakMb } = rss.stop();
      if (server.exited()) throw new Error(`the server exited (${server.exited()}) on ${kind}`);
      const result = { kind, bodyMb: body.length / 1e6, status: reply.status, answerMs, peakRssMb: peakMb, idleRssMb };
      log(
        `  ${kind}: ${result.bodyMb.toFixed(1)} MB → ${reply.status} in ${answerMs.toFixed(0)} ms, RSS ${idleRssMb.toFixed(0)} → peak ${peakMb.toFixed(0)} MB`,
      );
      results.push(result);
    } finally {
      await server.stop();
    }
  }
  return results;
}
