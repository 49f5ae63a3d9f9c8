-- Greylisting is mostly keyed by the client IP: a chunk handed back for a greylisted address
-- records the egress that knocked, so the retry goes out from the same one (lib/jobs/chunks.ts).
ALTER TABLE "job_chunks" ADD COLUMN "egress" TEXT;
