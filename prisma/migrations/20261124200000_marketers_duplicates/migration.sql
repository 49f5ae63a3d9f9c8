-- A job verifies each mailbox once: later rows of the same mailbox point at the first one.
ALTER TABLE "jobs" ADD COLUMN "duplicate_emails" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "job_items" ADD COLUMN "duplicate_of" INTEGER;
-- Only duplicates are indexed: a list without any pays nothing at insert time.
CREATE INDEX "job_items_duplicate_of_idx" ON "job_items"("job_id", "duplicate_of") WHERE "duplicate_of" IS NOT NULL;
