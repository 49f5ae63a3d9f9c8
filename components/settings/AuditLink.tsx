import Link from 'next/link';
import { Card, linkButton } from '../ui';

/** Settings' way to the audit log (admins and owners read it). */
export function AuditLink() {
  return (
    <Card
      title="Audit log"
      description="Who signed in, changed members, keys, webhooks, rules or settings, uploaded, downloaded or erased data: when, and from where."
      actions={
        <Link href="/settings/audit" className={linkButton}>
          Open the audit log
        </Link>
      }
    >
      <p className="text-sm text-slate-600">Admins and owners can read it and download it as CSV.</p>
    </Card>
  );
}
