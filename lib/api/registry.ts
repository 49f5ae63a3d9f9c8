import { z } from 'zod';

/** What a schema named in the OpenAPI document carries: its component name and prose. */
export interface ContractMeta {
  id: string;
  description?: string;
  [key: string]: unknown;
}

/**
 * Named schemas of the contract (lib/api/openapi.ts builds the document from them). Requests are
 * rendered as zod reads them (defaults optional, strings before coercion), responses as the API
 * writes them, hence two registries.
 */
export const requestSchemas = z.registry<ContractMeta>();
export const responseSchemas = z.registry<ContractMeta>();
