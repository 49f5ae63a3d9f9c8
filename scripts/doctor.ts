// npm run doctor [-- --json]: checks from this machine what makes SMTP probing fail in practice
// (outbound port 25, reverse DNS of the egress address against EV_HELO_NAME, DNS blocklists, a
// resolver that denies EV_DNS_CANARIES), with the same environment as the server. Exit code 1 when a check fails; warnings exit 0.
import { checkEgress, type CheckStatus } from '../lib/egress/check';
import { egressDepsFromEnv } from '../lib/egress/state';
import { env } from '../lib/config/env';
import { egressReport } from '../lib/api/responses';
import { shape } from '../lib/api/shape';

const config = env();
const report = await checkEgress(egressDepsFromEnv(config));

if (process.argv.includes('--json')) {
  // the fields as GET /v1/egress names them (lib/api/shape.ts)
  console.log(JSON.stringify(shape(egressReport.shape.data, { ...report, policy: config.EV_EGRESS_POLICY }), null, 2));
} else {
  const mark: Record<CheckStatus, string> = { pass: '✓', warn: '!', fail: '✗' };
  const title: Record<string, string> = {
    identity: 'identity',
    port25: 'port 25',
    egress_ip: 'egress IP',
    rdns: 'reverse DNS',
    dnsbl: 'blocklists',
    resolver: 'DNS resolver',
  };
  console.log(
    `Egress ${report.egress} (HELO ${report.heloName}${report.sourceIp ? `, from ${report.sourceIp}` : ''}, SMTP port ${config.EV_SMTP_PORT}${config.EV_SMTP_PROXY ? `, proxy ${config.EV_SMTP_PROXY.host}:${config.EV_SMTP_PROXY.port}` : ''})\n`,
  );
  for (const check of report.checks) {
    console.log(`${mark[check.status]} ${title[check.name]!.padEnd(12)} ${check.message}`);
    if (check.remedy) console.log(`  ${''.padEnd(12)} → ${check.remedy}`);
  }
  console.log(
    `\n${report.status === 'pass' ? 'All checks pass.' : report.status === 'warn' ? 'Warnings only: probing may work, read them.' : 'A check fails: SMTP probing will not work reliably from here.'}` +
      (report.status !== 'pass' && config.EV_EGRESS_POLICY === 'pause' && report.checks.some((c) => c.name === 'port25' && c.status === 'fail')
        ? ' Workers hold production jobs (EV_EGRESS_POLICY=pause).'
        : '') +
      (report.checks.some((c) => c.name === 'identity' && c.status === 'fail')
        ? ' Workers hold production jobs and single checks answer 503 until the sender identity is set.'
        : ''),
  );
}
process.exit(report.status === 'fail' ? 1 : 0);
