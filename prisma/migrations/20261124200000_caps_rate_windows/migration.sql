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
