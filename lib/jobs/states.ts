/**
 * The vocabulary of a job's state, declared once (as lib/verifier/vocabulary.ts does for verdicts):
 * the API's enum (lib/api/responses.ts), the worker, the queue's SQL, retention and the dashboard
 * read these arrays; the SDK's `JobState` (lib/sdk/src/types.ts) mirrors them, checked by
 * lib/sdk/test/types.test.ts. Plain data, safe to import anywhere.
 */

export const JOB_STATES = ['queued', 'processing', 'completed', 'cancelled', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A job not yet ended: its chunks are claimed, its reservation held, it can be cancelled. */
export const OPEN_STATES = ['queued', 'processing'] as const satisfies readonly JobState[];
export type OpenState = (typeof OPEN_STATES)[number];

/** A job that has ended: nothing of it runs again (retention may delete it). */
export const ENDED_STATES = ['completed', 'cancelled', 'failed'] as const satisfies readonly JobState[];

export const isOpen = (status: unknown): status is OpenState => (OPEN_STATES as readonly unknown[]).includes(status);
export const isEnded = (status: unknown): boolean => (ENDED_STATES as readonly unknown[]).includes(status);

/** The open states as an SQL list, for `status IN (${OPEN_SQL})`. */
export const OPEN_SQL = OPEN_STATES.map((state) => `'${state}'`).join(', ');
