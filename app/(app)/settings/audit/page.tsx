import type { Metadata } from 'next';
import Link from 'next/link';
import { Can } from '@/components/layout/Can';
import { AuditLog } from '@/components/settings/AuditLog';
import { Card, PageTitle, linkButton } from '@/components/ui';

export const metadata: Metadata = { title: 'Audit log' };

// Admins and owners (GET /v1/audit refuses the others with 403 insufficient_role).
export default function AuditPage() {
  return (
    <>
      <PageTitle
        title="Audit log"
        subtitle="Who did what in this organisation, when and from where. Kept for the installation's EV_AUDIT_RETENTION_DAYS (a year by default)."
        actions={
          <Link href="/settings" className={linkButton}>
            Back to settings
          </Link>
        }
      />
      <Can
        role="admin"
        otherwise={
          <Card>
            <p className="text-sm text-slate-600">The audit log is for the organisation's admins and owners.</p>
          </Card>
        }
      >
        <AuditLog />
      </Can>
    </>
  );
}
