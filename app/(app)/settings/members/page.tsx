import type { Metadata } from 'next';
import Link from 'next/link';
import { InvitationsCard } from '@/components/settings/Invitations';
import { MembersCard } from '@/components/settings/Members';
import { OrganisationCard } from '@/components/settings/Organisation';
import { PageTitle, linkButton } from '@/components/ui';

export const metadata: Metadata = { title: 'Members' };

export default function MembersPage() {
  return (
    <>
      <PageTitle
        title="Members"
        subtitle="The people who share this organisation's credits, lists and keys, each with a role; invitations by email."
        actions={
          <Link href="/settings" className={linkButton}>
            Back to settings
          </Link>
        }
      />
      <div className="space-y-6">
        <OrganisationCard />
        <MembersCard />
        <InvitationsCard />
      </div>
    </>
  );
}
