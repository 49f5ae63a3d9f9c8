-- Progress in constant time per poll (issue 20): rows answered so far, counted by the database in the
-- same statement that stores a result. A result answers its own row and every later duplicate of it
-- (job_items.duplicate_of, counted on the partial index). ON CONFLICT DO NOTHING leaves a row already
-- stored out of the transition table, so a result saved twice counts once. One UPDATE per statement
-- and job, not per row: a batch of 500 results locks the job's row once.
ALTER TABLE "jobs" ADD COLUMN "processed_emails" INTEGER NOT NULL DEFAULT 0;
-- the request body's size: a download may be EV_DOWNLOAD_RATIO times it (plus 1 KB a row; 0 for jobs from before: no cap)
ALTER TABLE "jobs" ADD COLUMN "upload_bytes" INTEGER NOT NULL DEFAULT 0;
CREATE FUNCTION "jobs_count_processed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE "jobs" j SET "processed_emails" = j."processed_emails" + a.n FROM (SELECT r."job_id", COUNT(DISTINCT r."idx") + COUNT(i."idx") AS n FROM "new_rows" r LEFT JOIN "job_items" i ON i."job_id" = r."job_id" AND i."duplicate_of" = r."idx" WHERE r."job_id" IS NOT NULL GROUP BY r."job_id") a WHERE j."id" = a."job_id"; RETURN NULL; END $$;
CREATE TRIGGER "verifications_job_progress" AFTER INSERT ON "verifications" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "jobs_count_processed"();
-- jobs still running when this is applied start from their stored results
UPDATE "jobs" SET "processed_emails" = (SELECT COUNT(*) FROM "verifications" v WHERE v."job_id" = "jobs"."id") + (SELECT COUNT(*) FROM "job_items" i JOIN "verifications" v ON v."job_id" = i."job_id" AND v."idx" = i."duplicate_of" WHERE i."job_id" = "jobs"."id" AND i."duplicate_of" IS NOT NULL) WHERE "status" <> 'completed';
-- Deliveries in flight per endpoint, shared by every process on one database (lib/webhooks/slots.ts):
-- a row (webhook, slot) per attempt, slot < EV_WEBHOOK_PER_ENDPOINT, expiring if its holder dies.
CREATE TABLE "webhook_leases" (
    "webhook_id" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" BIGINT NOT NULL,

    PRIMARY KEY ("webhook_id", "slot")
);
ALTER TABLE "webhook_leases" SET UNLOGGED;
