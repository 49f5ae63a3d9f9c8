-- CreateTable
CREATE TABLE "idempotency_keys" (
    "user_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "response_status" INTEGER,
    "response_body" TEXT,
    "created_at" BIGINT NOT NULL,

    PRIMARY KEY ("user_id", "key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
