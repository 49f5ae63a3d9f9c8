import * as req from '../schemas';
import * as rm from '../responses-monitors';
import { operation } from '../operation';

/** Monitors and the reuse of fresh results (docs/lists.md, "Monitors" and "Reuse"). */

export const createMonitor = operation({
  method: 'post',
  path: '/v1/monitors',
  operationId: 'createMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Re-verify a list on a schedule',
  description:
    "The list must be a completed job of the caller's mode (409 `job_not_completed` otherwise; 409 `conflict` if it is already monitored). Each run is a job charged like any list (credits reserved before it starts; a run that cannot be paid is skipped with `quota.exceeded`), never answered from reused results; when it completes, `list.changed` reports the rows whose verdict changed.",
  body: req.monitorBody,
  ok: [201, rm.monitorCreated],
  errors: [404, 409],
  creates: true,
});

export const listMonitors = operation({
  method: 'get',
  path: '/v1/monitors',
  operationId: 'listMonitors',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'viewer',
  summary: 'List monitors',
  ok: [200, rm.monitorList],
});

export const getMonitor = operation({
  method: 'get',
  path: '/v1/monitors/{id}',
  operationId: 'getMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'viewer',
  summary: "A monitor and its list's health",
  description: 'Every run with its counts per verdict bucket and its changes against the run before.',
  ok: [200, rm.monitorDetail],
  errors: [404],
});

export const updateMonitor = operation({
  method: 'patch',
  path: '/v1/monitors/{id}',
  operationId: 'updateMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Pause, resume or re-time a monitor',
  body: req.monitorUpdateBody,
  ok: [200, rm.monitorCreated],
  errors: [404, 409],
});

export const deleteMonitor = operation({
  method: 'delete',
  path: '/v1/monitors/{id}',
  operationId: 'deleteMonitor',
  tag: 'Monitors',
  scope: 'jobs',
  role: 'member',
  summary: 'Delete a monitor (its runs stay)',
  ok: [200, rm.monitorDeleted],
  errors: [404],
});

export const getReuse = operation({
  method: 'get',
  path: '/v1/account/reuse',
  operationId: 'getReuse',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'Reuse of fresh results',
  ok: [200, rm.reuseSettings],
});

export const setReuse = operation({
  method: 'post',
  path: '/v1/account/reuse',
  operationId: 'setReuse',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Turn the reuse of fresh results on or off',
  description:
    "With a window of `days`, an address of a production list that the account verified within that many days is answered from that result: marked `reused` with its `checked_at`, not reserved, not charged. Unknown answers and rules' verdicts are never reused; monitors never reuse.",
  body: req.reuseBody,
  ok: [200, rm.reuseSettings],
});
