-- Idempotency keys per caller (issue 29): the API key's id, or `session` for the dashboard, joins the
-- primary key. Rows written before keep caller '' (account-wide), read as before until they expire
-- (24 h, lib/api/idempotency.ts).
-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN "caller" TEXT NOT NULL DEFAULT '';

ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pkey";

ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("user_id", "caller", "key");
