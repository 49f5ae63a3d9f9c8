import type { Metadata } from 'next';
import { JobView } from '@/components/jobs/JobView';

export const metadata: Metadata = { title: 'Job' };

export default async function JobPage({ params }: { params: Promise<{ jobId: string }> }) {
  const { jobId } = await params;
  return <JobView jobId={jobId} />;
}
