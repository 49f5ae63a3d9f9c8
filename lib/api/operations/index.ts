import type { Operation } from '../operation';
import * as verify from './verify';
import * as jobs from './jobs';
import * as webhooks from './webhooks';
import * as keys from './keys';
import * as account from './account';
import * as rules from './rules';
import * as data from './data';
import * as monitors from './monitors';
import * as teams from './teams';
import * as invitations from './invitations';
import * as installation from './installation';

export type { Operation } from '../operation';

/**
 * Every /v1 operation, declared once in the file of its area (which exports operations only) and
 * named by its operationId: a route file binds its handler to one
 * (`apiRoute(operations.submitBulk, handler)`, lib/api/route.ts). lib/api/routes.test.ts holds each
 * key equal to its operation's operationId and each bound by exactly one route file.
 */
export const operations = {
  ...verify,
  ...jobs,
  ...webhooks,
  ...keys,
  ...account,
  ...rules,
  ...data,
  ...monitors,
  ...teams,
  ...invitations,
  ...installation,
};

/** The /v1 operations in the OpenAPI document's order (lib/api/openapi.ts). */
export const OPERATIONS: Operation[] = Object.values(operations);
