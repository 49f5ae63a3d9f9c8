'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useNotMember } from '@/lib/client/organisation';
import { useOrganisations, useSwitchOrganisation } from '@/lib/client/team-hooks';
import { Button, selectClass } from '../ui';

/**
 * The organisation the dashboard acts for, and the others the person belongs to (GET
 * /v1/organisations). Choosing one writes the `ev-org` cookie and reloads every query for it; a
 * list's page belongs to one organisation, so from there the choice goes to the lists.
 */
export function OrganisationSwitcher() {
  const organisations = useOrganisations();
  const switchTo = useSwitchOrganisation();
  const router = useRouter();
  const pathname = usePathname();
  const data = organisations.data;
  if (!data) return null;
  const current = data.data.find((o) => o.id === data.current);

  function onChoose(id: string) {
    if (pathname.startsWith('/jobs/')) router.push('/lists');
    void switchTo(id);
  }

  if (data.data.length <= 1) {
    return (
      <span
        className="max-w-40 truncate text-sm font-medium text-slate-700"
        data-testid="organisation-name"
        title={current ? `${current.name} (${current.role})` : undefined}
      >
        {current?.name}
      </span>
    );
  }
  return (
    <label className="flex items-center gap-2 text-sm">
      <span className="sr-only">Organisation</span>
      <select className={`${selectClass} max-w-48 py-1.5`} value={data.current} onChange={(e) => onChoose(e.target.value)} data-testid="organisation-switcher">
        {data.data.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </label>
  );
}

/** After a 403 `not_a_member`: the person was removed from the organisation the cookie names. */
export function NotMemberBanner() {
  const refused = useNotMember();
  const switchTo = useSwitchOrganisation();
  const router = useRouter();
  if (!refused) return null;
  return (
    <div role="alert" className="border-t border-red-200 bg-red-50 px-4 py-2 text-sm text-red-900" data-testid="not-a-member">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-3">
        <span>You are not a member of this organisation any more: an owner or admin removed you, or you left it.</span>
        <Button
          variant="secondary"
          className="py-1"
          onClick={() => {
            router.push('/lists');
            void switchTo(null);
          }}
        >
          Back to your own organisation
        </Button>
      </div>
    </div>
  );
}
