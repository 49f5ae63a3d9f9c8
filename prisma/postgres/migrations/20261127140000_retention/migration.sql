-- Retention, erasure and export (lib/retention, docs/retention.md). An account may keep its data
-- for fewer days than EV_RETENTION_DAYS; a held job (a monitored list's latest run) is never expired;
-- expiry_notice records the list.expiring warnings sent (7, then 1 day before).
ALTER TABLE "users" ADD COLUMN "retention_days" INTEGER;
ALTER TABLE "jobs" ADD COLUMN "retention_hold" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "jobs" ADD COLUMN "expiry_notice" INTEGER;
-- chargeable results of the job deleted by erasure or retention: the charge and the audit still count them
ALTER TABLE "jobs" ADD COLUMN "kept_chargeable" INTEGER NOT NULL DEFAULT 0;
-- the ended jobs by age: the retention sweep's scan
CREATE INDEX "jobs_created_at_idx" ON "jobs"("created_at");
-- usage counts of deleted verifications, added to the stored ones by GET /v1/usage; charged_singles:
-- the charged single checks among them, which the audit (lib/accounts/audit.ts) adds to the stored ones
CREATE TABLE "usage_kept" (
    "user_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "sandbox" BOOLEAN NOT NULL,
    "checks" INTEGER NOT NULL DEFAULT 0,
    "deliverable" INTEGER NOT NULL DEFAULT 0,
    "undeliverable" INTEGER NOT NULL DEFAULT 0,
    "unknown" INTEGER NOT NULL DEFAULT 0,
    "charged_singles" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_kept_pkey" PRIMARY KEY ("user_id", "day", "sandbox")
);
CREATE TABLE "maintenance_leases" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" BIGINT NOT NULL,

    CONSTRAINT "maintenance_leases_pkey" PRIMARY KEY ("name")
);
