// Account B's probes for test/http/neighbours.test.ts, in a process of their own so the attacker's
// work in the test process never delays them: a sandbox single check every 100 ms (the key's rate
// limit allows ten a second) and three loops of GET /health (no key, no limit), each every 100 ms,
// until a line arrives on stdin; then the latencies (ms) and any failure as JSON on stdout. Forty
// samples a second give an attack of 3 s more than 100 of them, so its p99 is not simply its max.
import http from 'node:http';

const [url, key] = process.argv.slice(2);
const latencies = [];
const failures = [];
let running = true;

function call(path, body) {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers = body
      ? { authorization: `Bearer ${key}`, 'x-ev-sandbox': 'true', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
      : {};
    const request = http.request(`${url}${path}`, { method: body ? 'POST' : 'GET', headers, agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () => {
        if (response.statusCode !== 200) failures.push(`${path}: ${response.statusCode}`);
        resolve(performance.now() - started);
      });
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', (error) => {
      failures.push(`${path}: ${error.message}`);
      resolve(performance.now() - started);
    });
    request.end(body);
  });
}

async function probe(path, body) {
  while (running) {
    const ms = await call(path, body);
    latencies.push(ms);
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - ms)));
  }
}

const probes = [probe('/health'), probe('/health'), probe('/health'), probe('/v1/verify/single', JSON.stringify({ email: 'valid@example.com' }))];
process.stdin.once('data', async () => {
  running = false;
  await Promise.all(probes);
  process.stdout.write(JSON.stringify({ latencies, failures }));
  process.exit(0);
});
