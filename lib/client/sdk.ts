import { EmailVerifier } from '../sdk/src/index';
import { isSandbox } from './sandbox';

// The dashboard calls the API through the SDK, as any program does: signed in by the session
// cookie (same origin, no key), in the mode the sandbox switch is in at call time. The SDK does not
// retry here: TanStack Query decides that for reads (components/Providers.tsx) and a click is the
// retry of a write. A list of 100,000 rows may take minutes to submit, hence the long time-out.
const clients = new Map<boolean, EmailVerifier>();

export function sdk(): EmailVerifier {
  const sandbox = isSandbox();
  let client = clients.get(sandbox);
  if (!client) {
    client = new EmailVerifier({ session: true, sandbox, maxRetries: 0, timeoutMs: 600_000 });
    clients.set(sandbox, client);
  }
  return client;
}
