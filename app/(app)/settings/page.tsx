import type { Metadata } from 'next';
import { Can } from '@/components/layout/Can';
import { ApiKeys } from '@/components/settings/ApiKeys';
import { AuditLink } from '@/components/settings/AuditLink';
import { DataCard } from '@/components/settings/DataCard';
import { EgressCard } from '@/components/settings/Egress';
import { Security } from '@/components/settings/Security';
import { SingleSignOn } from '@/components/settings/SingleSignOn';
import { TwoFactorCard } from '@/components/settings/TwoFactor';
import { MemberUsageCard, UsageCard } from '@/components/settings/Usage';
import { UsageHistory } from '@/components/settings/UsageChart';
import { RulesLink } from '@/components/settings/RulesLink';
import { MembersLink } from '@/components/settings/Members';
import { ReuseCard } from '@/components/settings/Reuse';
import { Webhooks } from '@/components/settings/Webhooks';
import { PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'Settings' };

export default function SettingsPage() {
  return (
    <>
      <PageTitle
        title="Settings"
        subtitle="Usage, members, rules, the reuse of fresh results, API keys, webhooks and the data of the organisation; your sign-in security; the installation's mail server reachability. What you see depends on your role."
      />
      <div className="space-y-6">
        <UsageCard />
        <UsageHistory />
        <MemberUsageCard />
        <MembersLink />
        <Can role="member">
          <RulesLink />
        </Can>
        <ReuseCard />
        <Can role="admin">
          <ApiKeys />
          <Webhooks />
          <DataCard />
        </Can>
        <Security />
        <TwoFactorCard />
        <SingleSignOn />
        <Can role="admin">
          <AuditLink />
        </Can>
        <Can role="member">
          <EgressCard />
        </Can>
      </div>
    </>
  );
}
