import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AuditFilter } from '../sdk/src/index';
import { sdk } from './sdk';

/** GET /v1/audit: one page of the organisation's audit log (admins and owners). */
export function useAuditPage(filter: AuditFilter & { cursor?: string }) {
  return useQuery({
    queryKey: ['account', 'audit', filter],
    queryFn: () => sdk().auditPage({ limit: 50, ...filter }),
    placeholderData: keepPreviousData,
  });
}
