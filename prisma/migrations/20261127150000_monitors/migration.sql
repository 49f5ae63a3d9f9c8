-- Monitors (lib/monitors): a finished list re-verified on a schedule, each run a job compared with the one before.
-- Fresh results reused (lib/jobs/reuse.ts): users.reuse_days opts in; a reused row keeps its first time in reused_at.
ALTER TABLE "users" ADD COLUMN "reuse_days" INTEGER;
ALTER TABLE "jobs" ADD COLUMN "monitor_id" TEXT;
ALTER TABLE "jobs" ADD COLUMN "previous_job_id" TEXT;
ALTER TABLE "jobs" ADD COLUMN "changes" TEXT;
ALTER TABLE "verifications" ADD COLUMN "reused_at" BIGINT;

-- CreateIndex
CREATE INDEX "jobs_monitor_id_idx" ON "jobs"("monitor_id");

-- CreateTable
CREATE TABLE "monitors" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "list_id" TEXT NOT NULL,
    "interval_days" INTEGER NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "next_run_at" BIGINT NOT NULL,
    "periods" INTEGER NOT NULL DEFAULT 0,
    "lease_until" BIGINT NOT NULL DEFAULT 0,
    "latest_job_id" TEXT,
    "last_skipped_at" BIGINT,
    "last_skip_reason" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "monitors_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "monitors_list_id_key" ON "monitors"("list_id");
CREATE INDEX "monitors_user_id_idx" ON "monitors"("user_id");
CREATE INDEX "monitors_next_run_at_idx" ON "monitors"("next_run_at");
