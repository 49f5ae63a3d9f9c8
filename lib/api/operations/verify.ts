import * as req from '../schemas';
import * as res from '../responses';
import { operation, VERIFY_ERRORS } from '../operation';

/** Single addresses (docs/api.md): the two shapes of one check. */

/** A single check's body: one address, with room to spare. */
const SINGLE_CHECK_BYTES = 64 * 1024;

export const verifySingle = operation({
  method: 'post',
  path: '/v1/verify/single',
  operationId: 'verifySingle',
  tag: 'Verify',
  scope: 'verify',
  role: 'member',
  publishable: true,
  summary: 'Verify one address',
  description:
    'A syntactically invalid address is a verdict (`valid: false`, `reason: invalid_email`), not an error. A production check that reaches its deadline (EV_VERIFY_DEADLINE_MS) answers `unknown`/`timeout` and is not charged.',
  body: req.emailBody,
  ok: [200, res.singleResult],
  errors: VERIFY_ERRORS,
  sandboxTriggers: true,
  maxBodyBytes: SINGLE_CHECK_BYTES,
});

export const verify = operation({
  method: 'post',
  path: '/v1/verify',
  operationId: 'verify',
  tag: 'Verify',
  scope: 'verify',
  role: 'member',
  publishable: true,
  summary: 'Verify one address (SDK shape)',
  body: req.emailBody,
  ok: [200, res.verifyResult],
  errors: VERIFY_ERRORS,
  sandboxTriggers: true,
  maxBodyBytes: SINGLE_CHECK_BYTES,
});
