-- CreateTable
CREATE TABLE "rate_windows" (
    "subject" TEXT NOT NULL,
    "window_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    "expires_at" BIGINT NOT NULL,

    PRIMARY KEY ("subject", "window_start")
);

-- CreateIndex
CREATE INDEX "rate_windows_expires_at_idx" ON "rate_windows"("expires_at");

-- Windows live a minute or an hour and are worth nothing after a crash: without WAL an upsert does
-- not wait for a flush to disk (bench/ratelimit.ts measures the difference).
ALTER TABLE "rate_windows" SET UNLOGGED;
