import type { Metadata } from 'next';
import { HistoryTable } from '@/components/history/HistoryTable';
import { PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'History' };

export default function HistoryPage() {
  return (
    <>
      <PageTitle title="History" subtitle="Every address you have checked, one by one or in a list." />
      <HistoryTable />
    </>
  );
}
