'use client';

import Link from 'next/link';
import { useRules } from '@/lib/client/rules-hooks';
import { Card, linkButton, number } from '../ui';

/** Settings' way to the Rules page, with how many the account holds. */
export function RulesLink() {
  const rules = useRules();
  return (
    <Card
      title="Allow and block rules"
      description="Addresses, domains, MX hosts and TLDs decided before any probe, never charged."
      actions={
        <Link href="/settings/rules" className={linkButton}>
          Manage rules
        </Link>
      }
    >
      <p className="text-sm text-slate-600" data-testid="rules-count">
        {rules.data ? `${number(rules.data.length)} rules` : '…'}
      </p>
    </Card>
  );
}
