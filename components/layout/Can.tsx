'use client';

import type { ReactNode } from 'react';
import { roleAtLeast } from '@/lib/accounts/roles';
import { useCurrentOrganisation } from '@/lib/client/team-hooks';
import type { Role } from '@/lib/sdk/src/index';

/**
 * Renders its children only when the person's role in the current organisation reaches `role`
 * (docs/teams.md; the API refuses the rest with 403 `insufficient_role`), `otherwise` when it does
 * not, and nothing until the role is known.
 */
export function Can({ role, children, otherwise = null }: { role: Role; children: ReactNode; otherwise?: ReactNode }) {
  const held = useCurrentOrganisation()?.role;
  if (held === undefined) return null;
  return <>{roleAtLeast(held, role) ? children : otherwise}</>;
}
