import { z } from 'zod';
import * as req from '../schemas';
import * as res from '../responses';
import { operation } from '../operation';

/** The installation itself: egress health and this document. */

export const getEgress = operation({
  method: 'get',
  path: '/v1/egress',
  operationId: 'getEgress',
  tag: 'Operations',
  scope: 'account',
  role: 'member',
  summary: 'Egress health of the installation',
  description: "Port 25, reverse DNS and blocklists, from this server process's cached check; the first call runs it.",
  query: req.egressQuery,
  ok: [200, res.egressReport],
  errors: [400],
});

export const getOpenApi = operation({
  method: 'get',
  path: '/v1/openapi.json',
  operationId: 'getOpenApi',
  tag: 'Operations',
  scope: 'public',
  role: 'viewer',
  summary: 'This document',
  description: 'No key, no rate limit.',
  ok: [200, z.object({}).passthrough()],
});
