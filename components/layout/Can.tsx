'use client';

import type { ReactNode } from 'react';
import { useCan } from '@/lib/client/team-hooks';
import type { Role } from '@/lib/sdk/src/index';

/**
 * Renders its children only when the person's role in the current organisation reaches `role`
 * (docs/teams.md; the API refuses the rest with 403 `insufficient_role`), else `otherwise`.
 */
export function Can({ role, children, otherwise = null }: { role: Role; children: ReactNode; otherwise?: ReactNode }) {
  return <>{useCan(role) ? children : otherwise}</>;
}
