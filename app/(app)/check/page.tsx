import type { Metadata } from 'next';
import { CheckForm } from '@/components/check/CheckForm';
import { PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'Single check' };

export default function CheckPage() {
  return (
    <>
      <PageTitle title="Single check" subtitle="Type an address and see whether mail to it will arrive, and why." />
      <CheckForm />
    </>
  );
}
