import type { Metadata } from 'next';
import { ApiKeys } from '@/components/settings/ApiKeys';
import { DataCard } from '@/components/settings/DataCard';
import { EgressCard } from '@/components/settings/Egress';
import { Security } from '@/components/settings/Security';
import { SingleSignOn } from '@/components/settings/SingleSignOn';
import { MemberUsageCard, UsageCard } from '@/components/settings/Usage';
import { UsageHistory } from '@/components/settings/UsageChart';
import { RulesLink } from '@/components/settings/RulesLink';
import { ReuseCard } from '@/components/settings/Reuse';
import { Webhooks } from '@/components/settings/Webhooks';
import { PageTitle } from '@/components/ui';

export const metadata: Metadata = { title: 'Settings' };

export default function SettingsPage() {
  return (
    <>
      <PageTitle title="Settings" subtitle="Usage, rules, the reuse of fresh results, API keys, webhooks, your data and sign-in security for your account; the installation's mail server reachability." />
      <div className="space-y-6">
        <UsageCard />
        <UsageHistory />
        <MemberUsageCard />
        <RulesLink />
        <ReuseCard />
        <ApiKeys />
        <Webhooks />
        <DataCard />
        <Security />
        <SingleSignOn />
        <EgressCard />
      </div>
    </>
  );
}
