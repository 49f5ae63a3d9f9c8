import type { Metadata } from 'next';
import { Can } from '@/components/layout/Can';
import { CheckForm } from '@/components/check/CheckForm';
import { Empty, PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'Single check' };

export default function CheckPage() {
  return (
    <>
      <PageTitle title="Single check" subtitle="Type an address and see whether mail to it will arrive, and why." />
      <Can role="member" otherwise={<Empty>Viewers read lists, results and history; checking an address needs the member role. Ask an owner or admin.</Empty>}>
        <CheckForm />
      </Can>
    </>
  );
}
