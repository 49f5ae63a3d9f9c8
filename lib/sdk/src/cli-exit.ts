import { AuthenticationError, ConnectionError, EmailVerifierError, InsufficientCreditsError, RateLimitError, ServerError, TimeoutError } from './errors.ts';

/** How the CLI ends: its exit codes, and the error of each (cli.ts prints it). */

/** Exit codes: lib/sdk/README.md lists them. */
export const EXIT = {
  ok: 0,
  notDeliverable: 1,
  usage: 2,
  authentication: 3,
  credits: 4,
  rateLimited: 5,
  refused: 6,
  unavailable: 7,
  jobEnded: 8,
} as const;

/** A command or option used wrongly: exit code 2, and the help after the message. */
export class UsageError extends Error {}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof AuthenticationError) return EXIT.authentication;
  if (error instanceof InsufficientCreditsError) return EXIT.credits;
  if (error instanceof RateLimitError) return EXIT.rateLimited;
  if (error instanceof ServerError || error instanceof TimeoutError || error instanceof ConnectionError) return EXIT.unavailable;
  if (error instanceof EmailVerifierError) return EXIT.refused;
  return EXIT.unavailable;
}
