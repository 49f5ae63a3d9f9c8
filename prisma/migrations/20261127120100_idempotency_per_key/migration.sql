-- Idempotency keys per caller (issue 29): the API key's id, or `session` for the dashboard, joins the
-- primary key. SQLite changes a primary key by rebuilding the table; rows written before keep
-- caller '' (account-wide), read as before until they expire (24 h, lib/api/idempotency.ts).
ALTER TABLE "idempotency_keys" RENAME TO "idempotency_keys_before_callers";

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "user_id" TEXT NOT NULL,
    "caller" TEXT NOT NULL DEFAULT '',
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "response_status" INTEGER,
    "response_body" TEXT,
    "created_at" BIGINT NOT NULL,
    "token" TEXT NOT NULL DEFAULT '',
    "owner" TEXT NOT NULL DEFAULT '',
    "heartbeat_at" BIGINT NOT NULL DEFAULT 0,

    PRIMARY KEY ("user_id", "caller", "key")
);

INSERT INTO "idempotency_keys" ("user_id", "caller", "key", "request_hash", "state", "response_status", "response_body", "created_at", "token", "owner", "heartbeat_at")
SELECT "user_id", '', "key", "request_hash", "state", "response_status", "response_body", "created_at", "token", "owner", "heartbeat_at" FROM "idempotency_keys_before_callers";

DROP TABLE "idempotency_keys_before_callers";

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
