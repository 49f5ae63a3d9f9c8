import type { Database } from '../db/client';
import type { EgressReport } from './report';

/**
 * Every egress of the fleet, as last checked: each process that runs the egress check (a worker
 * about to probe, a web server answering GET /v1/egress) writes its report under its egress key,
 * so one GET /v1/egress shows every sending IP. A report not renewed for a week is dropped: that
 * egress is gone.
 */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;

export async function saveEgressReport({ prisma }: Database, report: EgressReport, now = Date.now()): Promise<void> {
  const row = { report: JSON.stringify(report), checkedAt: BigInt(now) };
  await prisma.egressRecord.upsert({ where: { egress: report.egress }, create: { egress: report.egress, ...row }, update: row });
  await prisma.egressRecord.deleteMany({ where: { checkedAt: { lt: BigInt(now - FORGET_AFTER_MS) } } });
}

export async function fleetEgressReports({ prisma }: Database): Promise<EgressReport[]> {
  const rows = await prisma.egressRecord.findMany({ orderBy: { egress: 'asc' } });
  return rows.map((row) => JSON.parse(row.report) as EgressReport);
}
