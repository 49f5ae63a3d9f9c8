import type { Metadata } from 'next';
import Link from 'next/link';
import { Rules } from '@/components/settings/Rules';
import { PageTitle, linkButton } from '@/components/ui';

export const metadata: Metadata = { title: 'Rules' };

export default function RulesPage() {
  return (
    <>
      <PageTitle
        title="Rules"
        subtitle="Addresses, domains, mail servers and TLDs you have already decided about: allowed ones are deliverable, blocked ones undeliverable, in every mode and list."
        actions={
          <Link href="/settings" className={linkButton}>
            Back to settings
          </Link>
        }
      />
      <Rules />
    </>
  );
}
