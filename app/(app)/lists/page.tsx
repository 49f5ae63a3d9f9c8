import type { Metadata } from 'next';
import { Can } from '@/components/layout/Can';
import { JobList } from '@/components/lists/JobList';
import { Uploader } from '@/components/lists/Uploader';
import { EgressBanner } from '@/components/settings/Egress';
import { UsageStrip } from '@/components/settings/Usage';
import { PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'Lists' };

export default function ListsPage() {
  return (
    <>
      <PageTitle title="Lists" subtitle="Upload an export, check every address, download it back with the verdicts added." actions={<UsageStrip />} />
      <div className="space-y-6">
        <Can role="member">
          <EgressBanner />
          <Uploader />
        </Can>
        <JobList />
      </div>
    </>
  );
}
