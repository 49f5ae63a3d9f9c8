import { AppError } from '../errors/app-error';
import { env } from '../config/env';
import { sandboxTrigger } from '../verifier/sandbox';

/**
 * Sandbox error triggers (`error-auth…`, `error-ratelimit…`, `error-server…`, `error-timeout…`)
 * answer as the error table of docs/api.md and the OpenAPI document (lib/api/openapi.ts) say. Throws; returns when there is none.
 */
export async function applySandboxTrigger(email: string): Promise<void> {
  switch (sandboxTrigger(email)) {
    case 'auth':
      throw new AppError('authentication_error', 'Simulated authentication error (sandbox trigger error-auth).');
    case 'ratelimit':
      throw new AppError('rate_limit', 'Simulated rate limit (sandbox trigger error-ratelimit). Retry in 60 s.', { retry_after: 60 }, { 'Retry-After': '60' });
    case 'server':
      throw new AppError('server_error', 'Simulated server error (sandbox trigger error-server).');
    case 'timeout':
      await new Promise((resolve) => setTimeout(resolve, env().EV_SANDBOX_TIMEOUT_MS));
      throw new AppError('timeout', 'Simulated verification time-out (sandbox trigger error-timeout).');
    case null:
      return;
  }
}
