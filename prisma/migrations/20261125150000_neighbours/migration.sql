-- Progress in constant time per poll (issue 20): rows answered so far, counted by the database in the
-- same statement that stores a result. A result answers its own row and every later duplicate of it
-- (job_items.duplicate_of, counted on the partial index). ON CONFLICT DO NOTHING inserts fire
-- nothing, so a result saved twice counts once. The count has a narrow table of its own: rewriting
-- the jobs row (its header JSON, its summary) once per stored result cost more than the insert.
CREATE TABLE "job_progress" (
    "job_id" TEXT NOT NULL PRIMARY KEY,
    "processed" INTEGER NOT NULL DEFAULT 0
);
-- the request body's size: a download may be EV_DOWNLOAD_RATIO times it (plus 1 KB a row; 0 for jobs from before: no cap)
ALTER TABLE "jobs" ADD COLUMN "upload_bytes" INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER "verifications_job_progress" AFTER INSERT ON "verifications" WHEN NEW."job_id" IS NOT NULL BEGIN INSERT INTO "job_progress" ("job_id", "processed") VALUES (NEW."job_id", 1 + (SELECT COUNT(*) FROM "job_items" WHERE "job_id" = NEW."job_id" AND "duplicate_of" = NEW."idx")) ON CONFLICT ("job_id") DO UPDATE SET "processed" = "processed" + excluded."processed"; END;
-- jobs still running when this is applied start from their stored results
INSERT INTO "job_progress" ("job_id", "processed") SELECT j."id", (SELECT COUNT(*) FROM "verifications" v WHERE v."job_id" = j."id") + (SELECT COUNT(*) FROM "job_items" i JOIN "verifications" v ON v."job_id" = i."job_id" AND v."idx" = i."duplicate_of" WHERE i."job_id" = j."id" AND i."duplicate_of" IS NOT NULL) FROM "jobs" j WHERE j."status" <> 'completed';
-- Deliveries in flight per endpoint, shared by every process on one database (lib/webhooks/slots.ts):
-- a row (webhook, slot) per attempt, slot < EV_WEBHOOK_PER_ENDPOINT, expiring if its holder dies.
CREATE TABLE "webhook_leases" (
    "webhook_id" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" BIGINT NOT NULL,

    PRIMARY KEY ("webhook_id", "slot")
);
