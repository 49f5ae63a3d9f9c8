-- CreateTable
CREATE TABLE "credit_ledger" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "credits" INTEGER NOT NULL DEFAULT 0,
    "free" INTEGER NOT NULL DEFAULT 0,
    "day" TEXT,
    "created_at" BIGINT NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "credit_ledger_cause_kind_key" ON "credit_ledger"("cause", "kind");

-- CreateIndex
CREATE INDEX "credit_ledger_user_id_idx" ON "credit_ledger"("user_id");

-- CreateIndex
CREATE INDEX "credit_ledger_kind_created_at_idx" ON "credit_ledger"("kind", "created_at");

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN "token" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN "owner" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN "heartbeat_at" BIGINT NOT NULL DEFAULT 0;

-- Opening balances (docs/guarantees.md, "Accounts older than the ledger"): the reservations of
-- unfinished jobs, each account's credits plus those reservations as one grant, and each day's free
-- verifications used outside open reservations as one charge.
INSERT INTO "credit_ledger" ("user_id", "kind", "cause", "credits", "free", "day", "created_at")
SELECT "user_id", 'reserve', "id", "reserved_credits", "reserved_free", "reserved_day", CAST(strftime('%s','now') AS INTEGER) * 1000
FROM "jobs" WHERE "status" IN ('queued', 'processing') AND "sandbox" = 0 AND "reserved_credits" + "reserved_free" > 0;

INSERT INTO "credit_ledger" ("user_id", "kind", "cause", "credits", "free", "day", "created_at")
SELECT u."id", 'grant', 'opening_' || u."id",
  u."credits" + COALESCE((SELECT SUM(r."credits") FROM "credit_ledger" r WHERE r."user_id" = u."id" AND r."kind" = 'reserve'), 0), 0, NULL, CAST(strftime('%s','now') AS INTEGER) * 1000
FROM "users" u;

INSERT INTO "credit_ledger" ("user_id", "kind", "cause", "credits", "free", "day", "created_at")
SELECT d."user_id", 'charge', 'opening_' || d."user_id" || '_' || d."day", 0,
  d."used" - COALESCE((SELECT SUM(r."free") FROM "credit_ledger" r WHERE r."user_id" = d."user_id" AND r."kind" = 'reserve' AND r."day" = d."day"), 0), d."day", CAST(strftime('%s','now') AS INTEGER) * 1000
FROM "usage_days" d;
