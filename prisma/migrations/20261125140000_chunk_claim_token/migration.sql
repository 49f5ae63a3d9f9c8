-- Each claim of a chunk gets a fresh token (lib/jobs/chunks.ts): renewals, saves and completion
-- name the claim, not the worker, so a worker's stale claim is refused even under the same id.
ALTER TABLE "job_chunks" ADD COLUMN "claim_token" TEXT;
