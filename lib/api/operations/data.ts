import * as req from '../schemas';
import * as rd from '../responses-data';
import { operation } from '../operation';

/** Retention, erasure and export (docs/retention.md). */

export const getRetention = operation({
  method: 'get',
  path: '/v1/account/retention',
  operationId: 'getRetention',
  tag: 'Account',
  scope: 'account',
  role: 'viewer',
  summary: 'How long data is kept, and the lists about to go',
  ok: [200, rd.retentionState],
});

export const setRetention = operation({
  method: 'post',
  path: '/v1/account/retention',
  operationId: 'setRetention',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Keep data fewer days',
  description:
    'Lists, results, history, stored idempotent answers and webhook deliveries older than this are deleted (usage counts and the credit ledger are kept); `list.expiring` warns 7 and 1 days before. At most EV_RETENTION_DAYS when the installation sets it (400 above). A shorter setting applies at the next sweep.',
  body: req.retentionBody,
  ok: [200, rd.retentionState],
});

export const eraseAddress = operation({
  method: 'delete',
  path: '/v1/addresses/{email}',
  operationId: 'eraseAddress',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: 'Erase one address from every store of the account',
  description:
    'Results and history, uploaded list rows, rules of the address, stored idempotent answers and webhook deliveries that hold it (compared ignoring case). Usage counts and charges are kept. Answers what it removed (all zeros when it held nothing).',
  ok: [200, rd.addressErased],
  errors: [400],
});

export const exportData = operation({
  method: 'get',
  path: '/v1/export',
  operationId: 'exportData',
  tag: 'Account',
  scope: 'account',
  role: 'admin',
  summary: "All the account's data as a zip",
  description:
    'CSV and JSON files: `account.json`, `lists.csv` and `lists.json` (every job), `results.csv` (every result and history row, both modes), `list-rows.csv` (the uploaded rows), `rules.csv`, `keys.json` (no secrets or hashes), `webhooks.json` (no signing secrets). Streamed.',
  ok: [200, 'zip'],
});
