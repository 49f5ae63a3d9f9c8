import type { Database } from '../db/client';
import type { EgressReport } from './report';

/**
 * Every egress of the fleet, as last checked: each process that runs the egress check (a worker
 * about to probe, a web server answering GET /v1/egress) writes its report under its egress key,
 * so one GET /v1/egress shows every sending IP. A report not renewed for a week is dropped: that
 * egress is gone.
 */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;

/**
 * A report as the table holds it: the field names GET /v1/egress answers, as stored before the
 * domain spelt them in camelCase, so processes of either version read each other's rows.
 */
interface StoredReport extends Pick<EgressReport, 'status' | 'egress' | 'checks'> {
  checked_at: string;
  source_ip: string | null;
  egress_ip: string | null;
  helo_name: string;
}

const stored = ({ status, checkedAt, egress, sourceIp, egressIp, heloName, checks }: EgressReport): StoredReport => ({
  status,
  checked_at: checkedAt,
  egress,
  source_ip: sourceIp,
  egress_ip: egressIp,
  helo_name: heloName,
  checks,
});

const read = ({ status, checked_at, egress, source_ip, egress_ip, helo_name, checks }: StoredReport): EgressReport => ({
  status,
  checkedAt: checked_at,
  egress,
  sourceIp: source_ip,
  egressIp: egress_ip,
  heloName: helo_name,
  checks,
});

export async function saveEgressReport({ prisma }: Database, report: EgressReport, now = Date.now()): Promise<void> {
  const row = { report: JSON.stringify(stored(report)), checkedAt: BigInt(now) };
  await prisma.egressRecord.upsert({ where: { egress: report.egress }, create: { egress: report.egress, ...row }, update: row });
  await prisma.egressRecord.deleteMany({ where: { checkedAt: { lt: BigInt(now - FORGET_AFTER_MS) } } });
}

export async function fleetEgressReports({ prisma }: Database): Promise<EgressReport[]> {
  const rows = await prisma.egressRecord.findMany({ orderBy: { egress: 'asc' } });
  return rows.map((row) => read(JSON.parse(row.report) as StoredReport));
}
