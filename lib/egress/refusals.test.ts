import { afterEach, describe, expect, it } from 'vitest';
import { forgetPostmasterRefusals, notePostmasterRefusal, refusalCheck, withRefusals } from './refusals';
import type { EgressReport } from './report';

afterEach(forgetPostmasterRefusals);

describe('postmaster refusals as a sign against an egress', () => {
  const report = {
    status: 'pass',
    egress: 'ip:192.0.2.1',
    checks: [{ name: 'port25', status: 'pass', message: 'ok', remedy: null }],
  } as unknown as EgressReport;

  it('adds a warning while a server refused postmaster in the last hour, for that egress only', () => {
    expect(withRefusals(report, 0)).toBe(report);
    notePostmasterRefusal('ip:192.0.2.1', 'mx:mx.example.org', 1000);
    notePostmasterRefusal('ip:192.0.2.1', 'provider:google', 2000);
    const warned = withRefusals(report, 3000);
    expect(warned.status).toBe('warn');
    expect(warned.checks.map((c) => c.name)).toEqual(['port25', 'refusals']);
    expect(warned.checks[1]!.message).toMatch(/^2 refusals in the last hour that postmaster@ got too \(mx:mx\.example\.org, provider:google\)/);
    expect(refusalCheck('ip:192.0.2.2', 3000)).toBeNull();
    // an hour later the sign is gone
    expect(refusalCheck('ip:192.0.2.1', 1000 + 60 * 60_000 + 1000 + 1)).toBeNull();
  });
});
