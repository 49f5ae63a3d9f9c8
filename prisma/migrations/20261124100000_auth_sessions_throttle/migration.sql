-- AlterTable
ALTER TABLE "users" ADD COLUMN "session_version" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "auth_throttles" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "window_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE INDEX "auth_throttles_window_start_idx" ON "auth_throttles"("window_start");
