import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '../../test/api/harness';
import { DIALECTS } from '../../test/databases';
import { fleetEgressReports, saveEgressReport } from './fleet';
import type { EgressReport } from './report';

const report = (egress: string, status: EgressReport['status'], ip: string): EgressReport => ({
  status,
  checkedAt: new Date().toISOString(),
  egress,
  sourceIp: ip,
  egressIp: ip,
  heloName: `out.${ip}.test`,
  checks: [{ name: 'port25', status, message: `port 25 from ${ip}`, remedy: null }],
});

describe.each(DIALECTS)("the fleet's egress reports on %s", (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect);
  });
  afterAll(async () => ctx.teardown());

  it('keeps the latest report of each egress, and forgets one silent for a week', async () => {
    const now = Date.now();
    await saveEgressReport(ctx.database, report('ip:192.0.2.2', 'fail', '192.0.2.2'), now - 8 * 24 * 3600_000);
    await saveEgressReport(ctx.database, report('ip:192.0.2.1', 'fail', '192.0.2.1'), now - 1000);
    await saveEgressReport(ctx.database, report('ip:192.0.2.1', 'pass', '192.0.2.1'), now);
    await saveEgressReport(ctx.database, report('socks:proxy.test:1080', 'warn', '198.51.100.9'), now);
    const listed = await fleetEgressReports(ctx.database);
    expect(listed.map((r) => [r.egress, r.status])).toEqual([
      ['ip:192.0.2.1', 'pass'],
      ['socks:proxy.test:1080', 'warn'],
    ]);
    expect(listed[0]).toMatchObject({
      sourceIp: '192.0.2.1',
      heloName: 'out.192.0.2.1.test',
      checks: [{ name: 'port25', message: 'port 25 from 192.0.2.1' }],
    });
  });

  it('stores a report under the names it always had, so processes of the version before read it', async () => {
    await saveEgressReport(ctx.database, report('ip:192.0.2.3', 'pass', '192.0.2.3'));
    const row = await ctx.database.prisma.egressRecord.findUniqueOrThrow({ where: { egress: 'ip:192.0.2.3' } });
    expect(JSON.parse(row.report)).toMatchObject({ source_ip: '192.0.2.3', egress_ip: '192.0.2.3', helo_name: 'out.192.0.2.3.test' });
    expect(Object.keys(JSON.parse(row.report))).toEqual(['status', 'checked_at', 'egress', 'source_ip', 'egress_ip', 'helo_name', 'checks']);
  });
});
