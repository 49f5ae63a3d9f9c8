import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Served } from './server';

// GET /metrics on the built server (`next start`), as Prometheus scrapes it.
let server: Served;

beforeAll(async () => {
  server = await startServer({ EV_METRICS_TOKEN: 'scrape-me' }, 1);
});
afterAll(async () => server?.stop());

describe('GET /metrics on next start', () => {
  it('refuses a scraper without the token, and counts what the server did for one with it', async () => {
    const refused = await fetch(`${server.url}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.keys[0]}` } })).status).toBe(401);

    const checked = await fetch(`${server.url}/v1/verify/single`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.keys[0]}`, 'x-ev-sandbox': 'true', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'valid@x.com' }),
    });
    expect(checked.status).toBe(200);
    const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    expect(text).toMatch(/^ev_verifications_total\{verdict="deliverable",mode="sandbox",provider="other"\} 1$/m);
    expect(text).toMatch(/^ev_database_up 1$/m);
    expect(text).toMatch(/^ev_queue_age_seconds 0$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
  }, 60_000);
});
