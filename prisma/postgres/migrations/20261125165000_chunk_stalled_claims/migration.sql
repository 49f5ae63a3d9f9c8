-- Claims of a chunk in a row that stored no result (lib/jobs/chunks.ts): only these add up to failing
-- its job, so workers killed under a chunk that still makes progress never fail it. `attempts`
-- keeps counting every claim: it is the budget of the chunk's transient answers.
ALTER TABLE "job_chunks" ADD COLUMN "stalled_claims" INTEGER NOT NULL DEFAULT 0;
