-- Greylisting is mostly keyed by the client IP: a chunk handed back for a greylisted address
-- records the egress that knocked, so the retry goes out from the same one (lib/jobs/chunks.ts).
ALTER TABLE "job_chunks" ADD COLUMN "egress" TEXT;

-- The latest egress check of each egress of the fleet, written by the process that ran it, so
-- GET /v1/egress shows every sending IP (lib/egress/fleet.ts).
-- CreateTable
CREATE TABLE "egress_reports" (
    "egress" TEXT NOT NULL PRIMARY KEY,
    "report" TEXT NOT NULL,
    "checked_at" BIGINT NOT NULL
);
