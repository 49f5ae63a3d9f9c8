-- Politeness shared by every worker on one database (lib/verification/politeness-pg.ts); SQLite
-- deployments are one machine and keep it in the process, so there these tables stay empty.
-- CreateTable
CREATE TABLE "smtp_leases" (
    "key" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" BIGINT NOT NULL,

    PRIMARY KEY ("key", "slot")
);

-- CreateTable
CREATE TABLE "smtp_pace" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "next_at" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "smtp_holds" (
    "subject" TEXT NOT NULL PRIMARY KEY,
    "until" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "smtp_holds_until_idx" ON "smtp_holds"("until");
